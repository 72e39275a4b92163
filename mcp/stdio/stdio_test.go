package stdio_test

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/internal/syncbuf"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/content"
	"github.com/mcpdual/mcpdual/mcp/observe"
	"github.com/mcpdual/mcpdual/mcp/ratelimit"
	"github.com/mcpdual/mcpdual/mcp/stdio"
)

// wait bounds every wait of these tests.
const wait = 10 * time.Second

// alice is the principal the host runs the transport as. Her scopes
// allow reading and writing; she belongs to two workspaces.
var alice = &auth.Principal{Issuer: "local-test", Subject: "alice", ClientID: "stdio-test", Scopes: []string{"items:read", "items:write"}}

// fixture is a real endpoint with authentication, workspaces and
// streaming, over routes that report what they saw.
type fixture struct {
	h        *mcp.Handler
	log      *syncBuffer
	deleted  atomic.Int64  // the destructive route ran
	entered  chan string   // a slow call started (its id argument)
	release  chan struct{} // lets slow calls finish
	stopped  chan string   // a slow call saw its context end
	slowRuns atomic.Int64
	idemKeys chan string // the Idempotency-Key each run of the destructive route carried
	sampled  chan string // what the client's model answered the summarize tool

	// running counts the slow calls in their route; maxRunning is the
	// most there were at once.
	runMu               sync.Mutex
	running, maxRunning int
}

type syncBuffer = syncbuf.Buffer

func newFixture(t *testing.T, opts ...mcp.HandlerOption) *fixture {
	t.Helper()
	f := &fixture{log: &syncBuffer{}, entered: make(chan string, 16), release: make(chan struct{}), stopped: make(chan string, 16),
		idemKeys: make(chan string, 16), sampled: make(chan string, 16)}
	mux := http.NewServeMux()
	jsonBody := func(w http.ResponseWriter, v any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.Copy(w, r.Body)
	})
	mux.HandleFunc("GET /whoami", func(w http.ResponseWriter, r *http.Request) {
		p := auth.FromContext(r.Context())
		ws, _ := auth.WorkspaceFromContext(r.Context())
		call := mcp.CallFromContext(r.Context())
		who := map[string]string{"workspace": ws, "version": string(call.ProtocolVersion())}
		if caps := call.ClientCapabilities(); len(caps) > 0 {
			who["capabilities"] = string(caps)
		}
		if p != nil {
			who["subject"], who["issuer"] = p.Subject, p.Issuer
		}
		jsonBody(w, who)
	})
	mux.HandleFunc("GET /slow/{id}", func(w http.ResponseWriter, r *http.Request) {
		f.slowRuns.Add(1)
		f.runMu.Lock()
		f.running++
		f.maxRunning = max(f.maxRunning, f.running)
		f.runMu.Unlock()
		defer func() { f.runMu.Lock(); f.running--; f.runMu.Unlock() }()
		f.entered <- r.PathValue("id")
		select {
		case <-r.Context().Done():
			f.stopped <- r.PathValue("id")
			return
		case <-f.release:
		}
		jsonBody(w, map[string]string{"slow": r.PathValue("id")})
	})
	mux.HandleFunc("GET /progress", func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		call.Progress(1, 2, "half")
		call.Progress(2, 2, "done")
		jsonBody(w, map[string]bool{"ok": true})
	})
	mux.HandleFunc("GET /log", func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		call.Log(slog.LevelDebug, "too fine")
		call.Log(slog.LevelWarn, map[string]string{"note": "line one\nline two"})
		jsonBody(w, map[string]bool{"ok": true})
	})
	mux.HandleFunc("DELETE /items/{id}", func(w http.ResponseWriter, r *http.Request) {
		f.deleted.Add(1)
		f.idemKeys <- r.Header.Get("Idempotency-Key")
		jsonBody(w, map[string]string{"deleted": r.PathValue("id")})
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "stdio-fixture", Version: "1.0.0"})
	obj := func(s string) json.RawMessage { return json.RawMessage(s) }
	empty := obj(`{"type":"object"}`)
	srv.AddTool(mcp.Tool{Name: "echo", Description: "Echoes its arguments.", InputSchema: empty}, "POST /echo", mux)
	srv.AddTool(mcp.Tool{Name: "whoami", Description: "Who is calling.", InputSchema: empty, Annotations: mcp.Annotations{ReadOnly: true}}, "GET /whoami", mux)
	srv.AddTool(mcp.Tool{Name: "slow", Description: "Waits.", InputSchema: obj(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)}, "GET /slow/{id}", mux)
	srv.AddTool(mcp.Tool{Name: "progress", Description: "Reports progress.", InputSchema: empty}, "GET /progress", mux)
	srv.AddTool(mcp.Tool{Name: "log", Description: "Logs.", InputSchema: empty}, "GET /log", mux)
	srv.AddTool(mcp.Tool{Name: "delete_item", Title: "Delete an item", Description: "Deletes an item.",
		InputSchema: obj(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`),
		Annotations: mcp.Annotations{Destructive: true}}, "DELETE /items/{id}", mux, mcp.RequireScopes("items:write"))
	mcp.AddToolFunc(srv, mcp.Tool{Name: "summarize", Description: "Asks the client's model."},
		func(ctx context.Context, in struct{}) (map[string]string, error) {
			c := mcp.CallFromContext(ctx)
			if v, ok := c.InputResponse("llm"); ok {
				f.sampled <- string(v)
				return map[string]string{"summary": "done"}, nil
			}
			c.RequireInput(nil, mcp.Sample("llm", mcp.SamplingRequest{MaxTokens: 10,
				Messages: []mcp.SamplingMessage{{Role: content.User, Content: content.Text("summarize")}}}))
			return nil, nil
		})
	authn := auth.New(auth.Config{
		// No token is ever accepted: a stdio message that reached a
		// route did not come through the token path.
		Verifier: auth.VerifierFunc(func(context.Context, string, *http.Request) (*auth.Principal, error) {
			return nil, auth.ErrInvalidToken
		}),
		Resource:     "http://127.0.0.1/mcp",
		MethodScopes: map[string][]string{"tools/call": {"items:read"}},
		Workspaces: auth.WorkspaceFunc(func(ctx context.Context, p *auth.Principal, requested string) (string, error) {
			switch {
			case p == nil || p.Subject != "alice":
				return "", auth.ErrWorkspaceForbidden
			case requested == "":
				return "", auth.ErrWorkspaceRequired
			case requested == "ws_a" || requested == "ws_b":
				return requested, nil
			}
			return "", auth.ErrWorkspaceForbidden
		}),
	})
	f.h = mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()},
		append([]mcp.HandlerOption{mcp.WithAuth(authn), mcp.WithStreaming(), mcp.WithLogger(slog.New(slog.NewTextHandler(f.log, nil)))}, opts...)...)
	return f
}

// session is a client at the other end of two pipes.
type session struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan []byte
	done  chan error
	stop  context.CancelFunc
}

func start(t *testing.T, h http.Handler, opts ...stdio.Option) *session {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	s := &session{t: t, in: inW, lines: make(chan []byte, 1024), done: make(chan error, 1), stop: cancel}
	// The transport's own log is quiet unless a test listens to it.
	opts = append([]stdio.Option{stdio.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))}, opts...)
	go func() {
		err := stdio.Serve(ctx, h, inR, outW, opts...)
		outW.Close()
		s.done <- err
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			s.lines <- bytes.Clone(sc.Bytes())
		}
		close(s.lines)
	}()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
	})
	return s
}

func (s *session) send(lines ...string) {
	s.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(s.in, l+"\n"); err != nil {
			s.t.Fatalf("write: %v", err)
		}
	}
}

// message is one line the server wrote.
type message struct {
	raw    []byte
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func (m message) code() int {
	if m.Error == nil {
		return 0
	}
	return m.Error.Code
}

// decode checks a line is one compact JSON-RPC message.
func decode(t *testing.T, line []byte) message {
	t.Helper()
	var m message
	if !json.Valid(line) || bytes.ContainsAny(line, "\r\n") {
		t.Fatalf("not one JSON message on one line: %q", line)
	}
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	m.raw = line
	return m
}

// recv returns the next line the server writes.
func (s *session) recv() message {
	s.t.Helper()
	select {
	case l, ok := <-s.lines:
		if !ok {
			s.t.Fatal("the output ended")
		}
		return decode(s.t, l)
	case <-time.After(wait):
		s.t.Fatal("no answer within the timeout")
	}
	return message{}
}

// call sends one request and returns the next line, which must answer it.
func (s *session) call(id int, line string) message {
	s.t.Helper()
	s.send(line)
	m := s.recv()
	if string(m.ID) != fmt.Sprint(id) {
		s.t.Fatalf("answer to %d expected, got %s", id, m.raw)
	}
	return m
}

// finish ends the input, waits for Serve to return nil, and returns what
// was still written.
func (s *session) finish() []message {
	s.t.Helper()
	s.in.Close()
	var rest []message
	timeout := time.After(wait)
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				select {
				case err := <-s.done:
					if err != nil {
						s.t.Errorf("Serve after EOF: %v", err)
					}
				case <-timeout:
					s.t.Fatal("Serve did not return after EOF")
				}
				return rest
			}
			rest = append(rest, decode(s.t, l))
		case <-timeout:
			s.t.Fatal("the output did not end after EOF")
		}
	}
}

// meta is the _meta of a 2026-07-28 request.
func meta(caps string) string {
	return `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps +
		`,"io.modelcontextprotocol/clientInfo":{"name":"stdio-test","version":"1"}}`
}

func toolsCall(id int, name, args, extra string) string {
	params := `"name":` + quote(name) + `,"arguments":` + args
	if extra != "" {
		params += "," + extra
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{%s}}`, id, params)
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// toolResult is a tools/call result.
type toolResult struct {
	ResultType string `json:"resultType"`
	Content    []struct {
		Text string `json:"text"`
	} `json:"content"`
	IsError       bool           `json:"isError"`
	InputRequests map[string]any `json:"inputRequests"`
	RequestState  string         `json:"requestState"`
}

func result(t *testing.T, m message) toolResult {
	t.Helper()
	var r toolResult
	if m.Error != nil || json.Unmarshal(m.Result, &r) != nil {
		t.Fatalf("not a tool result: %s", m.raw)
	}
	return r
}

func whoami(t *testing.T, m message) map[string]string {
	t.Helper()
	r := result(t, m)
	var who map[string]string
	if r.IsError || len(r.Content) != 1 || json.Unmarshal([]byte(r.Content[0].Text), &who) != nil {
		t.Fatalf("whoami: %s", m.raw)
	}
	return who
}

// TestHandshake2025: initialize negotiates a revision for the process;
// later messages are served in it (the route sees the revision), and
// the initialized notification gets no answer.
func TestHandshake2025(t *testing.T) {
	t.Parallel()
	for _, v := range []mcp.Version{mcp.Version20250618, mcp.Version20250326} {
		t.Run(string(v), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_a"))
			init := s.call(1, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+string(v)+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
			var ir struct {
				ProtocolVersion string `json:"protocolVersion"`
				ServerInfo      struct{ Name string }
			}
			if json.Unmarshal(init.Result, &ir); ir.ProtocolVersion != string(v) || ir.ServerInfo.Name != "stdio-fixture" {
				t.Fatalf("initialize: %s", init.raw)
			}
			s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			list := s.call(2, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
			var lr struct{ Tools []struct{ Name string } }
			json.Unmarshal(list.Result, &lr)
			var names []string
			for _, tool := range lr.Tools {
				names = append(names, tool.Name)
			}
			if !slices.Contains(names, "whoami") || !slices.Contains(names, "delete_item") {
				t.Errorf("tools/list: %s", list.raw)
			}
			who := whoami(t, s.call(3, toolsCall(3, "whoami", `{}`, "")))
			if who["version"] != string(v) || who["subject"] != "alice" || who["workspace"] != "ws_a" {
				t.Errorf("the route saw %v", who)
			}
			r := result(t, s.call(4, toolsCall(4, "echo", `{"text":"hi"}`, "")))
			if r.IsError || r.Content[0].Text != `{"text":"hi"}` {
				t.Errorf("echo: %+v", r)
			}
			if rest := s.finish(); len(rest) != 0 {
				t.Errorf("more was written: %s", rest[0].raw)
			}
		})
	}
}

// Test2026: server/discover and tools/call carry _meta and no header, and
// are served in 2026-07-28, even after a 2025 handshake in the same process.
func Test2026(t *testing.T) {
	t.Parallel()
	for _, afterHandshake := range []bool{false, true} {
		t.Run(fmt.Sprint("after initialize ", afterHandshake), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_b"))
			if afterHandshake {
				s.call(9, `{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
			}
			d := s.call(1, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta(`{}`)+`}}`)
			var dr struct {
				SupportedVersions []string `json:"supportedVersions"`
				ResultType        string   `json:"resultType"`
			}
			if json.Unmarshal(d.Result, &dr); !slices.Contains(dr.SupportedVersions, "2026-07-28") || dr.ResultType != "complete" {
				t.Fatalf("server/discover: %s", d.raw)
			}
			m := s.call(2, toolsCall(2, "whoami", `{}`, meta(`{}`)))
			if r := result(t, m); r.ResultType != "complete" {
				t.Errorf("resultType %q", r.ResultType)
			}
			if who := whoami(t, m); who["version"] != "2026-07-28" || who["subject"] != "alice" || who["workspace"] != "ws_b" {
				t.Errorf("the route saw %v", who)
			}
			s.finish()
		})
	}
}

// TestConfirm: a destructive tool over stdio takes two rounds: the first
// asks (input_required with a requestState), the second carries the
// answer; the route runs only on an accepted confirmation.
func TestConfirm(t *testing.T) {
	t.Parallel()
	cases := []struct {
		answer string
		runs   int64
	}{
		{`{"action":"accept","content":{"confirm":true}}`, 1},
		{`{"action":"decline"}`, 0},
		{`{"action":"accept","content":{"confirm":false}}`, 0},
	}
	for _, c := range cases {
		t.Run(c.answer, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_a"))
			caps := `{"elicitation":{"form":{}}}`
			round1 := result(t, s.call(1, toolsCall(1, "delete_item", `{"id":"x1"}`, meta(caps))))
			if round1.ResultType != "input_required" || round1.RequestState == "" || round1.InputRequests["confirm"] == nil {
				t.Fatalf("round 1: %+v", round1)
			}
			if f.deleted.Load() != 0 {
				t.Fatal("the route ran before the confirmation")
			}
			extra := meta(caps) + `,"requestState":` + quote(round1.RequestState) + `,"inputResponses":{"confirm":` + c.answer + `}`
			round2 := result(t, s.call(2, toolsCall(2, "delete_item", `{"id":"x1"}`, extra)))
			if round2.ResultType != "complete" || round2.IsError != (c.runs == 0) {
				t.Errorf("round 2: %+v", round2)
			}
			if got := f.deleted.Load(); got != c.runs {
				t.Errorf("the route ran %d times, want %d", got, c.runs)
			}
			if c.runs == 1 && round2.Content[0].Text != `{"deleted":"x1"}` {
				t.Errorf("round 2: %+v", round2)
			}
			s.finish()
		})
	}
}

// TestNotificationsUnanswered: no notification is ever answered, even one
// the endpoint refuses.
func TestNotificationsUnanswered(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	log := &syncBuffer{}
	s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithLogger(slog.New(slog.NewTextHandler(log, nil))))
	s.send(
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{`+meta(`{}`)+`}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`,
		`{"jsonrpc":"2.0","method":"notifications/whatever"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01"}}}`,
		`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
	)
	rest := s.finish()
	if len(rest) != 1 || string(rest[0].ID) != "1" || rest[0].Error != nil {
		for _, m := range rest {
			t.Errorf("written: %s", m.raw)
		}
	}
	// The refused one is the host's to know about: its code and reason,
	// not the answer, whose data echoes the revision the client named
	// (design record 011).
	if logs := log.String(); strings.Count(logs, "stdio: a notification was refused") != 1 || !strings.Contains(logs, "status=400 code=-32022") ||
		strings.Contains(logs, "1999-01-01") {
		t.Errorf("log: %s", logs)
	}
}

// TestCancel: notifications/cancelled stops the request it names, whether
// it runs or waits for a slot, and its answer is never written.
func TestCancel(t *testing.T) {
	t.Parallel()
	t.Run("running", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_a"))
		s.send(toolsCall(7, "slow", `{"id":"a"}`, ""))
		expect(t, f.entered, "a")
		s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}}`)
		expect(t, f.stopped, "a")
		s.send(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)
		rest := s.finish()
		if len(rest) != 1 || string(rest[0].ID) != "8" {
			for _, m := range rest {
				t.Errorf("written: %s", m.raw)
			}
		}
	})
	t.Run("waiting", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_a"), stdio.WithConcurrency(1),
			stdio.WithMaxMessageBytes(4096))
		s.send(toolsCall(1, "slow", `{"id":"first"}`, ""))
		expect(t, f.entered, "first")
		s.send(toolsCall(2, "slow", `{"id":"second"}`, ""),
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`,
			// The cancellation is handled as it is read; this ping waits
			// for the slot behind it.
			`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
		// An oversized line is answered by the reader itself, without a
		// slot: once its answer is out, the cancellation before it was
		// read, and only then is the slot released.
		s.call(9, `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"`+strings.Repeat("x", 5000)+`"}}`)
		close(f.release)
		rest := s.finish()
		var ids []string
		for _, m := range rest {
			ids = append(ids, string(m.ID))
		}
		slices.Sort(ids)
		if !slices.Equal(ids, []string{"1", "3"}) || f.slowRuns.Load() != 1 {
			t.Errorf("answered %v; slow ran %d times", ids, f.slowRuns.Load())
		}
	})
}

func expect(t *testing.T, ch chan string, want string) {
	t.Helper()
	select {
	case got := <-ch:
		if got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	case <-time.After(wait):
		t.Fatalf("no %q within the timeout", want)
	}
}

// TestOversized: a line over the limit is answered with the limit, and its
// id when one is found, without being read whole; a notification is not
// answered; the next line is served.
func TestOversized(t *testing.T) {
	t.Parallel()
	const max = 512
	pad := strings.Repeat("x", 4*max)
	cases := []struct {
		name, line string
		id         string // "" for no id; "-" for no answer
	}{
		{"id first", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"` + pad + `"}}}`, "5"},
		{"id last", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"` + pad + `","id":1}},"id":"last"}`, `"last"`},
		{"nested id only", `{"jsonrpc":"2.0","method":"tools/call","params":{"id":3,"text":"` + pad + `"}}`, "-"},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + pad + `"}}`, "-"},
		// A response is never answered, even with its id: the error would
		// read as the answer to one of the client's own requests.
		{"response", `{"jsonrpc":"2.0","id":1,"result":{"content":{"type":"text","text":"` + pad + `"}}}`, "-"},
		{"error response, id last", `{"jsonrpc":"2.0","error":{"code":1,"message":"` + pad + `"},"id":"q1"}`, "-"},
		{"not JSON", strings.Repeat("{", 3*max), ""},
		{"bad id", `{"jsonrpc":"2.0","id":1.5,"method":"ping","params":{"p":"` + pad + `"}}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithMaxMessageBytes(max))
			s.send(c.line, `{"jsonrpc":"2.0","id":100,"method":"ping"}`)
			rest := s.finish()
			var pings, errs []message
			for _, m := range rest {
				if string(m.ID) == "100" {
					pings = append(pings, m)
				} else {
					errs = append(errs, m)
				}
			}
			if len(pings) != 1 || pings[0].Error != nil {
				t.Errorf("the next line was not served: %v", rest)
			}
			if c.id == "-" {
				if len(errs) != 0 {
					t.Errorf("a notification or a response was answered: %s", errs[0].raw)
				}
				return
			}
			if len(errs) != 1 {
				t.Fatalf("%d answers to the long line", len(errs))
			}
			e := errs[0]
			if string(e.ID) != c.id || e.code() != -32600 || string(e.Error.Data) != `{"reason":"message_too_large","maxBytes":512}` ||
				e.Error.Message != "Message too large: a line may hold at most 512 bytes" {
				t.Errorf("answer: %s", e.raw)
			}
		})
	}
	// A line of exactly the limit is read.
	t.Run("at the limit", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		line := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithMaxMessageBytes(len(line)))
		if m := s.call(1, line+"\r"); m.Error != nil {
			t.Errorf("%s", m.raw)
		}
		s.finish()
	})
}

// eventRecorder is an observer that keeps every event once it is done.
type eventRecorder struct {
	mu     sync.Mutex
	events []observe.Event
}

func (o *eventRecorder) Request(ctx context.Context, ev *observe.Event) (context.Context, func()) {
	return ctx, func() {
		o.mu.Lock()
		defer o.mu.Unlock()
		o.events = append(o.events, *ev)
	}
}

func (o *eventRecorder) Route(outer, inner context.Context, ev *observe.RouteEvent) (context.Context, func()) {
	return inner, nil
}

// TestOversized_Observed: a line over the limit is observed as the
// endpoint's other refusals are (an access log, metrics and traces hear
// of it, as of a body over the limit over HTTP): a request's and a
// notification's, with the refusal's status, code and message and the id
// the answer echoes; a response's is not, as a client's answer is never
// observed. The answer on the wire is the transport's, as before.
func TestOversized_Observed(t *testing.T) {
	t.Parallel()
	const max = 512
	pad := strings.Repeat("x", 4*max)
	rec := &eventRecorder{}
	f := newFixture(t, mcp.WithObserver(rec))
	s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithMaxMessageBytes(max))
	s.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"`+pad+`"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`+pad+`"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"content":{"type":"text","text":"`+pad+`"}}}`,
		strings.Repeat("{", 3*max),
		`{"jsonrpc":"2.0","id":100,"method":"ping"}`)
	rest := s.finish()
	const message = "Message too large: a line may hold at most 512 bytes"
	answers := map[string]bool{}
	for _, m := range rest {
		answers[string(m.ID)] = true
		if string(m.ID) != "100" && (m.code() != -32600 || m.Error.Message != message ||
			string(m.Error.Data) != `{"reason":"message_too_large","maxBytes":512}`) {
			t.Errorf("answer: %s", m.raw)
		}
	}
	if len(rest) != 3 || !answers["5"] || !answers[""] || !answers["100"] {
		t.Errorf("answers: %d %v", len(rest), answers)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var refused []observe.Event
	for _, ev := range rec.events {
		if ev.Method == "ping" {
			continue
		}
		refused = append(refused, ev)
	}
	if len(refused) != 3 {
		t.Fatalf("%d events besides ping, want 3 (the request, the notification, the line without an id): %+v", len(refused), rec.events)
	}
	ids := map[string]bool{}
	for _, ev := range refused {
		ids[ev.ID] = true
		if ev.Transport != "stdio" || ev.Status != http.StatusRequestEntityTooLarge || ev.Code != -32600 || ev.Message != message || ev.Method != "" {
			t.Errorf("event: %+v", ev)
		}
	}
	if !ids["5"] || !ids[""] {
		t.Errorf("event ids: %v", ids)
	}
}

// TestMalformed: what is not a request gets the endpoint's own error, as
// it would over HTTP, except a response, which is never answered (its id
// is the client's, and an answer would look like the response to one of
// the client's own requests); blank lines are skipped; CRLF line ends are
// read.
func TestMalformed(t *testing.T) {
	t.Parallel()
	cases := []struct {
		line string
		id   string
		code int // 0: no answer
	}{
		{`{not json`, "", -32700},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"`, "", -32700},
		{"\xff\xfe", "", -32700},
		{`[]`, "", -32600}, // an empty batch; batches: TestBatch
		{`"ping"`, "", -32600},
		{`{"jsonrpc":"2.0","id":3}`, "3", -32600},
		{`{"jsonrpc":"1.0","id":4,"method":"ping"}`, "4", -32600},
		{`{"jsonrpc":"2.0","id":5,"result":{}}`, "", 0},
		{`{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"m"}}`, "", 0},
		{`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":[1]}`, "6", -32602},
		{`{"jsonrpc":"2.0","id":7,"method":"no/such"}`, "7", -32601},
	}
	for _, c := range cases {
		t.Run(c.line, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			s := start(t, f.h, stdio.WithPrincipal(alice))
			s.send("", "   ", c.line+"\r")
			if c.code != 0 {
				m := s.recv()
				if string(m.ID) != c.id || m.code() != c.code {
					t.Errorf("got %s, want id %q code %d", m.raw, c.id, c.code)
				}
			}
			if m := s.call(100, `{"jsonrpc":"2.0","id":100,"method":"ping"}`); m.Error != nil {
				t.Errorf("next line: %s", m.raw)
			}
			s.finish()
		})
	}
}

// TestConcurrent: many requests at once, some streaming progress, with
// large answers: every line is one well-formed message, every request is
// answered once, and a request's notifications come before its answer.
func TestConcurrent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_a"), stdio.WithConcurrency(4))
	const n = 40
	big := strings.Repeat("0123456789", 3000)
	go func() {
		for i := 1; i <= n; i++ {
			var line string
			switch i % 3 {
			case 0:
				line = toolsCall(i, "progress", `{}`, `"_meta":{"progressToken":"p`+fmt.Sprint(i)+`"}`)
			case 1:
				line = toolsCall(i, "echo", `{"text":"`+big+`","n":`+fmt.Sprint(i)+`}`, "")
			default:
				line = toolsCall(i, "progress", `{}`, meta(`{}`)+`,"progressToken":"ignored"`)
				line = strings.Replace(line, `"io.modelcontextprotocol/protocolVersion"`, `"progressToken":"p`+fmt.Sprint(i)+`","io.modelcontextprotocol/protocolVersion"`, 1)
			}
			if _, err := io.WriteString(s.in, line+"\n"); err != nil {
				return
			}
		}
	}()
	answered := map[string]int{}
	progress := map[string]int{}
	for len(answered) < n {
		m := s.recv()
		if m.Method == "notifications/progress" {
			var p struct{ ProgressToken string }
			json.Unmarshal(m.Params, &p)
			id := strings.TrimPrefix(p.ProgressToken, "p")
			if answered[id] > 0 {
				t.Errorf("progress of %s after its answer", id)
			}
			progress[id]++
			continue
		}
		if m.Error != nil || len(m.ID) == 0 {
			t.Fatalf("unexpected: %s", m.raw)
		}
		answered[string(m.ID)]++
		if r := result(t, m); r.IsError {
			t.Errorf("tool error: %s", m.raw)
		}
	}
	for i := 1; i <= n; i++ {
		id := fmt.Sprint(i)
		want := 2
		if i%3 == 1 {
			want = 0
		}
		if answered[id] != 1 || progress[id] != want {
			t.Errorf("request %s: answered %d times, %d progress notifications", id, answered[id], progress[id])
		}
	}
	if rest := s.finish(); len(rest) != 0 {
		t.Errorf("more was written: %s", rest[0].raw)
	}
}

// TestStreamed: what the endpoint streams reaches a stdio client as lines
// of their own, in order, before the answer; nothing streams unless asked.
func TestStreamed(t *testing.T) {
	t.Parallel()
	logMeta := strings.Replace(meta(`{}`), `"_meta":{`, `"_meta":{"io.modelcontextprotocol/logLevel":"info",`, 1)
	cases := []struct {
		name, line string
		want       []string // the notifications, as JSON params
	}{
		{"progress, 2025", toolsCall(1, "progress", `{}`, `"_meta":{"progressToken":7}`),
			[]string{`{"progressToken":7,"progress":1,"total":2,"message":"half"}`, `{"progressToken":7,"progress":2,"total":2,"message":"done"}`}},
		{"progress, 2026", toolsCall(1, "progress", `{}`, strings.Replace(meta(`{}`), `"_meta":{`, `"_meta":{"progressToken":"t",`, 1)),
			[]string{`{"progressToken":"t","progress":1,"total":2,"message":"half"}`, `{"progressToken":"t","progress":2,"total":2,"message":"done"}`}},
		{"log, 2026", toolsCall(1, "log", `{}`, logMeta), []string{`{"level":"warning","data":{"note":"line one\nline two"}}`}},
		{"not asked", toolsCall(1, "progress", `{}`, meta(`{}`)), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_a"))
			s.send(c.line)
			var got []string
			for _, m := range s.finish() {
				if m.Method != "" {
					got = append(got, string(m.Params))
					continue
				}
				if string(m.ID) != "1" || m.Error != nil {
					t.Errorf("answer: %s", m.raw)
				}
				got = append(got, "answer")
			}
			if want := append(slices.Clone(c.want), "answer"); !slices.Equal(got, want) {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

// TestPrincipal: the identity is the host's, never a token's; the
// workspace is the one the host named, still checked by the resolver.
func TestPrincipal(t *testing.T) {
	t.Parallel()
	bob := &auth.Principal{Issuer: "local-test", Subject: "bob", Scopes: []string{"items:read"}}
	cases := []struct {
		name string
		opts []stdio.Option
		who  map[string]string
		code int
	}{
		{"alice in ws_b", []stdio.Option{stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_b")},
			map[string]string{"subject": "alice", "issuer": "local-test", "workspace": "ws_b", "version": "2025-06-18"}, 0},
		{"alice without a workspace", []stdio.Option{stdio.WithPrincipal(alice)}, nil, -32602},
		{"alice in another's workspace", []stdio.Option{stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_z")}, nil, -31403},
		{"bob", []stdio.Option{stdio.WithPrincipal(bob), stdio.WithWorkspace("ws_a")}, nil, -31403},
		// With WithAuth and no principal, the same refusal as a request
		// without a token, with the message's id.
		{"anonymous", nil, nil, -31401},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			s := start(t, f.h, c.opts...)
			m := s.call(1, toolsCall(1, "whoami", `{}`, ""))
			if c.code != 0 {
				if m.code() != c.code {
					t.Errorf("got %s, want code %d", m.raw, c.code)
				}
			} else if who := whoami(t, m); !maps.Equal(who, c.who) {
				t.Errorf("the route saw %v, want %v", who, c.who)
			}
			s.finish()
		})
	}
}

// TestContextCancelled: cancelling Serve's context stops reading at once,
// even while a read is blocked and a request runs, and drops that
// request's answer.
func TestContextCancelled(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_a"))
	s.send(toolsCall(1, "slow", `{"id":"a"}`, ""))
	expect(t, f.entered, "a")
	s.stop()
	select {
	case err := <-s.done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(wait):
		t.Fatal("Serve did not return")
	}
	expect(t, f.stopped, "a")
	for l := range s.lines {
		t.Errorf("written after cancellation: %s", l)
	}
}

// TestContextCancelledOutputBlocked: a client that stops reading cannot
// keep Serve from returning when its context ends, even with a write
// blocked and more answers waiting behind it.
func TestContextCancelledOutputBlocked(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	inR, inW := io.Pipe()
	out := &blockedWriter{entered: make(chan struct{}, 1), release: make(chan struct{})}
	t.Cleanup(func() { inW.Close(); close(out.release) })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- stdio.Serve(ctx, f.h, inR, out, stdio.WithPrincipal(alice), stdio.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	}()
	for i := 1; i <= 3; i++ {
		fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i)
	}
	select {
	case <-out.entered:
	case <-time.After(wait):
		t.Fatal("nothing was written")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(wait):
		t.Fatal("Serve did not return while its output was blocked")
	}
}

// blockedWriter blocks every write until released.
type blockedWriter struct {
	entered chan struct{}
	release chan struct{}
}

func (b *blockedWriter) Write(p []byte) (int, error) {
	select {
	case b.entered <- struct{}{}:
	default:
	}
	<-b.release
	return 0, io.ErrClosedPipe
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// TestWriteFails: a failed write ends Serve with its error.
func TestWriteFails(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	err := stdio.Serve(context.Background(), f.h, in, failingWriter{}, stdio.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err == nil || !strings.Contains(err.Error(), "broken pipe") {
		t.Errorf("Serve: %v", err)
	}
}

// TestForeignHandler: a handler that answers something other than a
// JSON-RPC message, or panics, costs that request an Internal error and
// nothing more.
func TestForeignHandler(t *testing.T) {
	t.Parallel()
	handlers := map[string]http.Handler{
		"not found": http.NotFoundHandler(),
		"panics":    http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }),
		"empty 200": http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}),
		"bad JSON": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":`)
		}),
	}
	for name, h := range handlers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			log := &syncBuffer{}
			s := start(t, h, stdio.WithLogger(slog.New(slog.NewTextHandler(log, nil))))
			for i := 1; i <= 2; i++ {
				m := s.call(i, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i))
				if m.code() != -32603 || m.Error.Message != "Internal error" {
					t.Errorf("%s", m.raw)
				}
			}
			s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			if rest := s.finish(); len(rest) != 0 {
				t.Errorf("a notification was answered: %s", rest[0].raw)
			}
			if !strings.Contains(log.String(), "stdio: ") {
				t.Errorf("nothing logged: %q", log.String())
			}
		})
	}
}

// TestForeignHandler_LogsNoValue: what the transport logs of a handler
// says what happened, never what the handler had at hand: a panic by its
// type and the line that raised it, not its value; a refused
// notification and an ignored response by the answer's code and reason,
// not its message, which a handler may fill with what it was sent.
func TestForeignHandler_LogsNoValue(t *testing.T) {
	t.Parallel()
	const secret = "S3cretTokenOfTheClient"
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"method":"ping"`)) {
			panic("cannot serve " + string(body))
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		msg, _ := json.Marshal("refused " + string(body))
		fmt.Fprintf(w, `{"jsonrpc":"2.0","error":{"code":-32600,"message":%s,"data":{"reason":"echoed"}}}`, msg)
	})
	log := &syncBuffer{}
	s := start(t, h, stdio.WithLogger(slog.New(slog.NewTextHandler(log, nil))))
	if m := s.call(1, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"token":"`+secret+`"}}`); m.code() != -32603 {
		t.Errorf("the panic's answer: %s", m.raw)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{"token":"`+secret+`"}}`,
		`{"jsonrpc":"2.0","id":"q1","result":{"token":"`+secret+`"}}`)
	if rest := s.finish(); len(rest) != 0 {
		t.Errorf("written: %s", rest[0].raw)
	}
	logs := log.String()
	for _, want := range []string{`msg="stdio: the handler panicked" panic.type=string panic.at="github.com/mcpdual/mcpdual/mcp/stdio_test.TestForeignHandler_LogsNoValue.func1 (stdio_test.go:`,
		`msg="stdio: a notification was refused" method=notifications/initialized status=400 code=-32600 reason=echoed`,
		`msg="stdio: a JSON-RPC response from the client was ignored: it answers no question waiting for one" status=400 code=-32600 reason=echoed`} {
		if !strings.Contains(logs, want) {
			t.Errorf("the log lacks %s:\n%s", want, logs)
		}
	}
	if strings.Contains(logs, secret) {
		t.Errorf("the log holds what the client sent:\n%s", logs)
	}
}

// panickingLimiter is a host's rate limiter with a bug.
type panickingLimiter struct{}

func (panickingLimiter) Take(context.Context, string, int) (ratelimit.Decision, error) {
	panic("limiter bug")
}

// TestHandlerPanic_FirstRaisedAt: a panic that escapes the endpoint's
// serving (a host's rate limiter's, with an observer set) is recovered by
// the endpoint itself, which answers -32603 and logs, through its own
// logger, the line that raised it, where the fault is, never the value;
// it no longer reaches the transport raised again, whose log then named
// the re-raise as well.
func TestHandlerPanic_FirstRaisedAt(t *testing.T) {
	t.Parallel()
	endpointLog := &syncBuffer{}
	h := mcp.NewHandler(mcp.NewServer(mcp.Implementation{Name: "p", Version: "1"}), []mcp.Era{era2026.New(), era2025.New()},
		mcp.WithRateLimit(panickingLimiter{}), mcp.WithObserver(observe.AccessLog(slog.New(slog.NewTextHandler(io.Discard, nil)))),
		mcp.WithLogger(slog.New(slog.NewTextHandler(endpointLog, nil))))
	log := &syncBuffer{}
	s := start(t, h, stdio.WithPrincipal(alice), stdio.WithLogger(slog.New(slog.NewTextHandler(log, nil))))
	if m := s.call(1, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); m.code() != -32603 {
		t.Errorf("answer: %s", m.raw)
	}
	s.finish()
	logs := endpointLog.String()
	if want := `panic.at="github.com/mcpdual/mcpdual/mcp/stdio_test.panickingLimiter.Take (stdio_test.go:`; !strings.Contains(logs, want) ||
		strings.Contains(logs, "limiter bug") || strings.Contains(log.String(), "limiter bug") {
		t.Errorf("the endpoint's log lacks %s:\n%s\ntransport's log:\n%s", want, logs, log)
	}
}

// TestBatch: 2025-03-26 requires receiving batches, over stdio as over
// HTTP. After a 2025-03-26 handshake (or before any) an array is served
// member by member and answered with one array on one line; a batch of
// notifications only is answered with nothing; after a handshake on a
// later revision, which forbids batches, it is refused with the endpoint's
// own error. The next line is served either way.
func TestBatch(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"", "2025-03-26", "2025-06-18"} {
		t.Run("handshake "+cmp.Or(v, "none"), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_a"))
			if v != "" {
				s.call(1, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+v+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
				s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			}
			s.send(`[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},` +
				toolsCall(8, "echo", `{"text":"hi"}`, "") + `]`)
			var line []byte
			select {
			case line = <-s.lines:
			case <-time.After(wait):
				t.Fatal("no answer to the batch")
			}
			if v == "2025-06-18" {
				if m := decode(t, line); m.code() != -32600 {
					t.Errorf("a batch after a 2025-06-18 handshake: %s, want -32600", line)
				}
			} else {
				var answers []message
				if err := json.Unmarshal(line, &answers); err != nil || bytes.ContainsAny(line, "\r\n") {
					t.Fatalf("not one array on one line: %q (%v)", line, err)
				}
				if len(answers) != 2 || string(answers[0].ID) != "7" || answers[0].Error != nil ||
					string(answers[1].ID) != "8" || answers[1].Error != nil || !bytes.Contains(answers[1].Result, []byte(`hi`)) {
					t.Errorf("batch answer: %s", line)
				}
			}
			// Notifications and a response only: nothing to answer.
			s.send(`[{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"q","result":{}}]`)
			if v == "2025-06-18" {
				if m := s.recv(); m.code() != -32600 {
					t.Errorf("a batch after a 2025-06-18 handshake: %s, want -32600", m.raw)
				}
			}
			if m := s.call(100, `{"jsonrpc":"2.0","id":100,"method":"ping"}`); m.Error != nil {
				t.Errorf("next line: %s", m.raw)
			}
			for _, m := range s.finish() {
				t.Errorf("a batch without requests was answered: %s", m.raw)
			}
		})
	}
}

// TestBatch_MembersSeeCapabilities: each member of a 2025-03-26 batch is
// served with the capabilities the process's initialize declared, as a
// message sent alone is (Call.ClientCapabilities; over HTTP a member
// carries the session's Mcp-Session-Id). Members saw none. Before any
// handshake nothing was declared, alone or in a batch.
func TestBatch_MembersSeeCapabilities(t *testing.T) {
	t.Parallel()
	batch := func(s *session) []map[string]string {
		t.Helper()
		s.send("[" + toolsCall(5, "whoami", `{}`, "") + "," + toolsCall(6, "whoami", `{}`, "") + "]")
		var line []byte
		select {
		case line = <-s.lines:
		case <-time.After(wait):
			t.Fatal("no answer to the batch")
		}
		var answers []message
		if err := json.Unmarshal(line, &answers); err != nil || len(answers) != 2 {
			t.Fatalf("batch answer: %s (%v)", line, err)
		}
		var who []map[string]string
		for i, m := range answers {
			m.raw = line
			if want := strconv.Itoa(5 + i); string(m.ID) != want {
				t.Errorf("member %d answered with id %s, want %s", i, m.ID, want)
			}
			who = append(who, whoami(t, m))
		}
		return who
	}

	t.Run("after a handshake", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_a"))
		s.call(1, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{"sampling":{},"roots":{"listChanged":true}},"clientInfo":{"name":"t","version":"1"}}}`)
		s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		alone := whoami(t, s.call(2, toolsCall(2, "whoami", `{}`, "")))
		if !strings.Contains(alone["capabilities"], `"sampling"`) || !strings.Contains(alone["capabilities"], `"listChanged":true`) || alone["version"] != "2025-03-26" {
			t.Fatalf("a message alone saw %v, want the declared capabilities", alone)
		}
		for i, who := range batch(s) {
			if !maps.Equal(who, alone) {
				t.Errorf("member %d saw %v, want what a message alone sees: %v", i, who, alone)
			}
		}
		s.finish()
	})
	t.Run("before any", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_a"))
		for i, who := range batch(s) {
			if caps, ok := who["capabilities"]; ok {
				t.Errorf("member %d saw capabilities %s before any initialize", i, caps)
			}
		}
		s.finish()
	})
}

// TestBodyLimitKeepsID: a line under the transport's limit but over the
// endpoint's Limits.BodyBytes is refused by the endpoint with the
// message's id, which on stdio is all that ties the refusal to its
// request.
func TestBodyLimitKeepsID(t *testing.T) {
	t.Parallel()
	f := newFixture(t, mcp.WithLimits(mcp.Limits{BodyBytes: 1024}))
	s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithWorkspace("ws_a"), stdio.WithMaxMessageBytes(8192))
	m := s.call(42, toolsCall(42, "echo", `{"text":"`+strings.Repeat("x", 2000)+`"}`, ""))
	if m.code() != -32600 || !strings.Contains(string(m.Error.Data), `"maxBytes":1024`) {
		t.Errorf("over BodyBytes: %s", m.raw)
	}
	if m := s.call(43, toolsCall(43, "echo", `{"text":"short"}`, "")); m.Error != nil {
		t.Errorf("under BodyBytes: %s", m.raw)
	}
	s.finish()
}

// TestRefusedNotification_MethodCut: the log line of a refused
// notification names its method as the client sent it, which is as long
// as a line may be (a megabyte by default): a notification with a
// 100 KB method and an unknown revision became a 100 KB warning, one per
// line the client writes. The method is cut to 128 bytes where a
// character ends, as an observer's event cuts it.
func TestRefusedNotification_MethodCut(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	log := &syncBuffer{}
	s := start(t, f.h, stdio.WithPrincipal(alice), stdio.WithLogger(slog.New(slog.NewJSONHandler(log, nil))))
	method := "notifications/x" + strings.Repeat("é", 50_000)
	s.send(`{"jsonrpc":"2.0","method":"` + method + `","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01"}}}`)
	if rest := s.finish(); len(rest) != 0 {
		t.Errorf("a notification was answered: %s", rest[0].raw)
	}
	var line struct {
		Msg    string
		Method string
		Code   int
	}
	if err := json.Unmarshal([]byte(log.String()), &line); err != nil || line.Msg != "stdio: a notification was refused" || line.Code != -32022 {
		t.Fatalf("log: %.300s (%v)", log.String(), err)
	}
	if want := method[:127]; line.Method != want { // "notifications/x" is 15 bytes and é 2: byte 128 is inside one
		t.Errorf("method logged as %d bytes, want the first %d: %.200q", len(line.Method), len(want), line.Method)
	}
}

// panickingLog is a log handler that panics on every line, as a host's
// broken handler might.
type panickingLog struct{ slog.Handler }

func (panickingLog) Enabled(context.Context, slog.Level) bool { return true }
func (panickingLog) Handle(context.Context, slog.Record) error {
	panic("the host's log handler is broken")
}

// TestLogHandlerPanics: every line the transport logs runs on a goroutine
// of its own, where nothing recovers a panic. A log handler that panics
// loses those lines; the process and the session go on, and every request
// is answered.
func TestLogHandlerPanics(t *testing.T) {
	t.Parallel()
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch {
		case bytes.Contains(body, []byte(`"boom"`)):
			panic("the handler failed")
		case bytes.Contains(body, []byte(`"x/refused"`)):
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32600,"message":"refused"}}`)
		case bytes.Contains(body, []byte(`"x/garbled"`)):
			io.WriteString(w, "not JSON")
		default:
			w.Header().Set("Content-Type", "application/json")
			var m struct{ ID json.RawMessage }
			json.Unmarshal(body, &m)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
		}
	})
	s := start(t, h, stdio.WithLogger(slog.New(panickingLog{})), stdio.WithMaxMessageBytes(512))
	s.send(
		`{"jsonrpc":"2.0","id":1,"method":"boom"}`,                                               // the handler panics
		`{"jsonrpc":"2.0","method":"x/refused"}`,                                                 // a refused notification
		`{"jsonrpc":"2.0","id":2,"method":"x/garbled"}`,                                          // no JSON-RPC answer
		`{"jsonrpc":"2.0","id":"q9","result":{}}`,                                                // answers no question
		`{"jsonrpc":"2.0","id":3,"method":"ping","params":{"p":"`+strings.Repeat("x", 600)+`"}}`, // over the limit
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
	)
	got := map[string]int{}
	for _, m := range s.finish() {
		got[string(m.ID)] = m.code()
	}
	want := map[string]int{"1": -32603, "2": -32603, "3": -32600, "4": 0}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("answers by id and code: %v, want %v", got, want)
	}
}
