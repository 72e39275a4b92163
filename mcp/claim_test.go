package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mrtr"
)

// roundOne asks the retry server's destructive tool and returns the state.
func (s *retryServer) roundOne(t *testing.T) string {
	t.Helper()
	rec, run := s.do(rt{name: "purge", args: `{}`, caps: formCaps})
	run()
	var r struct {
		Result interim `json:"result"`
	}
	json.Unmarshal(rec.Body.Bytes(), &r)
	if r.Result.RequestState == "" {
		t.Fatalf("round 1: %s", rec.Body)
	}
	return r.Result.RequestState
}

// answer sends the accepted confirmation of state and decodes the reply.
func (s *retryServer) answer(id int, state string) (int, *reply) {
	rec, run := s.do(rt{id: id, name: "purge", args: `{}`, caps: formCaps, state: quoteJSON(state), responses: `{"confirm":` + accept + `}`})
	run()
	r := &reply{status: rec.Code, raw: rec.Body.Bytes()}
	json.Unmarshal(r.raw, &r.msg)
	return rec.Code, r
}

// errorReason is data.reason of a JSON-RPC error reply.
func errorReason(r *reply) string {
	if r.msg.Error == nil {
		return ""
	}
	var d struct{ Reason string }
	json.Unmarshal(r.msg.Error.Data, &d)
	return d.Reason
}

// renewCounter is a guard on a fakeClock (moved only by the test: whether
// a lease lapsed then depends on what the endpoint did, a renewal or none,
// never on how fast a loaded machine runs) that counts the renewals it
// granted. step orders a renewal and a move of the clock: a renewal
// counted after a move read the clock after it.
type renewCounter struct {
	mcp.ReplayGuard
	clock    *fakeClock
	step     sync.Mutex
	renewals int
}

func (g *renewCounter) Renew(ctx context.Context, nonce []byte, token string, lease time.Duration) (bool, error) {
	g.step.Lock()
	defer g.step.Unlock()
	held, err := g.ReplayGuard.Renew(ctx, nonce, token, lease)
	if held && err == nil {
		g.renewals++
	}
	return held, err
}

// advanceAfterRenewal waits (a bounded number of times) for a renewal
// granted since the clock last moved, then moves it by d.
func (g *renewCounter) advanceAfterRenewal(t *testing.T, since *int, d time.Duration) {
	t.Helper()
	for range 1000 {
		g.step.Lock()
		if g.renewals > *since {
			*since = g.renewals
			g.clock.advance(d)
			g.step.Unlock()
			return
		}
		g.step.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no renewal of the lease in 10 s (%d before)", *since)
}

// TestClaim_SlowCallKeepsItsLease: a confirmed call that runs for many
// leases keeps its claim (the endpoint renews it); a retry meanwhile is
// told to come back (503, Retry-After) and never runs the route; a retry
// after completion gets the recorded outcome.
//
// The guard's clock moves half a lease after each renewal, four leases in
// all: without renewals the claim lapses, with them it cannot, however
// slowly a loaded machine runs (the wall clock let a stall of the test
// process longer than a lease pass for a lapse).
func TestClaim_SlowCallKeepsItsLease(t *testing.T) {
	t.Parallel()
	const lease = 300 * time.Millisecond // renewed every 100 ms of the wall clock
	clock := &fakeClock{t: time.Now()}
	g := &renewCounter{ReplayGuard: mcp.NewMemoryGuardAtForTest(100, clock.now), clock: clock}
	s := newRetryServer(t, mcp.WithReplayGuard(g), mcp.WithLeaseForTest(lease))
	state := s.roundOne(t)
	s.release = make(chan struct{})
	done := make(chan *reply)
	go func() { _, r := s.answer(2, state); done <- r }()
	<-s.started
	seen := 0
	for moved := time.Duration(0); moved < 4*lease; moved += lease / 2 {
		g.advanceAfterRenewal(t, &seen, lease/2)
	}
	// Were the lease lost, the retry would run the route again, which
	// waits for release; that is reported, and released, rather than
	// waited on.
	type answered struct {
		status int
		r      *reply
	}
	retried := make(chan answered, 1)
	go func() { status, r := s.answer(3, state); retried <- answered{status, r} }()
	select {
	case a := <-retried:
		if a.status != http.StatusServiceUnavailable || errorReason(a.r) != "confirmation_in_progress" {
			t.Errorf("a retry during the call: %d %s", a.status, a.r.raw)
		}
		close(s.release)
	case <-s.started:
		t.Error("a retry during the call ran the route again: the lease was lost")
		close(s.release)
		<-retried
	}
	if first := <-done; first.status != 200 || strings.Contains(string(first.raw), `"isError":true`) {
		t.Errorf("the confirmed call: %d %s", first.status, first.raw)
	}
	_, r := s.answer(4, state)
	var res toolResult
	json.Unmarshal(r.msg.Result, &res)
	sc := res.StructuredContent
	if !res.IsError || sc["outcome"] != "confirmation_already_used" || sc["executed"] != true || sc["status"] != float64(200) ||
		!strings.Contains(res.Content[0].Text, "answered status 200") {
		t.Errorf("a retry after completion: %s", r.raw)
	}
	if s.ran != 1 {
		t.Errorf("the route ran %d times, want 1", s.ran)
	}
}

// dyingGuard is a replica that dies right after its route runs: it never
// renews a lease nor records an outcome.
type dyingGuard struct{ mcp.ReplayGuard }

func (dyingGuard) Renew(context.Context, []byte, string, time.Duration) (bool, error) {
	return true, nil
}
func (dyingGuard) Complete(context.Context, []byte, string, []byte, time.Time, string) error {
	return nil
}

// lateGuard is storage whose first answer to a claim is lost: the claim
// is stored, the caller hears an error (Redis answering after the
// timeout).
type lateGuard struct {
	mcp.ReplayGuard
	lost atomic.Bool
}

func (g *lateGuard) Claim(ctx context.Context, caller string, nonce []byte, until time.Time, lease time.Duration) (string, []byte, error) {
	tok, out, err := g.ReplayGuard.Claim(ctx, caller, nonce, until, lease)
	if err == nil && g.lost.CompareAndSwap(false, true) {
		return "", nil, errors.New("i/o timeout")
	}
	return tok, out, err
}

// TestClaim_LostLease: a replica dies mid-call (its lease is never renewed
// and its outcome never recorded); once the lease lapses, a retry on
// another replica runs the route again with the same Idempotency-Key, and
// later retries get that run's outcome.
func TestClaim_LostLease(t *testing.T) {
	t.Parallel()
	keys := ring(t, "k1")
	// The lease lapses when the test moves the guard's clock past it, not
	// when a loaded machine takes longer than a lease between the run and
	// the retry "within" it.
	clock := &fakeClock{t: time.Now()}
	shared := mcp.NewMemoryGuardAtForTest(100, clock.now)
	lease := mcp.WithLeaseForTest(time.Minute)
	a := newMRTRServer(t, mrtrConfig{sealer: mrtr.NewSealer(keys), guard: dyingGuard{shared}, handler: []mcp.HandlerOption{lease}})
	// A guard the host gives is taken as shared: wrapped, the in-memory one
	// stands in for Redis on both replicas.
	b := newMRTRServer(t, mrtrConfig{sealer: mrtr.NewSealer(keys), guard: struct{ mcp.ReplayGuard }{shared}, shared: a, handler: []mcp.HandlerOption{lease}})
	in := confirmRound1(t, a.url, "delete_item", "x")
	round2 := confirmRound2("", "delete_item", "x", in.RequestState, accept)
	if res := asResult(t, round2.send(t, a.url)); res.IsError {
		t.Fatalf("on the replica that dies: %+v", res)
	}
	// Within the lease, a retry waits.
	round2.id = 3
	if r := round2.send(t, b.url); r.status != 503 || errorReason(r) != "confirmation_in_progress" {
		t.Errorf("retry within the lease: %d %s", r.status, r.raw)
	}
	clock.advance(time.Minute + time.Second)
	round2.id = 4
	if res := asResult(t, round2.send(t, b.url)); res.IsError {
		t.Fatalf("retry after the lease lapsed: %+v", res)
	}
	round2.id = 5
	res := asResult(t, round2.send(t, b.url))
	if res.StructuredContent["outcome"] != "confirmation_already_used" || res.StructuredContent["executed"] != true {
		t.Errorf("retry after the second run: %+v", res)
	}
	if n := a.executed.Load(); n != 2 {
		t.Errorf("route ran %d times, want 2 (the dead replica's run and the retry)", n)
	}
	keysSeen := 0
	a.idemKeys.Range(func(k, v any) bool {
		keysSeen++
		if v.(*atomic.Int64).Load() != 2 {
			t.Errorf("Idempotency-Key %s seen %d times, want 2", k, v.(*atomic.Int64).Load())
		}
		return true
	})
	if keysSeen != 1 {
		t.Errorf("%d Idempotency-Keys, want one for both runs", keysSeen)
	}
}

// TestClaim_LateAnswer: the guard stores the claim but its answer is lost
// (503); the confirmation is not lost with it: retries wait while the
// orphaned lease lives, then one runs the route, once.
func TestClaim_LateAnswer(t *testing.T) {
	t.Parallel()
	// The orphaned lease lapses when the test moves the guard's clock past
	// it: on the wall clock a loaded machine could let it lapse before the
	// first retry, which then ran the route without waiting.
	clock := &fakeClock{t: time.Now()}
	g := &lateGuard{ReplayGuard: mcp.NewMemoryGuardAtForTest(100, clock.now)}
	s := newMRTRServer(t, mrtrConfig{guard: g, handler: []mcp.HandlerOption{mcp.WithLeaseForTest(time.Minute)}})
	in := confirmRound1(t, s.url, "delete_item", "x")
	round2 := confirmRound2("", "delete_item", "x", in.RequestState, accept)
	if r := round2.send(t, s.url); r.status != 503 || errorReason(r) != "replay_guard_unavailable" {
		t.Fatalf("the lost answer: %d %s", r.status, r.raw)
	}
	for i := range 3 {
		round2.id = 10 + i
		if r := round2.send(t, s.url); r.status != 503 || errorReason(r) != "confirmation_in_progress" || r.header.Get("Retry-After") == "" {
			t.Errorf("retry %d while the orphaned lease lives: %d %v %s", i, r.status, r.header, r.raw)
		}
	}
	if n := s.executed.Load(); n != 0 {
		t.Fatalf("the route ran %d times while the orphaned lease lived", n)
	}
	clock.advance(time.Minute + time.Second)
	round2.id = 20
	if res := asResult(t, round2.send(t, s.url)); res.IsError {
		t.Errorf("the retry after the orphaned lease lapsed: %+v", res)
	}
	round2.id = 21
	if res := asResult(t, round2.send(t, s.url)); res.StructuredContent["outcome"] != "confirmation_already_used" || res.StructuredContent["executed"] != true {
		t.Errorf("a retry after the run: %+v", res)
	}
	if n := s.executed.Load(); n != 1 {
		t.Errorf("the route ran %d times, want 1", n)
	}
}

// truncatingGuard is a shared guard whose storage keeps a confirmed call's
// outcome cut short, as a store that lost part of a write would: what it
// hands back is no summary the endpoint writes.
type truncatingGuard struct{ mcp.ReplayGuard }

func (g truncatingGuard) Complete(ctx context.Context, nonce []byte, token string, outcome []byte, until time.Time, call string) error {
	if len(outcome) > 0 {
		outcome = outcome[:len(outcome)/2]
	}
	return g.ReplayGuard.Complete(ctx, nonce, token, outcome, until, call)
}

// TestClaim_UnreadableOutcomeIsUnknown: a retry of a used confirmation
// whose recorded outcome cannot be read (2026-07-28, the revision whose
// retries carry the confirmation) is told the outcome is not known — the
// tool may or may not have run — never that it did not run, and the route
// does not run again; the operator is warned, without the record's bytes.
func TestClaim_UnreadableOutcomeIsUnknown(t *testing.T) {
	t.Parallel()
	s := newMRTRServer(t, mrtrConfig{guard: truncatingGuard{mcp.NewMemoryGuardForTest(100)}})
	in := confirmRound1(t, s.url, "delete_item", "a")
	round2 := confirmRound2("", "delete_item", "a", in.RequestState, accept)
	if res := asResult(t, round2.send(t, s.url)); res.IsError {
		t.Fatalf("the confirmed call: %+v", res)
	}
	round2.id = 3
	r := round2.send(t, s.url)
	res := asResult(t, r)
	if !res.IsError || len(res.Content) != 1 ||
		!strings.Contains(res.Content[0].Text, "its outcome is not known (the record of it cannot be read), so the tool may or may not have run") ||
		strings.Contains(res.Content[0].Text, "did not run") {
		t.Errorf("the retry's text: %s", r.raw)
	}
	if sc := res.StructuredContent; sc["outcome"] != "confirmation_already_used" || sc["retryable"] != false {
		t.Errorf("the retry's structuredContent: %v", sc)
	} else if executed, ok := sc["executed"]; !ok || executed != nil {
		t.Errorf("executed = %v (present %v), want null: neither ran nor did not", executed, ok)
	}
	if n := s.executed.Load(); n != 1 {
		t.Errorf("the route ran %d times, want 1", n)
	}
	if log := s.log.String(); !strings.Contains(log, "recorded outcome cannot be read") || strings.Contains(log, `{"executed":t`) {
		t.Errorf("log:\n%s", log)
	}
}
