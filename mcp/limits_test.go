package mcp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/ratelimit"
)

// TestLimits_SlowBodies: connections of one principal trickling their
// bodies hold no concurrency slot, so another principal is served at once
// while they wait.
func TestLimits_SlowBodies(t *testing.T) {
	t.Parallel()
	const slots = 4
	f := newAuthFixture(t, authOptions{handler: []mcp.HandlerOption{mcp.WithLimits(mcp.Limits{Concurrent: slots})}})
	addr := strings.TrimPrefix(f.url, "http://")
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	body := toolCall(mcp.Version20250618, "whoami").body()
	for range 4 * slots {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		// Headers and half the body, then nothing.
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAuthorization: Bearer %s\r\n"+
			"MCP-Protocol-Version: 2025-06-18\r\nContent-Length: %d\r\n\r\n%s", addr, tokAlice, len(body), body[:len(body)/2])
	}
	time.Sleep(50 * time.Millisecond) // let the server start reading them
	for _, era := range eras {
		if r := f.do(t, toolCall(era, "whoami"), tokWriter); r.status != 200 || r.code() != 0 {
			t.Errorf("%s: another principal got %d %s while bodies trickle", era, r.status, r.raw)
		}
	}
}

// TestLimits_PerCaller: no caller holds more than its share of the slots;
// another caller is served while one is at its share.
func TestLimits_PerCaller(t *testing.T) {
	t.Parallel()
	f := newAuthFixture(t, authOptions{handler: []mcp.HandlerOption{mcp.WithLimits(mcp.Limits{Concurrent: 4, PerCaller: 1})}})
	for _, era := range eras {
		done := make(chan *reply)
		go func() { done <- f.do(t, toolCall(era, "slow"), tokAlice) }()
		<-f.entered
		r := f.do(t, toolCall(era, "whoami"), tokAlice)
		checkRefusal(t, r, 503, -31503, "7", "caller_overloaded", "")
		if r.header.Get("Retry-After") != "1" {
			t.Errorf("Retry-After = %q", r.header.Get("Retry-After"))
		}
		if r := f.do(t, toolCall(era, "whoami"), tokWriter); r.status != 200 {
			t.Errorf("%s: another principal got %d while alice is at her share", era, r.status)
		}
		f.release <- struct{}{}
		if r := <-done; r.status != 200 {
			t.Errorf("slow call: %d", r.status)
		}
		if r := f.do(t, toolCall(era, "whoami"), tokAlice); r.status != 200 {
			t.Errorf("after her slot freed: %d", r.status)
		}
	}
}

// TestLimits_Bytes: the body and response bounds, configured, at and past
// the edge, in every era.
func TestLimits_Bytes(t *testing.T) {
	t.Parallel()
	const body, response = 2048, 1000
	mux := http.NewServeMux()
	mux.HandleFunc("GET /bytes/{n}", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, strings.Repeat("b", n))
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "limits", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "bytes", InputSchema: []byte(`{"type":"object","properties":{"n":{"type":"integer"},"pad":{"type":"string"}},"required":["n"]}`)},
		"GET /bytes/{n}", mux)
	f := &fixture{url: newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()},
		mcp.WithLimits(mcp.Limits{BodyBytes: body, ResponseBytes: response})))}
	for _, era := range eras {
		_, res := callTool(t, f, era, "bytes", `{"n":1000}`)
		if res["isError"] != nil || len(text(res)) != response {
			t.Errorf("%s: a response at the bound: %v", era, res["isError"])
		}
		_, res = callTool(t, f, era, "bytes", `{"n":1001}`)
		if res["isError"] != true || text(res) != "The tool's response was too large." {
			t.Errorf("%s: a response past the bound: %v", era, res)
		}
		c := call{era: era, id: "7", method: "tools/call", params: `"name":"bytes","arguments":{"n":1,"pad":""}`}
		padded := func(size int) call {
			c := c
			c.params = `"name":"bytes","arguments":{"n":1,"pad":"` + strings.Repeat("p", size-len(c.body())) + `"}`
			return c
		}
		if r := f.do(t, padded(body)); r.status != 200 || r.code() != 0 {
			t.Errorf("%s: a body at the bound: %d %s", era, r.status, r.raw)
		}
		if r := f.do(t, padded(body+1)); r.status != 413 || r.code() != -32600 {
			t.Errorf("%s: a body past the bound: %d %s", era, r.status, r.raw)
		}
	}
	for _, bad := range []mcp.Limits{{BodyBytes: -1}, {Concurrent: -1}, {PerCaller: 2}, {ArgumentValues: -3}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("WithLimits(%+v) did not panic", bad)
				}
			}()
			mcp.WithLimits(bad)
		}()
	}
}

// TestLimits_RateHeadersAgree: with a per-client and a per-principal
// limiter, every response reports the principal's budget; the per-client
// one speaks only when it refuses.
func TestLimits_RateHeadersAgree(t *testing.T) {
	t.Parallel()
	clk := &fakeClock{t: time.Unix(2_000_000_000, 0)}
	perClient := ratelimit.NewMemory(1, 6, ratelimit.WithClock(clk.now))
	perPrincipal := ratelimit.NewMemory(1, 100, ratelimit.WithClock(clk.now))
	f := newAuthFixture(t, authOptions{handler: []mcp.HandlerOption{mcp.WithClientRateLimit(perClient, nil), mcp.WithRateLimit(perPrincipal)}})
	for i := range 6 {
		r := f.do(t, toolCall(mcp.Version20250618, "whoami"), tokAlice)
		if r.status != 200 || r.header.Get("X-RateLimit-Limit") != "100" || r.header.Get("X-RateLimit-Remaining") != fmt.Sprint(99-i) {
			t.Errorf("request %d: %d, X-RateLimit-Limit %q Remaining %q", i, r.status, r.header.Get("X-RateLimit-Limit"), r.header.Get("X-RateLimit-Remaining"))
		}
	}
	r := f.do(t, toolCall(mcp.Version20250618, "whoami"), tokAlice)
	if r.status != 429 || r.header.Get("X-RateLimit-Limit") != "6" || r.header.Get("Retry-After") == "" {
		t.Errorf("refused by the per-client limiter: %d %v", r.status, r.header)
	}
}

// TestLimits_Numbers: a schema validator compares numbers exactly, as
// fractions: an argument with a huge exponent or thousands of digits
// would cost it tenths of a second each, and past an exponent of a
// million crashed it (the request's goroutine panicked inside the
// validator). Such a number is refused before validation, in every
// revision, as the tool's error naming the bound; at the bound it is
// validated as any other. A schema holding one is refused at
// registration.
func TestLimits_Numbers(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Implementation{Name: "numbers", Version: "1"})
	mux := http.NewServeMux()
	var ran atomic.Int64
	mux.HandleFunc("POST /n", func(w http.ResponseWriter, r *http.Request) { ran.Add(1); w.Write([]byte(`{}`)) })
	srv.AddTool(mcp.Tool{Name: "n", Description: "numbers",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"number","minimum":0,"multipleOf":0.5},` +
			`"ns":{"type":"array","items":{"type":"integer"},"uniqueItems":true}}}`)}, "POST /n", mux)
	// The quick check vouches for a plain number without decoding it: not
	// for one past the bounds.
	srv.AddTool(mcp.Tool{Name: "plain", Description: "a plain number",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}}}`)}, "POST /n", mux)
	ts := httptest.NewServer(mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}))
	t.Cleanup(ts.Close)
	f := &fixture{url: ts.URL}
	digits := "1" + strings.Repeat("0", jsonrpc.MaxNumberDigits-1)
	cases := []struct {
		args   string
		refuse bool // the bound's refusal; otherwise validated (and run when valid)
	}{
		{`{"n":1e1000001}`, true},    // crashed the validator (minimum)
		{`{"ns":[1e1000001]}`, true}, // crashed it (uniqueItems hashes numbers as fractions)
		{`{"ns":[1e999999]}`, true},  // 70 ms a number
		{`{"n":` + digits + `0}`, true},
		{`{"n":1e-401}`, true},
		{`{"n":` + digits + `}`, false},
		{`{"n":5e400}`, false},
		{`{"n":-1e400}`, false}, // validated: below the minimum
	}
	for _, v := range []mcp.Version{mcp.Version20260728, mcp.Version20250618, mcp.Version20250326} {
		for _, tc := range cases {
			for _, tool := range []string{"n", "plain"} {
				if tool == "plain" && strings.HasPrefix(tc.args, `{"ns"`) {
					continue // plain leaves ns unchecked: nothing compares it
				}
				r := f.do(t, call{era: v, id: "1", method: "tools/call", params: `"name":"` + tool + `","arguments":` + tc.args})
				check(t, r, want{status: 200, id: "1", proto: string(v)})
				text, isErr := resultText(t, map[string]any{"result": r.result(t)})
				refused := strings.Contains(text, "a number with more than 400 digits or an exponent beyond ±400")
				if refused != tc.refuse || (tc.refuse && !isErr) {
					t.Errorf("%s %s %.60s: %q (isError %v), want the bound's refusal %v", v, tool, tc.args, text, isErr, tc.refuse)
				}
			}
		}
	}
	if n := ran.Load(); n != 3*(2+3) { // n's two valid calls and plain's three, in three revisions
		t.Errorf("the route ran %d times, want 15", n)
	}
	bad := mcp.NewServer(mcp.Implementation{Name: "bad", Version: "1"})
	func() {
		defer func() {
			if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "exponent beyond") {
				t.Errorf("a schema holding 1e1000001: %v", p)
			}
		}()
		bad.AddTool(mcp.Tool{Name: "bad", Description: "bad", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"multipleOf":1e1000001}}}`)}, "POST /n", mux)
	}()
}
