package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/task"
	"github.com/mcpdual/mcpdual/mrtr"
)

// stallJobs is a job store whose status, cancel or update route (the one
// stall names) gives up once its request ends, writing nothing, behind a
// middleware that ends the request as soon as that route has started: a
// server-side deadline or cancellation whose client still reads.
type stallJobs struct {
	url     string
	stall   atomic.Value // "status", "cancel", "update" or ""
	started chan struct{}
	// down names a route that answers 503 (its job service unavailable)
	// for the next downFor requests, with downStatus (0: 503).
	down       atomic.Value
	downFor    atomic.Int64
	downStatus atomic.Int64
	mu         sync.Mutex
	cancelled  bool
	updates    []string
}

// unavailable answers for a route that is down, and reports whether it did.
func (s *stallJobs) unavailable(w http.ResponseWriter, route string) bool {
	if s.down.Load() != route || s.downFor.Add(-1) < 0 {
		return false
	}
	status := int(s.downStatus.Load())
	if status == 0 {
		status = http.StatusServiceUnavailable
	}
	http.Error(w, "job store unavailable", status)
	return true
}

func (s *stallJobs) stalls(ctx context.Context, route string) bool {
	if s.stall.Load() != route {
		return false
	}
	s.started <- struct{}{}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second): // not cancelled: the test fails on what it gets
	}
	return true
}

func newStallJobs(t *testing.T) *stallJobs {
	t.Helper()
	s := &stallJobs{started: make(chan struct{}, 1)}
	s.stall.Store("")
	s.down.Store("")
	mux := http.NewServeMux()
	mux.HandleFunc("POST /jobs", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "/jobs/job-1")
		w.WriteHeader(http.StatusAccepted)
	})
	mux.HandleFunc("GET /jobs/{id}", func(w http.ResponseWriter, r *http.Request) {
		if s.unavailable(w, "status") || s.stalls(r.Context(), "status") {
			return
		}
		s.mu.Lock()
		status := task.Working
		if s.cancelled {
			status = task.Cancelled
		}
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"status": status})
	})
	mux.HandleFunc("POST /jobs/{id}/cancel", func(w http.ResponseWriter, r *http.Request) {
		if s.unavailable(w, "cancel") || s.stalls(r.Context(), "cancel") {
			return
		}
		s.mu.Lock()
		s.cancelled = true
		s.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /jobs/{id}/input", func(w http.ResponseWriter, r *http.Request) {
		if s.unavailable(w, "update") || s.stalls(r.Context(), "update") {
			return
		}
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.updates = append(s.updates, string(b))
		s.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "stalls", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)}, "POST /jobs", mux,
		mcp.WithTask(task.Config{Status: "GET /jobs/{id}", Cancel: "POST /jobs/{id}/cancel", Update: "POST /jobs/{id}/input", StatusTool: "slow_status"}))
	ring, err := mrtr.NewRing(mrtr.Key{ID: "k1", Secret: bytes.Repeat([]byte{5}, 32)})
	if err != nil {
		t.Fatal(err)
	}
	sealer := mrtr.NewSealer(ring)
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(era2026.WithSealer(sealer)), era2025.New(era2025.WithSealer(sealer))},
		mcp.WithLogger(slog.New(slog.DiscardHandler)), mcp.WithAuth(auth.New(authConfig(nil))))
	s.url = serveEndingWhenStarted(t, h, s.started)
	return s
}

// interruptedRPC checks r is the answer to a request whose route gave up
// when its request ended: 503 -31503 with Retry-After, reason
// call_interrupted, and no result — neither an acknowledgement nor an
// internal error.
func interruptedRPC(t *testing.T, what string, r *rpcReply) {
	t.Helper()
	var d struct {
		Reason       string
		RetryAfterMs int
	}
	if r.Error != nil {
		json.Unmarshal(r.Error.Data, &d)
	}
	if r.status != http.StatusServiceUnavailable || r.code() != -31503 || r.header.Get("Retry-After") != "1" ||
		d.Reason != "call_interrupted" || d.RetryAfterMs != 1000 || r.Result != nil {
		t.Errorf("%s: want 503 -31503 call_interrupted with Retry-After, got %d %v %s", what, r.status, r.header, r.raw)
	}
}

// TestTasks_InterruptedRoutes (design record 015): a task's status,
// cancel or update route that gives up without answering because its
// request ended is no outcome. tasks/cancel is not acknowledged (the job
// was not cancelled), tasks/update is not acknowledged (the answers never
// reached the job), tasks/get and the status tool are not an internal
// error: each is the retryable 503 call_interrupted, in every revision
// that has it, and the retry, answered, gets the real outcome.
func TestTasks_InterruptedRoutes(t *testing.T) {
	t.Parallel()
	s := newStallJobs(t)
	start := rpc(t, s.url, tokAlice, "", "tools/call", "slow", metaTasks, `"name":"slow","arguments":{}`)
	id := start.str("taskId")
	if start.status != 200 || id == "" {
		t.Fatalf("tools/call slow: %d %s", start.status, start.raw)
	}
	taskID := `"taskId":` + quoteJSON(id)

	s.stall.Store("status")
	interruptedRPC(t, "tasks/get", rpc(t, s.url, tokAlice, "", "tasks/get", id, metaTasks, taskID))

	s.stall.Store("cancel")
	interruptedRPC(t, "tasks/cancel", rpc(t, s.url, tokAlice, "", "tasks/cancel", id, metaTasks, taskID))
	s.stall.Store("update")
	interruptedRPC(t, "tasks/update", rpc(t, s.url, tokAlice, "", "tasks/update", id, metaTasks, taskID+`,"inputResponses":{"q":{"action":"accept","content":{}}}`))
	s.mu.Lock()
	cancelled, updates := s.cancelled, len(s.updates)
	s.mu.Unlock()
	if cancelled || updates != 0 {
		t.Fatalf("an interrupted route had an effect: cancelled %v, updates %d", cancelled, updates)
	}

	// The status tool, for clients without the extension, reads the job
	// through the same route: 2026-07-28 and 2025-06-18.
	noExt := rpc(t, s.url, tokAlice, "", "tools/call", "slow", metaNoTasks, `"name":"slow","arguments":{}`)
	legacy := legacyRPC(t, s.url, tokAlice, "2025-06-18", "tools/call", `"name":"slow","arguments":{}`)
	s.stall.Store("status")
	for _, c := range []struct {
		what  string
		start *rpcReply
		call  func(args string) *rpcReply
	}{
		{"2026-07-28 status tool", noExt, func(args string) *rpcReply {
			return rpc(t, s.url, tokAlice, "", "tools/call", "slow_status", metaNoTasks, `"name":"slow_status","arguments":`+args)
		}},
		{"2025-06-18 status tool", legacy, func(args string) *rpcReply {
			return legacyRPC(t, s.url, tokAlice, "2025-06-18", "tools/call", `"name":"slow_status","arguments":`+args)
		}},
	} {
		ref, _ := answerOf(t, c.start).StructuredContent["taskId"].(string)
		if ref == "" {
			t.Fatalf("%s: no job reference: %s", c.what, c.start.raw)
		}
		interruptedRPC(t, c.what, c.call(`{"taskId":`+quoteJSON(ref)+`}`))
	}

	// Answered, each gets its outcome.
	s.stall.Store("")
	if r := rpc(t, s.url, tokAlice, "", "tasks/update", id, metaTasks, taskID+`,"inputResponses":{"q":{"action":"accept","content":{}}}`); r.status != 200 || r.Error != nil {
		t.Errorf("tasks/update answered: %d %s", r.status, r.raw)
	}
	if r := rpc(t, s.url, tokAlice, "", "tasks/cancel", id, metaTasks, taskID); r.status != 200 || r.Error != nil {
		t.Errorf("tasks/cancel answered: %d %s", r.status, r.raw)
	}
	if r := rpc(t, s.url, tokAlice, "", "tasks/get", id, metaTasks, taskID); r.str("status") != "cancelled" {
		t.Errorf("tasks/get answered: %d %s", r.status, r.raw)
	}
}

// unavailableRPC checks r is the answer to a request whose task route said
// its job service is unavailable for now: 503 -31503 with Retry-After,
// reason task_unavailable, no result.
func unavailableRPC(t *testing.T, what string, r *rpcReply) {
	t.Helper()
	var d struct{ Reason string }
	if r.Error != nil {
		json.Unmarshal(r.Error.Data, &d)
	}
	if r.status != http.StatusServiceUnavailable || r.code() != -31503 || r.header.Get("Retry-After") != "1" ||
		d.Reason != "task_unavailable" || r.Result != nil {
		t.Errorf("%s: want 503 -31503 task_unavailable with Retry-After, got %d %v %s", what, r.status, r.header, r.raw)
	}
}

// TestTasks_RouteUnavailable (design record 015): a task's status, cancel
// or update route answering 503 (429, 502 and 504 alike) says the host's
// job service is down for now, which says nothing of the job: tasks/get,
// tasks/cancel, tasks/update and the status tool (2026-07-28 and
// 2025-06-18) answer the retryable 503 task_unavailable, not an internal
// error; a 500 stays an internal error; a listen stream keeps following
// the task through the outage and reports it once its status can be read.
func TestTasks_RouteUnavailable(t *testing.T) {
	t.Parallel()
	s := newStallJobs(t)
	start := rpc(t, s.url, tokAlice, "", "tools/call", "slow", metaTasks, `"name":"slow","arguments":{}`)
	id := start.str("taskId")
	if id == "" {
		t.Fatalf("tools/call slow: %d %s", start.status, start.raw)
	}
	taskID := `"taskId":` + quoteJSON(id)
	down := func(route string, status, n int) {
		s.down.Store(route)
		s.downStatus.Store(int64(status))
		s.downFor.Store(int64(n))
	}
	for _, status := range []int{http.StatusServiceUnavailable, http.StatusTooManyRequests, http.StatusBadGateway, http.StatusGatewayTimeout} {
		down("status", status, 1)
		unavailableRPC(t, fmt.Sprint("tasks/get, status route ", status), rpc(t, s.url, tokAlice, "", "tasks/get", id, metaTasks, taskID))
	}
	down("cancel", 503, 1)
	unavailableRPC(t, "tasks/cancel", rpc(t, s.url, tokAlice, "", "tasks/cancel", id, metaTasks, taskID))
	down("update", 503, 1)
	unavailableRPC(t, "tasks/update", rpc(t, s.url, tokAlice, "", "tasks/update", id, metaTasks, taskID+`,"inputResponses":{"q":{"action":"accept","content":{}}}`))
	noExt := rpc(t, s.url, tokAlice, "", "tools/call", "slow", metaNoTasks, `"name":"slow","arguments":{}`)
	legacy := legacyRPC(t, s.url, tokAlice, "2025-06-18", "tools/call", `"name":"slow","arguments":{}`)
	ref2026, _ := answerOf(t, noExt).StructuredContent["taskId"].(string)
	ref2025, _ := answerOf(t, legacy).StructuredContent["taskId"].(string)
	down("status", 503, 1)
	unavailableRPC(t, "2026-07-28 status tool", rpc(t, s.url, tokAlice, "", "tools/call", "slow_status", metaNoTasks,
		`"name":"slow_status","arguments":{"taskId":`+quoteJSON(ref2026)+`}`))
	down("status", 503, 1)
	unavailableRPC(t, "2025-06-18 status tool", legacyRPC(t, s.url, tokAlice, "2025-06-18", "tools/call",
		`"name":"slow_status","arguments":{"taskId":`+quoteJSON(ref2025)+`}`))
	// A fault is not a wait.
	down("status", 500, 1)
	if r := rpc(t, s.url, tokAlice, "", "tasks/get", id, metaTasks, taskID); r.status != 200 || r.code() != -32603 {
		t.Errorf("tasks/get, status route 500: %d %s", r.status, r.raw)
	}
	s.mu.Lock()
	cancelled, updates := s.cancelled, len(s.updates)
	s.mu.Unlock()
	if cancelled || updates != 0 {
		t.Fatalf("an unavailable route had an effect: cancelled %v, updates %d", cancelled, updates)
	}

	// A listen stream: the first read finds the service down, the next
	// one (a poll later) the task.
	down("status", 503, 1)
	ls := openListen(t, context.Background(), s.url, tokAlice, metaTasks, taskIDs(id), "application/json, text/event-stream")
	if ack := ls.next(t); string(ack["method"]) != `"notifications/subscriptions/acknowledged"` {
		t.Fatalf("listen: first message %v", ack)
	}
	m := ls.next(t)
	var p struct {
		TaskID string `json:"taskId"`
		Status string `json:"status"`
	}
	json.Unmarshal(m["params"], &p)
	if string(m["method"]) != `"notifications/tasks"` || p.TaskID != id || p.Status != "working" {
		t.Errorf("after the outage, the stream says %v, want the task working", m)
	}
}
