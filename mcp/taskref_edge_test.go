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
		r := rpc(t, ts.URL, "", "", "tools/call", "slow", metaTasks, `"name":"slow","arguments":{}`)
		ts.Close()
		var id string
		json.Unmarshal(r.Result["taskId"], &id)
		switch {
		case r.Error != nil:
			t.Errorf("a %d-byte job id %q...: %s", len(jobID), jobID[:3], r.raw)
		case c.task && id == "":
			t.Errorf("a %d-byte job id %q...: the route started the job (%d) but the call got no task: %s", len(jobID), jobID[:3], started, r.raw)
		case !c.task && (id != "" || string(r.Result["isError"]) != "true"):
			t.Errorf("a %d-byte job id %q...: %s, want the tool's error", len(jobID), jobID[:3], r.raw)
		}
	}
}
