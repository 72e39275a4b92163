package redisstore_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/redisstore"
	"github.com/mcpdual/mcpdual/mrtr"
)

// TestAnswerBus_Names: an id's channel and answered mark carry the id as
// their hash tag, so on a cluster both sit in one slot, on the node the
// publishing script runs on; the channel has a listener exactly while a
// call waits (on the cluster a sharded one, on its slot's node); a
// delivered answer marks the id for ten minutes, an undelivered one not at
// all; Close ends what still waits, and the bus refuses new waits.
func TestAnswerBus_Names(t *testing.T) {
	t.Parallel()
	for _, d := range deployments {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			p := d.prefix(t)
			rdb := d.client(t)
			waiter := redisstore.NewAnswerBus(d.client(t), redisstore.WithPrefix(p), patient)
			defer waiter.Close()
			other := redisstore.NewAnswerBus(rdb, redisstore.WithPrefix(p), patient)
			defer other.Close()
			ctx := context.Background()
			channel, mark := p+"answer:{q1}", p+"answered:{q1}"
			// listeners counts the subscribers of channel where it lives.
			listeners := func() int64 { t.Helper(); return subscribers(t, ctx, rdb, channel) }
			if cc, ok := rdb.(*redis.ClusterClient); ok {
				a, _ := cc.ClusterKeySlot(ctx, channel).Result()
				b, _ := cc.ClusterKeySlot(ctx, mark).Result()
				if a != b {
					t.Errorf("channel in slot %d, mark in slot %d", a, b)
				}
			}
			if ok, err := other.Publish(ctx, "q1", []byte(`early`)); ok || err != nil {
				t.Fatalf("an answer before the wait: %v %v", ok, err)
			}
			if n, _ := rdb.Exists(ctx, mark).Result(); n != 0 {
				t.Error("an undelivered answer marked the id answered")
			}
			ch, stop, err := waiter.Subscribe(ctx, "q1")
			if err != nil {
				t.Fatal(err)
			}
			if n := listeners(); n != 1 {
				t.Errorf("%d listeners on %s while a call waits, want 1", n, channel)
			}
			if ok, err := other.Publish(ctx, "q1", []byte(`answer`)); !ok || err != nil {
				t.Fatalf("publish: %v %v", ok, err)
			}
			if got := <-ch; string(got) != "answer" {
				t.Errorf("got %q", got)
			}
			if ttl, err := rdb.PTTL(ctx, mark).Result(); err != nil || ttl <= 9*time.Minute || ttl > 10*time.Minute {
				t.Errorf("the answered mark %s has TTL %v (%v), want about 10 minutes", mark, ttl, err)
			}
			stop()
			eventually(t, "the listener gone after stop", func() error {
				if n := listeners(); n != 0 {
					return fmt.Errorf("%d listeners", n)
				}
				return nil
			})
			if _, _, err := waiter.Subscribe(ctx, "q1"); err != nil {
				t.Fatal(err)
			}
			if err := waiter.Close(); err != nil {
				t.Fatal(err)
			}
			eventually(t, "the listener gone after Close", func() error {
				if n := listeners(); n != 0 {
					return fmt.Errorf("%d listeners", n)
				}
				return nil
			})
			if _, _, err := waiter.Subscribe(ctx, "q2"); err == nil {
				t.Error("a closed bus subscribed")
			}
		})
	}
}

// TestAnswerBus_Outage: with Redis hung or stopped, Subscribe and Publish
// fail within the timeout (a Subscribe waits for Redis to confirm, so a
// hung server cannot leave a call listening to nothing), and the bus
// works again once Redis is back.
func TestAnswerBus_Outage(t *testing.T) {
	t.Parallel()
	srv := ownRedis(t)
	const timeout = 200 * time.Millisecond
	b := redisstore.NewAnswerBus(newClient(t, srv.addr), redisstore.WithTimeout(timeout))
	defer b.Close()
	ctx := context.Background()
	works := func() error {
		ch, stop, err := b.Subscribe(ctx, "up")
		if err != nil {
			return err
		}
		defer stop()
		if ok, err := b.Publish(ctx, "up", []byte("x")); !ok || err != nil {
			return fmt.Errorf("publish: %v %v", ok, err)
		}
		<-ch
		return nil
	}
	eventually(t, "the bus before the outage", works)
	check := func(what string) {
		t.Helper()
		start := time.Now()
		if _, _, err := b.Subscribe(ctx, "down"); err == nil || time.Since(start) > timeout+overrun || !strings.HasPrefix(err.Error(), "redisstore: subscribe: ") {
			t.Errorf("%s: Subscribe: %v after %v", what, err, time.Since(start))
		}
		start = time.Now()
		if ok, err := b.Publish(ctx, "down", []byte("x")); ok || err == nil || time.Since(start) > timeout+overrun {
			t.Errorf("%s: Publish: %v %v after %v", what, ok, err, time.Since(start))
		}
	}
	srv.pause()
	t.Cleanup(srv.resume)
	check("hung")
	srv.resume()
	srv.stop()
	check("stopped")
	srv.restart(t)
	eventually(t, "the bus after a restart", works)
}

// TestAnswerBus_FailedSubscribeKeepsTheSharedConnection: a call whose
// context has ended before its SUBSCRIBE is written fails alone. On a
// single Redis every waiting call of a replica shares one connection;
// the failure neither re-dials it (which loses what Redis had already
// sent it: answers PUBLISH counted as delivered, for calls that then never
// get them) nor leaves the failed call's channel subscribed (an answer to
// it would count as delivered to nobody), and the call that waits still
// gets its answer.
func TestAnswerBus_FailedSubscribeKeepsTheSharedConnection(t *testing.T) {
	t.Parallel()
	srv := ownRedis(t)
	b := redisstore.NewAnswerBus(newClient(t, srv.addr), patient)
	defer b.Close()
	admin := newClient(t, srv.addr)
	ctx := context.Background()
	ch, stop, err := b.Subscribe(ctx, "waiting")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	// pubsub names each pub/sub connection by its id and the number of
	// channels it holds.
	pubsub := func() []string {
		t.Helper()
		list, err := admin.Do(ctx, "client", "list", "type", "pubsub").Text()
		if err != nil {
			t.Fatal(err)
		}
		var conns []string
		for _, line := range strings.Split(strings.TrimSpace(list), "\n") {
			var id, sub string
			for _, f := range strings.Fields(line) {
				if v, ok := strings.CutPrefix(f, "id="); ok {
					id = v
				} else if v, ok := strings.CutPrefix(f, "sub="); ok {
					sub = v
				}
			}
			conns = append(conns, "id "+id+" sub "+sub)
		}
		return conns
	}
	shared := pubsub()
	if len(shared) != 1 || !strings.HasSuffix(shared[0], " sub 1") {
		t.Fatalf("pub/sub connections while one call waits: %q", shared)
	}
	for i := range 3 {
		ended, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
		_, _, err := b.Subscribe(ended, fmt.Sprintf("late%d", i))
		cancel()
		if err == nil {
			t.Fatalf("Subscribe with a context that has ended: no error")
		}
	}
	// A call that subscribes and stops after them goes through the same
	// connection, once they are done with it.
	_, stopNext, err := b.Subscribe(ctx, "next")
	if err != nil {
		t.Fatal(err)
	}
	stopNext()
	eventually(t, "the shared connection back to the waiting call's channel", func() error {
		now := pubsub()
		if len(now) != 1 || !strings.HasPrefix(now[0], strings.TrimSuffix(shared[0], "1")) {
			t.Fatalf("pub/sub connections %q; want the one there was, %q", now, shared)
		}
		if now[0] != shared[0] {
			return fmt.Errorf("pub/sub connections %q, want %q", now, shared)
		}
		return nil
	})
	if ok, err := b.Publish(ctx, "waiting", []byte("answer")); !ok || err != nil {
		t.Fatalf("publish to the waiting call: %v %v", ok, err)
	}
	if got := <-ch; string(got) != "answer" {
		t.Errorf("the waiting call got %q", got)
	}
}

// TestAnswerBus_RefusesReplicaSubscriptions: a cluster client that reads
// from replicas (ReadOnly, or RouteByLatency and RouteRandomly, which set
// it) would subscribe a waiting call on a replica, where the publishing
// script, on the master, does not count it: a delivered answer would be
// reported undelivered. The bus refuses such a client; the event bus,
// which counts nobody, and a cluster client reading from masters are
// taken.
func TestAnswerBus_RefusesReplicaSubscriptions(t *testing.T) {
	t.Parallel()
	addrs := []string{"127.0.0.1:1"} // never dialled: construction only
	for name, opt := range map[string]redis.ClusterOptions{
		"ReadOnly":       {Addrs: addrs, ReadOnly: true},
		"RouteByLatency": {Addrs: addrs, RouteByLatency: true},
		"RouteRandomly":  {Addrs: addrs, RouteRandomly: true},
	} {
		cc := redis.NewClusterClient(&opt)
		func() {
			defer func() {
				if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "subscribes on masters") {
					t.Errorf("%s: NewAnswerBus panicked with %v, want a refusal of replica subscriptions", name, p)
				}
			}()
			redisstore.NewAnswerBus(cc)
		}()
		redisstore.NewEventBus(cc).Close()
		cc.Close()
	}
	cc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
	defer cc.Close()
	redisstore.NewAnswerBus(cc).Close()
}

// TestAnswerBus_TaggedPrefix: a prefix that holds a hash tag of its own
// puts every channel and mark in its slot, which works as well.
func TestAnswerBus_TaggedPrefix(t *testing.T) {
	t.Parallel()
	p := clusterPrefix(t) + "{tenant}:"
	waiter := redisstore.NewAnswerBus(newClusterClient(t), redisstore.WithPrefix(p), patient)
	defer waiter.Close()
	other := redisstore.NewAnswerBus(newClusterClient(t), redisstore.WithPrefix(p), patient)
	defer other.Close()
	ctx := context.Background()
	for _, id := range []string{"a", "b", "c"} {
		ch, stop, err := waiter.Subscribe(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if ok, err := other.Publish(ctx, id, []byte(id)); !ok || err != nil {
			t.Errorf("%s: %v %v", id, ok, err)
		} else if got := <-ch; string(got) != id {
			t.Errorf("%s: got %q", id, got)
		}
		stop()
	}
}

// TestHTTP_LegacyConfirmOtherReplica: a 2025-06-18 client with a sealed
// session confirms a destructive tool; its call waits on one replica and
// its answer POST reaches the other, which hands it over through Redis.
// The route runs once, with an Idempotency-Key; a decline runs nothing.
func TestHTTP_LegacyConfirmOtherReplica(t *testing.T) {
	t.Parallel()
	for _, d := range deployments {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			legacyConfirmOtherReplica(t, d)
		})
	}
}

func legacyConfirmOtherReplica(t *testing.T, d deployment) {
	p := d.prefix(t)
	secret := make([]byte, 32)
	rand.Read(secret)
	ring, err := mrtr.NewRing(mrtr.Key{ID: "k1", Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	var deletes atomic.Int64
	keys := make(chan string, 4)
	var urls []string
	for range 2 {
		mux := http.NewServeMux()
		mux.HandleFunc("DELETE /items/{id}", func(w http.ResponseWriter, r *http.Request) {
			deletes.Add(1)
			keys <- r.Header.Get("Idempotency-Key")
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"deleted":"` + r.PathValue("id") + `"}`))
		})
		srv := mcp.NewServer(mcp.Implementation{Name: "fleet", Version: "1.0.0"})
		srv.AddTool(mcp.Tool{Name: "delete_item", Annotations: mcp.Annotations{Destructive: true},
			InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)}, "DELETE /items/{id}", mux)
		bus := redisstore.NewAnswerBus(d.client(t), redisstore.WithPrefix(p), redisstore.WithTimeout(2*time.Second))
		t.Cleanup(func() { bus.Close() })
		h := mcp.NewHandler(srv, []mcp.Era{era2026.New(era2026.WithSealer(mrtr.NewSealer(ring))), era2025.New(era2025.WithSessions(mrtr.NewSealer(ring), 0))},
			mcp.WithAuth(auth.New(auth.Config{Verifier: auth.VerifierFunc(verify), Resource: resource})),
			mcp.WithReplayGuard(redisstore.NewReplayGuard(d.client(t), redisstore.WithPrefix(p), patient)),
			mcp.WithLegacyInput(mcp.LegacyInput{Bus: bus, Wait: 5 * time.Second}))
		ts := httptest.NewServer(h)
		t.Cleanup(ts.Close)
		urls = append(urls, ts.URL)
	}
	do := func(url, body string, hdr map[string]string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer alice")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	init := do(urls[1], `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}}`, nil)
	init.Body.Close()
	session := init.Header.Get("Mcp-Session-Id")
	if session == "" {
		t.Fatal("no session id")
	}
	for _, c := range []struct {
		answer string
		runs   int64
		want   string
	}{
		{`{"action":"accept","content":{"confirm":true}}`, 1, `deleted`},
		{`{"action":"decline"}`, 1, "confirmation_declined"},
	} {
		resp := do(urls[0], `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete_item","arguments":{"id":"a"}}}`,
			map[string]string{"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-06-18"})
		sc := bufio.NewScanner(resp.Body)
		var events []map[string]any
		for sc.Scan() {
			data, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			var m map[string]any
			json.Unmarshal([]byte(data), &m)
			events = append(events, m)
			if m["method"] == "elicitation/create" {
				id, _ := json.Marshal(m["id"])
				a := do(urls[1], `{"jsonrpc":"2.0","id":`+string(id)+`,"result":`+c.answer+`}`, map[string]string{"Mcp-Session-Id": session, "MCP-Protocol-Version": "2025-06-18"})
				a.Body.Close()
				if a.StatusCode != 202 {
					t.Errorf("answer on the other replica: %d", a.StatusCode)
				}
			}
		}
		resp.Body.Close()
		if len(events) != 2 {
			t.Fatalf("events %v", events)
		}
		final, _ := json.Marshal(events[1])
		if !strings.Contains(string(final), c.want) {
			t.Errorf("result %s, want %s", final, c.want)
		}
		if deletes.Load() != c.runs {
			t.Errorf("route ran %d times, want %d", deletes.Load(), c.runs)
		}
	}
	if k := <-keys; len(k) < 16 {
		t.Errorf("Idempotency-Key %q", k)
	}
}
