package mcp_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/content"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
	"github.com/mcpdual/mcpdual/mcp/observe"
)

type fnAddress struct {
	City    string `json:"city"`
	Country string `json:"country" jsonschema:"ISO 3166-1 alpha-2" mcp:"pattern=^[A-Z]{2}$"`
}

type fnNoteIn struct {
	Text string     `json:"text" jsonschema:"The note's text" mcp:"minLength=1,maxLength=20"`
	Tags []string   `json:"tags,omitempty" mcp:"enum=red|blue"`
	Ship *fnAddress `json:"ship,omitempty"`
	Bill fnAddress  `json:"bill,omitzero"`
}

type fnNote struct {
	ID        string            `json:"id"`
	Text      string            `json:"text"`
	Tags      []string          `json:"tags"`
	Meta      map[string]string `json:"meta"`
	Parent    *fnAddress        `json:"parent"`
	Owner     string            `json:"owner"`
	Workspace string            `json:"workspace"`
}

type fnID struct {
	ID string `json:"id" mcp:"minLength=1"`
}

type fnEmpty struct{}

// funcFixture is an authenticated endpoint whose tools are Go functions.
type funcFixture struct {
	h     http.Handler
	url   string
	log   *syncBuffer
	calls map[string]*atomic.Int64
}

func newFuncFixture(t *testing.T) *funcFixture {
	t.Helper()
	f := &funcFixture{log: &syncBuffer{}, calls: map[string]*atomic.Int64{}}
	count := func(name string) func() {
		c := &atomic.Int64{}
		f.calls[name] = c
		return func() { c.Add(1) }
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "funcs", Version: "1"})
	added := count("notes_add")
	mcp.AddToolFunc(srv, mcp.Tool{Name: "notes_add", Description: "Adds a note."}, func(ctx context.Context, in fnNoteIn) (fnNote, error) {
		added()
		ws, _ := auth.WorkspaceFromContext(ctx)
		owner := ""
		if p := auth.FromContext(ctx); p != nil {
			owner = p.Subject
		}
		return fnNote{ID: "n1", Text: in.Text, Tags: in.Tags, Owner: owner, Workspace: ws}, nil
	})
	failUser := count("fails_user")
	mcp.AddToolFunc(srv, mcp.Tool{Name: "fails_user"}, func(ctx context.Context, in fnID) (fnNote, error) {
		failUser()
		return fnNote{}, errors.Join(errors.New("lookup"), mcp.NewToolError("No note has id "+in.ID+"."))
	})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "fails_internal"}, func(ctx context.Context, in fnEmpty) (fnNote, error) {
		return fnNote{}, errors.New("db password=hunter2 refused")
	})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "panics"}, func(ctx context.Context, in fnEmpty) (fnNote, error) {
		panic("boom: secret=hunter2")
	})
	deleted := count("notes_delete")
	mcp.AddToolFunc(srv, mcp.Tool{Name: "notes_delete", Title: "Delete a note", Annotations: mcp.Annotations{Destructive: true}},
		func(ctx context.Context, in fnID) (map[string]any, error) {
			deleted()
			return map[string]any{"deleted": in.ID, "key": mcp.CallFromContext(ctx).IdempotencyKey() != ""}, nil
		}, mcp.ConfirmWithInput(func(ctx context.Context, in fnID) (string, error) {
			if auth.FromContext(ctx) == nil {
				return "", errors.New("no identity")
			}
			return "Delete note " + mcp.Quote(in.ID) + "?", nil
		}))
	mcp.AddToolFunc(srv, mcp.Tool{Name: "ask"}, func(ctx context.Context, in fnEmpty) (map[string]string, error) {
		call := mcp.CallFromContext(ctx)
		el, ok := call.Elicitation("color")
		if !ok {
			call.RequireInput([]byte("s1"), mcp.ElicitForm("color", "Which color?",
				json.RawMessage(`{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}`)))
			return nil, nil
		}
		var c struct{ Color string }
		json.Unmarshal(el.Content, &c)
		return map[string]string{"color": c.Color, "state": string(call.State())}, nil
	})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "picture"}, func(ctx context.Context, in fnEmpty) (*mcp.ToolResult, error) {
		return &mcp.ToolResult{Content: []content.Block{content.Text("a dot"), content.Image([]byte{0x89, 'P', 'N', 'G'}, "image/png")},
			StructuredContent: map[string]int{"width": 1}}, nil
	})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "scoped"}, func(ctx context.Context, in fnEmpty) (fnEmpty, error) { return fnEmpty{}, nil },
		mcp.RequireScopes("items:write"))
	progressed := count("progress")
	mcp.AddToolFunc(srv, mcp.Tool{Name: "progress"}, func(ctx context.Context, in fnEmpty) (map[string]bool, error) {
		progressed()
		call := mcp.CallFromContext(ctx)
		return map[string]bool{"sent": call.Progress(1, 2, "half")}, nil
	})
	authn := auth.New(auth.Config{Verifier: auth.VerifierFunc(testVerifier), Resource: resourceURI, Workspaces: auth.WorkspaceFunc(testWorkspaces)})
	f.h = mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithAuth(authn), mcp.WithStreaming(),
		mcp.WithLogger(slog.New(slog.NewTextHandler(f.log, nil))))
	ts := httptest.NewServer(f.h)
	t.Cleanup(ts.Close)
	f.url = ts.URL
	return f
}

// toolReply is a CallToolResult, decoded.
type toolReply struct {
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		MimeType string `json:"mimeType"`
		Data     string `json:"data"`
	} `json:"content"`
	Structured json.RawMessage `json:"structuredContent"`
	IsError    bool            `json:"isError"`
	ResultType string          `json:"resultType"`
}

func decodeTool(t *testing.T) func(r *mcptest.Response, err error) toolReply {
	return func(r *mcptest.Response, err error) toolReply {
		t.Helper()
		if err != nil || r.Error != nil {
			t.Fatalf("%v %s", err, r.Raw)
		}
		var res toolReply
		if err := json.Unmarshal(r.Result, &res); err != nil {
			t.Fatal(err)
		}
		return res
	}
}

// clients are the transports every function tool is called over: a real
// HTTP server, and the endpoint called in process.
func (f *funcFixture) clients(v mcp.Version, opts ...mcptest.Option) map[string]*mcptest.Client {
	opts = append([]mcptest.Option{mcptest.WithHeader("Authorization", "Bearer "+tokAlice)}, opts...)
	return map[string]*mcptest.Client{"http": mcptest.Dial(f.url, v, opts...), "in-process": mcptest.New(f.h, v, opts...)}
}

var funcEras = []mcp.Version{mcp.Version20260728, mcp.Version20250618, mcp.Version20250326}

// TestFunc_Calls: a function tool's call in every era and over both
// transports: valid arguments reach the function with the caller's
// identity, invalid ones never do, the result is structuredContent and its
// JSON text (only the text on 2025-03-26) with nil slices and maps sent
// empty, and errors and panics are answered without their details.
func TestFunc_Calls(t *testing.T) {
	f := newFuncFixture(t)
	ctx := context.Background()
	// parent, a nil pointer without omitempty, is written as null, which
	// the output schema admits.
	want := `{"id":"n1","text":"hi","tags":[],"meta":{},"parent":null,"owner":"alice","workspace":"w1"}`
	for _, v := range funcEras {
		for transport, c := range f.clients(v) {
			name := string(v) + "/" + transport
			for _, tc := range []struct {
				tool, args string
				isError    bool
				text       string // the one text block, or a part of it for errors
				ran        int64  // how many times notes_add ran
			}{
				{"notes_add", `{"text":"hi"}`, false, want, 1},
				{"notes_add", `{"text":"hi","tags":["red"],"ship":{"city":"Porto","country":"PT"}}`, false,
					`{"id":"n1","text":"hi","tags":["red"],"meta":{},"parent":null,"owner":"alice","workspace":"w1"}`, 1},
				{"notes_add", `{"text":""}`, true, "Invalid arguments for tool notes_add", 0},
				{"notes_add", `{"text":"hi","tags":["green"]}`, true, "/tags/0", 0},
				{"notes_add", `{"text":"hi","extra":1}`, true, "extra", 0},
				{"notes_add", `{"text":"hi","ship":{"city":"Porto","country":"pt"}}`, true, "/ship/country", 0},
				{"notes_add", `{"Text":"hi"}`, true, "Invalid arguments", 0}, // no case-insensitive match
				{"notes_add", `{}`, true, "text", 0},
				{"fails_user", `{"id":"n9"}`, true, "No note has id n9.", 0},
				{"fails_internal", `{}`, true, "The tool failed with an internal error.", 0},
				{"panics", `{}`, true, "The tool failed with an internal error.", 0},
			} {
				before := f.calls["notes_add"].Load()
				res := decodeTool(t)(c.CallTool(ctx, tc.tool, json.RawMessage(tc.args)))
				if ran := f.calls["notes_add"].Load() - before; ran != tc.ran {
					t.Errorf("%s %s %s: the function ran %d times, want %d", name, tc.tool, tc.args, ran, tc.ran)
				}
				if res.IsError != tc.isError || len(res.Content) != 1 || res.Content[0].Type != "text" {
					t.Errorf("%s %s %s: %+v", name, tc.tool, tc.args, res)
					continue
				}
				text := res.Content[0].Text
				if tc.isError {
					if !strings.Contains(text, tc.text) || strings.Contains(text, "hunter2") {
						t.Errorf("%s %s: text %q, want it to contain %q", name, tc.tool, text, tc.text)
					}
					if res.Structured != nil {
						t.Errorf("%s %s: structuredContent on an error: %s", name, tc.tool, res.Structured)
					}
					continue
				}
				if text != tc.text {
					t.Errorf("%s %s: text\n%s\nwant\n%s", name, tc.tool, text, tc.text)
				}
				switch {
				case v == mcp.Version20250326 && res.Structured != nil:
					t.Errorf("%s: structuredContent on 2025-03-26: %s", name, res.Structured)
				case v != mcp.Version20250326 && string(res.Structured) != tc.text:
					t.Errorf("%s: structuredContent %s, want %s", name, res.Structured, tc.text)
				}
			}
		}
	}
	// A function's error is its message to the operator, logged as it is;
	// a panic is described by its type and place, never its value (design
	// record 011).
	logged := f.log.String()
	for _, line := range []string{`msg="mcp: tool function failed" tool=fails_internal err="db password=hunter2 refused"`,
		`msg="mcp: tool function panicked" tool=panics panic.type=string panic.at="github.com/mcpdual/mcpdual/mcp_test.newFuncFixture.func`} {
		if !strings.Contains(logged, line) {
			t.Errorf("log lacks %s:\n%s", line, logged)
		}
	}
	if strings.Contains(logged, "boom") {
		t.Errorf("the panic's value is logged:\n%s", logged)
	}
}

// TestFunc_Access: per-tool scopes and the token are checked before a
// function runs, as before a route.
func TestFunc_Access(t *testing.T) {
	f := newFuncFixture(t)
	ctx := context.Background()
	for _, v := range funcEras {
		// A 2025 client stops at its initialize.
		r, err := mcptest.Dial(f.url, v).CallTool(ctx, "notes_add", map[string]string{"text": "hi"})
		if r == nil || r.Status != http.StatusUnauthorized {
			t.Errorf("%s without a token: %v %v", v, err, r)
		}
		r, err = f.clients(v)["http"].CallTool(ctx, "scoped", nil)
		if err != nil || r.Status != http.StatusForbidden || !strings.Contains(r.Header.Get("WWW-Authenticate"), "items:write") {
			t.Errorf("%s without the scope: %v %d %s", v, err, r.Status, r.Raw)
		}
		res := decodeTool(t)(mcptest.Dial(f.url, v, mcptest.WithHeader("Authorization", "Bearer "+tokWriter)).CallTool(ctx, "scoped", nil))
		if res.IsError || res.Content[0].Text != `{}` {
			t.Errorf("%s with the scope: %+v", v, res)
		}
	}
	if n := f.calls["notes_add"].Load(); n != 0 {
		t.Errorf("notes_add ran %d times for refused callers", n)
	}
}

// TestFunc_Confirm: a destructive function runs only once the user
// confirmed, with a question worded from the decoded arguments; 2025
// clients, which cannot confirm, never run it.
func TestFunc_Confirm(t *testing.T) {
	f := newFuncFixture(t)
	ctx := context.Background()
	var asked []string
	accept := mcptest.WithAnswers(func(key string, req mcptest.InputRequest) (json.RawMessage, bool) {
		var p struct{ Message string }
		json.Unmarshal(req.Params, &p)
		asked = append(asked, p.Message)
		return json.RawMessage(`{"action":"accept","content":{"confirm":true}}`), true
	})
	caps := mcptest.WithCapabilities(json.RawMessage(`{"elicitation":{}}`))
	for transport, c := range f.clients(mcp.Version20260728, caps) {
		// Without answers: asked, not run.
		r, err := c.CallTool(ctx, "notes_delete", map[string]string{"id": "n/1"})
		if err != nil || r.ResultType() != "input_required" || f.calls["notes_delete"].Load() != 0 {
			t.Fatalf("%s round 1: %v %s", transport, err, r.Raw)
		}
		if !strings.Contains(string(r.Result), `Delete note \"n/1\"?`) {
			t.Errorf("%s: question %s", transport, r.Result)
		}
	}
	for transport, c := range f.clients(mcp.Version20260728, caps, accept) {
		before := f.calls["notes_delete"].Load()
		res := decodeTool(t)(c.CallTool(ctx, "notes_delete", map[string]string{"id": "n1"}))
		if res.IsError || res.Content[0].Text != `{"deleted":"n1","key":true}` || f.calls["notes_delete"].Load() != before+1 {
			t.Errorf("%s confirmed: %+v", transport, res)
		}
	}
	// The second transport asks for the same call by the same caller,
	// which the first just ran: its question says so first (design record 025
	// item 8), with when it ran; a function has no status to show.
	again := regexp.MustCompile(`^Note: this call, with the same arguments, already ran at 20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ\. ` +
		`Confirm only if it should run again\. Delete note "n1"\?$`)
	if len(asked) != 2 || asked[0] != `Delete note "n1"?` || !again.MatchString(asked[1]) {
		t.Errorf("questions: %q", asked)
	}
	for _, v := range funcEras[1:] {
		res := decodeTool(t)(f.clients(v)["http"].CallTool(ctx, "notes_delete", map[string]string{"id": "n1"}))
		if !res.IsError || !strings.Contains(res.Content[0].Text, "confirmation_required") {
			t.Errorf("%s: %+v", v, res)
		}
	}
	if n := f.calls["notes_delete"].Load(); n != 2 {
		t.Errorf("notes_delete ran %d times, want 2 (once per confirmed call)", n)
	}
	if !strings.Contains(f.log.String(), `msg="mcp: destructive tool" tool=notes_delete outcome="executed, returned"`) {
		t.Errorf("no audit line:\n%s", f.log.String())
	}
}

// TestFunc_Input: a function asks the client for input through its Call
// and gets the answer, with its state, on the retry; 2025 clients get an
// isError result naming the revision it needs.
func TestFunc_Input(t *testing.T) {
	f := newFuncFixture(t)
	ctx := context.Background()
	answer := mcptest.WithAnswers(func(key string, req mcptest.InputRequest) (json.RawMessage, bool) {
		return json.RawMessage(`{"action":"accept","content":{"color":"teal"}}`), key == "color"
	})
	for transport, c := range f.clients(mcp.Version20260728, mcptest.WithCapabilities(json.RawMessage(`{"elicitation":{}}`)), answer) {
		res := decodeTool(t)(c.CallTool(ctx, "ask", nil))
		if res.IsError || res.Content[0].Text != `{"color":"teal","state":"s1"}` {
			t.Errorf("%s: %+v", transport, res)
		}
	}
	for _, v := range funcEras[1:] {
		res := decodeTool(t)(f.clients(v)["in-process"].CallTool(ctx, "ask", nil))
		if !res.IsError || !strings.Contains(res.Content[0].Text, "2026-07-28") {
			t.Errorf("%s: %+v", v, res)
		}
	}
}

// TestFunc_FullResult: a function returning *ToolResult sends its own
// blocks, and its structuredContent where the revision has it.
func TestFunc_FullResult(t *testing.T) {
	f := newFuncFixture(t)
	for _, v := range funcEras {
		res := decodeTool(t)(f.clients(v)["in-process"].CallTool(context.Background(), "picture", nil))
		if res.IsError || len(res.Content) != 2 || res.Content[1].Type != "image" || res.Content[1].MimeType != "image/png" {
			t.Errorf("%s: %+v", v, res)
		}
		if got, want := string(res.Structured), `{"width":1}`; v != mcp.Version20250326 && got != want || v == mcp.Version20250326 && got != "" {
			t.Errorf("%s: structuredContent %s", v, res.Structured)
		}
	}
}

// TestFunc_LargeResult: a function's result past streamAbove, written from
// its blocks in pieces, reaches clients of every revision whole, over HTTP
// and in process, each block as the revision sends it; past the response
// limit it is refused as a small one is.
func TestFunc_LargeResult(t *testing.T) {
	long := strings.Repeat("0123456789", 10_000)
	picture := bytes.Repeat([]byte{0x89, 'P', 'N', 'G'}, 8_000)
	srv := mcp.NewServer(mcp.Implementation{Name: "large", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "large"}, func(ctx context.Context, in fnID) (*mcp.ToolResult, error) {
		return &mcp.ToolResult{Content: []content.Block{content.Text(long + in.ID), content.Image(picture, "image/png"),
			content.ResourceLink("x://notes/1", "note", "text/plain")}, IsError: in.ID == "flagged", StructuredContent: map[string]int{"n": 1}}, nil
	})
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
	url := newTestServer(t, h)
	for _, v := range []mcp.Version{mcp.Version20260728, mcp.Version20251125, mcp.Version20250618, mcp.Version20250326} {
		for transport, c := range map[string]*mcptest.Client{"http": mcptest.Dial(url, v), "in-process": mcptest.New(h, v)} {
			for _, id := range []string{"a", "flagged"} {
				res := decodeTool(t)(c.CallTool(context.Background(), "large", map[string]string{"id": id}))
				if len(res.Content) != 3 || res.Content[0].Text != long+id || res.IsError != (id == "flagged") {
					t.Fatalf("%s %s %s: %d blocks, isError %v", v, transport, id, len(res.Content), res.IsError)
				}
				if res.Content[1].Type != "image" || res.Content[1].MimeType != "image/png" || res.Content[1].Data != base64.StdEncoding.EncodeToString(picture) {
					t.Errorf("%s %s: the image block changed", v, transport)
				}
				if want := map[bool]string{true: "", false: `{"n":1}`}[v == mcp.Version20250326]; string(res.Structured) != want {
					t.Errorf("%s %s: structuredContent %s, want %q", v, transport, res.Structured, want)
				}
				// 2025-03-26 has no resource_link: its text fallback.
				if wantType := map[bool]string{true: "text", false: "resource_link"}[v == mcp.Version20250326]; res.Content[2].Type != wantType {
					t.Errorf("%s %s: third block %q, want %q", v, transport, res.Content[2].Type, wantType)
				}
			}
		}
	}
	// The limit counts the content array without its closing bracket, as
	// it did when the array was built first: at it, the result is sent;
	// a byte under, refused.
	size := 1 // "["
	for i, b := range []content.Block{content.Text(long + "a"), content.Image(picture, "image/png"), content.ResourceLink("x://notes/1", "note", "text/plain")} {
		if i > 0 {
			size++ // ","
		}
		size += len(b.JSON(false))
	}
	for limit, refused := range map[int64]bool{int64(size): false, int64(size - 1): true, 100_000: true} {
		limited := mcp.NewHandler(srv, []mcp.Era{era2025.New()}, mcp.WithLimits(mcp.Limits{ResponseBytes: limit}), mcp.WithLogger(slog.New(slog.DiscardHandler)))
		res := decodeTool(t)(mcptest.New(limited, mcp.Version20250618).CallTool(context.Background(), "large", map[string]string{"id": "a"}))
		if got := len(res.Content) == 1 && res.IsError && res.Content[0].Text == "The tool's response was too large."; got != refused {
			t.Errorf("limit %d (content %d bytes): refused %v, want %v", limit, size, got, refused)
		}
	}
}

// TestFunc_Streaming: a function's progress reaches a client that asked
// for it, as a route's does.
func TestFunc_Streaming(t *testing.T) {
	f := newFuncFixture(t)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"progress","arguments":{},"_meta":{"progressToken":"p1"}}}`
	req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(body))
	req.Header = http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"},
		"Mcp-Protocol-Version": {"2025-06-18"}, "Authorization": {"Bearer " + tokAlice}}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.WriteString(string(buf[:n]))
		if err != nil {
			break
		}
	}
	got := b.String()
	if resp.Header.Get("Content-Type") != "text/event-stream" || !strings.Contains(got, `"method":"notifications/progress"`) ||
		!strings.Contains(got, `{\"sent\":true}`) {
		t.Errorf("%s\n%s", resp.Header, got)
	}
}

// TestFunc_Definitions: the schemas come from the types, a type used twice
// is one $defs entry, and the output schema is sent from 2025-06-18 on.
func TestFunc_Definitions(t *testing.T) {
	f := newFuncFixture(t)
	for _, v := range funcEras {
		r, err := f.clients(v)["http"].Call(context.Background(), "tools/list", nil)
		if err != nil || r.Error != nil {
			t.Fatalf("%s: %v %s", v, err, r.Raw)
		}
		var list struct {
			Tools []struct {
				Name         string          `json:"name"`
				InputSchema  json.RawMessage `json:"inputSchema"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			} `json:"tools"`
		}
		json.Unmarshal(r.Result, &list)
		found := false
		for _, tool := range list.Tools {
			if tool.Name != "notes_add" {
				continue
			}
			found = true
			in := string(tool.InputSchema)
			if strings.Count(in, `"$defs"`) != 1 || strings.Count(in, `"#/$defs/fnAddress"`) != 2 || strings.Count(in, `"city":`) != 1 ||
				!strings.Contains(in, `"description":"The note's text"`) || !strings.Contains(in, `"required":["text"]`) {
				t.Errorf("%s input schema %s", v, in)
			}
			if (v == mcp.Version20250326) != (tool.OutputSchema == nil) {
				t.Errorf("%s output schema %s", v, tool.OutputSchema)
			}
		}
		if !found {
			t.Errorf("%s: notes_add not listed: %s", v, r.Result)
		}
	}
}

// TestFunc_Register: what registration refuses, with the field it names.
func TestFunc_Register(t *testing.T) {
	type tagged struct {
		N int `json:"n" mcp:"minLength=2"`
	}
	noop := func(ctx context.Context, in fnID) (fnNote, error) { return fnNote{}, nil }
	for _, tc := range []struct {
		name, want string
		add        func(s *mcp.Server)
	}{
		{"string output", "not a JSON object", func(s *mcp.Server) {
			mcp.AddToolFunc(s, mcp.Tool{Name: "x"}, func(ctx context.Context, in fnID) (string, error) { return "", nil })
		}},
		{"slice input", "not a JSON object", func(s *mcp.Server) {
			mcp.AddToolFunc(s, mcp.Tool{Name: "x"}, func(ctx context.Context, in []string) (fnNote, error) { return fnNote{}, nil })
		}},
		{"channel field", "chan int", func(s *mcp.Server) {
			mcp.AddToolFunc(s, mcp.Tool{Name: "x"}, func(ctx context.Context, in struct{ C chan int }) (fnNote, error) { return fnNote{}, nil })
		}},
		{"bad tag", "field tagged.n: mcp tag: minLength needs a string field", func(s *mcp.Server) {
			mcp.AddToolFunc(s, mcp.Tool{Name: "x"}, func(ctx context.Context, in tagged) (fnNote, error) { return fnNote{}, nil })
		}},
		{"given input lacks a field", `field id: the given schema has no property "id"`, func(s *mcp.Server) {
			mcp.AddToolFunc(s, mcp.Tool{Name: "x", InputSchema: json.RawMessage(`{"type":"object","properties":{"ident":{"type":"string"}}}`)}, noop)
		}},
		{"given input of another type", "field id: the given schema's type [integer]", func(s *mcp.Server) {
			mcp.AddToolFunc(s, mcp.Tool{Name: "x", InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"}}}`)}, noop)
		}},
		{"given output of another type", "field tags: the given schema's type [string]", func(s *mcp.Server) {
			mcp.AddToolFunc(s, mcp.Tool{Name: "x", OutputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"},"text":{"type":"string"},"tags":{"type":"string"},"meta":{},"parent":{},"owner":{},"workspace":{}}}`)}, noop)
		}},
		{"given output requires what may be left out", "field ship: the given schema requires it", func(s *mcp.Server) {
			// ship is a pointer with omitempty: nil is left out.
			mcp.AddToolFunc(s, mcp.Tool{Name: "x", OutputSchema: json.RawMessage(`{"type":"object","properties":{"text":{},"tags":{},"ship":{},"bill":{}},"required":["ship"]}`)},
				func(ctx context.Context, in fnID) (fnNoteIn, error) { return fnNoteIn{}, nil })
		}},
		{"given output refuses the null a pointer writes", "field parent: the given schema's type [object]", func(s *mcp.Server) {
			mcp.AddToolFunc(s, mcp.Tool{Name: "x", OutputSchema: json.RawMessage(`{"type":"object","properties":{"id":{},"text":{},"tags":{},"meta":{},"parent":{"type":"object"},"owner":{},"workspace":{}}}`)}, noop)
		}},
		{"placement", "WithPlacement applies to route tools", func(s *mcp.Server) {
			mcp.AddToolFunc(s, mcp.Tool{Name: "x"}, noop, mcp.WithPlacement(mcp.Placement{}))
		}},
		{"duplicate", "registered twice", func(s *mcp.Server) {
			mcp.AddToolFunc(s, mcp.Tool{Name: "x"}, noop)
			mcp.AddToolFunc(s, mcp.Tool{Name: "x"}, noop)
		}},
		{"nil function", "nil function", func(s *mcp.Server) { mcp.AddToolFunc[fnID, fnNote](s, mcp.Tool{Name: "x"}, nil) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				p := recover()
				if msg, _ := p.(string); !strings.Contains(msg, tc.want) {
					t.Errorf("panic %v, want one containing %q", p, tc.want)
				}
			}()
			tc.add(mcp.NewServer(mcp.Implementation{Name: "r", Version: "1"}))
		})
	}
	// A given schema that fits wins, and is what the client sees.
	srv := mcp.NewServer(mcp.Implementation{Name: "r", Version: "1"})
	given := `{"type":"object","properties":{"id":{"type":"string","description":"given"}},"required":["id"]}`
	mcp.AddToolFunc(srv, mcp.Tool{Name: "x", InputSchema: json.RawMessage(given)}, noop)
	h := mcp.NewHandler(srv, []mcp.Era{era2025.New()})
	r, _ := mcptest.New(h, mcp.Version20250618).Call(context.Background(), "tools/list", nil)
	if !strings.Contains(string(r.Result), `"inputSchema":`+given) {
		t.Errorf("given schema not sent: %s", r.Result)
	}
}

// TestFunc_Output: a result that fails its own constraints is never sent.
func TestFunc_Output(t *testing.T) {
	type level struct {
		Level string `json:"level" mcp:"enum=low|high"`
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "o", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "level"}, func(ctx context.Context, in level) (level, error) { return in, nil })
	mcp.AddToolFunc(srv, mcp.Tool{Name: "bad"}, func(ctx context.Context, in map[string]any) (level, error) { return level{"medium"}, nil })
	mcp.AddToolFunc(srv, mcp.Tool{Name: "nil"}, func(ctx context.Context, in map[string]any) (*level, error) { return nil, nil })
	// A given output schema with a constraint of its own is checked too.
	mcp.AddToolFunc(srv, mcp.Tool{Name: "short", OutputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string","maxLength":2}}}`)},
		func(ctx context.Context, in fnID) (fnID, error) { return in, nil })
	log := &syncBuffer{}
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithLogger(slog.New(slog.NewTextHandler(log, nil))))
	for _, v := range funcEras {
		c := mcptest.New(h, v)
		if res := decodeTool(t)(c.CallTool(context.Background(), "level", map[string]string{"level": "high"})); res.IsError || res.Content[0].Text != `{"level":"high"}` {
			t.Errorf("%s: %+v", v, res)
		}
		if res := decodeTool(t)(c.CallTool(context.Background(), "short", map[string]string{"id": "ab"})); res.IsError {
			t.Errorf("%s short: %+v", v, res)
		}
		for _, tool := range []string{"bad", "nil", "short"} {
			if res := decodeTool(t)(c.CallTool(context.Background(), tool, map[string]string{"id": "abc"})); !res.IsError || res.Content[0].Text != "The tool failed with an internal error." {
				t.Errorf("%s %s: %+v", v, tool, res)
			}
		}
	}
	// Valid for the schema, too large for the Go type: the client's
	// mistake, named, and the function never runs.
	type small struct {
		N int64 `json:"n"`
	}
	srv2 := mcp.NewServer(mcp.Implementation{Name: "o", Version: "1"})
	mcp.AddToolFunc(srv2, mcp.Tool{Name: "small"}, func(ctx context.Context, in small) (small, error) { panic("ran") })
	res := decodeTool(t)(mcptest.New(mcp.NewHandler(srv2, []mcp.Era{era2025.New()}), mcp.Version20250618).CallTool(context.Background(), "small", json.RawMessage(`{"n":100000000000000000000}`)))
	if !res.IsError || res.Content[0].Text != `Invalid arguments for tool small: a value does not fit "n"` {
		t.Errorf("%+v", res)
	}
	if !strings.Contains(log.String(), "does not match its outputSchema") || !strings.Contains(log.String(), "nil result") {
		t.Errorf("log: %s", log)
	}
}

// Eight types, each with eight fields of the next (the last of integers):
// 8^7 paths to the last type, which inlining would have written out each
// time (8^5 took 0.41 s, 8^6 more than 4 GB).
type (
	fnDeep0 struct{ A, B, C, D, E, F, G, H fnDeep1 }
	fnDeep1 struct{ A, B, C, D, E, F, G, H fnDeep2 }
	fnDeep2 struct{ A, B, C, D, E, F, G, H fnDeep3 }
	fnDeep3 struct{ A, B, C, D, E, F, G, H fnDeep4 }
	fnDeep4 struct{ A, B, C, D, E, F, G, H fnDeep5 }
	fnDeep5 struct{ A, B, C, D, E, F, G, H fnDeep6 }
	fnDeep6 struct{ A, B, C, D, E, F, G, H fnDeep7 }
	fnDeep7 struct{ A, B, C, D, E, F, G, H int }
)

// TestFunc_DeepTypes: registering a function over deeply nested, repeated
// types costs what its eight types cost.
func TestFunc_DeepTypes(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "deep", Version: "1"})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	mcp.AddToolFunc(srv, mcp.Tool{Name: "deep"}, func(ctx context.Context, in fnDeep0) (fnDeep0, error) { return in, nil })
	d := time.Since(start)
	runtime.ReadMemStats(&after)
	// Time is only a backstop on a loaded machine; the bytes are the claim.
	if kb := (after.TotalAlloc - before.TotalAlloc) >> 10; kb > 4096 || d > 2*time.Second {
		t.Errorf("registering allocated %d KB in %s", kb, d)
	} else {
		t.Logf("registering: %d KB, %s", kb, d)
	}
	h := mcp.NewHandler(srv, []mcp.Era{era2025.New()})
	r, err := mcptest.New(h, mcp.Version20250618).Call(context.Background(), "tools/list", nil)
	if err != nil || len(r.Raw) > 8192 {
		t.Fatalf("%v: a %d-byte list", err, len(r.Raw))
	}
	if n := strings.Count(string(r.Result), `"type":"object"`); n != 16 {
		t.Errorf("%d object schemas, want 8 in each of the two schemas: %s", n, r.Result)
	}
}

type fnGreetArgs struct {
	Name  string  `json:"name" jsonschema:"Who to greet"`
	Times int     `json:"times,omitempty"`
	Tone  *string `json:"tone"`
}

type fnNoteVars struct {
	Folder string `json:"folder"`
	ID     int    `json:"id"`
}

// TestFunc_PromptsAndTemplates: a prompt's arguments and a template's URI
// variables decoded into structs, in every era.
func TestFunc_PromptsAndTemplates(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "pt", Version: "1"})
	mcp.AddPromptFunc(srv, mcp.Prompt{Name: "greet"}, func(ctx context.Context, a fnGreetArgs) (*mcp.PromptResult, error) {
		tone := "plain"
		if a.Tone != nil {
			tone = *a.Tone
		}
		who := auth.FromContext(ctx).Subject
		text := fmt.Sprintf("greet %s x%d (%s) for %s", a.Name, a.Times, tone, who)
		return &mcp.PromptResult{Messages: []mcp.PromptMessage{{Role: content.User, Content: content.Text(text)}}}, nil
	})
	mcp.AddTemplateFunc(srv, mcp.ResourceTemplate{URITemplate: "notes://{folder}/{id}", Name: "note"},
		func(ctx context.Context, v fnNoteVars) (fnNote, error) {
			if v.ID == 404 {
				return fnNote{}, fmt.Errorf("note %d: %w", v.ID, fs.ErrNotExist)
			}
			if v.ID == 500 {
				return fnNote{}, errors.New("db password=hunter2")
			}
			return fnNote{ID: strconv.Itoa(v.ID), Text: v.Folder, Owner: auth.FromContext(ctx).Subject}, nil
		})
	mcp.AddTemplateFunc(srv, mcp.ResourceTemplate{URITemplate: "text://{folder}", Name: "text", MIMEType: "text/markdown"},
		func(ctx context.Context, v struct {
			Folder string `json:"folder"`
		}) (string, error) {
			return "# " + v.Folder, nil
		})
	log := &syncBuffer{}
	authn := auth.New(auth.Config{Verifier: auth.VerifierFunc(testVerifier), Resource: resourceURI})
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithAuth(authn), mcp.WithLogger(slog.New(slog.NewTextHandler(log, nil))))
	ctx := context.Background()
	for _, v := range funcEras {
		c := mcptest.New(h, v, mcptest.WithHeader("Authorization", "Bearer "+tokAlice))
		r, err := c.Call(ctx, "prompts/list", nil)
		if err != nil || !strings.Contains(string(r.Result), `"arguments":[{"name":"name","description":"Who to greet","required":true},{"name":"times","required":false},{"name":"tone","required":false}]`) {
			t.Errorf("%s prompts/list: %v %s", v, err, r.Raw)
		}
		for _, tc := range []struct {
			args map[string]string
			want string // in the result, or the error code
		}{
			{map[string]string{"name": "Ada", "times": "2", "tone": "warm"}, "greet Ada x2 (warm) for alice"},
			{map[string]string{"name": "Ada"}, "greet Ada x0 (plain) for alice"},
			{map[string]string{"name": "Ada", "times": "two"}, "-32602"},
			{map[string]string{"times": "2"}, "-32602"},
		} {
			r, err := c.GetPrompt(ctx, "greet", tc.args)
			got := string(r.Result)
			if r.Error != nil {
				got = strconv.Itoa(int(r.Error.Code))
			}
			if err != nil || !strings.Contains(got, tc.want) {
				t.Errorf("%s prompts/get %v: %v %s", v, tc.args, err, r.Raw)
			}
		}
		notFound := "-32002"
		if v == mcp.Version20260728 {
			notFound = "-32602"
		}
		for _, tc := range []struct{ uri, want string }{
			{"notes://inbox/7", `"contents":[{"uri":"notes://inbox/7","mimeType":"application/json","text":"{\"id\":\"7\",\"text\":\"inbox\",\"tags\":null,\"meta\":null,\"parent\":null,\"owner\":\"alice\",\"workspace\":\"\"}"}]`},
			{"text://a%20b", `"contents":[{"uri":"text://a%20b","mimeType":"text/markdown","text":"# a b"}]`},
			{"notes://inbox/seven", notFound},
			{"notes://inbox/404", notFound},
			{"notes://inbox/500", "-32603"},
		} {
			r, err := c.ReadResource(ctx, tc.uri)
			got := string(r.Result)
			if r.Error != nil {
				got = strconv.Itoa(int(r.Error.Code))
			}
			if err != nil || !strings.Contains(got, tc.want) || strings.Contains(string(r.Raw), "hunter2") {
				t.Errorf("%s resources/read %s: %v %s", v, tc.uri, err, r.Raw)
			}
		}
	}
	if !strings.Contains(log.String(), `msg="mcp: resource function failed" uri=notes://inbox/500`) {
		t.Errorf("log: %s", log)
	}
	for name, add := range map[string]func(){
		"a field that is no variable": func() {
			mcp.AddTemplateFunc(srv, mcp.ResourceTemplate{URITemplate: "x://{a}", Name: "x"}, func(ctx context.Context, v fnNoteVars) (string, error) { return "", nil })
		},
		"a float argument": func() {
			mcp.AddPromptFunc(srv, mcp.Prompt{Name: "p"}, func(ctx context.Context, a struct{ F float64 }) (*mcp.PromptResult, error) { return nil, nil })
		},
		"a declared argument that is no field": func() {
			mcp.AddPromptFunc(srv, mcp.Prompt{Name: "p", Arguments: []mcp.PromptArgument{{Name: "name"}, {Name: "times"}, {Name: "tone"}, {Name: "x"}}},
				func(ctx context.Context, a fnGreetArgs) (*mcp.PromptResult, error) { return nil, nil })
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: registered", name)
				}
			}()
			add()
		}()
	}
}

// TestFunc_ObservedAndCanceled: a function call is the request the
// observer sees, and its context ends when the client goes away.
func TestFunc_ObservedAndCanceled(t *testing.T) {
	entered, ended := make(chan struct{}), make(chan error, 1)
	srv := mcp.NewServer(mcp.Implementation{Name: "oc", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "wait"}, func(ctx context.Context, in fnEmpty) (fnEmpty, error) {
		close(entered)
		<-ctx.Done()
		ended <- ctx.Err()
		return fnEmpty{}, ctx.Err()
	})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "refuse"}, func(ctx context.Context, in fnEmpty) (fnEmpty, error) {
		return fnEmpty{}, mcp.NewToolError("refused")
	})
	access := &syncBuffer{}
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithLogger(slog.New(slog.DiscardHandler)),
		mcp.WithObserver(observe.AccessLog(slog.New(slog.NewTextHandler(access, nil)))))
	url := newTestServer(t, h)
	res := decodeTool(t)(mcptest.Dial(url, mcp.Version20260728).CallTool(context.Background(), "refuse", nil))
	if !res.IsError || !strings.Contains(access.String(), "method=tools/call") || !strings.Contains(access.String(), "target=refuse") ||
		!strings.Contains(access.String(), "toolError=true") {
		t.Errorf("%+v\n%s", res, access)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-entered; cancel() }()
	if _, err := mcptest.Dial(url, mcp.Version20250618).CallTool(ctx, "wait", nil); err == nil {
		t.Error("the call answered")
	}
	select {
	case err := <-ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the function's context ended with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("the function's context did not end when the client went away")
	}
}

// TestFunc_ResponseLimit: what a function returns is bounded like what a
// route writes.
func TestFunc_ResponseLimit(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "l", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "big"}, func(ctx context.Context, in fnID) (fnID, error) {
		return fnID{ID: strings.Repeat(in.ID, 100)}, nil
	})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "blocks"}, func(ctx context.Context, in fnID) (*mcp.ToolResult, error) {
		return &mcp.ToolResult{Content: []content.Block{content.Text(strings.Repeat(in.ID, 100))}}, nil
	})
	mcp.AddTemplateFunc(srv, mcp.ResourceTemplate{URITemplate: "big://{id}", Name: "big"}, func(ctx context.Context, v fnID) (string, error) {
		return strings.Repeat(v.ID, 100), nil
	})
	log := &syncBuffer{}
	h := mcp.NewHandler(srv, []mcp.Era{era2025.New()}, mcp.WithLimits(mcp.Limits{ResponseBytes: 300}), mcp.WithLogger(slog.New(slog.NewTextHandler(log, nil))))
	c := mcptest.New(h, mcp.Version20250618)
	for _, tool := range []string{"big", "blocks"} {
		if res := decodeTool(t)(c.CallTool(context.Background(), tool, map[string]string{"id": "a"})); res.IsError {
			t.Errorf("%s: 100 bytes: %+v", tool, res)
		}
		if res := decodeTool(t)(c.CallTool(context.Background(), tool, map[string]string{"id": "abcd"})); !res.IsError || res.Content[0].Text != "The tool's response was too large." {
			t.Errorf("%s: 400 bytes: %+v", tool, res)
		}
	}
	if r, err := c.ReadResource(context.Background(), "big://abcd"); err != nil || r.Error == nil || r.Error.Code != -32603 {
		t.Errorf("resource over the limit: %v %s", err, r.Raw)
	}
	if n := strings.Count(log.String(), "over the size limit"); n != 3 {
		t.Errorf("%d log lines:\n%s", n, log)
	}
}

// TestConfirmWithInput_Route: ConfirmWithInput words a route tool's
// question from its decoded arguments too.
func TestConfirmWithInput_Route(t *testing.T) {
	var ran atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("DELETE /notes/{id}", func(w http.ResponseWriter, r *http.Request) { ran.Add(1) })
	srv := mcp.NewServer(mcp.Implementation{Name: "c", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "notes_delete", Annotations: mcp.Annotations{Destructive: true},
		InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)}, "DELETE /notes/{id}", mux,
		mcp.ConfirmWithInput(func(ctx context.Context, in fnID) (string, error) {
			if in.ID == "locked" {
				return "", errors.New("note locked is locked")
			}
			return "Delete " + mcp.Quote(in.ID) + "?", nil
		}))
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New()})
	c := mcptest.New(h, mcp.Version20260728, mcptest.WithCapabilities(json.RawMessage(`{"elicitation":{}}`)))
	r, err := c.CallTool(context.Background(), "notes_delete", map[string]string{"id": "n7"})
	if err != nil || r.ResultType() != "input_required" || !strings.Contains(string(r.Result), `Delete \"n7\"?`) {
		t.Errorf("%v %s", err, r.Raw)
	}
	res := decodeTool(t)(c.CallTool(context.Background(), "notes_delete", map[string]string{"id": "locked"}))
	if !res.IsError || res.Content[0].Text != "Not executed: note locked is locked" {
		t.Errorf("%+v", res)
	}
	if ran.Load() != 0 {
		t.Error("the route ran before any confirmation")
	}
}

// TestFunc_Battery: the public test kit's battery over function tools,
// each read-only one called with an example in every revision and its
// result checked against its derived output schema.
func TestFunc_Battery(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "battery", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "notes_add", Description: "Adds a note."}, func(ctx context.Context, in fnNoteIn) (fnNote, error) {
		return fnNote{ID: "n1", Text: in.Text, Tags: in.Tags}, nil
	})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "notes_find", Description: "Finds notes.", Annotations: mcp.Annotations{ReadOnly: true}},
		func(ctx context.Context, in fnNoteIn) (fnNote, error) {
			return fnNote{ID: "n1", Text: in.Text, Tags: in.Tags, Parent: in.Ship}, nil
		})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "tree", Description: "Echoes a tree.", Annotations: mcp.Annotations{ReadOnly: true}},
		func(ctx context.Context, in tree) (tree, error) { return in, nil })
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
	mcptest.Run(t, h, mcptest.WithToolExamples(map[string]any{
		"notes_find": map[string]any{"text": "hi", "ship": map[string]string{"city": "Porto", "country": "PT"}},
		"tree":       map[string]any{"name": "a", "kids": []any{map[string]any{"name": "b"}}},
	}), mcptest.Strict())
}

// tree is a recursive function argument and result.
type tree struct {
	Name string  `json:"name"`
	Kids []*tree `json:"kids,omitempty"`
}

// TestFunc_TemplateTwiceOnCheck: Check and Register refuse a template a
// function reads whose URI template s already holds, whether a route or
// a function reads the one s holds.
func TestFunc_TemplateTwiceOnCheck(t *testing.T) {
	read := func(ctx context.Context, v fnID) (string, error) { return "", nil }
	srv := mcp.NewServer(mcp.Implementation{Name: "twice", Version: "1"})
	mcp.AddTemplateFunc(srv, mcp.ResourceTemplate{URITemplate: "fn://{id}", Name: "fn"}, read)
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "route://{id}", Name: "route"}, "GET /r/{id}",
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	for _, uri := range []string{"fn://{id}", "route://{id}"} {
		err := srv.Check(func(v *mcp.Server) {
			mcp.AddTemplateFunc(v, mcp.ResourceTemplate{URITemplate: uri, Name: "again"}, read)
		})
		if err == nil || !strings.Contains(err.Error(), "registered twice") {
			t.Errorf("Check of a second %s: %v", uri, err)
		}
	}
}

// TestFunc_TemplateBlob: a template function returning []byte answers a
// blob, base64, of application/octet-stream; a nil slice an empty blob,
// not text.
func TestFunc_TemplateBlob(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "blob", Version: "1"})
	mcp.AddTemplateFunc(srv, mcp.ResourceTemplate{URITemplate: "bin://{id}", Name: "bin"}, func(ctx context.Context, v fnID) ([]byte, error) {
		if v.ID == "none" {
			return nil, nil
		}
		return []byte("\x00\xffhi"), nil
	})
	h := mcp.NewHandler(srv, []mcp.Era{era2025.New()})
	c := mcptest.New(h, mcp.Version20250618)
	for uri, want := range map[string]string{
		"bin://some": `{"contents":[{"uri":"bin://some","mimeType":"application/octet-stream","blob":"AP9oaQ=="}]}`,
		"bin://none": `{"contents":[{"uri":"bin://none","mimeType":"application/octet-stream","blob":""}]}`,
	} {
		r, err := c.ReadResource(context.Background(), uri)
		if err != nil || string(r.Result) != want {
			t.Errorf("resources/read %s: %v %s, want %s", uri, err, r.Raw, want)
		}
	}
}

// TestFunc_TemplateVariableNoField: a template variable that no field
// takes is refused, the first such in the template named.
func TestFunc_TemplateVariableNoField(t *testing.T) {
	srv := mcp.NewServer(mcp.Implementation{Name: "vars", Version: "1"})
	for range 5 { // the name was once drawn from a map
		err := srv.Check(func(v *mcp.Server) {
			mcp.AddTemplateFunc(v, mcp.ResourceTemplate{URITemplate: "x://{id}/{b}/{c}", Name: "x"},
				func(ctx context.Context, v fnID) (string, error) { return "", nil })
		})
		if err == nil || !strings.Contains(err.Error(), "variable {b} is no field") {
			t.Fatalf("Check: %v", err)
		}
	}
}

// TestFunc_OutputMapMembers: a given outputSchema that closes an object
// the function writes as a map is checked on every result: a member it
// forbids is never sent.
func TestFunc_OutputMapMembers(t *testing.T) {
	type counts struct {
		M map[string]int `json:"m"`
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "maps", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "counts", OutputSchema: json.RawMessage(`{"type":"object","properties":{"m":{"type":"object","additionalProperties":false}},"required":["m"]}`)},
		func(ctx context.Context, in fnEmpty) (counts, error) { return counts{M: map[string]int{"a": 1}}, nil })
	log := &syncBuffer{}
	h := mcp.NewHandler(srv, []mcp.Era{era2025.New()}, mcp.WithLogger(slog.New(slog.NewTextHandler(log, nil))))
	r, err := mcptest.New(h, mcp.Version20250618).Call(context.Background(), "tools/call", map[string]any{"name": "counts", "arguments": map[string]any{}})
	if err != nil || strings.Contains(string(r.Result), "structuredContent") || !strings.Contains(string(r.Result), `"isError":true`) {
		t.Errorf("%v %s", err, r.Raw)
	}
	if !strings.Contains(log.String(), "does not match its outputSchema") {
		t.Errorf("log: %s", log)
	}
}

type hostIn struct {
	Host string `json:"host"`
}

// TestFunc_ParamHeaderImitation: a function tool decodes its arguments
// with encoding/json, which takes a member whose name differs only in
// case (ſ and the Kelvin sign included) for the field, the last one
// winning. Beside the mirrored argument, such a member would have run the
// function with a value Mcp-Param-Host was never checked against; it is
// refused with -32020, and the function does not run.
func TestFunc_ParamHeaderImitation(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Implementation{Name: "imitation", Version: "1"})
	var ran atomic.Int64
	mcp.AddToolFunc(srv, mcp.Tool{Name: "where", Description: "d",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"host":{"type":"string","x-mcp-header":"Host"}}}`)},
		func(_ context.Context, in hostIn) (map[string]string, error) {
			ran.Add(1)
			return map[string]string{"host": in.Host}, nil
		})
	ts := httptest.NewServer(mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}))
	t.Cleanup(ts.Close)
	f := &fixture{url: ts.URL}
	for _, args := range []string{
		`{"host":"a.example","Host":"b.example"}`,
		`{"host":"a.example","hoſt":"b.example"}`, // ſ, U+017F
		`{"HOST":"b.example"}`,                    // no header is expected for an absent host
	} {
		hdr := map[string]string{"Mcp-Param-Host": "a.example"}
		if !strings.Contains(args, `"host"`) {
			hdr = map[string]string{}
		}
		r := f.do(t, call{era: mcp.Version20260728, id: "1", method: "tools/call", params: `"name":"where","arguments":` + args, header: hdr})
		check(t, r, want{status: 400, code: -32020, id: "1", proto: "2026-07-28"})
		if !strings.Contains(string(r.raw), `"reason":"ambiguous"`) {
			t.Errorf("%s: %s", args, r.raw)
		}
	}
	if n := ran.Load(); n != 0 {
		t.Errorf("the function ran %d times", n)
	}
	r := f.do(t, call{era: mcp.Version20260728, id: "1", method: "tools/call", params: `"name":"where","arguments":{"host":"a.example"}`,
		header: map[string]string{"Mcp-Param-Host": "a.example"}})
	check(t, r, want{status: 200, id: "1", proto: "2026-07-28"})
}

type bigOut struct {
	N json.Number `json:"n"`
}

// TestFunc_OutputNumberPastTheBound: a function's output is validated
// against its outputSchema under the bound that keeps the validator safe
// from a client's numbers (jsonrpc.ErrNumberTooLarge): a number past it
// cannot be checked, so the call fails as an output that does not
// conform would, and the log says why.
func TestFunc_OutputNumberPastTheBound(t *testing.T) {
	t.Parallel()
	log := &syncBuffer{}
	srv := mcp.NewServer(mcp.Implementation{Name: "big", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "big", Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"number","minimum":0}}}`)},
		func(context.Context, struct{}) (bigOut, error) {
			return bigOut{N: json.Number("1" + strings.Repeat("0", 450))}, nil
		})
	ts := httptest.NewServer(mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithLogger(slog.New(slog.NewTextHandler(log, nil)))))
	t.Cleanup(ts.Close)
	f := &fixture{url: ts.URL}
	r := f.do(t, call{era: mcp.Version20260728, id: "1", method: "tools/call", params: `"name":"big","arguments":{}`})
	check(t, r, want{status: 200, id: "1", proto: "2026-07-28"})
	if text, isErr := resultText(t, map[string]any{"result": r.result(t)}); !isErr {
		t.Errorf("an output past the bound: %q, not an error", text)
	}
	if !strings.Contains(log.String(), "holds a number the outputSchema cannot be checked against") {
		t.Errorf("log: %s", log.String())
	}
}
