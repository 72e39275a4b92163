package mcp_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// capture is a slog handler that keeps every record.
type capture struct {
	mu      sync.Mutex
	records []slog.Record
}

func (c *capture) Enabled(context.Context, slog.Level) bool { return true }
func (c *capture) Handle(_ context.Context, r slog.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.records = append(c.records, r.Clone())
	return nil
}
func (c *capture) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c *capture) WithGroup(string) slog.Handler      { return c }

// refusals returns the "request refused" records of reason, each as its
// attributes.
func (c *capture) refusals(reason string) []map[string]slog.Value {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []map[string]slog.Value
	for _, r := range c.records {
		attrs := map[string]slog.Value{}
		r.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value; return true })
		if r.Message == "mcp: request refused" && attrs["reason"].String() == reason {
			if r.Level != slog.LevelError {
				panic("a refusal logged at " + r.Level.String())
			}
			out = append(out, attrs)
		}
	}
	return out
}

// keyCooldown is what a JWT verifier answers for a token naming a key it
// does not know while the key set was fetched too recently to fetch it
// again: "try again after the cooldown".
type keyCooldown struct{ kid string }

func (k keyCooldown) Error() string {
	return fmt.Sprintf("oidc: issuer unavailable: key %q unknown; keys fetched too recently", k.kid)
}
func (keyCooldown) RetryAfter() time.Duration { return 40 * time.Second }

// TestAuth_UnavailableLoggedOncePerRetryAfter: a flood of tokens naming
// random unknown key ids inside the verifier's refresh cooldown is
// answered 503 each time, but writes one ERROR line, not one per request;
// a verifier panic (500) is still logged every time.
func TestAuth_UnavailableLoggedOncePerRetryAfter(t *testing.T) {
	t.Parallel()
	logs := &capture{}
	a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(func(ctx context.Context, tok string, r *http.Request) (*auth.Principal, error) {
		if tok == "panic" {
			panic("verifier bug")
		}
		return nil, keyCooldown{strings.ToUpper(tok)} // not the token, which the log cuts out
	})})
	srv := mcp.NewServer(mcp.Implementation{Name: "x", Version: "1"})
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()},
		mcp.WithAuth(a), mcp.WithLogger(slog.New(logs))))
	for i := range 40 {
		era := []mcp.Version{mcp.Version20260728, mcp.Version20250618}[i%2]
		r := postCall(t, url, firstCall(era), fmt.Sprintf("kid-%d", i))
		checkRefusal(t, r, 503, -31503, "", "auth_unavailable", "")
		if r.header.Get("Retry-After") != "40" {
			t.Fatalf("Retry-After = %q", r.header.Get("Retry-After"))
		}
	}
	got := logs.refusals("auth_unavailable")
	if len(got) != 1 {
		t.Fatalf("%d ERROR lines for 40 refusals inside one Retry-After, want 1", len(got))
	}
	if err := got[0]["err"].String(); !strings.Contains(err, `"KID-0"`) {
		t.Errorf("the line logged is not the first refusal's: %s", err)
	}
	for range 2 {
		postCall(t, url, firstCall(mcp.Version20260728), "panic")
	}
	if n := len(logs.refusals("internal")); n != 2 {
		t.Errorf("%d ERROR lines for 2 verifier panics, want 2", n)
	}
}
