package mcp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/ratelimit"
)

// This file is self-contained (its own verifier, server and requests), so
// that it keeps compiling while the shared test harness changes.

// rateKeyTokens: one user through two OAuth clients, another user, and
// two client-credentials tokens (no subject) of two clients.
var rateKeyTokens = map[string]auth.Principal{
	"alice-via-a": {Issuer: "https://as.example.com", Subject: "alice", ClientID: "client-a"},
	"alice-via-b": {Issuer: "https://as.example.com", Subject: "alice", ClientID: "client-b"},
	"bob-via-a":   {Issuer: "https://as.example.com", Subject: "bob", ClientID: "client-a"},
	"machine-c":   {Issuer: "https://as.example.com", ClientID: "client-c"},
	"machine-d":   {Issuer: "https://as.example.com", ClientID: "client-d"},
	// A subject spelled like a client id is still not that client.
	"subject-c": {Issuer: "https://as.example.com", Subject: "client-c", ClientID: "client-x"},
}

// recordingLimiter admits everything and remembers the keys it was asked
// for, in order.
type recordingLimiter struct {
	mu   sync.Mutex
	keys []string
}

func (l *recordingLimiter) Take(_ context.Context, key string, _ int) (ratelimit.Decision, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.keys = append(l.keys, key)
	return ratelimit.Decision{Allowed: true, Limit: 100, Remaining: 99}, nil
}

func (l *recordingLimiter) last() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.keys) == 0 {
		return ""
	}
	return l.keys[len(l.keys)-1]
}

// rateKeyServer serves two tools over 2025-06-18: "fast", and "slow",
// which waits for release (and says it entered).
func rateKeyServer(t *testing.T, byClient bool, opts ...mcp.HandlerOption) (url string, entered chan struct{}, release chan struct{}) {
	t.Helper()
	const resource = "https://mcp.example.com/mcp"
	entered, release = make(chan struct{}, 4), make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /fast", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{}`)
	})
	mux.HandleFunc("GET /slow", func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{}`)
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "ratekey", Version: "1"})
	in := []byte(`{"type":"object"}`)
	srv.AddTool(mcp.Tool{Name: "fast", InputSchema: in}, "GET /fast", mux)
	srv.AddTool(mcp.Tool{Name: "slow", InputSchema: in}, "GET /slow", mux)
	a := auth.New(auth.Config{Resource: resource, RateByClient: byClient,
		Verifier: auth.VerifierFunc(func(_ context.Context, token string, _ *http.Request) (*auth.Principal, error) {
			p, ok := rateKeyTokens[token]
			if !ok {
				return nil, auth.ErrInvalidToken
			}
			p.Audience, p.ExpiresAt = []string{resource}, time.Now().Add(time.Hour)
			return &p, nil
		})})
	h := mcp.NewHandler(srv, []mcp.Era{era2025.New()}, append([]mcp.HandlerOption{mcp.WithAuth(a)}, opts...)...)
	ts := httptest.NewServer(h)
	t.Cleanup(func() {
		close(release)
		ts.Close()
	})
	return ts.URL, entered, release
}

// callAs sends tools/call of tool as token and returns the status and body.
func callAs(t *testing.T, url, token, tool string) (int, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestRateKey_Budgets: the endpoint keys a principal's budget by issuer
// and subject (issuer and client id without a subject), so one user's
// clients share one budget; with RateByClient each client has its own.
func TestRateKey_Budgets(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		byClient bool
		same     [][2]string // token pairs that must share a budget
		apart    [][2]string // token pairs that must not
	}{
		{byClient: false,
			same:  [][2]string{{"alice-via-a", "alice-via-b"}},
			apart: [][2]string{{"alice-via-a", "bob-via-a"}, {"machine-c", "machine-d"}, {"machine-c", "subject-c"}}},
		{byClient: true,
			apart: [][2]string{{"alice-via-a", "alice-via-b"}, {"alice-via-a", "bob-via-a"}, {"machine-c", "machine-d"}, {"machine-c", "subject-c"}}},
	} {
		lim := &recordingLimiter{}
		url, _, _ := rateKeyServer(t, tc.byClient, mcp.WithRateLimit(lim))
		keyOf := func(token string) string {
			if st, body := callAs(t, url, token, "fast"); st != 200 {
				t.Fatalf("%s: %d %s", token, st, body)
			}
			k := lim.last()
			if k == "" {
				t.Fatalf("%s: the limiter was not asked", token)
			}
			return k
		}
		for _, p := range tc.same {
			if a, b := keyOf(p[0]), keyOf(p[1]); a != b {
				t.Errorf("byClient=%v: %s and %s have budgets %q and %q, want one", tc.byClient, p[0], p[1], a, b)
			}
		}
		for _, p := range tc.apart {
			if a, b := keyOf(p[0]), keyOf(p[1]); a == b {
				t.Errorf("byClient=%v: %s and %s share the budget %q", tc.byClient, p[0], p[1], a)
			}
		}
		// The key a host's own routes use names the same budget.
		p := rateKeyTokens["alice-via-b"]
		want := ratelimit.PrincipalKey(auth.New(auth.Config{Resource: "https://mcp.example.com/mcp", RateByClient: tc.byClient,
			Verifier: auth.VerifierFunc(func(context.Context, string, *http.Request) (*auth.Principal, error) {
				return nil, auth.ErrInvalidToken
			}),
		}).RateKey(&p))
		if got := keyOf("alice-via-b"); got != want {
			t.Errorf("byClient=%v: endpoint key %q, Authenticator.RateKey gives %q", tc.byClient, got, want)
		}
	}
}

// TestRateKey_SlotShares: a user holding its share of the concurrency
// slots through one client is refused another through a second client;
// another user is still served.
func TestRateKey_SlotShares(t *testing.T) {
	t.Parallel()
	url, entered, release := rateKeyServer(t, false, mcp.WithLimits(mcp.Limits{Concurrent: 4, PerCaller: 1}))
	done := make(chan int, 1)
	go func() {
		st, _ := callAs(t, url, "alice-via-a", "slow")
		done <- st
	}()
	<-entered
	if st, body := callAs(t, url, "alice-via-b", "fast"); st != http.StatusServiceUnavailable || !strings.Contains(body, "caller_overloaded") {
		t.Errorf("alice through a second client while at her share: %d %s", st, body)
	}
	if st, body := callAs(t, url, "bob-via-a", "fast"); st != 200 {
		t.Errorf("another user of the same client: %d %s", st, body)
	}
	release <- struct{}{}
	if st := <-done; st != 200 {
		t.Errorf("the slow call: %d", st)
	}
	if st, body := callAs(t, url, "alice-via-b", "fast"); st != 200 {
		t.Errorf("after her slot freed: %d %s", st, body)
	}
}
