package redisstore_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdual/mcpdual/mcp/ratelimit"
	"github.com/mcpdual/mcpdual/mcp/redisstore"
)

// rateKey is the documented layout of a limiter key.
func rateKey(prefix, key string) string {
	sum := sha256.Sum256([]byte(key))
	return prefix + "rate:" + base64.RawURLEncoding.EncodeToString(sum[:])
}

func take(t testing.TB, l ratelimit.Limiter, key string, cost int) ratelimit.Decision {
	t.Helper()
	d, err := l.Take(context.Background(), key, cost)
	if err != nil {
		t.Fatalf("Take(%q, %d): %v", key, cost, err)
	}
	return d
}

// near reports whether got is within tol of want.
func near(got, want, tol time.Duration) bool { return got >= want-tol && got <= want+tol }

const slack = 150 * time.Millisecond

// TestLimiter_SharedBudget: two limiters on one Redis, each with its own
// client as two replicas would have, spend one budget per key.
//
// Times are read against the first take, which Redis ran at some instant
// between start and the return of the take at hand: measured from just
// before each take instead, a machine that paused for more than the slack
// between takes read a Reset short by the pause (1 run in 10 with the test
// process stopped 200 ms in every 250). A unit comes back every ten
// seconds, so that none comes back while the test runs, however slow.
func TestLimiter_SharedBudget(t *testing.T) {
	t.Parallel()
	const unit = 10 * time.Second
	p := testPrefix(t)
	replicas := []*redisstore.Limiter{
		redisstore.NewLimiter(newClient(t, sharedAddr), 1/unit.Seconds(), 5, redisstore.WithPrefix(p), patient),
		redisstore.NewLimiter(newClient(t, sharedAddr), 1/unit.Seconds(), 5, redisstore.WithPrefix(p), patient),
	}
	// within reports whether at lies want after the first take.
	start := time.Now()
	within := func(at, after time.Time, want time.Duration) bool {
		return !at.Before(start.Add(want-slack)) && !at.After(after.Add(want+slack))
	}
	for i := range 5 {
		d := take(t, replicas[i%2], "principal|alice", 1)
		after := time.Now()
		if !d.Allowed || d.Limit != 5 || d.Remaining != 4-i || d.RetryAfter != 0 {
			t.Errorf("take %d on replica %d: %+v", i+1, i%2, d)
		}
		// Each unit spent is a unit's time until the budget is whole.
		if want := time.Duration(i+1) * unit; !within(d.Reset, after, want) {
			t.Errorf("take %d: Reset %v after the first take began and %v after this one returned, want %v", i+1,
				d.Reset.Sub(start), d.Reset.Sub(after), want)
		}
	}
	d := take(t, replicas[1], "principal|alice", 1)
	after := time.Now()
	if d.Allowed || d.Limit != 5 || d.Remaining != 0 {
		t.Errorf("sixth take: %+v", d)
	}
	// The next unit is back a unit's time after the first take.
	if d.RetryAfter <= 0 || d.RetryAfter > unit || d.RetryAfter < unit-after.Sub(start)-slack {
		t.Errorf("RetryAfter = %v (%v after the first take began), want just under %v", d.RetryAfter, after.Sub(start), unit)
	}
	if !within(d.Reset, after, 5*unit) {
		t.Errorf("refused: Reset %v after the first take began and %v after this one returned, want %v", d.Reset.Sub(start), d.Reset.Sub(after), 5*unit)
	}
	// Another key has a budget of its own, on either replica.
	if d := take(t, replicas[0], "principal|bob", 1); !d.Allowed || d.Remaining != 4 {
		t.Errorf("bob: %+v", d)
	}
}

// TestLimiter_Remaining: the units left are exact at rates whose emission
// interval is not exact in binary, where the script's own truncated count
// loses a unit (at 10 per second it always did).
func TestLimiter_Remaining(t *testing.T) {
	t.Parallel()
	rdb := newClient(t, sharedAddr)
	for _, rate := range []float64{10, 1000, 3, 0.1, 1.0 / 7} {
		// A first take finds the budget whole however long it took.
		l := redisstore.NewLimiter(rdb, rate, 10, redisstore.WithPrefix(testPrefix(t)), patient)
		if d := take(t, l, "k", 1); !d.Allowed || d.Remaining != 9 {
			t.Errorf("rate %v: want 9 remaining, got %+v", rate, d)
		}
	}
	// Slow enough that the time between takes regains no unit.
	for _, rate := range []float64{0.3, 1.0 / 7} {
		l := redisstore.NewLimiter(rdb, rate, 10, redisstore.WithPrefix(testPrefix(t)), patient)
		for want := 9; want >= 0; want-- {
			if d := take(t, l, "k", 1); !d.Allowed || d.Remaining != want {
				t.Fatalf("rate %v: want %d remaining, got %+v", rate, want, d)
			}
		}
	}
}

// TestLimiter_Keys: budgets live under the prefix, named by a digest
// (no identity in the keyspace), and expire by themselves once whole.
func TestLimiter_Keys(t *testing.T) {
	t.Parallel()
	rdb := newClient(t, sharedAddr)
	p := testPrefix(t)
	ctx := context.Background()
	slow := redisstore.NewLimiter(rdb, 1, 5, redisstore.WithPrefix(p), patient)
	take(t, slow, "principal|alice@example.com", 2)
	keys, err := scan(ctx, rdb, p)
	if err != nil {
		t.Fatal(err)
	}
	want := rateKey(p, "principal|alice@example.com")
	if len(keys) != 1 || keys[0] != want {
		t.Fatalf("keys %q, want [%q]", keys, want)
	}
	if strings.Contains(keys[0], "alice") {
		t.Errorf("the key shows the identity: %s", keys[0])
	}
	// Two units spent at one per second: whole again in 2 s, and the key
	// lives that long, rounded up to seconds.
	if ttl, err := rdb.PTTL(ctx, want).Result(); err != nil || ttl <= time.Second || ttl > 2*time.Second {
		t.Errorf("TTL %v (%v), want (1s, 2s]", ttl, err)
	}
	// The default prefix.
	def := redisstore.NewLimiter(rdb, 1, 5, patient)
	take(t, def, p+"default", 1)
	k := rateKey(redisstore.DefaultPrefix, p+"default")
	t.Cleanup(func() { rdb.Del(context.Background(), k) })
	if ttl, err := rdb.PTTL(ctx, k).Result(); err != nil || ttl <= 0 {
		t.Errorf("default prefix: %s has TTL %v (%v)", k, ttl, err)
	}
	// A fast budget is whole within a second and its key goes.
	fast := redisstore.NewLimiter(rdb, 20, 2, redisstore.WithPrefix(p), patient)
	take(t, fast, "fast", 1)
	eventually(t, "the key of a whole budget expiring", func() error {
		if n, err := rdb.Exists(ctx, rateKey(p, "fast")).Result(); err != nil || n != 0 {
			return errors.New("still there")
		}
		return nil
	})
}

// TestLimiter_Outage: with Redis stopped or hung, Take fails within the
// timeout (fail closed), FailOpen admits, and both recover when Redis is
// back. The server needs a password, given in a redis:// URL, and no error
// may show it.
func TestLimiter_Outage(t *testing.T) {
	t.Parallel()
	const password = "S3cret-pa55word"
	srv := ownRedis(t, "--requirepass", password)
	p := testPrefix(t)
	const timeout = 200 * time.Millisecond
	urlClient := func(t *testing.T, contextTimeouts bool) *redis.Client {
		opt, err := redisstore.ParseURL("redis://:" + password + "@" + srv.addr + "/0")
		if err != nil {
			t.Fatal(err)
		}
		opt.ContextTimeoutEnabled = contextTimeouts
		c := redis.NewClient(opt)
		t.Cleanup(func() { c.Close() })
		return c
	}
	checkErr := func(t *testing.T, err error, elapsed time.Duration) {
		t.Helper()
		if err == nil {
			t.Fatal("Take admitted a request while Redis was down")
		}
		if elapsed > timeout+overrun {
			t.Errorf("Take took %v, beyond the %v timeout", elapsed, timeout)
		}
		if strings.Contains(err.Error(), password) {
			t.Errorf("the error shows the password: %v", err)
		}
		if !strings.HasPrefix(err.Error(), "redisstore: rate limiter: ") {
			t.Errorf("error %q", err)
		}
	}

	t.Run("stopped", func(t *testing.T) {
		rdb := urlClient(t, true)
		closed := redisstore.NewLimiter(rdb, 1, 5, redisstore.WithPrefix(p), redisstore.WithTimeout(timeout))
		var reported []error
		var mu sync.Mutex
		open := redisstore.NewLimiter(rdb, 1, 5, redisstore.WithPrefix(p), redisstore.WithTimeout(timeout),
			redisstore.FailOpen(func(err error) { mu.Lock(); reported = append(reported, err); mu.Unlock() }))
		eventually(t, "the limiter before the outage", func() error {
			_, err := closed.Take(context.Background(), "k", 1)
			return err
		})

		srv.stop()
		start := time.Now()
		_, err := closed.Take(context.Background(), "k", 1)
		checkErr(t, err, time.Since(start))
		start = time.Now()
		d, err := open.Take(context.Background(), "k", 1)
		if err != nil || !d.Allowed || d.Limit != 5 || d.Remaining != 4 || time.Since(start) > timeout+overrun {
			t.Errorf("fail-open: %+v, %v after %v", d, err, time.Since(start))
		}
		// A request that was itself cancelled is no outage: an error, and
		// nothing reported.
		gone, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := open.Take(gone, "k", 1); !errors.Is(err, context.Canceled) {
			t.Errorf("fail-open, cancelled request: %v", err)
		}
		mu.Lock()
		if len(reported) != 1 || strings.Contains(reported[0].Error(), password) {
			t.Errorf("fail-open reported %v", reported)
		}
		mu.Unlock()
		// A wrong password is an error too, and names no password.
		bad := redis.NewClient(&redis.Options{Addr: srv.addr, Password: "wrong-" + password})
		t.Cleanup(func() { bad.Close() })
		srv.restart(t)
		start = time.Now()
		_, err = redisstore.NewLimiter(bad, 1, 5, redisstore.WithPrefix(p), patient).Take(context.Background(), "k", 1)
		checkErr(t, err, time.Since(start))

		// Back, and empty (no persistence): both meter again.
		eventually(t, "the limiter after a restart", func() error {
			_, err := closed.Take(context.Background(), "k", 1)
			return err
		})
		mu.Lock()
		n := len(reported)
		mu.Unlock()
		if d := take(t, open, "k", 1); !d.Allowed || d.Remaining > 3 { // metered: the other limiter spent one
			t.Errorf("after the restart: %+v", d)
		}
		mu.Lock()
		if len(reported) != n {
			t.Errorf("fail-open reported %d errors with Redis up", len(reported)-n)
		}
		mu.Unlock()
	})

	// A hung server keeps its connections open and answers nothing: only
	// the timeout ends the wait, whether or not the client honours
	// contexts.
	for _, contextTimeouts := range []bool{true, false} {
		t.Run(fmt.Sprintf("hung, ContextTimeoutEnabled=%v", contextTimeouts), func(t *testing.T) {
			l := redisstore.NewLimiter(urlClient(t, contextTimeouts), 1, 5, redisstore.WithPrefix(p), redisstore.WithTimeout(timeout))
			eventually(t, "the limiter before the pause", func() error {
				_, err := l.Take(context.Background(), "hung", 1)
				return err
			})
			srv.pause()
			t.Cleanup(srv.resume)
			start := time.Now()
			_, err := l.Take(context.Background(), "hung", 1)
			elapsed := time.Since(start)
			checkErr(t, err, elapsed)
			if elapsed < timeout || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer from Redis within 200ms") {
				t.Errorf("after %v: %v", elapsed, err)
			}
			srv.resume()
			eventually(t, "the limiter after the pause", func() error {
				_, err := l.Take(context.Background(), "hung", 1)
				return err
			})
		})
	}
}

func TestOptions_Panic(t *testing.T) {
	t.Parallel()
	rdb := redis.NewClient(&redis.Options{Addr: sharedAddr})
	defer rdb.Close()
	ring := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": sharedAddr}})
	defer ring.Close()
	for name, f := range map[string]func(){
		"empty prefix":     func() { redisstore.WithPrefix("") },
		"zero timeout":     func() { redisstore.WithTimeout(0) },
		"no client":        func() { redisstore.NewLimiter(nil, 1, 1) },
		"zero rate":        func() { redisstore.NewLimiter(rdb, 0, 1) },
		"infinite rate":    func() { redisstore.NewLimiter(rdb, math.Inf(1), 1) },
		"rate over 1/ns":   func() { redisstore.NewLimiter(rdb, 2e9, 1) },
		"zero burst":       func() { redisstore.NewLimiter(rdb, 1, 0) },
		"guard, no client": func() { redisstore.NewReplayGuard(nil) },
		"guard, FailOpen":  func() { redisstore.NewReplayGuard(rdb, redisstore.FailOpen(nil)) },
		"bus, no client":   func() { redisstore.NewAnswerBus(nil) },
		"bus, FailOpen":    func() { redisstore.NewAnswerBus(rdb, redisstore.FailOpen(nil)) },
		"bus, a Ring": func() {
			redisstore.NewAnswerBus(redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": sharedAddr}}))
		},
		"bus, open {":   func() { redisstore.NewAnswerBus(rdb, redisstore.WithPrefix("svc{a:")) },
		"bus, empty {}": func() { redisstore.NewAnswerBus(rdb, redisstore.WithPrefix("svc{}:")) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
