package redisstore_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/mcptest/storetest"
	"github.com/mcpdual/mcpdual/mcp/redisstore"
)

func TestEventBus_Contract(t *testing.T) {
	t.Parallel()
	for _, d := range deployments {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			storetest.EventBus(t, func(t *testing.T) storetest.Fleet[mcp.EventBus] {
				return openFleet(t, d, func(rdb redis.UniversalClient, opts ...redisstore.Option) mcp.EventBus {
					b := redisstore.NewEventBus(rdb, opts...)
					t.Cleanup(func() { b.Close() })
					return b
				})
			})
		})
	}
}

func TestSessionStore_Contract(t *testing.T) {
	t.Parallel()
	// A Ring serves the store too: a script touches one key.
	ring := deployment{"ring", func(t testing.TB) redis.UniversalClient {
		r := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": sharedAddr}, ContextTimeoutEnabled: true})
		t.Cleanup(func() { r.Close() })
		return r
	}, testPrefix}
	for _, d := range append(deployments[:len(deployments):len(deployments)], ring) {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			storetest.SessionStore(t, func(t *testing.T) storetest.Fleet[mcp.SessionStore] {
				return openFleet(t, d, func(rdb redis.UniversalClient, opts ...redisstore.Option) mcp.SessionStore {
					return redisstore.NewSessionStore(rdb, opts...)
				})
			})
		})
	}
}

// TestEventBus_Names: the bus publishes on <prefix>events, where each
// replica holds one subscription connection however many subscriptions
// it has (on a cluster a sharded one, on the channel's node); Close ends
// them with an error, and the bus refuses new ones.
func TestEventBus_Names(t *testing.T) {
	t.Parallel()
	for _, d := range deployments {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			p := d.prefix(t)
			rdb := d.client(t)
			channel := p + "events"
			ctx := context.Background()
			listeners := func() int64 { t.Helper(); return subscribers(t, ctx, rdb, channel) }
			a := redisstore.NewEventBus(d.client(t), redisstore.WithPrefix(p), patient)
			defer a.Close()
			b := redisstore.NewEventBus(d.client(t), redisstore.WithPrefix(p), patient)
			defer b.Close()
			var stops []func() error
			var chans []<-chan []byte
			for range 3 {
				ch, stop, err := a.Subscribe(ctx)
				if err != nil {
					t.Fatal(err)
				}
				chans, stops = append(chans, ch), append(stops, stop)
			}
			if _, stop, err := b.Subscribe(ctx); err != nil {
				t.Fatal(err)
			} else {
				defer stop()
			}
			if n := listeners(); n != 2 {
				t.Errorf("%d listeners on %s for two replicas, want 2", n, channel)
			}
			if err := b.Publish(ctx, []byte("e")); err != nil {
				t.Fatal(err)
			}
			for _, ch := range chans {
				if got := <-ch; string(got) != "e" {
					t.Errorf("got %q", got)
				}
			}
			if err := a.Close(); err != nil {
				t.Fatal(err)
			}
			for i, ch := range chans {
				for range ch {
				}
				if err := stops[i](); err == nil || !strings.Contains(err.Error(), "closed") {
					t.Errorf("a subscription ended by Close: %v, want the bus closed", err)
				}
			}
			eventually(t, "one listener left after Close", func() error {
				if n := listeners(); n != 1 {
					return fmt.Errorf("%d listeners", n)
				}
				return nil
			})
			if _, _, err := a.Subscribe(ctx); err == nil {
				t.Error("a closed bus subscribed")
			}
		})
	}
}

// TestEventBus_Outage: with Redis hung, a subscription open ends with an
// error within the heartbeat and the timeout, and Subscribe and Publish
// fail within the timeout; with Redis stopped, the same; once Redis is
// back, a new subscription receives again.
func TestEventBus_Outage(t *testing.T) {
	t.Parallel()
	srv := ownRedis(t)
	const timeout = 200 * time.Millisecond
	b := redisstore.NewEventBus(newClient(t, srv.addr), redisstore.WithTimeout(timeout))
	defer b.Close()
	ctx := context.Background()
	// open subscribes and shows the subscription receives.
	open := func() (<-chan []byte, func() error, error) {
		ch, stop, err := b.Subscribe(ctx)
		if err != nil {
			return nil, nil, err
		}
		if err := b.Publish(ctx, []byte("up")); err != nil {
			stop()
			return nil, nil, err
		}
		select {
		case got := <-ch:
			if string(got) != "up" {
				return nil, nil, fmt.Errorf("got %q", got)
			}
		case <-time.After(5 * time.Second):
			stop()
			return nil, nil, fmt.Errorf("nothing arrived: %v", stop())
		}
		return ch, stop, nil
	}
	var ch <-chan []byte
	var stop func() error
	eventually(t, "the bus before the outage", func() (err error) { ch, stop, err = open(); return err })
	// ended checks that the open subscription ends with an error (in a
	// heartbeat and the timeout; the test waits far longer, so that it
	// fails only on a subscription that would wait forever).
	ended := func(what string) {
		t.Helper()
		select {
		case _, ok := <-ch:
			if ok {
				t.Errorf("%s: an event arrived", what)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the subscription did not end", what)
		}
		if err := stop(); err == nil || !strings.HasPrefix(err.Error(), "redisstore: subscription: ") {
			t.Errorf("%s: the subscription ended with %v", what, err)
		}
	}
	refused := func(what string) {
		t.Helper()
		start := time.Now()
		if _, _, err := b.Subscribe(ctx); err == nil || time.Since(start) > timeout+overrun {
			t.Errorf("%s: Subscribe: %v after %v", what, err, time.Since(start))
		}
		start = time.Now()
		if err := b.Publish(ctx, []byte("x")); err == nil || time.Since(start) > timeout+overrun {
			t.Errorf("%s: Publish: %v after %v", what, err, time.Since(start))
		}
	}
	srv.pause()
	t.Cleanup(srv.resume)
	ended("hung")
	refused("hung")
	srv.resume()
	eventually(t, "the bus after the pause", func() (err error) { ch, stop, err = open(); return err })
	srv.stop()
	ended("stopped")
	refused("stopped")
	srv.restart(t)
	eventually(t, "the bus after a restart", func() (err error) { ch, stop, err = open(); return err })
	stop()
}

// TestEventBus_Refusals: a Ring and FailOpen are refused.
func TestEventBus_Refusals(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]func(){
		"ring": func() {
			redisstore.NewEventBus(redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": sharedAddr}}))
		},
		"fail open": func() { redisstore.NewEventBus(newClient(t, sharedAddr), redisstore.FailOpen(nil)) },
		"nil":       func() { redisstore.NewEventBus(nil) },
		"sessions fail open": func() {
			redisstore.NewSessionStore(newClient(t, sharedAddr), redisstore.FailOpen(nil))
		},
		"sessions prefix": func() {
			redisstore.NewSessionStore(newClient(t, sharedAddr), redisstore.WithPrefix("a{b"))
		},
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

// TestSessionStore_Names: a session's state is one hash,
// <prefix>session:{<key>} (on a cluster in the key's slot), which expires
// at the session's until and holds no id; the later of two untils holds.
func TestSessionStore_Names(t *testing.T) {
	t.Parallel()
	for _, d := range deployments {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			p := d.prefix(t)
			rdb := d.client(t)
			s := redisstore.NewSessionStore(d.client(t), redisstore.WithPrefix(p), patient)
			ctx := context.Background()
			id := rand.Text()
			h := sha256.Sum256([]byte(id))
			key := base64.RawURLEncoding.EncodeToString(h[:])
			until := time.Now().Add(time.Hour)
			if ok, err := s.Subscribe(ctx, key, "test://a", 4, until); !ok || err != nil {
				t.Fatal(ok, err)
			}
			if err := s.SetLevel(ctx, key, "debug", until.Add(-30*time.Minute)); err != nil {
				t.Fatal(err)
			}
			name := p + "session:{" + key + "}"
			fields, err := rdb.HGetAll(ctx, name).Result()
			if err != nil || len(fields) != 2 || fields["l"] != "debug" || fields["u:test://a"] != "1" {
				t.Errorf("%s holds %v (%v)", name, fields, err)
			}
			ttl, err := rdb.PTTL(ctx, name).Result()
			if err != nil || ttl <= 59*time.Minute || ttl > time.Hour {
				t.Errorf("%s has TTL %v (%v), want about an hour", name, ttl, err)
			}
			keys, err := scan(ctx, rdb, p)
			if err != nil || len(keys) != 1 || keys[0] != name {
				t.Errorf("keys under the prefix: %v (%v), want only %s", keys, err, name)
			}
			for _, k := range keys {
				if strings.Contains(k, id) {
					t.Errorf("key %s holds the session id", k)
				}
			}
			if cc, ok := rdb.(*redis.ClusterClient); ok {
				slot, _ := cc.ClusterKeySlot(ctx, name).Result()
				tag, _ := cc.ClusterKeySlot(ctx, key).Result()
				if slot != tag {
					t.Errorf("%s in slot %d, its key's tag in %d", name, slot, tag)
				}
			}
		})
	}
}

// TestSessionStore_ExpiryByTheReplicasClock: a replica judges a
// session's expiry by its own clock, and the store keeps the session's
// state for as long as that clock says, whatever Redis's clock reads: a
// replica an hour ahead of Redis (or Redis an hour behind it) keeps a
// session that has ten minutes left for ten minutes, not seventy, and one
// whose expiry has passed not at all; in the other direction, for ten
// minutes, not zero.
func TestSessionStore_ExpiryByTheReplicasClock(t *testing.T) {
	t.Parallel()
	rdb := newClient(t, sharedAddr)
	p := testPrefix(t)
	ctx := context.Background()
	for _, skew := range []time.Duration{time.Hour, -time.Hour} {
		s := redisstore.NewSessionStore(rdb, redisstore.WithPrefix(p), patient)
		redisstore.SetSessionClockForTest(s, func() time.Time { return time.Now().Add(skew) })
		h := sha256.Sum256([]byte(rand.Text()))
		key := base64.RawURLEncoding.EncodeToString(h[:])
		name := p + "session:{" + key + "}"
		if ok, err := s.Subscribe(ctx, key, "test://a", 4, time.Now().Add(skew+10*time.Minute)); !ok || err != nil {
			t.Fatal(ok, err)
		}
		if ttl, err := rdb.PTTL(ctx, name).Result(); err != nil || !near(ttl, 10*time.Minute, 5*time.Second) {
			t.Errorf("replica's clock %+v: Subscribe with ten minutes left: TTL %v (%v), want about 10m", skew, ttl, err)
		}
		if err := s.SetLevel(ctx, key, "debug", time.Now().Add(skew+20*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if ttl, err := rdb.PTTL(ctx, name).Result(); err != nil || !near(ttl, 20*time.Minute, 5*time.Second) {
			t.Errorf("replica's clock %+v: SetLevel with twenty minutes left: TTL %v (%v), want about 20m", skew, ttl, err)
		}
		hp := sha256.Sum256([]byte(rand.Text()))
		past := base64.RawURLEncoding.EncodeToString(hp[:])
		if _, err := s.Subscribe(ctx, past, "test://a", 4, time.Now().Add(skew-time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := s.SetLevel(ctx, past, "info", time.Now().Add(skew-time.Minute)); err != nil {
			t.Fatal(err)
		}
		if uris, level, err := s.Load(ctx, past); len(uris) != 0 || level != "" || err != nil {
			t.Errorf("replica's clock %+v: a session a minute past its expiry holds %q, %q (%v); want nothing", skew, uris, level, err)
		}
	}
}

// TestStores_ReadYourWritesOnReplicaReadingClients: a cluster client that
// reads from replicas (ReadOnly here; RouteByLatency and RouteRandomly
// set it) sends a read to a replica, which may not have received a write
// yet. What a store reads back must still be every write that returned:
// a session's subscriptions and level (the SessionStore contract), and
// the run a confirmation question reports. The replica here is a server
// that never receives the master's writes, a replica lagging for good.
func TestStores_ReadYourWritesOnReplicaReadingClients(t *testing.T) {
	t.Parallel()
	master, replica := ownRedis(t), ownRedis(t)
	cc := redis.NewClusterClient(&redis.ClusterOptions{
		ClusterSlots: func(context.Context) ([]redis.ClusterSlot, error) {
			return []redis.ClusterSlot{{Start: 0, End: 16383, Nodes: []redis.ClusterNode{{Addr: master.addr}, {Addr: replica.addr}}}}, nil
		},
		ReadOnly:              true,
		ContextTimeoutEnabled: true,
	})
	defer cc.Close()
	ctx := context.Background()
	// The routing this test stands on: a plain read goes to the replica.
	if err := cc.Set(ctx, "probe", "1", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	if n, err := cc.Exists(ctx, "probe").Result(); n != 0 || err != nil {
		t.Fatalf("a read through the client found the master's key (%d, %v): it does not read from the replica", n, err)
	}

	s := redisstore.NewSessionStore(cc, patient)
	h := sha256.Sum256([]byte(rand.Text()))
	key := base64.RawURLEncoding.EncodeToString(h[:])
	until := time.Now().Add(time.Hour)
	if ok, err := s.Subscribe(ctx, key, "test://a", 4, until); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if err := s.SetLevel(ctx, key, "debug", until); err != nil {
		t.Fatal(err)
	}
	if uris, level, err := s.Load(ctx, key); len(uris) != 1 || uris[0] != "test://a" || level != "debug" || err != nil {
		t.Errorf("Load after Subscribe and SetLevel: %q, %q, %v; want [test://a], debug", uris, level, err)
	}

	g := redisstore.NewReplayGuard(cc, patient)
	const call = "Wq0Cq3Jk7x0hQm3G1bPq8u1Vb6Vx2bH4cK0mA9sZt1E"
	n := nonce()
	tok, _, err := g.Claim(ctx, "caller", n, until, time.Minute)
	if err != nil || tok == "" {
		t.Fatal(tok, err)
	}
	const ran = `{"executed":true,"status":200,"at":1}`
	if err := g.Complete(ctx, n, tok, []byte(ran), until, call); err != nil {
		t.Fatal(err)
	}
	if out, err := g.LastRun(ctx, call); string(out) != ran || err != nil {
		t.Errorf("LastRun after Complete: %q, %v; want %s", out, err, ran)
	}
}

// TestSessionStore_Outage: with Redis hung or stopped every call fails
// within the timeout.
func TestSessionStore_Outage(t *testing.T) {
	t.Parallel()
	srv := ownRedis(t)
	const timeout = 200 * time.Millisecond
	s := redisstore.NewSessionStore(newClient(t, srv.addr), redisstore.WithTimeout(timeout))
	ctx := context.Background()
	h := sha256.Sum256([]byte("x"))
	key := base64.RawURLEncoding.EncodeToString(h[:])
	until := time.Now().Add(time.Hour)
	eventually(t, "the store before the outage", func() error { _, err := s.Subscribe(ctx, key, "test://a", 4, until); return err })
	check := func(what string) {
		t.Helper()
		for name, f := range map[string]func() error{
			"Subscribe":   func() error { _, err := s.Subscribe(ctx, key, "test://b", 4, until); return err },
			"Unsubscribe": func() error { return s.Unsubscribe(ctx, key, "test://a") },
			"SetLevel":    func() error { return s.SetLevel(ctx, key, "info", until) },
			"Load":        func() error { _, _, err := s.Load(ctx, key); return err },
		} {
			start := time.Now()
			if err := f(); err == nil || time.Since(start) > timeout+overrun || !strings.HasPrefix(err.Error(), "redisstore: session ") {
				t.Errorf("%s: %s: %v after %v", what, name, err, time.Since(start))
			}
		}
	}
	srv.pause()
	t.Cleanup(srv.resume)
	check("hung")
	srv.resume()
	srv.stop()
	check("stopped")
}
