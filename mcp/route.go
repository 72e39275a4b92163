package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcpdual/mcpdual/internal/inproc"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/panics"
)

// inner describes the request a route gets for one call.
type inner struct {
	pattern     string // the route's, for observers
	async       bool   // the call may become a task: Prefer: respond-async
	method      string
	path        string // escaped: every wildcard's value one segment
	query       string // encoded, "" for none
	body        []byte
	contentType string // with a body
	values      []inproc.PathValue
}

// InProcess reports whether r is an in-process request the endpoint made
// to run a tool, read a resource or render a prompt. Such a request carries
// no credential: the endpoint has verified the caller, whose identity is in
// its context (auth.FromContext, auth.WorkspaceFromContext, and what
// WithRouteRequest adds). A host's authentication middleware uses it to
// accept that identity instead of looking for a token. No network request
// can carry the mark: it lives in a context key only this package can
// write.
func InProcess(r *http.Request) bool {
	return r.Context().Value(inProcessKey{}) != nil
}

// newInner builds the request a route gets, as net/http's server would
// have built it had it arrived from the network at the route's method and
// path: the URL parsed from the escaped request URI (so RawPath is set only
// when the escaping differs from Go's default, as a router expects), only
// Accept (and Content-Type with a body) as headers, and a context of its
// own.
func (c *callPart) newInner(w who, values *headerValues, ws string, call *Call, in inner) (*http.Request, error) {
	uri := in.path
	if in.query != "" {
		uri += "?" + in.query
	}
	// The URL, the body and the context live in the request, unless it
	// runs a route again (a 2025 client's retry, a listen's status
	// polls): what an earlier run handed out may still be held, and a
	// goroutine that run left behind reading its body would read this
	// run's away from the route.
	u, body := &c.innerURL, &c.innerBody
	if c.running() {
		u, body = new(url.URL), new(innerBody)
	}
	if err := parseRequestURI(u, uri, in.path, in.query); err != nil {
		return nil, err
	}
	outer := w.r
	ctx := identityContext(c.runContext(routeContext{Context: outer.Context(), call: call}), w.principal, ws)
	// The route may edit its request's headers in place: the values are
	// this request's own (see headerValues).
	header := http.Header{"Accept": values.one("application/json")}
	if call.idemKey != "" {
		header["Idempotency-Key"] = []string{call.idemKey}
	}
	if in.async {
		// RFC 7240: the call may become a task, so a 202 Accepted is welcome.
		header["Prefer"] = values.one("respond-async")
	}
	base := http.Request{
		Method:     in.method,
		URL:        u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     header,
		Host:       outer.Host,
		RemoteAddr: outer.RemoteAddr,
		// The call arrived over the MCP request's connection: its TLS
		// state is the route's, as a host's "HTTPS only" middleware
		// reads it (a nil TLS would redirect every call).
		TLS:        outer.TLS,
		RequestURI: uri,
		Body:       http.NoBody,
	}
	if in.body != nil {
		header["Content-Type"] = values.one(in.contentType)
		body.Reset(in.body)
		base.Body = body
		base.ContentLength = int64(len(in.body))
	}
	r := base.WithContext(ctx)
	for _, pv := range in.values {
		r.SetPathValue(pv.Name, pv.Value)
	}
	return r, nil
}

func (*innerBody) Close() error { return nil }

// running reports whether the request ran a route or function before (a
// 2025 client's retry, a listen's status polls): what that run handed out,
// its URL and context, may still be held.
func (c *callPart) running() bool { return c.routeCtx.Context != nil }

// runContext returns rc placed where a run's context goes: in the request,
// unless it runs again (running), when the new run gets one of its own.
func (c *callPart) runContext(rc routeContext) *routeContext {
	if c.running() {
		own := new(routeContext) // only here: &rc would put every run's on the heap
		*own = rc
		return own
	}
	c.routeCtx = rc
	return &c.routeCtx
}

// parseRequestURI sets *u to what url.ParseRequestURI makes of uri, the
// escaped path and query, in place: a path of letters, digits, "-._~" and
// slashes is its own unescaped form, with no RawPath to set, so the usual
// route's URL costs no allocation of its own; any other is parsed.
func parseRequestURI(u *url.URL, uri, path, query string) error {
	plain := len(path) > 0 && path[0] == '/'
	for i := 0; plain && i < len(path); i++ {
		c := path[i]
		plain = unreserved(c) || c == '/'
	}
	if plain {
		*u = url.URL{Path: path, RawQuery: query}
		return nil
	}
	parsed, err := url.ParseRequestURI(uri)
	if err != nil {
		return err
	}
	*u = *parsed
	return nil
}

// runRoute runs h on the in-process request for call and returns what it
// wrote, or its panic described for the log (panics.Value: never the
// value; a failing WithRouteRequest function included). The request hands the call stage the caller, its
// header values and the workspace resolved so far.
func (req *request) runRoute(h http.Handler, call *Call, in inner) (rec *inproc.Recorder, panicked any) {
	ws, _ := req.accessCache.resolved()
	return req.callPart.runRoute(req.who(), &req.values, ws, h, call, in)
}

// runRoute is the call stage's: it writes the route's URL, body, context
// and recorder into the call's part, and reads nothing else of the request.
func (c *callPart) runRoute(w who, values *headerValues, ws string, h http.Handler, call *Call, in inner) (rec *inproc.Recorder, panicked any) {
	// A run again (running) gets a recorder of its own: Start reopens the
	// one it is given, so a goroutine the earlier run left behind, still
	// holding that run's ResponseWriter, would write this run's answer
	// and the header map this run's route writes.
	rec = &c.rec
	buf := c.recBuf[:0]
	if c.running() {
		rec, buf = new(inproc.Recorder), nil
	}
	rec.Start(buf, w.h.cfg.limits.ResponseBytes)
	var observed func(status int)
	var r *http.Request
	reached, aborted := false, false
	defer func() {
		if p := recover(); p != nil {
			panicked, aborted = panics.Describe(p), p == http.ErrAbortHandler
			rec.Unreached = !reached
		}
		rec.Close()
		// A route that wrote nothing answers 200, as net/http says — unless
		// its request had ended: the caller left, the call was cancelled
		// or timed out, and the route gave up (returning, or aborting as
		// net/http lets a handler abort). That is no answer at all.
		if rec.Silent && (panicked == nil || aborted) &&
			(w.r.Context().Err() != nil || r != nil && r.Context().Err() != nil) {
			rec.Interrupted, panicked = true, nil
		}
		if observed != nil {
			status := rec.Status
			if panicked != nil || status == 0 {
				status = http.StatusInternalServerError
			}
			observed(status)
		}
		if panicked == nil && (rec.Status == http.StatusUnauthorized || rec.Status == http.StatusForbidden) && w.principal != nil {
			w.h.warnIdentity(w.r.Context(), call, in.pattern, rec.Status)
		}
	}()
	inner, err := c.newInner(w, values, ws, call, in)
	if err != nil {
		panic(err) // Fill escapes every segment: unreachable
	}
	r = inner
	if prepare := w.h.cfg.routeRequest; prepare != nil {
		if r = prepare(w.r, r); r == nil {
			// Said here: the panic that ends the call is logged by its
			// type and place only, never its text.
			w.h.cfg.logger.ErrorContext(w.r.Context(), "mcp: the WithRouteRequest function returned nil", "method", call.method, "route", in.pattern)
			panic("mcp: the WithRouteRequest function returned nil")
		}
	}
	if w.h.cfg.observer != nil {
		r, observed = w.h.observeRoute(w.r, r, in.pattern, call.tool)
	}
	reached = true
	h.ServeHTTP(rec, r)
	return rec, nil
}

// interruptedRoute answers a resources/read or prompts/get whose route
// was interrupted (rec.Interrupted: it returned without writing, or
// aborted, once its request had ended): it answered nothing, and the
// recorder's default 200 would be read as empty contents or logged as
// the route's failure. As for a tool or a task's route, the client, if
// still there (a server-side deadline or cancellation), is told to retry.
func (req *request) interruptedRoute(what, key, target string) *Error {
	req.Log(slog.LevelInfo, "mcp: a "+what+" was interrupted: its request ended before the route answered", key, clip(target, maxObserved))
	return unavailable("The "+what+" was interrupted before its route answered; retry it", "call_interrupted")
}

// namesLiteral reports whether route, a route with wildcards that h
// serves, filled with values, is the literal route of another item of the
// registry (literals) that h may serve too: a ServeMux prefers a literal
// route to a wildcard one, so the call would run that item's route past
// its scopes and permission. ServeMux matches unescaped segments, so the
// path is built from the values as they are; a value holding "/" fills
// one escaped segment, which no literal route's segment is. Two different
// ServeMuxes cannot reach each other's routes; of other handlers nothing
// is known, and the call is refused.
func namesLiteral(literals map[string][]http.Handler, route inproc.Pattern, values []inproc.PathValue, h http.Handler) bool {
	if route.Literal != "" || len(literals) == 0 {
		return false
	}
	// The key is built on the stack (a long path moves it to the heap),
	// and a map indexed by string(b) copies nothing.
	var buf [192]byte
	b := append(append(buf[:0], route.Method...), ' ')
	v := 0
	for _, seg := range route.Segments {
		b = append(b, '/')
		if !seg.Wildcard {
			b = append(b, seg.Text...)
			continue
		}
		if v >= len(values) || strings.IndexByte(values[v].Value, '/') >= 0 {
			return false
		}
		b = append(b, values[v].Value...)
		v++
	}
	for _, other := range literals[string(b)] {
		mine, isMux := h.(*http.ServeMux)
		theirs, alsoMux := other.(*http.ServeMux)
		if !isMux || !alsoMux || mine == theirs {
			return true
		}
	}
	return false
}

// warnIdentity logs, once per route, that a route refused an
// authenticated in-process call: the usual cause is a host middleware
// that looks for a token the in-process request does not carry. Once per
// route pattern, not per target: a resource's target is the client's URI,
// and a template route refusing other tenants' items is ordinary, so per
// URI it would keep a record and a line for every URI a client tries.
func (h *Handler) warnIdentity(ctx context.Context, call *Call, pattern string, status int) {
	if _, seen := h.warned.LoadOrStore(call.method+" "+pattern, true); seen {
		return
	}
	h.cfg.logger.WarnContext(ctx, "mcp: a route refused an authenticated in-process call: it did not see an identity it accepts; "+
		"let its middleware accept mcp.InProcess requests, and map the principal with mcp.WithRouteRequest",
		"method", call.method, "route", pattern, "target", clip(call.tool, maxObserved), "status", status)
}

// scalarText renders a string, number or boolean argument as text: a
// number as written (the input schema validated it).
func scalarText(raw []byte) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	if raw[0] == '"' {
		return jsonrpc.String(raw)
	}
	if string(raw) == "true" || string(raw) == "false" {
		return string(raw), true
	}
	if _, err := strconv.ParseFloat(string(raw), 64); err == nil {
		return string(raw), true
	}
	return "", false
}

// mediaType is the media type of a route's Content-Type, lowercased, its
// parameters dropped ("" when absent or the type itself is malformed).
// Common values are read without parsing. A malformed parameter does not
// hide a sound type: mime.ParseMediaType returns the type with
// ErrInvalidMediaParameter, and what a route answers is read by its type.
func mediaType(h http.Header) string {
	ct := h["Content-Type"]
	if len(ct) == 0 {
		return ""
	}
	switch v := ct[0]; v {
	case "application/json", "text/plain", "application/json; charset=utf-8", "text/plain; charset=utf-8":
		mt, _, _ := strings.Cut(v, ";")
		return mt
	}
	mt, _, err := mime.ParseMediaType(ct[0])
	if err != nil && !errors.Is(err, mime.ErrInvalidMediaParameter) {
		return ""
	}
	return mt
}

// The arguments of a call laid out as its route's request: path, query
// and body.

// place lays a call's arguments out as the route's request. It returns a
// message for the model instead when an argument cannot be placed in the
// path safely, or the path it fills is another item's literal route
// (namesLiteral).
func (t *tool) place(call *Call, literals map[string][]http.Handler) (inner, string) {
	args := call.args
	path, values, bad := t.route.Fill(func(name string) (string, bool) {
		v, _ := jsonrpc.Lookup(args, name)
		return scalarText(v)
	})
	if bad != "" {
		return inner{}, "Invalid argument " + bad + ": it must be a non-empty string, number or boolean naming one item"
	}
	if namesLiteral(literals, t.route, values, t.handler) {
		// The filled path is another item's own route, which a mux
		// prefers to this tool's wildcard: that item's route would run
		// past its own scopes and permission.
		return inner{}, "Invalid arguments: they name the route of another tool or resource; call that one instead"
	}
	var body []byte
	var query string
	contentType := "application/json"
	p := t.opts.placement
	hasBody := t.route.Method != http.MethodGet && t.route.Method != http.MethodHead
	switch {
	case p == nil && hasBody && t.route.Method != http.MethodDelete:
		body = t.bodyOf(args)
	case p == nil, !hasBody:
		query = t.query(args, t.inQuery)
	case p.Body != "":
		query = t.query(args, func(name string) bool { return !t.pathParams[name] && name != p.Body })
		if v, ok := jsonrpc.Lookup(args, p.Body); ok {
			body = v
		}
	case p.Form:
		query = t.query(args, t.queryArgs.has)
		body, contentType = []byte(t.query(args, t.inBody)), formType
	default:
		query = t.query(args, t.queryArgs.has)
		body = t.bodyOf(args)
	}
	return inner{pattern: t.route.Text, method: t.route.Method, path: path, query: query, body: body, contentType: contentType, values: values}, ""
}

const formType = "application/x-www-form-urlencoded"

// inQuery is the default rule: every argument that is not a wildcard.
func (t *tool) inQuery(name string) bool { return !t.pathParams[name] }

func (s nameSet) has(name string) bool { return s[name] }

// inBody: every argument placed neither in the path nor in the query.
func (t *tool) inBody(name string) bool { return !t.pathParams[name] && !t.queryArgs[name] }

// query renders the arguments include admits as a query string (or form
// body), sorted by name. Arrays repeat the key; objects are sent as JSON
// text; null is left out.
func (t *tool) query(args []byte, include func(name string) bool) string {
	q := url.Values{}
	it := jsonrpc.NewIter(args)
	for {
		k, v, ok := it.Next()
		if !ok {
			break
		}
		name := string(k)
		if !include(name) {
			continue
		}
		switch v[0] {
		case 'n':
		case '[':
			var arr []json.RawMessage
			_ = json.Unmarshal(v, &arr)
			for _, item := range arr {
				q.Add(name, queryText(item))
			}
		default:
			q.Add(name, queryText(v))
		}
	}
	return q.Encode() // sorted by key
}

func queryText(v []byte) string {
	if s, ok := jsonrpc.String(v); ok {
		return s
	}
	return string(v)
}

// bodyOf returns the arguments minus the path wildcards and query
// arguments as a JSON object.
func (t *tool) bodyOf(args []byte) []byte {
	if len(t.pathParams) == 0 && len(t.queryArgs) == 0 {
		return args
	}
	out := []byte{'{'}
	it := jsonrpc.NewIter(args)
	for {
		k, v, ok := it.Next()
		if !ok {
			break
		}
		if !t.inBody(string(k)) {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = jsonrpc.AppendString(out, string(k))
		out = append(out, ':')
		out = append(out, v...)
	}
	return append(out, '}')
}
