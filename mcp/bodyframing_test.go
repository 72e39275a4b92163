package mcp_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// rawExchange writes req on a new connection to addr and returns what
// comes back until the server closes the connection or 10 s pass.
func rawExchange(t *testing.T, addr, req string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, _ := io.ReadAll(c)
	return string(b)
}

// TestTransport_ContentEncodingRefused: the endpoint decodes no content
// coding, so a body that declares one is 415 with Accept-Encoding:
// identity (RFC 9110 §12.5.3), before it is read and whatever its bytes —
// coded, or plain JSON that claims a coding — in every revision; nothing
// runs. "identity" is no coding and passes. A 415 for the media type
// carries no Accept-Encoding.
func TestTransport_ContentEncodingRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, era := range eras {
		c := call{era: era, id: "1", method: "tools/call", params: `"name":"items_get","arguments":{"id":"a"}`}
		var zipped bytes.Buffer
		zw := gzip.NewWriter(&zipped)
		io.WriteString(zw, c.body())
		zw.Close()
		for _, tc := range []struct {
			coding, body string
		}{
			{"gzip", zipped.String()},
			{"gzip", ""}, // the plain body
			{"GZIP", ""},
			{"br", ""},
			{"deflate", ""},
			{"identity, gzip", ""},
			{"x-unknown", ""},
		} {
			before := f.count("GET /items/{id}")
			cc := c
			cc.rawBody = tc.body
			cc.header = map[string]string{"Content-Encoding": tc.coding}
			r := f.do(t, cc)
			check(t, r, want{status: 415, code: -32600})
			var data struct{ Reason string }
			json.Unmarshal(r.msg.Error.Data, &data)
			if data.Reason != "content_encoding" || r.header.Get("Accept-Encoding") != "identity" {
				t.Errorf("%s Content-Encoding %q: Accept-Encoding %q, data %s", era, tc.coding, r.header.Get("Accept-Encoding"), r.msg.Error.Data)
			}
			if f.count("GET /items/{id}") != before {
				t.Errorf("%s Content-Encoding %q: the route ran", era, tc.coding)
			}
		}
		for _, coding := range []string{"identity", "Identity", "identity, "} {
			r := f.do(t, call{era: era, id: "1", method: "tools/call", params: c.params, header: map[string]string{"Content-Encoding": coding}})
			check(t, r, want{status: 200, id: "1", proto: string(era)})
		}
		r := f.do(t, call{era: era, id: "1", method: "ping", header: map[string]string{"Content-Type": "text/plain"}})
		check(t, r, want{status: 415, code: -32600})
		if r.header.Get("Accept-Encoding") != "" {
			t.Errorf("%s: a 415 for the media type names codings: %q", era, r.header.Get("Accept-Encoding"))
		}
	}
}

// TestTransport_ContentEncodingBeforeContinue: a request that waits for
// 100 Continue with a coded body is refused without being asked for its
// body: the 415 is the only answer on the wire.
func TestTransport_ContentEncodingBeforeContinue(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	addr := strings.TrimPrefix(f.url, "http://")
	for _, era := range eras {
		c := call{era: era, id: "1", method: "ping"}
		var head strings.Builder
		head.WriteString("POST / HTTP/1.1\r\nHost: " + addr + "\r\nConnection: close\r\nExpect: 100-continue\r\nContent-Encoding: gzip\r\nContent-Length: 100\r\n")
		for k, vs := range headersFor(c) {
			head.WriteString(k + ": " + vs[0] + "\r\n")
		}
		got := rawExchange(t, addr, head.String()+"\r\n")
		if !strings.HasPrefix(got, "HTTP/1.1 415 ") || strings.Contains(got, "100 Continue") || !strings.Contains(got, "\r\nAccept-Encoding: identity\r\n") {
			t.Errorf("%s: %q", era, got)
		}
	}
}
