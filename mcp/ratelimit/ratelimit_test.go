package ratelimit

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

func TestMemory_Bucket(t *testing.T) {
	c := &clock{t: time.Unix(1_000_000, 0)}
	m := NewMemory(2, 3, WithClock(c.now)) // 3 tokens, 2 per second
	ctx := context.Background()
	for i := 2; i >= 0; i-- {
		d, _ := m.Take(ctx, "k", 1)
		if !d.Allowed || d.Limit != 3 || d.Remaining != i {
			t.Fatalf("take %d: %+v", 3-i, d)
		}
	}
	d, _ := m.Take(ctx, "k", 1)
	if d.Allowed || d.Remaining != 0 || d.RetryAfter != 500*time.Millisecond {
		t.Fatalf("exhausted: %+v", d)
	}
	if want := c.t.Add(1500 * time.Millisecond); !d.Reset.Equal(want) {
		t.Errorf("Reset = %v, want %v", d.Reset, want)
	}
	// Just before one token is back: still refused; at it: admitted.
	c.advance(499 * time.Millisecond)
	if d, _ := m.Take(ctx, "k", 1); d.Allowed {
		t.Fatalf("admitted before the refill: %+v", d)
	}
	c.advance(time.Millisecond)
	if d, _ := m.Take(ctx, "k", 1); !d.Allowed || d.Remaining != 0 {
		t.Fatalf("not admitted after the refill: %+v", d)
	}
	// Other keys are independent.
	if d, _ := m.Take(ctx, "other", 1); !d.Allowed || d.Remaining != 2 {
		t.Fatalf("other key: %+v", d)
	}
	// A long idle period refills to the burst, never past it.
	c.advance(time.Hour)
	if d, _ := m.Take(ctx, "k", 1); d.Remaining != 2 || !d.Reset.Equal(c.t.Add(500*time.Millisecond)) {
		t.Fatalf("after idle: %+v", d)
	}
}

func TestMemory_Cost(t *testing.T) {
	c := &clock{t: time.Unix(1_000_000, 0)}
	m := NewMemory(1, 5, WithClock(c.now))
	ctx := context.Background()
	if d, _ := m.Take(ctx, "k", 5); !d.Allowed || d.Remaining != 0 {
		t.Fatalf("cost at the burst: %+v", d)
	}
	c.advance(time.Hour)
	if d, _ := m.Take(ctx, "k", 6); d.Allowed || d.RetryAfter <= 0 || d.Remaining != 5 {
		t.Fatalf("cost past the burst: %+v", d)
	}
}

func TestMemory_MaxKeys(t *testing.T) {
	c := &clock{t: time.Unix(1_000_000, 0)}
	m := NewMemory(1, 2, WithClock(c.now), WithMaxKeys(64))
	ctx := context.Background()
	for i := range 1000 {
		m.Take(ctx, strconv.Itoa(i), 1)
		if m.Len() > 64 {
			t.Fatalf("%d keys tracked, bound 64", m.Len())
		}
	}
	// Full buckets go first: after a refill, a new key evicts them all.
	c.advance(time.Hour)
	m.Take(ctx, "fresh", 1)
	if m.Len() != 1 {
		t.Errorf("after refill and eviction, %d keys", m.Len())
	}
}

// TestMemory_EvictionKeepsDebt: with few full buckets, the fullest of the
// rest go: a caller that spent its burst keeps its debt.
func TestMemory_EvictionKeepsDebt(t *testing.T) {
	c := &clock{t: time.Unix(1_000_000, 0)}
	m := NewMemory(0.001, 10, WithClock(c.now), WithMaxKeys(64))
	ctx := context.Background()
	for i := range 64 {
		spend := 1 + i%9 // 1 to 9 of the burst of 10
		if i < 32 {
			spend = 10 // half the callers spent everything
		}
		m.Take(ctx, "k"+strconv.Itoa(i), spend)
	}
	m.Take(ctx, "new", 1) // at the bound: evicts down to 7/8
	if n := m.Len(); n > 64-64/8 {
		t.Fatalf("%d keys after eviction", n)
	}
	for i := range 32 {
		if d, _ := m.Take(ctx, "k"+strconv.Itoa(i), 1); d.Allowed {
			t.Errorf("k%d spent its burst and was admitted again after an eviction", i)
		}
	}
}

func TestMemory_Concurrent(t *testing.T) {
	m := NewMemory(0.001, 100) // effectively no refill during the test
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if d, _ := m.Take(context.Background(), "k", 1); d.Allowed {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if allowed != 100 {
		t.Errorf("%d of 400 admitted, want exactly the burst of 100", allowed)
	}
}

func TestNewMemory_Misuse(t *testing.T) {
	for _, c := range []struct {
		rate  float64
		burst int
	}{{0, 1}, {-1, 1}, {1, 0}, {1, -1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewMemory(%v, %d) did not panic", c.rate, c.burst)
				}
			}()
			NewMemory(c.rate, c.burst)
		}()
	}
}

func TestDecision_SetHeaders(t *testing.T) {
	reset := time.Unix(2_000_000_000, 300_000_000)
	h := http.Header{}
	Decision{Allowed: true, Limit: 10, Remaining: 3, Reset: reset}.SetHeaders(h)
	if h.Get("X-RateLimit-Limit") != "10" || h.Get("X-RateLimit-Remaining") != "3" || h.Get("X-RateLimit-Reset") != "2000000001" || h.Get("Retry-After") != "" {
		t.Errorf("allowed: %v", h)
	}
	h = http.Header{}
	Decision{Limit: 10, Remaining: -2, Reset: reset, RetryAfter: 1500 * time.Millisecond}.SetHeaders(h)
	if h.Get("X-RateLimit-Remaining") != "0" || h.Get("Retry-After") != "2" {
		t.Errorf("refused: %v", h)
	}
	h = http.Header{}
	Decision{Limit: 10, Reset: reset}.SetHeaders(h)
	if h.Get("Retry-After") != "1" {
		t.Errorf("refused with no wait named: %v", h)
	}
	if PrincipalKey("k") == ClientKey("k") {
		t.Error("a principal's and a client's budgets share a key")
	}
}
