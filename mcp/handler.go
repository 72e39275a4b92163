package mcp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/local"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/observe"
	"github.com/mcpdual/mcpdual/mcp/ratelimit"
)

// The params._meta keys of revision 2026-07-28 the core reads.
const (
	metaProtocolVersion    = seam.MetaProtocolVersion
	metaClientCapabilities = seam.MetaClientCapabilities
	metaLogLevel           = seam.MetaLogLevel
)

// Handler is the MCP endpoint: one http.Handler that serves every era it was
// given, statelessly. It never mints, reads or echoes a session id, so any
// replica can answer any request. A Handler is safe for concurrent use.
//
// For each POST it checks Host and Origin, reads the body once under the
// size limit, scans it strictly, picks the era from the body (params._meta
// names a 2026-07-28 revision; otherwise MCP-Protocol-Version or the default
// 2025-06-18 selects the handshake era) and lets that era answer.
type Handler struct {
	server    *Server
	supported []string // every served revision, newest first
	byVersion map[Version]*revision
	dflt      Version     // revision assumed when nothing names one ("" if none)
	info      seam.Server // what every era is told about the endpoint
	audience  string      // what sealed state is bound to
	cfg       handlerConfig
	warned    sync.Map // targets whose route refused an in-process identity (logged once)
	// taskScopes are the scopes each tasks/* method needs (with WithAuth).
	taskScopes map[string][]string
}

type handlerConfig struct {
	limits  Limits
	admit   *admission // nil when Concurrent is 0
	hosts   allowList
	origins allowList
	logger  *slog.Logger

	auth        *auth.Authenticator
	limiter     ratelimit.Limiter // per principal (per client when there is no auth)
	clientLimit ratelimit.Limiter // per client address, before authentication
	clientKey   func(*http.Request) string
	replay      ReplayGuard
	replayOff   string // why single-use confirmations are off ("" when on)
	streaming   bool

	routeRequest func(outer, inner *http.Request) *http.Request
	observer     observe.Observer
}

// HandlerOption configures a Handler.
type HandlerOption interface{ applyHandler(*handlerConfig) }

type handlerOptionFunc func(*handlerConfig)

func (f handlerOptionFunc) applyHandler(c *handlerConfig) { f(c) }

// WithLogger sets where internal errors are logged (default slog.Default).
// Nothing logged there is ever sent to a client.
func WithLogger(l *slog.Logger) HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) { c.logger = l })
}

// NewHandler returns the endpoint for srv serving eras. It panics if eras is
// empty, two eras claim one revision or two eras name a default revision,
// like http.ServeMux.Handle panics on a conflicting pattern. The server
// must be complete: NewHandler freezes it.
func NewHandler(srv *Server, eras []Era, opts ...HandlerOption) *Handler {
	if srv == nil {
		panic("mcp: NewHandler needs a Server")
	}
	if len(eras) == 0 {
		panic("mcp: NewHandler needs at least one Era")
	}
	h := &Handler{server: srv, byVersion: map[Version]*revision{}}
	h.cfg = handlerConfig{
		limits:    defaultLimits(),
		hosts:     loopbackOnly(),
		origins:   loopbackOnly(),
		logger:    slog.Default(),
		clientKey: remoteIP,
	}
	for _, o := range opts {
		o.applyHandler(&h.cfg)
	}
	h.cfg.admit = newAdmission(h.cfg.limits)
	switch {
	case h.cfg.replayOff != "":
		h.cfg.logger.WarnContext(context.Background(), "mcp: confirmations of destructive tools are not single-use (WithoutReplayGuard)", "reason", h.cfg.replayOff)
	case h.cfg.replay == nil:
		h.cfg.replay = newMemoryGuard(100_000)
	}
	for _, era := range eras {
		e := era.Seam()
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
				h.taskScopes[row.Name] = append(slices.Clone(a.MethodScopes(row.Name)), a.MethodScopes("tools/call")...)
			}
		}
	}
	srv.freeze()
	h.info = seam.Server{Supported: h.supported, Capabilities: srv.caps, Instructions: srv.instructions,
		Info: map[string][]byte{}, Logger: h.cfg.logger}
	for v, rev := range h.byVersion {
		h.info.Info[string(v)] = srv.infoJSON[rev.f.shape]
	}
	if a := h.cfg.auth; a != nil {
		h.info.ByCaller, h.info.ByWorkspace = true, a.HasWorkspaces() && a.Filters()
	}
	return h
}

// ServeHTTP implements http.Handler. The order of the checks decides which
// error wins: method, Host and Origin, the per-client limit, media type and
// declared length, authentication (before the body is read), then the body
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
	hdr := w.Header()
	loc := local.From(r.Context())
	if x != nil && loc != nil {
		x.ev.Transport, x.ev.ClientAddr = loc.Transport, ""
	}
	if r.Method != http.MethodPost {
		hdr["Allow"] = []string{"POST"}
		h.writeError(r.Context(), w, nil, "", httpError(http.StatusMethodNotAllowed, CodeInvalidRequest, "Method not allowed: the MCP endpoint accepts POST only"))
		return
	}
	if err := h.checkOrigin(r); loc == nil && err != nil {
		h.writeError(r.Context(), w, nil, "", err)
		return
	}
	if h.cfg.clientLimit != nil && loc == nil {
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
	if r.ContentLength > h.cfg.limits.BodyBytes {
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
	body, err := h.readBody(r)
	// One allocation holds the request and everything it needs while it
	// is served: its parsed envelope, the Call, the route's request.
	req := &request{server: h.server, handler: h, principal: principal, local: loc}
	req.HTTP, req.Server, req.Core, req.Local = r, &h.info, req, loc != nil
	msg := &req.msg
	var perr *jsonrpc.Error
	if err == nil {
		if perr = jsonrpc.ParseInto(body, jsonrpc.DefaultMaxDepth, msg); perr == nil {
			req.Name = msg.Method
			req.Reset(msg.Params)
		}
	}
	if x != nil && err == nil && perr == nil {
		x.begin(h, req, len(body))
		defer x.finish(req)
		r = req.HTTP // with the observer's context
	}
	if h.cfg.limiter != nil {
		var id []byte
		method := ""
		if err == nil && perr == nil {
			id, method = msg.ID, msg.Method
		}
		if lerr := h.takePrincipalRate(w, r, principal, method); lerr != nil {
			h.writeError(r.Context(), w, id, "", lerr)
			return
		}
	}
	if err != nil {
		h.writeError(r.Context(), w, nil, "", err)
		return
	}
	if perr != nil {
		h.writeError(r.Context(), w, perr.ID, "", parseError(perr))
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
		caller := h.callerKey(r, principal)
		if e := a.acquire(caller); e != nil {
			h.writeError(r.Context(), w, msg.ID, "", e)
			return
		}
		defer a.release(caller)
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
		hdr["Cache-Control"] = req.values.one("no-store")
		hdr[protoHeader] = req.values.one(string(rev.version))
		w.WriteHeader(http.StatusAccepted)
		return
	}
	req.setVersion(rev.version)
	req.rev = rev
	if n := h.newNotifier(w, req); n != nil {
		req.notify, w = n, n.w
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
	h.writeResult(w, msg.ID, req.version, result, &req.values)
}

// serve dispatches req, turning a panic into an internal error so that no
// request can crash the process.
func (h *Handler) serve(req *request) (result seam.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			req.logError("mcp: panic while serving a request", "method", req.msg.Method, "panic", p)
			result, err = nil, errInternal()
		}
	}()
	return h.dispatch(req)
}

var protoHeader = http.CanonicalHeaderKey(headers.ProtocolVersion)

func checkContentType(r *http.Request) *Error {
	ct := r.Header.Values("Content-Type")
	if len(ct) == 1 {
		if ct[0] == "application/json" {
			return nil
		}
		mt, params, err := mime.ParseMediaType(ct[0])
		if err == nil && mt == "application/json" {
			cs, hasCS := params["charset"]
			if len(params) == 0 || (len(params) == 1 && hasCS && (cs == "utf-8" || cs == "UTF-8")) {
				return nil
			}
		}
	}
	return httpError(http.StatusUnsupportedMediaType, CodeInvalidRequest, "Unsupported media type: send Content-Type: application/json").
		WithData(map[string]string{"expected": "application/json"})
}

func (h *Handler) tooLarge() *Error {
	return httpError(http.StatusRequestEntityTooLarge, CodeInvalidRequest, "Request body too large").
		WithData(map[string]int64{"maxBytes": h.cfg.limits.BodyBytes})
}

// readBody reads the body, at most the limit, into memory of its own: one
// allocation when the length is declared (one byte more than it, to see
// the end without growing), growing from 4 KiB otherwise. Nothing writes
// to it afterwards: what the request's Call, params and validated values
// hold alias it (schema.DecodeShared relies on it).
func (h *Handler) readBody(r *http.Request) ([]byte, *Error) {
	limit := h.cfg.limits.BodyBytes
	size := int64(4096)
	if n := r.ContentLength; n >= 0 {
		size = n + 1
	}
	buf := make([]byte, 0, min(size, limit+1))
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
			return nil, httpError(http.StatusBadRequest, CodeInvalidRequest, "Could not read the request body")
		}
	}
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

// selectEra applies the era rules: the body decides, headers cross-check.
//
//   - params._meta names a revision: it must be served by a per-request era,
//     and MCP-Protocol-Version must be present and equal to it.
//   - Otherwise MCP-Protocol-Version, when present, must name a served
//     revision; naming a per-request one without the _meta envelope is
//     refused (-32602), never served by silently falling back.
//   - Nothing names a revision: the default revision of the handshake era
//     (the seed's rule: 2025-06-18). So is a message that negotiates the
//     revision in its body (initialize) whose header names an unknown one.
//
// Any unknown revision, in the header or the envelope, is -32022 listing
// every served revision.
func (h *Handler) selectEra(req *request) (*revision, *Error) {
	r, msg := req.HTTP, &req.msg
	hv, herr := headers.Get(r.Header, headers.ProtocolVersion)
	if herr == headers.ErrDuplicate {
		return nil, mismatch(headers.ProtocolVersion, "duplicate", "MCP-Protocol-Version header "+herr.Error())
	}
	var claim []byte
	if req.Meta() != nil {
		claim, _ = req.MetaParam(metaProtocolVersion)
	}
	if claim != nil {
		cv, ok := jsonrpc.String(claim)
		switch {
		case !ok:
			return nil, reject(CodeInvalidParams, "Invalid params: _meta "+metaProtocolVersion+" must be a string")
		case req.local != nil && herr == headers.ErrMissing:
			// No headers on stdio: _meta alone names the revision.
		case herr == headers.ErrMissing:
			return nil, missingVersionHeader()
		case hv != cv:
			return nil, mismatch(headers.ProtocolVersion, "mismatch", "MCP-Protocol-Version does not match _meta "+metaProtocolVersion)
		}
		rev, ok := h.byVersion[Version(cv)]
		if !ok {
			return nil, h.unsupported(cv)
		}
		if !rev.f.envelope {
			return nil, reject(CodeInvalidParams, "Invalid params: revision "+cv+" is negotiated with initialize, not named in _meta")
		}
		return rev, nil
	}
	if herr == nil {
		rev, ok := h.byVersion[Version(hv)]
		if row := methodsByName[msg.Method]; !ok && row != nil && row.Negotiates && h.dflt != "" {
			// The handshake negotiates the revision in its body; a header
			// naming one this server does not know (a newer client's
			// wish) must not stop it. notifications/initialized, its
			// second half, carries nothing and runs nothing.
			return h.byVersion[h.dflt], nil
		}
		if !ok {
			return nil, h.unsupported(hv)
		}
		if rev.f.envelope {
			return nil, reject(CodeInvalidParams, "Invalid params: revision "+hv+" requires params._meta with "+metaProtocolVersion+" and "+metaClientCapabilities).
				WithData(map[string][]string{"missing": {"_meta." + metaProtocolVersion}})
		}
		return rev, nil
	}
	if h.dflt == "" {
		return nil, missingVersionHeader()
	}
	return h.byVersion[h.dflt], nil
}

// mismatch is seam.HeaderMismatch as the core's error.
func mismatch(header, reason, detail string) *Error {
	e, _ := asError(seam.HeaderMismatch(header, reason, detail))
	return e
}

func missingVersionHeader() *Error {
	return mismatch(headers.ProtocolVersion, "missing", "MCP-Protocol-Version header is required")
}

type unsupportedData struct {
	Supported []string `json:"supported"`
	Requested string   `json:"requested"`
}

func (h *Handler) unsupported(requested string) *Error {
	if len(requested) > 64 {
		requested = requested[:64]
	}
	return reject(CodeUnsupportedProtocolVersion, "Unsupported protocol version").
		WithData(unsupportedData{Supported: h.supported, Requested: requested})
}

// writeError answers err for the request with raw id (nil when unknown).
func (h *Handler) writeError(ctx context.Context, w http.ResponseWriter, id []byte, version Version, err error) {
	e, known := asError(err)
	if !known {
		h.cfg.logger.ErrorContext(ctx, "mcp: internal error", "err", err)
	}
	if ev := eventOf(w); ev != nil {
		ev.Code, ev.Message = int(e.code), e.message
	}
	buf := make([]byte, 0, 256)
	buf = append(buf, `{"jsonrpc":"2.0",`...)
	if id != nil {
		buf = append(buf, `"id":`...)
		buf = append(buf, id...)
		buf = append(buf, ',')
	}
	buf = append(buf, `"error":`...)
	buf = e.appendJSON(buf)
	buf = append(buf, '}')
	if e.challenge != "" {
		w.Header()["Www-Authenticate"] = []string{e.challenge}
	}
	if e.retryAfter > 0 {
		w.Header()["Retry-After"] = []string{strconv.FormatInt(ceilSeconds(e.retryAfter), 10)}
	}
	var statuses map[int]int
	if rev := h.byVersion[version]; rev != nil {
		statuses = rev.statuses
	}
	h.write(w, e.httpStatus(statuses), version, buf, nil)
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

func (h *Handler) writeResult(w http.ResponseWriter, id []byte, version Version, result seam.Result, values *headerValues) {
	if ev := eventOf(w); ev != nil {
		ev.ResultType = result.Stamp().ResultType
		if r, ok := result.(*toolResult); ok {
			ev.ToolError = r.isError
		}
	}
	if r, ok := result.(*toolResult); ok && r.isText && len(r.text) > streamAbove {
		if _, sse := w.(*streamWriter); !sse {
			h.writeLargeText(w, id, version, r, values)
			return
		}
	}
	bp := bufPool.Get().(*[]byte)
	if s, ok := result.(interface{ sizeHint() int }); ok {
		if n := s.sizeHint() + len(id) + 64; n > cap(*bp) {
			b := make([]byte, 0, n)
			bp = &b
		}
	}
	buf := append((*bp)[:0], `{"jsonrpc":"2.0","id":`...)
	buf = append(buf, id...)
	buf = append(buf, `,"result":`...)
	buf = result.AppendJSON(buf)
	buf = append(buf, '}')
	h.write(w, http.StatusOK, version, buf, values)
	if cap(buf) <= 64<<10 {
		*bp = buf[:0]
		bufPool.Put(bp)
	}
}

// streamAbove is the size past which a text result goes from the route's
// response to the connection in quoted pieces, instead of being quoted
// into a buffer of its own first: a large answer then costs no copy more.
const streamAbove = 64 << 10

// textPiece is how much text is quoted at a time.
const textPiece = 16 << 10

// writeLargeText writes r whole, with its exact Content-Length, measured
// by quoting it once into a scratch buffer before writing it.
func (h *Handler) writeLargeText(w http.ResponseWriter, id []byte, version Version, r *toolResult, values *headerValues) {
	bp := bufPool.Get().(*[]byte)
	head := append((*bp)[:0], `{"jsonrpc":"2.0","id":`...)
	head = append(head, id...)
	head = append(head, `,"result":`...)
	head = r.appendHead(head)
	scratch := make([]byte, 0, textPiece*6+8) // \u00XX is the longest escape of a byte
	pieces := func(each func(quoted []byte)) {
		for rest := r.text; len(rest) > 0; {
			n := jsonrpc.CutText(rest, textPiece)
			scratch = jsonrpc.AppendEscaped(scratch[:0], rest[:n])
			each(scratch)
			rest = rest[n:]
		}
	}
	mid, tail := `"}]`+r.structuredMember(), r.tail()+"}"
	size := len(head) + len(mid) + len(r.structured) + len(tail)
	pieces(func(q []byte) { size += len(q) })

	writeJSONHeader(w, http.StatusOK, version, size, values)
	// A failed write is a client gone: the rest is not written.
	var failed bool
	write := func(b []byte) {
		if !failed {
			_, err := w.Write(b)
			failed = err != nil
		}
	}
	write(head)
	pieces(write)
	write([]byte(mid))
	write(r.structured)
	write([]byte(tail))
	if cap(head) <= 64<<10 {
		*bp = head[:0]
		bufPool.Put(bp)
	}
}

func (h *Handler) write(w http.ResponseWriter, status int, version Version, body []byte, values *headerValues) {
	if sw, ok := w.(*streamWriter); ok {
		// If the status line went out with a notification, the response
		// is the stream's last event. The stream's writer may be called
		// from the route's goroutines: the values are its own.
		sw.finish(body, func() { writeJSON(sw.ResponseWriter, status, version, body, nil) })
		return
	}
	writeJSON(w, status, version, body, values)
}

func writeJSON(w http.ResponseWriter, status int, version Version, body []byte, values *headerValues) {
	writeJSONHeader(w, status, version, len(body), values)
	_, _ = w.Write(body)
}

// writeJSONHeader writes the status line and headers of a JSON answer of
// size bytes, with values from values (nil: allocated).
func writeJSONHeader(w http.ResponseWriter, status int, version Version, size int, values *headerValues) {
	hdr := w.Header()
	hdr["Cache-Control"] = values.one("no-store")
	hdr["Content-Type"] = values.one("application/json")
	hdr["Content-Length"] = values.one(lengthText(size))
	if version != "" {
		hdr[protoHeader] = values.one(string(version))
	}
	w.WriteHeader(status)
}

// headerValues hands out header values that one response, or the request
// of one route, owns. w.Header() belongs to whoever holds w, so a host's
// middleware may edit a value in place (h["Content-Type"][0] += "; ...");
// a slice shared by every response would carry that edit into every
// later one, and race. The values come from an array in the request, so
// owning them costs no allocation.
type headerValues struct {
	buf [8]string
	n   int
}

// one returns a slice holding s alone, with no room to grow into its
// neighbour; a nil v, or a full one, allocates it.
func (v *headerValues) one(s string) []string {
	if v == nil || v.n == len(v.buf) {
		return []string{s}
	}
	i := v.n
	v.n++
	v.buf[i] = s
	return v.buf[i : i+1 : i+1]
}

// Content-Length texts up to 8 KiB are made once each and shared: strings
// cannot be edited in place, unlike the slices holding them.
var lengthTexts [8 << 10]atomic.Pointer[string]

func lengthText(n int) string {
	if n >= len(lengthTexts) {
		return strconv.Itoa(n)
	}
	if p := lengthTexts[n].Load(); p != nil {
		return *p
	}
	t := strconv.Itoa(n)
	lengthTexts[n].Store(&t)
	return t
}
