package mcp_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/ratelimit"
)

// countingFailingLimiter is a pre-authentication limiter whose store is
// down (Redis stopped): every Take fails, and is counted.
type countingFailingLimiter struct{ takes atomic.Int64 }

func (l *countingFailingLimiter) Take(context.Context, string, int) (ratelimit.Decision, error) {
	l.takes.Add(1)
	return ratelimit.Decision{}, errors.New("redis: connection refused")
}

// TestAuth_NoCredentialBeforeClientLimiter: with the per-client limiter's
// store down, a request that carries no Authorization header is still
// told to authenticate (401 and the challenge), since it never reaches
// the verifier the limiter protects; a request that carries a token still
// meets the limiter first and is refused 503 without reaching the
// verifier. Over real HTTP, in every era the endpoint serves.
func TestAuth_NoCredentialBeforeClientLimiter(t *testing.T) {
	t.Parallel()
	var verified atomic.Int64
	lim := &countingFailingLimiter{}
	a := auth.New(auth.Config{Resource: resourceURI, Scopes: []string{"mcp:read"},
		Verifier: auth.VerifierFunc(func(ctx context.Context, tok string, r *http.Request) (*auth.Principal, error) {
			verified.Add(1)
			return nil, auth.ErrInvalidToken
		})})
	srv := mcp.NewServer(mcp.Implementation{Name: "x", Version: "1"})
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()},
		mcp.WithAuth(a), mcp.WithClientRateLimit(lim, nil)))
	tests := []struct {
		name      string
		auth      string // the Authorization header; "" sends none
		status    int
		code      int
		reason    string
		challenge string
		takes     int64 // limiter calls the request makes
	}{
		{"no header", "", 401, -31401, "unauthorized", "Bearer " + baseline, 0},
		{"bearer token", "Bearer tok-any", 503, -31503, "rate_limiter_unavailable", "", 1},
		{"basic scheme", "Basic YTpi", 503, -31503, "rate_limiter_unavailable", "", 1},
	}
	for _, era := range eras {
		for _, c := range []call{firstCall(era), toolCall(era, "whoami")} {
			for _, tt := range tests {
				t.Run(string(era)+"/"+c.method+"/"+tt.name, func(t *testing.T) {
					req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(c.body()))
					if err != nil {
						t.Fatal(err)
					}
					req.Header = headersFor(c)
					if tt.auth != "" {
						req.Header.Set("Authorization", tt.auth)
					}
					before := lim.takes.Load()
					r := send(t, req)
					checkRefusal(t, r, tt.status, tt.code, "", tt.reason, tt.challenge)
					if got := lim.takes.Load() - before; got != tt.takes {
						t.Errorf("limiter asked %d times, want %d", got, tt.takes)
					}
				})
			}
		}
	}
	if n := verified.Load(); n != 0 {
		t.Errorf("the verifier ran %d times behind a failing limiter", n)
	}
}

// TestAuth_NoAuthClientLimiterMetersAll: without WithAuth no request
// carries a token, and the per-client limiter is the only meter: a
// request without an Authorization header still meets it.
func TestAuth_NoAuthClientLimiterMetersAll(t *testing.T) {
	t.Parallel()
	lim := &countingFailingLimiter{}
	srv := mcp.NewServer(mcp.Implementation{Name: "x", Version: "1"})
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithClientRateLimit(lim, nil)))
	for _, era := range []mcp.Version{mcp.Version20260728, mcp.Version20250618} {
		c := firstCall(era)
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(c.body()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header = headersFor(c)
		checkRefusal(t, send(t, req), 503, -31503, "", "rate_limiter_unavailable", "")
	}
	if n := lim.takes.Load(); n != 2 {
		t.Errorf("limiter asked %d times, want 2", n)
	}
}
