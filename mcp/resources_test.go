package mcp_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/content"
)

var png = []byte{0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a, 0xff}

type rpFixture struct {
	url       string
	emailHits atomic.Int64
	rawHits   atomic.Int64
	lastID    atomic.Value
	lastQuery atomic.Value
}

func newRPFixture(t testing.TB, opts ...mcp.HandlerOption) *rpFixture {
	t.Helper()
	f := &rpFixture{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /docs/readme", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "Hello, reader.")
	})
	mux.HandleFunc("GET /docs/logo", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(png)
	})
	mux.HandleFunc("GET /docs/multi", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", mcp.ResourceContentsMediaType)
		io.WriteString(w, `{"contents":[{"uri":"inbox://multi#a","mimeType":"text/plain","text":"a"},{"uri":"inbox://multi#b","blob":"AAE="}]}`)
	})
	mux.HandleFunc("GET /docs/badmulti", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", mcp.ResourceContentsMediaType)
		io.WriteString(w, `{"contents":[]}`)
	})
	status := func(code int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(code)
			io.WriteString(w, `{"error":"db password=hunter2"}`)
		}
	}
	mux.HandleFunc("GET /docs/gone", status(404))
	mux.HandleFunc("GET /docs/forbidden", status(403))
	mux.HandleFunc("GET /docs/bad", status(400))
	mux.HandleFunc("GET /docs/err", status(500))
	mux.HandleFunc("GET /docs/panic", func(w http.ResponseWriter, r *http.Request) { panic("boom") })
	mux.HandleFunc("GET /emails/{id}", func(w http.ResponseWriter, r *http.Request) {
		f.emailHits.Add(1)
		f.lastID.Store(r.PathValue("id"))
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"id": r.PathValue("id")})
	})
	mux.HandleFunc("GET /emails/{id}/raw", func(w http.ResponseWriter, r *http.Request) {
		f.rawHits.Add(1)
		io.WriteString(w, "secret raw")
	})
	mux.HandleFunc("GET /search", func(w http.ResponseWriter, r *http.Request) {
		f.lastQuery.Store(r.URL.RawQuery)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"results":[]}`)
	})

	srv := mcp.NewServer(mcp.Implementation{Name: "rp", Title: "RP", Version: "1.0.0"}, mcp.WithPageSize(2))
	add := func(uri, name, title, route string) {
		srv.AddResource(mcp.Resource{URI: uri, Name: name, Title: title, Description: name + " doc", MIMEType: "text/plain"}, route, mux)
	}
	add("inbox://readme", "readme", "Read me", "GET /docs/readme")
	add("inbox://logo", "logo", "", "GET /docs/logo")
	add("inbox://multi", "multi", "", "GET /docs/multi")
	add("inbox://badmulti", "badmulti", "", "GET /docs/badmulti")
	add("inbox://gone", "gone", "", "GET /docs/gone")
	add("inbox://forbidden", "forbidden", "", "GET /docs/forbidden")
	add("inbox://bad", "bad", "", "GET /docs/bad")
	add("inbox://err", "err", "", "GET /docs/err")
	add("inbox://panic", "panic", "", "GET /docs/panic")
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "inbox://emails/{id}", Name: "email", Title: "An email", MIMEType: "application/json"},
		"GET /emails/{id}", mux, mcp.WithCompletion("id", func(ctx context.Context, value string, args map[string]string) ([]string, error) {
			return []string{value + "1", value + "2"}, nil
		}))
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "inbox://search/{q}/{page}", Name: "search"}, "GET /search", mux)

	text := func(s string) *mcp.PromptResult {
		return &mcp.PromptResult{Messages: []mcp.PromptMessage{{Role: content.User, Content: content.Text(s)}}}
	}
	srv.AddPrompt(mcp.Prompt{Name: "simple", Title: "Simple", Description: "No arguments."},
		func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
			return text("Say hello."), nil
		})
	srv.AddPrompt(mcp.Prompt{Name: "with_args", Description: "Two arguments.", Arguments: []mcp.PromptArgument{
		{Name: "arg1", Title: "First", Description: "the first", Required: true}, {Name: "arg2"}}},
		func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
			return text(fmt.Sprintf("arg1=%s arg2=%s n=%d", args["arg1"], args["arg2"], len(args))), nil
		},
		mcp.WithCompletion("arg1", func(ctx context.Context, value string, args map[string]string) ([]string, error) {
			var out []string
			for i := range 150 {
				out = append(out, fmt.Sprintf("%s%03d%s", value, i, args["arg2"]))
			}
			return out, nil
		}))
	srv.AddPrompt(mcp.Prompt{Name: "rich", Description: "All content kinds."},
		func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
			return &mcp.PromptResult{Description: "rich", Messages: []mcp.PromptMessage{
				{Role: content.User, Content: content.EmbeddedText("inbox://readme", "text/plain", "Hello")},
				{Role: content.User, Content: content.Image(png, "image/png")},
				{Role: content.Assistant, Content: content.Audio([]byte("RIFF"), "audio/wav")},
				{Role: content.User, Content: content.EmbeddedBlob("inbox://logo", "image/png", png)},
				{Role: content.User, Content: content.ResourceLink("inbox://readme", "readme", "text/plain")},
			}}, nil
		})
	mux.HandleFunc("GET /prompts/routed", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("topic") == "missing" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"description":"routed", "messages":[{"role":"user","content":{"type":"text", "text":%q}},`+
			`{"role":"assistant","content":{"type":"resource_link","uri":"inbox://readme","name":"readme"}}]}`, "About "+r.URL.Query().Get("topic"))
	})
	srv.AddPromptRoute(mcp.Prompt{Name: "routed", Arguments: []mcp.PromptArgument{{Name: "topic", Required: true}}}, "GET /prompts/routed", mux)
	srv.AddPrompt(mcp.Prompt{Name: "fails"}, func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
		return nil, errors.New("template store down, password=hunter2")
	})
	srv.AddPrompt(mcp.Prompt{Name: "refuses"}, func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
		return nil, mcp.NewError(mcp.CodeInvalidParams, "Invalid params: not today")
	})
	srv.AddPrompt(mcp.Prompt{Name: "ask"}, func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
		call := mcp.CallFromContext(ctx)
		if a, ok := call.Elicitation("user_context"); ok {
			return text("context: " + string(a.Content) + " state: " + string(call.State())), nil
		}
		call.RequireInput([]byte("p1"), mcp.ElicitForm("user_context", "Context?", json.RawMessage(`{"type":"object","properties":{"c":{"type":"string"}}}`)))
		return nil, nil
	})
	opts = append([]mcp.HandlerOption{mcp.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))}, opts...)
	ts := httptest.NewServer(mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, opts...))
	t.Cleanup(ts.Close)
	f.url = ts.URL
	return f
}

// rpc sends method with raw params members in era and returns the reply.
func (f *rpFixture) rpc(t testing.TB, era mcp.Version, method, params string) *reply {
	t.Helper()
	c := rt{era: era, method: method, id: 5}
	name := ""
	var p map[string]json.RawMessage
	json.Unmarshal([]byte("{"+params+"}"), &p)
	if v, ok := p["uri"]; ok && method == "resources/read" {
		json.Unmarshal(v, &name)
	}
	if v, ok := p["name"]; ok && method == "prompts/get" {
		json.Unmarshal(v, &name)
	}
	body := c.body()
	if params != "" {
		if strings.HasSuffix(body, "{}}") {
			body = strings.TrimSuffix(body, "{}}") + "{" + params + "}}"
		} else {
			body = strings.TrimSuffix(body, "}}") + "," + params + "}}"
		}
	}
	req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", string(era))
	if era == mcp.Version20260728 {
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", headers.Encode(name))
		}
	}
	r := send(t, req)
	checkCommon(t, r)
	return r
}

func (r *reply) field(t testing.TB, name string) json.RawMessage {
	t.Helper()
	if r.status != 200 || r.code() != 0 {
		t.Fatalf("want a result: %d %s", r.status, r.raw)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(r.msg.Result, &m); err != nil {
		t.Fatalf("result %s: %v", r.msg.Result, err)
	}
	return m[name]
}

func checkErr(t testing.TB, r *reply, status, code int, data string) {
	t.Helper()
	if r.status != status || r.code() != code {
		t.Fatalf("got %d %d, want %d %d: %s", r.status, r.code(), status, code, r.raw)
	}
	if data != "" && string(r.msg.Error.Data) != data {
		t.Errorf("data %s, want %s", r.msg.Error.Data, data)
	}
	if string(r.msg.ID) != "5" {
		t.Errorf("id %s", r.msg.ID)
	}
}

func TestResources_List(t *testing.T) {
	t.Parallel()
	f := newRPFixture(t)
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			var all []string
			cursor := ""
			scopes := map[string]bool{}
			for page := 0; page < 10; page++ {
				params := ""
				if cursor != "" {
					params = `"cursor":` + quoteJSON(cursor)
				}
				r := f.rpc(t, era, "resources/list", params)
				var res struct {
					Resources []map[string]any `json:"resources"`
					Next      string           `json:"nextCursor"`
					Scope     string           `json:"cacheScope"`
					TTL       *int64           `json:"ttlMs"`
				}
				json.Unmarshal(r.field(t, "resources"), &res.Resources)
				json.Unmarshal(r.msg.Result, &res)
				for _, item := range res.Resources {
					all = append(all, item["uri"].(string))
					if _, has := item["title"]; has && era == mcp.Version20250326 {
						t.Errorf("2025-03-26 item has a title: %v", item)
					}
					if item["uri"] == "inbox://readme" && era != mcp.Version20250326 && item["title"] != "Read me" {
						t.Errorf("title missing: %v", item)
					}
					if item["name"] == nil || item["mimeType"] != "text/plain" {
						t.Errorf("item %v", item)
					}
				}
				if era == mcp.Version20260728 {
					if res.TTL == nil {
						t.Error("no ttlMs")
					}
					scopes[res.Scope] = true
				}
				if cursor = res.Next; cursor == "" {
					break
				}
			}
			want := "inbox://readme inbox://logo inbox://multi inbox://badmulti inbox://gone inbox://forbidden inbox://bad inbox://err inbox://panic"
			if strings.Join(all, " ") != want {
				t.Errorf("listed %v", all)
			}
			if era == mcp.Version20260728 && (len(scopes) != 1 || !scopes["private"]) {
				t.Errorf("cacheScope per page: %v", scopes)
			}

			r := f.rpc(t, era, "resources/templates/list", "")
			if got := string(r.field(t, "resourceTemplates")); era == mcp.Version20250326 && got != `[{"uriTemplate":"inbox://emails/{id}","name":"email","mimeType":"application/json"},{"uriTemplate":"inbox://search/{q}/{page}","name":"search"}]` ||
				era != mcp.Version20250326 && got != `[{"uriTemplate":"inbox://emails/{id}","name":"email","title":"An email","mimeType":"application/json"},{"uriTemplate":"inbox://search/{q}/{page}","name":"search"}]` {
				t.Errorf("templates %s", got)
			}
		})
	}
}

func TestResources_BadCursor(t *testing.T) {
	t.Parallel()
	f := newRPFixture(t)
	for _, era := range eras {
		next := f.rpc(t, era, "prompts/list", "")
		var p struct {
			Next string `json:"nextCursor"`
		}
		json.Unmarshal(next.msg.Result, &p)
		if p.Next == "" {
			t.Fatal("prompts/list has one page; the test needs two")
		}
		for name, c := range map[string]string{
			"prompts cursor on resources": quoteJSON(p.Next),
			"forged":                      quoteJSON(base64.RawURLEncoding.EncodeToString([]byte("resources|2|000000000000"))),
			"garbage":                     `"%%%"`,
			"number":                      `3`,
		} {
			r := f.rpc(t, era, "resources/list", `"cursor":`+c)
			if r.status != 200 || r.code() != -32602 {
				t.Errorf("%s %s: %d %s", era, name, r.status, r.raw)
			}
		}
	}
}

func TestResources_Read(t *testing.T) {
	t.Parallel()
	f := newRPFixture(t)
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			read := func(uri string) *reply { return f.rpc(t, era, "resources/read", `"uri":`+quoteJSON(uri)) }
			if got := string(read("inbox://readme").field(t, "contents")); got != `[{"uri":"inbox://readme","mimeType":"text/plain","text":"Hello, reader."}]` {
				t.Errorf("text: %s", got)
			}
			if got := string(read("inbox://logo").field(t, "contents")); got != `[{"uri":"inbox://logo","mimeType":"image/png","blob":"`+base64.StdEncoding.EncodeToString(png)+`"}]` {
				t.Errorf("blob: %s", got)
			}
			if got := string(read("inbox://multi").field(t, "contents")); got != `[{"uri":"inbox://multi#a","mimeType":"text/plain","text":"a"},{"uri":"inbox://multi#b","blob":"AAE="}]` {
				t.Errorf("multi: %s", got)
			}
			r := read("inbox://emails/e-1")
			if got := string(r.field(t, "contents")); got != `[{"uri":"inbox://emails/e-1","mimeType":"application/json","text":"{\"id\":\"e-1\"}\n"}]` {
				t.Errorf("template: %s", got)
			}
			if era == mcp.Version20260728 {
				res := r.result(t)
				if res["ttlMs"] == nil || res["cacheScope"] != "private" || res["resultType"] != "complete" {
					t.Errorf("stamp %v", res)
				}
			}
			read("inbox://search/hello%20world/2").field(t, "contents")
			if q, _ := f.lastQuery.Load().(string); q != "page=2&q=hello+world" {
				t.Errorf("query %q", q)
			}

			notFound := `-32002`
			if era == mcp.Version20260728 {
				notFound = `-32602`
			}
			nf := func(uri string) {
				t.Helper()
				r := read(uri)
				data, _ := json.Marshal(map[string]string{"uri": uri})
				checkErr(t, r, 200, atoi(notFound), string(data))
				if r.msg.Error.Message != "Resource not found" {
					t.Errorf("message %q", r.msg.Error.Message)
				}
			}
			nf("inbox://nonexistent")
			nf("inbox://gone")
			nf("inbox://forbidden")
			nf("test://nonexistent-resource-for-conformance-testing")
			checkErr(t, read("inbox://bad"), 200, -32602, `{"status":400,"uri":"inbox://bad"}`)
			checkErr(t, read("inbox://err"), 200, -32603, "")
			checkErr(t, read("inbox://panic"), 200, -32603, "")
			checkErr(t, read("inbox://badmulti"), 200, -32603, "")
			for _, params := range []string{`"uri":1`, `"uri":""`, ``} {
				if r := f.rpc(t, era, "resources/read", params); r.code() != -32602 && r.code() != -32020 {
					t.Errorf("params %s: %s", params, r.raw)
				}
			}
		})
	}
}

func atoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}

// TestResources_HostileVariables: a template variable can never reach
// another route.
func TestResources_HostileVariables(t *testing.T) {
	t.Parallel()
	f := newRPFixture(t)
	for _, era := range eras {
		notFound := -32002
		if era == mcp.Version20260728 {
			notFound = -32602
		}
		for _, uri := range []string{"inbox://emails/..", "inbox://emails/%2e%2e", "inbox://emails/.", "inbox://emails/",
			"inbox://emails/a/raw", "inbox://emails/%zz", "inbox://emails/" + strings.Repeat("a", 3000), "inbox://emails/a?x=1",
			"inbox://emails/a#raw", "inbox://emails/%ff"} {
			r := f.rpc(t, era, "resources/read", `"uri":`+quoteJSON(uri))
			if r.code() != notFound {
				t.Errorf("%s %q: %s", era, uri, r.raw)
			}
		}
		// Escaped characters reach the one route as one segment.
		for uri, id := range map[string]string{"inbox://emails/a%2Fraw": "a/raw", "inbox://emails/%2E%2E%2Fx": "../x", "inbox://emails/a%3Fb": "a?b"} {
			r := f.rpc(t, era, "resources/read", `"uri":`+quoteJSON(uri))
			if r.code() != 0 || f.lastID.Load() != id {
				t.Errorf("%s %q: id %v, %s", era, uri, f.lastID.Load(), r.raw)
			}
		}
	}
	if f.rawHits.Load() != 0 {
		t.Errorf("the raw route was reached %d times", f.rawHits.Load())
	}
}

func TestPrompts(t *testing.T) {
	t.Parallel()
	f := newRPFixture(t)
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			get := func(params string) *reply { return f.rpc(t, era, "prompts/get", params) }
			r := f.rpc(t, era, "prompts/list", "")
			first := string(r.field(t, "prompts"))
			wantFirst := `[{"name":"simple","title":"Simple","description":"No arguments."},{"name":"with_args","description":"Two arguments.","arguments":[{"name":"arg1","title":"First","description":"the first","required":true},{"name":"arg2","required":false}]}]`
			if era == mcp.Version20250326 {
				wantFirst = `[{"name":"simple","description":"No arguments."},{"name":"with_args","description":"Two arguments.","arguments":[{"name":"arg1","description":"the first","required":true},{"name":"arg2","required":false}]}]`
			}
			if first != wantFirst {
				t.Errorf("prompts/list page 1 %s", first)
			}
			if got := string(get(`"name":"simple"`).field(t, "messages")); got != `[{"role":"user","content":{"type":"text","text":"Say hello."}}]` {
				t.Errorf("simple: %s", got)
			}
			if got := string(get(`"name":"with_args","arguments":{"arg1":"v1","arg2":"v2","extra":"x"}`).field(t, "messages")); !strings.Contains(got, "arg1=v1 arg2=v2 n=2") {
				t.Errorf("with_args: %s", got)
			}
			checkErr(t, get(`"name":"with_args","arguments":{"arg2":"v2"}`), 200, -32602, `{"missing":["arg1"]}`)
			checkErr(t, get(`"name":"with_args"`), 200, -32602, `{"missing":["arg1"]}`)
			checkErr(t, get(`"name":"with_args","arguments":{"arg1":1}`), 200, -32602, "")
			checkErr(t, get(`"name":"with_args","arguments":["v1"]`), 200, -32602, "")
			checkErr(t, get(`"name":"nope"`), 200, -32602, `{"name":"nope"}`)
			checkErr(t, get(`"name":"fails"`), 200, -32603, "")
			checkErr(t, get(`"name":"refuses"`), 200, -32602, "")
			routed := string(get(`"name":"routed","arguments":{"topic":"a&b"}`).field(t, "messages"))
			link := `{"type":"resource_link","uri":"inbox://readme","name":"readme"}`
			if era == mcp.Version20250326 {
				link = `{"type":"text","text":"Resource readme: inbox://readme"}`
			}
			if routed != `[{"role":"user","content":{"type":"text","text":"About a&b"}},{"role":"assistant","content":`+link+`}]` {
				t.Errorf("routed: %s", routed)
			}
			checkErr(t, get(`"name":"routed","arguments":{"topic":"missing"}`), 200, -32602, `{"name":"routed"}`)
			rich := string(get(`"name":"rich"`).field(t, "messages"))
			b64 := base64.StdEncoding.EncodeToString(png)
			link = `{"type":"resource_link","uri":"inbox://readme","name":"readme","mimeType":"text/plain"}`
			if era == mcp.Version20250326 {
				link = `{"type":"text","text":"Resource readme: inbox://readme"}`
			}
			want := `[{"role":"user","content":{"type":"resource","resource":{"uri":"inbox://readme","mimeType":"text/plain","text":"Hello"}}},` +
				`{"role":"user","content":{"type":"image","data":"` + b64 + `","mimeType":"image/png"}},` +
				`{"role":"assistant","content":{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}},` +
				`{"role":"user","content":{"type":"resource","resource":{"uri":"inbox://logo","mimeType":"image/png","blob":"` + b64 + `"}}},` +
				`{"role":"user","content":` + link + `}]`
			if rich != want {
				t.Errorf("rich:\n%s\nwant\n%s", rich, want)
			}
		})
	}
}

func TestPrompts_InputRequired(t *testing.T) {
	t.Parallel()
	f := newRPFixture(t)
	in := asInterim(t, rt{method: "prompts/get", name: "ask", caps: formCaps}.send(t, f.url))
	if _, ok := in.InputRequests["user_context"]; !ok {
		t.Fatalf("requests %v", in.InputRequests)
	}
	r := rt{method: "prompts/get", id: 2, name: "ask", caps: formCaps, state: quoteJSON(in.RequestState),
		responses: `{"user_context":{"action":"accept","content":{"c":"x"}}}`}.send(t, f.url)
	if got := string(r.field(t, "messages")); !strings.Contains(got, `context: {\"c\":\"x\"} state: p1`) {
		t.Errorf("round 2: %s", r.raw)
	}
	// A prompt's state is bound to the prompt.
	checkInvalidState(t, rt{method: "prompts/get", id: 3, name: "simple", caps: formCaps, state: quoteJSON(in.RequestState)}.send(t, f.url))
	// 2025 eras cannot be asked.
	for _, era := range []mcp.Version{mcp.Version20250618, mcp.Version20250326} {
		r := f.rpc(t, era, "prompts/get", `"name":"ask"`)
		check(t, r, want{status: 200, code: -32600, id: "5", proto: string(era)})
		if !strings.Contains(r.msg.Error.Message, "2026-07-28") || !strings.Contains(r.msg.Error.Message, string(era)) ||
			string(r.msg.Error.Data) != `{"reason":"input_requires_newer_revision","requiredVersion":"2026-07-28"}` {
			t.Errorf("%s: %s", era, r.raw)
		}
	}
	// A resources/read never carries a prompt's state either.
	checkInvalidState(t, rt{method: "resources/read", id: 4, uri: "inbox://readme", caps: formCaps, state: quoteJSON(in.RequestState)}.send(t, f.url))
}

func TestCompletion(t *testing.T) {
	t.Parallel()
	f := newRPFixture(t)
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			complete := func(params string) *reply { return f.rpc(t, era, "completion/complete", params) }
			r := complete(`"ref":{"type":"ref/prompt","name":"with_args"},"argument":{"name":"arg1","value":"a"},"context":{"arguments":{"arg2":"Z"}}`)
			var res struct {
				Values  []string `json:"values"`
				Total   int      `json:"total"`
				HasMore bool     `json:"hasMore"`
			}
			json.Unmarshal(r.field(t, "completion"), &res)
			suffix := "Z"
			if era == mcp.Version20250326 {
				suffix = "" // no context before 2025-06-18
			}
			if len(res.Values) != 100 || res.Total != 150 || !res.HasMore || res.Values[0] != "a000"+suffix || res.Values[99] != "a099"+suffix {
				t.Errorf("completion: %d values, total %d, more %v, first %q", len(res.Values), res.Total, res.HasMore, res.Values[0])
			}
			if got := string(complete(`"ref":{"type":"ref/prompt","name":"with_args"},"argument":{"name":"arg2","value":""}`).field(t, "completion")); got != `{"values":[],"total":0,"hasMore":false}` {
				t.Errorf("no source: %s", got)
			}
			if got := string(complete(`"ref":{"type":"ref/resource","uri":"inbox://emails/{id}"},"argument":{"name":"id","value":"e"}`).field(t, "completion")); got != `{"values":["e1","e2"],"total":2,"hasMore":false}` {
				t.Errorf("template: %s", got)
			}
			checkErr(t, complete(`"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"a","value":""}`), 200, -32602, "")
			// An unknown template is -32602 in every revision, not
			// resources/read's -32002 of the 2025 revisions.
			checkErr(t, complete(`"ref":{"type":"ref/resource","uri":"inbox://nope/{id}"},"argument":{"name":"id","value":""}`), 200, -32602, `{"uri":"inbox://nope/{id}"}`)
			checkErr(t, complete(`"ref":{"type":"ref/other"},"argument":{"name":"a","value":""}`), 200, -32602, "")
			checkErr(t, complete(`"ref":{"type":"ref/prompt","name":"with_args"},"argument":{"name":"arg1"}`), 200, -32602, "")
			checkErr(t, complete(`"argument":{"name":"arg1","value":""}`), 200, -32602, "")
			if era != mcp.Version20250326 {
				checkErr(t, complete(`"ref":{"type":"ref/prompt","name":"with_args"},"argument":{"name":"arg1","value":""},"context":{"arguments":{"arg2":2}}`), 200, -32602, "")
			}
		})
	}
}

func TestCapabilities_Advertised(t *testing.T) {
	t.Parallel()
	f := newRPFixture(t)
	r := f.rpc(t, mcp.Version20250618, "initialize", `"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}`)
	if got := string(r.field(t, "capabilities")); got != `{"resources":{"subscribe":false,"listChanged":false},"prompts":{"listChanged":false},"completions":{}}` {
		t.Errorf("initialize: %s", got)
	}
	r = f.rpc(t, mcp.Version20260728, "server/discover", "")
	if got := string(r.field(t, "capabilities")); got != `{"resources":{},"prompts":{},"completions":{}}` {
		t.Errorf("discover: %s", got)
	}
	// Without them, the methods do not exist.
	bare := newTestServer(t, mcp.NewHandler(mcp.NewServer(mcp.Implementation{Name: "b", Version: "1"}), []mcp.Era{era2026.New(), era2025.New()}))
	g := &rpFixture{url: bare}
	for _, m := range []string{"resources/list", "resources/templates/list", "prompts/list", "completion/complete"} {
		if r := g.rpc(t, mcp.Version20260728, m, ""); r.status != 404 || r.code() != -32601 {
			t.Errorf("2026 %s: %d %s", m, r.status, r.raw)
		}
		if r := g.rpc(t, mcp.Version20250618, m, ""); r.status != 200 || r.code() != -32601 {
			t.Errorf("2025 %s: %d %s", m, r.status, r.raw)
		}
	}
}

func TestResources_NameHeader(t *testing.T) {
	t.Parallel()
	f := newRPFixture(t)
	body := `{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"inbox://readme","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	for name, want := range map[string]int{"inbox://readme": 200, "inbox://logo": 400, "": 400, "=?base64?aW5ib3g6Ly9yZWFkbWU=?=": 200} {
		req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(body))
		req.Header = http.Header{"Content-Type": {"application/json"}, "Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"resources/read"}}
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
		if r := send(t, req); r.status != want || (want == 400 && r.code() != -32020) {
			t.Errorf("Mcp-Name %q: %d %s", name, r.status, r.raw)
		}
	}
}

// TestResources_Visibility: lists show only what the caller may read, and
// reading or completing something hidden is "not found".
func TestResources_Visibility(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /d/{x}", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "doc") })
	srv := mcp.NewServer(mcp.Implementation{Name: "v", Version: "1"})
	srv.AddResource(mcp.Resource{URI: "v://public", Name: "public"}, "GET /d/public", mux)
	srv.AddResource(mcp.Resource{URI: "v://secret", Name: "secret"}, "GET /d/secret", mux)
	srv.AddResource(mcp.Resource{URI: "v://scoped", Name: "scoped"}, "GET /d/scoped", mux, mcp.RequireScopes("docs:read"))
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "v://hidden/{x}", Name: "hidden"}, "GET /d/{x}", mux,
		mcp.WithCompletion("x", func(context.Context, string, map[string]string) ([]string, error) { return []string{"a"}, nil }))
	srv.AddPrompt(mcp.Prompt{Name: "secret_prompt"}, func(context.Context, map[string]string) (*mcp.PromptResult, error) {
		return &mcp.PromptResult{Messages: []mcp.PromptMessage{{Role: content.User, Content: content.Text("x")}}}, nil
	})
	a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(testVerifier),
		Permit: func(ctx context.Context, acc auth.Access) bool {
			return !strings.Contains(acc.Name, "secret") && !strings.Contains(acc.Name, "hidden")
		}})
	f := &rpFixture{url: newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithAuth(a)))}
	do := func(era mcp.Version, method, params string) *reply { return accessDo(t, f.url, era, method, params) }
	for _, era := range eras {
		if got := string(do(era, "resources/list", `"x":1`).field(t, "resources")); got != `[{"uri":"v://public","name":"public"}]` {
			t.Errorf("%s resources %s", era, got)
		}
		if got := string(do(era, "resources/templates/list", `"x":1`).field(t, "resourceTemplates")); got != `[]` {
			t.Errorf("%s templates %s", era, got)
		}
		if got := string(do(era, "prompts/list", `"x":1`).field(t, "prompts")); got != `[]` {
			t.Errorf("%s prompts %s", era, got)
		}
		hidden := do(era, "resources/read", `"uri":"v://secret"`)
		unknown := do(era, "resources/read", `"uri":"v://secreu"`)
		if hidden.code() == 0 || strings.ReplaceAll(string(hidden.raw), "secret", "secreu") != string(unknown.raw) {
			t.Errorf("%s hidden read differs from unknown:\n%s\n%s", era, hidden.raw, unknown.raw)
		}
		if r := do(era, "resources/read", `"uri":"v://hidden/a"`); r.code() == 0 {
			t.Errorf("%s hidden template read: %s", era, r.raw)
		}
		if r := do(era, "resources/read", `"uri":"v://scoped"`); r.status != 403 || r.code() != -31403 {
			t.Errorf("%s scoped read: %d %s", era, r.status, r.raw)
		}
		if r := do(era, "prompts/get", `"name":"secret_prompt"`); r.code() != -32602 {
			t.Errorf("%s hidden prompt: %s", era, r.raw)
		}
		if r := do(era, "completion/complete", `"ref":{"type":"ref/resource","uri":"v://hidden/{x}"},"argument":{"name":"x","value":""}`); r.code() == 0 {
			t.Errorf("%s hidden completion: %s", era, r.raw)
		}
		if r := do(era, "resources/read", `"uri":"v://public"`); r.code() != 0 {
			t.Errorf("%s public read: %s", era, r.raw)
		}
	}
}
