package ratelimit_test

import (
	"context"
	"fmt"

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
