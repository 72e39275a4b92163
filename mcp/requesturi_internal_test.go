package mcp

import (
	"net/url"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
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
// stream holds for its whole life, stays within the allocator's 1,536-byte
// class: its size plus the 8-byte malloc header Go puts before a
// pointerful object over 512 bytes (recBufSize takes what is left).
func TestRequestSize(t *testing.T) {
	if n := unsafe.Sizeof(request{}) + 8; n > 1536 {
		t.Errorf("a request takes %d bytes with its malloc header, over 1536: shrink recBufSize", n)
	}
}
