package mcp

// Close ends what the handler runs beyond the requests it serves, for a
// graceful shutdown or a test's end:
//
//   - open notification streams (subscriptions/listen, a 2025 session's
//     GET stream, and listens that follow tasks) end now, each as it ends
//     when its lifetime is over, so that their clients listen again,
//     elsewhere; a stream asked for afterwards is refused with 503 and
//     Retry-After;
//   - with ChangeNotifications.OnFleet, the fleet follower stops: the
//     context OnFleet was given is cancelled, and Close returns once a
//     running OnFleet has;
//   - the Server no longer tells the handler of its Updates, so a
//     handler that is dropped is not kept alive by its Server.
//
// Every other request is served as before: a stateless endpoint holds
// nothing else to release. net/http's Server.Shutdown waits for every
// connection to go idle, which a stream's never does; calling Close from
// Server.RegisterOnShutdown ends them. Close may be called more than once
// and at the same time as requests; it returns nil.
func (h *Handler) Close() error {
	h.closeOnce.Do(func() {
		close(h.closed)
		if h.unwatch != nil {
			h.unwatch()
		}
		if h.stopFleet != nil {
			h.stopFleet()
			<-h.fleetDone
		}
	})
	return nil
}

// shutDown reports whether Close was called.
func (h *Handler) shutDown() bool {
	select {
	case <-h.closed:
		return true
	default:
		return false
	}
}

// shuttingDown is what a stream asked for after Close gets.
func shuttingDown() *Error { return unavailable("Server shutting down", "shutting_down") }
