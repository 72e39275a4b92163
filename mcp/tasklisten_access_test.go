package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/task"
)

// Following a task is reading it again and again: a listen stream checks
// before each round what tasks/get would check then (record 033). These
// tests held a stream delivering a task's result after tasks/get already
// refused the caller.

// TestTaskListen_WorkspaceWithdrawn: the caller's workspace withdrawn,
// the stream ends before the task's next status reaches it.
func TestTaskListen_WorkspaceWithdrawn(t *testing.T) {
	var revoked atomic.Bool
	ts := newTaskServer(t, func(c *auth.Config) {
		c.Workspaces = auth.WorkspaceFunc(func(ctx context.Context, p *auth.Principal, requested string) (string, error) {
			if revoked.Load() {
				return "", auth.ErrWorkspaceForbidden
			}
			return testWorkspaces(ctx, p, requested)
		})
	})
	url := ts.urls[0]
	id := ts.start(t, url, tokAlice, "")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := openListen(t, ctx, url, tokAlice, metaTasks, taskIDs(id), "text/event-stream")
	if m := s.next(t); string(m["method"]) != `"notifications/subscriptions/acknowledged"` {
		t.Fatalf("ack: %v", m)
	}
	if m := s.next(t); string(m["method"]) != `"notifications/tasks"` {
		t.Fatalf("first: %v", m)
	}
	revoked.Store(true)
	if r := ts.get(t, url, tokAlice, "", id); r.Error == nil {
		t.Fatalf("tasks/get after the workspace was withdrawn: %s", r.raw)
	}
	ts.store.set("job-1", func(j *testJob) {
		j.Status, j.Result = task.Completed, json.RawMessage(`"w1 confidential result"`)
	})
	m := s.within(t, 10*time.Second)
	if m != nil && strings.Contains(string(m["params"]), "confidential") {
		t.Errorf("the result reached the stream after the workspace was withdrawn: %s", m["params"])
	}
	if m == nil || m["result"] == nil {
		t.Errorf("the stream did not end: %v", m)
	}
}

// TestTaskListen_TokenExpiry: a stream following tasks ends with the
// token it was opened with, on a handler without WithChangeNotifications
// too, as one asking for list changes does.
func TestTaskListen_TokenExpiry(t *testing.T) {
	expires := time.Now().Add(1500 * time.Millisecond)
	ts := newTaskServer(t, func(c *auth.Config) {
		c.Skew = time.Millisecond // the stream ends when Authenticate would refuse the token
		c.Verifier = auth.VerifierFunc(func(ctx context.Context, token string, r *http.Request) (*auth.Principal, error) {
			p, err := testVerifier(ctx, tokAlice, r)
			if err == nil && token == "tok-short" {
				p.ExpiresAt = expires
			}
			return p, err
		})
	})
	url := ts.urls[0]
	id := ts.start(t, url, "tok-short", "")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := openListen(t, ctx, url, "tok-short", metaTasks, taskIDs(id), "text/event-stream")
	s.next(t) // ack
	s.next(t) // working
	time.Sleep(time.Until(expires) + 200*time.Millisecond)
	ts.store.set("job-1", func(j *testJob) { j.Status, j.Result = task.Completed, json.RawMessage(`"after expiry"`) })
	if m := s.within(t, 3*time.Second); m != nil && strings.Contains(string(m["params"]), "after expiry") {
		t.Errorf("a result reached the stream after its token expired: %s", m["params"])
	}
}

// TestTaskListen_ToolRemoved: a task whose tool was removed while the
// stream follows it is unknown to tasks/get, and no longer followed.
func TestTaskListen_ToolRemoved(t *testing.T) {
	ts := newTaskServer(t)
	url := ts.urls[0]
	id := ts.start(t, url, tokAlice, "")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s := openListen(t, ctx, url, tokAlice, metaTasks, taskIDs(id), "text/event-stream")
	s.next(t)
	s.next(t)
	if err := ts.srvs[0].Update(func(srv *mcp.Server) { srv.Remove(auth.KindTool, "slow") }); err != nil {
		t.Fatal(err)
	}
	if r := ts.get(t, url, tokAlice, "", id); r.code() != -32602 {
		t.Fatalf("tasks/get after removal: %s", r.raw)
	}
	ts.store.set("job-1", func(j *testJob) { j.Status, j.Result = task.Completed, json.RawMessage(`"of a removed tool"`) })
	if m := s.within(t, 3*time.Second); m != nil && strings.Contains(string(m["params"]), "removed tool") {
		t.Errorf("the stream delivered a task tasks/get calls unknown: %s", m["params"])
	}
}
