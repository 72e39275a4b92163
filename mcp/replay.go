package mcp

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ReplayGuard makes each destructive-tool confirmation single-use. Consume
// returns first=false when nonce was consumed before; it must remember
// nonce until `until`, the last instant the confirmation's requestState
// can still be opened (its expiry plus the sealer's clock skew), and
// return an error when it cannot decide — the call is then refused with
// 503 and never runs.
//
// Every endpoint has one: an in-memory guard unless WithReplayGuard gives
// another. The in-memory guard is per process; replicas behind a load
// balancer need one they share (package mcp/redisstore has a Redis one),
// or one confirmation may run once per replica.
type ReplayGuard interface {
	Consume(ctx context.Context, nonce []byte, until time.Time) (first bool, err error)
}

// WithReplayGuard sets the guard that makes confirmations single-use
// (default: one in memory, per process).
func WithReplayGuard(g ReplayGuard) HandlerOption {
	if g == nil {
		panic("mcp: WithReplayGuard needs a guard; use WithoutReplayGuard to turn it off")
	}
	return handlerOptionFunc(func(c *handlerConfig) { c.replay, c.replayOff = g, "" })
}

// WithoutReplayGuard turns single-use confirmations off, for a host whose
// destructive routes all deduplicate on the Idempotency-Key they receive
// (a replay of one confirmation carries the same key). reason says why; it
// is logged when the handler is built, so the choice stays visible. It
// panics on an empty reason.
func WithoutReplayGuard(reason string) HandlerOption {
	if reason == "" {
		panic("mcp: WithoutReplayGuard needs a reason")
	}
	return handlerOptionFunc(func(c *handlerConfig) { c.replay, c.replayOff = nil, reason })
}

// memoryGuard is the default ReplayGuard: used nonces in memory until their
// states can no longer open. It holds at most max entries; when that many
// are live it refuses to decide (and the confirmed call is answered 503)
// rather than forget one and let it be replayed.
type memoryGuard struct {
	mu    sync.Mutex
	used  map[string]time.Time
	order []memoryEntry // in the order consumed; expiries are nearly sorted
	max   int
	now   func() time.Time
}

type memoryEntry struct {
	nonce string
	until time.Time
}

func newMemoryGuard(max int) *memoryGuard {
	return &memoryGuard{used: map[string]time.Time{}, max: max, now: time.Now}
}

var errGuardFull = errors.New("mcp: the in-memory replay guard is full of live confirmations")

func (g *memoryGuard) Consume(_ context.Context, nonce []byte, until time.Time) (bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	g.expire(now)
	if _, ok := g.used[string(nonce)]; ok {
		return false, nil
	}
	if len(g.used) >= g.max {
		g.sweep(now)
		if len(g.used) >= g.max {
			return false, errGuardFull
		}
	}
	g.used[string(nonce)] = until
	g.order = append(g.order, memoryEntry{string(nonce), until})
	return true, nil
}

// expire drops the oldest entries whose states can no longer open.
func (g *memoryGuard) expire(now time.Time) {
	i := 0
	for ; i < len(g.order) && now.After(g.order[i].until); i++ {
		if u, ok := g.used[g.order[i].nonce]; ok && !u.After(g.order[i].until) {
			delete(g.used, g.order[i].nonce)
		}
	}
	if i > 0 {
		g.order = append(g.order[:0], g.order[i:]...)
	}
}

// sweep drops every expired entry, wherever it sits.
func (g *memoryGuard) sweep(now time.Time) {
	kept := g.order[:0]
	for _, e := range g.order {
		if now.After(e.until) {
			delete(g.used, e.nonce)
			continue
		}
		kept = append(kept, e)
	}
	g.order = kept
}
