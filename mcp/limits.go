package mcp

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// Limits bound what requests may cost. A zero field keeps its default; a
// negative one panics in WithLimits.
type Limits struct {
	// BodyBytes bounds a request body (default 1 MiB). A larger body is
	// answered 413 before it is parsed.
	BodyBytes int64
	// Concurrent bounds how many requests are served at once (default:
	// no bound). A request beyond it is answered 503 with Retry-After at
	// once rather than queued. A request takes its slot only once its
	// body is read and its caller authenticated, so clients trickling
	// their bodies hold none; and it gives the slot back while it waits
	// for something that is not this process's work (a 2025 client's
	// answer: LegacyInput; a task listen stream between its reads), so
	// waits never starve the endpoint.
	Concurrent int
	// PerCaller bounds the slots one caller may hold at once — one
	// principal, or one client key without authentication — so no caller
	// can take every slot (default: a quarter of Concurrent, at least 1).
	// It needs Concurrent: WithLimits panics on PerCaller alone.
	PerCaller int
	// ResponseBytes bounds what one route may write, or one function
	// return, for one call (default 4 MiB); a larger response becomes an
	// internal error, logged.
	ResponseBytes int64
	// ArgumentValues bounds the JSON values (objects, arrays, strings,
	// numbers, literals) in one call's arguments (default 10,000), so
	// that validating them costs a bounded amount of time and memory
	// whatever the body holds. More is an isError result.
	ArgumentValues int
}

// The defaults of Limits.
const (
	defaultBodyBytes      = 1 << 20
	defaultResponseBytes  = 4 << 20
	defaultArgumentValues = 10_000
)

func defaultLimits() Limits {
	return Limits{BodyBytes: defaultBodyBytes, ResponseBytes: defaultResponseBytes, ArgumentValues: defaultArgumentValues}
}

// admission hands out the concurrency slots: at most limit at once, and at
// most perCaller to one caller.
type admission struct {
	limit, perCaller int

	mu    sync.Mutex
	inUse int
	held  map[string]int
	// freed is closed (and dropped) by the next release while someone
	// waits for a slot in acquireWithin; waiters counts them.
	freed   chan struct{}
	waiters int
}

func newAdmission(l Limits) *admission {
	if l.Concurrent == 0 {
		return nil
	}
	per := l.PerCaller
	if per == 0 {
		per = max(1, l.Concurrent/4)
	}
	return &admission{limit: l.Concurrent, perCaller: per, held: map[string]int{}}
}

// acquire takes a slot for caller, or returns the 503 to answer.
func (a *admission) acquire(caller string) *Error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.acquireLocked(caller)
}

func (a *admission) acquireLocked(caller string) *Error {
	if a.inUse >= a.limit {
		return overloaded("overloaded")
	}
	if a.held[caller] >= a.perCaller {
		return overloaded("caller_overloaded")
	}
	a.inUse++
	a.held[caller]++
	return nil
}

// acquireWithin takes a slot for caller as acquire does, waiting up to d
// for one to be released, or until ctx ends. It returns the 503 of the
// last attempt when none came.
func (a *admission) acquireWithin(ctx context.Context, caller string, d time.Duration) *Error {
	var deadline <-chan time.Time
	for {
		a.mu.Lock()
		e := a.acquireLocked(caller)
		if e == nil {
			a.mu.Unlock()
			return nil
		}
		if a.freed == nil {
			a.freed = make(chan struct{})
		}
		freed := a.freed
		a.waiters++
		a.mu.Unlock()
		if deadline == nil {
			t := time.NewTimer(d)
			defer t.Stop()
			deadline = t.C
		}
		var stop bool
		select {
		case <-freed:
		case <-deadline:
			stop = true
		case <-ctx.Done():
			stop = true
		}
		a.mu.Lock()
		a.waiters--
		a.mu.Unlock()
		if stop {
			return e
		}
	}
}

func (a *admission) release(caller string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.inUse--
	if a.held[caller]--; a.held[caller] == 0 {
		delete(a.held, caller)
	}
	if a.freed != nil {
		// Every waiter tries again; those that find no slot wait anew.
		close(a.freed)
		a.freed = nil
	}
}

// waiting is how many callers wait in acquireWithin (for tests).
func (a *admission) waiting() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.waiters
}

// overloaded is the 503 of a request that found no slot: the server's, or
// the caller's share of them.
func overloaded(reason string) *Error { return unavailable("Server overloaded", reason) }

// unavailable is a 503 with Retry-After: 1 s (the request may be retried
// as it is), reason naming what could not serve it.
func unavailable(message, reason string) *Error {
	e := httpError(http.StatusServiceUnavailable, codeUnavailable, message).
		WithData(map[string]any{"reason": reason, "retryAfterMs": 1000})
	e.retryAfter = time.Second
	return e
}
