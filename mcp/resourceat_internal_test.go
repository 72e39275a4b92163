package mcp

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/mcpdual/mcpdual/internal/inproc"
)

// TestResourceAt: a fixed resource is found by any spelling of its URI,
// and when two spellings of one URI were both registered, by the first
// registered, whichever of them holds the escape — as the walk of every
// resource found them before the canonical spellings were indexed.
func TestResourceAt(t *testing.T) {
	h := http.NotFoundHandler()
	for _, c := range []struct {
		registered []string
		read       map[string]int // URI read → index of the resource found, -1 none
	}{
		{[]string{"v://a/~x"}, map[string]int{"v://a/~x": 0, "v://a/%7Ex": 0, "v://a/%7ex": 0, "v://a/x": -1}},
		{[]string{"v://a/%7Ex"}, map[string]int{"v://a/~x": 0, "v://a/%7Ex": 0, "v://a/%7ex": 0, "v://a/%7E": -1}},
		{[]string{"s3://b/a%2fb"}, map[string]int{"s3://b/a%2Fb": 0, "s3://b/a%2fb": 0, "s3://b/a/b": -1}},
		{[]string{"v://a/~x", "v://a/%7Ex"}, map[string]int{"v://a/~x": 0, "v://a/%7Ex": 1, "v://a/%7ex": 0}},
		{[]string{"v://a/%7Ex", "v://a/~x"}, map[string]int{"v://a/~x": 1, "v://a/%7Ex": 0, "v://a/%7ex": 0}},
		{[]string{"v://a/%7ex", "v://a/%7Ex"}, map[string]int{"v://a/~x": 0, "v://a/%7Ex": 1, "v://a/%7ex": 0, "v://a/%7e%78": 0}},
	} {
		s := NewServer(Implementation{Name: "r", Version: "1"})
		for _, u := range c.registered {
			s.AddResource(Resource{URI: u, Name: "r"}, "GET /r", h)
		}
		s.freeze(func(*Server) error { return nil })
		for uri, want := range c.read {
			got := s.resourceAt(uri)
			switch {
			case want < 0 && got != nil:
				t.Errorf("%v: %s found %s", c.registered, uri, got.def.URI)
			case want >= 0 && (got == nil || got.def.URI != c.registered[want]):
				t.Errorf("%v: %s found %v, want %s", c.registered, uri, got, c.registered[want])
			}
		}
	}
}

// TestResourceAt_NoWalk: a URI no fixed resource has (a template's) costs
// no allocation however many resources were registered with escapes; the
// walk canonicalized each of them on every such read (628 µs a read among
// 10,000, BenchmarkTemplateRead).
func TestResourceAt_NoWalk(t *testing.T) {
	s := NewServer(Implementation{Name: "r", Version: "1"})
	for i := range 1000 {
		s.AddResource(Resource{URI: "v://r/%7E" + strconv.Itoa(i), Name: "r"}, "GET /r", http.NotFoundHandler())
	}
	s.freeze(func(*Server) error { return nil })
	if n := testing.AllocsPerRun(20, func() {
		if s.resourceAt("docs://a") != nil || s.resourceAt("v://r/~999") == nil {
			t.Fatal("resourceAt")
		}
	}); n != 0 {
		t.Errorf("%v allocations a lookup, want 0", n)
	}
}

// TestNamesLiteral_NoAllocation: checking a filled wildcard route against
// the literal routes, on every call of such a tool, allocates nothing
// for a path of ordinary length.
func TestNamesLiteral_NoAllocation(t *testing.T) {
	mux := http.NewServeMux()
	route, err := inproc.Parse("GET /docs/{x}/pages/{y}")
	if err != nil {
		t.Fatal(err)
	}
	literals := map[string][]http.Handler{"GET /docs/secret/pages/1": {mux}}
	hit := []inproc.PathValue{{Name: "x", Value: "secret"}, {Name: "y", Value: "1"}}
	miss := []inproc.PathValue{{Name: "x", Value: "public"}, {Name: "y", Value: "1"}}
	if !namesLiteral(literals, route, hit, mux) || namesLiteral(literals, route, miss, mux) {
		t.Fatal("namesLiteral")
	}
	if n := testing.AllocsPerRun(20, func() { namesLiteral(literals, route, miss, mux) }); n != 0 {
		t.Errorf("%v allocations, want 0", n)
	}
}
