package mcp_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/task"
)

// TestTaskListen_QuietOverHTTP2: a tasks-only listen (no
// WithChangeNotifications, so no keep-alive) over HTTP/2, with no server
// WriteTimeout, must outlive a quiet spell longer than the stream's write
// deadline. HTTP/2 resets a stream when its write deadline passes, whether
// or not a write is pending, so a deadline moved by the last write and then
// left to run out cuts a quiet stream.
func TestTaskListen_QuietOverHTTP2(t *testing.T) {
	t.Cleanup(mcp.SetStreamWriteTimeoutForTest(300 * time.Millisecond)) // after the servers close
	ts := newTaskServer(t)
	s := httptest.NewUnstartedServer(ts.hs[0])
	s.EnableHTTP2 = true
	s.StartTLS()
	t.Cleanup(s.Close)
	old := http.DefaultClient
	http.DefaultClient = s.Client()
	t.Cleanup(func() { http.DefaultClient = old })

	id := ts.start(t, s.URL, tokAlice, "")
	l := openListen(t, t.Context(), s.URL, tokAlice, metaTasks, taskIDs(id), "application/json, text/event-stream")
	if l.resp.ProtoMajor != 2 {
		t.Fatalf("not HTTP/2: %s", l.resp.Proto)
	}
	if ack := l.next(t); string(ack["method"]) != `"notifications/subscriptions/acknowledged"` {
		t.Fatalf("first message: %v", ack)
	}
	if m := l.next(t); string(m["method"]) != `"notifications/tasks"` {
		t.Fatalf("second message: %v", m)
	}
	time.Sleep(900 * time.Millisecond) // quiet, three write deadlines long
	ts.store.set("job-1", func(j *testJob) {
		j.Status, j.StatusMessage, j.Result = task.Completed, "", json.RawMessage(`"all done"`)
	})
	if m := l.next(t); string(m["method"]) != `"notifications/tasks"` || !strings.Contains(string(m["params"]), `"completed"`) {
		t.Fatalf("the change after a quiet spell over HTTP/2: %v (the stream was reset)", m)
	}
}

// TestNotify_QuietOverHTTP2: a listen for list changes with the
// default KeepAlive (15 s, above the 10 s stream write deadline) over
// HTTP/2 outlives a quiet spell longer than the write deadline (scaled:
// a 300 ms deadline, 2 s keep-alive, 900 ms of quiet).
func TestNotify_QuietOverHTTP2(t *testing.T) {
	t.Cleanup(mcp.SetStreamWriteTimeoutForTest(300 * time.Millisecond)) // after the servers close
	r := &replica{mux: http.NewServeMux()}
	r.mux.HandleFunc("GET /a", func(w http.ResponseWriter, req *http.Request) { w.Write([]byte("a")) })
	r.srv = mcp.NewServer(mcp.Implementation{Name: "notes", Version: "1"})
	r.srv.AddTool(mcp.Tool{Name: "a", InputSchema: objSchema}, "GET /a", r.mux)
	r.h = mcp.NewHandler(r.srv, []mcp.Era{era2026.New()}, mcp.WithStreaming(),
		mcp.WithChangeNotifications(mcp.ChangeNotifications{Bus: mcp.NewMemoryEventBusForTest(), KeepAlive: 2 * time.Second}))
	s := httptest.NewUnstartedServer(r.h)
	s.EnableHTTP2 = true
	s.StartTLS()
	t.Cleanup(s.Close)
	r.url = s.URL
	old := http.DefaultClient
	http.DefaultClient = s.Client()
	t.Cleanup(func() { http.DefaultClient = old })

	l, ack := r.listen(t, t.Context(), tokAlice, "w1", `"toolsListChanged":true`)
	if method(ack) != "notifications/subscriptions/acknowledged" || l.resp.ProtoMajor != 2 {
		t.Fatalf("ack over %s: %s", l.resp.Proto, ack)
	}
	time.Sleep(900 * time.Millisecond)
	r.addTool(t, "b")
	if m := l.within(t, 10*time.Second); method(m) != "notifications/tools/list_changed" {
		t.Fatalf("the change after a quiet spell over HTTP/2: %v (the stream was reset)", m)
	}
}
