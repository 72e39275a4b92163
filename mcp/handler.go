package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/local"
	"github.com/mcpdual/mcpdual/internal/origin"
	"github.com/mcpdual/mcpdual/internal/panics"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/observe"
	"github.com/mcpdual/mcpdual/mcp/ratelimit"
)

// NewHandler returns the endpoint for srv serving eras. It panics if srv is
// nil, eras is empty, two eras claim one revision or two eras name a
// default revision, like http.ServeMux.Handle panics on a conflicting
// pattern. The server must be complete: NewHandler freezes it, and panics
// when a tool's MCP Apps view (Tool.UI) names a resource that is not a
// registered ui:// view.
func NewHandler(srv *Server, eras []Era, opts ...HandlerOption) *Handler {
	if srv == nil {
		panic("mcp: NewHandler needs a Server")
	}
	if len(eras) == 0 {
		panic("mcp: NewHandler needs at least one Era")
	}
	h := &Handler{server: srv, byVersion: map[Version]*revision{}, closed: make(chan struct{})}
	h.cfg = handlerConfig{
		limits:    defaultLimits(),
		hosts:     origin.Loopback(),
		origins:   origin.Loopback(),
		logger:    slog.Default(),
		clientKey: remoteIP,
	}
	for _, o := range opts {
		o.applyHandler(&h.cfg)
	}
	h.cfg.admit = newAdmission(h.cfg.limits)
	h.listens = newListens()
	switch {
	case h.cfg.replayOff != "":
		h.cfg.logger.WarnContext(context.Background(), "mcp: confirmations of destructive tools are not single-use (WithoutReplayGuard)", "reason", h.cfg.replayOff)
	case h.cfg.replay == nil:
		g := newMemoryGuard(100_000)
		h.cfg.replay, h.cfg.localGuard = g, g.instance
	}
	sessions := false // a revision's era issues sessions
	for _, era := range eras {
		e := era.Seam()
		h.eras = append(h.eras, e)
		for _, w := range e.Warnings() {
			h.cfg.logger.WarnContext(context.Background(), w)
		}
		profiles := e.Profiles()
		if len(profiles) == 0 {
			panic("mcp: an Era serves no version")
		}
		for i := range profiles {
			v := Version(profiles[i].Version)
			if _, dup := h.byVersion[v]; dup {
				panic(fmt.Sprintf("mcp: two eras serve version %s", v))
			}
			h.byVersion[v] = newRevision(e, &profiles[i])
			h.supported = append(h.supported, string(v))
			sessions = sessions || profiles[i].Sessions
		}
		if d := e.Default(); d != "" {
			if h.dflt != "" {
				panic("mcp: two eras name a default revision")
			}
			h.dflt = Version(d)
		}
	}
	// Revisions are dates: newest first is descending string order.
	slices.SortFunc(h.supported, func(a, b string) int { return strings.Compare(b, a) })
	h.audience = "urn:mcpdual:" + srv.identity.Name
	if a := h.cfg.auth; a != nil {
		h.audience = a.Resource()
		// A task runs a tool's routes: whoever polls, updates or cancels
		// it needs what calling the tool needs, besides its own scopes.
		h.taskScopes = map[string][]string{}
		for _, row := range methodTable {
			if row.Task {
				h.taskScopes[row.name] = append(slices.Clone(a.MethodScopes(row.name)), a.MethodScopes("tools/call")...)
			}
		}
	}
	srv.freeze((*Server).freezeExtensions)
	h.startNotifications(srv)
	h.getStreams = sessions && h.notes != nil
	h.viewOf(srv.current())
	return h
}

// ServeHTTP implements http.Handler. The order of the checks decides which
// error wins: method, Host and Origin, the per-client limit, media type,
// content coding and declared length, authentication (before the body is read), then the body
// and its parse, the per-principal limit (a parse error is answered after
// it, so a malformed flood still spends its budget), the concurrency slot
// (taken only with the body read and the caller known), the era, the
// method's scopes, and the era's own ladder.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.cfg.observer != nil {
		h.serveObserved(w, r)
		return
	}
	h.serveHTTP(w, r, nil)
}

// serveHTTP serves r; x is its observed exchange, nil when nobody
// observes the endpoint.
func (h *Handler) serveHTTP(w http.ResponseWriter, r *http.Request, x *exchange) {
	// req, once made, tracks whether anything of the answer was written
	// (req.tw); stream: a GET stream, whose writes nothing tracks.
	var req *request
	stream := false
	defer func() {
		if p := recover(); p != nil {
			h.recovered(p, w, r, req, stream)
		}
	}()
	hdr := w.Header()
	loc := local.From(r.Context())
	if x != nil && loc != nil {
		x.ev.Transport, x.ev.ClientAddr = loc.Transport, ""
	}
	if r.Method == http.MethodGet && h.getStreams && loc == nil {
		if err := h.checkOrigin(r); err != nil {
			h.writeError(r.Context(), w, nil, "", err)
			return
		}
		if h.cfg.clientLimit != nil && h.limitedBeforeAuth(r) {
			if err := h.takeRate(w, r, h.cfg.clientLimit, ratelimit.ClientKey(h.cfg.clientKey(r)), h.cfg.limiter == nil); err != nil {
				h.writeError(r.Context(), w, nil, "", err)
				return
			}
		}
		stream = true
		h.servePush(w, r) // a 2025 session's notification stream (push.go)
		if x != nil && x.ev.Status == http.StatusOK {
			// A stream that opened is no MCP message: reported, it would
			// be one whose method was never read, lasting the stream's
			// life. Its refusals are reported as any refusal is.
			x.skip = true
		}
		return
	}
	if r.Method != http.MethodPost {
		// With change notifications and a 2025 revision that issues
		// sessions, GET is served too (a session's stream, above): Allow
		// names what the endpoint serves (RFC 9110 §10.2.1). Without
		// sessions no GET can open a stream, and GET is refused here.
		hdr["Allow"] = []string{"POST"}
		if h.getStreams && loc == nil {
			hdr["Allow"] = []string{"GET, POST"}
		}
		h.writeError(r.Context(), w, nil, "", httpError(http.StatusMethodNotAllowed, CodeInvalidRequest, "Method not allowed: the MCP endpoint accepts POST only"))
		return
	}
	if err := h.checkOrigin(r); loc == nil && err != nil {
		h.writeError(r.Context(), w, nil, "", err)
		return
	}
	if h.cfg.clientLimit != nil && loc == nil && h.limitedBeforeAuth(r) {
		// With a per-principal limiter as well, that one's budget is what
		// X-RateLimit-* report; this one speaks only when it refuses.
		if err := h.takeRate(w, r, h.cfg.clientLimit, ratelimit.ClientKey(h.cfg.clientKey(r)), h.cfg.limiter == nil); err != nil {
			h.writeError(r.Context(), w, nil, "", err)
			return
		}
	}
	if err := checkContentType(r); err != nil {
		h.writeError(r.Context(), w, nil, "", err)
		return
	}
	if err := checkContentEncoding(r); err != nil {
		// RFC 9110 §12.5.3: a 415 for a content coding names the codings
		// taken, which tells it from a 415 for the media type (that one
		// must not carry Accept-Encoding).
		hdr["Accept-Encoding"] = []string{"identity"}
		h.writeError(r.Context(), w, nil, "", err)
		return
	}
	if r.ContentLength > h.cfg.limits.BodyBytes && (loc == nil || loc.Message == nil) {
		// A message a local transport parsed is refused below, with its
		// id: on a local transport the id is all that ties an answer to
		// its message.
		h.writeError(r.Context(), w, nil, "", h.tooLarge())
		return
	}
	var principal *auth.Principal
	var localRefusal *auth.Failure
	switch {
	case loc != nil && loc.Principal != nil:
		// The host named the identity when it started the transport.
		principal = loc.Principal
	case h.cfg.auth != nil:
		if p := h.memberPrincipal(r); p != nil {
			// A member of a batch: its POST authenticated (batch.go).
			principal = p
			break
		}
		// Over the network, or a local transport started without an
		// identity: a request without a token is refused the same way.
		p, f := h.cfg.auth.Authenticate(r)
		switch {
		case f != nil && loc != nil:
			// Nothing ties a local answer to its message but its id: refuse
			// once the message is read (a local body costs nothing to read).
			localRefusal = f
		case f != nil:
			h.writeError(r.Context(), w, nil, "", h.failure(r.Context(), f))
			return
		}
		principal = p
	}
	// The body is read into memory of its own, never reused: what a
	// handler is given (arguments, capabilities, answers) aliases it
	// safely, with no copy.
	// A local transport that parsed the message hands it over (same
	// bytes, same parser, same depth): it is neither read nor scanned again.
	parsed := loc != nil && loc.Message != nil
	// One allocation holds the request and everything it needs while it
	// is served: its parsed envelope, the Call, the route's request, a
	// short body. The registry this request reads to its end, and what
	// the eras are told of it (update.go: Server.current, Handler.viewOf,
	// inlined).
	snap := h.server.live.Load()
	if snap == nil {
		snap = h.server
	}
	req = &request{envelope: envelope{server: snap, handler: h, principal: principal, local: loc}}
	// Everything written from here on goes through the request's tracker
	// (no allocation of its own: it is part of the request's block).
	req.tw.ResponseWriter = w
	w = &req.tw
	var body []byte
	var err *Error
	switch {
	case loc != nil && loc.Refused != nil:
		// The transport refused what it could not read (a stdio line over
		// its bound): answered and observed here, as a body over the
		// limit is, with the transport's own words.
		e := httpError(loc.Refused.Status, Code(loc.Refused.Code), loc.Refused.Message)
		if loc.Refused.Data != nil {
			e = e.WithData(json.RawMessage(loc.Refused.Data))
		}
		err = e
	case !parsed:
		body, err = h.readBody(r, req.bodyBuf[:0])
	case int64(len(loc.Body)) > h.cfg.limits.BodyBytes:
		err = h.tooLarge()
	default:
		body = loc.Body
	}
	req.HTTP, req.Core, req.Local = r, req, loc != nil
	if v := h.view.Load(); v != nil && v.snap == snap {
		req.Server = &v.info
	} else {
		req.Server = h.viewOf(snap)
	}
	msg := &req.msg
	var perr *jsonrpc.Error
	if err == nil {
		if parsed {
			*msg = *loc.Message
		} else {
			perr = req.Request.Parse(body, jsonrpc.DefaultMaxDepth, msg)
		}
		if perr == nil {
			req.Name, req.Params = msg.Method, msg.Params
		}
	}
	if x != nil && err == nil && perr == nil {
		x.begin(h, req, len(body))
		defer x.finish(req)
		r = req.HTTP // with the observer's context
	}
	// A client's answer to a question is a JSON-RPC response, no request:
	// it is no operation of the server's (the call that asked is, with its
	// wait in it), delivered or refused. Observed, it would be a message
	// whose method was never read. Its refusals are logged (answer.go).
	isAnswer := err == nil && perr != nil && perr.Reason == "unexpected_response" && h.cfg.legacy != nil && localRefusal == nil
	if isAnswer && x != nil {
		x.skip = true
	}
	if h.cfg.limiter != nil {
		var id []byte
		method := ""
		if err == nil && perr == nil {
			id, method = msg.ID, msg.Method
		}
		if lerr := h.takePrincipalRate(w, r, req.callerKey(), method); lerr != nil {
			if isAnswer {
				h.cfg.logger.InfoContext(r.Context(), "mcp: an answer to a question was refused", "reason", "rate_limited")
			}
			h.writeError(r.Context(), w, id, "", lerr)
			return
		}
	}
	if err != nil {
		var id []byte
		if parsed {
			id = loc.Message.ID
			if x != nil && id != nil {
				x.ev.ID = string(id) // what the answer echoes, as a served message's event says
			}
		}
		h.writeError(r.Context(), w, id, "", err)
		return
	}
	if isAnswer {
		h.acceptAnswer(w, r, principal, body)
		return
	}
	if perr != nil && perr.Reason == "too_deep" && bytes.HasPrefix(bytes.TrimLeft(body, " \t\r\n"), []byte("[")) && h.batchable(r) {
		// A batch's array is a level of its own: a member may nest as deep
		// as a message sent alone (each is parsed again with that bound).
		if p := req.Request.Parse(body, jsonrpc.DefaultMaxDepth+1, msg); p != nil {
			perr = p
		}
	}
	if perr != nil && perr.Reason == "batch" && h.batchable(r) {
		// batch.go: each member is served as a POST of its own, and
		// observed as one; the array itself is no MCP message.
		if h.serveBatch(w, r, body, h, principal) && x != nil {
			x.skip = true
		}
		return
	}
	if perr != nil {
		h.writeError(r.Context(), w, refusedID(perr), "", parseError(perr))
		return
	}
	if localRefusal != nil {
		h.writeError(r.Context(), w, msg.ID, "", h.failure(r.Context(), localRefusal))
		return
	}
	if a := h.cfg.admit; a != nil {
		// The slot is taken only now, with the body read and the caller
		// known: a client trickling its body holds none, and no caller
		// holds more than its share.
		caller := req.callerKey()
		if e := a.acquire(caller); e != nil {
			h.writeError(r.Context(), w, msg.ID, "", e)
			return
		}
		req.slot = true
		defer h.releaseSlot(req)
	}
	rev, eerr := h.selectEra(req)
	if eerr != nil {
		h.writeError(r.Context(), w, msg.ID, "", eerr)
		return
	}
	if msg.IsNotification() {
		// Notifications are accepted and never answered; a notification
		// never runs a tool (it could not report what it did).
		req.setVersion(rev.version) // for the observer
		if rev.f.Sessions {
			// A 2025 notification POST is a request of its session like
			// any other: an id that no longer opens is 404 (the
			// transports' MUST), so the client starts over, rather than
			// 202. The row lets notifications/initialized carry a stale
			// id, as initialize may.
			req.rev = rev
			if err := h.envelope(req, methodsByName[msg.Method]); err != nil {
				h.writeError(r.Context(), w, nil, rev.version, err)
				return
			}
		}
		hdr["Cache-Control"] = req.values.one("no-store")
		hdr[protoHeader] = req.values.one(string(rev.version))
		w.WriteHeader(http.StatusAccepted)
		return
	}
	req.setVersion(rev.version)
	req.rev, req.row = rev, lookup(req, msg.Method, rev)
	if loc != nil {
		localSession(req) // legacyinput.go
	}
	if h.cfg.streaming {
		n := h.newNotifier(w, req)
		if h.notes != nil {
			n = h.sessionNotifier(w, req, n) // a 2025 session's log level (push.go)
		}
		if n != nil {
			req.notify, w = n, n.w
		}
	}
	if row := req.row; row != nil {
		// What the method's row brings: the stream of a 2025 call that
		// may ask (legacyinput.go), of a listen (tasklisten.go).
		var n *notifier
		switch {
		case row.asksLegacy && h.cfg.legacy != nil && !rev.f.Envelope && !rev.f.InputRequests:
			n = h.legacyNotifier(w, req)
		case row.notifier != nil:
			n = row.notifier(h, w, req)
		}
		if n != nil {
			req.notify, w = n, n.w
		}
	}
	if h.cfg.auth != nil {
		need, isTask := h.taskScopes[msg.Method]
		if !isTask {
			need = h.cfg.auth.MethodScopes(msg.Method)
		}
		if !h.cfg.auth.Satisfies(principal, need) {
			h.writeError(r.Context(), w, msg.ID, rev.version, h.failure(r.Context(), h.cfg.auth.InsufficientScope(need)))
			return
		}
	}
	result, serr := h.serve(req)
	if serr != nil {
		h.writeError(r.Context(), w, msg.ID, req.version, serr)
		return
	}
	sessionHeader(hdr, req.sessionID)
	h.writeResult(w, msg.ID, req.version, result, &req.values)
}

// recovered handles a panic that escaped serving — raised by the host's
// code that runs outside dispatch's recover (a rate limiter, a workspace
// resolver, an era hook) or by the endpoint's own. It is logged through
// the endpoint's logger by its type and place, never its value (record
// 011), and answered 500 -32603 when nothing of the answer was written
// yet. Left to net/http, the value and its stack went to the server's
// log, and the client saw its connection cut. When part of an answer is
// out (a stream), another could only corrupt it: the response is cut, as
// net/http would cut it, by http.ErrAbortHandler, which it does not log.
// An http.ErrAbortHandler raised by the host is its own decision to cut
// the response, and goes on as it was raised.
func (h *Handler) recovered(p any, w http.ResponseWriter, r *http.Request, req *request, stream bool) {
	if p == http.ErrAbortHandler {
		panic(p)
	}
	method := ""
	if req != nil {
		method = clip(req.msg.Method, maxObserved)
	}
	logQuietly(r.Context(), h.cfg.logger, slog.LevelError, "mcp: panic while serving a request", "method", method, "panic", panics.Describe(p))
	if stream || req != nil && req.tw.wrote {
		panic(http.ErrAbortHandler)
	}
	var id []byte
	if req != nil && req.Name != "" {
		id = req.msg.ID // the message was read: the answer echoes its id
	}
	h.writeError(r.Context(), w, id, "", httpError(http.StatusInternalServerError, CodeInternal, "Internal error"))
}

// serve dispatches req, turning a panic into an internal error so that no
// request can crash the process.
func (h *Handler) serve(req *request) (result seam.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			req.logError("mcp: panic while serving a request", "method", req.msg.Method, "panic", panics.Describe(p))
			result, err = nil, errInternal()
		}
	}()
	return h.dispatch(req)
}

func checkContentType(r *http.Request) *Error {
	ct := r.Header["Content-Type"] // Values, without canonicalizing a canonical name
	if len(ct) == 1 {
		if ct[0] == "application/json" {
			return nil
		}
		mt, params, err := mime.ParseMediaType(ct[0])
		if err == nil && mt == "application/json" {
			// A charset's name is case-insensitive (RFC 9110 §8.3.2):
			// "Utf-8" is UTF-8 as much as "utf-8" is.
			cs, hasCS := params["charset"]
			if len(params) == 0 || (len(params) == 1 && hasCS && strings.EqualFold(cs, "utf-8")) {
				return nil
			}
		}
	}
	return httpError(http.StatusUnsupportedMediaType, CodeInvalidRequest, "Unsupported media type: send Content-Type: application/json").
		WithData(map[string]string{"expected": "application/json"})
}

// checkContentEncoding refuses a body sent with a content coding (gzip,
// deflate, br...). The endpoint decodes none: read as JSON, coded bytes
// were a parse error that named the wrong fault, and a plain body that
// claimed a coding was served as the client wrote it while an
// intermediary that decodes it read another. "identity", no coding,
// passes, as does an empty element of the list.
func checkContentEncoding(r *http.Request) *Error {
	for _, v := range r.Header["Content-Encoding"] {
		for v != "" {
			var coding string
			coding, v, _ = strings.Cut(v, ",")
			if coding = strings.TrimSpace(coding); coding != "" && !strings.EqualFold(coding, "identity") {
				return httpError(http.StatusUnsupportedMediaType, CodeInvalidRequest, "Unsupported content coding: send the body without Content-Encoding").
					WithData(map[string]string{"reason": "content_encoding"})
			}
		}
	}
	return nil
}

func (h *Handler) tooLarge() *Error {
	return httpError(http.StatusRequestEntityTooLarge, CodeInvalidRequest, "Request body too large").
		WithData(map[string]int64{"maxBytes": h.cfg.limits.BodyBytes})
}

// readBody reads the body, at most the limit, into memory of its own:
// short, the request's own room (short: what fits in it with a byte to
// spare, to see the end without growing), else one allocation when the
// length is declared (one byte more than it), growing from 4 KiB
// otherwise. Nothing writes to it afterwards: what the request's Call,
// params and validated values hold alias it (schema.DecodeShared relies
// on it).
func (h *Handler) readBody(r *http.Request, short []byte) ([]byte, *Error) {
	limit := h.cfg.limits.BodyBytes
	size := int64(4096)
	if n := r.ContentLength; n >= 0 {
		size = n + 1
	}
	buf := short[:0]
	if size > int64(cap(short)) || size > limit+1 {
		buf = make([]byte, 0, min(size, limit+1))
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, h.tooLarge()
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, unreadBody(err)
		}
	}
}

// unreadBody is the answer to a body that could not be read whole, named
// by its cause: the body came too slowly, was cut short, or was over a
// limit the host put in front of the endpoint's own.
func unreadBody(err error) *Error {
	var hostLimit *http.MaxBytesError
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		// The host's http.Server.ReadTimeout passed before the body's end
		// (net/http says so alike over HTTP/1.1 and HTTP/2).
		return httpError(http.StatusRequestTimeout, CodeInvalidRequest, "Request timeout: the body did not arrive in time").
			WithData(map[string]string{"reason": "body_timeout"})
	case errors.As(err, &hostLimit):
		// http.MaxBytesHandler or MaxBytesReader around the endpoint,
		// tighter than Limits.BodyBytes: the same refusal, with its bound.
		return httpError(http.StatusRequestEntityTooLarge, CodeInvalidRequest, "Request body too large").
			WithData(map[string]int64{"maxBytes": hostLimit.Limit})
	case errors.Is(err, io.ErrUnexpectedEOF):
		return httpError(http.StatusBadRequest, CodeInvalidRequest, "Incomplete request body: the connection ended before the body did").
			WithData(map[string]string{"reason": "body_incomplete"})
	}
	return httpError(http.StatusBadRequest, CodeInvalidRequest, "Could not read the request body")
}

func parseError(e *jsonrpc.Error) *Error {
	switch e.Kind {
	case jsonrpc.Syntax:
		return httpError(http.StatusBadRequest, CodeParseError, e.Message)
	case jsonrpc.Params:
		return reject(CodeInvalidParams, e.Message)
	default:
		return httpError(http.StatusBadRequest, CodeInvalidRequest, e.Message).WithData(map[string]string{"reason": e.Reason})
	}
}

// serveObserved serves r with its event, and makes sure the observer
// hears of it even when it was refused before its method was read.
func (h *Handler) serveObserved(w http.ResponseWriter, r *http.Request) {
	x := &exchange{}
	x.ev = observe.Event{Start: time.Now(), Transport: "http", ClientAddr: r.RemoteAddr}
	x.w = observedWriter{ResponseWriter: w, ev: &x.ev}
	// A panic that escapes serving (a host's limiter, verifier or era
	// hook) still ends the event, as an answer cut short, before it goes
	// on to net/http: else the observer's done never runs (a span never
	// ended, a duration never recorded).
	defer func() {
		p := recover()
		if p != nil && x.ev.Code == 0 && x.ev.Status < 500 {
			x.ev.Status = http.StatusInternalServerError
		}
		if !x.skip {
			if !x.begun {
				_, x.done = h.cfg.observer.Request(r.Context(), &x.ev)
			}
			x.ev.Duration = time.Since(x.ev.Start)
			if x.done != nil {
				x.done()
			}
		}
		if p != nil {
			panic(p)
		}
	}()
	h.serveHTTP(&x.w, r, x)
}

// checkOrigin refuses a request whose Host or Origin the allow-lists
// (WithAllowedHosts, WithAllowedOrigins) do not admit.
func (h *Handler) checkOrigin(r *http.Request) *Error {
	if !h.cfg.hosts.AllowHost(r.Host) {
		return httpError(http.StatusForbidden, codeForbidden, "Forbidden: host not allowed").
			WithData(map[string]string{"reason": "host_not_allowed"})
	}
	origins := r.Header["Origin"]
	if len(origins) == 0 {
		return nil
	}
	if len(origins) > 1 || origins[0] == "null" || !h.cfg.origins.AllowOrigin(origins[0]) {
		return httpError(http.StatusForbidden, codeForbidden, "Forbidden: origin not allowed").
			WithData(map[string]string{"reason": "origin_not_allowed"})
	}
	return nil
}

// refusedID is the id a parse refusal answers with: the message's, except
// a response's, with which the error would read as the answer to one of
// the client's own requests. Apart from serveHTTP, whose frame a listen
// stream holds while it waits.
//
//go:noinline
func refusedID(perr *jsonrpc.Error) []byte {
	if perr.Reason == "unexpected_response" {
		return nil
	}
	return perr.ID
}
