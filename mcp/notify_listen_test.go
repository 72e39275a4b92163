package mcp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestNotify_ListenNeedsItsWorkspace: a listen asking for list changes or
// resources names a workspace its caller may not act in, or none where
// one is needed (no X-Workspace-Id): it is refused as tools/list there is (403, or 400), not
// acknowledged and kept open to carry list changes. A 2025 GET stream is
// refused alike (TestPush_StreamNeedsItsWorkspace), and so is a listen
// following tasks, whose ids open as tasks/get would.
func TestNotify_ListenNeedsItsWorkspace(t *testing.T) {
	f := newFleet(t, 1)
	r := f.replicas[0]
	for _, kinds := range []string{`"toolsListChanged":true`, `"promptsListChanged":true,"resourcesListChanged":true`,
		`"resourceSubscriptions":["mail://w1/inbox"]`} {
		for _, c := range []struct {
			workspace string
			status    int
			code      int
			reason    string
		}{
			{"w2", http.StatusForbidden, -31403, "workspace_forbidden"},
			{"", http.StatusBadRequest, -32602, "workspace_required"},
		} {
			list := rpc(t, r.url, tokAlice, c.workspace, "tools/list", "", metaNoTasks, "")
			if list.status != c.status || list.Error == nil || list.Error.Code != c.code {
				t.Fatalf("tools/list in %q: %d %s (the refusal a listen must match)", c.workspace, list.status, list.raw)
			}
			s, got := r.listen(t, t.Context(), tokAlice, c.workspace, kinds)
			if method(got) != "" {
				r.addTool(t, "b")
				t.Fatalf("{%s} in %q: acknowledged %s, then carried %s", kinds, c.workspace, got["params"], s.within(t, 2*time.Second))
			}
			var body struct {
				ID    json.RawMessage `json:"id"`
				Error struct {
					Code int `json:"code"`
					Data struct {
						Reason string `json:"reason"`
					} `json:"data"`
				} `json:"error"`
			}
			if err := json.Unmarshal(got["body"], &body); err != nil {
				t.Fatalf("{%s} in %q: %s %s", kinds, c.workspace, got["status"], got["body"])
			}
			if s.resp.StatusCode != c.status || string(body.ID) != "7" || body.Error.Code != c.code || body.Error.Data.Reason != c.reason ||
				!strings.HasPrefix(s.resp.Header.Get("Content-Type"), "application/json") {
				t.Errorf("{%s} in %q: %d %s %s, want %d %d %s", kinds, c.workspace, s.resp.StatusCode, s.resp.Header.Get("Content-Type"), got["body"],
					c.status, c.code, c.reason)
			}
		}
	}
	// In a workspace alice may act in, the same listen is served.
	if _, ack := r.listen(t, t.Context(), tokAlice, "w1", `"toolsListChanged":true`); method(ack) != "notifications/subscriptions/acknowledged" {
		t.Errorf("alice in w1: %s %s", ack["status"], ack["body"])
	}
}

// TestNotify_MalformedTaskIDsBesideListChanges: a client in the tasks
// extension whose listen asks for list changes and sends taskIds that
// are not an array of at most 16 task ids is refused as that taskIds
// alone is (-32602), not acknowledged with the taskIds dropped as if the
// ids had only failed to open. Ids that do not open are still left out;
// a client outside the extension has no taskIds member, and its listen
// is served without it.
func TestNotify_MalformedTaskIDsBesideListChanges(t *testing.T) {
	f := newFleet(t, 1)
	r := f.replicas[0]
	many := make([]string, 17)
	for i := range many {
		many[i] = fmt.Sprintf(`"t%d"`, i)
	}
	for _, ids := range []string{`5`, `"t1"`, `null`, `{}`, `[1]`, `[""]`, `["t1",null]`, `[` + strings.Join(many, ",") + `]`} {
		_, alone := r.listenWith(t, t.Context(), metaTasks, tokAlice, "w1", `"taskIds":`+ids)
		if !strings.Contains(string(alone["body"]), `"code":-32602`) {
			t.Fatalf("taskIds %s alone: %s %s", ids, alone["status"], alone["body"])
		}
		_, got := r.listenWith(t, t.Context(), metaTasks, tokAlice, "w1", `"toolsListChanged":true,"taskIds":`+ids)
		if string(got["status"]) != string(alone["status"]) || string(got["body"]) != string(alone["body"]) {
			t.Errorf("toolsListChanged and taskIds %.30s: %s %s %s, want %s %s", ids, got["status"], got["body"], got["params"], alone["status"], alone["body"])
		}
	}
	// Well formed, none opens: the other kinds are served.
	_, ack := r.listenWith(t, t.Context(), metaTasks, tokAlice, "w1", `"toolsListChanged":true,"taskIds":["forged","t2"]`)
	if method(ack) != "notifications/subscriptions/acknowledged" || !strings.Contains(string(ack["params"]), `"notifications":{"toolsListChanged":true}`) {
		t.Errorf("ids that do not open: %s %s %s", ack["status"], ack["body"], ack["params"])
	}
	// Outside the extension, taskIds is no member of the client's.
	_, ack = r.listenWith(t, t.Context(), metaNoTasks, tokAlice, "w1", `"toolsListChanged":true,"taskIds":5`)
	if method(ack) != "notifications/subscriptions/acknowledged" || !strings.Contains(string(ack["params"]), `"notifications":{"toolsListChanged":true}`) {
		t.Errorf("taskIds outside the extension: %s %s %s", ack["status"], ack["body"], ack["params"])
	}
}
