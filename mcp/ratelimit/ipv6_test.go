package ratelimit_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/ratelimit"
)

// TestClientKeyIPv6 pins the budget names: an IPv6 address names its /64
// (a client picks any address of its /64, so a budget per address would be
// no budget), IPv4 and non-address keys stay as given, and a prefix a key
// function already chose is kept.
func TestClientKeyIPv6(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"2001:db8:1:2::7", "client|2001:db8:1:2::/64"},
		{"2001:db8:1:2:ffff:ffff:ffff:ffff", "client|2001:db8:1:2::/64"},
		{"2001:0DB8:1:2::7", "client|2001:db8:1:2::/64"},
		{"fe80::1%eth0", "client|fe80::/64"},
		{"::1", "client|::/64"},
		{"::ffff:192.0.2.7", "client|192.0.2.7"},
		{"192.0.2.7", "client|192.0.2.7"},
		{"2001:db8::7/128", "client|2001:db8::7/128"},
		{"2001:db8::/48", "client|2001:db8::/48"},
		{"tenant:acme", "client|tenant:acme"},
		{"pipe", "client|pipe"},
		{"", "client|"},
	} {
		if got := ratelimit.ClientKey(tc.in); got != tc.want {
			t.Errorf("ClientKey(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestIPv6Prefix(t *testing.T) {
	ff := ratelimit.ForwardedFor(1, loopbacks...)
	for _, tc := range []struct {
		name  string
		bits  int
		key   func(*http.Request) string
		peer  string
		lines []string
		want  string
	}{
		{"default key, /128", 128, nil, "[2001:db8:1:2::7]:5555", nil, "2001:db8:1:2::7/128"},
		{"default key, /56", 56, nil, "[2001:db8:1:2ff::7]:5555", nil, "2001:db8:1:200::/56"},
		{"default key, IPv4 unchanged", 56, nil, "192.0.2.7:5555", nil, "192.0.2.7"},
		{"default key, zone dropped", 128, nil, "[fe80::1%eth0]:5555", nil, "fe80::1/128"},
		{"default key, not an address", 64, nil, "pipe", nil, "pipe"},
		{"forwarded, /48", 48, ff, "127.0.0.1:4000", []string{"2001:db8:1:2::7"}, "2001:db8:1::/48"},
		{"forwarded, /128", 128, ff, "127.0.0.1:4000", []string{"[2001:db8:1:2::7]:443"}, "2001:db8:1:2::7/128"},
		{"forwarded, mapped", 64, ff, "127.0.0.1:4000", []string{"::ffff:192.0.2.7"}, "192.0.2.7"},
		{"custom key, not an address", 64, func(*http.Request) string { return "tenant:acme" }, "127.0.0.1:1", nil, "tenant:acme"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := request(tc.peer, "X-Forwarded-For", tc.lines...)
			got := ratelimit.IPv6Prefix(tc.bits, tc.key)(r)
			if got != tc.want {
				t.Errorf("key %q, want %q", got, tc.want)
			}
			// What the prefix names is the budget: ClientKey keeps it.
			if ck := ratelimit.ClientKey(got); ck != "client|"+tc.want {
				t.Errorf("ClientKey(%q) = %q", got, ck)
			}
		})
	}
	for _, bits := range []int{0, -1, 129} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("IPv6Prefix(%d) did not panic", bits)
				}
			}()
			ratelimit.IPv6Prefix(bits, nil)
		}()
	}
}

// TestIPv6BudgetEndpoint holds the endpoint to the /64 over real HTTP: a
// client behind the proxy that rotates through addresses of its /64 gets
// a budget of 2 in all, a neighbouring /64 one of its own, and
// IPv6Prefix(128) restores one budget per address. The default key (no
// proxy) is checked through the handler with the peer set, since loopback
// offers one IPv6 address only.
func TestIPv6BudgetEndpoint(t *testing.T) {
	ping := func(h http.Handler, peer string, forwarded string) int {
		t.Helper()
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.RemoteAddr = peer
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		if forwarded != "" {
			req.Header.Set("X-Forwarded-For", forwarded)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		return w.Code
	}
	handler := func(key func(*http.Request) string) http.Handler {
		srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
		return mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()},
			mcp.WithClientRateLimit(ratelimit.NewMemory(0.001, 2), key))
	}
	count := func(send func(i int) int) int {
		n := 0
		for i := range 20 {
			if send(i) == http.StatusOK {
				n++
			}
		}
		return n
	}

	t.Run("forwarded over HTTP", func(t *testing.T) {
		ts := httptest.NewServer(handler(ratelimit.ForwardedFor(1, loopbacks...)))
		defer ts.Close()
		send := func(client string) int {
			req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", "2025-06-18")
			req.Header.Set("X-Forwarded-For", client)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}
		if n := count(func(i int) int { return send(fmt.Sprintf("2001:db8:1:2::%x", i+1)) }); n != 2 {
			t.Errorf("%d of 20 requests from one /64 admitted against a budget of 2", n)
		}
		if code := send("2001:db8:1:3::1"); code != http.StatusOK {
			t.Errorf("the next /64: %d", code)
		}
	})
	t.Run("default key", func(t *testing.T) {
		h := handler(nil)
		if n := count(func(i int) int { return ping(h, fmt.Sprintf("[2001:db8:1:2::%x]:4000", i+1), "") }); n != 2 {
			t.Errorf("%d of 20 requests from one /64 admitted against a budget of 2", n)
		}
		if code := ping(h, "[2001:db8:1:3::1]:4000", ""); code != http.StatusOK {
			t.Errorf("the next /64: %d", code)
		}
	})
	t.Run("per address when asked", func(t *testing.T) {
		h := handler(ratelimit.IPv6Prefix(128, nil))
		if n := count(func(i int) int { return ping(h, fmt.Sprintf("[2001:db8:1:2::%x]:4000", i/2+1), "") }); n != 20 {
			t.Errorf("%d of 20 requests (2 per address) admitted with a budget of 2 per address", n)
		}
	})
}
