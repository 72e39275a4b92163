package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/ratelimit"
)

// markingWriter is a host middleware's writer that appends ";edited" in
// place to every header value the endpoint set, when the status line
// goes out (it owns w.Header(), so it may). Content-Length is left alone:
// the transport reads it.
type markingWriter struct{ http.ResponseWriter }

func (w markingWriter) WriteHeader(status int) {
	for k, v := range w.Header() {
		if k != "Content-Length" {
			for i := range v {
				v[i] += ";edited"
			}
		}
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w markingWriter) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

// clientLimiter refuses the client the key names "deny" and fails for
// "fail"; it lets every other through.
type clientLimiter struct{}

func (clientLimiter) Take(_ context.Context, key string, _ int) (ratelimit.Decision, error) {
	switch {
	case strings.HasSuffix(key, "fail"):
		return ratelimit.Decision{}, errors.New("limiter down")
	case strings.HasSuffix(key, "deny"):
		return ratelimit.Decision{Limit: 1, Reset: time.Now().Add(time.Minute), RetryAfter: time.Minute}, nil
	}
	return ratelimit.Decision{Allowed: true, Limit: 10, Remaining: 9, Reset: time.Now().Add(time.Minute)}, nil
}

// TestHeaders_OwnedPerResponse_EveryAnswer extends
// TestHeaders_OwnedPerResponse (review item 7) past 200s and in-band
// errors: the HTTP refusals writeError sends (401, 405, 413, 415, 429, 503),
// an SSE stream and a notification's 202 each hold header values of
// their own. A middleware editing every value in place, under concurrent
// requests, must leave each response with exactly one edit per value;
// with a value shared between responses the edits pile up, and -race
// reports the concurrent writes.
func TestHeaders_OwnedPerResponse_EveryAnswer(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Implementation{Name: "own", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "progress"}, func(ctx context.Context, in fnEmpty) (map[string]bool, error) {
		return map[string]bool{"sent": mcp.CallFromContext(ctx).Progress(1, 2, "half")}, nil
	})
	authn := auth.New(auth.Config{Verifier: auth.VerifierFunc(testVerifier), Resource: resourceURI, Workspaces: auth.WorkspaceFunc(testWorkspaces)})
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithAuth(authn), mcp.WithStreaming(),
		mcp.WithLimits(mcp.Limits{BodyBytes: 4096}),
		mcp.WithClientRateLimit(clientLimiter{}, func(r *http.Request) string { return r.Header.Get("X-Client") }))
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(markingWriter{w}, r)
	}))
	t.Cleanup(ts.Close)

	type answer struct {
		name    string
		method  string
		body    string
		header  map[string]string
		status  int
		headers []string // headers the answer must carry
	}
	v25 := map[string]string{"Mcp-Protocol-Version": "2025-06-18", "Authorization": "Bearer " + tokAlice}
	with := func(m map[string]string, k, v string) map[string]string {
		out := map[string]string{k: v}
		for mk, mv := range m {
			out[mk] = mv
		}
		return out
	}
	answers := []answer{
		{name: "405", method: http.MethodGet, status: 405, headers: []string{"Allow", "Content-Type", "Cache-Control"}},
		{name: "401", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, header: map[string]string{"Mcp-Protocol-Version": "2025-06-18"},
			status: 401, headers: []string{"Www-Authenticate", "Content-Type", "Cache-Control"}},
		{name: "413", body: `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 8000) + `"}}`, header: v25,
			status: 413, headers: []string{"Content-Type", "Cache-Control"}},
		{name: "415 coding", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, header: with(v25, "Content-Encoding", "gzip"),
			status: 415, headers: []string{"Accept-Encoding", "Content-Type", "Cache-Control"}},
		{name: "429", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, header: with(v25, "X-Client", "deny"),
			status: 429, headers: []string{"Retry-After", "X-Ratelimit-Limit", "Content-Type", "Cache-Control"}},
		{name: "503", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, header: with(v25, "X-Client", "fail"),
			status: 503, headers: []string{"Retry-After", "Content-Type", "Cache-Control"}},
		{name: "SSE", body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":"p1"}}}`,
			header: v25, status: 200, headers: []string{"Content-Type", "Cache-Control", "Mcp-Protocol-Version"}},
		{name: "202", body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, header: v25,
			status: 202, headers: []string{"Cache-Control", "Mcp-Protocol-Version"}},
	}
	concurrently(t, 8, 14, 8, func(c, i int, report func(string)) {
		a := answers[(c+i)%len(answers)]
		method := a.method
		if method == "" {
			method = http.MethodPost
		}
		req, _ := http.NewRequest(method, ts.URL, strings.NewReader(a.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range a.header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			report(err.Error())
			return
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != a.status {
			report(fmt.Sprintf("%s: status %d: %s", a.name, resp.StatusCode, body))
			return
		}
		if a.name == "SSE" && !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			report(fmt.Sprintf("SSE: not a stream: %s %s", resp.Header, body))
		}
		for _, name := range a.headers {
			if len(resp.Header.Values(name)) == 0 {
				report(fmt.Sprintf("%s: no %s: %v", a.name, name, resp.Header))
			}
		}
		for name, vs := range resp.Header {
			if name == "Content-Length" || name == "Date" {
				continue
			}
			for _, v := range vs {
				if strings.Count(v, ";edited") != 1 {
					report(fmt.Sprintf("%s: %s = %q: not this response's own value", a.name, name, v))
				}
			}
		}
	})
}
