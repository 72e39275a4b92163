// Package inproc holds the leaves of calling a net/http route in process,
// with no network between: the parsed route pattern (Parse, Pattern.Fill,
// Pattern.Match) and the Recorder a route writes its response to. Package
// mcp builds the route's request and reads the recorder; nothing here
// knows of MCP.
package inproc

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Pattern is a parsed "METHOD /path/{wildcard}" route.
type Pattern struct {
	Text     string // as registered: "GET /api/v1/emails/{id}"
	Method   string
	Segments []Segment
	Literal  string // the path, when it has no wildcard
}

// Segment is one path segment of a Pattern.
type Segment struct {
	Text     string // literal text, or the wildcard name
	Wildcard bool
}

// Parse parses a "METHOD /path/{wildcard}" route: GET, HEAD, POST, PUT,
// PATCH or DELETE, each wildcard a whole segment, named once.
func Parse(p string) (Pattern, error) {
	method, path, ok := strings.Cut(p, " ")
	if !ok {
		return Pattern{}, fmt.Errorf(`want "METHOD /path"`)
	}
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return Pattern{}, fmt.Errorf("unsupported method %q", method)
	}
	if !strings.HasPrefix(path, "/") {
		return Pattern{}, fmt.Errorf("path must start with /")
	}
	r := Pattern{Text: p, Method: method}
	seen := map[string]bool{}
	parts := strings.Split(path[1:], "/")
	for i, part := range parts {
		if strings.HasPrefix(part, "{") && strings.HasSuffix(part, "}") {
			name := part[1 : len(part)-1]
			// ServeMux's "{$}" (the end of the path) and "{name...}" (the
			// rest of it) are not a segment's wildcard.
			if name == "" || name == "$" || strings.ContainsAny(name, "{}.") || seen[name] {
				return Pattern{}, fmt.Errorf("invalid or repeated wildcard {%s}", name)
			}
			seen[name] = true
			r.Segments = append(r.Segments, Segment{Text: name, Wildcard: true})
			continue
		}
		// No control character or space, which no request URI holds, and
		// no empty segment but a trailing slash's, which ServeMux would
		// answer with a redirect to the cleaned path.
		if strings.ContainsAny(part, "{}?#%") || part == "." || part == ".." || strings.IndexFunc(part, notURIChar) >= 0 ||
			(part == "" && i < len(parts)-1) {
			return Pattern{}, fmt.Errorf("invalid path segment %q", part)
		}
		r.Segments = append(r.Segments, Segment{Text: part})
	}
	if !strings.Contains(path, "{") {
		r.Literal = path
	}
	return r, nil
}

func notURIChar(c rune) bool { return c <= ' ' || c == 0x7f }

// PathValue is the value Fill gave a wildcard.
type PathValue struct{ Name, Value string }

// Fill builds the route's path with each wildcard's value escaped as one
// segment (value gives it by name). A value that is missing, empty, "." or
// ".." could not name one item: Fill returns the wildcard's name as bad.
func (rt Pattern) Fill(value func(name string) (string, bool)) (path string, values []PathValue, bad string) {
	if rt.Literal != "" {
		return rt.Literal, nil, ""
	}
	var b strings.Builder
	for _, seg := range rt.Segments {
		b.WriteByte('/')
		if !seg.Wildcard {
			b.WriteString(seg.Text)
			continue
		}
		v, ok := value(seg.Text)
		if !ok || v == "" || v == "." || v == ".." {
			return "", nil, seg.Text
		}
		appendEscaped(&b, v)
		values = append(values, PathValue{seg.Text, v})
	}
	return b.String(), values, ""
}

// appendEscaped percent-encodes everything but RFC 3986 unreserved
// characters, so "/", "%", "?" and "#" stay inside the one segment.
func appendEscaped(b *strings.Builder, s string) {
	const hex = "0123456789ABCDEF"
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
}

// Wildcards returns the names of a route's wildcards.
func (rt Pattern) Wildcards() map[string]bool {
	names := map[string]bool{}
	for _, s := range rt.Segments {
		if s.Wildcard {
			names[s.Text] = true
		}
	}
	return names
}

// Match reads the wildcards' values from an escaped path the route would
// build. The path may carry a prefix (the host mounts the routes under
// one), so the route is matched against its last segments.
func (rt Pattern) Match(escaped string) (map[string]string, bool) {
	parts := strings.Split(strings.TrimPrefix(escaped, "/"), "/")
	if len(parts) < len(rt.Segments) {
		return nil, false
	}
	parts = parts[len(parts)-len(rt.Segments):]
	vals := map[string]string{}
	for i, seg := range rt.Segments {
		v, err := url.PathUnescape(parts[i])
		switch {
		case err != nil:
			return nil, false
		case !seg.Wildcard && v != seg.Text:
			return nil, false
		case seg.Wildcard && (v == "" || v == "." || v == ".."):
			return nil, false
		case seg.Wildcard:
			vals[seg.Text] = v
		}
	}
	return vals, true
}
