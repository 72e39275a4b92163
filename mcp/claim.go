package mcp

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// confirmLease is how long a claim on a confirmation lasts unless renewed.
// The endpoint renews it every third of that while the route runs, so a
// slow but live call keeps it; a replica that dies mid-call loses it that
// long after its last renewal, and a retry then runs the route again.
const confirmLease = 5 * time.Second

// lease is the endpoint's claim length (tests shorten it).
func (h *Handler) lease() time.Duration {
	if h.cfg.lease > 0 {
		return h.cfg.lease
	}
	return confirmLease
}

// settleTimeout bounds a renewal or the recording of an outcome, which run
// on a context of their own: the client going away must not keep a call
// that ran from being recorded.
const settleTimeout = 5 * time.Second

// claimed is a confirmation this request holds the lease of, while its
// route runs: renewal goes on in the background until settle.
type claimed struct {
	req   *request
	ctx   context.Context // the request's, without its cancellation: read once, here
	g     ReplayGuard
	nonce []byte
	token string
	until time.Time
	stop  chan struct{}
	done  chan struct{}
	ran   string // the summary of what the route did ("" when it did not run)
}

// claimConfirmation asks the guard whether this confirmed call may run. It
// returns the answer to send instead of running, or nil, nil with
// req.claim set: the request holds the lease, renewed until settle.
func (req *request) claimConfirmation(g ReplayGuard, t *tool, call *Call, rd *round) (*toolResult, error) {
	var token string
	var outcome []byte
	var err error
	if mg, ok := g.(*memoryGuard); ok {
		// The endpoint's own guard caps each caller's share as well.
		token, outcome, err = mg.claim(req.callerKey(), rd.nonce, rd.until, req.handler.lease())
	} else {
		token, outcome, err = g.Claim(req.HTTP.Context(), rd.nonce, rd.until, req.handler.lease())
	}
	switch {
	case err != nil:
		req.logError("mcp: replay guard failed", "tool", t.def.Name, "err", err)
		return nil, unavailable("Server temporarily unavailable", "replay_guard_unavailable")
	case outcome != nil:
		req.confirmation = "already_used"
		req.audit(t, call, "already_used")
		return alreadyRan(req.rev.f, outcome), nil
	case token == "":
		// Another call holds a live lease: it is running now, or its
		// replica died and the lease has not lapsed yet. Either way the
		// answer is worth waiting for.
		req.confirmation = "in_progress"
		return nil, unavailable("The confirmed call is still running; retry shortly for its outcome", "confirmation_in_progress")
	}
	c := &claimed{req: req, ctx: context.WithoutCancel(req.HTTP.Context()), g: g, nonce: rd.nonce, token: token, until: rd.until, stop: make(chan struct{}), done: make(chan struct{})}
	go c.renew()
	req.claim = c
	return nil, nil
}

// renew extends the lease every third of its length until stopped.
func (c *claimed) renew() {
	defer close(c.done)
	lease := c.req.handler.lease()
	tick := time.NewTicker(lease / 3)
	defer tick.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(c.ctx, settleTimeout)
		held, err := c.g.Renew(ctx, c.nonce, c.token, lease)
		cancel()
		switch {
		case err != nil:
			c.log(slog.LevelWarn, "mcp: replay guard: renewing a confirmation's lease failed; should it lapse, a retry runs the route again with the same Idempotency-Key", "err", err)
		case !held:
			c.log(slog.LevelWarn, "mcp: replay guard: a running confirmation lost its lease; a retry may run the route again with the same Idempotency-Key")
			return
		}
	}
}

// log logs from the renewal goroutine, with the request's context.
func (c *claimed) log(level slog.Level, msg string, args ...any) {
	c.req.handler.cfg.logger.Log(c.ctx, level, msg, args...)
}

// record notes what the route did, for settle. c may be nil: no guard.
func (c *claimed) record(status int, panicked bool) {
	if c != nil {
		c.ran = outcomeSummary(status, false, panicked, time.Now())
	}
}

// recordFunc notes what a function tool did, for settle: it returned, it
// returned an error (failed), or it panicked. It ran either way, and a
// retry must hear so: without this the guard would store "did not run".
// c may be nil: no guard.
func (c *claimed) recordFunc(failed, panicked bool) {
	if c != nil {
		c.ran = outcomeSummary(0, failed, panicked, time.Now())
	}
}

// settle (c may be nil: no claim) stops the renewal and records the outcome in place of the lease.
// A route that never ran (its arguments could not be placed) is recorded
// as not executed: a retry would fail the same way.
func (c *claimed) settle() {
	if c == nil {
		return
	}
	close(c.stop)
	<-c.done
	summary := c.ran
	if summary == "" {
		summary = `{"executed":false}`
	}
	ctx, cancel := context.WithTimeout(c.ctx, settleTimeout)
	defer cancel()
	if err := c.g.Complete(ctx, c.nonce, c.token, []byte(summary), c.until); err != nil {
		c.req.logError("mcp: replay guard: recording a confirmation's outcome failed; once its lease lapses, a retry runs the route again with the same Idempotency-Key", "err", err)
	}
}

// outcomeSummary is what the guard records of a confirmed call that ran:
// the route's status (0 for a function tool, which has none), that it
// failed (a function returned an error) or panicked, and when.
func outcomeSummary(status int, failed, panicked bool, at time.Time) string {
	b := []byte(`{"executed":true,`)
	switch {
	case panicked:
		b = append(b, `"panicked":true,`...)
	case failed:
		b = append(b, `"failed":true,`...)
	case status > 0:
		b = append(b, `"status":`...)
		b = strconv.AppendInt(b, int64(status), 10)
		b = append(b, ',')
	}
	b = append(b, `"at":`...)
	b = strconv.AppendInt(b, at.Unix(), 10)
	return string(append(b, '}'))
}

// recorded is an outcome summary read back.
type recorded struct {
	Executed bool  `json:"executed"`
	Panicked bool  `json:"panicked"`
	Failed   bool  `json:"failed"`
	Status   int   `json:"status"`
	At       int64 `json:"at"`
}

// alreadyRan answers a retry of a confirmation that ran: the recorded
// outcome, not a bare refusal. The summary comes from the guard's storage
// and is read as untrusted: only its known fields, checked, are shown.
func alreadyRan(f features, summary []byte) *toolResult {
	var o recorded
	if json.Unmarshal(summary, &o) != nil || o.Status < 0 || o.Status > 999 {
		o = recorded{}
	}
	text := "Not executed again (confirmation_already_used): this confirmation was already used"
	structured := []byte(`{"outcome":"confirmation_already_used","executed":` + strconv.FormatBool(o.Executed))
	switch {
	case o.Executed && o.Panicked:
		text += "; the tool ran and failed with an internal error"
		structured = append(structured, `,"panicked":true`...)
	case o.Executed && o.Failed:
		text += "; the tool ran and reported an error"
		structured = append(structured, `,"failed":true`...)
	case o.Executed && o.Status > 0:
		text += "; the tool ran and its service answered status " + strconv.Itoa(o.Status)
		structured = append(structured, `,"status":`...)
		structured = strconv.AppendInt(structured, int64(o.Status), 10)
	case o.Executed:
		text += "; the tool ran"
	default:
		text += "; the tool did not run"
	}
	if o.At > 0 {
		at := time.Unix(o.At, 0).UTC().Format(time.RFC3339)
		text += " at " + at
		structured = append(structured, `,"at":"`+at+`"`...)
	}
	text += ". Call the tool again to get a new confirmation if the user wants to repeat it."
	res := textResult(text, true)
	if f.outputSchema {
		res.structured = json.RawMessage(append(structured, `,"retryable":false}`...))
	}
	return res
}

// memoryGuard is the default ReplayGuard: claims and outcomes in memory
// until their states can no longer open. It holds at most max entries,
// and at most perOwner of one caller's (the endpoint's callers; a claim
// through the exported Claim has no owner and only the total cap): when
// that many are live it refuses to decide (and the confirmed call is
// answered 503) rather than forget one and let it be replayed. The cap per
// caller keeps one tenant confirming at full speed from filling the guard
// and refusing every other tenant's confirmations. instance
// names this guard: states whose single use it enforces are bound to it,
// since no other process, nor this one after a restart, knows what it
// recorded.
type memoryGuard struct {
	mu       sync.Mutex
	used     map[string]*memoryClaim
	order    []memoryEntry // in the order claimed; expiries are nearly sorted
	max      int
	perOwner int
	owners   map[string]int // owner → its entries
	now      func() time.Time
	instance string
}

// memoryClaim is one confirmation: its lease (token, until leaseEnd) while
// it runs, its outcome once it ran, and until when it must be kept.
type memoryClaim struct {
	token    string
	leaseEnd time.Time
	outcome  []byte
	until    time.Time
	owner    string // "": claimed through Claim, counted in the total only
}

type memoryEntry struct {
	nonce string
	until time.Time
}

// memoryPerOwner is the share of the default guard one caller may hold:
// a thousand confirmations live at once (a confirmation is live until its
// state can no longer open).
const memoryPerOwner = 1_000

func newMemoryGuard(max int) *memoryGuard {
	return &memoryGuard{used: map[string]*memoryClaim{}, max: max, perOwner: min(max, memoryPerOwner), owners: map[string]int{},
		now: time.Now, instance: rand.Text()}
}

var (
	errGuardFull  = errors.New("mcp: the in-memory replay guard is full of live confirmations")
	errOwnerFull  = errors.New("mcp: the in-memory replay guard holds as many live confirmations of this caller as one caller may")
	errEmptyNonce = errors.New("mcp: replay guard: empty nonce")
)

func (g *memoryGuard) Claim(_ context.Context, nonce []byte, until time.Time, lease time.Duration) (string, []byte, error) {
	return g.claim("", nonce, until, lease)
}

// claim is Claim for owner ("": none), whose live entries are capped at
// perOwner.
func (g *memoryGuard) claim(owner string, nonce []byte, until time.Time, lease time.Duration) (string, []byte, error) {
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
	case c != nil && !now.After(c.leaseEnd):
		return "", nil, nil
	case c != nil:
		// The lease lapsed: the holder died or lost touch. Take it over.
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
	if c == nil || c.outcome != nil || c.token != token {
		return false, nil
	}
	c.leaseEnd = g.now().Add(lease)
	return true, nil
}

func (g *memoryGuard) Complete(_ context.Context, nonce []byte, token string, outcome []byte, until time.Time) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.used[string(nonce)]
	if c == nil || c.outcome != nil || c.token != token {
		// Another call took the lease over and will record its own.
		return nil
	}
	c.outcome, c.token = append([]byte(nil), outcome...), ""
	if until.After(c.until) {
		c.until = until
	}
	return nil
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

// guardInstance names the process-local guard that enforces single use of
// this endpoint's confirmations, or is "" when the guard is shared (or
// there is none): a confirmation is bound to it when it is asked.
func (h *Handler) guardInstance() string {
	if g, ok := h.cfg.replay.(*memoryGuard); ok {
		return g.instance
	}
	return ""
}

// boundHere reports whether a confirmation's state was issued under this
// endpoint's guard instance. A key ring outlives a process; the in-memory
// guard does not, so a state it cannot have recorded must not run here.
func (h *Handler) boundHere(rd *round) bool {
	return string(rd.state.instance) == h.guardInstance()
}
