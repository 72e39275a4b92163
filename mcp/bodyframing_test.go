package mcp_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
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

// rawHead is the request line and headers a correct client of c's
// revision sends, with extra header lines (each ending in CRLF), without
// the blank line that ends them.
func rawHead(addr string, c call, extra string) string {
	var b strings.Builder
	b.WriteString("POST / HTTP/1.1\r\nHost: " + addr + "\r\n" + extra)
	for k, vs := range headersFor(c) {
		b.WriteString(k + ": " + vs[0] + "\r\n")
	}
	return b.String()
}

// rawJSON splits a raw HTTP/1.1 answer into its head and its body, read
// as one JSON-RPC error.
func rawJSON(t *testing.T, got string) (head string, status, code int, reason string) {
	t.Helper()
	head, body, ok := strings.Cut(got, "\r\n\r\n")
	if !ok || !strings.HasPrefix(head, "HTTP/1.1 ") || !strings.Contains(head, "\r\nContent-Type: application/json\r\n") {
		t.Fatalf("not one JSON answer: %q", got)
	}
	status, _ = strconv.Atoi(head[len("HTTP/1.1 ") : len("HTTP/1.1 ")+3])
	var m struct {
		ID    json.RawMessage
		Error struct {
			Code int
			Data struct{ Reason string }
		}
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil || m.ID != nil {
		t.Fatalf("body %q: %v", body, err)
	}
	return head, status, m.Error.Code, m.Error.Data.Reason
}

// TestTransport_BodyTimeoutIs408: a body that stops arriving is the
// host's http.Server.ReadTimeout's to end (README, "Timeouts and
// shutdown"); when it passes the client is told so, 408 -32600 with
// reason body_timeout, over HTTP/1.1 and HTTP/2, in every revision —
// not a 400 that reads as a fault of its bytes.
func TestTransport_BodyTimeoutIs408(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// ReadTimeout also bounds the TLS handshake and the headers: 3 s, so
	// that a loaded machine's stall there is not taken for the body's.
	const readTimeout = 3 * time.Second
	h1 := httptest.NewUnstartedServer(f.h)
	h1.Config.ReadTimeout = readTimeout
	h1.Start()
	t.Cleanup(h1.Close)
	h2 := httptest.NewUnstartedServer(f.h)
	h2.Config.ReadTimeout = readTimeout
	// HTTP/2's idle timeout defaults to ReadTimeout: a connection idle
	// between two subtests' streams would be closed with GOAWAY, failing
	// a request that raced it. The host sets it apart, as this one does.
	h2.Config.IdleTimeout = time.Minute
	h2.EnableHTTP2 = true
	h2.StartTLS()
	t.Cleanup(h2.Close)
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			t.Parallel()
			c := call{era: era, id: "1", method: "tools/list"}
			body := c.body()
			addr := h1.Listener.Addr().String()
			got := rawExchange(t, addr, rawHead(addr, c, "Content-Length: "+strconv.Itoa(len(body)+10)+"\r\n")+"\r\n"+body)
			if _, status, code, reason := rawJSON(t, got); status != 408 || code != -32600 || reason != "body_timeout" {
				t.Errorf("HTTP/1.1: %q", got)
			}

			pr, pw := io.Pipe()
			t.Cleanup(func() { pw.Close() })
			go io.WriteString(pw, body[:len(body)/2]) // and no more
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, h2.URL, pr)
			req.Header = headersFor(c)
			resp, err := h2.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			var m struct {
				Error struct {
					Code int
					Data struct{ Reason string }
				}
			}
			json.Unmarshal(b, &m)
			if resp.ProtoMajor != 2 || resp.StatusCode != 408 || resp.Header.Get("Content-Type") != "application/json" || m.Error.Code != -32600 || m.Error.Data.Reason != "body_timeout" {
				t.Errorf("%s: %d %s", resp.Proto, resp.StatusCode, b)
			}
		})
	}
}

// TestTransport_BodyCutShort: a client that ends its side of the
// connection before the body's declared length is told its body was
// incomplete (400 -32600, reason body_incomplete), not that its JSON was
// bad, in every revision.
func TestTransport_BodyCutShort(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	addr := strings.TrimPrefix(f.url, "http://")
	for _, era := range eras {
		c := call{era: era, id: "1", method: "tools/list"}
		body := c.body()
		for _, framing := range []string{"Content-Length: " + strconv.Itoa(len(body)+10) + "\r\n\r\n" + body,
			"Transfer-Encoding: chunked\r\n\r\n" + strconv.FormatInt(int64(len(body)+10), 16) + "\r\n" + body} {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(conn, rawHead(addr, c, "")+framing)
			conn.(*net.TCPConn).CloseWrite()
			conn.SetReadDeadline(time.Now().Add(10 * time.Second))
			b, _ := io.ReadAll(conn)
			conn.Close()
			if _, status, code, reason := rawJSON(t, string(b)); status != 400 || code != -32600 || reason != "body_incomplete" {
				t.Errorf("%s %q: %q", era, framing[:20], b)
			}
		}
	}
}

// TestTransport_HostBodyLimitIs413: a host that bounds bodies in front of
// the endpoint (http.MaxBytesHandler) below Limits.BodyBytes gets the
// endpoint's own refusal of a body over a limit, 413 with that bound,
// whether the length is declared or the body chunked, in every revision.
func TestTransport_HostBodyLimitIs413(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	url := newTestServer(t, http.MaxBytesHandler(f.h, 100))
	for _, era := range eras {
		c := call{era: era, id: "1", method: "tools/list", params: `"cursor":"` + strings.Repeat("x", 200) + `"`}
		for _, chunked := range []bool{false, true} {
			var body io.Reader = strings.NewReader(c.body())
			if chunked {
				body = io.MultiReader(body) // no length known
			}
			req, _ := http.NewRequest(http.MethodPost, url, body)
			req.Header = headersFor(c)
			r := send(t, req)
			check(t, r, want{status: 413, code: -32600})
			if string(r.msg.Error.Data) != `{"maxBytes":100}` {
				t.Errorf("%s chunked %v: data %s", era, chunked, r.msg.Error.Data)
			}
		}
	}
}

// TestTransport_EmptyBody: a body with no JSON value in it, empty or
// white space only, is a parse error that says so (not "invalid JSON at
// byte 0" of a body that has no byte 0), declared or chunked, in every
// revision.
func TestTransport_EmptyBody(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, era := range eras {
		for _, body := range []string{"", " \r\n\t"} {
			for _, chunked := range []bool{false, true} {
				var rd io.Reader = strings.NewReader(body)
				if chunked {
					rd = io.MultiReader(rd)
				}
				req, _ := http.NewRequest(http.MethodPost, f.url, rd)
				req.Header = headersFor(call{era: era, id: "1", method: "tools/list"})
				r := send(t, req)
				check(t, r, want{status: 400, code: -32700})
				if r.msg.Error.Message != "Parse error: the message is empty" {
					t.Errorf("%s %q chunked %v: %s", era, body, chunked, r.raw)
				}
			}
		}
	}
}
