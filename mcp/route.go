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

// inProcess builds the request a route handler gets: the verified identity
// and the call in its context, only Accept (and Content-Type with a body)
// as headers — never the client's Authorization or cookies.
func (req *Request) inProcess(call *Call, method string, u *url.URL, body []byte, contentType []string, values []pathValue) *http.Request {
	orig := req.HTTP()
	ctx := context.WithValue(req.identityContext(orig.Context()), callKey{}, call)
	r := &http.Request{
		Method:     method,
		URL:        u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     http.Header{"Accept": jsonType},
		Host:       orig.Host,
		RemoteAddr: orig.RemoteAddr,
		RequestURI: u.RequestURI(),
		Body:       http.NoBody,
	}
	if call.idemKey != "" {
		r.Header["Idempotency-Key"] = []string{call.idemKey}
	}
	if body != nil {
		r.Header["Content-Type"] = contentType
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
	}
	r = r.WithContext(ctx)
	for _, pv := range values {
		r.SetPathValue(pv.name, pv.value)
	}
	return r
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
		return String(raw)
	}
	if _, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
		return string(raw), true
	}
	return "", false
}

// recorder is the in-memory ResponseWriter a tool's handler writes to.
type recorder struct {
	header http.Header
	status int
	buf    bytes.Buffer
	limit  int64
	over   bool
}

func newRecorder(limit int64) *recorder {
	return &recorder{header: http.Header{}, limit: limit}
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 && code >= 200 {
		r.status = code
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if int64(r.buf.Len()+len(p)) > r.limit {
		r.over = true
		return 0, errTooLarge
	}
	return r.buf.Write(p)
}

var errTooLarge = errors.New("mcp: tool response over the size limit")

// run calls h, returning the panic value if it panicked.
func (r *recorder) run(h http.Handler, req *http.Request) (panicked any) {
	defer func() {
		if p := recover(); p != nil {
			panicked = p
		}
	}()
	h.ServeHTTP(r, req)
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return nil
}
