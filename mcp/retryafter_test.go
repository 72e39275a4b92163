package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/ratelimit"
)

// TestRateLimit_RetryAfterMsIsEnough: the retryAfterMs of a 429 is
// rounded up, never down, so a client that waits exactly that long is
// admitted; over stdio it is the only hint there is. At 3 requests a
// second a token takes 333.33 ms: waiting 333 ms was refused again. In
// every revision.
func TestRateLimit_RetryAfterMsIsEnough(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			clk := &fakeClock{t: time.Unix(2_000_000_000, 0)}
			lim := ratelimit.NewMemory(3, 1, ratelimit.WithClock(clk.now))
			f := newAuthFixture(t, authOptions{handler: []mcp.HandlerOption{mcp.WithRateLimit(lim)}})
			list := call{era: era, id: "3", method: "tools/list"}
			if r := f.do(t, list, tokAlice); r.status != 200 {
				t.Fatalf("first: %d %s", r.status, r.raw)
			}
			for i := range 3 {
				r := f.do(t, list, tokAlice)
				checkRefusal(t, r, 429, -31429, "3", "rate_limited", "")
				var data struct {
					RetryAfterMs int64 `json:"retryAfterMs"`
				}
				json.Unmarshal(r.msg.Error.Data, &data)
				clk.advance(time.Duration(data.RetryAfterMs) * time.Millisecond)
				if again := f.do(t, list, tokAlice); again.status != 200 {
					t.Fatalf("round %d: waited retryAfterMs (%d) and was refused again: %d %s", i, data.RetryAfterMs, again.status, again.raw)
				}
				if (i == 0 && data.RetryAfterMs != 334) || r.header.Get("Retry-After") != "1" {
					t.Errorf("round %d: retryAfterMs %d, Retry-After %q", i, data.RetryAfterMs, r.header.Get("Retry-After"))
				}
			}
		})
	}
}

// busyVerifier is a verifier whose store is briefly down and says for how
// long.
type busyVerifier time.Duration

func (b busyVerifier) Error() string             { return "busy" }
func (b busyVerifier) RetryAfter() time.Duration { return time.Duration(b) }

// TestAuth_UnavailableRetryAfterMsRoundsUp: the 503 of a verifier that
// asks for a wait under or between whole milliseconds says at least that
// wait in retryAfterMs, never 0 or a millisecond short. In every revision.
func TestAuth_UnavailableRetryAfterMsRoundsUp(t *testing.T) {
	t.Parallel()
	for _, wait := range []struct {
		d    time.Duration
		want int64
	}{{1500 * time.Microsecond, 2}, {300 * time.Microsecond, 1}, {2 * time.Millisecond, 2}} {
		srv := mcp.NewServer(mcp.Implementation{Name: "x", Version: "1"})
		a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(func(context.Context, string, *http.Request) (*auth.Principal, error) {
			return nil, busyVerifier(wait.d)
		})})
		f := &authFixture{url: newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithAuth(a)))}
		for _, era := range eras {
			r := f.do(t, firstCall(era), "tok")
			checkRefusal(t, r, 503, -31503, "", "auth_unavailable", "")
			var data struct {
				RetryAfterMs int64 `json:"retryAfterMs"`
			}
			json.Unmarshal(r.msg.Error.Data, &data)
			if data.RetryAfterMs != wait.want || r.header.Get("Retry-After") != "1" {
				t.Errorf("%s, wait %v: retryAfterMs %d (want %d), Retry-After %q", era, wait.d, data.RetryAfterMs, wait.want, r.header.Get("Retry-After"))
			}
		}
	}
}
