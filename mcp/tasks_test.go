package mcp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/task"
	"github.com/mcpdual/mcpdual/mrtr"
)

// jobStore is the host's job runner of the task tests: jobs whose state
// the tests set, behind REST routes.
type jobStore struct {
	mu      sync.Mutex
	n       int
	jobs    map[string]*testJob
	prefer  []string // the Prefer header of each start
	updates []string // the bodies the update route got
	gets    int      // reads of the status route
}

type testJob struct {
	Status        task.State                 `json:"status"`
	StatusMessage string                     `json:"statusMessage,omitempty"`
	Result        json.RawMessage            `json:"result,omitempty"`
	IsError       bool                       `json:"isError,omitempty"`
	Error         *task.Error                `json:"error,omitempty"`
	InputRequests map[string]json.RawMessage `json:"inputRequests,omitempty"`
}

func (s *jobStore) set(id string, f func(j *testJob)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s.jobs[id])
}

func (s *jobStore) mux() *http.ServeMux {
	mux := http.NewServeMux()
	start := func(w http.ResponseWriter, r *http.Request, location bool) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.prefer = append(s.prefer, r.Header.Get("Prefer"))
		if !strings.Contains(r.Header.Get("Prefer"), "respond-async") && location {
			// Work this short may answer at once when no task is welcome.
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "done at once")
			return
		}
		s.n++
		id := fmt.Sprintf("job-%d", s.n)
		s.jobs[id] = &testJob{Status: task.Working, StatusMessage: "queued"}
		w.Header().Set("Content-Type", "application/json")
		if location {
			w.Header().Set("Location", "/api/jobs/"+id) // under the host's /api prefix
		}
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprintf(w, `{"data":{"id":%q,"status":"working","statusMessage":"queued"}}`, id)
	}
	mux.HandleFunc("POST /jobs", func(w http.ResponseWriter, r *http.Request) { start(w, r, true) })
	mux.HandleFunc("POST /jobs/required", func(w http.ResponseWriter, r *http.Request) { start(w, r, false) })
	mux.HandleFunc("POST /jobs/long", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "/jobs/"+strings.Repeat("j", 2000))
		w.WriteHeader(http.StatusAccepted)
	})
	mux.HandleFunc("GET /jobs/{id}", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.gets++
		j, ok := s.jobs[r.PathValue("id")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if auth.FromContext(r.Context()) == nil {
			http.Error(w, "no identity", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(j)
	})
	mux.HandleFunc("POST /jobs/{id}/cancel", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		j, ok := s.jobs[r.PathValue("id")]
		switch {
		case !ok:
			http.NotFound(w, r)
		case j.Status == task.Completed || j.Status == task.Failed || j.Status == task.Cancelled:
			w.WriteHeader(http.StatusConflict)
		default:
			j.Status = task.Cancelled
			w.WriteHeader(http.StatusNoContent)
		}
	})
	mux.HandleFunc("POST /jobs/{id}/input", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.updates = append(s.updates, string(b))
		j, ok := s.jobs[r.PathValue("id")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if bytes.Contains(b, []byte(`"bad"`)) {
			http.Error(w, "bad answer", http.StatusUnprocessableEntity)
			return
		}
		if bytes.Contains(b, []byte(`"confirm":{"action":"accept"`)) && j.InputRequests["confirm"] != nil {
			j.InputRequests, j.Status, j.Result = nil, task.Completed, json.RawMessage(`"deleted"`)
		}
		w.WriteHeader(http.StatusNoContent)
	})
	return mux
}

type taskServer struct {
	store *jobStore
	urls  []string       // replicas sharing the store and the key ring
	hs    []*mcp.Handler // urls' handlers, then other's
	srvs  []*mcp.Server  // and their servers
	mux   http.Handler   // the job store's routes
	other string         // a server with another key ring
	now   *fakeClock
}

func newTaskServer(t *testing.T, configure ...func(*auth.Config)) *taskServer {
	t.Helper()
	ts := &taskServer{store: &jobStore{jobs: map[string]*testJob{}}, now: &fakeClock{t: time.Now()}}
	mux := ts.store.mux()
	ts.mux = mux
	build := func(secret byte) string {
		srv := mcp.NewServer(mcp.Implementation{Name: "tasks", Version: "1"})
		obj := json.RawMessage(`{"type":"object"}`)
		routes := task.Config{Status: "GET /jobs/{id}", Cancel: "POST /jobs/{id}/cancel", Update: "POST /jobs/{id}/input",
			TTL: time.Hour, PollInterval: 500 * time.Millisecond}
		srv.AddTool(mcp.Tool{Name: "slow", InputSchema: obj}, "POST /jobs", mux, mcp.WithTask(routes))
		required := routes
		required.Support = task.Required
		srv.AddTool(mcp.Tool{Name: "must", InputSchema: obj}, "POST /jobs/required", mux, mcp.WithTask(required))
		badRef := routes
		badRef.Accepted = func(http.Header, []byte) (map[string]string, bool) { return map[string]string{"job": "x"}, true }
		srv.AddTool(mcp.Tool{Name: "badref", InputSchema: obj}, "POST /jobs", mux, mcp.WithTask(badRef))
		panics := routes
		panics.Accepted = func(http.Header, []byte) (map[string]string, bool) { panic("host bug") }
		srv.AddTool(mcp.Tool{Name: "panics", InputSchema: obj}, "POST /jobs", mux, mcp.WithTask(panics))
		srv.AddTool(mcp.Tool{Name: "longref", InputSchema: obj}, "POST /jobs/long", mux, mcp.WithTask(routes))
		srv.AddTool(mcp.Tool{Name: "plain", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)}, "GET /jobs/{id}", mux)
		ring, err := mrtr.NewRing(mrtr.Key{ID: "k1", Secret: bytes.Repeat([]byte{secret}, 32)})
		if err != nil {
			t.Fatal(err)
		}
		sealer := mrtr.NewSealer(ring, mrtr.WithClock(ts.now.now))
		h := mcp.NewHandler(srv, []mcp.Era{era2026.New(era2026.WithSealer(sealer)), era2025.New()},
			mcp.WithLogger(slog.New(slog.DiscardHandler)),
			mcp.WithAuth(auth.New(authConfig(configure))))
		ts.hs, ts.srvs = append(ts.hs, h), append(ts.srvs, srv)
		s := httptest.NewServer(h)
		t.Cleanup(s.Close)
		return s.URL
	}
	ts.urls = []string{build(7), build(7)}
	ts.other = build(8)
	return ts
}

func authConfig(configure []func(*auth.Config)) auth.Config {
	c := auth.Config{Verifier: auth.VerifierFunc(testVerifier), Resource: resourceURI, Workspaces: auth.WorkspaceFunc(testWorkspaces)}
	for _, f := range configure {
		f(&c)
	}
	return c
}

const metaTasks = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`
const metaTasksOnly = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`
const metaNoTasks = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}`

type rpcReply struct {
	status int
	header http.Header
	raw    []byte
	Result map[string]json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// rpc sends one 2026-07-28 request (meta, then params) with the routing
// headers a client sends; name is Mcp-Name ("" for none).
func rpc(t *testing.T, url, token, workspace, method, name, meta, params string) *rpcReply {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + meta
	if params != "" {
		body += "," + params
	}
	body += "}}"
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if workspace != "" {
		req.Header.Set("X-Workspace-Id", workspace)
	}
	return sendRPC(t, req, method)
}

// sendRPC sends req, a request of method, and decodes its one JSON-RPC
// answer.
func sendRPC(t *testing.T, req *http.Request, method string) *rpcReply {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := &rpcReply{status: resp.StatusCode, header: resp.Header}
	r.raw, _ = io.ReadAll(resp.Body)
	if err := json.Unmarshal(r.raw, r); err != nil {
		t.Fatalf("%s: %v: %s", method, err, r.raw)
	}
	return r
}

func (r *rpcReply) str(member string) string {
	var s string
	json.Unmarshal(r.Result[member], &s)
	return s
}

func (r *rpcReply) code() int {
	if r.Error == nil {
		return 0
	}
	return r.Error.Code
}

// start calls slow with the extension and returns the task id.
func (ts *taskServer) start(t *testing.T, url, token, workspace string) string {
	t.Helper()
	r := rpc(t, url, token, workspace, "tools/call", "slow", metaTasks, `"name":"slow","arguments":{}`)
	if r.status != 200 || r.str("resultType") != "task" {
		t.Fatalf("tools/call slow: %d %s", r.status, r.raw)
	}
	return r.str("taskId")
}

func (ts *taskServer) get(t *testing.T, url, token, workspace, id string) *rpcReply {
	t.Helper()
	return rpc(t, url, token, workspace, "tasks/get", id, metaTasks, `"taskId":`+quoteJSON(id))
}

var isoTime = regexp.MustCompile(`^"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z"$`)

// TestTasks_Create: a call of a task tool from a client with the
// extension becomes a task (the flat CreateTaskResult); from any other
// client it runs as before.
func TestTasks_Create(t *testing.T) {
	t.Parallel()
	ts := newTaskServer(t)
	r := rpc(t, ts.urls[0], tokAlice, "", "tools/call", "slow", metaTasks, `"name":"slow","arguments":{}`)
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.raw)
	}
	for _, member := range []string{"requestState", "task", "result", "error", "inputRequests", "ttl", "pollInterval", "content"} {
		if _, has := r.Result[member]; has {
			t.Errorf("CreateTaskResult has %q: %s", member, r.raw)
		}
	}
	if r.str("resultType") != "task" || r.str("status") != "working" || r.str("statusMessage") != "queued" ||
		string(r.Result["ttlMs"]) != "3600000" || string(r.Result["pollIntervalMs"]) != "500" ||
		!isoTime.Match(r.Result["createdAt"]) || !isoTime.Match(r.Result["lastUpdatedAt"]) {
		t.Errorf("CreateTaskResult: %s", r.raw)
	}
	if id := r.str("taskId"); !regexp.MustCompile(`^[A-Za-z0-9_-]{40,}$`).MatchString(id) {
		t.Errorf("taskId %q is not a header-safe token", id)
	}
	// Without the extension, and on 2025-06-18: the route's own answer.
	r = rpc(t, ts.urls[0], tokAlice, "", "tools/call", "slow", metaNoTasks, `"name":"slow","arguments":{}`)
	if r.str("resultType") != "complete" || !strings.Contains(string(r.Result["content"]), "done at once") {
		t.Errorf("without the extension: %s", r.raw)
	}
	if r := postCall(t, ts.urls[0], toolCall(mcp.Version20250618, "slow"), tokAlice); !strings.Contains(string(r.raw), "done at once") {
		t.Errorf("2025-06-18: %s", r.raw)
	}
	// A legacy params.task asks for nothing.
	r = rpc(t, ts.urls[0], tokAlice, "", "tools/call", "slow", metaNoTasks, `"name":"slow","arguments":{},"task":{"ttl":60000}`)
	if r.str("resultType") != "complete" {
		t.Errorf("legacy task param: %s", r.raw)
	}
	ts.store.mu.Lock()
	prefer := ts.store.prefer
	ts.store.mu.Unlock()
	if want := []string{"respond-async", "", "", ""}; fmt.Sprint(prefer) != fmt.Sprint(want) {
		t.Errorf("Prefer headers the route saw: %q, want %q", prefer, want)
	}
}

// TestTasks_Required: a tool that runs only as a task refuses clients
// that cannot take one, before its route runs.
func TestTasks_Required(t *testing.T) {
	t.Parallel()
	ts := newTaskServer(t)
	r := rpc(t, ts.urls[0], tokAlice, "", "tools/call", "must", metaNoTasks, `"name":"must","arguments":{}`)
	if r.status != 400 || r.code() != -32021 || string(r.Error.Data) != `{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}` {
		t.Errorf("2026 without the extension: %d %s", r.status, r.raw)
	}
	if r := postCall(t, ts.urls[0], toolCall(mcp.Version20250618, "must"), tokAlice); !strings.Contains(string(r.raw), `"isError":true`) ||
		!strings.Contains(string(r.raw), "task_required") {
		t.Errorf("2025: %s", r.raw)
	}
	ts.store.mu.Lock()
	ran := len(ts.store.prefer)
	ts.store.mu.Unlock()
	if ran != 0 {
		t.Errorf("the route ran %d times", ran)
	}
	// With the extension it is a task; its 202 named the job in its body.
	r = rpc(t, ts.urls[0], tokAlice, "", "tools/call", "must", metaTasks, `"name":"must","arguments":{}`)
	if r.str("resultType") != "task" {
		t.Errorf("with the extension: %s", r.raw)
	}
}

// TestTasks_Gating: the tasks methods need the extension, asked before the
// id is read, per request; they check their routing headers; the removed
// methods do not exist.
func TestTasks_Gating(t *testing.T) {
	t.Parallel()
	ts := newTaskServer(t)
	url := ts.urls[0]
	for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		r := rpc(t, url, tokAlice, "", method, "gate-test", metaNoTasks, `"taskId":"gate-test","inputResponses":{}`)
		if r.status != 400 || r.code() != -32021 || !strings.Contains(string(r.Error.Data), `"io.modelcontextprotocol/tasks":{}`) {
			t.Errorf("%s without the extension: %d %s", method, r.status, r.raw)
		}
		r = rpc(t, url, tokAlice, "", method, "gate-test", metaTasks, `"taskId":"gate-test","inputResponses":{}`)
		if r.status != 200 || r.code() != -32602 {
			t.Errorf("%s of an unknown id: %d %s", method, r.status, r.raw)
		}
	}
	id := ts.start(t, url, tokAlice, "")
	if r := rpc(t, url, tokAlice, "", "tasks/get", "other", metaTasks, `"taskId":`+quoteJSON(id)); r.status != 400 || r.code() != -32020 {
		t.Errorf("mismatched Mcp-Name: %d %s", r.status, r.raw)
	}
	if r := rpc(t, url, tokAlice, "", "tasks/get", "", metaTasks, `"taskId":`+quoteJSON(id)); r.status != 400 || r.code() != -32020 {
		t.Errorf("missing Mcp-Name: %d %s", r.status, r.raw)
	}
	for _, method := range []string{"tasks/result", "tasks/list"} {
		if r := rpc(t, url, tokAlice, "", method, "", metaTasks, `"taskId":`+quoteJSON(id)); r.status != 404 || r.code() != -32601 {
			t.Errorf("%s: %d %s", method, r.status, r.raw)
		}
	}
	// Discovery names the extension, and never capabilities.tasks.
	r := rpc(t, url, tokAlice, "", "server/discover", "", metaNoTasks, "")
	if caps := string(r.Result["capabilities"]); !strings.Contains(caps, `"extensions":{"io.modelcontextprotocol/tasks":{}}`) || strings.Contains(caps, `"tasks":`) {
		t.Errorf("capabilities: %s", caps)
	}
}

// TestTasks_Statuses: tasks/get reads the job through the status route
// and renders each status in its shape.
func TestTasks_Statuses(t *testing.T) {
	t.Parallel()
	ts := newTaskServer(t)
	url := ts.urls[0]
	id := ts.start(t, url, tokAlice, "")
	job := "job-1"
	members := func(r *rpcReply) string {
		var names []string
		for k := range r.Result {
			names = append(names, k)
		}
		return strings.Join(sortStrings(names), ",")
	}
	base := "_meta,createdAt,lastUpdatedAt,pollIntervalMs,resultType,status,taskId,ttlMs"
	for _, tc := range []struct {
		name    string
		set     func(j *testJob)
		status  string
		members string
		check   func(r *rpcReply) bool
	}{
		{"working", func(j *testJob) {}, "working", base + ",statusMessage", nil},
		{"input_required", func(j *testJob) {
			j.Status, j.StatusMessage = task.InputRequired, ""
			j.InputRequests = map[string]json.RawMessage{"confirm": json.RawMessage(`{"method":"elicitation/create","params":{"message":"Delete?","requestedSchema":{"type":"object","properties":{"confirm":{"type":"boolean"}}}}}`)}
		}, "input_required", base + ",inputRequests", func(r *rpcReply) bool {
			return strings.Contains(string(r.Result["inputRequests"]), `"confirm":{"method":"elicitation/create"`)
		}},
		{"completed", func(j *testJob) {
			j.Status, j.InputRequests, j.Result = task.Completed, nil, json.RawMessage(`"all done"`)
		},
			"completed", base + ",result", func(r *rpcReply) bool {
				return string(r.Result["result"]) == `{"resultType":"complete","content":[{"type":"text","text":"all done"}]}`
			}},
		{"completed with JSON", func(j *testJob) { j.Result = json.RawMessage(`{"n":1}`) }, "completed", base + ",result", func(r *rpcReply) bool {
			return strings.Contains(string(r.Result["result"]), `"text":"{\"n\":1}"`)
		}},
		{"a tool error", func(j *testJob) { j.Result, j.IsError = json.RawMessage(`"no such email"`), true }, "completed", base + ",result", func(r *rpcReply) bool {
			return strings.Contains(string(r.Result["result"]), `"isError":true`) && strings.Contains(string(r.Result["result"]), "no such email")
		}},
		{"failed", func(j *testJob) {
			j.Status, j.Result, j.IsError, j.Error = task.Failed, nil, false, &task.Error{Code: -32603, Message: "worker crashed"}
		}, "failed", base + ",error", func(r *rpcReply) bool {
			return string(r.Result["error"]) == `{"code":-32603,"message":"worker crashed"}`
		}},
		{"failed without an error", func(j *testJob) { j.Error = nil }, "failed", base + ",error", func(r *rpcReply) bool {
			return string(r.Result["error"]) == `{"code":-32603,"message":"Internal error"}`
		}},
		{"cancelled", func(j *testJob) { j.Status = task.Cancelled }, "cancelled", base, nil},
	} {
		ts.store.set(job, tc.set)
		r := ts.get(t, url, tokAlice, "", id)
		if r.status != 200 || r.str("status") != tc.status || r.str("resultType") != "complete" || r.str("taskId") != id {
			t.Errorf("%s: %d %s", tc.name, r.status, r.raw)
			continue
		}
		if want := strings.Join(sortStrings(strings.Split(tc.members, ",")), ","); members(r) != want {
			t.Errorf("%s: members %s, want %s", tc.name, members(r), want)
		}
		if tc.check != nil && !tc.check(r) {
			t.Errorf("%s: %s", tc.name, r.raw)
		}
	}
	// A job the host no longer has is an unknown task.
	ts.store.mu.Lock()
	delete(ts.store.jobs, job)
	ts.store.mu.Unlock()
	if r := ts.get(t, url, tokAlice, "", id); r.code() != -32602 {
		t.Errorf("a purged job: %s", r.raw)
	}
}

func sortStrings(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

// TestTasks_CancelAndUpdate: both are bare acknowledgements; cancel stops
// an active job and is idempotent on a finished one; update hands the
// answers to the host and acknowledges keys it ignores.
func TestTasks_CancelAndUpdate(t *testing.T) {
	t.Parallel()
	ts := newTaskServer(t)
	url := ts.urls[0]
	bare := func(what string, r *rpcReply) {
		t.Helper()
		if r.status != 200 || r.str("resultType") != "complete" {
			t.Errorf("%s: %d %s", what, r.status, r.raw)
		}
		for _, m := range []string{"taskId", "status", "result", "error", "inputRequests"} {
			if _, has := r.Result[m]; has {
				t.Errorf("%s: the ack has %q: %s", what, m, r.raw)
			}
		}
	}
	id := ts.start(t, url, tokAlice, "")
	cancel := func() *rpcReply {
		return rpc(t, url, tokAlice, "", "tasks/cancel", id, metaTasks, `"taskId":`+quoteJSON(id))
	}
	bare("cancel", cancel())
	if r := ts.get(t, url, tokAlice, "", id); r.str("status") != "cancelled" {
		t.Errorf("after cancel: %s", r.raw)
	}
	bare("cancel again", cancel())

	id = ts.start(t, url, tokAlice, "")
	ts.store.set("job-2", func(j *testJob) {
		j.Status = task.InputRequired
		j.InputRequests = map[string]json.RawMessage{"confirm": json.RawMessage(`{"method":"elicitation/create","params":{}}`)}
	})
	update := func(responses string) *rpcReply {
		return rpc(t, url, tokAlice, "", "tasks/update", id, metaTasks, `"taskId":`+quoteJSON(id)+`,"inputResponses":`+responses)
	}
	bare("update with an unknown key", update(`{"unknown-key":{"ignored":true}}`))
	if r := ts.get(t, url, tokAlice, "", id); r.str("status") != "input_required" {
		t.Errorf("after an ignored answer: %s", r.raw)
	}
	if r := update(`{"confirm":"bad"}`); r.code() != -32602 {
		t.Errorf("an answer the host refuses: %s", r.raw)
	}
	if r := update(`[]`); r.code() != -32602 {
		t.Errorf("inputResponses not an object: %s", r.raw)
	}
	bare("update", update(`{"confirm":{"action":"accept","content":{"confirm":true}}}`))
	if r := ts.get(t, url, tokAlice, "", id); r.str("status") != "completed" {
		t.Errorf("after the answer: %s", r.raw)
	}
	ts.store.mu.Lock()
	defer ts.store.mu.Unlock()
	if len(ts.store.updates) != 3 || ts.store.updates[2] != `{"confirm":{"action":"accept","content":{"confirm":true}}}` {
		t.Errorf("the update route got %q", ts.store.updates)
	}
}

// TestTasks_IDs: a task id opens only for its caller, in its workspace, on
// servers that share the key ring, until it expires; anything else is the
// same unknown task, whatever the reason.
func TestTasks_IDs(t *testing.T) {
	t.Parallel()
	ts := newTaskServer(t)
	id := ts.start(t, ts.urls[0], tokBob, "w1")
	// Another replica with the same ring: polls and cancels.
	if r := ts.get(t, ts.urls[1], tokBob, "w1", id); r.str("status") != "working" {
		t.Fatalf("get on the other replica: %s", r.raw)
	}
	if r := rpc(t, ts.urls[1], tokBob, "w1", "tasks/cancel", id, metaTasks, `"taskId":`+quoteJSON(id)); r.str("resultType") != "complete" {
		t.Errorf("cancel on the other replica: %s", r.raw)
	}
	if r := ts.get(t, ts.urls[0], tokBob, "w1", id); r.str("status") != "cancelled" {
		t.Errorf("after cancelling on the other replica: %s", r.raw)
	}
	tampered := []byte(id)
	tampered[len(tampered)/2] ^= 1
	if tampered[len(tampered)/2] == '_' || tampered[len(tampered)/2] == '-' {
		tampered[len(tampered)/2] = 'A'
	}
	var refusals []string
	for _, tc := range []struct {
		name, url, token, ws, id string
	}{
		{"another principal", ts.urls[0], tokAlice, "w1", id},
		{"another workspace", ts.urls[0], tokBob, "w2", id},
		{"another key ring", ts.other, tokBob, "w1", id},
		{"tampered", ts.urls[0], tokBob, "w1", string(tampered)},
		{"forged", ts.urls[0], tokBob, "w1", "job-1"},
	} {
		r := ts.get(t, tc.url, tc.token, tc.ws, tc.id)
		if r.status != 200 || r.code() != -32602 {
			t.Errorf("%s: %d %s", tc.name, r.status, r.raw)
			continue
		}
		refusals = append(refusals, string(bytes.Replace(r.raw, []byte(tc.id), nil, -1)))
	}
	for _, r := range refusals[1:] {
		if r != refusals[0] {
			t.Errorf("refusals differ:\n%s\n%s", r, refusals[0])
		}
	}
	// Expiry: valid until its TTL (plus the sealer's skew), not after.
	ts.now.advance(time.Hour)
	if r := ts.get(t, ts.urls[0], tokBob, "w1", id); r.code() != 0 {
		t.Errorf("at its TTL: %s", r.raw)
	}
	ts.now.advance(mrtr.DefaultSkew + time.Second)
	if r := ts.get(t, ts.urls[0], tokBob, "w1", id); r.code() != -32602 {
		t.Errorf("past its TTL: %s", r.raw)
	}
}

// TestWithTask_Misuse: configurations that could not work panic at
// registration.
func TestWithTask_Misuse(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]task.Config{
		"no status":            {},
		"status not GET":       {Status: "POST /jobs/{id}"},
		"status without a job": {Status: "GET /jobs"},
		"cancel is a GET":      {Status: "GET /jobs/{id}", Cancel: "GET /jobs/{id}/cancel"},
		"update names more":    {Status: "GET /jobs/{id}", Update: "POST /jobs/{id}/{key}"},
		"ttl too long":         {Status: "GET /jobs/{id}", TTL: 8 * 24 * time.Hour},
		"negative ttl":         {Status: "GET /jobs/{id}", TTL: -time.Second},
		// The wire carries whole milliseconds: ttlMs 0 (a task unknown
		// once made) and pollIntervalMs 0 (which must be positive).
		"ttl under 1 ms":           {Status: "GET /jobs/{id}", TTL: 999 * time.Microsecond},
		"poll interval under 1 ms": {Status: "GET /jobs/{id}", PollInterval: 500 * time.Microsecond},
		"unknown support":          {Status: "GET /jobs/{id}", Support: 7},
		"invalid cancel pattern":   {Status: "GET /jobs/{id}", Cancel: "POST jobs"},
		"cancel names no job":      {Status: "GET /jobs/{id}", Cancel: "POST /jobs/cancel-all"},
		"update names no job":      {Status: "GET /jobs/{id}", Update: "POST /jobs/input"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			mcp.WithTask(c)
		}()
	}
	mcp.WithTask(task.Config{Status: "GET /jobs/{id}", TTL: time.Millisecond, PollInterval: time.Millisecond}) // the least each may be
	defer func() {
		if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "tools only") {
			t.Errorf("WithTask on a resource: %v", p)
		}
	}()
	srv := mcp.NewServer(mcp.Implementation{Name: "x", Version: "1"})
	srv.AddResource(mcp.Resource{URI: "test://r", Name: "r"}, "GET /r", http.NotFoundHandler(), mcp.WithTask(task.Config{Status: "GET /jobs/{id}"}))
}

// TestTasks_Refusals: a 202 whose job reference cannot name the job (a
// wildcard left empty, a reference over 1 KiB, an Accepted function that
// panics) is a tool error, not a task that never opens; the tasks methods
// need the tools/call method scope; a job may ask only what the client
// declared it can answer.
func TestTasks_Refusals(t *testing.T) {
	t.Parallel()
	ts := newTaskServer(t, func(c *auth.Config) { c.MethodScopes = map[string][]string{"tools/call": {"items:write"}} })
	for _, tool := range []string{"badref", "longref", "panics"} {
		r := rpc(t, ts.urls[0], tokWriter, "", "tools/call", tool, metaTasks, `"name":"`+tool+`","arguments":{}`)
		if r.str("resultType") != "complete" || !strings.Contains(string(r.raw), `"isError":true`) {
			t.Errorf("%s: %s", tool, r.raw)
		}
	}
	id := ts.start(t, ts.urls[0], tokWriter, "")
	ts.store.mu.Lock()
	job := fmt.Sprintf("job-%d", ts.store.n)
	ts.store.mu.Unlock()
	// tokAlice lacks items:write: no tasks method, whatever the id.
	for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		r := rpc(t, ts.urls[0], tokAlice, "", method, id, metaTasks, `"taskId":`+quoteJSON(id)+`,"inputResponses":{}`)
		if r.status != 403 || r.code() != -31403 || !strings.Contains(r.header.Get("WWW-Authenticate"), "items:write") {
			t.Errorf("%s without the tools/call scope: %d %s %v", method, r.status, r.raw, r.header)
		}
	}
	// The job asks for sampling; a client that declared only elicitation
	// is told what it lacks; a malformed question is the host's bug.
	ts.store.set(job, func(j *testJob) {
		j.Status = task.InputRequired
		j.InputRequests = map[string]json.RawMessage{"llm": json.RawMessage(`{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}`)}
	})
	if r := ts.get(t, ts.urls[0], tokWriter, "", id); r.status != 400 || r.code() != -32021 || string(r.Error.Data) != `{"requiredCapabilities":{"sampling":{}}}` {
		t.Errorf("sampling not declared: %d %s", r.status, r.raw)
	}
	if r := rpc(t, ts.urls[0], tokWriter, "", "tasks/get", id, metaTasksOnly, `"taskId":`+quoteJSON(id)); r.code() != -32021 {
		t.Errorf("nothing declared: %s", r.raw)
	}
	ts.store.set(job, func(j *testJob) {
		j.InputRequests = map[string]json.RawMessage{"q": json.RawMessage(`{"method":"elicitation/create","params":[]}`)}
	})
	if r := ts.get(t, ts.urls[0], tokWriter, "", id); r.code() != -32603 {
		t.Errorf("params not an object: %s", r.raw)
	}
}
