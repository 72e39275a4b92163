package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/task"
)

// listenStream is an open subscriptions/listen response, read event by
// event.
type listenStream struct {
	resp *http.Response
	rd   *bufio.Reader
}

// openListen sends a 2026-07-28 subscriptions/listen (request id 7) with
// params and returns its response, unread.
func openListen(t *testing.T, ctx context.Context, url, token, meta, params, accept string) *listenStream {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{` + meta + "," + params + "}}"
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	req.Header.Set("Authorization", "Bearer "+token)
	if token == tokBob {
		req.Header.Set("X-Workspace-Id", "w1") // bob has two
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return &listenStream{resp: resp, rd: bufio.NewReader(resp.Body)}
}

// next returns the next event's JSON-RPC message, or nil at the end of
// the stream.
func (s *listenStream) next(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	for {
		line, err := s.rd.ReadString('\n')
		if err != nil {
			return nil
		}
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var m map[string]json.RawMessage
			if err := json.Unmarshal([]byte(data), &m); err != nil {
				t.Fatalf("event %q: %v", data, err)
			}
			return m
		}
	}
}

// subscriptionOf is the _meta subscription id of a message's params or
// result.
func subscriptionOf(t *testing.T, body json.RawMessage) string {
	t.Helper()
	var v struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	json.Unmarshal(body, &v)
	return string(v.Meta["io.modelcontextprotocol/subscriptionId"])
}

func taskIDs(ids ...string) string {
	b, _ := json.Marshal(ids)
	return `"notifications":{"taskIds":` + string(b) + `}`
}

// A stream acknowledges the ids that opened (a forged one is left out),
// sends the task as it first reads it, then each change with the full
// task (the result once completed), and ends with its result once every
// task is final. Every message names the subscription.
func TestTaskListen_WorkingToCompleted(t *testing.T) {
	ts := newTaskServer(t)
	url := ts.urls[0]
	id := ts.start(t, url, tokAlice, "")
	s := openListen(t, context.Background(), url, tokAlice, metaTasks, taskIDs(id, "forged-id"), "application/json, text/event-stream")
	if s.resp.StatusCode != 200 || !strings.HasPrefix(s.resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(s.resp.Body)
		t.Fatalf("listen: %d %s %s", s.resp.StatusCode, s.resp.Header.Get("Content-Type"), b)
	}
	ack := s.next(t)
	if string(ack["method"]) != `"notifications/subscriptions/acknowledged"` || subscriptionOf(t, ack["params"]) != "7" {
		t.Fatalf("first message: %v", ack)
	}
	var ap struct {
		Notifications map[string][]string `json:"notifications"`
	}
	json.Unmarshal(ack["params"], &ap)
	if got := ap.Notifications["taskIds"]; len(ap.Notifications) != 1 || len(got) != 1 || got[0] != id {
		t.Errorf("acknowledged %s, want only the id that opened", ack["params"])
	}
	type detailed struct {
		TaskID        string          `json:"taskId"`
		Status        string          `json:"status"`
		StatusMessage string          `json:"statusMessage"`
		TTLMs         *int64          `json:"ttlMs"`
		Poll          int64           `json:"pollIntervalMs"`
		Result        json.RawMessage `json:"result"`
	}
	read := func(want string) detailed {
		t.Helper()
		m := s.next(t)
		if string(m["method"]) != `"notifications/tasks"` || subscriptionOf(t, m["params"]) != "7" {
			t.Fatalf("want notifications/tasks, got %v", m)
		}
		var d detailed
		json.Unmarshal(m["params"], &d)
		if d.TaskID != id || d.Status != want || d.TTLMs == nil || d.Poll != 500 {
			t.Fatalf("notification %s, want %s of %s", m["params"], want, id)
		}
		return d
	}
	if d := read("working"); d.StatusMessage != "queued" {
		t.Errorf("first status message %q", d.StatusMessage)
	}
	ts.store.set("job-1", func(j *testJob) { j.StatusMessage = "half way" })
	if d := read("working"); d.StatusMessage != "half way" {
		t.Errorf("second status message %q", d.StatusMessage)
	}
	ts.store.set("job-1", func(j *testJob) {
		j.Status, j.StatusMessage, j.Result = task.Completed, "", json.RawMessage(`"all done"`)
	})
	d := read("completed")
	if !strings.Contains(string(d.Result), `"all done"`) || !strings.Contains(string(d.Result), `"resultType":"complete"`) {
		t.Errorf("completed task's result: %s", d.Result)
	}
	end := s.next(t)
	var res struct {
		ResultType string `json:"resultType"`
	}
	json.Unmarshal(end["result"], &res)
	if string(end["id"]) != "7" || res.ResultType != "complete" || subscriptionOf(t, end["result"]) != "7" {
		t.Fatalf("stream end: %v", end)
	}
	if m := s.next(t); m != nil {
		t.Errorf("after the result: %v", m)
	}
}

// What a listen cannot have: each refusal is the answer tasks/get (or,
// for a listen asking no task, the server before listen existed) gives.
func TestTaskListen_Refusals(t *testing.T) {
	ts := newTaskServer(t)
	url := ts.urls[0]
	id := ts.start(t, url, tokAlice, "")
	foreign := ts.start(t, ts.other, tokAlice, "")
	bobs := ts.start(t, url, tokBob, "w1")
	many := make([]string, 17)
	for i := range many {
		many[i] = id + strings.Repeat("x", i)
	}
	const both = "application/json, text/event-stream"
	cases := []struct {
		name, meta, params, accept string
		status, code               int
	}{
		{"no extension", metaNoTasks, taskIDs(id), both, 400, -32021},
		{"no task asked", metaTasks, `"notifications":{"toolsListChanged":true}`, both, 404, -32601},
		{"no task asked, no extension", metaNoTasks, `"notifications":{"toolsListChanged":true}`, both, 404, -32601},
		{"forged id", metaTasks, taskIDs("forged"), both, 200, -32602},
		{"another key ring's id", metaTasks, taskIDs(foreign), both, 200, -32602},
		{"another caller's id", metaTasks, taskIDs(bobs), both, 200, -32602},
		{"ids not an array", metaTasks, `"notifications":{"taskIds":"` + id + `"}`, both, 200, -32602},
		{"an id not a string", metaTasks, `"notifications":{"taskIds":[1]}`, both, 200, -32602},
		{"no id", metaTasks, taskIDs(), both, 200, -32602},
		{"too many ids", metaTasks, taskIDs(many...), both, 200, -32602},
		{"no event stream accepted", metaTasks, taskIDs(id), "application/json", 406, -32600},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := openListen(t, context.Background(), url, tokAlice, c.meta, c.params, c.accept)
			var r rpcReply
			if err := json.NewDecoder(s.resp.Body).Decode(&r); err != nil {
				t.Fatal(err)
			}
			if s.resp.StatusCode != c.status || r.code() != c.code {
				t.Errorf("got %d %+v, want %d %d", s.resp.StatusCode, r.Error, c.status, c.code)
			}
		})
	}
	// 2025 revisions have no listen, as before.
	body := `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{` + taskIDs(id) + `}}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	req.Header.Set("Authorization", "Bearer "+tokAlice)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r rpcReply
	json.NewDecoder(resp.Body).Decode(&r)
	if r.code() != -32601 {
		t.Errorf("2025-11-25 listen: %d %+v", resp.StatusCode, r.Error)
	}
}

// A client that goes away ends its stream: the status route is read no
// more and no goroutine is left.
func TestTaskListen_DisconnectStopsPolling(t *testing.T) {
	ts := newTaskServer(t)
	url := ts.urls[0]
	id := ts.start(t, url, tokAlice, "")
	runtime.GC()
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	s := openListen(t, ctx, url, tokAlice, metaTasks, taskIDs(id), "text/event-stream, application/json")
	if m := s.next(t); string(m["method"]) != `"notifications/subscriptions/acknowledged"` {
		t.Fatalf("first message: %v", m)
	}
	if m := s.next(t); string(m["method"]) != `"notifications/tasks"` {
		t.Fatalf("second message: %v", m)
	}
	// The stream polls (at 500 ms, raised to the 1 s minimum): wait, a
	// bounded number of times, for one more read than the first.
	polling := 0
	for range 1000 {
		ts.store.mu.Lock()
		polling = ts.store.gets
		ts.store.mu.Unlock()
		if polling >= 2 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if polling < 2 {
		t.Fatalf("the status route was read %d times in 10 s at 1 s", polling)
	}
	cancel()
	s.resp.Body.Close()
	// A bound, not a measure: reached only when a goroutine stays (a
	// loaded 2-core machine under -race may take seconds to let a
	// connection's goroutines go).
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after the client left, %d before the stream", n, before)
	}
	ts.store.mu.Lock()
	after := ts.store.gets
	ts.store.mu.Unlock()
	time.Sleep(1500 * time.Millisecond)
	ts.store.mu.Lock()
	defer ts.store.mu.Unlock()
	if ts.store.gets != after {
		t.Errorf("the status route was read %d more times after the client left", ts.store.gets-after)
	}
}

// A caller holds at most 4 streams; a stream lives a bounded time, then
// ends with its result while its task still works.
func TestTaskListen_Bounds(t *testing.T) {
	defer mcp.SetListenLifetimeForTest(2 * time.Second)()
	ts := newTaskServer(t)
	url := ts.urls[0]
	id := ts.start(t, url, tokAlice, "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var open []*listenStream
	for range 4 {
		s := openListen(t, ctx, url, tokAlice, metaTasks, taskIDs(id), "application/json, text/event-stream")
		if m := s.next(t); string(m["method"]) != `"notifications/subscriptions/acknowledged"` {
			t.Fatalf("stream %d: %v", len(open)+1, m)
		}
		open = append(open, s)
	}
	s := openListen(t, ctx, url, tokAlice, metaTasks, taskIDs(id), "application/json, text/event-stream")
	if s.resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a fifth stream of one caller: %d", s.resp.StatusCode)
	}
	// Another caller is not held back by alice's streams.
	bobs := ts.start(t, url, tokBob, "w1")
	b := openListen(t, ctx, url, tokBob, metaTasks, taskIDs(bobs), "application/json, text/event-stream")
	if m := b.next(t); string(m["method"]) != `"notifications/subscriptions/acknowledged"` {
		t.Errorf("bob's stream: %v", m)
	}
	// The first stream ends with its result at its 2 s lifetime. 10 s
	// bounds the wait, well below the default lifetime (45 s), and is no
	// measure of it: a loaded machine may deliver the end late.
	first := open[0]
	for range 100 {
		m := first.within(t, 10*time.Second)
		if m == nil {
			t.Fatal("the stream did not end with its result within 10 s of a 2 s lifetime")
		}
		if m["result"] != nil {
			return
		}
	}
	t.Fatal("the stream sent 100 messages and no result")
}

// Following a task needs what tasks/get needs: here the tools/call scope
// items:write, which alice lacks and the writer has.
func TestTaskListen_Scopes(t *testing.T) {
	ts := newTaskServer(t, func(c *auth.Config) { c.MethodScopes = map[string][]string{"tools/call": {"items:write"}} })
	url := ts.urls[0]
	id := ts.start(t, url, tokWriter, "")
	s := openListen(t, context.Background(), url, tokAlice, metaTasks, taskIDs(id), "application/json, text/event-stream")
	var r rpcReply
	json.NewDecoder(s.resp.Body).Decode(&r)
	if s.resp.StatusCode != 403 || r.code() != -31403 || !strings.Contains(s.resp.Header.Get("WWW-Authenticate"), "items:write") {
		t.Errorf("listen without the scope: %d %+v", s.resp.StatusCode, r.Error)
	}
	s = openListen(t, context.Background(), url, tokWriter, metaTasks, taskIDs(id), "application/json, text/event-stream")
	if m := s.next(t); string(m["method"]) != `"notifications/subscriptions/acknowledged"` {
		t.Errorf("listen with the scope: %d %v", s.resp.StatusCode, m)
	}
}

// A task past its TTL is one tasks/get no longer knows: the stream stops
// following it, and ends when nothing else is left, well before its own
// lifetime.
func TestTaskListen_TTLEndsFollowing(t *testing.T) {
	store := &jobStore{jobs: map[string]*testJob{}}
	srv := mcp.NewServer(mcp.Implementation{Name: "brief", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "brief", InputSchema: json.RawMessage(`{"type":"object"}`)}, "POST /jobs", store.mux(),
		mcp.WithTask(task.Config{Status: "GET /jobs/{id}", TTL: 1500 * time.Millisecond, PollInterval: 100 * time.Millisecond}))
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New()}, mcp.WithLogger(slog.New(slog.DiscardHandler)), mcp.WithAuth(auth.New(authConfig(nil))))
	hs := httptest.NewServer(h)
	defer hs.Close()
	r := rpc(t, hs.URL, tokAlice, "", "tools/call", "brief", metaTasks, `"name":"brief","arguments":{}`)
	id := r.str("taskId")
	if id == "" {
		t.Fatalf("tools/call: %s", r.raw)
	}
	s := openListen(t, context.Background(), hs.URL, tokAlice, metaTasks, taskIDs(id), "application/json, text/event-stream")
	if m := s.next(t); string(m["method"]) != `"notifications/subscriptions/acknowledged"` {
		t.Fatalf("first message: %v", m)
	}
	if m := s.next(t); string(m["method"]) != `"notifications/tasks"` {
		t.Fatalf("second message: %v", m)
	}
	// The stream ends once the task's TTL (1.5 s) has passed: within 10 s,
	// a bound well below the stream's own lifetime (45 s) and no measure
	// (a loaded machine may read the task late).
	if m := s.within(t, 10*time.Second); m == nil || m["result"] == nil {
		t.Fatalf("want the stream's end within 10 s of a task with a TTL of 1.5 s, got %v", m)
	}
}

// TestTaskListen_OutlivesWriteTimeout: a tasks-only listen (no change
// notifications) on a server with a WriteTimeout keeps delivering past
// it: every write of a stream moves the connection's write deadline
// first, as a stream of list changes does, so the server's bound on a
// plain response does not cut a stream that is still reporting.
func TestTaskListen_OutlivesWriteTimeout(t *testing.T) {
	t.Cleanup(mcp.SetStreamWriteTimeoutForTest(time.Second)) // after the servers close
	ts := newTaskServer(t)
	s := httptest.NewUnstartedServer(ts.hs[0])
	s.Config.WriteTimeout = 300 * time.Millisecond
	s.Start()
	t.Cleanup(s.Close)
	id := ts.start(t, s.URL, tokAlice, "")
	l := openListen(t, t.Context(), s.URL, tokAlice, metaTasks, taskIDs(id), "application/json, text/event-stream")
	if ack := l.next(t); string(ack["method"]) != `"notifications/subscriptions/acknowledged"` {
		t.Fatalf("first message: %v", ack)
	}
	if m := l.next(t); string(m["method"]) != `"notifications/tasks"` {
		t.Fatalf("second message: %v", m)
	}
	time.Sleep(600 * time.Millisecond) // past the server's WriteTimeout
	ts.store.set("job-1", func(j *testJob) {
		j.Status, j.StatusMessage, j.Result = task.Completed, "", json.RawMessage(`"all done"`)
	})
	if m := l.next(t); string(m["method"]) != `"notifications/tasks"` || !strings.Contains(string(m["params"]), `"completed"`) {
		t.Fatalf("the change after the server's WriteTimeout: %v", m)
	}
	if end := l.next(t); string(end["id"]) != "7" || end["result"] == nil {
		t.Fatalf("stream end: %v", end)
	}
}
