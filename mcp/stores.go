package mcp

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/mcpdual/mcpdual/internal/panics"
)

// The stores an endpoint keeps state in, each beside its in-memory default:
// ReplayGuard (memoryGuard) and AnswerBus (memoryBus). Replicas share
// other implementations (package mcp/redisstore).

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

// memoryGuard is the default ReplayGuard: claims and outcomes in memory
// until their states can no longer open. It holds at most max entries,
// and at most perOwner of one caller's (the caller Claim is given; a claim
// for "" has only the total cap): when that many are live it refuses to
// decide (and the confirmed call is answered 503) rather than forget one
// and let it be replayed. The cap per caller keeps one tenant confirming
// at full speed from filling the guard and refusing every other tenant's
// confirmations. The record of runs (LastRun) has the same caps, but is
// only information: when full it forgets the oldest run of the caller
// holding the most. instance names this guard: states whose single use it
// enforces are bound to it, since no other process, nor this one after a
// restart, knows what it recorded.
type memoryGuard struct {
	mu       sync.Mutex
	used     map[string]*memoryClaim
	order    []memoryEntry // in the order claimed; expiries are nearly sorted
	max      int
	perOwner int
	owners   map[string]int // owner → its entries
	now      func() time.Time
	instance string

	runs      map[string]*memoryRun // call → its last run
	runOwners map[string][]string   // owner → its calls in runs, oldest first
}

// memoryClaim is one confirmation: its lease (token, until leaseEnd) while
// it runs, its outcome once it ran, and until when it must be kept.
type memoryClaim struct {
	token    string
	leaseEnd time.Time
	outcome  []byte
	until    time.Time
	owner    string // "": counted in the total only
}

type memoryEntry struct {
	nonce string
	until time.Time
}

// memoryRun is the last run of one call, kept LastRunTTL.
type memoryRun struct {
	outcome []byte
	expires time.Time
	owner   string
}

// memoryPerOwner is the share of the default guard one caller may hold:
// a thousand confirmations live at once (a confirmation is live until its
// state can no longer open).
const memoryPerOwner = 1_000

func newMemoryGuard(max int) *memoryGuard {
	return &memoryGuard{used: map[string]*memoryClaim{}, max: max, perOwner: min(max, memoryPerOwner), owners: map[string]int{},
		now: time.Now, instance: rand.Text(), runs: map[string]*memoryRun{}, runOwners: map[string][]string{}}
}

var (
	errGuardFull  = errors.New("mcp: the in-memory replay guard is full of live confirmations")
	errOwnerFull  = errors.New("mcp: the in-memory replay guard holds as many live confirmations of this caller as one caller may")
	errEmptyNonce = errors.New("mcp: replay guard: empty nonce")
)

// Claim implements ReplayGuard; owner's live entries are capped at
// perOwner ("": no owner, the total cap only).
func (g *memoryGuard) Claim(_ context.Context, owner string, nonce []byte, until time.Time, lease time.Duration) (string, []byte, error) {
	if len(nonce) == 0 {
		return "", nil, errEmptyNonce
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	g.expire(now)
	c := g.used[string(nonce)]
	switch {
	case c != nil && c.outcome != nil:
		return "", c.outcome, nil
	case c != nil && c.token != "" && !now.After(c.leaseEnd):
		return "", nil, nil
	case c != nil:
		// The lease lapsed (the holder died or lost touch), or was
		// released (the holder was interrupted). Take it over.
		c.token, c.leaseEnd = rand.Text(), now.Add(lease)
		return c.token, nil, nil
	}
	if len(g.used) >= g.max || (owner != "" && g.owners[owner] >= g.perOwner) {
		g.sweep(now)
		switch {
		case len(g.used) >= g.max:
			return "", nil, errGuardFull
		case owner != "" && g.owners[owner] >= g.perOwner:
			return "", nil, errOwnerFull
		}
	}
	c = &memoryClaim{token: rand.Text(), leaseEnd: now.Add(lease), until: until, owner: owner}
	g.used[string(nonce)] = c
	if owner != "" {
		g.owners[owner]++
	}
	g.order = append(g.order, memoryEntry{string(nonce), until})
	return c.token, nil, nil
}

func (g *memoryGuard) Renew(_ context.Context, nonce []byte, token string, lease time.Duration) (bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.used[string(nonce)]
	now := g.now()
	// A lapsed lease is no longer token's, even while nobody has taken it
	// over: anyone may claim it now, as a shared guard's expired key says.
	if c == nil || c.outcome != nil || c.token == "" || c.token != token || now.After(c.leaseEnd) {
		return false, nil
	}
	c.leaseEnd = now.Add(lease)
	return true, nil
}

func (g *memoryGuard) Complete(_ context.Context, nonce []byte, token string, outcome []byte, until time.Time, call string) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.used[string(nonce)]
	// An empty outcome is no outcome, as for the Redis guard: a release.
	ran := len(outcome) > 0
	if call != "" && ran {
		// The route ran, whoever holds the lease now.
		owner := ""
		if c != nil {
			owner = c.owner
		}
		g.recordRun(owner, call, append([]byte(nil), outcome...), g.now())
	}
	switch {
	case c == nil || c.outcome != nil || token == "" || c.token != token:
		// Another call took the lease over and will record its own.
	case !ran:
		// Interrupted: no outcome. The entry stays (it still counts, and
		// expires as before); its lease is free for the next claim.
		c.token, c.leaseEnd = "", time.Time{}
	default:
		c.outcome, c.token = append([]byte(nil), outcome...), ""
		if until.After(c.until) {
			c.until = until
		}
	}
	return nil
}

// LastRun implements ReplayGuard.
func (g *memoryGuard) LastRun(_ context.Context, call string) ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.runs[call]
	if r == nil || g.now().After(r.expires) {
		return nil, nil
	}
	return r.outcome, nil
}

// recordRun keeps outcome as call's last run, for owner: an earlier run of
// call is replaced; the owner's expired runs go first, then its oldest
// while it holds perOwner; when the guard holds max runs, every owner's
// expired ones go, then the oldest of the owner holding the most. The
// caller holds g.mu.
func (g *memoryGuard) recordRun(owner, call string, outcome []byte, now time.Time) {
	g.dropRun(call)
	g.pruneRuns(owner, now)
	for len(g.runOwners[owner]) >= g.perOwner {
		g.dropRun(g.runOwners[owner][0])
	}
	if len(g.runs) >= g.max {
		for o := range g.runOwners {
			g.pruneRuns(o, now)
		}
	}
	for len(g.runs) >= g.max {
		fullest, n := "", 0
		for o, calls := range g.runOwners {
			if len(calls) > n || (len(calls) == n && o < fullest) {
				fullest, n = o, len(calls)
			}
		}
		g.dropRun(g.runOwners[fullest][0])
	}
	g.runs[call] = &memoryRun{outcome: outcome, expires: now.Add(LastRunTTL), owner: owner}
	g.runOwners[owner] = append(g.runOwners[owner], call)
}

// pruneRuns drops owner's expired runs (its oldest); the caller holds g.mu.
func (g *memoryGuard) pruneRuns(owner string, now time.Time) {
	for calls := g.runOwners[owner]; len(calls) > 0; calls = g.runOwners[owner] {
		if !now.After(g.runs[calls[0]].expires) {
			return
		}
		g.dropRun(calls[0])
	}
}

// dropRun forgets call's run, if any; the caller holds g.mu.
func (g *memoryGuard) dropRun(call string) {
	r := g.runs[call]
	if r == nil {
		return
	}
	delete(g.runs, call)
	calls := g.runOwners[r.owner]
	for i, c := range calls {
		if c == call {
			calls = append(calls[:i:i], calls[i+1:]...)
			break
		}
	}
	if len(calls) == 0 {
		delete(g.runOwners, r.owner)
	} else {
		g.runOwners[r.owner] = calls
	}
}

// live reports whether c must still be kept at now: its state can still
// open, or its lease still runs.
func (c *memoryClaim) live(now time.Time) bool {
	return !now.After(c.until) || (c.outcome == nil && !now.After(c.leaseEnd))
}

// expire drops the oldest entries that are no longer live.
func (g *memoryGuard) expire(now time.Time) {
	i := 0
	for ; i < len(g.order) && now.After(g.order[i].until); i++ {
		c, ok := g.used[g.order[i].nonce]
		if ok && c.live(now) {
			break
		}
		g.drop(g.order[i].nonce, c)
	}
	if i > 0 {
		g.order = append(g.order[:0], g.order[i:]...)
	}
}

// drop forgets the entry of nonce, c (nil: none), and its owner's count.
func (g *memoryGuard) drop(nonce string, c *memoryClaim) {
	delete(g.used, nonce)
	if c == nil || c.owner == "" {
		return
	}
	if g.owners[c.owner]--; g.owners[c.owner] <= 0 {
		delete(g.owners, c.owner)
	}
}

// sweep drops every entry that is no longer live, wherever it sits.
func (g *memoryGuard) sweep(now time.Time) {
	kept := g.order[:0]
	for _, e := range g.order {
		if c, ok := g.used[e.nonce]; !ok || !c.live(now) {
			g.drop(e.nonce, c)
			continue
		}
		kept = append(kept, e)
	}
	g.order = kept
}

// AnswerBus delivers the answer to a server-to-client request to the
// request waiting for it, on whichever replica that is.
type AnswerBus interface {
	// Subscribe starts listening for answers to id. Answers published
	// from now on arrive on the channel until stop is called.
	Subscribe(ctx context.Context, id string) (answers <-chan []byte, stop func(), err error)
	// Publish hands answer to whoever listens to id. delivered is false
	// when nobody does (an unknown, answered or expired id).
	Publish(ctx context.Context, id string, answer []byte) (delivered bool, err error)
}

// memoryBus is the AnswerBus of one process.
type memoryBus struct {
	mu   sync.Mutex
	subs map[string]chan []byte
}

func newMemoryBus() *memoryBus { return &memoryBus{subs: map[string]chan []byte{}} }

func (b *memoryBus) Subscribe(_ context.Context, id string) (<-chan []byte, func(), error) {
	ch := make(chan []byte, 1)
	b.mu.Lock()
	b.subs[id] = ch
	b.mu.Unlock()
	return ch, func() {
		b.mu.Lock()
		if b.subs[id] == ch {
			delete(b.subs, id)
		}
		b.mu.Unlock()
	}, nil
}

// Publish delivers the first answer only: delivering it removes the id,
// so a second one, even after the waiter has read the first, is refused.
func (b *memoryBus) Publish(_ context.Context, id string, answer []byte) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	ch := b.subs[id]
	if ch == nil {
		return false, nil
	}
	select {
	case ch <- answer:
		delete(b.subs, id)
		return true, nil
	default:
		return false, nil
	}
}

// The endpoint's stores (its ReplayGuard and AnswerBus) are often the
// host's code over its own storage, and a panic there is the store
// failing: it is taken as the error it stands for, with what the
// interface's documentation says of errors. A panicking Renew would
// otherwise end the process (it runs on a goroutine of its own, which
// nothing recovers), a panicking Complete would replace the answer of a
// call that ran with an internal error, and a panicking Publish would
// reach net/http, which logs the panic's value.

// storePanicked is a panic in a store's method, described for the log
// (panics.Value: never the value, which may quote what the store held).
type storePanicked struct {
	op string // "the replay guard's Renew", ...
	v  panics.Value
}

func (e *storePanicked) Error() string { return "mcp: " + e.op + " panicked: " + e.v.String() }

// recoverStore, deferred by the calls below, turns a panic of op into
// *err.
func recoverStore(op string, err *error) {
	if p := recover(); p != nil {
		*err = &storePanicked{op: op, v: panics.Describe(p)}
	}
}

func guardClaim(ctx context.Context, g ReplayGuard, caller string, nonce []byte, until time.Time, lease time.Duration) (token string, outcome []byte, err error) {
	defer recoverStore("the replay guard's Claim", &err)
	return g.Claim(ctx, caller, nonce, until, lease)
}

func guardRenew(ctx context.Context, g ReplayGuard, nonce []byte, token string, lease time.Duration) (held bool, err error) {
	defer recoverStore("the replay guard's Renew", &err)
	return g.Renew(ctx, nonce, token, lease)
}

func guardComplete(ctx context.Context, g ReplayGuard, nonce []byte, token string, outcome []byte, until time.Time, call string) (err error) {
	defer recoverStore("the replay guard's Complete", &err)
	return g.Complete(ctx, nonce, token, outcome, until, call)
}

func guardLastRun(ctx context.Context, g ReplayGuard, call string) (outcome []byte, err error) {
	defer recoverStore("the replay guard's LastRun", &err)
	return g.LastRun(ctx, call)
}

// eventSubscribe subscribes the handler's own goroutines (the fleet
// follower) to an EventBus, whose panic nothing else would recover there;
// the stop it returns is guarded alike.
func eventSubscribe(ctx context.Context, b EventBus) (events <-chan []byte, stop func() error, err error) {
	defer recoverStore("the event bus's Subscribe", &err)
	events, end, err := b.Subscribe(ctx)
	if err != nil {
		return nil, nil, err
	}
	return events, func() (err error) {
		defer recoverStore("the event bus's stop", &err)
		return end()
	}, nil
}

// logQuietly logs from a goroutine of the handler's own (a lease's
// renewal, the fleet follower), where nothing recovers a panic: a host's
// log handler that panics loses the line there instead of ending the
// process. On a request's goroutine a log call is not wrapped: a panic
// there is net/http's to recover, as for any handler.
func logQuietly(ctx context.Context, l *slog.Logger, level slog.Level, msg string, args ...any) {
	defer func() { _ = recover() }()
	l.Log(ctx, level, msg, args...)
}

func busSubscribe(ctx context.Context, b AnswerBus, id string) (answers <-chan []byte, stop func(), err error) {
	defer recoverStore("the answer bus's Subscribe", &err)
	return b.Subscribe(ctx, id)
}

func busPublish(ctx context.Context, b AnswerBus, id string, answer []byte) (delivered bool, err error) {
	defer recoverStore("the answer bus's Publish", &err)
	return b.Publish(ctx, id, answer)
}
