package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/task"
	"github.com/mcpdual/mcpdual/mrtr"
)

// statusServer serves task tools with status tools over one job store:
// two replicas sharing a key ring (both eras sealing), one with another
// ring, one whose 2025 era has no sealer, one serving 2025-03-26 only.
type statusServer struct {
	store                         *jobStore
	urls                          []string
	other, unsealed, only20250326 string
}

func newStatusServer(t *testing.T) *statusServer {
	t.Helper()
	ss := &statusServer{store: &jobStore{jobs: map[string]*testJob{}}}
	mux := ss.store.mux()
	build := func(secret byte, eras func(*mrtr.Sealer) []mcp.Era) string {
		srv := mcp.NewServer(mcp.Implementation{Name: "tasks", Version: "1"})
		obj := json.RawMessage(`{"type":"object"}`)
		routes := task.Config{Status: "GET /jobs/{id}", Cancel: "POST /jobs/{id}/cancel", TTL: time.Hour,
			PollInterval: 500 * time.Millisecond, StatusTool: "slow_status"}
		srv.AddTool(mcp.Tool{Name: "slow", Title: "Slow work", InputSchema: obj}, "POST /jobs", mux, mcp.WithTask(routes))
		other := routes
		other.StatusTool = "other_status"
		srv.AddTool(mcp.Tool{Name: "other", InputSchema: obj}, "POST /jobs", mux, mcp.WithTask(other))
		must := routes
		must.StatusTool, must.Support = "must_status", task.Required
		srv.AddTool(mcp.Tool{Name: "must", InputSchema: obj}, "POST /jobs/required", mux, mcp.WithTask(must))
		ring, err := mrtr.NewRing(mrtr.Key{ID: "k1", Secret: bytes.Repeat([]byte{secret}, 32)})
		if err != nil {
			t.Fatal(err)
		}
		h := mcp.NewHandler(srv, eras(mrtr.NewSealer(ring)), mcp.WithLogger(slog.New(slog.DiscardHandler)),
			mcp.WithAuth(auth.New(authConfig(nil))))
		s := httptest.NewServer(h)
		t.Cleanup(s.Close)
		return s.URL
	}
	both := func(s *mrtr.Sealer) []mcp.Era {
		return []mcp.Era{era2026.New(era2026.WithSealer(s)), era2025.New(era2025.WithSealer(s))}
	}
	ss.urls = []string{build(7, both), build(7, both)}
	ss.other = build(8, both)
	ss.unsealed = build(7, func(s *mrtr.Sealer) []mcp.Era { return []mcp.Era{era2026.New(era2026.WithSealer(s)), era2025.New()} })
	ss.only20250326 = build(7, func(s *mrtr.Sealer) []mcp.Era {
		return []mcp.Era{era2025.New(era2025.WithVersions(mcp.Version20250326), era2025.WithSealer(s))}
	})
	return ss
}

// legacyRPC sends one 2025 request; version "" sends no
// MCP-Protocol-Version header, as a 2025-03-26 client does.
func legacyRPC(t *testing.T, url, token, version, method, params string) *rpcReply {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":{`+params+`}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if version != "" {
		req.Header.Set("MCP-Protocol-Version", version)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	return sendRPC(t, req, method)
}

// statusClient is one kind of client without the extension.
type statusClient struct {
	name    string
	url     func(ss *statusServer, replica int) string
	call    func(t *testing.T, url, tool, args string) *rpcReply
	list    func(t *testing.T, url string) *rpcReply
	structd bool // its revision has structuredContent
}

func statusClients() []statusClient {
	call2026 := func(t *testing.T, url, tool, args string) *rpcReply {
		return rpc(t, url, tokAlice, "", "tools/call", tool, metaNoTasks, `"name":`+quoteJSON(tool)+`,"arguments":`+args)
	}
	legacy := func(version string) func(t *testing.T, url, tool, args string) *rpcReply {
		return func(t *testing.T, url, tool, args string) *rpcReply {
			return legacyRPC(t, url, tokAlice, version, "tools/call", `"name":`+quoteJSON(tool)+`,"arguments":`+args)
		}
	}
	replicas := func(ss *statusServer, i int) string { return ss.urls[i] }
	return []statusClient{
		{name: "2026-07-28 without the extension", url: replicas, call: call2026, structd: true,
			list: func(t *testing.T, url string) *rpcReply {
				return rpc(t, url, tokAlice, "", "tools/list", "", metaNoTasks, "")
			}},
		{name: "2025-06-18", url: replicas, call: legacy("2025-06-18"), structd: true,
			list: func(t *testing.T, url string) *rpcReply {
				return legacyRPC(t, url, tokAlice, "2025-06-18", "tools/list", "")
			}},
		{name: "2025-03-26", url: func(ss *statusServer, _ int) string { return ss.only20250326 }, call: legacy(""),
			list: func(t *testing.T, url string) *rpcReply { return legacyRPC(t, url, tokAlice, "", "tools/list", "") }},
	}
}

type toolAnswer struct {
	Content []struct {
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent map[string]any `json:"structuredContent"`
	IsError           bool           `json:"isError"`
}

func answerOf(t *testing.T, r *rpcReply) toolAnswer {
	t.Helper()
	if r.status != 200 || r.Error != nil {
		t.Fatalf("want a tool result: %d %s", r.status, r.raw)
	}
	var a toolAnswer
	raw, _ := json.Marshal(r.Result)
	json.Unmarshal(raw, &a)
	if len(a.Content) != 1 {
		t.Fatalf("want one content block: %s", r.raw)
	}
	return a
}

// TestStatusTool_Follow: a client without the tasks extension, in each
// revision, gets a job reference naming the status tool, and follows the
// job to its result through that tool on either replica; a 2026-07-28
// client with the extension reads the same reference with tasks/get.
func TestStatusTool_Follow(t *testing.T) {
	t.Parallel()
	ss := newStatusServer(t)
	for _, c := range statusClients() {
		t.Run(c.name, func(t *testing.T) {
			list := c.list(t, c.url(ss, 0))
			for _, name := range []string{`"name":"slow_status"`, `"name":"other_status"`, `"name":"must_status"`, `"readOnlyHint":true`} {
				if !strings.Contains(string(list.Result["tools"]), name) {
					t.Errorf("tools/list lacks %s: %s", name, list.raw)
				}
			}
			r := c.call(t, c.url(ss, 0), "slow", `{}`)
			a := answerOf(t, r)
			if a.IsError || !strings.Contains(a.Content[0].Text, "slow_status") {
				t.Fatalf("the start: %s", r.raw)
			}
			if rt := r.str("resultType"); rt != "" && rt != "complete" {
				t.Errorf("resultType %q: %s", rt, r.raw)
			}
			var id string
			if c.structd {
				id, _ = a.StructuredContent["taskId"].(string)
				if a.StructuredContent["statusTool"] != "slow_status" || a.StructuredContent["status"] != "working" ||
					a.StructuredContent["pollIntervalMs"] != 500.0 || a.StructuredContent["ttlMs"] != 3600000.0 {
					t.Errorf("structuredContent: %s", r.raw)
				}
			} else {
				if a.StructuredContent != nil {
					t.Errorf("structuredContent in a revision without it: %s", r.raw)
				}
				_, rest, _ := strings.Cut(a.Content[0].Text, `{"taskId": "`)
				id, _, _ = strings.Cut(rest, `"`)
			}
			if id == "" || !strings.Contains(a.Content[0].Text, id) {
				t.Fatalf("no job reference in %s", r.raw)
			}
			job := ss.store.lastID()
			// Working: the status, on the other replica.
			r = c.call(t, c.url(ss, 1), "slow_status", `{"taskId":`+quoteJSON(id)+`}`)
			a = answerOf(t, r)
			if a.IsError || !strings.Contains(a.Content[0].Text, "working (queued)") || !strings.Contains(a.Content[0].Text, "0.5 s") {
				t.Errorf("while working: %s", r.raw)
			}
			if c.structd && (a.StructuredContent["status"] != "working" || a.StructuredContent["taskId"] != id) {
				t.Errorf("while working, structuredContent: %s", r.raw)
			}
			ss.store.set(job, func(j *testJob) { j.Status, j.Result = task.Completed, json.RawMessage(`"reprocessed"`) })
			r = c.call(t, c.url(ss, 0), "slow_status", `{"taskId":`+quoteJSON(id)+`}`)
			if a = answerOf(t, r); a.IsError || a.Content[0].Text != "reprocessed" {
				t.Errorf("once completed: %s", r.raw)
			}
			if c.name == "2026-07-28 without the extension" {
				// The same reference is a task id to a client with the extension.
				if g := rpc(t, ss.urls[1], tokAlice, "", "tasks/get", id, metaTasks, `"taskId":`+quoteJSON(id)); g.str("status") != "completed" {
					t.Errorf("tasks/get of the reference: %s", g.raw)
				}
			}
			// A failed and a cancelled job are tool errors.
			ss.store.set(job, func(j *testJob) { j.Status, j.Error = task.Failed, &task.Error{Code: -32000, Message: "disk full"} })
			if a = answerOf(t, c.call(t, c.url(ss, 0), "slow_status", `{"taskId":`+quoteJSON(id)+`}`)); !a.IsError || !strings.Contains(a.Content[0].Text, "disk full") {
				t.Errorf("failed: %+v", a)
			}
			ss.store.set(job, func(j *testJob) { j.Status = task.Cancelled })
			if a = answerOf(t, c.call(t, c.url(ss, 0), "slow_status", `{"taskId":`+quoteJSON(id)+`}`)); !a.IsError || !strings.Contains(a.Content[0].Text, "cancelled") {
				t.Errorf("cancelled: %+v", a)
			}
			// A tool that runs only as a task is followable too, not refused.
			if a = answerOf(t, c.call(t, c.url(ss, 0), "must", `{}`)); a.IsError || !strings.Contains(a.Content[0].Text, "must_status") {
				t.Errorf("Required with a status tool: %+v", a)
			}
			// No reference, or not a string: the input schema refuses it.
			for _, args := range []string{`{}`, `{"taskId":7}`, `{"taskId":""}`} {
				if a = answerOf(t, c.call(t, c.url(ss, 0), "slow_status", args)); !a.IsError || !strings.Contains(a.Content[0].Text, "Invalid arguments") {
					t.Errorf("%s: %+v", args, a)
				}
			}
		})
	}
	ss.store.mu.Lock()
	defer ss.store.mu.Unlock()
	for i, p := range ss.store.prefer {
		if p != "respond-async" {
			t.Errorf("start %d: Prefer %q: a client that can follow the job welcomes one", i, p)
		}
	}
}

func (s *jobStore) lastID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return "job-" + itoa(s.n)
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestStatusTool_Refusals: a tampered, forged, foreign (another
// principal, another key ring) or other tool's reference is refused by
// the status tool exactly as tasks/get refuses a bad task id, in every
// revision.
func TestStatusTool_Refusals(t *testing.T) {
	t.Parallel()
	ss := newStatusServer(t)
	start := answerOf(t, rpc(t, ss.urls[0], tokAlice, "", "tools/call", "slow", metaNoTasks, `"name":"slow","arguments":{}`))
	id, _ := start.StructuredContent["taskId"].(string)
	start25 := answerOf(t, legacyRPC(t, ss.urls[0], tokAlice, "2025-06-18", "tools/call", `"name":"slow","arguments":{}`))
	id25, _ := start25.StructuredContent["taskId"].(string)
	tampered := []byte(id)
	tampered[len(tampered)/2] ^= 1
	if c := tampered[len(tampered)/2]; c == '_' || c == '-' {
		tampered[len(tampered)/2] = 'A'
	}
	// tasks/get's refusal of a bad id is the reference.
	want := rpc(t, ss.urls[0], tokAlice, "", "tasks/get", string(tampered), metaTasks, `"taskId":`+quoteJSON(string(tampered)))
	if want.status != 200 || want.code() != -32602 {
		t.Fatalf("tasks/get of a tampered id: %s", want.raw)
	}
	wantErr, _ := json.Marshal(want.Error)
	call26 := func(url, token, tool, ref string) *rpcReply {
		return rpc(t, url, token, "", "tools/call", tool, metaNoTasks, `"name":"`+tool+`","arguments":{"taskId":`+quoteJSON(ref)+`}`)
	}
	call25 := func(url, token, tool, ref string) *rpcReply {
		return legacyRPC(t, url, token, "2025-06-18", "tools/call", `"name":"`+tool+`","arguments":{"taskId":`+quoteJSON(ref)+`}`)
	}
	for _, tc := range []struct {
		name string
		r    *rpcReply
	}{
		{"2026 tampered", call26(ss.urls[0], tokAlice, "slow_status", string(tampered))},
		{"2026 forged", call26(ss.urls[0], tokAlice, "slow_status", "job-1")},
		{"2026 another principal", call26(ss.urls[0], tokWriter, "slow_status", id)},
		{"2026 another key ring", call26(ss.other, tokAlice, "slow_status", id)},
		{"2026 another tool's status tool", call26(ss.urls[0], tokAlice, "other_status", id)},
		{"2026 a 2025 reference", call26(ss.urls[0], tokAlice, "slow_status", id25)},
		{"2025 tampered", call25(ss.urls[1], tokAlice, "slow_status", string(tampered))},
		{"2025 another principal", call25(ss.urls[1], tokWriter, "slow_status", id25)},
		{"2025 another key ring", call25(ss.other, tokAlice, "slow_status", id25)},
		{"2025 another tool's status tool", call25(ss.urls[1], tokAlice, "other_status", id25)},
		{"2025 a 2026 reference", call25(ss.urls[1], tokAlice, "slow_status", id)},
		{"2025-03-26 a 2025-06-18 reference", legacyRPC(t, ss.only20250326, tokAlice, "", "tools/call",
			`"name":"slow_status","arguments":{"taskId":`+quoteJSON(id25)+`}`)},
	} {
		got, _ := json.Marshal(tc.r.Error)
		if tc.r.status != 200 || string(got) != string(wantErr) {
			t.Errorf("%s: %d %s, want tasks/get's %s", tc.name, tc.r.status, tc.r.raw, wantErr)
		}
	}
	// The references themselves still work for their owner.
	if a := answerOf(t, call25(ss.urls[1], tokAlice, "slow_status", id25)); a.IsError {
		t.Errorf("the 2025 reference: %+v", a)
	}
}

// TestStatusTool_Unsealed: where the era cannot seal a job reference (a
// 2025 era without WithSealer or WithSessions), the status tools are
// neither listed nor callable, and the task tool answers as before.
func TestStatusTool_Unsealed(t *testing.T) {
	t.Parallel()
	ss := newStatusServer(t)
	list := legacyRPC(t, ss.unsealed, tokAlice, "2025-06-18", "tools/list", "")
	if strings.Contains(string(list.raw), "_status") || !strings.Contains(string(list.raw), `"name":"slow"`) {
		t.Errorf("tools/list: %s", list.raw)
	}
	r := legacyRPC(t, ss.unsealed, tokAlice, "2025-06-18", "tools/call", `"name":"slow_status","arguments":{"taskId":"x"}`)
	if r.code() != -32602 || !strings.Contains(string(r.raw), "Unknown tool") {
		t.Errorf("calling the status tool: %s", r.raw)
	}
	if a := answerOf(t, legacyRPC(t, ss.unsealed, tokAlice, "2025-06-18", "tools/call", `"name":"slow","arguments":{}`)); a.Content[0].Text != "done at once" {
		t.Errorf("the task tool: %+v", a)
	}
	// 2026-07-28 on the same handler still has them.
	if l := rpc(t, ss.unsealed, tokAlice, "", "tools/list", "", metaNoTasks, ""); !strings.Contains(string(l.raw), "slow_status") {
		t.Errorf("2026 tools/list: %s", l.raw)
	}
}

// TestStatusTool_Misuse: a status tool name that is invalid, the tool's
// own, or another tool's is refused at registration.
func TestStatusTool_Misuse(t *testing.T) {
	obj := json.RawMessage(`{"type":"object"}`)
	h := http.NotFoundHandler()
	base := task.Config{Status: "GET /jobs/{id}"}
	for _, tc := range []struct{ name, status string }{
		{"own", "slow"},
		{"taken", "taken"},
	} {
		cfg := base
		cfg.StatusTool = tc.status
		srv := mcp.NewServer(mcp.Implementation{Name: "x", Version: "1"})
		srv.AddTool(mcp.Tool{Name: "taken", InputSchema: obj}, "GET /taken", h)
		err := srv.Register(func(s *mcp.Server) {
			s.AddTool(mcp.Tool{Name: "slow", InputSchema: obj}, "POST /jobs", h, mcp.WithTask(cfg))
		})
		if err == nil {
			t.Errorf("%s: registered", tc.name)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("WithTask took an invalid StatusTool")
		}
	}()
	mcp.WithTask(task.Config{Status: "GET /jobs/{id}", StatusTool: "bad name"})
}

// TestStatusTool_Access: a status tool is seen by whoever sees its task's
// tool: the permission rule is asked about the task's tool, and the task
// tool's scopes are needed.
func TestStatusTool_Access(t *testing.T) {
	t.Parallel()
	store := &jobStore{jobs: map[string]*testJob{}}
	mux := store.mux()
	srv := mcp.NewServer(mcp.Implementation{Name: "tasks", Version: "1"})
	obj := json.RawMessage(`{"type":"object"}`)
	cfg := task.Config{Status: "GET /jobs/{id}", StatusTool: "hidden_status"}
	srv.AddTool(mcp.Tool{Name: "hidden", InputSchema: obj}, "POST /jobs", mux, mcp.WithTask(cfg))
	cfg.StatusTool = "scoped_status"
	srv.AddTool(mcp.Tool{Name: "scoped", InputSchema: obj}, "POST /jobs", mux, mcp.WithTask(cfg), mcp.RequireScopes("items:write"))
	var asked []string
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New()}, mcp.WithLogger(slog.New(slog.DiscardHandler)),
		mcp.WithAuth(auth.New(authConfig([]func(*auth.Config){func(c *auth.Config) {
			c.Permit = func(_ context.Context, a auth.Access) bool {
				asked = append(asked, a.Name)
				return a.Name != "hidden" || a.Principal.Subject != "alice"
			}
		}}))))
	s := httptest.NewServer(h)
	defer s.Close()
	names := func(token string) string {
		r := rpc(t, s.URL, token, "", "tools/list", "", metaNoTasks, "")
		var l struct{ Tools []struct{ Name string } }
		raw, _ := json.Marshal(r.Result)
		json.Unmarshal(raw, &l)
		var out []string
		for _, tl := range l.Tools {
			out = append(out, tl.Name)
		}
		return strings.Join(out, ",")
	}
	if got := names(tokAlice); got != "" {
		t.Errorf("alice (hidden refused, no items:write) sees %q", got)
	}
	if got := names(tokWriter); got != "hidden,hidden_status,scoped,scoped_status" {
		t.Errorf("writer sees %q", got)
	}
	for _, n := range asked {
		if strings.HasSuffix(n, "_status") {
			t.Errorf("the permission rule was asked about %q, not its task's tool", n)
		}
	}
	r := rpc(t, s.URL, tokAlice, "", "tools/call", "hidden_status", metaNoTasks, `"name":"hidden_status","arguments":{"taskId":"x"}`)
	if r.code() != -32602 || !strings.Contains(string(r.raw), "Unknown tool") {
		t.Errorf("alice calling hidden_status: %s", r.raw)
	}
	if r := rpc(t, s.URL, tokAlice, "", "tools/call", "scoped_status", metaNoTasks, `"name":"scoped_status","arguments":{"taskId":"x"}`); r.status != 403 {
		t.Errorf("alice calling scoped_status without items:write: %d %s", r.status, r.raw)
	}
}
