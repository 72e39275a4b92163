package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/mcpdual/mcpdual/internal/seam"
)

// claimConfirmation asks the guard whether this confirmed call may run. It
// returns the answer to send instead of running, or nil, nil with
// req.claim set: the request holds the lease, renewed until settle.
func (req *request) claimConfirmation(g ReplayGuard, t *tool, call *Call, rd *round) (*toolResult, error) {
	// The caller key lets the guard cap each caller's share (the
	// in-memory one does), so one tenant confirming at full speed cannot
	// fill it for every other.
	token, outcome, err := g.Claim(req.HTTP.Context(), req.callerKey(), rd.nonce, rd.until, req.handler.lease())
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
	c := &claimed{h: req.handler, ctx: context.WithoutCancel(req.HTTP.Context()), g: g, nonce: rd.nonce, token: token, until: rd.until,
		call: req.callDigest(t, call), stop: make(chan struct{}), done: make(chan struct{})}
	go c.renew()
	req.claim = c
	return nil, nil
}

// callDigest names what a confirmation confirms, for the guard's record of
// runs (ReplayGuard.LastRun): the caller's rate key, the workspace, the
// tool and the arguments in a canonical form, so that a new confirmation
// of the same call — a 2025 client asking again after its stream was
// lost, or a model calling the tool again — is recognised. Each part is
// length-prefixed, so no two calls share a digest by concatenation.
func (req *request) callDigest(t *tool, call *Call) string {
	ws, _ := req.Workspace()
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	for _, part := range [...][]byte{[]byte(req.callerKey()), []byte(ws), []byte(t.def.Name), canonicalArguments(call.args)} {
		h.Write(binary.AppendUvarint(n[:0], uint64(len(part))))
		h.Write(part)
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// canonicalArguments is args decoded and encoded again: members sorted by
// name, no insignificant space, strings escaped one way, numbers as
// written. Two encodings of the same arguments then digest alike. The
// arguments passed the input schema, so they decode; should they not,
// they are taken as they are.
func canonicalArguments(args []byte) []byte {
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return args
	}
	b, err := json.Marshal(v)
	if err != nil {
		return args
	}
	return b
}

// interrupted answers a tool call whose route returned without writing
// while its request's context was done (the caller left, the call was
// cancelled or timed out), or whose function returned its context's
// error: no outcome. Nothing is recorded for it — a confirmed call's
// lease is released, so the next retry runs the route again, with the same
// Idempotency-Key — and the answer says neither that it ran nor that it
// did not: it says to retry for the outcome, as confirmation_in_progress
// does. The audit line says "interrupted", never "executed".
func (req *request) interrupted(t *tool, call *Call) (seam.Result, error) {
	if call.idemKey != "" {
		req.claim.interrupt()
		req.confirmation = "interrupted"
		req.audit(t, call, "interrupted")
		return nil, unavailable("The confirmed call was interrupted before its outcome was known; retry shortly for its outcome", "confirmation_interrupted")
	}
	req.Log(slog.LevelInfo, "mcp: a tool call was interrupted: its request ended before the tool answered", "tool", t.def.Name)
	return nil, unavailable("The call was interrupted before the tool answered; retry it for its outcome", "call_interrupted")
}

// recorded is an outcome summary read back.
type recorded struct {
	Executed bool  `json:"executed"`
	Panicked bool  `json:"panicked"`
	Failed   bool  `json:"failed"`
	Status   int   `json:"status"`
	At       int64 `json:"at"`
}

// maxRecordedAt bounds a summary's time (the year 10000), so that a value
// from storage always formats as RFC 3339.
const maxRecordedAt = 253402300800

// readRecorded reads a summary from the guard's storage as untrusted: only
// its known fields, checked; anything else reads as "did not run".
func readRecorded(summary []byte) recorded {
	var o recorded
	if json.Unmarshal(summary, &o) != nil || o.Status < 0 || o.Status > 999 {
		return recorded{}
	}
	if o.At < 0 || o.At >= maxRecordedAt {
		o.At = 0
	}
	return o
}

// ranHow says how a recorded run went, after "the tool ran".
func ranHow(o recorded) string {
	switch {
	case o.Panicked:
		return " and failed with an internal error"
	case o.Failed:
		return " and reported an error"
	case o.Status > 0:
		return " and its service answered status " + strconv.Itoa(o.Status)
	}
	return ""
}

// alreadyRan answers a retry of a confirmation that ran: the recorded
// outcome, not a bare refusal. The summary comes from the guard's storage
// and is read as untrusted: only its known fields, checked, are shown.
func alreadyRan(f features, summary []byte) *toolResult {
	o := readRecorded(summary)
	text := "Not executed again (confirmation_already_used): this confirmation was already used"
	structured := []byte(`{"outcome":"confirmation_already_used","executed":` + strconv.FormatBool(o.Executed))
	switch {
	case o.Executed && o.Panicked:
		structured = append(structured, `,"panicked":true`...)
	case o.Executed && o.Failed:
		structured = append(structured, `,"failed":true`...)
	case o.Executed && o.Status > 0:
		structured = append(structured, `,"status":`...)
		structured = strconv.AppendInt(structured, int64(o.Status), 10)
	}
	if o.Executed {
		text += "; the tool ran" + ranHow(o)
	} else {
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

// ranBefore is what a confirmation question says first when the same call
// ran within LastRunTTL (summary is the guard's LastRun, nil for none):
// when it ran and what its route answered, so the user decides knowing
// it. "" when nothing is known to have run.
func ranBefore(summary []byte) string {
	if summary == nil {
		return ""
	}
	o := readRecorded(summary)
	if !o.Executed {
		return ""
	}
	text := "Note: this call, with the same arguments, already ran"
	if o.At > 0 {
		text += " at " + time.Unix(o.At, 0).UTC().Format(time.RFC3339)
	}
	return text + ranHow(o) + ". Confirm only if it should run again."
}

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
	if call != "" && outcome != nil {
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
	case outcome == nil:
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

// audit logs what became of a confirmed destructive call: who (principal
// and workspace), what (tool, a digest of the arguments, the idempotency
// key) and the outcome — the route's status once it ran, or why it did
// not run.
func (req *request) audit(t *tool, call *Call, outcome string) {
	if !req.handler.cfg.logger.Enabled(req.ctx(), slog.LevelInfo) {
		return
	}
	ws, _ := req.Workspace()
	sum := sha256.Sum256(call.args)
	req.Log(slog.LevelInfo, "mcp: destructive tool", "tool", t.def.Name, "outcome", outcome,
		"principal", req.principal.Key(), "workspace", ws, "arguments", hex.EncodeToString(sum[:8]),
		"idempotencyKey", call.idemKey)
}
