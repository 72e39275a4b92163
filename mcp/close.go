package mcp

// Close ends what the handler runs beyond the requests it serves, for a
// graceful shutdown or a test's end:
//
//   - open notification streams (subscriptions/listen, a 2025 session's
//     GET stream, and listens that follow tasks) are told to end, each as
//     it ends when its lifetime is over, so that their clients listen
//     again, elsewhere (Close does not wait for them; Shutdown does); a
//     stream asked for afterwards is refused with 503 and Retry-After;
//   - a 2025 call waiting for its client's answer (WithLegacyInput: a
//     question such as elicitation/create on the call's stream) stops
//     waiting and ends at once with the JSON-RPC error -31503, data.reason
//     "shutting_down", saying the call did not complete — a destructive
//     tool awaiting its confirmation has not run, and does not — so that
//     its client retries, elsewhere, and is asked again. The wait's slots
//     and its answer subscription are given back (an answer sent later is
//     refused). A call that would start waiting after Close is refused
//     the same way, with 503 and Retry-After, before anything is asked;
//   - with ChangeNotifications.OnFleet, the fleet follower stops: the
//     context OnFleet was given is cancelled, and Close returns once a
//     running OnFleet has. So OnFleet must not call Close itself, which
//     would wait for it forever: from a fleet event, call go h.Close();
//   - the Server no longer tells the handler of its Updates (one already
//     under way may still publish its changes once), so a handler that is
//     dropped is not kept alive by its Server.
//
// Every other request is served as before: a stateless endpoint holds
// nothing else to release. net/http's Server.Shutdown waits for every
// connection to go idle, which a stream's does only at its lifetime's end
// (45 s for a listen, 30 minutes for a GET stream) and a waiting call's
// when its answer comes (up to LegacyInput.Wait, 30 s); calling Close from
// Server.RegisterOnShutdown ends them. Close may be called more than once,
// from any goroutine but OnFleet's, and at the same time as requests; it
// returns nil.
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

// closing reports whether Close was called.
func (h *Handler) closing() bool {
	select {
	case <-h.closed:
		return true
	default:
		return false
	}
}

// shuttingDown is what a stream asked for after Close gets.
func shuttingDown() *Error { return unavailable("Server shutting down", "shutting_down") }
