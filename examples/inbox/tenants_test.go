package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
)

// The Redis cases run against a real redis-server: MCPDUAL_REDIS_ADDR
// (a loopback address; each test takes a database of its own and empties
// it, never database 0, which .ci/replicas.sh's fleet uses), or one this
// test binary starts when redis-server is on PATH. .ci/replicas.sh runs
// them (it installs redis-server).

var (
	redisOnce sync.Once
	redisAddr string
	redisErr  error
	redisDBs  atomic.Int32 // the last database handed out
)

// testRedis returns a client of an empty database of its own.
func testRedis(t *testing.T) *redis.Client {
	t.Helper()
	redisOnce.Do(func() {
		if addr := os.Getenv("MCPDUAL_REDIS_ADDR"); addr != "" {
			host, _, err := net.SplitHostPort(addr)
			if ip := net.ParseIP(host); err != nil || (host != "localhost" && (ip == nil || !ip.IsLoopback())) {
				redisErr = fmt.Errorf("MCPDUAL_REDIS_ADDR=%q is not a loopback address", addr)
			}
			redisAddr = addr
			return
		}
		redisAddr, redisErr = startRedisServer()
	})
	if redisErr != nil {
		if _, missing := redisErr.(*exec.Error); missing {
			t.Skip("needs redis-server on PATH, or MCPDUAL_REDIS_ADDR (.ci/replicas.sh provides one)")
		}
		t.Fatal(redisErr)
	}
	db := int(redisDBs.Add(1))
	if db > 15 {
		t.Fatal("more Redis tests than databases")
	}
	rdb := redis.NewClient(&redis.Options{Addr: redisAddr, DB: db})
	t.Cleanup(func() { rdb.Close() })
	if err := rdb.FlushDB(context.Background()).Err(); err != nil {
		t.Fatalf("Redis at %s: %v", redisAddr, err)
	}
	return rdb
}

// redisServer is the one this test binary started; TestMain stops it
// with stopTestRedis, and its directory with it.
var (
	redisServer *exec.Cmd
	redisDir    string
)

func stopTestRedis() {
	if redisServer != nil {
		_ = redisServer.Process.Kill()
		_ = redisServer.Wait()
	}
	if redisDir != "" {
		os.RemoveAll(redisDir)
	}
}

func startRedisServer() (string, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return "", err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir, err := os.MkdirTemp("", "inbox-redis-")
	if err != nil {
		return "", err
	}
	redisDir = dir
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--save", "", "--appendonly", "no", "--dir", dir)
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return "", err
	}
	redisServer = cmd
	addr := "127.0.0.1:" + strconv.Itoa(port)
	rdb := redis.NewClient(&redis.Options{Addr: addr})
	defer rdb.Close()
	for range 100 {
		if rdb.Ping(context.Background()).Err() == nil {
			return addr, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "", fmt.Errorf("redis-server on %s does not answer PING", addr)
}

// testRedisTimeout bounds each Redis call of a fleet a test starts on
// Redis (unless the test sets sh.timeout). The stores' own bounds (200
// and 500 ms) are a replica's choice to answer 503 promptly rather than
// wait; a test asserts what each request is answered, and under the race
// detector on a loaded two-core machine a round trip to Redis has taken
// longer than 200 ms: TestIdempotency_TenantsDoNotEvict/redis got a
// rate_limiter_unavailable 503 in 1 of 10 runs of its 10,050 requests.
// A Redis that does not answer in 10 s is down, and the test fails.
const testRedisTimeout = 10 * time.Second

// startFleet starts n replicas sharing sh, with cfg's queue, worker and
// budget.
func startFleet(t *testing.T, n int, sh shared, cfg appConfig) []*testServer {
	t.Helper()
	const public = "http://127.0.0.1:9/mcp"
	if sh.rdb != nil && sh.timeout == 0 {
		sh.timeout = testRedisTimeout
	}
	cfg.shared = sh
	out := make([]*testServer, n)
	for i := range out {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		a := newAppWith(public, cfg)
		ts := &httptest.Server{Listener: ln, Config: &http.Server{Handler: a.handler}}
		ts.Start()
		t.Cleanup(func() { ts.Close(); a.close() })
		out[i] = &testServer{base: "http://" + ln.Addr().String(), app: a}
	}
	return out
}

// keyed sends a REST request with an Idempotency-Key.
func keyed(t testing.TB, base, method, path string, w who, key, body string) (int, string, http.Header) {
	req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+w.token)
	if w.workspace != "" {
		req.Header.Set("X-Workspace-Id", w.workspace)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Idempotency-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0, "", nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

var admin = who{token: "dev-admin", workspace: "ws_acme_prod"}

// TestIdempotency_TenantsDoNotEvict: 10,050 keyed requests from one
// organization's tokens (10,000 writes, 50 refused for the read-only
// token) do not evict another tenant's key: its retried POST gets the
// first answer, the same job, and runs nothing. The flooding caller keeps
// at most its cap of keys; the refused calls record nothing. With Redis
// the flood goes to one replica and the retry to another.
func TestIdempotency_TenantsDoNotEvict(t *testing.T) {
	for _, mode := range []string{"memory", "redis"} {
		t.Run(mode, func(t *testing.T) {
			var sh shared
			if mode == "redis" {
				sh.rdb = testRedis(t)
			}
			fleet := startFleet(t, 2, sh, appConfig{queue: 1024, worker: true, perSecond: 1e6, burst: 1_000_000})
			flood, retry := fleet[0], fleet[1]
			if mode == "memory" {
				retry = flood
			}
			const reprocess = "/api/v1/emails/eml_acme_0002/reprocess"
			key := "acme-" + newID("")
			st, first, _ := keyed(t, flood.base, "POST", reprocess, admin, key, "")
			if st != 202 {
				t.Fatalf("Acme's POST: %d %s", st, first)
			}

			const writes, refused = 10_000, 50
			var next, bad atomic.Int64
			var wg sync.WaitGroup
			for range 16 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						i := next.Add(1) - 1
						if i >= writes+refused {
							return
						}
						w, want := writer, 200
						body := `{"senders":["carrier@logistics.test"]}`
						if i >= writes {
							w, want = reader, 403
						}
						if st, b, _ := keyed(t, flood.base, "PUT", "/api/v1/inboxes/inb_globex_ops/allowed-senders", w, fmt.Sprint("flood-", i), body); st != want {
							if bad.Add(1) == 1 {
								t.Errorf("flood request %d: %d %s", i, st, b)
							}
						}
					}
				}()
			}
			wg.Wait()

			st, again, h := keyed(t, retry.base, "POST", reprocess, admin, key, "")
			if st != 202 || again != first || h.Get("Idempotent-Replayed") != "true" {
				t.Fatalf("Acme's retry after the flood: %d %q\n%s\nfirst:\n%s", st, h.Get("Idempotent-Replayed"), again, first)
			}
			// The flooding writer's first keys went (its own cap), its
			// last are kept: a retry of the last one is a replay.
			if _, _, h := keyed(t, flood.base, "PUT", "/api/v1/inboxes/inb_globex_ops/allowed-senders", writer, fmt.Sprint("flood-", writes-1),
				`{"senders":["carrier@logistics.test"]}`); h.Get("Idempotent-Replayed") != "true" {
				t.Error("the writer's last key was not kept")
			}
			ctx := context.Background()
			writerOwner := (&devPrincipal{"dev-writer"}).rateKey(t)
			readerOwner := (&devPrincipal{"dev-reader"}).rateKey(t)
			var held, heldByReader int
			if mode == "memory" {
				m := flood.app.idem.store.(*memoryIdem)
				m.mu.Lock()
				held, heldByReader = len(m.owners[writerOwner]), len(m.owners[readerOwner])
				m.mu.Unlock()
			} else {
				ri := flood.app.idem.store.(*redisIdem)
				held = int(sh.rdb.ZCard(ctx, ri.keys(writerOwner, "")[1]).Val())
				heldByReader = int(sh.rdb.ZCard(ctx, ri.keys(readerOwner, "")[1]).Val())
			}
			if held != idemPerOwner {
				t.Errorf("the writer holds %d keys, want its cap %d", held, idemPerOwner)
			}
			if heldByReader != 0 {
				t.Errorf("the read-only token's refused calls left %d keys", heldByReader)
			}
		})
	}
}

// devPrincipal names a development token, for reading the stores.
type devPrincipal struct{ token string }

func (d *devPrincipal) rateKey(t *testing.T) string {
	p, err := devVerifier("http://127.0.0.1:9/mcp").VerifyAccessToken(context.Background(), d.token, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p.RateKey()
}

// TestIdempotency_RefusedCallsRecordNothing: an answer that changed
// nothing (422, 403, a full queue's 503) leaves the key free, so the same
// key then runs a corrected request, in memory and in Redis.
func TestIdempotency_RefusedCallsRecordNothing(t *testing.T) {
	for _, mode := range []string{"memory", "redis"} {
		t.Run(mode, func(t *testing.T) {
			var sh shared
			if mode == "redis" {
				sh.rdb = testRedis(t)
			}
			s := startFleet(t, 1, sh, appConfig{queue: 4, worker: false, perSecond: 1000, burst: 1000})[0]
			const senders = "/api/v1/inboxes/inb_globex_ops/allowed-senders"
			if st, b, _ := keyed(t, s.base, "PUT", senders, writer, "k1", `{"senders":["not an address"]}`); st != 422 {
				t.Fatalf("a bad body: %d %s", st, b)
			}
			if st, b, h := keyed(t, s.base, "PUT", senders, writer, "k1", `{"senders":["ok@partner.test"]}`); st != 200 || h.Get("Idempotent-Replayed") != "" {
				t.Errorf("the same key after a 422: %d %q %s", st, h.Get("Idempotent-Replayed"), b)
			}
			// The queue holds 4, a tenant 1 (no worker empties it): the
			// second job of Globex is refused, and its retry is refused
			// again, not replayed.
			if st, b, _ := keyed(t, s.base, "POST", "/api/v1/emails/eml_globex_0001/reprocess", writer, "j1", ""); st != 202 {
				t.Fatalf("first job: %d %s", st, b)
			}
			st, b, _ := keyed(t, s.base, "POST", "/api/v1/emails/eml_globex_0002/reprocess", writer, "j2", "")
			if st != 503 {
				t.Fatalf("second job past the share: %d %s", st, b)
			}
			if _, _, h := keyed(t, s.base, "POST", "/api/v1/emails/eml_globex_0002/reprocess", writer, "j2", ""); h.Get("Idempotent-Replayed") != "" {
				t.Error("a 503 was recorded")
			}
			// The read-only token's refused write with a key another
			// request of it then reuses: no 422 for reuse, a 403 again.
			if st, _, _ := keyed(t, s.base, "POST", "/api/v1/webhooks/whk_globex_ops/test", reader, "r1", ""); st != 403 {
				t.Errorf("reader's write: %d", st)
			}
			if st, b, _ := keyed(t, s.base, "POST", "/api/v1/webhooks/whk_globex_ops/rotate-secret", reader, "r1", ""); st != 403 {
				t.Errorf("reader's other write with the same key: %d %s", st, b)
			}
		})
	}
}

// TestIdempotency_RedisAcrossReplicas: 20 concurrent requests with one
// key, spread over two replicas on one Redis, run once: every answer is
// the first, and one replica's secret changed.
func TestIdempotency_RedisAcrossReplicas(t *testing.T) {
	fleet := startFleet(t, 2, shared{rdb: testRedis(t)}, appConfig{queue: 16, worker: true, perSecond: 1000, burst: 1000})
	before := []string{fleet[0].secret("whk_globex_ops"), fleet[1].secret("whk_globex_ops")}
	answers := make([]string, 20)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, b, _ := keyed(t, fleet[i%2].base, "POST", "/api/v1/webhooks/whk_globex_ops/rotate-secret", writer, "rotate-1", "")
			answers[i] = strconv.Itoa(st) + " " + b
		}()
	}
	wg.Wait()
	for _, a := range answers[1:] {
		if a != answers[0] {
			t.Fatalf("answers differ:\n%s\n%s", answers[0], a)
		}
	}
	changed := 0
	for i, s := range fleet {
		if s.secret("whk_globex_ops") != before[i] {
			changed++
		}
	}
	if changed != 1 || !strings.HasPrefix(answers[0], "200 ") {
		t.Errorf("%d replicas rotated the secret, want 1; answer %s", changed, answers[0])
	}
	// Another body under the key, on either replica: refused as reuse.
	if st, b, _ := keyed(t, fleet[1].base, "POST", "/api/v1/webhooks/whk_globex_ops/test", writer, "rotate-1", ""); st != 422 {
		t.Errorf("the key reused for another request: %d %s", st, b)
	}
}

// TestIdempotency_MemoryCaps: the in-memory store's bounds, directly: an
// owner's cap drops its own oldest key; when the store is full, the owner
// holding the most loses its oldest, never a small owner.
func TestIdempotency_MemoryCaps(t *testing.T) {
	m := newMemoryIdem()
	m.perOwner, m.maxKeys = 3, 5
	ctx := context.Background()
	add := func(owner, key string) {
		c, err := m.begin(ctx, owner, key, [32]byte{1})
		if err != nil || !c.run {
			t.Fatalf("begin %s %s: %+v %v", owner, key, c, err)
		}
		_ = m.finish(ctx, owner, key, c, &idemAnswer{Status: 200}, true)
	}
	has := func(key string) bool { _, ok := m.entries[key]; return ok }
	add("small", "s1")
	for i := range 4 {
		add("big", fmt.Sprint("b", i))
	}
	if has("b0") || !has("b1") || !has("s1") {
		t.Errorf("owner cap: %v", m.owners)
	}
	add("mid", "m1")
	add("mid", "m2")
	add("mid", "m3") // full at 5: big holds 3, the most
	if !has("s1") || has("b1") || !has("m3") || len(m.entries) != 5 {
		t.Errorf("store full: %v", m.owners)
	}
	// A forgotten run (not 2xx) frees its key at once.
	c, _ := m.begin(ctx, "small", "s2", [32]byte{2})
	_ = m.finish(ctx, "small", "s2", c, &idemAnswer{Status: 503}, false)
	if has("s2") || len(m.owners["small"]) != 1 {
		t.Errorf("a 503 was kept: %v", m.owners)
	}
	// When the store is full, expired keys go before live ones.
	m.now = func() time.Time { return time.Now().Add(2 * idemTTL) }
	add("other", "o1")
	add("other", "o2")
	if len(m.entries) != 2 || !has("o1") || !has("o2") {
		t.Errorf("expired keys kept: %v", m.owners)
	}
}

// TestQueue_TenantShare: one tenant cannot fill the job queue: it gets a
// quarter of it, and another tenant is still served, in memory and in
// Redis; a finished job gives its share back.
func TestQueue_TenantShare(t *testing.T) {
	for _, mode := range []string{"memory", "redis"} {
		t.Run(mode, func(t *testing.T) {
			var sh shared
			if mode == "redis" {
				sh.rdb = testRedis(t)
			}
			s := startFleet(t, 1, sh, appConfig{queue: 8, worker: false, perSecond: 1000, burst: 1000})[0]
			accepted := 0
			for range 5 {
				switch st, b := s.rest(t, "POST", "/api/v1/emails/eml_acme_0002/reprocess", admin, ""); st {
				case 202:
					accepted++
				case 503:
					if !strings.Contains(b, `"busy"`) {
						t.Errorf("refusal: %s", b)
					}
				default:
					t.Fatalf("%d %s", st, b)
				}
			}
			if accepted != 2 {
				t.Errorf("Acme got %d of 8 slots, want its share of 2", accepted)
			}
			// Acme's other workspace is the same tenant.
			if st, _ := s.rest(t, "POST", "/api/v1/emails/eml_acme_0004/reprocess", who{token: "dev-admin", workspace: "ws_acme_staging"}, ""); st != 503 {
				t.Errorf("Acme's other workspace: %d, want 503", st)
			}
			if st, b := s.rest(t, "POST", "/api/v1/emails/eml_globex_0001/reprocess", writer, ""); st != 202 {
				t.Errorf("Globex while Acme holds its share: %d %s", st, b)
			}
			// A worker finishes the jobs: the share is free again.
			stop := make(chan struct{})
			go s.app.store.work(stop)
			defer close(stop)
			deadline := time.Now().Add(5 * time.Second)
			for {
				st, _ := s.rest(t, "POST", "/api/v1/emails/eml_acme_0002/reprocess", admin, "")
				if st == 202 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("Acme's share not given back after its jobs finished")
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// TestTasks_RedisAcrossReplicas: a task created on one replica is followed
// to completion by tasks/get on another, never Unknown task; after the
// first replica stops and a new one starts (a restart), the result is
// still there, on every replica.
func TestTasks_RedisAcrossReplicas(t *testing.T) {
	rdb := testRedis(t)
	sh := shared{rdb: rdb, ring: testRing(t)}
	cfg := appConfig{queue: 64, worker: true, perSecond: 1000, burst: 1000}
	// The first replica has no worker: the job must be run by another's.
	a := startFleet(t, 1, sh, appConfig{queue: 64, perSecond: 1000, burst: 1000})[0]
	b := startFleet(t, 1, sh, cfg)[0]
	dial := func(s *testServer) *mcptest.Client {
		return mcptest.Dial(s.base+"/mcp", mcp.Version20260728, mcptest.WithHeader("Authorization", "Bearer dev-writer"),
			mcptest.WithCapabilities(json.RawMessage(`{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`)),
			mcptest.WithAnswers(func(string, mcptest.InputRequest) (json.RawMessage, bool) {
				return json.RawMessage(`{"action":"accept","content":{"confirm":true}}`), true
			}))
	}
	r, err := dial(a).CallTool(context.Background(), "emails_reprocess", map[string]any{"id": "eml_globex_0003"})
	if err != nil {
		t.Fatal(err)
	}
	var created struct{ ResultType, TaskID string }
	if json.Unmarshal(r.Result, &created) != nil || created.ResultType != "task" {
		t.Fatalf("tools/call: %s", r.Raw)
	}
	get := func(s *testServer) (string, string) {
		g := call(t, dial(s), "tasks/get", map[string]any{"taskId": created.TaskID})
		if g.Error != nil {
			return "error " + g.Error.Message, string(g.Raw)
		}
		var got struct {
			Status string
			Result toolResult
		}
		_ = json.Unmarshal(g.Result, &got)
		text := ""
		if len(got.Result.Content) > 0 {
			text = got.Result.Content[0].Text
		}
		return got.Status, text
	}
	var result string
	for i := 0; ; i++ {
		s := []*testServer{a, b}[i%2]
		status, text := get(s)
		if status != "working" && status != "completed" {
			t.Fatalf("poll %d: %s %s", i, status, text)
		}
		if status == "completed" {
			result = text
			break
		}
		if i == 200 {
			t.Fatal("not completed after 4 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(result, `"status":"succeeded"`) {
		t.Fatalf("result: %s", result)
	}
	// The job ran on b, a replica that never saw the call.
	if e, _ := b.app.store.email("ws_globex", "eml_globex_0003"); e.Status != "processed" {
		t.Errorf("the email on the worker's replica: %s", e.Status)
	}
	// "Restart" a: a new process on the same Redis and ring.
	c := startFleet(t, 1, sh, cfg)[0]
	for _, s := range []*testServer{c, b} {
		if status, text := get(s); status != "completed" || text != result {
			t.Errorf("after the restart, on %s: %s %s", s.base, status, text)
		}
	}
}

// TestRedisJobs_LeaseLapses: a job claimed by a worker that dies is
// claimed again once its lease lapses, and finished once; the tenant's
// share is held until then.
func TestRedisJobs_LeaseLapses(t *testing.T) {
	q := newRedisJobs(testRedis(t), "t:", 8)
	q.lease = 200 * time.Millisecond
	ctx := context.Background()
	j, err := q.enqueue(ctx, "org|a", "ws", "email.reprocess", "e1")
	if err != nil {
		t.Fatal(err)
	}
	first, err := q.claim(ctx)
	if err != nil || first == nil || first.Job.ID != j.ID {
		t.Fatalf("claim: %+v %v", first, err)
	}
	if again, err := q.claim(ctx); err != nil || again != nil {
		t.Fatalf("claimed again within the lease: %+v %v", again, err)
	}
	time.Sleep(250 * time.Millisecond)
	second, err := q.claim(ctx)
	if err != nil || second == nil || second.Job.ID != j.ID {
		t.Fatalf("after the lease: %+v %v", second, err)
	}
	if _, err := q.enqueue(ctx, "org|a", "ws", "email.reprocess", "e2"); err != nil {
		t.Fatalf("the share is 2: %v", err)
	}
	if _, err := q.enqueue(ctx, "org|a", "ws", "email.reprocess", "e3"); err != errBusy {
		t.Fatalf("past the share: %v", err)
	}
	if err := q.finish(ctx, second); err != nil {
		t.Fatal(err)
	}
	first.Job.Kind = "changed"
	if err := q.finish(ctx, first); err != nil { // the late worker
		t.Fatal(err)
	}
	got, found, err := q.get(ctx, "ws", j.ID)
	if err != nil || !found || got.Status != "succeeded" || got.Kind != "email.reprocess" {
		t.Errorf("finished job: %+v %v %v", got, found, err)
	}
	if ttl := q.rdb.PTTL(ctx, q.jobKey(j.ID)).Val(); ttl <= 0 || ttl > jobTTL {
		t.Errorf("a finished job's TTL: %v, want at most %v", ttl, jobTTL)
	}
	if _, found, _ := q.get(ctx, "other", j.ID); found {
		t.Error("another workspace reads the job")
	}
	if _, err := q.enqueue(ctx, "org|a", "ws", "email.reprocess", "e3"); err != nil {
		t.Errorf("the share after a job finished: %v", err)
	}
}

// TestJobs_Cancel: a queued job is cancelled (its share given back, and
// it never runs), again is the same answer, a finished job is 409 and
// another workspace's is 404, in memory and in Redis; with Redis, a task
// created on one replica is cancelled through tasks/cancel on another and
// reads cancelled on the first.
func TestJobs_Cancel(t *testing.T) {
	for _, mode := range []string{"memory", "redis"} {
		t.Run(mode, func(t *testing.T) {
			var sh shared
			n := 1
			if mode == "redis" {
				sh, n = shared{rdb: testRedis(t), ring: testRing(t)}, 2
			}
			fleet := startFleet(t, n, sh, appConfig{queue: 8, perSecond: 1000, burst: 1000}) // no worker
			a, b := fleet[0], fleet[n-1]
			var created struct{ Data job }
			for range 2 { // Globex's share
				st, body := a.rest(t, "POST", "/api/v1/emails/eml_globex_0003/reprocess", writer, "")
				if st != 202 || json.Unmarshal([]byte(body), &created) != nil {
					t.Fatalf("enqueue: %d %s", st, body)
				}
			}
			path := "/api/v1/jobs/" + created.Data.ID + "/cancel"
			for range 2 {
				if st, body := b.rest(t, "POST", path, writer, ""); st != 200 || !strings.Contains(body, `"status":"cancelled"`) {
					t.Errorf("cancel: %d %s", st, body)
				}
			}
			if st, _ := b.rest(t, "POST", path, admin, ""); st != 404 {
				t.Errorf("another workspace's cancel: %d", st)
			}
			if st, _ := b.rest(t, "POST", path, reader, ""); st != 403 {
				t.Errorf("the read-only token's cancel: %d", st)
			}
			// The share it held is free; a worker then runs only the
			// other job, and a finished job cannot be cancelled.
			st, body := a.rest(t, "POST", "/api/v1/emails/eml_globex_0002/reprocess", writer, "")
			if st != 202 {
				t.Fatalf("after the cancel, the share: %d %s", st, body)
			}
			var last struct{ Data job }
			_ = json.Unmarshal([]byte(body), &last)
			stop := make(chan struct{})
			go a.app.store.work(stop)
			var once sync.Once
			stopWorker := func() { once.Do(func() { close(stop) }) }
			defer stopWorker()
			for i := 0; ; i++ {
				if _, body := a.rest(t, "GET", "/api/v1/jobs/"+last.Data.ID, writer, ""); strings.Contains(body, `"succeeded"`) {
					break
				}
				if i == 200 {
					t.Fatal("the job after the cancelled one did not run")
				}
				time.Sleep(20 * time.Millisecond)
			}
			if st, body := b.rest(t, "POST", "/api/v1/jobs/"+last.Data.ID+"/cancel", writer, ""); st != 409 {
				t.Errorf("cancelling a finished job: %d %s", st, body)
			}
			if _, body := a.rest(t, "GET", "/api/v1/jobs/"+created.Data.ID, writer, ""); !strings.Contains(body, `"status":"cancelled"`) {
				t.Errorf("the cancelled job ran: %s", body)
			}
			if mode != "redis" {
				return
			}
			dial := func(s *testServer) *mcptest.Client {
				return mcptest.Dial(s.base+"/mcp", mcp.Version20260728, mcptest.WithHeader("Authorization", "Bearer dev-writer"),
					mcptest.WithCapabilities(json.RawMessage(`{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`)),
					mcptest.WithAnswers(func(string, mcptest.InputRequest) (json.RawMessage, bool) {
						return json.RawMessage(`{"action":"accept","content":{"confirm":true}}`), true
					}))
			}
			stopWorker() // no worker from here: the task stays queued
			r, err := dial(a).CallTool(context.Background(), "webhooks_resend", map[string]any{"id": "whk_globex_ops", "delivery_id": "dlv_globex_0001"})
			var task struct{ ResultType, TaskID string }
			if err != nil || json.Unmarshal(r.Result, &task) != nil || task.ResultType != "task" {
				t.Fatalf("tools/call: %v %s", err, rawOf(r))
			}
			if c := call(t, dial(b), "tasks/cancel", map[string]any{"taskId": task.TaskID}); c.Error != nil {
				t.Fatalf("tasks/cancel on the other replica: %s", c.Raw)
			}
			g := call(t, dial(a), "tasks/get", map[string]any{"taskId": task.TaskID})
			var got struct{ Status string }
			if g.Error != nil || json.Unmarshal(g.Result, &got) != nil || got.Status != "cancelled" {
				t.Errorf("tasks/get after the cancel: %s", g.Raw)
			}
		})
	}
}

// TestRedisJobs_FinishedBounded: at most maxDone finished jobs are kept;
// the oldest go, job and all.
func TestRedisJobs_FinishedBounded(t *testing.T) {
	q := newRedisJobs(testRedis(t), "t:", 8)
	q.maxDone = 2
	ctx := context.Background()
	var ids []string
	for i := range 3 {
		j, err := q.enqueue(ctx, fmt.Sprint("org|", i), "ws", "email.reprocess", "e")
		if err != nil {
			t.Fatal(err)
		}
		sj, err := q.claim(ctx)
		if err != nil || sj == nil || sj.Job.ID != j.ID {
			t.Fatalf("claim: %+v %v", sj, err)
		}
		if err := q.finish(ctx, sj); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, j.ID)
		time.Sleep(2 * time.Millisecond) // distinct finishing times
	}
	for i, id := range ids {
		if _, found, err := q.get(ctx, "ws", id); err != nil || found != (i > 0) {
			t.Errorf("job %d: found %v, %v", i, found, err)
		}
	}
}

// TestIdempotency_PanicFreesTheKey: a route that panics leaves no key
// held: a retry with the key runs (rather than waiting for an answer that
// never comes).
func TestIdempotency_PanicFreesTheKey(t *testing.T) {
	m := newIdempotency(shared{})
	p, err := devVerifier("http://127.0.0.1:9/mcp").VerifyAccessToken(context.Background(), "dev-writer", nil)
	if err != nil {
		t.Fatal(err)
	}
	send := func(h http.HandlerFunc) (code int, panicked bool) {
		defer func() { panicked = recover() != nil }()
		req := httptest.NewRequest("POST", "/api/v1/webhooks/whk_globex_ops/test", nil)
		req.Header.Set("Idempotency-Key", "k")
		req = req.WithContext(auth.NewWorkspaceContext(auth.NewContext(req.Context(), p), "ws_globex"))
		rec := httptest.NewRecorder()
		m.wrap(h)(rec, req)
		return rec.Code, false
	}
	if _, panicked := send(func(http.ResponseWriter, *http.Request) { panic("route bug") }); !panicked {
		t.Fatal("the panic was swallowed")
	}
	done := make(chan int, 1)
	go func() {
		code, _ := send(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
		done <- code
	}()
	select {
	case code := <-done:
		if code != 200 {
			t.Errorf("the retry: %d", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the retry waits for the panicked request's answer")
	}
}
