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

	"github.com/mcpdual/mcpdual/mcp/redisstore"
)

func nonce() []byte {
	b := make([]byte, 16)
	rand.Read(b)
	return b
}

// TestReplayGuard_Once: the first use of a nonce, on any replica, is the
// only one.
func TestReplayGuard_Once(t *testing.T) {
	t.Parallel()
	p := testPrefix(t)
	a := redisstore.NewReplayGuard(newClient(t, sharedAddr), redisstore.WithPrefix(p), patient)
	b := redisstore.NewReplayGuard(newClient(t, sharedAddr), redisstore.WithPrefix(p), patient)
	ctx := context.Background()
	n, until := nonce(), time.Now().Add(5*time.Minute)
	for i, want := range []bool{true, false, false} {
		g := []*redisstore.ReplayGuard{a, b, a}[i]
		if first, err := g.Consume(ctx, n, until); err != nil || first != want {
			t.Errorf("use %d: first=%v, %v; want %v", i+1, first, err, want)
		}
	}
	if first, err := b.Consume(ctx, nonce(), until); err != nil || !first {
		t.Errorf("another nonce: first=%v, %v", first, err)
	}
	// Another prefix is another namespace.
	c := redisstore.NewReplayGuard(newClient(t, sharedAddr), redisstore.WithPrefix(testPrefix(t)), patient)
	if first, err := c.Consume(ctx, n, until); err != nil || !first {
		t.Errorf("another prefix: first=%v, %v", first, err)
	}
	if _, err := a.Consume(ctx, nil, until); err == nil {
		t.Error("an empty nonce was accepted")
	}
}

// TestReplayGuard_Concurrent: 50 uses of one nonce racing on two replicas,
// exactly one first.
func TestReplayGuard_Concurrent(t *testing.T) {
	t.Parallel()
	p := testPrefix(t)
	guards := []*redisstore.ReplayGuard{
		redisstore.NewReplayGuard(newClient(t, sharedAddr), redisstore.WithPrefix(p), patient),
		redisstore.NewReplayGuard(newClient(t, sharedAddr), redisstore.WithPrefix(p), patient),
	}
	n, until := nonce(), time.Now().Add(time.Minute)
	var firsts atomic.Int64
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			first, err := guards[i%2].Consume(context.Background(), n, until)
			if err != nil {
				t.Error(err)
			}
			if first {
				firsts.Add(1)
			}
		})
	}
	wg.Wait()
	if got := firsts.Load(); got != 1 {
		t.Errorf("%d of 50 racing uses were first", got)
	}
}

// TestReplayGuard_Key: the entry sits under the prefix and lives until
// the confirmation expires, plus the ten-minute margin for replicas'
// skew.
func TestReplayGuard_Key(t *testing.T) {
	t.Parallel()
	rdb := newClient(t, sharedAddr)
	p := testPrefix(t)
	g := redisstore.NewReplayGuard(rdb, redisstore.WithPrefix(p), patient)
	ctx := context.Background()
	for _, ahead := range []time.Duration{5 * time.Minute, 90 * time.Second, -time.Hour} {
		n := nonce()
		if first, err := g.Consume(ctx, n, time.Now().Add(ahead)); err != nil || !first {
			t.Fatalf("first=%v, %v", first, err)
		}
		key := p + "confirm:" + base64.RawURLEncoding.EncodeToString(n)
		ttl, err := rdb.PTTL(ctx, key).Result()
		// An expiry already past still keeps the entry for the margin.
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

// TestReplayGuard_Outage: with Redis stopped or hung, Consume fails within
// the timeout, never claiming a first use; it works again once Redis is
// back.
func TestReplayGuard_Outage(t *testing.T) {
	t.Parallel()
	srv := ownRedis(t)
	const timeout = 200 * time.Millisecond
	g := redisstore.NewReplayGuard(newClient(t, srv.addr), redisstore.WithTimeout(timeout))
	ctx := context.Background()
	until := time.Now().Add(time.Minute)
	eventually(t, "the guard before the outage", func() error {
		_, err := g.Consume(ctx, nonce(), until)
		return err
	})
	check := func(what string) {
		t.Helper()
		start := time.Now()
		first, err := g.Consume(ctx, nonce(), until)
		if err == nil || first || time.Since(start) > timeout+overrun || !strings.HasPrefix(err.Error(), "redisstore: replay guard: ") {
			t.Errorf("%s: first=%v, %v after %v", what, first, err, time.Since(start))
		}
	}
	srv.pause()
	t.Cleanup(srv.resume)
	check("hung")
	srv.resume()
	srv.stop()
	check("stopped")
	srv.restart(t)
	n := nonce()
	eventually(t, "the guard after a restart", func() error {
		_, err := g.Consume(ctx, n, until)
		return err
	})
	if first, err := g.Consume(ctx, n, until); err != nil || first {
		t.Errorf("after the restart: first=%v, %v", first, err)
	}
}
