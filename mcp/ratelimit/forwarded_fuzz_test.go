package ratelimit_test

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/mcp/ratelimit"
)

// FuzzForwarded: what a client writes left of the entries its proxies
// append never changes its key, in X-Forwarded-For or Forwarded, in the
// same line or in lines of its own; and the key is always an address
// (the chosen entry's or the proxy's), never text the client chose.
func FuzzForwarded(f *testing.F) {
	for _, s := range []struct {
		client string
		a, b   []byte
		hops   uint8
	}{
		{"1.2.3.4", []byte{192, 0, 2, 7}, []byte{10, 0, 0, 1}, 1},
		{`for="[2001:db8::1]:4711", for=unknown`, []byte{192, 0, 2, 7}, nil, 2},
		{`for="a,b`, []byte{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, []byte{127, 0, 0, 1}, 2},
		{`"\`, []byte{1, 1, 1, 1}, []byte{2, 2, 2, 2}, 1},
	} {
		f.Add(s.client, s.a, s.b, s.hops, false)
		f.Add(s.client, s.a, s.b, s.hops, true)
	}
	f.Fuzz(func(t *testing.T, client string, a, b []byte, hops uint8, sameLine bool) {
		// What the proxies write: up to two well-formed entries.
		var entries []netip.Addr
		for _, raw := range [][]byte{a, b} {
			if ip, ok := netip.AddrFromSlice(raw); ok {
				entries = append(entries, ip)
			}
		}
		if len(entries) == 0 {
			return
		}
		h := int(hops%3) + 1
		if strings.ContainsAny(client, "\r\n\x00") {
			return // not a header value net/http would deliver
		}
		for _, header := range []string{"X-Forwarded-For", "Forwarded"} {
			key := ratelimit.ForwardedFor(h, loopbacks...)
			if header == "Forwarded" {
				key = ratelimit.Forwarded(h, loopbacks...)
			}
			var proxied []string
			for _, e := range entries {
				if header == "Forwarded" {
					proxied = append(proxied, `for="`+netip.AddrPortFrom(e, 1).String()+`"`)
				} else {
					proxied = append(proxied, e.String())
				}
			}
			line := strings.Join(proxied, ", ")
			want := key(request("127.0.0.1:1", header, line))
			var got string
			if sameLine {
				got = key(request("127.0.0.1:1", header, client+", "+line))
			} else {
				got = key(request("127.0.0.1:1", header, client, line))
			}
			if h <= len(entries) && got != want {
				t.Fatalf("%s, %d hops: the client's %q changed the key from %q to %q", header, h, client, want, got)
			}
			if _, err := netip.ParseAddr(got); err != nil {
				t.Fatalf("%s: key %q is not an address", header, got)
			}
		}
	})
}
