package storetest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp/ratelimit"
)

// Rates of the limiter checks: slow is too slow to regain a unit while a
// check runs (one per 100 s), fast regains one in 50 ms.
const (
	slowRate = 0.01
	fastRate = 20
	// tick is what the suite sleeps beyond a wait a limiter reported:
	// rounding of its clock, never load (sleeping longer only regains
	// more).
	tick = 5 * time.Millisecond
)

// Limiter runs the contract of ratelimit.Limiter against the limiters
// open returns for a rate (units regained per second) and a burst, one new
// store per subtest (the subtests run in parallel), spreading the takes
// over the replicas:
//
//   - burst: a whole budget admits burst units, each allowed Take says how
//     many remain, and the next is refused with a positive RetryAfter no
//     longer than a unit takes to regain; Limit is the burst throughout.
//   - cost: a Take spends cost units at once; a refusal spends nothing; a
//     cost above the burst is never allowed; cost 0 is allowed; a negative
//     cost is an error.
//   - refill: after the RetryAfter a refusal reported, the Take is
//     allowed; after a full refill the budget is whole again; Reset says
//     when it will be.
//   - keys are isolated, and racing takes never overspend.
func Limiter(t *testing.T, open func(t *testing.T, perSecond float64, burst int) Fleet[ratelimit.Limiter]) {
	t.Helper()
	run := func(name string, perSecond float64, burst int, f func(t *testing.T, fl Fleet[ratelimit.Limiter], clock Clock)) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fl := open(t, perSecond, burst)
			clock, _ := check(t, fl)
			f(t, fl, clock)
		})
	}

	run("Burst", slowRate, 3, func(t *testing.T, fl Fleet[ratelimit.Limiter], _ Clock) {
		for i := range 3 {
			d := take(t, replica(fl, i), "principal|alice", 1)
			if !d.Allowed || d.Limit != 3 || d.Remaining != 2-i || d.RetryAfter != 0 {
				t.Errorf("take %d of a burst of 3: %+v; want allowed, Limit 3, Remaining %d, no RetryAfter", i+1, d, 2-i)
			}
		}
		d := take(t, replica(fl, 3), "principal|alice", 1)
		if d.Allowed || d.Limit != 3 || d.Remaining != 0 || d.RetryAfter <= 0 || d.RetryAfter > time.Duration(float64(time.Second)/slowRate)+tick {
			t.Errorf("take 4 of a burst of 3: %+v; want refused, Limit 3, Remaining 0, RetryAfter in (0, 100s]", d)
		}
	})

	run("Cost", slowRate, 5, func(t *testing.T, fl Fleet[ratelimit.Limiter], _ Clock) {
		if d := take(t, replica(fl, 0), "k", 3); !d.Allowed || d.Remaining != 2 {
			t.Errorf("cost 3 of 5: %+v", d)
		}
		if d := take(t, replica(fl, 1), "k", 3); d.Allowed || d.Remaining != 2 || d.RetryAfter <= 0 {
			t.Errorf("cost 3 of the 2 left: %+v; want refused, Remaining 2 (a refusal spends nothing)", d)
		}
		if d := take(t, replica(fl, 0), "k", 2); !d.Allowed || d.Remaining != 0 {
			t.Errorf("cost 2 of the 2 left: %+v", d)
		}
		if d := take(t, replica(fl, 1), "k", 0); !d.Allowed || d.Remaining != 0 {
			t.Errorf("cost 0 of an empty budget: %+v; want allowed", d)
		}
		if d := take(t, replica(fl, 0), "whole", 6); d.Allowed || d.RetryAfter <= 0 {
			t.Errorf("cost 6 of a burst of 5: %+v; want refused with a RetryAfter", d)
		}
		if d := take(t, replica(fl, 1), "whole", 5); !d.Allowed || d.Remaining != 0 {
			t.Errorf("cost 5 after a refused 6: %+v; want allowed (the refusal spent nothing)", d)
		}
		for i := range 2 {
			if d, err := replica(fl, i).Take(context.Background(), "negative", -1); err == nil {
				t.Errorf("cost -1: %+v, no error", d)
			}
		}
		if d := take(t, replica(fl, 0), "negative", 5); !d.Allowed || d.Remaining != 0 {
			t.Errorf("cost 5 after refused negative costs: %+v; want allowed with nothing left (a negative cost mints no units)", d)
		}
	})

	run("Refill", fastRate, 2, func(t *testing.T, fl Fleet[ratelimit.Limiter], clock Clock) {
		unit := time.Duration(float64(time.Second) / fastRate)
		before := clock.Now()
		d := take(t, replica(fl, 0), "k", 1)
		after := clock.Now()
		// From a whole budget, one unit spent: whole again a unit later.
		if !d.Allowed || d.Reset.Before(before) || d.Reset.After(after.Add(unit+tick)) {
			t.Errorf("first take: %+v; want allowed, Reset within a unit (%v) of the take", d, unit)
		}
		// Spend until refused: a slow machine may regain units between
		// takes, so the number of takes is bounded, not fixed.
		var refused ratelimit.Decision
		for i := range 100 {
			if d := take(t, replica(fl, i), "k", 1); !d.Allowed {
				refused = d
				break
			}
		}
		if refused.Allowed || refused.RetryAfter <= 0 || refused.RetryAfter > unit+tick {
			t.Fatalf("refused take: %+v; want a RetryAfter in (0, %v]", refused, unit)
		}
		clock.Sleep(refused.RetryAfter + tick)
		if d := take(t, replica(fl, 1), "k", 1); !d.Allowed {
			t.Errorf("a take after the RetryAfter a refusal reported: %+v; want allowed", d)
		}
		clock.Sleep(2*unit + tick)
		if d := take(t, replica(fl, 0), "k", 1); !d.Allowed || d.Remaining != 1 {
			t.Errorf("a take after a full refill: %+v; want allowed, Remaining 1 (the budget was whole)", d)
		}
	})

	run("Keys", slowRate, 2, func(t *testing.T, fl Fleet[ratelimit.Limiter], _ Clock) {
		for range 2 {
			take(t, replica(fl, 0), "principal|alice", 1)
		}
		if d := take(t, replica(fl, 1), "principal|alice", 1); d.Allowed {
			t.Errorf("alice's third take of a burst of 2: %+v; want refused", d)
		}
		for _, key := range []string{"principal|bob", "client|192.0.2.1", "principal|alice|", "Principal|alice"} {
			if d := take(t, replica(fl, 1), key, 1); !d.Allowed || d.Remaining != 1 {
				t.Errorf("%q after alice spent hers: %+v; want a whole budget of its own", key, d)
			}
		}
	})

	run("Concurrent", slowRate, 10, func(t *testing.T, fl Fleet[ratelimit.Limiter], _ Clock) {
		var allowed atomic.Int64
		var wg sync.WaitGroup
		for i := range 40 {
			wg.Go(func() {
				d, err := replica(fl, i).Take(context.Background(), "k", 1)
				if err != nil {
					t.Error(err)
				}
				if d.Allowed {
					allowed.Add(1)
				}
			})
		}
		wg.Wait()
		if n := allowed.Load(); n != 10 {
			t.Errorf("%d of 40 racing takes allowed, want the burst of 10", n)
		}
	})
}

func take(t *testing.T, l ratelimit.Limiter, key string, cost int) ratelimit.Decision {
	t.Helper()
	d, err := l.Take(context.Background(), key, cost)
	if err != nil {
		t.Fatalf("Take(%q, %d): %v", key, cost, err)
	}
	return d
}
