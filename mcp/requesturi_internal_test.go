package mcp

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpdual/mcpdual/internal/schema"
)

// TestParseRequestURI: the in-place URL of a route's request is what
// url.ParseRequestURI makes of the same request URI, for the plain paths
// it builds itself and the escaped ones it leaves to the parser.
func TestParseRequestURI(t *testing.T) {
	for _, c := range []struct{ path, query string }{
		{"/echo", ""},
		{"/api/v1/inboxes/in_1/emails", "limit=10&cursor=a%2Fb"},
		{"/a-b.c_d~e/", ""},
		{"/items/a%20b", ""},
		{"/items/a%2Fb", "q=1"},
		{"/items/caf%C3%A9", ""},
		{"/items/a+b", ""},
		{"/items/@x:1", ""},
		{"/", "x"},
	} {
		uri := c.path
		if c.query != "" {
			uri += "?" + c.query
		}
		want, err := url.ParseRequestURI(uri)
		if err != nil {
			t.Fatal(err)
		}
		var got url.URL
		if err := parseRequestURI(&got, uri, c.path, c.query); err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		if diff := cmp.Diff(want, &got, cmp.AllowUnexported(url.URL{})); diff != "" {
			t.Errorf("%s (-ParseRequestURI +ours):\n%s", uri, diff)
		}
	}
	var u url.URL
	if err := parseRequestURI(&u, "/bad%zz", "/bad%zz", ""); err == nil {
		t.Error("an invalid escape was accepted")
	}
}

// TestRequestSize: a request, which every call allocates and a listen
// stream holds for its whole life, stays within the allocator's 1,792-byte
// class: its size plus the 8-byte malloc header Go puts before a
// pointerful object over 512 bytes (recBufSize and bodyBufSize take what
// is left).
func TestRequestSize(t *testing.T) {
	if n := unsafe.Sizeof(request{}) + 8; n > 1792 {
		t.Errorf("a request takes %d bytes with its malloc header, over 1792: shrink bodyBufSize", n)
	}
}

// TestNewInner_RunAgain: a request that runs a route again (a 2025
// client's retry, a listen's status polls) gives the second run a URL and
// a context of its own: what the first run handed out may still be held.
func TestNewInner_RunAgain(t *testing.T) {
	var c callPart
	var values headerValues
	w := who{r: httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)}
	first, second := &Call{tool: "a"}, &Call{tool: "b"}
	r1, err := c.newInner(w, &values, "", first, inner{method: http.MethodGet, path: "/one"})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := c.newInner(w, &values, "", second, inner{method: http.MethodGet, path: "/two"})
	if err != nil {
		t.Fatal(err)
	}
	if r1.URL.Path != "/one" || r2.URL.Path != "/two" {
		t.Errorf("paths %q and %q", r1.URL.Path, r2.URL.Path)
	}
	if c := CallFromContext(r1.Context()); c != first {
		t.Errorf("the first run's context holds %v", c)
	}
	if c := CallFromContext(r2.Context()); c != second {
		t.Errorf("the second run's context holds %v", c)
	}
}

// TestOutputValid_Unscanned: a function's encoded output reaches the
// quick check only once the strict scanner has read it: a lone surrogate
// escape, which encoding/json lets through from a MarshalJSON, is refused
// as before, not vouched for.
func TestOutputValid_Unscanned(t *testing.T) {
	out, err := schema.Compile([]byte(`{"type":"object","properties":{"s":{"type":"string"}},"required":["s"]}`))
	if err != nil {
		t.Fatal(err)
	}
	tl := &tool{output: out}
	req := &request{}
	req.HTTP = httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
	req.handler = &Handler{cfg: handlerConfig{logger: slog.New(slog.DiscardHandler)}}
	if req.outputValid(tl, []byte(`{"s":"\ud800"}`), false) {
		t.Error("a lone surrogate escape was vouched for")
	}
	if !req.outputValid(tl, []byte(`{"s":"ok"}`), false) {
		t.Error("a conforming output was refused")
	}
}

// FuzzParseRequestURI: a route's request URI is filled from a client's
// arguments (a path of escaped segments, a query url.Values encodes).
// Whatever the path and the query's pair, the URL built in place is the
// one url.ParseRequestURI makes of the same URI, and either both refuse
// it or neither does.
func FuzzParseRequestURI(f *testing.F) {
	for _, s := range []struct{ path, k, v string }{
		{"/echo", "", ""}, {"/api/v1/inboxes/in_1/emails", "cursor", "a/b"}, {"/items/a%20b", "", ""},
		{"/items/a%2Fb", "q", "1"}, {"/items/caf%C3%A9", "", ""}, {"/bad%zz", "", ""}, {"/a b", "", ""},
		{"/x\x7f", "", ""}, {"//host/p", "", ""}, {"/", "a b", "c&d=e"},
	} {
		f.Add(s.path, s.k, s.v)
	}
	f.Fuzz(func(t *testing.T, path, k, v string) {
		if path == "" || path[0] != '/' {
			return // a route's path is always absolute
		}
		query := ""
		if k != "" {
			query = url.Values{k: {v}}.Encode()
		}
		uri := path
		if query != "" {
			uri += "?" + query
		}
		want, werr := url.ParseRequestURI(uri)
		var got url.URL
		gerr := parseRequestURI(&got, uri, path, query)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%q: url.ParseRequestURI: %v; parseRequestURI: %v", uri, werr, gerr)
		}
		if werr != nil {
			return
		}
		if diff := cmp.Diff(want, &got, cmp.AllowUnexported(url.URL{})); diff != "" {
			t.Fatalf("%q (-ParseRequestURI +ours):\n%s", uri, diff)
		}
	})
}
