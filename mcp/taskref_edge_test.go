package mcp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/task"
)

// TestTasks_JobReferenceEdge: the 1 KiB bound on a job reference
// (maxJobReference, wildcard names and values) is measured as the task
// id seals it, JSON-encoded without HTML escaping: a reference within it
// always becomes a task id, one past it is the tool's error (logged), not
// a failure to seal (-32603). Raw bytes were measured before, and sealed
// through json.Marshal, where "<" or a control character takes six: a
// 600-byte id passed the bound and the call answered -32603 with its job
// started. A value that is not valid UTF-8, which JSON would replace (the
// status route then asked of another job), is refused too.
func TestTasks_JobReferenceEdge(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		jobID    string
		task     bool
		location string // the route's Location header, read before its body
	}{
		{strings.Repeat("a", 1024-len("id")), true, ""}, // at the bound
		{strings.Repeat("a", 1025-len("id")), false, ""},
		{strings.Repeat("<", 600), true, ""},
		{strings.Repeat("&", 1024-len("id")), true, ""},
		{strings.Repeat("\x01", 170), true, ""}, // 1,020 bytes encoded
		{strings.Repeat("\x01", 600), false, ""},
		{"job-\xff", false, "/jobs/job-%FF"},
		{"job-\xc3\xa9", true, "/jobs/job-%C3%A9"},
	} {
		jobID := c.jobID
		var started int
		mux := http.NewServeMux()
		mux.HandleFunc("POST /jobs", func(w http.ResponseWriter, r *http.Request) {
			started++
			b, _ := json.Marshal(map[string]string{"id": jobID, "state": "working"})
			if c.location != "" {
				w.Header().Set("Location", c.location)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusAccepted)
			w.Write(b)
		})
		mux.HandleFunc("GET /jobs/{id}", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"state":"working"}`)
		})
		srv := mcp.NewServer(mcp.Implementation{Name: "ref", Version: "1"})
		srv.AddTool(mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)}, "POST /jobs", mux,
			mcp.WithTask(task.Config{Status: "GET /jobs/{id}",
				Read: func(int, http.Header, []byte) (task.Job, error) { return task.Job{State: task.Working}, nil }}))
		ts := httptest.NewServer(mcp.NewHandler(srv, []mcp.Era{era2026.New()}))
		const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + meta + `,"name":"slow","arguments":{}}}`
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "slow")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		resp.Body.Close()
		ts.Close()
		res, _ := out["result"].(map[string]any)
		id, _ := res["taskId"].(string)
		switch {
		case out["error"] != nil:
			t.Errorf("a %d-byte job id %q...: %v", len(jobID), jobID[:3], out["error"])
		case c.task && id == "":
			t.Errorf("a %d-byte job id %q...: the route started the job (%d) but the call got no task: %v", len(jobID), jobID[:3], started, res)
		case !c.task && (id != "" || res["isError"] != true):
			t.Errorf("a %d-byte job id %q...: %v, want the tool's error", len(jobID), jobID[:3], res)
		}
	}
}
