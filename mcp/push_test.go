package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

// session is a 2025 client's sealed session with a fleet (2025-06-18
// unless version says).
type session struct {
	id, init string
	token    string
	version  mcp.Version
}

func newSession(t *testing.T, r *replica) *session {
	t.Helper()
	return newSessionIn(t, r, mcp.Version20250618)
}

// newSessionIn initializes a session of revision v.
func newSessionIn(t *testing.T, r *replica, v mcp.Version) *session {
	t.Helper()
	s := &session{token: tokAlice, version: v}
	resp, body := s.post(t, r, "initialize", `"protocolVersion":"`+string(v)+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}`)
	s.id, s.init = resp.Header.Get("Mcp-Session-Id"), body
	if s.id == "" {
		t.Fatalf("no session: %s", body)
	}
	return s
}

// post sends one request of the session (id 1) to r as its token, in
// workspace w1, and returns the response and its whole body.
func (s *session) post(t *testing.T, r *replica, method, params string) (*http.Response, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params + `}}`
	req, _ := http.NewRequest(http.MethodPost, r.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("X-Workspace-Id", "w1")
	if method != "initialize" {
		req.Header.Set("MCP-Protocol-Version", string(s.revision()))
	}
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// revision is the session's revision, 2025-06-18 when none was set.
func (s *session) revision() mcp.Version {
	if s.version == "" {
		return mcp.Version20250618
	}
	return s.version
}

// get opens the session's GET stream on r.
func (s *session) get(t *testing.T, r *replica, token, id string) *listenStream {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, r.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("X-Workspace-Id", "w1")
	req.Header.Set("MCP-Protocol-Version", string(s.revision()))
	if id != "" {
		req.Header.Set("Mcp-Session-Id", id)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return &listenStream{resp: resp, rd: bufio.NewReader(resp.Body)}
}

// TestPush_AcrossReplicas: a 2025 session initialized on one replica
// opens its GET stream on another and subscribes through a third; list
// changes and updates of what it subscribed to reach the stream, and
// nothing else does.
func TestPush_AcrossReplicas(t *testing.T) {
	f := newFleet(t, 3)
	s := newSession(t, f.replicas[0])
	stream := s.get(t, f.replicas[1], tokAlice, s.id)
	if stream.resp.StatusCode != 200 || stream.resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(stream.resp.Body)
		t.Fatalf("GET: %d %s", stream.resp.StatusCode, b)
	}
	if _, body := s.post(t, f.replicas[2], "resources/subscribe", `"uri":"mail://w1/inbox"`); body != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("subscribe: %s", body)
	}
	f.replicas[0].h.NotifyResourceUpdated(t.Context(), "w1", "mail://w1/other")
	f.replicas[0].h.NotifyResourceUpdated(t.Context(), "w1", "mail://w1/inbox")
	m := stream.within(t, 10*time.Second)
	if method(m) != "notifications/resources/updated" || string(m["params"]) != `{"uri":"mail://w1/inbox"}` {
		t.Fatalf("update: %s", m)
	}
	for _, r := range f.replicas {
		r.addTool(t, "b")
	}
	if m := stream.within(t, 10*time.Second); method(m) != "notifications/tools/list_changed" || m["params"] != nil {
		t.Fatalf("list change: %s", m)
	}
	if _, body := s.post(t, f.replicas[0], "resources/unsubscribe", `"uri":"mail://w1/inbox"`); body != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("unsubscribe: %s", body)
	}
	// Again, through another replica: unsubscribing is idempotent.
	if _, body := s.post(t, f.replicas[1], "resources/unsubscribe", `"uri":"mail://w1/inbox"`); body != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("unsubscribe again: %s", body)
	}
	f.replicas[0].h.NotifyResourceUpdated(t.Context(), "w1", "mail://w1/inbox")
	if m := stream.within(t, 300*time.Millisecond); m != nil {
		t.Errorf("after unsubscribing: %s", m)
	}
}

// TestPush_Refusals: what a GET or the session methods cannot have.
func TestPush_Refusals(t *testing.T) {
	f := newFleet(t, 1)
	r := f.replicas[0]
	s := newSession(t, r)
	for _, c := range []struct {
		name, token, id string
		status          int
	}{
		{"no session", tokAlice, "", 405},
		{"a forged session", tokAlice, "forged", 404},
		{"another caller's session", tokBob, s.id, 404},
		{"no token", "", s.id, 401},
	} {
		st := s.get(t, r, c.token, c.id)
		if st.resp.StatusCode != c.status {
			b, _ := io.ReadAll(st.resp.Body)
			t.Errorf("%s: %d %s", c.name, st.resp.StatusCode, b)
		}
	}
	// The version header is read as a POST's is: two values name no
	// revision (the first is not taken).
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second) // an opened stream would not end
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r.url, nil)
	req.Header = http.Header{"Accept": {"text/event-stream"}, "Authorization": {"Bearer " + tokAlice}, "X-Workspace-Id": {"w1"},
		"Mcp-Session-Id": {s.id}, "Mcp-Protocol-Version": {"2025-06-18", "2025-03-26"}}
	if resp, err := http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	} else {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "duplicate") {
			t.Errorf("two MCP-Protocol-Version values: %d %s", resp.StatusCode, b)
		}
	}
	noSession := &session{token: tokAlice}
	for _, m := range []string{"resources/subscribe", "logging/setLevel"} {
		if _, body := noSession.post(t, r, m, `"uri":"mail://w1/inbox","level":"info"`); !strings.Contains(body, `"code":-32600`) || !strings.Contains(body, "needs a session") {
			t.Errorf("%s without a session: %s", m, body)
		}
	}
	for _, c := range []struct{ method, params, want string }{
		{"resources/subscribe", `"uri":"mail://w2/inbox"`, `"code":-32002`}, // another tenant's: not found
		{"resources/subscribe", `"uri":""`, `"code":-32602`},
		{"resources/subscribe", `"uri":"` + strings.Repeat("x", 2049) + `"`, `"code":-32602`},
		{"logging/setLevel", `"level":"loud"`, `"code":-32602`},
		{"logging/setLevel", `"level":3`, `"code":-32602`},
	} {
		if _, body := s.post(t, r, c.method, c.params); !strings.Contains(body, c.want) {
			t.Errorf("%s %.40s: %s", c.method, c.params, body)
		}
	}
	// At most URIsPerStream (2) per session.
	for i, uri := range []string{"mail://w1/inbox", "mail://w1/a", "mail://w1/b"} {
		_, body := s.post(t, r, "resources/subscribe", `"uri":"`+uri+`"`)
		if ok := body == `{"jsonrpc":"2.0","id":1,"result":{}}`; ok != (i < 2) {
			t.Errorf("subscription %d: %s", i+1, body)
		}
	}
}

// TestPush_SessionLogLevel: a session's calls send their log
// notifications at the level the session set, through any replica.
func TestPush_SessionLogLevel(t *testing.T) {
	f := newFleet(t, 2)
	for _, r := range f.replicas {
		err := r.srv.Update(func(s *mcp.Server) {
			s.AddTool(mcp.Tool{Name: "logs", InputSchema: objSchema}, "GET /logs", r.mux)
		})
		if err != nil {
			t.Fatal(err)
		}
		r.mux.HandleFunc("GET /logs", func(w http.ResponseWriter, req *http.Request) {
			c := mcp.CallFromContext(req.Context())
			c.Log(slog.LevelDebug, "debug line")
			c.Log(slog.LevelInfo, "info line")
			c.Log(slog.LevelError, "error line")
			io.WriteString(w, "done")
		})
	}
	s := newSession(t, f.replicas[0])
	logs := func() []string {
		_, body := s.post(t, f.replicas[1], "tools/call", `"name":"logs","arguments":{}`)
		var levels []string
		for _, line := range strings.Split(body, "\n") {
			data, ok := strings.CutPrefix(line, "data: ")
			if !ok {
				continue
			}
			var m struct {
				Method string
				Params struct{ Level string }
			}
			json.Unmarshal([]byte(data), &m)
			if m.Method == "notifications/message" {
				levels = append(levels, m.Params.Level)
			}
		}
		if !strings.Contains(body, "done") {
			t.Fatalf("call: %s", body)
		}
		return levels
	}
	if got := logs(); len(got) != 0 {
		t.Errorf("before setLevel: %v", got)
	}
	if _, body := s.post(t, f.replicas[0], "logging/setLevel", `"level":"info"`); body != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("setLevel: %s", body)
	}
	if got := strings.Join(logs(), ","); got != "info,error" {
		t.Errorf("at info: %s", got)
	}
	s.post(t, f.replicas[1], "logging/setLevel", `"level":"debug"`)
	if got := strings.Join(logs(), ","); got != "debug,info,error" {
		t.Errorf("at debug: %s", got)
	}
}

// TestPush_LevelWithProgress: a 2025 call in a session that also asks for
// progress logs at the session's level.
func TestPush_LevelWithProgress(t *testing.T) {
	f := newFleet(t, 1)
	r := f.replicas[0]
	if err := r.srv.Update(func(s *mcp.Server) { s.AddTool(mcp.Tool{Name: "logs", InputSchema: objSchema}, "GET /logs", r.mux) }); err != nil {
		t.Fatal(err)
	}
	r.mux.HandleFunc("GET /logs", func(w http.ResponseWriter, req *http.Request) {
		c := mcp.CallFromContext(req.Context())
		c.Progress(1, 2, "half")
		c.Log(slog.LevelInfo, "info line")
		io.WriteString(w, "done")
	})
	s := newSession(t, r)
	s.post(t, r, "logging/setLevel", `"level":"info"`)
	_, body := s.post(t, r, "tools/call", `"name":"logs","arguments":{},"_meta":{"progressToken":"p1"}`)
	if !strings.Contains(body, `"method":"notifications/progress"`) || !strings.Contains(body, `"method":"notifications/message"`) {
		t.Errorf("a call with a progress token: %s", body)
	}
}

// TestPush_SubscriptionKeepsItsWorkspace: a subscription made in one
// workspace is told of that workspace's updates only, whatever workspace
// the session's stream names.
func TestPush_SubscriptionKeepsItsWorkspace(t *testing.T) {
	f := newFleet(t, 1)
	f.members.set(func() { f.members.members["alice"]["w2"] = true })
	r := f.replicas[0]
	s := newSession(t, r)
	if _, body := s.post(t, r, "resources/subscribe", `"uri":"mail://w1/inbox"`); body != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("subscribe in w1: %s", body)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second) // an opened stream would not end
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r.url, nil)
	req.Header = http.Header{"Accept": {"text/event-stream"}, "Authorization": {"Bearer " + tokAlice}, "X-Workspace-Id": {"w2"},
		"Mcp-Protocol-Version": {"2025-06-18"}, "Mcp-Session-Id": {s.id}}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	stream := &listenStream{resp: resp, rd: bufio.NewReader(resp.Body)}
	r.h.NotifyResourceUpdated(t.Context(), "w2", "mail://w1/inbox")
	if m := stream.within(t, 300*time.Millisecond); m != nil {
		t.Errorf("a w2 update of a URI subscribed in w1: %s", m)
	}
}

// TestPush_NotWithoutSessions: with the option but an era2025 that issues
// no sessions, initialize announces no push and its methods do not exist;
// without WithStreaming no logging is announced.
func TestPush_NotWithoutSessions(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "nosessions", Version: "1"})
	mux := http.NewServeMux()
	srv.AddTool(mcp.Tool{Name: "a", InputSchema: objSchema}, "GET /a", mux)
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithLogger(slog.New(slog.DiscardHandler)),
		mcp.WithChangeNotifications(mcp.ChangeNotifications{}))
	f := &fixture{url: newTestServer(t, h)}
	r := f.do(t, call{era: mcp.Version20250618, id: "1", method: "initialize",
		params: `"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}`})
	if !strings.Contains(string(r.raw), `"tools":{"listChanged":false}`) || strings.Contains(string(r.raw), `"logging"`) {
		t.Errorf("initialize: %s", r.raw)
	}
	for _, m := range []string{"resources/subscribe", "resources/unsubscribe", "logging/setLevel"} {
		if r := f.do(t, call{era: mcp.Version20250618, id: "1", method: m, params: `"uri":"x","level":"info"`}); r.code() != -32601 {
			t.Errorf("%s: %s", m, r.raw)
		}
	}
	// 2026-07-28 still announces what listen delivers.
	if r := f.do(t, call{era: mcp.Version20260728, id: "1", method: "server/discover"}); !strings.Contains(string(r.raw), `"tools":{"listChanged":true}`) {
		t.Errorf("discover: %s", r.raw)
	}
}

// TestPush_UpdateOfNoWorkspace: an update of a resource that belongs to no
// workspace (NotifyResourceUpdated with "") reaches a 2025 session that
// subscribed to its URI while acting in a workspace, as it reaches a 2026
// listen of the same caller: the session store keeps the workspace with
// the URI, and only an update naming that workspace used to match it.
func TestPush_UpdateOfNoWorkspace(t *testing.T) {
	f := newFleet(t, 1)
	r := f.replicas[0]
	ctx := t.Context()
	l, ack := r.listen(t, ctx, tokAlice, "w1", `"resourceSubscriptions":["mail://w1/inbox"]`)
	if len(ack["params"]) == 0 {
		t.Fatalf("listen ack: %s", ack)
	}
	s := newSession(t, r)
	stream := s.get(t, r, tokAlice, s.id)
	if _, body := s.post(t, r, "resources/subscribe", `"uri":"mail://w1/inbox"`); body != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("subscribe: %s", body)
	}
	if err := r.h.NotifyResourceUpdated(ctx, "", "mail://w1/inbox"); err != nil {
		t.Fatal(err)
	}
	if m := l.within(t, 10*time.Second); method(m) != "notifications/resources/updated" {
		t.Errorf("2026 listen: %v", m)
	}
	if m := stream.within(t, 10*time.Second); method(m) != "notifications/resources/updated" {
		t.Errorf("2025 session: %v", m)
	}
}

// TestPush_SessionRevisionWithoutHeader: a GET that names no revision
// (a 2025-03-26 client sends no MCP-Protocol-Version) opens the stream in
// the revision its session negotiated, not the endpoint's default, and
// says so on the answer; one naming another revision is refused.
func TestPush_SessionRevisionWithoutHeader(t *testing.T) {
	f := newFleet(t, 1)
	r := f.replicas[0]
	for _, v := range []string{"2025-03-26", "2025-06-18", "2025-11-25"} {
		s := &session{token: tokAlice}
		resp, body := s.post(t, r, "initialize", `"protocolVersion":"`+v+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}`)
		if s.id = resp.Header.Get("Mcp-Session-Id"); s.id == "" || !strings.Contains(body, `"protocolVersion":"`+v+`"`) {
			t.Fatalf("%s: initialize: %s", v, body)
		}
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, r.url, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Authorization", "Bearer "+tokAlice)
		req.Header.Set("X-Workspace-Id", "w1")
		req.Header.Set("Mcp-Session-Id", s.id)
		ctx, cancel := context.WithCancel(t.Context())
		resp, err := http.DefaultClient.Do(req.WithContext(ctx))
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Header.Get("MCP-Protocol-Version"); resp.StatusCode != 200 || got != v {
			t.Errorf("%s: GET without a revision: %d, MCP-Protocol-Version %q", v, resp.StatusCode, got)
		}
		cancel()
		resp.Body.Close()
		if v == "2025-06-18" {
			continue
		}
		// Naming another revision than the session's is refused.
		stream := s.get(t, r, tokAlice, s.id) // names 2025-06-18
		if b, _ := io.ReadAll(stream.resp.Body); stream.resp.StatusCode != 400 || !strings.Contains(string(b), "does not match the revision the session negotiated") {
			t.Errorf("%s: GET naming 2025-06-18: %d %s", v, stream.resp.StatusCode, b)
		}
	}
}
