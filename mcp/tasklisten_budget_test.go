package mcp_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/ratelimit"
	"github.com/mcpdual/mcpdual/mcp/task"
)

// listenBudgetServer serves a task tool whose tasks suggest polling every
// 100 ms, with a small per-principal rate budget: perSecond a second,
// burst at once.
func listenBudgetServer(t *testing.T, perSecond float64, burst int, opts ...mcp.HandlerOption) (string, *jobStore) {
	t.Helper()
	store := &jobStore{jobs: map[string]*testJob{}}
	srv := mcp.NewServer(mcp.Implementation{Name: "budget", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "fast", InputSchema: json.RawMessage(`{"type":"object"}`)}, "POST /jobs", store.mux(),
		mcp.WithTask(task.Config{Status: "GET /jobs/{id}", TTL: time.Hour, PollInterval: 100 * time.Millisecond}))
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New()}, append([]mcp.HandlerOption{mcp.WithLogger(slog.New(slog.DiscardHandler)),
		mcp.WithAuth(auth.New(authConfig(nil))), mcp.WithRateLimit(ratelimit.NewMemory(perSecond, burst))}, opts...)...)
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return hs.URL, store
}

func (s *jobStore) reads() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gets
}

// startTasks creates n tasks of alice's.
func startTasks(t *testing.T, url string, n int) []string {
	t.Helper()
	var ids []string
	for range n {
		r := rpc(t, url, tokAlice, "", "tools/call", "fast", metaTasks, `"name":"fast","arguments":{}`)
		if r.status != 200 || r.str("taskId") == "" {
			t.Fatalf("tools/call: %d %s", r.status, r.raw)
		}
		ids = append(ids, r.str("taskId"))
	}
	return ids
}

// listenUntilEnd opens streams listens of ids at once and reads each to
// its end (its lifetime); it returns how long that took.
func listenUntilEnd(t *testing.T, url string, streams int, ids []string) time.Duration {
	t.Helper()
	started := time.Now()
	var wg sync.WaitGroup
	for range streams {
		s := openListen(t, context.Background(), url, tokAlice, metaTasks, taskIDs(ids...), "application/json, text/event-stream")
		if m := s.next(t); string(m["method"]) != `"notifications/subscriptions/acknowledged"` {
			t.Fatalf("listen: %d %v", s.resp.StatusCode, m)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10_000 {
				m := s.next(t)
				if m == nil || m["result"] != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(started)
}

// A task that suggests polling every 100 ms is read at most once a
// second. The bound counts reads over the time the test measured (which
// encloses the stream's), with one read to spare.
func TestTaskListen_MinimumPollInterval(t *testing.T) {
	defer mcp.SetListenLifetimeForTest(2500 * time.Millisecond)()
	url, store := listenBudgetServer(t, 100, 100)
	ids := startTasks(t, url, 1)
	before := store.reads()
	took := listenUntilEnd(t, url, 1, ids)
	reads := store.reads() - before
	if limit := 1 + int(took/time.Second) + 1; reads > limit || reads < 2 {
		t.Errorf("%d status reads in %v: want 2 to %d (one a second)", reads, took, limit)
	}
}

// One stream of 16 tasks reads at most 10 a second (10 at once); four
// such streams of one caller read at most 20 a second in all (20 at
// once). The reads spend nothing of the caller's rate budget: its own
// calls afterwards are served, not refused 429.
func TestTaskListen_ReadBudgets(t *testing.T) {
	defer mcp.SetListenLifetimeForTest(2500 * time.Millisecond)()
	for _, c := range []struct {
		name         string
		streams      int
		burst, limit int // reads at once, and a second
	}{
		{"one stream", 1, 10, 10},
		{"one caller's four streams", 4, 20, 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			// 16 calls and the streams spend 20 of alice's 24; the 2.5 s
			// give back 4 more.
			url, store := listenBudgetServer(t, 2, 24)
			ids := startTasks(t, url, 16)
			before := store.reads()
			took := listenUntilEnd(t, url, c.streams, ids)
			reads := store.reads() - before
			// Without the budgets: 16 reads a second per stream.
			if limit := c.burst + int(took.Seconds()*float64(c.limit)) + 2; reads > limit {
				t.Errorf("%d status reads in %v: want at most %d", reads, took, limit)
			}
			if reads < c.burst {
				t.Errorf("%d status reads: want at least the %d at once", reads, c.burst)
			}
			for i := range 4 {
				if r := rpc(t, url, tokAlice, "", "tasks/get", ids[i], metaTasks, `"taskId":`+quoteJSON(ids[i])); r.status != 200 {
					t.Errorf("alice's call %d after the streams: %d %s", i+1, r.status, r.raw)
				}
			}
		})
	}
}

// An open listen stream holds no concurrency slot: with one slot in all,
// another caller is served while alice's stream is open.
func TestTaskListen_HoldsNoSlot(t *testing.T) {
	url, _ := listenBudgetServer(t, 100, 100, mcp.WithLimits(mcp.Limits{Concurrent: 1}))
	ids := startTasks(t, url, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := openListen(t, ctx, url, tokAlice, metaTasks, taskIDs(ids...), "application/json, text/event-stream")
	if m := s.next(t); string(m["method"]) != `"notifications/subscriptions/acknowledged"` {
		t.Fatalf("listen: %d %v", s.resp.StatusCode, m)
	}
	if m := s.next(t); string(m["method"]) != `"notifications/tasks"` {
		t.Fatalf("listen: %v", m)
	}
	if r := rpc(t, url, tokBob, "w1", "tools/list", "", metaTasks, ""); r.status != 200 {
		t.Errorf("bob while alice listens: %d %s", r.status, r.raw)
	}
}
