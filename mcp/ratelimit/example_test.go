package ratelimit_test

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"

	"github.com/mcpdual/mcpdual/mcp/ratelimit"
)

// A bucket of two tokens refilled at one per second: the third request in
// a burst is refused and told when to retry.
func ExampleNewMemory() {
	l := ratelimit.NewMemory(1, 2)
	for range 3 {
		d, _ := l.Take(context.Background(), "principal-1", 1)
		fmt.Println(d.Allowed, d.Limit, d.Remaining, d.RetryAfter > 0)
	}
	// Output:
	// true 2 1 false
	// true 2 0 false
	// false 2 0 true
}

// Behind one proxy on this host, which appends the address of its peer to
// X-Forwarded-For: a caller is keyed by that address, and what the caller
// wrote into the header itself is passed over.
func ExampleForwardedFor() {
	key := ratelimit.ForwardedFor(1, netip.MustParsePrefix("127.0.0.1/32"))

	r, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:8080/mcp", nil)
	r.RemoteAddr = "127.0.0.1:51000"             // the proxy
	r.Header.Add("X-Forwarded-For", "10.9.8.7")  // the caller's claim
	r.Header.Add("X-Forwarded-For", "192.0.2.7") // the proxy's line
	fmt.Println(key(r))

	r.RemoteAddr = "198.51.100.4:40000" // not the proxy: its headers count for nothing
	fmt.Println(key(r))
	// Output:
	// 192.0.2.7
	// 198.51.100.4
}
