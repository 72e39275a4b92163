package inproc

import (
	"net/url"
	"testing"
)

// TestParse_ServeMuxEdges: patterns a ServeMux reads otherwise than as a
// segment's wildcard, or whose filled path no request could carry, are
// refused when the tool is added: "{$}" is ServeMux's end of path (the
// tool called /items/<value> instead), a control character or a space
// makes every call's request URI unparsable, and an empty segment gets
// ServeMux's redirect to the cleaned path. A trailing slash stays.
func TestParse_ServeMuxEdges(t *testing.T) {
	for _, p := range []string{"GET /items/{$}", "GET /a\x7fb/{id}", "GET /a b/{id}", "GET /a\tb", "GET /a//{id}", "GET //a"} {
		if _, err := Parse(p); err == nil {
			t.Errorf("%q: accepted", p)
		}
	}
	for _, p := range []string{"GET /items/", "GET /items/{id}", "GET /a-b/{team_slug}/{asset-id}"} {
		r, err := Parse(p)
		if err != nil {
			t.Errorf("%q: %v", p, err)
			continue
		}
		path, _, bad := r.Fill(func(string) (string, bool) { return "x y", true })
		if _, err := url.ParseRequestURI(path); bad != "" || err != nil {
			t.Errorf("%q filled as %q: %v", p, path, err)
		}
	}
}
