package mcp

import (
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/local"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/observe"
)

// exchange is one observed request: its event and how far it has come.
type exchange struct {
	ev    observe.Event
	w     observedWriter
	begun bool
	// skip: the exchange was no MCP operation of its own: a batch whose
	// members were observed each on its own, a GET stream that opened, or
	// a client's answer to a question (a JSON-RPC response).
	skip bool
	done func()
}

// observedWriter counts what the endpoint writes for the event. It stays
// flushable (streamed responses flush through it).
type observedWriter struct {
	http.ResponseWriter
	ev *observe.Event
}

func (w *observedWriter) WriteHeader(status int) {
	if w.ev.Status == 0 {
		w.ev.Status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *observedWriter) Write(b []byte) (int, error) {
	if w.ev.Status == 0 {
		w.ev.Status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.ev.BytesOut += n
	return n, err
}

func (w *observedWriter) Flush() { _ = w.FlushError() }

// FlushError passes a failed flush on to http.ResponseController, as
// the request's own writer does (write.go).
func (w *observedWriter) FlushError() error {
	return http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *observedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// eventOf returns the event of the request w answers, nil when nobody
// observes it.
func eventOf(w http.ResponseWriter) *observe.Event {
	switch w := w.(type) {
	case *observedWriter:
		return w.ev
	case *streamWriter:
		return eventOf(w.ResponseWriter)
	case interface{ Unwrap() http.ResponseWriter }:
		// The request's own writer (trackedWriter, write.go), which a
		// panic that escapes serving reads.
		return eventOf(w.Unwrap())
	}
	return nil
}

// maxObserved bounds a client's string an observer is given, in bytes.
const maxObserved = 128

// clip cuts s to at most n bytes, on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// begin tells the observer about req once its message is read. It
// returns req's HTTP request with the observer's context.
func (x *exchange) begin(h *Handler, req *request, bodyLen int) {
	ev := &x.ev
	msg := &req.msg
	ev.BytesIn = bodyLen
	req.server.describe(ev, msg.Method, msg.ID, msg.IsNotification(), req.principal, req.Param)
	x.begun = true
	ctx, done := h.cfg.observer.Request(req.HTTP.Context(), ev)
	x.done = done
	if ctx != req.HTTP.Context() {
		req.HTTP = req.HTTP.WithContext(ctx)
	}
}

// finish completes the event with what serving req settled.
func (x *exchange) finish(req *request) {
	ev := &x.ev
	ev.Version = string(req.version)
	if ws, ok := req.accessCache.resolved(); ok {
		ev.Workspace = ws
	}
	ev.Retry = req.round != nil
	ev.Confirmation = req.confirmation
}

// describe fills in what an event names of its message — method, id,
// caller, _meta and target — for a served message (begin) and a batch
// member refused before it was served alike; param returns a member of
// the message's params. The method and the target are the client's
// strings, as long as the body allows: every observer gets them cut
// (logs, spans, metrics).
func (s *Server) describe(ev *observe.Event, method string, id []byte, notification bool, principal *auth.Principal, param func(name string) ([]byte, bool)) {
	ev.Method, ev.Notification = clip(method, maxObserved), notification
	if id != nil {
		ev.ID = string(id)
	}
	if principal != nil {
		ev.Principal = principal.Key()
	}
	if meta, ok := param("_meta"); ok && jsonrpc.IsObject(meta) {
		ev.RawMeta = meta
	}
	ev.Target, ev.TargetKnown = s.targetIn(method, param)
	ev.Target = clip(ev.Target, maxObserved)
}

// targetIn returns the target a message names (tool or prompt name,
// resource URI) and whether the server has an item of that name; param
// returns a member of its params.
func (s *Server) targetIn(method string, param func(name string) ([]byte, bool)) (string, bool) {
	// The method table names the member Mcp-Name mirrors; a task's id is
	// no target.
	row := methodsByName[method]
	if row == nil {
		return "", false
	}
	member := row.Member
	switch method {
	case "resources/subscribe", "resources/unsubscribe":
		// No routing member (2025 only), but the URI is their target.
		member = "uri"
	}
	if member == "" || row.Task {
		return "", false
	}
	raw, _ := param(member)
	target, _ := jsonrpc.String(raw)
	switch method {
	case "tools/call":
		return target, s.byName[target] != nil
	case "prompts/get":
		return target, s.byPrompt[target] != nil
	}
	return target, false
}

// observeRefusedMember reports a member of a 2025-03-26 batch refused
// before it was served (not an object, an initialize, a 2026-07-28
// envelope), as a member that is served is reported: a message of its
// own, with what it names as sent (method, id, target, _meta, each as
// begin cuts them), the batch's revision and caller, and the refusal e
// with answerLen bytes. The member was scanned with its batch.
func (h *Handler) observeRefusedMember(r *http.Request, principal *auth.Principal, member []byte, start time.Time, e *Error, answerLen int) {
	ev := &observe.Event{Start: start, Transport: "http", ClientAddr: r.RemoteAddr, Version: string(Version20250326),
		Status: e.status, Code: int(e.code), Message: e.message, BytesIn: len(member), BytesOut: answerLen}
	if loc := local.From(r.Context()); loc != nil {
		ev.Transport, ev.ClientAddr = loc.Transport, ""
	}
	// A member that is no object names nothing: it is described by its
	// caller alone.
	var method string
	var id, params []byte
	hasID := false
	if jsonrpc.IsObject(member) {
		raw, _ := jsonrpc.Lookup(member, "method")
		method, _ = jsonrpc.String(raw)
		id, hasID = jsonrpc.Lookup(member, "id")
		if len(id) == 0 || jsonrpc.CheckID(id) != "" {
			id = nil // an id the member cannot be answered by is not its id
		}
		if params, _ = jsonrpc.Lookup(member, "params"); !jsonrpc.IsObject(params) {
			params = nil
		}
	}
	h.server.current().describe(ev, method, id, !hasID && method != "", principal, func(name string) ([]byte, bool) {
		if params == nil {
			return nil, false
		}
		return jsonrpc.Lookup(params, name)
	})
	_, done := h.cfg.observer.Request(r.Context(), ev)
	ev.Duration = time.Since(start)
	if done != nil {
		done()
	}
}

// observeRoute calls the observer around one in-process route call, on an
// endpoint that has one (the caller checks); it returns the route's
// request and the function to call when it answered.
func (h *Handler) observeRoute(outer, r *http.Request, pattern, target string) (*http.Request, func(status int)) {
	o := h.cfg.observer
	// The target of a template's read is the client's URI: cut as the
	// message's target is.
	ev := &observe.RouteEvent{Start: time.Now(), Method: r.Method, Pattern: pattern, Path: r.URL.Path, Target: clip(target, maxObserved)}
	ctx, done := o.Route(outer.Context(), r.Context(), ev)
	if ctx != r.Context() {
		r = r.WithContext(ctx)
	}
	return r, func(status int) {
		ev.Status, ev.Duration = status, time.Since(ev.Start)
		if done != nil {
			done()
		}
	}
}
