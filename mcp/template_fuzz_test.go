package mcp

import (
	"net/url"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/internal/inproc"
)

// FuzzTemplateMatch feeds arbitrary URIs to a resource template: whatever
// matches fills the route with exactly one escaped segment per variable,
// so no URI can steer the in-process request to another path.
func FuzzTemplateMatch(f *testing.F) {
	re, vars, err := compileTemplate("inbox://emails/{id}/parts/{part}")
	if err != nil {
		f.Fatal(err)
	}
	rt, err := inproc.Parse("GET /api/emails/{id}/parts/{part}")
	if err != nil {
		f.Fatal(err)
	}
	tpl := &template{route: rt, match: re, vars: vars, inPath: map[string]bool{"id": true, "part": true}}
	for _, s := range []string{"inbox://emails/e1/parts/2", "inbox://emails/..%2F/parts/x", "inbox://emails/%2e%2e/parts/1",
		"inbox://emails/a/b/parts/c", "inbox://emails/%zz/parts/1", "inbox://emails//parts/1", "inbox://emails/a?x/parts/1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		vals, ok := tpl.matchURI(uri)
		if !ok {
			return
		}
		in, _ := tpl.request(vals)
		values := in.values
		segs := strings.Split(strings.TrimPrefix(in.path, "/"), "/")
		if len(segs) != 5 || segs[0] != "api" || segs[1] != "emails" || segs[3] != "parts" {
			t.Fatalf("%q reached %q", uri, in.path)
		}
		for i, s := range []string{segs[2], segs[4]} {
			dec, err := url.PathUnescape(s)
			if err != nil || dec != values[i].Value || dec == "" || dec == "." || dec == ".." {
				t.Fatalf("%q: segment %q for value %q", uri, s, values[i].Value)
			}
		}
	})
}
