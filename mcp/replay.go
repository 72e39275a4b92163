package mcp

import (
	"context"
	"time"
)

// ReplayGuard makes each destructive-tool confirmation run its route at
// most once while the guard is intact and the replica running it lives,
// and lets a retry finish what a replica that died mid-call left. It works
// in two phases:
//
//   - Claim is asked when a confirmed call is about to run. It returns a
//     token when this call may run the route: nobody claimed nonce, or the
//     lease of the call that did lapsed (its replica died, or never heard
//     that its claim was stored) — the route then runs again, with the
//     same Idempotency-Key. It returns the outcome recorded by Complete
//     when the confirmation already ran, and neither while another call
//     holds a live lease. The claim's lease lasts lease.
//   - Renew extends the lease of token by lease while the route runs; held
//     is false when token no longer holds it.
//   - Complete records outcome, a short summary the endpoint writes and
//     reads back (under 100 bytes), in place of token's lease, unless
//     another call took the lease over.
//
// The guard must remember a completed nonce until `until`, the last
// instant the confirmation's requestState can still be opened (its expiry
// plus the sealer's clock skew). An error means the guard cannot decide:
// a failed Claim answers 503 and nothing runs; a failed Renew or Complete
// is logged, and the lease lapses, so a retry runs the route again with
// the same Idempotency-Key.
//
// Every endpoint has one: an in-memory guard unless WithReplayGuard gives
// another. The in-memory guard is per process, and states whose single use
// it enforces are bound to it: another replica or a restarted process
// asks for the confirmation again. Replicas behind a load balancer need a
// guard they share (package mcp/redisstore has a Redis one).
type ReplayGuard interface {
	Claim(ctx context.Context, nonce []byte, until time.Time, lease time.Duration) (token string, outcome []byte, err error)
	Renew(ctx context.Context, nonce []byte, token string, lease time.Duration) (held bool, err error)
	Complete(ctx context.Context, nonce []byte, token string, outcome []byte, until time.Time) error
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
