package mcp

import (
	"context"
	"testing"
	"time"
)

// TestMemoryGuard: a nonce is refused until its until has passed; expired
// entries make room; a guard full of live confirmations refuses to decide
// rather than forget one.
func TestMemoryGuard(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	g := newMemoryGuard(3)
	g.now = func() time.Time { return now }
	ctx := context.Background()
	consume := func(nonce string, until time.Time) (bool, error) { return g.Consume(ctx, []byte(nonce), until) }
	if first, err := consume("a", now.Add(time.Minute)); !first || err != nil {
		t.Fatalf("first use: %v %v", first, err)
	}
	if first, _ := consume("a", now.Add(time.Minute)); first {
		t.Fatal("a replay was first")
	}
	now = now.Add(time.Minute) // exactly until: the state still opens
	if first, _ := consume("a", now); first {
		t.Fatal("a replay at until was first")
	}
	consume("b", now.Add(time.Hour))
	consume("c", now.Add(time.Hour))
	// a is live until now; the guard is full.
	if _, err := consume("d", now.Add(time.Hour)); err == nil {
		t.Fatal("a full guard decided")
	}
	now = now.Add(time.Second) // a has expired: room for d
	if first, err := consume("d", now.Add(time.Hour)); !first || err != nil {
		t.Fatalf("after expiry: %v %v", first, err)
	}
	if len(g.used) != 3 || len(g.order) != 3 {
		t.Errorf("entries %d, order %d", len(g.used), len(g.order))
	}
}
