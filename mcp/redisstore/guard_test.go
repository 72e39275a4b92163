package redisstore_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/redisstore"
)

func nonce() []byte {
	b := make([]byte, 16)
	rand.Read(b)
	return b
}

// TestReplayGuard_TwoPhases: on any replica, the first claim of a nonce
// holds its lease; others wait while it lives; only the holder renews it
// and records the outcome, which every later claim gets.
func TestReplayGuard_TwoPhases(t *testing.T) {
	t.Parallel()
	p := testPrefix(t)
	a := redisstore.NewReplayGuard(newClient(t, sharedAddr), redisstore.WithPrefix(p), patient)
	b := redisstore.NewReplayGuard(newClient(t, sharedAddr), redisstore.WithPrefix(p), patient)
	ctx := context.Background()
	n, until, lease := nonce(), time.Now().Add(5*time.Minute), 10*time.Second
	tok, out, err := a.Claim(ctx, "caller", n, until, lease)
	if tok == "" || out != nil || err != nil {
		t.Fatalf("first claim: %q %q %v", tok, out, err)
	}
	if tok2, out, err := b.Claim(ctx, "caller", n, until, lease); tok2 != "" || out != nil || err != nil {
		t.Fatalf("claim on another replica during the lease: %q %q %v", tok2, out, err)
	}
	if held, err := b.Renew(ctx, n, "not-the-token", lease); held || err != nil {
		t.Errorf("a foreign token renewed: %v %v", held, err)
	}
	if held, err := a.Renew(ctx, n, tok, lease); !held || err != nil {
		t.Errorf("the holder could not renew: %v %v", held, err)
	}
	if err := b.Complete(ctx, n, "not-the-token", []byte(`{"forged":true}`), until, ""); err != nil {
		t.Fatal(err)
	}
	if err := a.Complete(ctx, n, tok, []byte(`{"executed":true,"status":200}`), until, ""); err != nil {
		t.Fatal(err)
	}
	for _, g := range []*redisstore.ReplayGuard{a, b} {
		if tok, out, err := g.Claim(ctx, "caller", n, until, lease); tok != "" || string(out) != `{"executed":true,"status":200}` || err != nil {
			t.Errorf("after completion: %q %q %v", tok, out, err)
		}
	}
	if held, _ := a.Renew(ctx, n, tok, lease); held {
		t.Error("a completed claim renewed")
	}
	if tok, _, err := b.Claim(ctx, "caller", nonce(), until, lease); tok == "" || err != nil {
		t.Errorf("another nonce: %q %v", tok, err)
	}
	// Another prefix is another namespace.
	c := redisstore.NewReplayGuard(newClient(t, sharedAddr), redisstore.WithPrefix(testPrefix(t)), patient)
	if tok, _, err := c.Claim(ctx, "caller", n, until, lease); tok == "" || err != nil {
		t.Errorf("another prefix: %q %v", tok, err)
	}
	if _, _, err := a.Claim(ctx, "caller", nil, until, lease); err == nil {
		t.Error("an empty nonce was accepted")
	}
}

// TestReplayGuard_Concurrent: 50 claims of one nonce racing on two
// replicas, exactly one holds the lease.
func TestReplayGuard_Concurrent(t *testing.T) {
	t.Parallel()
	p := testPrefix(t)
	guards := []*redisstore.ReplayGuard{
		redisstore.NewReplayGuard(newClient(t, sharedAddr), redisstore.WithPrefix(p), patient),
		redisstore.NewReplayGuard(newClient(t, sharedAddr), redisstore.WithPrefix(p), patient),
	}
	n, until := nonce(), time.Now().Add(time.Minute)
	var holders atomic.Int64
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			tok, _, err := guards[i%2].Claim(context.Background(), "caller", n, until, 10*time.Second)
			if err != nil {
				t.Error(err)
			}
			if tok != "" {
				holders.Add(1)
			}
		})
	}
	wg.Wait()
	if got := holders.Load(); got != 1 {
		t.Errorf("%d of 50 racing claims hold the lease", got)
	}
}

// TestReplayGuard_LeaseLapses: a holder that stops renewing (its replica
// died) loses the lease once it lapses; a retry takes it over, and the
// late holder can neither renew nor overwrite the new holder's outcome.
func TestReplayGuard_LeaseLapses(t *testing.T) {
	t.Parallel()
	p := testPrefix(t)
	a := redisstore.NewReplayGuard(newClient(t, sharedAddr), redisstore.WithPrefix(p), patient)
	b := redisstore.NewReplayGuard(newClient(t, sharedAddr), redisstore.WithPrefix(p), patient)
	ctx := context.Background()
	n, until, lease := nonce(), time.Now().Add(time.Minute), 150*time.Millisecond
	dead, _, _ := a.Claim(ctx, "caller", n, until, lease)
	if dead == "" {
		t.Fatal("no first claim")
	}
	time.Sleep(lease + 100*time.Millisecond)
	tok, out, err := b.Claim(ctx, "caller", n, until, time.Minute)
	if tok == "" || out != nil || err != nil {
		t.Fatalf("after the lease lapsed: %q %q %v", tok, out, err)
	}
	if held, _ := a.Renew(ctx, n, dead, lease); held {
		t.Error("the lapsed holder renewed")
	}
	a.Complete(ctx, n, dead, []byte(`{"late":true}`), until, "")
	if tok2, out, _ := a.Claim(ctx, "caller", n, until, lease); tok2 != "" || out != nil {
		t.Errorf("the lapsed holder's outcome replaced the new lease: %q %q", tok2, out)
	}
	b.Complete(ctx, n, tok, []byte(`{"executed":true}`), until, "")
	if _, out, _ := a.Claim(ctx, "caller", n, until, lease); string(out) != `{"executed":true}` {
		t.Errorf("outcome %q", out)
	}
}

// TestReplayGuard_Key: the entry sits under the prefix; a lease lives as
// long as the lease, an outcome until the confirmation expires plus the
// ten-minute margin for replicas' skew.
func TestReplayGuard_Key(t *testing.T) {
	t.Parallel()
	rdb := newClient(t, sharedAddr)
	p := testPrefix(t)
	g := redisstore.NewReplayGuard(rdb, redisstore.WithPrefix(p), patient)
	ctx := context.Background()
	for _, ahead := range []time.Duration{5 * time.Minute, 90 * time.Second, -time.Hour} {
		n := nonce()
		tok, _, err := g.Claim(ctx, "caller", n, time.Now().Add(ahead), 30*time.Second)
		if err != nil || tok == "" {
			t.Fatalf("claim: %q, %v", tok, err)
		}
		key := p + "confirm:" + base64.RawURLEncoding.EncodeToString(n)
		if ttl, err := rdb.PTTL(ctx, key).Result(); err != nil || !near(ttl, 30*time.Second, 2*time.Second) {
			t.Errorf("lease: %s has TTL %v (%v), want about 30s", key, ttl, err)
		}
		if err := g.Complete(ctx, n, tok, []byte(`{}`), time.Now().Add(ahead), ""); err != nil {
			t.Fatal(err)
		}
		ttl, err := rdb.PTTL(ctx, key).Result()
		// An expiry already past still keeps the outcome for the margin.
		if want := max(ahead, 0) + 10*time.Minute; err != nil || !near(ttl, want, 2*time.Second) {
			t.Errorf("until now%+v: %s has TTL %v (%v), want about %v", ahead, key, ttl, err, want)
		}
	}
	keys, err := scan(ctx, rdb, p)
	if err != nil || len(keys) != 3 {
		t.Errorf("keys under the prefix: %q, %v", keys, err)
	}
	for _, k := range keys {
		if !strings.HasPrefix(k, p+"confirm:") {
			t.Errorf("key %q", k)
		}
	}
}

// TestReplayGuard_Outage: with Redis stopped or hung, Claim fails within
// the timeout, never granting a lease; a claim Redis stored while its
// answer came too late is not lost: retries wait while its lease lives,
// then one takes it over. A Redis that restarts empty has forgotten what
// ran (the README says so).
func TestReplayGuard_Outage(t *testing.T) {
	t.Parallel()
	srv := ownRedis(t)
	const timeout = 200 * time.Millisecond
	rdb := newClient(t, srv.addr)
	g := redisstore.NewReplayGuard(rdb, redisstore.WithTimeout(timeout))
	ctx := context.Background()
	until := time.Now().Add(time.Minute)
	eventually(t, "the guard before the outage", func() error {
		_, _, err := g.Claim(ctx, "caller", nonce(), until, time.Second)
		return err
	})
	check := func(what string, n []byte) {
		t.Helper()
		start := time.Now()
		tok, _, err := g.Claim(ctx, "caller", n, until, time.Second)
		if err == nil || tok != "" || time.Since(start) > timeout+overrun || !strings.HasPrefix(err.Error(), "redisstore: replay guard: ") {
			t.Errorf("%s: token %q, %v after %v", what, tok, err, time.Since(start))
		}
	}
	// Hung: the claim waits in the socket and runs once Redis resumes,
	// after the caller gave up.
	late := nonce()
	srv.pause()
	t.Cleanup(srv.resume)
	check("hung", late)
	srv.resume()
	key := "mcpdual:confirm:" + base64.RawURLEncoding.EncodeToString(late)
	eventually(t, "the late claim stored", func() error { return rdb.Get(ctx, key).Err() })
	if tok, out, err := g.Claim(ctx, "caller", late, until, time.Second); tok != "" || out != nil || err != nil {
		t.Errorf("retry while the orphaned lease lives: %q %q %v", tok, out, err)
	}
	time.Sleep(1200 * time.Millisecond)
	if tok, _, err := g.Claim(ctx, "caller", late, until, time.Second); tok == "" || err != nil {
		t.Errorf("retry after the orphaned lease lapsed: %q %v", tok, err)
	}

	done := nonce()
	tok, _, _ := g.Claim(ctx, "caller", done, until, time.Second)
	g.Complete(ctx, done, tok, []byte(`{"executed":true}`), until, "")
	srv.stop()
	check("stopped", nonce())
	srv.restart(t)
	eventually(t, "the guard after a restart", func() error {
		_, _, err := g.Claim(ctx, "caller", nonce(), until, time.Second)
		return err
	})
	if tok, out, err := g.Claim(ctx, "caller", done, until, time.Second); tok == "" || out != nil || err != nil {
		t.Errorf("after Redis restarted empty: %q %q %v; want a fresh lease (the outcome is lost with the data)", tok, out, err)
	}
}

// TestReplayGuard_Release: a nil outcome (an interrupted call) releases
// the holder's lease at once: the next claim, on any replica, holds the
// confirmation as new. A release with another token changes nothing, and
// a release never touches an outcome.
func TestReplayGuard_Release(t *testing.T) {
	t.Parallel()
	p := testPrefix(t)
	a := redisstore.NewReplayGuard(newClient(t, sharedAddr), redisstore.WithPrefix(p), patient)
	b := redisstore.NewReplayGuard(newClient(t, sharedAddr), redisstore.WithPrefix(p), patient)
	ctx := context.Background()
	n, until, lease := nonce(), time.Now().Add(time.Minute), time.Minute
	tok, _, _ := a.Claim(ctx, "caller", n, until, lease)
	if tok == "" {
		t.Fatal("no first claim")
	}
	if err := b.Complete(ctx, n, "not-the-token", nil, until, ""); err != nil {
		t.Fatal(err)
	}
	if tok2, out, _ := b.Claim(ctx, "caller", n, until, lease); tok2 != "" || out != nil {
		t.Fatalf("a foreign release freed the lease: %q %q", tok2, out)
	}
	if err := a.Complete(ctx, n, tok, nil, until, "ignored-for-a-release"); err != nil {
		t.Fatal(err)
	}
	tok2, out, err := b.Claim(ctx, "caller", n, until, lease)
	if tok2 == "" || tok2 == tok || out != nil || err != nil {
		t.Fatalf("after the release: %q %q %v", tok2, out, err)
	}
	if held, _ := a.Renew(ctx, n, tok, lease); held {
		t.Error("the released token renewed")
	}
	if out, _ := a.LastRun(ctx, "ignored-for-a-release"); out != nil {
		t.Errorf("a release kept a run: %q", out)
	}
	if err := b.Complete(ctx, n, tok2, []byte(`{"executed":true}`), until, ""); err != nil {
		t.Fatal(err)
	}
	if err := b.Complete(ctx, n, tok2, nil, until, ""); err != nil {
		t.Fatal(err)
	}
	if _, out, _ := a.Claim(ctx, "caller", n, until, lease); string(out) != `{"executed":true}` {
		t.Errorf("a release after the outcome removed it: %q", out)
	}
}

// TestReplayGuard_LastRun: a completed run is kept under its call for
// mcp.LastRunTTL, for every replica; the latest run replaces an earlier
// one; a call nobody ran, or an outcome recorded with no call (the route
// never ran), has none; a call name out of bounds is refused.
func TestReplayGuard_LastRun(t *testing.T) {
	t.Parallel()
	p := testPrefix(t)
	rdb := newClient(t, sharedAddr)
	a := redisstore.NewReplayGuard(rdb, redisstore.WithPrefix(p), patient)
	b := redisstore.NewReplayGuard(newClient(t, sharedAddr), redisstore.WithPrefix(p), patient)
	ctx := context.Background()
	until, lease := time.Now().Add(time.Minute), time.Minute
	const call = "Wq0Cq3Jk7x0hQm3G1bPq8u1Vb6Vx2bH4cK0mA9sZt1E"
	if out, err := b.LastRun(ctx, call); out != nil || err != nil {
		t.Fatalf("before any run: %q %v", out, err)
	}
	n := nonce()
	tok, _, _ := a.Claim(ctx, "caller", n, until, lease)
	if err := a.Complete(ctx, n, tok, []byte(`{"executed":true,"status":200,"at":1}`), until, call); err != nil {
		t.Fatal(err)
	}
	if out, err := b.LastRun(ctx, call); string(out) != `{"executed":true,"status":200,"at":1}` || err != nil {
		t.Errorf("on the other replica: %q %v", out, err)
	}
	ttl, err := rdb.PTTL(ctx, p+"ran:"+call).Result()
	if err != nil || ttl <= mcp.LastRunTTL-time.Minute || ttl > mcp.LastRunTTL {
		t.Errorf("the run's TTL is %v (%v), want about %v", ttl, err, mcp.LastRunTTL)
	}
	// A second confirmation of the same call: its run replaces the first,
	// even when its own lease was taken over (it ran all the same).
	n2 := nonce()
	tok2, _, _ := b.Claim(ctx, "caller", n2, until, lease)
	if err := b.Complete(ctx, n2, tok2+"-taken-over", []byte(`{"executed":true,"status":204,"at":2}`), until, call); err != nil {
		t.Fatal(err)
	}
	if out, _ := a.LastRun(ctx, call); string(out) != `{"executed":true,"status":204,"at":2}` {
		t.Errorf("the latest run: %q", out)
	}
	// An outcome with no call records no run.
	n3 := nonce()
	tok3, _, _ := a.Claim(ctx, "caller", n3, until, lease)
	a.Complete(ctx, n3, tok3, []byte(`{"executed":false}`), until, "")
	if keys, _ := rdb.Keys(ctx, p+"ran:*").Result(); len(keys) != 1 {
		t.Errorf("run keys %v, want the one call's", keys)
	}
	if out, err := a.LastRun(ctx, ""); out != nil || err != nil {
		t.Errorf("no call: %q %v", out, err)
	}
	if _, err := a.LastRun(ctx, strings.Repeat("x", 129)); err == nil {
		t.Error("a call name over 128 bytes was looked up")
	}
	n4 := nonce()
	tok4, _, _ := a.Claim(ctx, "caller", n4, until, lease)
	if err := a.Complete(ctx, n4, tok4, []byte(`{"executed":true}`), until, strings.Repeat("x", 129)); err == nil {
		t.Error("a call name over 128 bytes was kept")
	}
}
