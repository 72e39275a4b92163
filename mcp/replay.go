package mcp

import (
	"context"
	"time"
)

// ReplayGuard makes each destructive-tool confirmation run its route at
// most once while the guard is intact and the replica running it lives,
// lets a retry finish what a replica that died mid-call left, and tells
// the user who is asked again for a call that already ran that it did. It
// works in two phases, and keeps one record more:
//
//   - Claim is asked when a confirmed call is about to run, for caller
//     (the principal's rate key, the key its rate budget and concurrency
//     share use: a guard may cap what one caller holds). It returns a
//     token when this call may run the route: nobody claimed nonce, its
//     claim was released, or the lease of the call that held it lapsed
//     (its replica died, or never heard that its claim was stored) — the
//     route then runs again, with the same Idempotency-Key. It returns the
//     outcome recorded by Complete when the confirmation already ran, and
//     neither while another call holds a live lease. The claim's lease
//     lasts lease.
//   - Renew extends the lease of token by lease while the route runs; held
//     is false when token no longer holds it.
//   - Complete records outcome, a short summary the endpoint writes and
//     reads back (under 100 bytes), in place of token's lease, unless
//     another call holds a live lease on nonce or an outcome is recorded
//     for it already. A nil outcome releases token's
//     lease instead: the call was interrupted (its caller left, or it was
//     cancelled or timed out) before the route finished, which is no
//     outcome, and the next Claim of nonce runs the route again at once.
//     When call is not "", the route ran: outcome is also kept under call
//     for LastRunTTL (replacing an earlier one, whoever held the lease), so
//     that LastRun finds it.
//   - LastRun returns the outcome last kept under call, or nil. call names
//     what was confirmed, not one confirmation: the caller's rate key, the
//     workspace, the tool and a digest of its arguments, hashed by the
//     endpoint into an opaque string of 43 URL-safe characters. The
//     endpoint asks before it asks a confirmation question, and a question
//     for a call that ran within LastRunTTL says when it ran and what its
//     route answered: a 2025 client whose stream was lost after the route
//     ran asks again with a new confirmation, and the user then decides
//     knowing it ran.
//
// The guard must remember a completed nonce until `until`, the last
// instant the confirmation's requestState can still be opened (its expiry
// plus the sealer's clock skew). An error means the guard cannot decide:
// a failed Claim or LastRun answers 503 and nothing runs (nor is asked); a
// failed Renew or Complete is logged, and the lease lapses, so a retry
// runs the route again with the same Idempotency-Key.
//
// Every endpoint has one: an in-memory guard unless WithReplayGuard gives
// another. The in-memory guard is per process, and states whose single use
// it enforces are bound to it: another replica or a restarted process
// asks for the confirmation again, and knows nothing of the calls that ran
// elsewhere. Replicas behind a load balancer need a guard they share
// (package mcp/redisstore has a Redis one).
type ReplayGuard interface {
	Claim(ctx context.Context, caller string, nonce []byte, until time.Time, lease time.Duration) (token string, outcome []byte, err error)
	Renew(ctx context.Context, nonce []byte, token string, lease time.Duration) (held bool, err error)
	Complete(ctx context.Context, nonce []byte, token string, outcome []byte, until time.Time, call string) error
	LastRun(ctx context.Context, call string) (outcome []byte, err error)
}

// LastRunTTL is how long a ReplayGuard keeps the outcome of a confirmed
// call under what was confirmed (Complete's call), for LastRun.
const LastRunTTL = 10 * time.Minute
