package mcp_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mrtr"
)

// TestReplay_DefaultGuard: with no guard configured, one accepted
// confirmation fired 50 times at once runs the route once; the others are
// told it is running (503, retry) or, once it ran, get its outcome.
func TestReplay_DefaultGuard(t *testing.T) {
	t.Parallel()
	s := newMRTRServer(t, mrtrConfig{})
	in := confirmRound1(t, s.url, "delete_item", "a")
	round2 := confirmRound2("", "delete_item", "a", in.RequestState, accept)
	var wg sync.WaitGroup
	var mu sync.Mutex
	outcomes := map[string]int{}
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := round2
			c.id = 100 + i
			r := c.send(t, s.url)
			var o string
			switch {
			case r.status == 503:
				o = errorReason(r)
			default:
				res := asResult(t, r)
				o, _ = res.StructuredContent["outcome"].(string)
				if !res.IsError {
					o = "executed"
				} else if res.StructuredContent["executed"] != true {
					o += " (not executed)"
				}
			}
			mu.Lock()
			outcomes[o]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if n := s.executed.Load(); n != 1 || outcomes["executed"] != 1 || outcomes["confirmation_already_used"]+outcomes["confirmation_in_progress"] != 49 {
		t.Errorf("route ran %d times; outcomes %v", n, outcomes)
	}
	if !strings.Contains(s.log.String(), `outcome="executed, status 200"`) {
		t.Errorf("no audit line of the execution:\n%s", s.log)
	}
}

// untilGuard records what the endpoint asks a guard to remember.
type untilGuard struct {
	mcp.ReplayGuard
	mu    sync.Mutex
	until []time.Time
}

func (g *untilGuard) Claim(ctx context.Context, caller string, nonce []byte, until time.Time, lease time.Duration) (string, []byte, error) {
	g.mu.Lock()
	g.until = append(g.until, until)
	g.mu.Unlock()
	return g.ReplayGuard.Claim(ctx, caller, nonce, until, lease)
}

// TestReplay_Until: a guard is asked to remember a confirmation as long as
// its requestState can still open — its expiry plus the sealer's skew — so
// a guard that forgets at `until` never lets a replay through.
func TestReplay_Until(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	g := &untilGuard{ReplayGuard: mcp.NewMemoryGuardForTest(10)}
	sealer := mrtr.NewSealer(ring(t, "k1"), mrtr.WithTTL(2*time.Minute), mrtr.WithSkew(45*time.Second), mrtr.WithClock(func() time.Time { return now }))
	s := newMRTRServer(t, mrtrConfig{sealer: sealer, guard: g})
	in := confirmRound1(t, s.url, "delete_item", "a")
	if res := asResult(t, confirmRound2("", "delete_item", "a", in.RequestState, accept).send(t, s.url)); res.IsError {
		t.Fatalf("%+v", res)
	}
	want := now.Add(2*time.Minute + 45*time.Second)
	if len(g.until) != 1 || !g.until[0].Equal(want) {
		t.Errorf("until %v, want %v", g.until, want)
	}
}

// TestReplay_Without: a host that opts out, with a reason, gets replays
// through to its routes (which deduplicate on the Idempotency-Key), and
// the choice is logged.
func TestReplay_Without(t *testing.T) {
	t.Parallel()
	s := newMRTRServer(t, mrtrConfig{handler: []mcp.HandlerOption{mcp.WithoutReplayGuard("every destructive route stores its Idempotency-Key")}})
	in := confirmRound1(t, s.url, "delete_item", "a")
	round2 := confirmRound2("", "delete_item", "a", in.RequestState, accept)
	for i := range 2 {
		round2.id = 10 + i
		if res := asResult(t, round2.send(t, s.url)); res.IsError {
			t.Fatalf("%+v", res)
		}
	}
	if n := s.executed.Load(); n != 2 {
		t.Errorf("route ran %d times, want 2", n)
	}
	if !strings.Contains(s.log.String(), "not single-use") || !strings.Contains(s.log.String(), "stores its Idempotency-Key") {
		t.Errorf("log: %s", s.log)
	}
	defer func() {
		if recover() == nil {
			t.Error("WithoutReplayGuard(\"\") did not panic")
		}
	}()
	mcp.WithoutReplayGuard("")
}
