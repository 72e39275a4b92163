package mcp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/mcp/auth"
)

// TestTaskScopes_ChallengeNamesEachScopeOnce: a tasks/* method needs its
// own scopes and those of tools/call. Where the two lists share a scope,
// the 403 step-up challenge and data.required still name each scope once:
// the challenge is the scope a client asks for at login, and a scope
// named twice there is noise at best (2026-07-28, the only revision with
// tasks). Both refusals come before the task id is looked at.
func TestTaskScopes_ChallengeNamesEachScopeOnce(t *testing.T) {
	ts := newTaskServer(t, func(c *auth.Config) {
		c.MethodScopes = map[string][]string{"tasks/get": {"mcp:read"}, "tools/call": {"mcp:read", "items:write"}}
	})
	const want = `Bearer error="insufficient_scope", scope="mcp:read items:write", resource_metadata="` + prmURL +
		`", error_description="The operation requires scope mcp:read items:write"`
	for _, method := range []string{"tasks/get", "tasks/cancel"} {
		r := rpc(t, ts.urls[0], tokAlice, "", method, "task-1", metaTasks, `"taskId":"task-1"`)
		if r.status != 403 || r.code() != -31403 {
			t.Fatalf("%s without items:write: %d %s", method, r.status, r.raw)
		}
		if got := r.header.Values("WWW-Authenticate"); len(got) != 1 || got[0] != want {
			t.Errorf("%s: WWW-Authenticate = %q\nwant %q", method, got, want)
		}
		var data struct {
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(r.Error.Data, &data); err != nil || strings.Join(data.Required, " ") != "mcp:read items:write" {
			t.Errorf("%s: data.required = %v (%v)", method, data.Required, err)
		}
	}
}
