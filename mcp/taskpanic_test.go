package mcp_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/task"
)

// TestTask_HookPanicsLogged: a panic in a tool's task hooks is logged as
// what it is. A panicking Accepted fails the call (isError) and is not
// logged as a 202 without a job reference; a panicking Read on the 202
// answer starts the task as working, and is logged rather than swallowed.
func TestTask_HookPanicsLogged(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /jobs", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		w.Write([]byte(`{"id":"j1","status":"completed"}`))
	})
	routes := task.Config{Status: "GET /jobs/{id}", TTL: time.Hour}
	accepted, read := routes, routes
	accepted.Accepted = func(http.Header, []byte) (map[string]string, bool) { panic("accepted bug") }
	read.Read = func(int, http.Header, []byte) (task.Job, error) { panic("read bug") }
	srv := mcp.NewServer(mcp.Implementation{Name: "tasks", Version: "1"})
	obj := json.RawMessage(`{"type":"object"}`)
	srv.AddTool(mcp.Tool{Name: "accepted", InputSchema: obj}, "POST /jobs", mux, mcp.WithTask(accepted))
	srv.AddTool(mcp.Tool{Name: "read", InputSchema: obj}, "POST /jobs", mux, mcp.WithTask(read))
	log := &syncBuffer{}
	ts := httptest.NewServer(mcp.NewHandler(srv, []mcp.Era{era2026.New()}, mcp.WithLogger(slog.New(slog.NewTextHandler(log, nil)))))
	t.Cleanup(ts.Close)

	r := rpc(t, ts.URL, "none", "", "tools/call", "accepted", metaTasks, `"name":"accepted","arguments":{}`)
	if string(r.Result["isError"]) != "true" {
		t.Errorf("accepted: %s", r.raw)
	}
	r = rpc(t, ts.URL, "none", "", "tools/call", "read", metaTasks, `"name":"read","arguments":{}`)
	if string(r.Result["resultType"]) != `"task"` || string(r.Result["status"]) != `"working"` {
		t.Errorf("read: %s", r.raw)
	}
	// Each panic is logged by its type and place, never its value (design
	// record 011).
	out := log.String()
	for _, want := range []string{"Accepted function panicked", `panic.type=string panic.at="github.com/mcpdual/mcpdual/mcp_test.TestTask_HookPanicsLogged.func2`,
		"Read function panicked", `panic.type=string panic.at="github.com/mcpdual/mcpdual/mcp_test.TestTask_HookPanicsLogged.func3`} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, " bug") {
		t.Errorf("a panic's value is logged:\n%s", out)
	}
	if strings.Contains(out, "without a job reference") {
		t.Errorf("a panicking Accepted logged as a missing job reference:\n%s", out)
	}
}
