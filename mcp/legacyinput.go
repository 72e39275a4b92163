package mcp

import (
	"context"
	"net/http"
	"time"

	"github.com/mcpdual/mcpdual/headers"
)

// Input requests for 2025 clients (WithLegacyInput). A 2025 revision has
// no input_required round: the server asks in the middle of the request,
// as a JSON-RPC request on the response's event stream, and the client
// answers with a POST of its own, which may reach another replica. The
// core turns the handler's interim answer (the seam.InputRequired a
// 2026-07-28 client would get) into those requests, waits for the answers
// through an AnswerBus, and runs the handler again with them as the round
// of a retry: the handler cannot tell the two apart.

// LegacyInput configures WithLegacyInput. Zero fields take their defaults.
type LegacyInput struct {
	// Bus carries a client's answer from the replica its POST reaches to
	// the one waiting for it (default: in this process only; replicas
	// share one, such as redisstore.NewAnswerBus).
	Bus AnswerBus
	// Wait bounds how long a call waits for the client's answers (default
	// 30s). Keep it below the http.Server's WriteTimeout, or the response
	// is cut before the call can end. A call not answered in time ends as
	// declined; nothing runs.
	Wait time.Duration
	// PerCaller bounds the calls one caller may have waiting at once
	// (default 4); Total, those of all callers (default 256). A call over
	// either bound is not asked and ends without running. A waiting call
	// holds one of these wait slots, not one of Limits.Concurrent: it
	// gives its concurrency slot back while it waits, and takes one again
	// to run with the answer, waiting up to 5 s for one (past that it
	// ends with the 503 "Server overloaded" error, not run).
	PerCaller, Total int
	// AnswerBytes bounds the body of an answer (default 64 KiB).
	AnswerBytes int64
}

// WithLegacyInput lets a tool ask a 2025 client for input: when its
// handler calls RequireInput, or it is a destructive tool to confirm, and
// the client declared the capability the question needs (elicitation,
// sampling, roots) on initialize — which the endpoint learns from a sealed
// session, so give the 2025 era era2025.WithSessions — the tools/call
// answer becomes an event stream carrying elicitation/create,
// sampling/createMessage or roots/list; the client's answer (a POST of a
// JSON-RPC response, to any replica) is delivered through c.Bus, and the
// handler runs again with it exactly as for a 2026-07-28 retry
// (Call.InputResponse, Call.Elicitation; a confirmed destructive call gets
// its Idempotency-Key and goes through the replay guard).
//
// Over stdio (mcp/stdio) the process is the session: the capabilities of
// its initialize decide, the questions and the answers are lines.
//
// Each question's id is unguessable and bound to the caller: an answer
// from another caller, to an unknown id, a second answer or one after the
// call ended is refused (400) and changes nothing. A client that goes away
// while asked cancels the call; nothing runs. Without this option, without
// a session, or without the capability, 2025 clients get what they got
// before (a destructive tool answers confirmation_required). 2026-07-28
// requests are never asked this way.
func WithLegacyInput(c LegacyInput) HandlerOption {
	if c.Wait < 0 || c.PerCaller < 0 || c.Total < 0 || c.AnswerBytes < 0 {
		panic("mcp: WithLegacyInput needs bounds of 0 (the default) or more")
	}
	if c.Bus == nil {
		c.Bus = newMemoryBus()
	}
	if c.Wait == 0 {
		c.Wait = 30 * time.Second
	}
	if c.PerCaller == 0 {
		c.PerCaller = 4
	}
	if c.Total == 0 {
		c.Total = 256
	}
	if c.AnswerBytes == 0 {
		c.AnswerBytes = 64 << 10
	}
	l := &legacyInput{LegacyInput: c, waiting: &admission{limit: c.Total, perCaller: c.PerCaller, held: map[string]int{}}}
	return handlerOptionFunc(func(hc *handlerConfig) { hc.legacy = l })
}

// legacyInput is WithLegacyInput's configuration and its count of waiting
// calls (Total in all, PerCaller each).
type legacyInput struct {
	LegacyInput
	waiting *admission
}

// legacyNotifier makes a 2025 call that may be asked for input able to
// stream (the stream starts only when a question is sent): the notifier of
// tools/call's row. It returns nil when the call cannot be asked this way.
func (h *Handler) legacyNotifier(w http.ResponseWriter, req *request) *notifier {
	if h.cfg.legacy == nil || req.rev.f.envelope || req.rev.f.inputRequests ||
		!acceptsEventStream(req.HTTP) {
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
	if loc := req.local; loc != nil && loc.Capabilities != nil && !req.rev.f.envelope {
		req.ClientCapabilities = loc.Capabilities
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
