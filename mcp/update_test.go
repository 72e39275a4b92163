package mcp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/content"
	"github.com/mcpdual/mcpdual/mcp/task"
)

// updated is an endpoint whose registry tests change while it serves.
type updated struct {
	srv  *mcp.Server
	url  string
	mux  *http.ServeMux
	ran  atomic.Int64 // runs of POST /delete
	gate chan struct{}
	// slow is told each time GET /slow is entered, before it waits for
	// gate: the call has its definition and runs.
	slow chan struct{}
}

var objSchema = json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`)

func newUpdated(t *testing.T) *updated {
	t.Helper()
	u := &updated{mux: http.NewServeMux(), gate: make(chan struct{}), slow: make(chan struct{}, 1)}
	u.mux.HandleFunc("GET /a", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "a") })
	u.mux.HandleFunc("GET /b", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "b") })
	u.mux.HandleFunc("GET /slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case u.slow <- struct{}{}:
		default:
		}
		<-u.gate
		io.WriteString(w, "slow")
	})
	u.mux.HandleFunc("POST /delete", func(w http.ResponseWriter, r *http.Request) {
		u.ran.Add(1)
		io.WriteString(w, "deleted")
	})
	u.srv = mcp.NewServer(mcp.Implementation{Name: "updated", Version: "1"}, mcp.WithPageSize(1))
	u.srv.AddTool(mcp.Tool{Name: "a", InputSchema: objSchema}, "GET /a", u.mux)
	u.srv.AddTool(mcp.Tool{Name: "slow", InputSchema: objSchema}, "GET /slow", u.mux)
	u.srv.AddTool(mcp.Tool{Name: "delete_item", Title: "Delete an item", InputSchema: objSchema,
		Annotations: mcp.Annotations{Destructive: true}}, "POST /delete", u.mux)
	u.url = newTestServer(t, mcp.NewHandler(u.srv, []mcp.Era{era2026.New(), era2025.New()}))
	return u
}

// tools lists every tool name, page by page.
func (u *updated) tools(t *testing.T, era mcp.Version) []string {
	t.Helper()
	var names []string
	cursor := ""
	for range 20 {
		params := ""
		if cursor != "" {
			params = `"cursor":` + quoteJSON(cursor)
		}
		r := (&fixture{url: u.url}).do(t, call{era: era, id: "1", method: "tools/list", params: params})
		var res struct {
			Tools      []struct{ Name string }
			NextCursor string
		}
		if r.code() != 0 || json.Unmarshal(r.msg.Result, &res) != nil {
			t.Fatalf("tools/list: %s", r.raw)
		}
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
		}
		if cursor = res.NextCursor; cursor == "" {
			return names
		}
	}
	t.Fatal("tools/list never ends")
	return nil
}

func (u *updated) call(t *testing.T, era mcp.Version, name string) *reply {
	t.Helper()
	return (&fixture{url: u.url}).do(t, call{era: era, id: "1", method: "tools/call", params: `"name":` + quoteJSON(name) + `,"arguments":{}`})
}

// TestUpdate_AddRemoveReplace: what an Update changes, the next request
// of every era sees, in its lists and its calls.
func TestUpdate_AddRemoveReplace(t *testing.T) {
	u := newUpdated(t)
	err := u.srv.Update(func(s *mcp.Server) {
		s.AddTool(mcp.Tool{Name: "b", InputSchema: objSchema}, "GET /b", u.mux)
		s.Remove(auth.KindTool, "a")
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, era := range eras {
		if got := strings.Join(u.tools(t, era), ","); got != "slow,delete_item,b" {
			t.Errorf("%s: tools %s", era, got)
		}
		if r := u.call(t, era, "b"); !strings.Contains(string(r.raw), `"text":"b"`) {
			t.Errorf("%s: call b: %s", era, r.raw)
		}
		if r := u.call(t, era, "a"); r.code() != -32602 || !strings.Contains(r.msg.Error.Message, "Unknown tool") {
			t.Errorf("%s: call a after its removal: %s", era, r.raw)
		}
	}
	// Replacing is removing and adding in one Update: b now runs GET /a.
	err = u.srv.Update(func(s *mcp.Server) {
		s.Remove(auth.KindTool, "b")
		s.AddTool(mcp.Tool{Name: "b", InputSchema: objSchema}, "GET /a", u.mux)
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := u.call(t, mcp.Version20260728, "b"); !strings.Contains(string(r.raw), `"text":"a"`) {
		t.Errorf("replaced b: %s", r.raw)
	}
}

// TestUpdate_AllOrNothing: one refusal and nothing changes; every
// refusal is reported.
func TestUpdate_AllOrNothing(t *testing.T) {
	u := newUpdated(t)
	for _, tc := range []struct {
		name   string
		change func(*mcp.Server)
		want   []string
	}{
		{"a duplicate among good ones", func(s *mcp.Server) {
			s.AddTool(mcp.Tool{Name: "b", InputSchema: objSchema}, "GET /b", u.mux)
			s.AddTool(mcp.Tool{Name: "a", InputSchema: objSchema}, "GET /a", u.mux)
		}, []string{"tool a registered twice"}},
		{"removing what is not there", func(s *mcp.Server) {
			s.Remove(auth.KindTool, "b")
			s.Remove(auth.KindPrompt, "a")
			s.Remove(auth.KindResource, "mem://x")
			s.Remove(auth.KindTemplate, "mem://{x}")
			s.Remove("widget", "a")
		}, []string{"Remove tool b: the server has no such item", "Remove prompt a:", "Remove resource mem://x:", "Remove resource_template mem://{x}:", `unknown kind "widget"`}},
		{"removing twice", func(s *mcp.Server) {
			s.Remove(auth.KindTool, "a")
			s.Remove(auth.KindTool, "a")
		}, []string{"Remove tool a: the server has no such item"}},
		{"an invalid tool", func(s *mcp.Server) {
			s.Remove(auth.KindTool, "a")
			s.AddTool(mcp.Tool{Name: "a", InputSchema: json.RawMessage(`{"type":"string"}`)}, "GET /a", u.mux)
		}, []string{"tool a"}},
	} {
		err := u.srv.Update(tc.change)
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v does not say %q", tc.name, err, w)
			}
		}
		if got := strings.Join(u.tools(t, mcp.Version20260728), ","); got != "a,slow,delete_item" {
			t.Errorf("%s: the registry changed: %s", tc.name, got)
		}
	}
	if err := u.srv.Update(nil); err == nil {
		t.Error("Update(nil) accepted")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("Remove on the Server itself did not panic")
			}
		}()
		u.srv.Remove(auth.KindTool, "a")
	}()
	if err := u.srv.Register(func(s *mcp.Server) { s.Remove(auth.KindTool, "a") }); err == nil {
		t.Error("Remove inside Register accepted")
	}
}

// TestUpdate_CursorOfAnotherList: a cursor from the list before a change
// is refused, never a page of the new list.
func TestUpdate_CursorOfAnotherList(t *testing.T) {
	u := newUpdated(t)
	f := &fixture{url: u.url}
	r := f.do(t, call{era: mcp.Version20260728, id: "1", method: "tools/list"})
	var page struct{ NextCursor string }
	json.Unmarshal(r.msg.Result, &page)
	if page.NextCursor == "" {
		t.Fatalf("no cursor: %s", r.raw)
	}
	if err := u.srv.Update(func(s *mcp.Server) { s.Remove(auth.KindTool, "a") }); err != nil {
		t.Fatal(err)
	}
	for _, era := range eras {
		r = f.do(t, call{era: era, id: "1", method: "tools/list", params: `"cursor":` + quoteJSON(page.NextCursor)})
		if r.code() != -32602 {
			t.Errorf("%s: old cursor answered %s", era, r.raw)
		}
	}
}

// TestUpdate_CursorOfAnUnchangedList: a cursor is bound to its own list,
// not to the whole registry: adding prompts and a resource leaves a
// tools/list cursor valid (it pages on where it was), and removing a tool
// leaves a prompts/list cursor valid, in every revision. Each had been
// refused as invalid (-32602), so a client paging one list failed because
// another changed.
func TestUpdate_CursorOfAnUnchangedList(t *testing.T) {
	u := newUpdated(t)
	f := &fixture{url: u.url}
	next := func(method, params string) (string, string) {
		t.Helper()
		r := f.do(t, call{era: mcp.Version20260728, id: "1", method: method, params: params})
		var page struct {
			Tools, Prompts []struct{ Name string }
			NextCursor     string
		}
		if r.code() != 0 || json.Unmarshal(r.msg.Result, &page) != nil || page.NextCursor == "" {
			t.Fatalf("%s: %s", method, r.raw)
		}
		return page.NextCursor, string(r.msg.Result)
	}
	tools, _ := next("tools/list", "")
	render := func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) { return nil, nil }
	if err := u.srv.Update(func(s *mcp.Server) {
		s.AddPrompt(mcp.Prompt{Name: "p1"}, render)
		s.AddPrompt(mcp.Prompt{Name: "p2"}, render)
		s.AddResource(mcp.Resource{URI: "v://r", Name: "r"}, "GET /a", u.mux)
	}); err != nil {
		t.Fatal(err)
	}
	prompts, _ := next("prompts/list", "")
	for _, era := range eras {
		r := f.do(t, call{era: era, id: "1", method: "tools/list", params: `"cursor":` + quoteJSON(tools)})
		if r.code() != 0 || !strings.Contains(string(r.msg.Result), `"name":"slow"`) {
			t.Errorf("%s: tools/list cursor after a prompts change: %s", era, r.raw)
		}
	}
	if err := u.srv.Update(func(s *mcp.Server) { s.Remove(auth.KindTool, "a") }); err != nil {
		t.Fatal(err)
	}
	for _, era := range eras {
		r := f.do(t, call{era: era, id: "1", method: "prompts/list", params: `"cursor":` + quoteJSON(prompts)})
		if r.code() != 0 || !strings.Contains(string(r.msg.Result), `"prompts":[{"name":"p2"}]`) {
			t.Errorf("%s: prompts/list cursor after a tools change: %s", era, r.raw)
		}
		// The tools cursor is of a list that changed: refused.
		if r := f.do(t, call{era: era, id: "1", method: "tools/list", params: `"cursor":` + quoteJSON(tools)}); r.code() != -32602 {
			t.Errorf("%s: tools/list cursor after a tools change: %s", era, r.raw)
		}
	}
}

// TestUpdate_RunningCallKeepsItsDefinition: a call that started before
// its tool was removed finishes on the definition it started with.
func TestUpdate_RunningCallKeepsItsDefinition(t *testing.T) {
	u := newUpdated(t)
	done := make(chan *reply)
	go func() { done <- u.call(t, mcp.Version20260728, "slow") }()
	// The call reaches its route (which waits for the gate) before the
	// tool goes: a pause instead let a slow machine remove it first.
	select {
	case <-u.slow:
	case r := <-done:
		t.Fatalf("the call ended before its route waited: %s", r.raw)
	}
	if err := u.srv.Update(func(s *mcp.Server) { s.Remove(auth.KindTool, "slow") }); err != nil {
		t.Fatal(err)
	}
	if r := u.call(t, mcp.Version20260728, "slow"); r.code() != -32602 {
		t.Errorf("a new call of the removed tool: %s", r.raw)
	}
	close(u.gate)
	if r := <-done; !strings.Contains(string(r.raw), `"text":"slow"`) {
		t.Errorf("the running call: %s", r.raw)
	}
}

// TestUpdate_ConfirmationOfAChangedTool: a confirmation asked before the
// tool's definition changed is refused and nothing runs; one asked
// before a description edit still confirms.
func TestUpdate_ConfirmationOfAChangedTool(t *testing.T) {
	u := newUpdated(t)
	replace := func(tl mcp.Tool) {
		t.Helper()
		err := u.srv.Update(func(s *mcp.Server) {
			s.Remove(auth.KindTool, "delete_item")
			s.AddTool(tl, "POST /delete", u.mux)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	in := confirmRound1(t, u.url, "delete_item", "x")
	replace(mcp.Tool{Name: "delete_item", Title: "Delete an item", Description: "Now described.", InputSchema: objSchema,
		Annotations: mcp.Annotations{Destructive: true}})
	if res := asResult(t, confirmRound2(u.url, "delete_item", "x", in.RequestState, accept).send(t, u.url)); res.IsError || u.ran.Load() != 1 {
		t.Fatalf("a description edit refused the confirmation: %+v, ran %d", res, u.ran.Load())
	}
	in = confirmRound1(t, u.url, "delete_item", "y")
	replace(mcp.Tool{Name: "delete_item", Title: "Delete an item", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string","minLength":1}}}`),
		Annotations: mcp.Annotations{Destructive: true}})
	r := confirmRound2(u.url, "delete_item", "y", in.RequestState, accept).send(t, u.url)
	if r.code() != -32602 || !strings.Contains(r.msg.Error.Message, "changed since") || string(r.msg.Error.Data) != `{"reason":"tool_changed"}` {
		t.Errorf("a schema change: %s", r.raw)
	}
	if u.ran.Load() != 1 {
		t.Errorf("the route ran %d times, want 1", u.ran.Load())
	}
}

// TestUpdate_CapabilitiesFollow: what discover and initialize announce
// follows the registry: prompts appear when the first one is added.
func TestUpdate_CapabilitiesFollow(t *testing.T) {
	u := newUpdated(t)
	f := &fixture{url: u.url}
	caps := func(era mcp.Version) map[string]any {
		method, params := "server/discover", ""
		if era != mcp.Version20260728 {
			method, params = "initialize", `"protocolVersion":"`+string(era)+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}`
		}
		r := f.do(t, call{era: era, id: "1", method: method, params: params})
		c, _ := r.result(t)["capabilities"].(map[string]any)
		return c
	}
	for _, era := range eras {
		if caps(era)["prompts"] != nil {
			t.Errorf("%s: prompts announced before any", era)
		}
	}
	if r := f.do(t, call{era: mcp.Version20260728, id: "1", method: "prompts/list"}); r.code() != -32601 {
		t.Errorf("prompts/list before any: %s", r.raw)
	}
	err := u.srv.Update(func(s *mcp.Server) {
		s.AddPrompt(mcp.Prompt{Name: "hi"}, func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
			return &mcp.PromptResult{Messages: []mcp.PromptMessage{{Role: content.User, Content: content.Text("hi")}}}, nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, era := range eras {
		if caps(era)["prompts"] == nil {
			t.Errorf("%s: prompts not announced after the first", era)
		}
		if r := f.do(t, call{era: era, id: "1", method: "prompts/list"}); r.code() != 0 || !strings.Contains(string(r.raw), `"name":"hi"`) {
			t.Errorf("%s: prompts/list: %s", era, r.raw)
		}
	}
}

// TestUpdate_WhileServing: calls and lists go on, under the race
// detector, while tools come and go.
func TestUpdate_WhileServing(t *testing.T) {
	u := newUpdated(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				select {
				case <-stop:
					return
				default:
				}
				r := u.call(t, mcp.Version20260728, "a")
				if r.status != 200 || (r.code() != 0 && r.code() != -32602) {
					t.Errorf("call during updates: %s", r.raw)
					return
				}
			}
		}()
	}
	for i := range 100 {
		err := u.srv.Update(func(s *mcp.Server) {
			if i%2 == 0 {
				s.Remove(auth.KindTool, "a")
			} else {
				s.AddTool(mcp.Tool{Name: "a", InputSchema: objSchema}, "GET /a", u.mux)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
}

// TestUpdate_ReplaceTaskTool: a task's tool is replaced with its status
// tool, whose name is then free for the new one.
func TestUpdate_ReplaceTaskTool(t *testing.T) {
	u := newUpdated(t)
	cfg := task.Config{Status: "GET /jobs/{id}", TTL: time.Hour, StatusTool: "slow_job_status"}
	u.mux.HandleFunc("POST /jobs", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "x") })
	u.mux.HandleFunc("GET /jobs/{id}", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "x") })
	add := func(s *mcp.Server) {
		s.AddTool(mcp.Tool{Name: "slow_job", InputSchema: objSchema}, "POST /jobs", u.mux, mcp.WithTask(cfg))
	}
	if err := u.srv.Update(add); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(u.tools(t, mcp.Version20260728), ","); got != "a,slow,delete_item,slow_job,slow_job_status" {
		t.Fatalf("tools %s", got)
	}
	if err := u.srv.Update(func(s *mcp.Server) { s.Remove(auth.KindTool, "slow_job_status") }); err == nil || !strings.Contains(err.Error(), "status tool of slow_job") {
		t.Errorf("removing the status tool alone: %v", err)
	}
	if err := u.srv.Update(func(s *mcp.Server) { s.Remove(auth.KindTool, "slow_job"); add(s) }); err != nil {
		t.Fatalf("replacing the task's tool: %v", err)
	}
	if err := u.srv.Update(func(s *mcp.Server) {
		s.Remove(auth.KindTool, "slow_job")
		s.AddTool(mcp.Tool{Name: "slow_job_status", InputSchema: objSchema}, "GET /a", u.mux)
	}); err != nil {
		t.Fatalf("reusing the status tool's name: %v", err)
	}
	if got := strings.Join(u.tools(t, mcp.Version20260728), ","); got != "a,slow,delete_item,slow_job_status" {
		t.Errorf("tools %s", got)
	}
}

// TestUpdate_TaskOfAChangedTool: a task outlives an edit of its tool that
// leaves its status route and output schema alone (its input schema, its
// cancel route here), so its client still reads the job it started; a
// change of the output schema (its result would be checked against
// another) refuses it with tool_changed, on every tasks/* method.
func TestUpdate_TaskOfAChangedTool(t *testing.T) {
	ts := newTaskServer(t)
	url := ts.urls[0]
	id := ts.start(t, url, tokAlice, "")
	routes := task.Config{Status: "GET /jobs/{id}", Cancel: "POST /jobs/{id}/cancel", Update: "POST /jobs/{id}/input",
		TTL: time.Hour, PollInterval: 500 * time.Millisecond}
	replace := func(tl mcp.Tool, cfg task.Config) {
		t.Helper()
		err := ts.srvs[0].Update(func(s *mcp.Server) {
			s.Remove(auth.KindTool, "slow")
			s.AddTool(tl, "POST /jobs", ts.mux, mcp.WithTask(cfg))
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	replace(mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object","properties":{"note":{"type":"string"}}}`)}, routes)
	if r := ts.get(t, url, tokAlice, "", id); r.Error != nil || r.str("status") != "working" {
		t.Fatalf("tasks/get after an edit of the input schema: %s", r.raw)
	}
	moved := routes
	moved.Cancel = "POST /jobs/{id}/stop"
	replace(mcp.Tool{Name: "slow", InputSchema: objSchema}, moved)
	if r := ts.get(t, url, tokAlice, "", id); r.Error != nil || r.str("status") != "working" {
		t.Fatalf("tasks/get after the cancel route moved: %s", r.raw)
	}
	replace(mcp.Tool{Name: "slow", InputSchema: objSchema, OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)}, routes)
	for _, method := range []string{"tasks/get", "tasks/update", "tasks/cancel"} {
		params := `"taskId":` + quoteJSON(id)
		if method == "tasks/update" {
			params += `,"inputResponses":{}`
		}
		r := rpc(t, url, tokAlice, "", method, id, metaTasks, params)
		if r.code() != -32602 || !strings.Contains(string(r.Error.Data), `"tool_changed"`) || !strings.Contains(r.Error.Message, "since this task started") {
			t.Errorf("%s after the output schema changed: %s", method, r.raw)
		}
	}
	// The output schema back: the task is the tool's once more.
	replace(mcp.Tool{Name: "slow", InputSchema: objSchema}, routes)
	if r := ts.get(t, url, tokAlice, "", id); r.Error != nil {
		t.Errorf("tasks/get with the output schema back: %s", r.raw)
	}
}
