package storetest

import (
	"sync"
	"testing"
	"time"
)

// Fleet is what a suite's open function returns: handles on one new, empty
// store — one handle, or several as a fleet's replicas hold (each with its
// own client, so that the suite sees what crosses replicas) — and the
// store's clock.
type Fleet[S any] struct {
	Replicas []S
	// Clock is the time the store reads, or nil when it reads the
	// system's: the suite then sleeps (see the package comment).
	Clock Clock
}

// Clock is the time a store under test reads: Now is its present, and
// Sleep lets at least d pass for it.
type Clock interface {
	Now() time.Time
	Sleep(d time.Duration)
}

// ManualClock is a Clock that moves only when slept: give its Now to an
// in-memory store (mcp's guard, ratelimit.WithClock). It is safe for
// concurrent use.
type ManualClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewManualClock returns a ManualClock that reads an arbitrary fixed
// instant until slept.
func NewManualClock() *ManualClock {
	return &ManualClock{now: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
}

// Now implements Clock.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Sleep implements Clock: it moves the clock on by d, at once.
func (c *ManualClock) Sleep(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// systemClock is the clock of a store that reads the system's.
type systemClock struct{}

func (systemClock) Now() time.Time        { return time.Now() }
func (systemClock) Sleep(d time.Duration) { time.Sleep(d) }

// check returns fl's clock (the system's when it names none) and whether
// the test controls it, and fails t when fl has no replica.
func check[S any](t *testing.T, fl Fleet[S]) (Clock, bool) {
	t.Helper()
	if len(fl.Replicas) == 0 {
		t.Fatal("storetest: the open function returned no replicas")
	}
	if fl.Clock == nil {
		return systemClock{}, false
	}
	return fl.Clock, true
}

// replica returns the i-th replica, round the fleet.
func replica[S any](fl Fleet[S], i int) S { return fl.Replicas[i%len(fl.Replicas)] }
