package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/stdio"
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

// TestListen_AskingNothingIsRefused: a listen whose filter names no kind
// (every field omitted or false, no URI, no taskIds) could never carry a
// notification; it is refused at once with -32602, as taskIds naming no
// task is, instead of being acknowledged and kept open, idle, for the
// stream's lifetime. 2026-07-28 is the only revision with listen.
func TestListen_AskingNothingIsRefused(t *testing.T) {
	t.Cleanup(mcp.SetListenLifetimeForTest(time.Hour)) // only the refusal can end it; restored once the servers closed
	f := newFleet(t, 1)
	r := f.replicas[0]
	for _, filter := range []string{``, `"toolsListChanged":false`,
		`"toolsListChanged":false,"promptsListChanged":false,"resourcesListChanged":false`,
		`"resourceSubscriptions":[]`, `"promptsListChanged":false,"resourceSubscriptions":[]`} {
		s, got := r.listen(t, t.Context(), tokAlice, "w1", filter)
		if method(got) != "" {
			t.Fatalf("{%s}: acknowledged %s", filter, got["params"])
		}
		var body struct {
			ID    json.RawMessage `json:"id"`
			Error struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(got["body"], &body); err != nil {
			t.Fatalf("{%s}: %s %s", filter, got["status"], got["body"])
		}
		// 200, as every -32602 of a listen whose envelope is sound
		// (taskIds naming no task, a malformed filter).
		if s.resp.StatusCode != http.StatusOK || string(body.ID) != "7" || body.Error.Code != -32602 ||
			!strings.Contains(body.Error.Message, "notifications asks for nothing") ||
			!strings.HasPrefix(s.resp.Header.Get("Content-Type"), "application/json") {
			t.Errorf("{%s}: %d %s %s, want 200 -32602", filter, s.resp.StatusCode, s.resp.Header.Get("Content-Type"), got["body"])
		}
	}
	// One kind asked is enough.
	if _, ack := r.listen(t, t.Context(), tokAlice, "w1", `"toolsListChanged":false,"promptsListChanged":true`); method(ack) != "notifications/subscriptions/acknowledged" {
		t.Errorf("promptsListChanged alone: %s %s", ack["status"], ack["body"])
	}
}

// TestListen_NothingHonouredEndsAtOnce: a listen asking only for
// resources its caller may not read is acknowledged with the empty subset
// the server honours, as the spec wants, and ends with its result at once:
// nothing could ever follow the acknowledgement.
func TestListen_NothingHonouredEndsAtOnce(t *testing.T) {
	t.Cleanup(mcp.SetListenLifetimeForTest(time.Hour)) // only the fix can end it; restored once the servers closed
	f := newFleet(t, 1)
	r := f.replicas[0]
	for _, filter := range []string{`"resourceSubscriptions":["mail://w2/inbox"]`,
		`"toolsListChanged":false,"resourceSubscriptions":["mail://w2/inbox","mail://w2/sent"]`} {
		s, ack := r.listen(t, t.Context(), tokAlice, "w1", filter)
		if method(ack) != "notifications/subscriptions/acknowledged" || subscriptionOf(t, ack["params"]) != "7" ||
			!strings.Contains(string(ack["params"]), `"notifications":{}`) {
			t.Fatalf("{%s}: ack %s %s %s", filter, ack["status"], ack["params"], ack["body"])
		}
		end := s.within(t, 10*time.Second) // a bound on a stream that never ends, not a measure
		if end == nil || string(end["id"]) != "7" || subscriptionOf(t, end["result"]) != "7" ||
			!strings.Contains(string(end["result"]), `"resultType":"complete"`) {
			t.Errorf("{%s}: after the acknowledgement %s, want the result", filter, end)
		}
	}
	// The same listen in the resource's own workspace is honoured and
	// stays open.
	s, ack := r.listen(t, t.Context(), tokBob, "w2", `"resourceSubscriptions":["mail://w2/inbox"]`)
	if !strings.Contains(string(ack["params"]), `"resourceSubscriptions":["mail://w2/inbox"]`) {
		t.Fatalf("bob in w2: %s %s", ack["params"], ack["body"])
	}
	s.resp.Body.Close()
}

// TestListen_AskingNothingOverStdio: over stdio, where a listen shares the
// channel, a filter naming nothing is refused with -32602 and a listen
// honouring nothing it asked is acknowledged empty, then torn down at once
// (notifications/cancelled, then its result); neither holds the channel's
// stream open.
func TestListen_AskingNothingOverStdio(t *testing.T) {
	defer mcp.SetListenLifetimeForTest(time.Hour)() // only the fix can end it
	srv := mcp.NewServer(mcp.Implementation{Name: "stdio", Version: "1"})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /gone", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	srv.AddResource(mcp.Resource{URI: "test://gone", Name: "gone"}, "GET /gone", mux)
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New()}, mcp.WithLogger(slog.New(slog.DiscardHandler)),
		mcp.WithChangeNotifications(mcp.ChangeNotifications{}))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- stdio.Serve(ctx, h, inR, outW) }()
	defer func() { cancel(); inW.Close(); outR.Close(); <-done }()
	lines := make(chan map[string]json.RawMessage, 16)
	go func() {
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]json.RawMessage
			json.Unmarshal(sc.Bytes(), &m)
			lines <- m
		}
		close(lines)
	}()
	next := func(what string) map[string]json.RawMessage {
		t.Helper()
		select {
		case m := <-lines:
			return m
		case <-time.After(10 * time.Second): // a bound on a message that never comes, not a measure
			t.Fatalf("%s: nothing came", what)
			return nil
		}
	}
	listen := func(id int, filter string) {
		t.Helper()
		line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","params":{`+metaNoTasks+`,"notifications":{%s}}}`, id, filter)
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	for i, filter := range []string{``, `"toolsListChanged":false,"resourceSubscriptions":[]`} {
		listen(10+i, filter)
		m := next(filter)
		if string(m["id"]) != fmt.Sprint(10+i) || !strings.Contains(string(m["error"]), `"code":-32602`) ||
			!strings.Contains(string(m["error"]), "notifications asks for nothing") {
			t.Errorf("{%s}: %s, want -32602", filter, m)
		}
	}
	listen(20, `"resourceSubscriptions":["test://gone"]`)
	if m := next("ack"); method(m) != "notifications/subscriptions/acknowledged" || subscriptionOf(t, m["params"]) != "20" ||
		!strings.Contains(string(m["params"]), `"notifications":{}`) {
		t.Fatalf("ack: %s", m)
	}
	if m := next("teardown"); method(m) != "notifications/cancelled" || !strings.Contains(string(m["params"]), `"requestId":20`) {
		t.Fatalf("teardown: %s", m)
	}
	if m := next("result"); string(m["id"]) != "20" || subscriptionOf(t, m["result"]) != "20" {
		t.Fatalf("result: %s", m)
	}
}
