package mcp

import (
	"context"
	"net/http"

	"github.com/mcpdual/mcpdual/headers"
)

// Input requests for 2025 clients (WithLegacyInput). A 2025 revision has
// no input_required round: the server asks in the middle of the request,
// as a JSON-RPC request on the response's event stream, and the client
// answers with a POST of its own, which may reach another replica. The
// core turns the handler's interim answer (the seam.InputRequired a
// 2026-07-28 client would get) into those requests, waits for the answers
// through an AnswerBus, and runs the handler again with them as the round
// of a retry: the handler cannot tell the two apart. The option and its
// configuration (WithLegacyInput, LegacyInput) sit in endpoint.go with
// every HandlerOption; the ask loop is legacyask.go, the answer endpoint
// answer.go, the AnswerBus with its in-memory default stores.go.

// legacyNotifier makes a 2025 call that may be asked for input able to
// stream (the stream starts only when a question is sent), for a method
// whose row asks (methodRow.asksLegacy), with WithLegacyInput, in a
// revision without input_required (the caller checks those). It returns
// nil when the call cannot be asked this way.
func (h *Handler) legacyNotifier(w http.ResponseWriter, req *request) *notifier {
	if !acceptsEventStream(req.HTTP) {
		return nil
	}
	if loc := req.local; loc != nil {
		// A local transport (stdio) is two-way already: the question goes
		// out as a message of its own, the answer comes back as one, when
		// the transport says it carries answers.
		if loc.Wait == nil || loc.Notify == nil {
			return nil
		}
	} else if len(req.HTTP.Header[headers.SessionID]) == 0 {
		return nil
	}
	if n := req.notify; n != nil {
		n.legacy = true
		return n
	}
	n := &notifier{minLevel: -1, legacy: true, w: &streamWriter{ResponseWriter: w, version: req.version}}
	if req.local != nil {
		n.w.direct = req.local.Notify
	}
	return n
}

// localSession gives a 2025 message of a local transport the capabilities
// its client declared on initialize: over stdio the process is the
// session, and the transport keeps what a sealed Mcp-Session-Id carries
// over HTTP.
func localSession(req *request) {
	if loc := req.local; loc != nil && loc.Capabilities != nil && !req.rev.f.Envelope {
		req.clientCaps = loc.Capabilities
	}
}

// localWait tells a local transport that req starts waiting for its
// client's answer (local.Exchange.Wait), and returns what takes the
// transport's bound again; a no-op over HTTP.
func localWait(req *request) func(context.Context) error {
	if loc := req.local; loc != nil && loc.Wait != nil {
		return loc.Wait()
	}
	return func(context.Context) error { return nil }
}
