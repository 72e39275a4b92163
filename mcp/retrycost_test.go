package mcp_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

// retryServer has one destructive tool whose route blocks until release
// is closed (when it is not nil).
type retryServer struct {
	h       http.Handler
	ran     int
	mu      sync.Mutex
	started chan struct{}
	release chan struct{}
}

func newRetryServer(t testing.TB, opts ...mcp.HandlerOption) *retryServer {
	s := &retryServer{started: make(chan struct{}, 16)}
	mux := http.NewServeMux()
	mux.HandleFunc("DELETE /purge", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.ran++
		release := s.release
		s.mu.Unlock()
		s.started <- struct{}{}
		if release != nil {
			<-release
		}
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "retry", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "purge", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: mcp.Annotations{Destructive: true}},
		"DELETE /purge", mux)
	srv.AddTool(mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)}, "DELETE /purge", mux)
	opts = append([]mcp.HandlerOption{mcp.WithLogger(slog.New(slog.DiscardHandler))}, opts...)
	s.h = mcp.NewHandler(srv, []mcp.Era{era2026.New()}, opts...)
	return s
}

// do serves one rt to the handler, with no network in between.
func (s *retryServer) do(c rt) (*httptest.ResponseRecorder, func()) {
	if c.method == "" {
		c.method = "tools/call"
	}
	if c.id == 0 {
		c.id = 1
	}
	body := c.body()
	rec := httptest.NewRecorder()
	return rec, func() {
		rec.Body.Reset()
		req := httptest.NewRequest(http.MethodPost, "http://localhost/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", c.method)
		req.Header.Set("Mcp-Name", c.name)
		s.h.ServeHTTP(rec, req)
	}
}

// bigArguments is ~960 KB of arguments holding one \u escape and 480,000
// values: the retry of design record 019, which cost 52–62 times its size to digest.
func bigArguments() string {
	return `{"v":[` + strings.Repeat("0,", 479_999) + `0],"s":"\u0041"}`
}

// TestValidationCost_RetryBeforeDigest: a retry carrying a valid requestState
// and arguments over Limits.ArgumentValues is refused by that bound before
// its binding digest is computed (the state is never opened), and costs a
// small multiple of its body.
func TestValidationCost_RetryBeforeDigest(t *testing.T) {
	skipUnderRace(t)
	s := newRetryServer(t)
	rec, round1 := s.do(rt{name: "purge", args: `{}`, caps: formCaps})
	round1()
	var r1 struct {
		Result interim `json:"result"`
	}
	json.Unmarshal(rec.Body.Bytes(), &r1)
	if r1.Result.RequestState == "" {
		t.Fatalf("round 1: %s", rec.Body)
	}
	args := bigArguments()
	rec, retry := s.do(rt{id: 2, name: "purge", args: args, caps: formCaps, state: quoteJSON(r1.Result.RequestState), responses: `{"confirm":` + accept + `}`})
	retry() // warm
	bytes, objects := allocated(retry)
	res, _ := io.ReadAll(rec.Body)
	var reply struct {
		Error struct {
			Code int `json:"code"`
			Data struct {
				Reason    string `json:"reason"`
				MaxValues int    `json:"maxValues"`
			} `json:"data"`
		} `json:"error"`
	}
	json.Unmarshal(res, &reply)
	if reply.Error.Code != -32602 || reply.Error.Data.Reason != "too_many_values" || reply.Error.Data.MaxValues != 10_000 {
		t.Errorf("answer %d: %.300s", rec.Code, res)
	}
	ratio := float64(bytes) / float64(len(args))
	t.Logf("%d bytes of arguments: %d bytes (%.2f×), %d objects allocated", len(args), bytes, ratio, objects)
	// The body itself (read once) and the request around it; the digest
	// alone was 52–62× before the bound applied first.
	if ratio > 2 {
		t.Errorf("a refused retry allocated %.2f× its arguments, want at most 2×", ratio)
	}
	if s.ran != 0 {
		t.Errorf("the route ran %d times", s.ran)
	}
}

// TestRetry_HoldsASlot: a retry carrying a requestState takes a
// concurrency slot like any call, so one caller's retries cannot take
// more than its share.
func TestRetry_HoldsASlot(t *testing.T) {
	s := newRetryServer(t, mcp.WithLimits(mcp.Limits{Concurrent: 4, PerCaller: 1}))
	rec, round1 := s.do(rt{name: "purge", args: `{}`, caps: formCaps})
	round1()
	var r1 struct {
		Result interim `json:"result"`
	}
	json.Unmarshal(rec.Body.Bytes(), &r1)
	if r1.Result.RequestState == "" {
		t.Fatalf("round 1: %s", rec.Body)
	}
	s.release = make(chan struct{})
	_, slow := s.do(rt{name: "slow", args: `{}`})
	done := make(chan struct{})
	go func() { slow(); close(done) }()
	select {
	case <-s.started:
	case <-time.After(5 * time.Second):
		t.Fatal("the slow call did not start")
	}
	for name, c := range map[string]rt{
		"retry with the state":       {id: 2, name: "purge", args: `{}`, caps: formCaps, state: quoteJSON(r1.Result.RequestState), responses: `{"confirm":` + accept + `}`},
		"retry with too many values": {id: 3, name: "purge", args: bigArguments(), caps: formCaps, state: quoteJSON(r1.Result.RequestState)},
	} {
		rec, retry := s.do(c)
		retry()
		if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), `"caller_overloaded"`) {
			t.Errorf("%s while the caller holds its slot: %d %.200s", name, rec.Code, rec.Body)
		}
	}
	close(s.release)
	<-done
	if s.ran != 1 {
		t.Errorf("the route ran %d times, want 1 (the slow call)", s.ran)
	}
}
