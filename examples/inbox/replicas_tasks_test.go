package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
)

// tasks: a task created through the balancer is followed to completion by
// tasks/get through the balancer, which spreads the polls over every
// replica, and none answers Unknown task (the jobs live in Redis); after
// the replica that created it restarts, the result is still there, on
// every replica, the restarted one included.
func (d *fleetDriver) tasks(t *testing.T) {
	ports := strings.Fields(os.Getenv("INBOX_REPLICAS_PORTS"))
	if len(ports) != d.replicas {
		t.Fatalf("INBOX_REPLICAS_PORTS: want the %d replicas' ports, got %q", d.replicas, os.Getenv("INBOX_REPLICAS_PORTS"))
	}
	ctx := context.Background()
	c := mcptest.Dial(d.url+"/mcp", mcp.Version20260728, mcptest.WithHeader("Authorization", "Bearer "+fleetWriter.token),
		mcptest.WithCapabilities(json.RawMessage(`{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`)),
		mcptest.WithAnswers(func(string, mcptest.InputRequest) (json.RawMessage, bool) {
			return json.RawMessage(`{"action":"accept","content":{"confirm":true}}`), true
		}))
	// send retries what a client retries: a spent budget, a replica
	// being restarted.
	send := func(method string, params any) *mcptest.Response {
		t.Helper()
		for try := 0; ; try++ {
			var r *mcptest.Response
			var err error
			if method == "tools/call" { // answers the confirmation
				p := params.(map[string]any)
				r, err = c.CallTool(ctx, p["name"].(string), p["arguments"])
			} else {
				r, err = c.Call(ctx, method, params)
			}
			if err == nil && r.Status == http.StatusOK {
				return r
			}
			if try == 20 {
				t.Fatalf("%s: %v %s", method, err, rawOf(r))
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	r := send("tools/call", map[string]any{"name": "emails_reprocess", "arguments": map[string]string{"id": "eml_globex_0003"}})
	var created struct{ ResultType, TaskID string }
	if json.Unmarshal(r.Result, &created) != nil || created.ResultType != "task" || created.TaskID == "" {
		t.Fatalf("tools/call: %s", r.Raw)
	}
	owner := upstreamOfResponse(r)
	get := func() (status, result, upstream string) {
		g := send("tasks/get", map[string]any{"taskId": created.TaskID})
		if g.Error != nil {
			return "error: " + g.Error.Message, string(g.Raw), upstreamOfResponse(g)
		}
		var got struct {
			Status string
			Result toolResult
		}
		_ = json.Unmarshal(g.Result, &got)
		if len(got.Result.Content) > 0 {
			result = got.Result.Content[0].Text
		}
		return got.Status, result, upstreamOfResponse(g)
	}
	polled := map[string]int{}
	var result string
	for polls := 1; ; polls++ {
		status, text, up := get()
		polled[up]++
		if status != "working" && status != "completed" {
			t.Fatalf("poll %d on %s: %s %s", polls, up, status, text)
		}
		if status == "completed" && len(polled) >= d.replicas {
			result = text
			break
		}
		if polls == 100 {
			t.Fatalf("not completed, or not polled on every replica, after 100 polls: %v, last %s", polled, status)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(result, `"status":"succeeded"`) {
		t.Fatalf("the completed result: %s", result)
	}
	d.figure(t, "tasks: created on %s, followed to completion over %d replicas (%v polls), no Unknown task", owner, len(polled), polled)

	i := slices.IndexFunc(ports, func(p string) bool { return strings.HasSuffix(owner, ":"+p) })
	if i < 0 {
		t.Fatalf("the task was created on %q, not one of the replicas %v", owner, ports)
	}
	d.run(t, "restart", strconv.Itoa(i), "before")
	seen := map[string]bool{}
	for reads := 0; !seen[owner] || len(seen) < d.replicas; reads++ {
		if reads == 10*d.replicas {
			t.Fatalf("after the restart, reads reached %v only", seen)
		}
		status, text, up := get()
		if status != "completed" || text != result {
			t.Fatalf("after restarting %s, on %s: %s %s", owner, up, status, text)
		}
		seen[up] = true
	}
	d.figure(t, "tasks: after restarting %s, the result read back from all %d replicas", owner, len(seen))
}
