package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/internal/syncbuf"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/apps"
	"github.com/mcpdual/mcpdual/mcp/task"
	"github.com/mcpdual/mcpdual/mrtr"
)

const triageHTML = "<!DOCTYPE html><html><head><title>Triage</title></head><body><p>triage</p></body></html>"

// appsServer has a tool with a view, an app-only tool, the view (with
// _meta.ui), a view whose route answers JSON, and a template with _meta.
func appsServer(t testing.TB, logs io.Writer) (http.Handler, *int) {
	return appsServerOpts(t, logs, nil)
}

// appsServerWith is appsServer with options for its 2025 era.
func appsServerWith(t testing.TB, opts ...era2025.Option) http.Handler {
	h, _ := appsServerOpts(t, nil, opts)
	return h
}

func appsServerOpts(t testing.TB, logs io.Writer, era2025Opts []era2025.Option) (http.Handler, *int) {
	mux := http.NewServeMux()
	marked := new(int)
	mux.HandleFunc("GET /items", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"items":["a","b"]}`)
	})
	mux.HandleFunc("POST /items/{id}/done", func(w http.ResponseWriter, r *http.Request) {
		*marked++
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"`+r.PathValue("id")+`","done":true}`)
	})
	mux.HandleFunc("GET /views/triage", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, triageHTML)
	})
	mux.HandleFunc("GET /views/broken", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{}`)
	})
	mux.HandleFunc("GET /notes/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "note "+r.PathValue("id"))
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "apps", Version: "1.0.0"})
	yes := true
	srv.AddTool(mcp.Tool{Name: "items_list", Description: "Lists the items.",
		Annotations: mcp.Annotations{ReadOnly: true},
		Meta:        json.RawMessage(`{"example.com/owner": "team-a"}`),
		UI:          &apps.ToolUI{ResourceURI: "ui://items/triage"},
	}, "GET /items", mux)
	srv.AddTool(mcp.Tool{Name: "items_mark_done", Description: "Marks an item done (from the triage view).",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`),
		Annotations: mcp.Annotations{Idempotent: true},
		UI:          &apps.ToolUI{ResourceURI: "ui://items/triage", Visibility: []apps.Visibility{apps.App}},
	}, "POST /items/{id}/done", mux)
	srv.AddResource(mcp.Resource{URI: "ui://items/triage", Name: "items_triage", Title: "Triage",
		UI: &apps.ResourceUI{
			CSP:           apps.CSP{ConnectDomains: []string{"https://api.example.com"}, ResourceDomains: []string{"https://*.example.com"}, FrameDomains: []string{"https://frames.example.com"}, BaseURIDomains: []string{"https://base.example.com"}},
			Permissions:   apps.Permissions{ClipboardWrite: true},
			Domain:        "items.example.com",
			PrefersBorder: &yes,
		}}, "GET /views/triage", mux)
	srv.AddResource(mcp.Resource{URI: "ui://items/broken", Name: "broken"}, "GET /views/broken", mux)
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "notes://{id}", Name: "note", MIMEType: "text/plain",
		Meta: json.RawMessage(`{"example.com/kind":"note"}`)}, "GET /notes/{id}", mux)
	var opts []mcp.HandlerOption
	if logs != nil {
		opts = append(opts, mcp.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	}
	return mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New(era2025Opts...)}, opts...), marked
}

// appsClient speaks one revision; ui says whether it declares MCP Apps
// (only a 2026-07-28 request can).
type appsClient struct {
	url     string
	version string
	ui      bool
}

func (c appsClient) post(t testing.TB, id int, method, name, params string) (int, string) {
	t.Helper()
	if c.version == "2026-07-28" {
		caps := `{}`
		if c.ui {
			caps = `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`
		}
		meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps + `}`
		if params == "" {
			params = "{" + meta + "}"
		} else {
			params = params[:len(params)-1] + "," + meta + "}"
		}
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q`, id, method)
	if params != "" {
		body += `,"params":` + params
	}
	body += "}"
	req, _ := http.NewRequest(http.MethodPost, c.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", c.version)
	if c.version == "2026-07-28" {
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestApps_Transcripts pins the wire: definitions with _meta in each
// revision (none in 2025-03-26, whose definitions have no _meta), the
// view's contents with its MIME type and _meta.ui, discovery.
func TestApps_Transcripts(t *testing.T) {
	h, _ := appsServer(t, nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	type step struct{ file, method, name, params string }
	steps := []step{
		{"tools-list", "tools/list", "", ""},
		{"resources-list", "resources/list", "", ""},
		{"resources-templates-list", "resources/templates/list", "", ""},
		{"resources-read-view", "resources/read", "ui://items/triage", `{"uri":"ui://items/triage"}`},
		{"resources-read-template", "resources/read", "notes://7", `{"uri":"notes://7"}`},
	}
	clients := []struct {
		dir string
		c   appsClient
	}{
		{"2026-07-28-ui", appsClient{ts.URL, "2026-07-28", true}},
		{"2026-07-28", appsClient{ts.URL, "2026-07-28", false}},
		{"2025-11-25", appsClient{ts.URL, "2025-11-25", false}},
		{"2025-06-18", appsClient{ts.URL, "2025-06-18", false}},
		{"2025-03-26", appsClient{ts.URL, "2025-03-26", false}},
	}
	for _, cl := range clients {
		all := steps
		if cl.c.version == "2026-07-28" && cl.c.ui {
			all = append(all, step{"server-discover", "server/discover", "", ""})
		}
		for i, s := range all {
			t.Run(cl.dir+"/"+s.file, func(t *testing.T) {
				status, body := cl.c.post(t, i+1, s.method, s.name, s.params)
				var pretty bytes.Buffer
				if err := json.Indent(&pretty, []byte(body), "", "  "); err != nil {
					t.Fatalf("%d %s", status, body)
				}
				got := fmt.Sprintf("%s %s\n< %d\n%s\n", s.method, s.params, status, pretty.Bytes())
				path := filepath.Join("testdata", "transcripts", "apps", cl.dir, s.file+".txt")
				if *update {
					os.MkdirAll(filepath.Dir(path), 0o755)
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if string(want) != got {
					t.Errorf("transcript differs from %s:\n--- want\n%s\n--- got\n%s", path, want, got)
				}
			})
		}
	}
}

// TestApps_Negotiation: app-only tools are listed to, and callable by,
// only a client that declared the extension in this very request; every
// client gets the other tools with their _meta.
func TestApps_Negotiation(t *testing.T) {
	h, marked := appsServer(t, nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	cases := []struct {
		name    string
		c       appsClient
		appOnly bool // the app-only tool is listed and callable
	}{
		{"2026-07-28 declaring", appsClient{ts.URL, "2026-07-28", true}, true},
		{"2026-07-28 not declaring", appsClient{ts.URL, "2026-07-28", false}, false},
		{"2025-11-25", appsClient{ts.URL, "2025-11-25", false}, false},
		{"2025-06-18", appsClient{ts.URL, "2025-06-18", false}, false},
		{"2025-03-26", appsClient{ts.URL, "2025-03-26", false}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, body := c.c.post(t, 1, "tools/list", "", "")
			if !strings.Contains(body, `"name":"items_list"`) {
				t.Errorf("tools/list lacks the tool with a view: %s", body)
			}
			if got := strings.Contains(body, `"name":"items_mark_done"`); got != c.appOnly {
				t.Errorf("app-only tool listed = %v, want %v: %s", got, c.appOnly, body)
			}
			modern := c.c.version != "2025-03-26"
			if got := strings.Contains(body, `"_meta":{"ui":{"resourceUri":"ui://items/triage"},"example.com/owner":"team-a"}`); got != modern {
				t.Errorf("_meta on the definition = %v, want %v: %s", got, modern, body)
			}
			// The tool with a view works as a plain tool for everyone.
			_, body = c.c.post(t, 2, "tools/call", "items_list", `{"name":"items_list","arguments":{}}`)
			if !strings.Contains(body, `\"items\":[\"a\",\"b\"]`) || strings.Contains(body, `"isError":true`) {
				t.Errorf("items_list: %s", body)
			}
			before := *marked
			status, body := c.c.post(t, 3, "tools/call", "items_mark_done", `{"name":"items_mark_done","arguments":{"id":"a"}}`)
			if c.appOnly {
				if *marked != before+1 || !strings.Contains(body, `\"done\":true`) {
					t.Errorf("app-only call from a declaring client: %d %s", status, body)
				}
				return
			}
			if *marked != before {
				t.Errorf("the app-only tool ran for a client that did not declare the extension")
			}
			// Refused exactly like a tool that does not exist.
			_, unknown := c.c.post(t, 3, "tools/call", "no_such_tool", `{"name":"no_such_tool","arguments":{"id":"a"}}`)
			if strings.ReplaceAll(body, "items_mark_done", "X") != strings.ReplaceAll(unknown, "no_such_tool", "X") {
				t.Errorf("app-only refusal differs from an unknown tool's:\n%s\n%s", body, unknown)
			}
		})
	}
}

// TestApps_DeclarationForms: what counts as declaring the extension.
func TestApps_DeclarationForms(t *testing.T) {
	h, _ := appsServer(t, nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	for _, c := range []struct {
		ext  string
		want bool
	}{
		{`{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}`, true},
		{`{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html+skybridge","text/html;profile=mcp-app"]}}`, true},
		{`{"io.modelcontextprotocol/ui":{}}`, true},
		{`{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html+skybridge"]}}`, false},
		{`{"io.modelcontextprotocol/ui":{"mimeTypes":["x\"text/html;profile=mcp-app\""]}}`, false},
		{`{"io.modelcontextprotocol/ui":{"mimeTypes":[]}}`, false},
		{`{"io.modelcontextprotocol/ui":true}`, false},
		{`{"io.modelcontextprotocol/tasks":{}}`, false},
	} {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":` + c.ext + `}}}}`
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("MCP-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/list")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got := strings.Contains(string(b), "items_mark_done"); got != c.want {
			t.Errorf("%s: app-only tool listed = %v, want %v", c.ext, got, c.want)
		}
	}
}

// TestApps_ViewNotHTML: a view whose route answers something else is an
// internal error at read time, logged once however often it is read.
func TestApps_ViewNotHTML(t *testing.T) {
	var logs syncbuf.Buffer
	h, _ := appsServer(t, &logs)
	ts := httptest.NewServer(h)
	defer ts.Close()
	c := appsClient{ts.URL, "2026-07-28", true}
	for i := range 3 {
		_, body := c.post(t, i, "resources/read", "ui://items/broken", `{"uri":"ui://items/broken"}`)
		if !strings.Contains(body, `"code":-32603`) {
			t.Fatalf("read %d: %s", i, body)
		}
	}
	if n := strings.Count(logs.String(), "other than HTML"); n != 1 {
		t.Errorf("logged %d times, want once:\n%s", n, logs.String())
	}
}

// TestApps_RegistrationRefusals: misuse fails at registration (Register's
// error), and a tool whose view is missing fails when the handler is
// built.
func TestApps_RegistrationRefusals(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	cases := []struct {
		name string
		add  func(s *mcp.Server)
		want string
	}{
		{"resourceUri not ui", func(s *mcp.Server) {
			s.AddTool(mcp.Tool{Name: "t", UI: &apps.ToolUI{ResourceURI: "https://example.com/v"}}, "GET /t", ok)
		}, "must be a ui:// URI"},
		{"unknown visibility", func(s *mcp.Server) {
			s.AddTool(mcp.Tool{Name: "t", UI: &apps.ToolUI{Visibility: []apps.Visibility{"user"}}}, "GET /t", ok)
		}, `"user" is unknown or repeated`},
		{"repeated visibility", func(s *mcp.Server) {
			s.AddTool(mcp.Tool{Name: "t", UI: &apps.ToolUI{Visibility: []apps.Visibility{apps.App, apps.App}}}, "GET /t", ok)
		}, "unknown or repeated"},
		{"empty UI", func(s *mcp.Server) { s.AddTool(mcp.Tool{Name: "t", UI: &apps.ToolUI{}}, "GET /t", ok) }, "neither"},
		{"meta not an object", func(s *mcp.Server) {
			s.AddTool(mcp.Tool{Name: "t", Meta: json.RawMessage(`[1]`)}, "GET /t", ok)
		}, "Meta must be a JSON object"},
		{"meta invalid", func(s *mcp.Server) {
			s.AddTool(mcp.Tool{Name: "t", Meta: json.RawMessage(`{"a":}`)}, "GET /t", ok)
		}, "Meta must be a JSON object"},
		{"meta ui", func(s *mcp.Server) {
			s.AddTool(mcp.Tool{Name: "t", Meta: json.RawMessage(`{"ui":{"resourceUri":"ui://x"}}`)}, "GET /t", ok)
		}, `set "ui" with the UI field`},
		{"meta flat key", func(s *mcp.Server) {
			mcp.AddToolFunc(s, mcp.Tool{Name: "f", Meta: json.RawMessage(`{"ui/resourceUri":"ui://x"}`)}, func(ctx context.Context, in struct{}) (struct{}, error) { return struct{}{}, nil })
		}, "withdrawn form"},
		{"resource meta ui", func(s *mcp.Server) {
			s.AddResource(mcp.Resource{URI: "ui://v", Name: "v", Meta: json.RawMessage(`{"ui":{}}`)}, "GET /v", ok)
		}, `set "ui" with the UI field`},
		{"UI on a non-view", func(s *mcp.Server) {
			s.AddResource(mcp.Resource{URI: "notes://v", Name: "v", UI: &apps.ResourceUI{}}, "GET /v", ok)
		}, "starts with ui://"},
		{"view of another type", func(s *mcp.Server) {
			s.AddResource(mcp.Resource{URI: "ui://v", Name: "v", MIMEType: "text/html"}, "GET /v", ok)
		}, "not text/html"},
		{"csp injection", func(s *mcp.Server) {
			s.AddResource(mcp.Resource{URI: "ui://v", Name: "v", UI: &apps.ResourceUI{CSP: apps.CSP{ConnectDomains: []string{"https://a.example; script-src *"}}}}, "GET /v", ok)
		}, "is not an origin"},
		{"csp no scheme", func(s *mcp.Server) {
			s.AddResource(mcp.Resource{URI: "ui://v", Name: "v", UI: &apps.ResourceUI{CSP: apps.CSP{FrameDomains: []string{"example.com"}}}}, "GET /v", ok)
		}, "is not an origin"},
		{"domain with space", func(s *mcp.Server) {
			s.AddResource(mcp.Resource{URI: "ui://v", Name: "v", UI: &apps.ResourceUI{Domain: "a b"}}, "GET /v", ok)
		}, "UI.Domain"},
		{"a ui:// template", func(s *mcp.Server) {
			s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "ui://views/{id}", Name: "v"}, "GET /v/{id}", ok)
		}, "ui:// names MCP Apps views"},
		{"template meta", func(s *mcp.Server) {
			s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "n://{id}", Name: "n", Meta: json.RawMessage(`"x"`)}, "GET /n/{id}", ok)
		}, "Meta must be a JSON object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
			err := srv.Register(c.add)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Register: %v, want an error with %q", err, c.want)
			}
		})
	}
	for _, c := range []struct {
		name string
		add  func(s *mcp.Server)
	}{
		{"no such view", func(s *mcp.Server) {}},
	} {
		t.Run("freeze/"+c.name, func(t *testing.T) {
			srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
			srv.AddTool(mcp.Tool{Name: "t", UI: &apps.ToolUI{ResourceURI: "ui://views/main"}}, "GET /t", ok)
			c.add(srv)
			defer func() {
				p := recover()
				if p == nil || !strings.Contains(fmt.Sprint(p), "tool t: its view ui://views/main is not a registered resource") {
					t.Errorf("NewHandler: %v", p)
				}
			}()
			mcp.NewHandler(srv, []mcp.Era{era2026.New()})
		})
	}
	// The view may be registered after the tool that names it.
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "t", UI: &apps.ToolUI{ResourceURI: "ui://views/main"}}, "GET /t", ok)
	srv.AddResource(mcp.Resource{URI: "ui://views/main", Name: "main"}, "GET /v", ok)
	mcp.NewHandler(srv, []mcp.Era{era2026.New()})
}

// TestApps_AppOnlyTask: a task of an app-only tool is the view's: polled
// without the extension declared, it is an unknown task, like its tool.
func TestApps_AppOnlyTask(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /jobs", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "/jobs/j1")
		w.WriteHeader(http.StatusAccepted)
	})
	mux.HandleFunc("GET /jobs/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"status":"working"}`)
	})
	mux.HandleFunc("GET /view", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, triageHTML)
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
	srv.AddResource(mcp.Resource{URI: "ui://jobs/view", Name: "view"}, "GET /view", mux)
	srv.AddTool(mcp.Tool{Name: "export", UI: &apps.ToolUI{ResourceURI: "ui://jobs/view", Visibility: []apps.Visibility{apps.App}}},
		"POST /jobs", mux, mcp.WithTask(task.Config{Status: "GET /jobs/{id}"}))
	ts := httptest.NewServer(mcp.NewHandler(srv, []mcp.Era{era2026.New()}, mcp.WithLogger(slog.New(slog.DiscardHandler))))
	defer ts.Close()
	meta := func(ext string) string {
		return `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"extensions":` + ext + `}}`
	}
	both := meta(`{"io.modelcontextprotocol/tasks":{},"io.modelcontextprotocol/ui":{}}`)
	tasksOnly := meta(`{"io.modelcontextprotocol/tasks":{}}`)
	r := rpc(t, ts.URL, "", "", "tools/call", "export", both, `"name":"export","arguments":{}`)
	id := r.str("taskId")
	if r.str("resultType") != "task" || id == "" {
		t.Fatalf("tools/call: %s", r.raw)
	}
	if g := rpc(t, ts.URL, "", "", "tasks/get", id, both, `"taskId":`+quoteJSON(id)); g.str("status") != "working" {
		t.Errorf("tasks/get with the extension: %s", g.raw)
	}
	if g := rpc(t, ts.URL, "", "", "tasks/get", id, tasksOnly, `"taskId":`+quoteJSON(id)); g.code() != -32602 || !strings.Contains(string(g.raw), "Unknown task") {
		t.Errorf("tasks/get without it: %s", g.raw)
	}
}

// TestApps_SealedSession2025: a 2025 client declares the extension on
// initialize when sealed sessions are on (what it declared travels in the
// session id), and then sees the app-only tool on every later request;
// the same client without the declaration, or without sessions, does not.
func TestApps_SealedSession2025(t *testing.T) {
	ring := sessionRing(t, 7)
	const ui = `{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}`
	for _, tc := range []struct {
		name     string
		sessions bool
		caps     string
		want     bool
	}{
		{"sessions, declared", true, ui, true},
		{"sessions, not declared", true, `{}`, false},
		{"no sessions, declared", false, ui, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := appsServer(t, nil)
			if tc.sessions {
				h = appsServerWith(t, era2025.WithSessions(mrtr.NewSealer(ring), time.Hour))
			}
			url := newTestServer(t, h)
			for _, v := range []mcp.Version{mcp.Version20250618, mcp.Version20251125} {
				r := initialize(t, url, "", v, tc.caps)
				hdr := map[string]string{"MCP-Protocol-Version": string(v)}
				if id := r.header.Get("Mcp-Session-Id"); id != "" {
					hdr["Mcp-Session-Id"] = id
				} else if tc.sessions {
					t.Fatalf("%s: initialize minted no session id: %d %s", v, r.status, r.body)
				}
				list := post(t, url, http.MethodPost, "", hdr, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
				if list.status != 200 {
					t.Fatalf("%s: tools/list %d %s", v, list.status, list.body)
				}
				if got := strings.Contains(string(list.body), `"items_mark_done"`); got != tc.want {
					t.Errorf("%s: app-only tool listed = %v, want %v: %s", v, got, tc.want, list.body)
				}
			}
		})
	}
}
