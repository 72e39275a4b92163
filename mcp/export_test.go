package mcp

import "time"

// Hooks for the external tests of this directory (compiled only with them).

// NewMemoryGuardForTest returns the default in-memory guard, so that tests
// can share one between handlers (replicas) or hold it across a "restart".
func NewMemoryGuardForTest(max int) ReplayGuard { return newMemoryGuard(max) }

// WithLeaseForTest shortens the lease of a confirmation's claim.
func WithLeaseForTest(d time.Duration) HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) { c.lease = d })
}

// SetFleetRetryForTest sets how long the fleet follower first waits to
// subscribe again; the returned function restores it.
func SetFleetRetryForTest(d time.Duration) func() {
	old := fleetRetry
	fleetRetry = d
	return func() { fleetRetry = old }
}

// SetListenLifetimeForTest shortens a task listen stream's lifetime; the
// returned function restores it.
func SetListenLifetimeForTest(d time.Duration) func() {
	old := listenLifetime
	listenLifetime = d
	return func() { listenLifetime = old }
}

// SlotWaitersForTest is how many requests of h wait for a concurrency
// slot (a 2025 call whose answer came, before it runs again).
func SlotWaitersForTest(h *Handler) int {
	if h.cfg.admit == nil {
		return 0
	}
	return h.cfg.admit.waiting()
}

// SetRerunSlotWaitForTest shortens how long an answered 2025 call waits
// for a concurrency slot; the returned function restores it.
func SetRerunSlotWaitForTest(d time.Duration) func() {
	old := rerunSlotWait
	rerunSlotWait = d
	return func() { rerunSlotWait = old }
}

// NewMemoryGuardAtForTest is NewMemoryGuardForTest on a clock of the
// test's, for the store contract suite.
func NewMemoryGuardAtForTest(max int, now func() time.Time) ReplayGuard {
	g := newMemoryGuard(max)
	g.now = now
	return g
}

// NewMemoryBusForTest returns the default in-process AnswerBus, for the
// store contract suite.
func NewMemoryBusForTest() AnswerBus { return newMemoryBus() }

// NewMemoryEventBusForTest returns the default in-process EventBus, for
// the store contract suite.
func NewMemoryEventBusForTest() EventBus { return newMemoryEventBus() }

// NewMemorySessionStoreForTest returns the default in-memory SessionStore
// holding at most max sessions, on a clock of the test's.
func NewMemorySessionStoreForTest(max int, now func() time.Time) SessionStore {
	s := newMemorySessionStore(max)
	s.now = now
	return s
}

// SetStreamWriteTimeoutForTest shortens how far each write of a
// notification stream moves its write deadline; the returned function
// restores it.
func SetStreamWriteTimeoutForTest(d time.Duration) func() {
	old := streamWriteTimeout.Swap(int64(d))
	return func() { streamWriteTimeout.Store(old) }
}

// CanonicalURI is canonicalURI, for the tests of the outer package.
func CanonicalURI(uri string) string { return canonicalURI(uri) }
