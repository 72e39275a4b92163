package mcp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/task"
)

// TestTasks_ValidForItsTTL: a task id is unknown once its TTL has passed,
// although the sealer would still open it (it tolerates its skew, 30 s
// by default, past the expiry, which it counts in whole seconds): the job
// store keeps a job for the TTL, so an id honoured past it would name a
// job that is gone. Self-contained: its own server and requests.
func TestTasks_ValidForItsTTL(t *testing.T) {
	t.Parallel()
	const ttl = 300 * time.Millisecond
	mux := http.NewServeMux()
	mux.HandleFunc("POST /jobs", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, `{"id":"job-1","state":"working"}`)
	})
	mux.HandleFunc("GET /jobs/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"job-1","state":"working"}`)
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "ttl", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)}, "POST /jobs", mux,
		mcp.WithTask(task.Config{Status: "GET /jobs/{id}", TTL: ttl,
			Read: func(int, http.Header, []byte) (task.Job, error) { return task.Job{State: task.Working}, nil }}))
	ts := httptest.NewServer(mcp.NewHandler(srv, []mcp.Era{era2026.New()}))
	defer ts.Close()
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`
	send := func(method, name, params string) map[string]any {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + meta + `,` + params + `}}`
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		req.Header.Set("Mcp-Name", name)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	r := send("tools/call", "slow", `"name":"slow","arguments":{}`)
	res, _ := r["result"].(map[string]any)
	id, _ := res["taskId"].(string)
	if id == "" {
		t.Fatalf("no task: %v", r)
	}
	// The TTL runs from the server's createdAt (what the id carries, to
	// the millisecond), not from before the request: on a loaded machine
	// the server may create the task more than the margin below later.
	at, _ := res["createdAt"].(string)
	created, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		t.Fatalf("createdAt %q: %v", at, err)
	}
	get := func() map[string]any {
		b, _ := json.Marshal(id)
		return send("tasks/get", id, `"taskId":`+string(b))
	}
	if r := get(); r["error"] != nil && time.Since(created) < ttl {
		t.Fatalf("within its TTL: %v", r)
	}
	time.Sleep(time.Until(created.Add(ttl + 50*time.Millisecond)))
	r = get()
	e, _ := r["error"].(map[string]any)
	if e == nil || e["message"] != "Unknown task" {
		t.Errorf("past its TTL, within the sealer's skew: %v", r)
	}
}
