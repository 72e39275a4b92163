package main

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
	"github.com/mcpdual/mcpdual/mcp/redisstore"
	"github.com/mcpdual/mcpdual/mrtr"
)

// Design record 020: the Idempotency-Key claim is a lease renewed while
// the route runs, in memory and in Redis.

// idemStores opens a memory and a Redis store (the Redis one on a
// database of its own), each with the given lease. Each is opened in its
// own subtest, so a machine without redis-server skips the Redis case
// only, never the memory one.
func idemStores(lease time.Duration) map[string]func(*testing.T) idemStore {
	return map[string]func(*testing.T) idemStore{
		"memory": func(*testing.T) idemStore { m := newMemoryIdem(); m.lease = lease; return m },
		"redis": func(t *testing.T) idemStore {
			r := newRedisIdem(testRedis(t), "test:")
			r.lease = lease
			return r
		},
	}
}

// writerCtx is a request context of a caller allowed to write, in ws1.
func writerCtx() context.Context {
	ctx := auth.NewContext(context.Background(), &auth.Principal{Issuer: "https://issuer.example", Subject: "alice", Scopes: []string{scopeWrite}})
	return auth.NewWorkspaceContext(ctx, "ws1")
}

func keyedRequest(ctx context.Context, key string) *http.Request {
	r := httptest.NewRequest("POST", "http://localhost/api/v1/things", strings.NewReader(`{}`)).WithContext(ctx)
	r.Header.Set("Idempotency-Key", key)
	return r
}

// TestIdemLease_DeadRunTakenOver: a run that stops renewing (its replica
// died) holds its key until its lease lapses, not longer: a request
// waiting for it then takes the key over and runs; the dead run's late
// answer changes nothing.
func TestIdemLease_DeadRunTakenOver(t *testing.T) {
	for name, open := range idemStores(300 * time.Millisecond) {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			ctx := context.Background()
			fp := [32]byte{7}
			dead, err := s.begin(ctx, "alice", "k-dead", fp)
			if err != nil || !dead.run {
				t.Fatalf("first: %+v %v", dead, err)
			}
			wait, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			next, err := s.begin(wait, "alice", "k-dead", fp)
			if err != nil || !next.run {
				t.Fatalf("after the lease lapsed: %+v %v, want to run", next, err)
			}
			if held, err := s.renew(ctx, "alice", "k-dead", dead); held || err != nil {
				t.Errorf("the dead run renewed: %v %v", held, err)
			}
			_ = s.finish(ctx, "alice", "k-dead", dead, &idemAnswer{Status: 200, Body: []byte("late")}, true)
			if err := s.finish(ctx, "alice", "k-dead", next, &idemAnswer{Status: 200, Body: []byte("mine")}, true); err != nil {
				t.Fatal(err)
			}
			c, err := s.begin(ctx, "alice", "k-dead", fp)
			if err != nil || c.run || c.answer == nil || string(c.answer.Body) != "mine" {
				t.Errorf("a later request: %+v %v, want the taking-over run's answer", c, err)
			}
		})
	}
}

// TestIdemLease_LiveRunKeepsIt: a route that runs for several leases
// keeps its key (the wrapper renews it): a request with the same key
// meanwhile waits, and gets the first answer; the route runs once.
func TestIdemLease_LiveRunKeepsIt(t *testing.T) {
	// Leases long enough that a loaded machine still renews in time.
	for name, open := range idemStores(500 * time.Millisecond) {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			m := &idempotency{store: s}
			var runs atomic.Int64
			started := make(chan struct{})
			h := m.wrap(func(w http.ResponseWriter, r *http.Request) {
				if runs.Add(1) == 1 {
					close(started)
				}
				time.Sleep(1600 * time.Millisecond) // over three leases
				w.WriteHeader(http.StatusCreated)
				w.Write([]byte(`{"id":"t1"}`))
			})
			first := httptest.NewRecorder()
			done := make(chan struct{})
			go func() { defer close(done); h(first, keyedRequest(writerCtx(), "k-live")) }()
			<-started
			second := httptest.NewRecorder()
			h(second, keyedRequest(writerCtx(), "k-live"))
			<-done
			if runs.Load() != 1 || first.Code != 201 || second.Code != 201 || second.Body.String() != `{"id":"t1"}` ||
				second.Header().Get("Idempotent-Replayed") != "true" {
				t.Errorf("runs %d; first %d %s; second %d %s %v", runs.Load(), first.Code, first.Body, second.Code, second.Body, second.Header())
			}
		})
	}
}

// TestIdemLease_InterruptedFreesTheKey: a route that gives up without
// writing because its request ended stores nothing (not the recorder's
// default 200) and writes nothing; the next request with the key runs.
func TestIdemLease_InterruptedFreesTheKey(t *testing.T) {
	for name, open := range idemStores(idemLease) {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			m := &idempotency{store: s}
			var runs, completed atomic.Int64
			ctx, cancel := context.WithCancel(writerCtx())
			defer cancel()
			h := m.wrap(func(w http.ResponseWriter, r *http.Request) {
				if runs.Add(1) == 1 {
					cancel() // the caller leaves while the route runs
					<-r.Context().Done()
					return
				}
				completed.Add(1)
				w.Write([]byte(`{"ok":true}`))
			})
			gone := httptest.NewRecorder()
			h(gone, keyedRequest(ctx, "k-int"))
			if gone.Body.Len() != 0 || completed.Load() != 0 {
				t.Fatalf("the interrupted request wrote %d %q", gone.Code, gone.Body)
			}
			// No lease is left to wait for: the retry runs at once.
			quick, stop := context.WithTimeout(writerCtx(), time.Second)
			defer stop()
			retry := httptest.NewRecorder()
			h(retry, keyedRequest(quick, "k-int"))
			if runs.Load() != 2 || completed.Load() != 1 || retry.Code != 200 || retry.Header().Get("Idempotent-Replayed") != "" {
				t.Errorf("runs %d, completed %d; retry %d %v %s", runs.Load(), completed.Load(), retry.Code, retry.Header(), retry.Body)
			}
		})
	}
}

// TestIdemLease_CrashMidCall is the reliability run's repro, in process:
// two replicas share Redis (the replay guard and the Idempotency-Keys);
// a confirmed call runs a route that takes 2 s on replica A, which dies
// 500 ms in — its client's connection is cut and it can no longer reach
// Redis, so it neither renews nor records anything. The client retries on
// replica B, each attempt giving up after 4 s as a client would. It is
// never told that the call ran while no route body had completed; once
// the leases lapse, B runs the route with the same Idempotency-Key, the
// body completes, and then it is told so.
func TestIdemLease_CrashMidCall(t *testing.T) {
	rdb := testRedis(t)
	var completed atomic.Int64 // route bodies that ran their 2 s
	var mu sync.Mutex
	keys := map[string]int{}
	type replica struct {
		url    string
		rdb    *redis.Client
		closeS func()
	}
	ring := testRing(t)
	start := func() replica {
		c := redis.NewClient(rdb.Options())
		idem := &idempotency{store: newRedisIdem(c, "crash:")}
		slow := idem.wrap(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			keys[r.Header.Get("Idempotency-Key")]++
			mu.Unlock()
			select {
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
				return // killed (or its caller left): it did not complete
			}
			completed.Add(1)
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"wiped":true}`))
		})
		mux := http.NewServeMux()
		mux.HandleFunc("DELETE /wipe", func(w http.ResponseWriter, r *http.Request) {
			// The identity the inbox's routes read (the endpoint runs
			// without auth here).
			ctx := auth.NewWorkspaceContext(auth.NewContext(r.Context(),
				&auth.Principal{Issuer: "https://issuer.example", Subject: "alice", Scopes: []string{scopeWrite}}), "ws1")
			slow(w, r.WithContext(ctx))
		})
		srv := mcp.NewServer(mcp.Implementation{Name: "crash", Version: "1"})
		srv.AddTool(mcp.Tool{Name: "wipe", Annotations: mcp.Annotations{Destructive: true}}, "DELETE /wipe", mux)
		h := mcp.NewHandler(srv, []mcp.Era{era2026.New(era2026.WithSealer(mrtr.NewSealer(ring)))},
			mcp.WithReplayGuard(redisstore.NewReplayGuard(c, redisstore.WithPrefix("crash:"))),
			mcp.WithLogger(slog.New(slog.DiscardHandler)))
		ts := httptest.NewServer(h)
		t.Cleanup(func() { ts.Close(); c.Close() })
		return replica{url: ts.URL, rdb: c, closeS: ts.Close}
	}
	a, b := start(), start()
	dial := func(url string) *mcptest.Client {
		return mcptest.Dial(url, mcp.Version20260728, mcptest.WithCapabilities([]byte(`{"elicitation":{}}`)))
	}
	params := map[string]any{"name": "wipe", "arguments": map[string]any{}}
	r, err := dial(a.url).Call(context.Background(), "tools/call", params)
	state := requestState(r)
	if err != nil || state == "" {
		t.Fatalf("round 1: %v %s", err, rawOf(r))
	}
	params["requestState"] = state
	params["inputResponses"] = map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]bool{"confirm": true}}}

	// On A: killed 500 ms into the route.
	killCtx, kill := context.WithTimeout(context.Background(), 500*time.Millisecond)
	go func() {
		<-killCtx.Done()
		a.rdb.Close() // A can no longer renew, release or record anything
	}()
	if r, err := dial(a.url).Call(killCtx, "tools/call", params); err == nil {
		t.Fatalf("replica A answered before it died: %s", rawOf(r))
	}
	kill()
	a.closeS()

	told := ""
	// Bounded as the held-out client is: retries for 30 s (the leases
	// lapse within about 5).
	for attempt, until := 0, time.Now().Add(30*time.Second); told == "" && time.Now().Before(until); attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
		r, err := dial(b.url).Call(ctx, "tools/call", params)
		cancel()
		o := outcome(r, err)
		ranNow := completed.Load() > 0
		switch {
		case o == "executed" || o == "confirmation_already_used":
			if !ranNow {
				t.Fatalf("attempt %d told %q (%s) and no route body completed", attempt, o, rawOf(r))
			}
			told = o
		case o == "confirmation_in_progress" || o == "confirmation_interrupted" || errors.Is(err, context.DeadlineExceeded) || o == "transport_error":
			time.Sleep(200 * time.Millisecond)
		default:
			t.Fatalf("attempt %d: %s %v %s", attempt, o, err, rawOf(r))
		}
	}
	if told == "" {
		t.Fatalf("never told the outcome; bodies completed %d", completed.Load())
	}
	mu.Lock()
	defer mu.Unlock()
	if completed.Load() != 1 || len(keys) != 1 {
		t.Errorf("%d bodies completed, keys %v: want B's run, with A's Idempotency-Key", completed.Load(), keys)
	}
	for k, n := range keys {
		if k == "" || n != 2 {
			t.Errorf("Idempotency-Key %q reached the route %d times, want 2 (A's and B's run)", k, n)
		}
	}
}
