package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

func mustPanic(t *testing.T, name, want string, f func()) {
	t.Helper()
	defer func() {
		p := recover()
		if p == nil {
			t.Errorf("%s: no panic", name)
			return
		}
		if msg, _ := p.(string); !strings.Contains(msg, want) {
			t.Errorf("%s: panic %q does not mention %q", name, p, want)
		}
	}()
	f()
}

func TestAddTool_Misuse(t *testing.T) {
	t.Parallel()
	h := http.NotFoundHandler()
	obj := func(s string) json.RawMessage { return json.RawMessage(s) }
	idReq := obj(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)
	tests := []struct {
		name, want string
		tool       mcp.Tool
		route      string
	}{
		{"empty name", "invalid tool name", mcp.Tool{Name: ""}, "GET /x"},
		{"space in name", "invalid tool name", mcp.Tool{Name: "a b"}, "GET /x"},
		{"long name", "invalid tool name", mcp.Tool{Name: strings.Repeat("a", 129)}, "GET /x"},
		{"schema not JSON", "inputSchema", mcp.Tool{Name: "t", InputSchema: obj(`{`)}, "GET /x"},
		{"schema duplicate key", "inputSchema", mcp.Tool{Name: "t", InputSchema: obj(`{"type":"object","type":"object"}`)}, "GET /x"},
		{"root not object", "root", mcp.Tool{Name: "t", InputSchema: obj(`{"type":"string"}`)}, "GET /x"},
		{"network $ref", "inputSchema", mcp.Tool{Name: "t", InputSchema: obj(`{"type":"object","$ref":"https://example.com/s.json"}`)}, "GET /x"},
		{"bad outputSchema", "outputSchema", mcp.Tool{Name: "t", OutputSchema: obj(`{"type":7}`)}, "GET /x"},
		{"bad x-mcp-header", "x-mcp-header", mcp.Tool{Name: "t", InputSchema: obj(`{"type":"object","properties":{"a":{"type":"number","x-mcp-header":"A"}}}`)}, "GET /x"},
		{"route without method", "route", mcp.Tool{Name: "t"}, "/x"},
		{"route bad method", "route", mcp.Tool{Name: "t"}, "TRACE /x"},
		{"route dot-dot", "route", mcp.Tool{Name: "t"}, "GET /a/../b"},
		{"wildcard not in schema", "wildcard", mcp.Tool{Name: "t"}, "GET /x/{id}"},
		{"wildcard not required", "wildcard", mcp.Tool{Name: "t", InputSchema: obj(`{"type":"object","properties":{"id":{"type":"string"}}}`)}, "GET /x/{id}"},
		{"wildcard object type", "wildcard", mcp.Tool{Name: "t", InputSchema: obj(`{"type":"object","properties":{"id":{"type":"object"}},"required":["id"]}`)}, "GET /x/{id}"},
		{"repeated wildcard", "route", mcp.Tool{Name: "t", InputSchema: idReq}, "GET /x/{id}/{id}"},
	}
	for _, tt := range tests {
		srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
		mustPanic(t, tt.name, tt.want, func() { srv.AddTool(tt.tool, tt.route, h) })
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "t"}, "GET /x", h)
	mustPanic(t, "duplicate", "twice", func() { srv.AddTool(mcp.Tool{Name: "t"}, "GET /y", h) })
	mustPanic(t, "nil handler", "nil handler", func() { srv.AddTool(mcp.Tool{Name: "u"}, "GET /y", nil) })
	mcp.NewHandler(srv, []mcp.Era{era2025.New()})
	mustPanic(t, "after NewHandler", "after NewHandler", func() { srv.AddTool(mcp.Tool{Name: "v"}, "GET /z", h) })
}

func TestNewHandler_Misuse(t *testing.T) {
	t.Parallel()
	srv := func() *mcp.Server { return mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}) }
	mustPanic(t, "no eras", "at least one Era", func() { mcp.NewHandler(srv(), nil) })
	mustPanic(t, "two eras, one version", "two eras", func() { mcp.NewHandler(srv(), []mcp.Era{era2025.New(), era2025.New()}) })
	mustPanic(t, "no name", "Name", func() { mcp.NewServer(mcp.Implementation{}) })
}

// TestHandler_ModernOnly: without a handshake era, a request naming no
// revision is refused with -32020, and initialize is not served.
func TestHandler_ModernOnly(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New()})
	f := &fixture{}
	ts := newTestServer(t, h)
	f.url = ts
	r := f.do(t, call{id: "1", method: "initialize", params: `"protocolVersion":"2025-06-18"`})
	check(t, r, want{status: 400, code: -32020, id: "1"})
	r = f.do(t, call{era: mcp.Version20250618, id: "1", method: "tools/list"})
	check(t, r, want{status: 400, code: -32022, id: "1"})
	// No tools: tools/list is behind an unadvertised capability.
	r = f.do(t, call{era: mcp.Version20260728, id: "1", method: "tools/list"})
	check(t, r, want{status: 404, code: -32601, id: "1", proto: "2026-07-28"})
	r = f.do(t, call{era: mcp.Version20260728, id: "1", method: "server/discover"})
	if caps, _ := json.Marshal(r.result(t)["capabilities"]); string(caps) != `{}` {
		t.Errorf("capabilities %s", caps)
	}
}

func TestRegister_ResourcesAndPrompts(t *testing.T) {
	t.Parallel()
	h := http.NotFoundHandler()
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
	render := func(context.Context, map[string]string) (*mcp.PromptResult, error) { return nil, nil }
	complete := func(context.Context, string, map[string]string) ([]string, error) { return nil, nil }
	srv.AddResource(mcp.Resource{URI: "x://a", Name: "a"}, "GET /a", h)
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "x://t/{id}", Name: "t"}, "GET /t/{id}", h)
	srv.AddPrompt(mcp.Prompt{Name: "p", Arguments: []mcp.PromptArgument{{Name: "a"}}}, render)
	cases := []struct {
		name, want string
		f          func()
	}{
		{"duplicate URI", "twice", func() { srv.AddResource(mcp.Resource{URI: "x://a", Name: "a"}, "GET /a", h) }},
		{"relative URI", "absolute", func() { srv.AddResource(mcp.Resource{URI: "a/b", Name: "a"}, "GET /a", h) }},
		{"URI fragment", "fragment", func() { srv.AddResource(mcp.Resource{URI: "x://b#c", Name: "a"}, "GET /a", h) }},
		{"no name", "name", func() { srv.AddResource(mcp.Resource{URI: "x://c"}, "GET /a", h) }},
		{"POST route", "GET", func() { srv.AddResource(mcp.Resource{URI: "x://d", Name: "d"}, "POST /a", h) }},
		{"wildcard on fixed", "wildcards", func() { srv.AddResource(mcp.Resource{URI: "x://e", Name: "e"}, "GET /a/{id}", h) }},
		{"template operator", "simple", func() {
			srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "x://u/{+path}", Name: "u"}, "GET /u", h)
		}},
		{"template query operator", "simple", func() {
			srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "x://u{?q}", Name: "u"}, "GET /u", h)
		}},
		{"template unbalanced", "braces", func() {
			srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "x://u/{id", Name: "u"}, "GET /u", h)
		}},
		{"template without variable", "variable", func() {
			srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "x://u/", Name: "u"}, "GET /u", h)
		}},
		{"template repeated variable", "twice", func() {
			srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "x://u/{a}/{a}", Name: "u"}, "GET /u", h)
		}},
		{"route wildcard not a variable", "not a template variable", func() {
			srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "x://u/{a}", Name: "u"}, "GET /u/{b}", h)
		}},
		{"duplicate template", "twice", func() {
			srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "x://t/{id}", Name: "t"}, "GET /t/{id}", h)
		}},
		{"complete unknown variable", "no such argument", func() {
			srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "x://v/{id}", Name: "v"}, "GET /v/{id}", h, mcp.WithCompletion("other", complete))
		}},
		{"complete on a resource", "no such argument", func() {
			srv.AddResource(mcp.Resource{URI: "x://f", Name: "f"}, "GET /f", h, mcp.WithCompletion("a", complete))
		}},
		{"complete on a tool", "not tools", func() { srv.AddTool(mcp.Tool{Name: "tt"}, "GET /tt", h, mcp.WithCompletion("a", complete)) }},
		{"confirmation on a prompt", "tools only", func() { srv.AddPrompt(mcp.Prompt{Name: "q"}, render, mcp.WithoutConfirmation()) }},
		{"duplicate prompt", "twice", func() { srv.AddPrompt(mcp.Prompt{Name: "p"}, render) }},
		{"bad prompt name", "invalid prompt name", func() { srv.AddPrompt(mcp.Prompt{Name: "a b"}, render) }},
		{"nil render", "nil render", func() { srv.AddPrompt(mcp.Prompt{Name: "r"}, nil) }},
		{"argument twice", "named twice", func() {
			srv.AddPrompt(mcp.Prompt{Name: "s", Arguments: []mcp.PromptArgument{{Name: "a"}, {Name: "a"}}}, render)
		}},
		{"complete unknown prompt argument", "no such argument", func() { srv.AddPrompt(mcp.Prompt{Name: "w"}, render, mcp.WithCompletion("a", complete)) }},
	}
	for _, c := range cases {
		mustPanic(t, c.name, c.want, c.f)
	}
}

// TestRequireScopes_Invalid: a scope a challenge could not name as it is
// (RFC 6750) is refused at registration, non-ASCII letters included.
func TestRequireScopes_Invalid(t *testing.T) {
	for _, s := range []string{"", "a b", `a"b`, "données:read", "a\x01"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RequireScopes(%q) did not panic", s)
				}
			}()
			mcp.RequireScopes(s)
		}()
	}
}

// listed is what a tools/list, resources/list, resources/templates/list
// and prompts/list of srv name, in one sorted list ("tool:x", ...).
func listed(t *testing.T, srv *mcp.Server) []string {
	t.Helper()
	ts := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2025.New()}))
	var names []string
	for _, l := range []struct{ method, member, key, kind string }{
		{"tools/list", "tools", "name", "tool"}, {"resources/list", "resources", "uri", "resource"},
		{"resources/templates/list", "resourceTemplates", "uriTemplate", "template"}, {"prompts/list", "prompts", "name", "prompt"},
	} {
		req, _ := http.NewRequest(http.MethodPost, ts, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"`+l.method+`"}`))
		req.Header = headersFor(call{era: mcp.Version20250618, method: l.method})
		r := send(t, req)
		if r.code() == -32601 {
			continue // nothing of that kind: the capability is absent
		}
		items, _ := r.result(t)[l.member].([]any)
		for _, it := range items {
			names = append(names, l.kind+":"+it.(map[string]any)[l.key].(string))
		}
	}
	sort.Strings(names)
	return names
}

// TestRegister: Register registers everything add registered or nothing,
// and returns every refusal in call order, duplicates against the server
// and within the batch included; Check reports the same and registers
// nothing; neither panics.
func TestRegister(t *testing.T) {
	t.Parallel()
	h := http.NotFoundHandler()
	render := func(context.Context, map[string]string) (*mcp.PromptResult, error) { return &mcp.PromptResult{}, nil }
	good := func(s *mcp.Server) {
		s.AddTool(mcp.Tool{Name: "a"}, "GET /a", h)
		s.AddResource(mcp.Resource{URI: "file:///r", Name: "r"}, "GET /r", h)
		s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "file:///t/{id}", Name: "t"}, "GET /t/{id}", h)
		s.AddPrompt(mcp.Prompt{Name: "p"}, render)
	}
	all := []string{"prompt:p", "resource:file:///r", "template:file:///t/{id}", "tool:a", "tool:existing"}

	newSrv := func() *mcp.Server {
		srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
		srv.AddTool(mcp.Tool{Name: "existing"}, "GET /e", h)
		return srv
	}
	t.Run("all registered", func(t *testing.T) {
		srv := newSrv()
		if err := srv.Register(good); err != nil {
			t.Fatal(err)
		}
		if got := listed(t, srv); !slices.Equal(got, all) {
			t.Errorf("listed %v, want %v", got, all)
		}
	})
	t.Run("check registers nothing", func(t *testing.T) {
		srv := newSrv()
		if err := srv.Check(good); err != nil {
			t.Fatal(err)
		}
		// Checked twice, registered once: Check left no trace.
		if err := srv.Check(good); err != nil {
			t.Fatal(err)
		}
		if err := srv.Register(good); err != nil {
			t.Fatal(err)
		}
		if got := listed(t, srv); !slices.Equal(got, all) {
			t.Errorf("listed %v, want %v", got, all)
		}
	})
	bad := func(s *mcp.Server) {
		s.AddTool(mcp.Tool{Name: "a"}, "GET /a", h)
		s.AddTool(mcp.Tool{Name: "existing"}, "GET /e2", h)                    // on the server already
		s.AddTool(mcp.Tool{Name: "a"}, "GET /a2", h)                           // earlier in the batch
		s.AddTool(mcp.Tool{Name: "b c"}, "GET /b", h)                          // invalid name
		s.AddResource(mcp.Resource{URI: "file:///r", Name: "r"}, "POST /r", h) // not GET
		s.AddPrompt(mcp.Prompt{Name: "p"}, nil)                                // nil function
		s.AddPrompt(mcp.Prompt{Name: "q"}, render)
	}
	wants := []string{"tool existing registered twice", "tool a registered twice", `invalid tool name "b c"`,
		"resources are read with GET", "prompt p: nil render function"}
	for _, check := range []bool{false, true} {
		name := "register refused"
		if check {
			name = "check refused"
		}
		t.Run(name, func(t *testing.T) {
			srv := newSrv()
			var err error
			if check {
				err = srv.Check(bad)
			} else {
				err = srv.Register(bad)
			}
			if err == nil {
				t.Fatal("no error")
			}
			msg, at := err.Error(), 0
			for _, w := range wants {
				i := strings.Index(msg[at:], w)
				if i < 0 {
					t.Fatalf("error %q lacks %q after offset %d (the refusals in call order)", msg, w, at)
				}
				at += i + len(w)
			}
			if n := strings.Count(msg, "\n") + 1; n != len(wants) {
				t.Errorf("%d refusals, want %d: %q", n, len(wants), msg)
			}
			if got := listed(t, srv); !slices.Equal(got, []string{"tool:existing"}) {
				t.Errorf("a refused batch changed the server: %v", got)
			}
		})
	}
	t.Run("after NewHandler", func(t *testing.T) {
		srv := newSrv()
		mcp.NewHandler(srv, []mcp.Era{era2025.New()})
		for _, f := range []func(func(*mcp.Server)) error{srv.Register, srv.Check} {
			if err := f(good); err == nil || !strings.Contains(err.Error(), "after NewHandler") {
				t.Errorf("err = %v, want a refusal after NewHandler", err)
			}
		}
	})
	t.Run("nil function", func(t *testing.T) {
		if err := newSrv().Register(nil); err == nil {
			t.Error("Register(nil) returned nil")
		}
	})
}
