package ratelimit_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/ratelimit"
)

var loopbacks = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}

// request is a request from peer carrying the given lines of header.
func request(peer, header string, lines ...string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
	r.RemoteAddr = peer
	for _, l := range lines {
		r.Header.Add(header, l)
	}
	return r
}

func TestForwardedFor(t *testing.T) {
	const proxy = "127.0.0.1:40000"
	for _, tc := range []struct {
		name  string
		hops  int
		peer  string
		lines []string
		want  string
	}{
		{"one proxy", 1, proxy, []string{"192.0.2.7"}, "192.0.2.7"},
		{"no header: the proxy itself", 1, proxy, nil, "127.0.0.1"},
		// Spoofing: whatever the client wrote sits left of what the proxy
		// appended, in its line or in lines of its own.
		{"client's entry in the line", 1, proxy, []string{"6.6.6.6, 192.0.2.7"}, "192.0.2.7"},
		{"client's first line, proxy's second line", 1, proxy, []string{"6.6.6.6", "192.0.2.7"}, "192.0.2.7"},
		{"client's lines and entries", 1, proxy, []string{"6.6.6.6, 7.7.7.7", "8.8.8.8", "192.0.2.7"}, "192.0.2.7"},
		{"client's empty line", 1, proxy, []string{"", "192.0.2.7"}, "192.0.2.7"},
		{"client's open quote", 1, proxy, []string{`"6.6.6.6, 192.0.2.7`}, "192.0.2.7"},
		{"two proxies", 2, proxy, []string{"6.6.6.6, 192.0.2.7, 10.0.0.2"}, "192.0.2.7"},
		{"two proxies, lines", 2, proxy, []string{"6.6.6.6, 192.0.2.7", "10.0.0.2"}, "192.0.2.7"},
		{"two proxies, a line each", 2, proxy, []string{"6.6.6.6", "192.0.2.7", "10.0.0.2"}, "192.0.2.7"},
		// Fewer hops than configured: the entries cannot all be vouched
		// for, so the request shares the nearest proxy's budget.
		{"fewer entries than hops", 2, proxy, []string{"192.0.2.7"}, "127.0.0.1"},
		{"fewer entries than hops over lines", 3, proxy, []string{"192.0.2.7", "10.0.0.2"}, "127.0.0.1"},
		// A peer outside the proxies' networks is keyed by itself,
		// whatever it claims.
		{"not from a proxy", 1, "198.51.100.4:5555", []string{"192.0.2.7"}, "198.51.100.4"},
		{"not from a proxy, IPv6", 1, "[2001:db8::9]:5555", []string{"192.0.2.7"}, "2001:db8::9"},
		{"peer without a port", 1, "198.51.100.4", []string{"192.0.2.7"}, "198.51.100.4"},
		{"peer not an address", 1, "pipe", []string{"192.0.2.7"}, "pipe"},
		{"no peer", 1, "", []string{"192.0.2.7"}, ""},
		{"IPv6 proxy", 1, "[::1]:40000", []string{"192.0.2.7"}, "192.0.2.7"},
		{"IPv4-mapped proxy", 1, "[::ffff:127.0.0.1]:40000", []string{"192.0.2.7"}, "192.0.2.7"},
		// Garbage where the client's address should be.
		{"unknown", 1, proxy, []string{"unknown"}, "127.0.0.1"},
		{"obfuscated", 1, proxy, []string{"_hidden"}, "127.0.0.1"},
		{"empty entry", 1, proxy, []string{"192.0.2.7,"}, "127.0.0.1"},
		{"empty line", 1, proxy, []string{""}, "127.0.0.1"},
		{"bad port", 1, proxy, []string{"192.0.2.7:http"}, "127.0.0.1"},
		{"host name", 1, proxy, []string{"client.example"}, "127.0.0.1"},
		{"garbage left of the entry", 1, proxy, []string{"\x00; drop, 192.0.2.7"}, "192.0.2.7"},
		// One client, one key, however its address is written.
		{"IPv4 with port", 1, proxy, []string{" 192.0.2.7:51234 "}, "192.0.2.7"},
		{"IPv6", 1, proxy, []string{"2001:db8::1"}, "2001:db8::1"},
		{"IPv6 long form", 1, proxy, []string{"2001:0DB8:0:0:0:0:0:1"}, "2001:db8::1"},
		{"IPv6 bracketed", 1, proxy, []string{"[2001:db8::1]"}, "2001:db8::1"},
		{"IPv6 with port", 1, proxy, []string{"[2001:db8::1]:443"}, "2001:db8::1"},
		{"IPv6 with zone", 1, proxy, []string{"fe80::1%eth0"}, "fe80::1"},
		{"IPv4-mapped", 1, proxy, []string{"::ffff:192.0.2.7"}, "192.0.2.7"},
		{"IPv6 unbracketed with port is not an address", 1, proxy, []string{"2001:db8::1:443:1:1:1:1"}, "127.0.0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := ratelimit.ForwardedFor(tc.hops, loopbacks...)
			if got := key(request(tc.peer, "X-Forwarded-For", tc.lines...)); got != tc.want {
				t.Errorf("key = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestForwarded(t *testing.T) {
	const proxy = "127.0.0.1:40000"
	for _, tc := range []struct {
		name  string
		hops  int
		peer  string
		lines []string
		want  string
	}{
		{"one proxy", 1, proxy, []string{"for=192.0.2.7"}, "192.0.2.7"},
		{"with other parameters", 1, proxy, []string{"by=10.0.0.1;for=192.0.2.7;proto=https"}, "192.0.2.7"},
		{"name in capitals", 1, proxy, []string{"For=192.0.2.7"}, "192.0.2.7"},
		{"quoted IPv6 with port", 1, proxy, []string{`for="[2001:db8:cafe::17]:4711"`}, "2001:db8:cafe::17"},
		{"quoted IPv4 with port", 1, proxy, []string{`for="192.0.2.7:4711"`}, "192.0.2.7"},
		{"client's element", 1, proxy, []string{"for=6.6.6.6, for=192.0.2.7"}, "192.0.2.7"},
		{"client's line", 1, proxy, []string{"for=6.6.6.6", "for=192.0.2.7"}, "192.0.2.7"},
		{"client's quoted comma", 1, proxy, []string{`for=6.6.6.6;host="a, b", for=192.0.2.7`}, "192.0.2.7"},
		{"client's open quote", 1, proxy, []string{`for="6.6.6.6, for=192.0.2.7`}, "192.0.2.7"},
		{"client's quoted comma, two proxies", 2, proxy, []string{`for=6.6.6.6, for=192.0.2.7;host="a,b", for=10.0.0.2`}, "192.0.2.7"},
		{"two proxies", 2, proxy, []string{"for=6.6.6.6, for=192.0.2.7", "for=10.0.0.2"}, "192.0.2.7"},
		{"fewer elements than hops", 2, proxy, []string{"for=192.0.2.7"}, "127.0.0.1"},
		{"not from a proxy", 1, "198.51.100.4:5555", []string{"for=192.0.2.7"}, "198.51.100.4"},
		{"unknown", 1, proxy, []string{"for=unknown"}, "127.0.0.1"},
		{"obfuscated", 1, proxy, []string{`for="_gazonk"`}, "127.0.0.1"},
		{"no for", 1, proxy, []string{"for=6.6.6.6, proto=https"}, "127.0.0.1"},
		{"unclosed quote", 1, proxy, []string{`for="192.0.2.7`}, "127.0.0.1"},
		{"X-Forwarded-For is not read", 1, proxy, nil, "127.0.0.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := request(tc.peer, "Forwarded", tc.lines...)
			r.Header.Set("X-Forwarded-For", "203.0.113.50")
			if got := ratelimit.Forwarded(tc.hops, loopbacks...)(r); got != tc.want {
				t.Errorf("key = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestForwardedForMappedNetwork: a proxy network written as IPv4-mapped
// IPv6 admits the IPv4 peers it means.
func TestForwardedForMappedNetwork(t *testing.T) {
	key := ratelimit.ForwardedFor(1, netip.MustParsePrefix("::ffff:10.0.0.0/104"))
	for peer, want := range map[string]string{
		"10.1.2.3:4000":          "192.0.2.7",
		"[::ffff:10.1.2.3]:4000": "192.0.2.7",
		"11.0.0.1:4000":          "11.0.0.1",
	} {
		if got := key(request(peer, "X-Forwarded-For", "192.0.2.7")); got != want {
			t.Errorf("from %s: key = %q, want %q", peer, got, want)
		}
	}
}

func TestForwardedForMisuse(t *testing.T) {
	for name, f := range map[string]func(){
		"no hops":       func() { ratelimit.ForwardedFor(0, loopbacks...) },
		"negative hops": func() { ratelimit.Forwarded(-1, loopbacks...) },
		"no proxies":    func() { ratelimit.ForwardedFor(1) },
		"zero network":  func() { ratelimit.Forwarded(1, netip.Prefix{}) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		})
	}
}

// TestForwardedForEndpoint is the spoof a red team ran against the README's
// old Header.Get key, over real HTTP: a proxy in the style of HAProxy's
// forwardfor adds its own X-Forwarded-For line after the client's, and the
// client writes a new address into its line on every request. With a
// budget of 2, two requests are admitted, not fifty; another client gets
// a budget of its own.
func TestForwardedForEndpoint(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()},
		mcp.WithClientRateLimit(ratelimit.NewMemory(0.001, 2), ratelimit.ForwardedFor(1, loopbacks...)))
	ts := httptest.NewServer(h) // the test's client connects from loopback: it plays the proxy
	defer ts.Close()
	send := func(client, spoof string) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		req.Header.Add("X-Forwarded-For", spoof)  // the client's line
		req.Header.Add("X-Forwarded-For", client) // the proxy's line
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	admitted := 0
	for i := range 50 {
		if send("192.0.2.7", fmt.Sprintf("10.1.%d.%d", i/250, i%250)) == http.StatusOK {
			admitted++
		}
	}
	if admitted != 2 {
		t.Errorf("%d of 50 spoofed requests admitted against a budget of 2", admitted)
	}
	if code := send("192.0.2.8", "192.0.2.7"); code != http.StatusOK {
		t.Errorf("another client: %d", code)
	}
}
