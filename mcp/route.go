package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
)

// route is a parsed "METHOD /path/{wildcard}" pattern.
type route struct {
	method   string
	segments []segment
}

type segment struct {
	text     string // literal text, or the wildcard name
	wildcard bool
}

func parseRoute(p string) (route, error) {
	method, path, ok := strings.Cut(p, " ")
	if !ok {
		return route{}, fmt.Errorf(`want "METHOD /path"`)
	}
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return route{}, fmt.Errorf("unsupported method %q", method)
	}
	if !strings.HasPrefix(path, "/") {
		return route{}, fmt.Errorf("path must start with /")
	}
	r := route{method: method}
	seen := map[string]bool{}
	for _, part := range strings.Split(path[1:], "/") {
		if strings.HasPrefix(part, "{") && strings.HasSuffix(part, "}") {
			name := part[1 : len(part)-1]
			if name == "" || strings.ContainsAny(name, "{}.") || seen[name] {
				return route{}, fmt.Errorf("invalid or repeated wildcard {%s}", name)
			}
			seen[name] = true
			r.segments = append(r.segments, segment{text: name, wildcard: true})
			continue
		}
		if strings.ContainsAny(part, "{}?#%") || part == "." || part == ".." {
			return route{}, fmt.Errorf("invalid path segment %q", part)
		}
		r.segments = append(r.segments, segment{text: part})
	}
	return r, nil
}

// inner describes the request a route gets for one call.
type inner struct {
	method      string
	url         *url.URL // Path and RawPath from fill; RawQuery set by the caller
	body        []byte
	contentType []string // with a body
	values      []pathValue
}

// routeContext is the context of an in-process request: the MCP request's
// cancellation and deadline, and none of its values. The MCP request was
// routed by the host's router to the endpoint, and routers keep their
// routing state in the context (chi's route context, gorilla's vars): a
// route called with the endpoint's context would be routed, or read its
// parameters, as if it were POST /mcp. Values the host wants its routes to
// see are carried by WithRouteRequest.
type routeContext struct{ context.Context }

func (routeContext) Value(any) any { return nil }

type inProcessKey struct{}

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

// WithRouteRequest sets a function that prepares every in-process request
// before its route runs: it gets the MCP request (outer, whose context
// holds the host's own values, such as a tracing span or a request id) and
// the request the route will get (inner: the verified principal and
// workspace and the Call in its context, no Authorization, no cookies), and
// returns the request to run — inner or a copy of it (Request.WithContext,
// Request.Clone) with the host's identity in the form its own middleware
// expects, or with values copied from outer. It must not return nil.
func WithRouteRequest(prepare func(outer, inner *http.Request) *http.Request) HandlerOption {
	if prepare == nil {
		panic("mcp: WithRouteRequest needs a function")
	}
	return handlerOptionFunc(func(c *handlerConfig) { c.routeRequest = prepare })
}

// newInner builds the request a route gets, as net/http's server would
// have built it had it arrived from the network at the route's method and
// path: the URL parsed from the escaped request URI (so RawPath is set only
// when the escaping differs from Go's default, as a router expects), only
// Accept (and Content-Type with a body) as headers, and a context of its
// own.
func (req *request) newInner(call *Call, in inner) (*http.Request, error) {
	uri := in.url.EscapedPath()
	if in.url.RawQuery != "" {
		uri += "?" + in.url.RawQuery
	}
	u, err := url.ParseRequestURI(uri)
	if err != nil {
		return nil, err
	}
	outer := req.HTTP()
	ctx := req.identityContext(routeContext{outer.Context()})
	ctx = context.WithValue(ctx, inProcessKey{}, true)
	ctx = context.WithValue(ctx, callKey{}, call)
	r := &http.Request{
		Method:     in.method,
		URL:        u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     http.Header{"Accept": jsonType},
		Host:       outer.Host,
		RemoteAddr: outer.RemoteAddr,
		RequestURI: uri,
		Body:       http.NoBody,
	}
	if call.idemKey != "" {
		r.Header["Idempotency-Key"] = []string{call.idemKey}
	}
	if in.body != nil {
		r.Header["Content-Type"] = in.contentType
		r.Body = io.NopCloser(bytes.NewReader(in.body))
		r.ContentLength = int64(len(in.body))
	}
	r = r.WithContext(ctx)
	for _, pv := range in.values {
		r.SetPathValue(pv.name, pv.value)
	}
	return r, nil
}

// runRoute runs h on the in-process request for call and returns what it
// wrote, or the value it panicked with (a failing WithRouteRequest
// function counts as the route failing).
func (req *request) runRoute(h http.Handler, call *Call, in inner) (rec *recorder, panicked any) {
	rec = newRecorder(req.handler.cfg.limits.ResponseBytes)
	defer func() {
		if p := recover(); p != nil {
			panicked = p
		}
		rec.close()
		if panicked == nil && (rec.status == http.StatusUnauthorized || rec.status == http.StatusForbidden) && req.principal != nil {
			req.handler.warnIdentity(call, rec.status)
		}
	}()
	r, err := req.newInner(call, in)
	if err != nil {
		panic(err) // fill escapes every segment: unreachable
	}
	if prepare := req.handler.cfg.routeRequest; prepare != nil {
		if r = prepare(req.HTTP(), r); r == nil {
			panic("mcp: the WithRouteRequest function returned nil")
		}
	}
	h.ServeHTTP(rec, r)
	return rec, nil
}

// warnIdentity logs, once per target, that a route refused an
// authenticated in-process call: the usual cause is a host middleware
// that looks for a token the in-process request does not carry.
func (h *Handler) warnIdentity(call *Call, status int) {
	key := call.method + " " + call.tool
	if _, seen := h.warned.LoadOrStore(key, true); seen {
		return
	}
	h.cfg.logger.Warn("mcp: a route refused an authenticated in-process call: it did not see an identity it accepts; "+
		"let its middleware accept mcp.InProcess requests, and map the principal with mcp.WithRouteRequest",
		"method", call.method, "target", call.tool, "status", status)
}

type pathValue struct{ name, value string }

// fill builds the route's path with each wildcard's value escaped as one
// segment (value gives it by name). A value that is missing, empty, "." or
// ".." could not name one item: fill returns the wildcard's name as bad.
func (rt route) fill(value func(name string) (string, bool)) (u *url.URL, values []pathValue, bad string) {
	var path, rawPath strings.Builder
	for _, seg := range rt.segments {
		path.WriteByte('/')
		rawPath.WriteByte('/')
		if !seg.wildcard {
			path.WriteString(seg.text)
			rawPath.WriteString(seg.text)
			continue
		}
		v, ok := value(seg.text)
		if !ok || v == "" || v == "." || v == ".." {
			return nil, nil, seg.text
		}
		path.WriteString(v)
		rawPath.WriteString(escapeSegment(v))
		values = append(values, pathValue{seg.text, v})
	}
	return &url.URL{Path: path.String(), RawPath: rawPath.String()}, values, ""
}

// escapeSegment percent-encodes everything but RFC 3986 unreserved
// characters, so "/", "%", "?" and "#" stay inside the one segment.
func escapeSegment(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// scalarText renders a string or integer argument as text.
func scalarText(raw []byte) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	if raw[0] == '"' {
		return jsonrpc.String(raw)
	}
	if _, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return string(raw), true
	}
	return "", false
}

// recorder is the in-memory ResponseWriter a route writes to. Writes after
// the route returned (from a goroutine it left behind) are refused, so they
// can neither race with reading the response nor change it.
type recorder struct {
	header http.Header
	status int
	buf    bytes.Buffer
	limit  int64
	over   bool

	mu     sync.Mutex
	closed bool
}

func newRecorder(limit int64) *recorder {
	return &recorder{header: http.Header{}, limit: limit}
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.closed && r.status == 0 && code >= 200 {
		r.status = code
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, errClosed
	}
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if int64(r.buf.Len()+len(p)) > r.limit {
		r.over = true
		return 0, errTooLarge
	}
	return r.buf.Write(p)
}

// close ends the response: later writes fail.
func (r *recorder) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.status == 0 {
		r.status = http.StatusOK
	}
}

var (
	errTooLarge = errors.New("mcp: tool response over the size limit")
	errClosed   = errors.New("mcp: write after the route returned")
)
