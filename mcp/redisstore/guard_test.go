package redisstore_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"strings"
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

// TestReplayGuard_ShortLease: a lease under a millisecond, or of none, is
// a lease that lapses at once, as the in-memory guard takes it; it is
// not a failure to decide (which the endpoint answers 503). Redis counts
// leases in whole milliseconds, and one truncated to 0 is refused by SET
// (and deletes the key under PEXPIRE).
func TestReplayGuard_ShortLease(t *testing.T) {
	t.Parallel()
	rdb := newClient(t, sharedAddr)
	p := testPrefix(t)
	g := redisstore.NewReplayGuard(rdb, redisstore.WithPrefix(p), patient)
	ctx := context.Background()
	until := time.Now().Add(time.Hour)
	for _, lease := range []time.Duration{500 * time.Microsecond, time.Nanosecond, 0, -time.Second} {
		n := nonce()
		tok, out, err := g.Claim(ctx, "caller", n, until, lease)
		if err != nil || tok == "" || out != nil {
			t.Errorf("a claim with a lease of %v: token %q, outcome %q, err %v; want a token", lease, tok, out, err)
		}
		// Lapsed or not, the claim is still its holder's to complete: the
		// key is gone or the token's.
		if err := g.Complete(ctx, n, tok, []byte(`{"executed":true}`), until, ""); err != nil {
			t.Fatal(err)
		}
		if _, out, err := g.Claim(ctx, "caller", n, until, lease); string(out) != `{"executed":true}` || err != nil {
			t.Errorf("lease %v: the claim after the outcome got %q, %v", lease, out, err)
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

// TestReplayGuard_Namespace: a prefix is a namespace of its own.
func TestReplayGuard_Namespace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	n, until := nonce(), time.Now().Add(time.Minute)
	for _, p := range []string{testPrefix(t), testPrefix(t)} {
		g := redisstore.NewReplayGuard(newClient(t, sharedAddr), redisstore.WithPrefix(p), patient)
		if tok, _, err := g.Claim(ctx, "caller", n, until, time.Minute); tok == "" || err != nil {
			t.Errorf("prefix %s: %q %v", p, tok, err)
		}
	}
}

// TestReplayGuard_RunKey: a run is kept under "ran:" and its call for
// mcp.LastRunTTL (the contract suite cannot sleep that long), only for an
// outcome with a call; a call name out of bounds is refused.
func TestReplayGuard_RunKey(t *testing.T) {
	t.Parallel()
	p := testPrefix(t)
	rdb := newClient(t, sharedAddr)
	g := redisstore.NewReplayGuard(rdb, redisstore.WithPrefix(p), patient)
	ctx := context.Background()
	until, lease := time.Now().Add(time.Minute), time.Minute
	const call = "Wq0Cq3Jk7x0hQm3G1bPq8u1Vb6Vx2bH4cK0mA9sZt1E"
	n := nonce()
	tok, _, _ := g.Claim(ctx, "caller", n, until, lease)
	if err := g.Complete(ctx, n, tok, []byte(`{"executed":true,"status":200,"at":1}`), until, call); err != nil {
		t.Fatal(err)
	}
	ttl, err := rdb.PTTL(ctx, p+"ran:"+call).Result()
	if err != nil || ttl <= mcp.LastRunTTL-time.Minute || ttl > mcp.LastRunTTL {
		t.Errorf("the run's TTL is %v (%v), want about %v", ttl, err, mcp.LastRunTTL)
	}
	n2 := nonce()
	tok2, _, _ := g.Claim(ctx, "caller", n2, until, lease)
	g.Complete(ctx, n2, tok2, []byte(`{"executed":false}`), until, "")
	n3 := nonce()
	tok3, _, _ := g.Claim(ctx, "caller", n3, until, lease)
	g.Complete(ctx, n3, tok3, nil, until, "Xq0Cq3Jk7x0hQm3G1bPq8u1Vb6Vx2bH4cK0mA9sZt1E")
	if keys, _ := rdb.Keys(ctx, p+"ran:*").Result(); len(keys) != 1 {
		t.Errorf("run keys %v, want the one call's", keys)
	}
	if _, err := g.LastRun(ctx, strings.Repeat("x", 129)); err == nil {
		t.Error("a call name over 128 bytes was looked up")
	}
	n4 := nonce()
	tok4, _, _ := g.Claim(ctx, "caller", n4, until, lease)
	if err := g.Complete(ctx, n4, tok4, []byte(`{"executed":true}`), until, strings.Repeat("x", 129)); err == nil {
		t.Error("a call name over 128 bytes was kept")
	}
}
