package mcptest

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/mcp"
)

// RunOption configures Run.
type RunOption interface{ applyRun(*runConfig) }

type runConfig struct {
	client []Option
	skip   map[string]bool
}

type runOptionFunc func(*runConfig)

func (f runOptionFunc) applyRun(c *runConfig) { f(c) }

// WithClientOptions passes options (such as WithHeader for a token) to
// every client the battery creates.
func WithClientOptions(opts ...Option) RunOption {
	return runOptionFunc(func(c *runConfig) { c.client = append(c.client, opts...) })
}

// Skip leaves out the named checks (the names Run gives its subtests).
func Skip(names ...string) RunOption {
	return runOptionFunc(func(c *runConfig) {
		for _, n := range names {
			c.skip[n] = true
		}
	})
}

// Run checks h against the transport, era, envelope, header and error
// rules of the revisions it serves, one subtest per rule: the answers any
// MCP server must give, whoever built it. It learns what h serves from
// server/discover and initialize, and skips what does not apply.
func Run(t *testing.T, h http.Handler, opts ...RunOption) {
	t.Helper()
	run(stdT{t}, h, opts)
}

// tb is the part of *testing.T the battery uses, so that its own tests
// can watch it fail.
type tb interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Skip(args ...any)
	Run(name string, f func(t tb)) bool
}

type stdT struct{ *testing.T }

func (s stdT) Run(name string, f func(t tb)) bool {
	return s.T.Run(name, func(t *testing.T) { f(stdT{t}) })
}

func run(t tb, h http.Handler, opts []RunOption) {
	t.Helper()
	cfg := &runConfig{skip: map[string]bool{}}
	for _, o := range opts {
		o.applyRun(cfg)
	}
	ctx := context.Background()
	modern := New(h, mcp.Version20260728, cfg.client...)
	legacy := New(h, mcp.Version20250618, cfg.client...)

	var supported []mcp.Version
	var caps map[string]json.RawMessage
	d, err := modern.Call(ctx, "server/discover", nil)
	serves2026 := err == nil && d.Error == nil && d.Status == http.StatusOK
	if serves2026 {
		var r struct {
			SupportedVersions []mcp.Version              `json:"supportedVersions"`
			Capabilities      map[string]json.RawMessage `json:"capabilities"`
		}
		_ = json.Unmarshal(d.Result, &r)
		supported, caps = r.SupportedVersions, r.Capabilities
	}
	init, err := legacy.Initialize(ctx)
	serves2025 := err == nil && init.Error == nil && init.Status == http.StatusOK
	if serves2025 && caps == nil {
		var r struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		}
		_ = json.Unmarshal(init.Result, &r)
		caps = r.Capabilities
	}
	if !serves2026 && !serves2025 {
		t.Fatalf("mcptest: the handler answers neither server/discover nor initialize (discover: %v; initialize: %v)", describe(d), describe(init))
	}

	check := func(name string, applies bool, f func(t tb)) {
		t.Run(name, func(t tb) {
			if cfg.skip[name] {
				t.Skip("skipped by mcptest.Skip")
			}
			if !applies {
				t.Skip("does not apply to this server")
			}
			f(t)
		})
	}
	post := func(t tb, c *Client, h http.Header, body string) *Response {
		t.Helper()
		r, err := c.Send(ctx, h, []byte(body))
		if err != nil {
			t.Fatalf("mcptest: %v", err)
		}
		return r
	}
	jsonHeaders := func(extra ...string) http.Header {
		h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
		for i := 0; i+1 < len(extra); i += 2 {
			h.Set(extra[i], extra[i+1])
		}
		return h
	}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	h26 := func(method string) http.Header {
		return jsonHeaders("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method)
	}

	check("transport/get-is-405", true, func(t tb) {
		req, _ := http.NewRequest(http.MethodGet, "http://localhost/mcp", nil)
		req.Header.Set("Accept", "text/event-stream")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		rec := w.Result()
		if rec.StatusCode != http.StatusMethodNotAllowed || !strings.Contains(rec.Header.Get("Allow"), "POST") {
			t.Errorf("GET: status %d, Allow %q; want 405 with Allow: POST", rec.StatusCode, rec.Header.Get("Allow"))
		}
	})
	check("transport/content-type-required", true, func(t tb) {
		r := post(t, legacy, http.Header{"Content-Type": {"text/plain"}}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		wantStatus(t, r, 400, 499)
	})
	check("transport/no-session-and-no-store", true, func(t tb) {
		for _, r := range []*Response{d, init} {
			if r == nil {
				continue
			}
			if r.Header.Get("Mcp-Session-Id") != "" {
				t.Errorf("a stateless server sent Mcp-Session-Id")
			}
			if r.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("Cache-Control = %q, want no-store", r.Header.Get("Cache-Control"))
			}
		}
	})
	check("envelope/batch-refused", true, func(t tb) {
		r := post(t, legacy, jsonHeaders(), `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
		wantError(t, r, 400, mcp.CodeInvalidRequest, "")
	})
	check("envelope/parse-error", true, func(t tb) {
		r := post(t, legacy, jsonHeaders(), `{"jsonrpc":"2.0","id":1,`)
		wantError(t, r, 400, mcp.CodeParseError, "")
	})
	check("envelope/duplicate-member", true, func(t tb) {
		r := post(t, legacy, jsonHeaders(), `{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}`)
		wantStatus(t, r, 400, 400)
	})
	check("envelope/notification-accepted", true, func(t tb) {
		r := post(t, legacy, jsonHeaders(), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		if !serves2025 {
			r = post(t, modern, h26("notifications/cancelled"), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{`+meta+`}}`)
		}
		if r.Status != http.StatusAccepted || len(strings.TrimSpace(string(r.Raw))) != 0 {
			t.Errorf("notification: %d %q; want 202 with no body", r.Status, r.Raw)
		}
	})
	check("envelope/id-echoed-exactly", true, func(t tb) {
		c := legacy
		body := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}` }
		hdr := jsonHeaders("MCP-Protocol-Version", string(legacy.Version()))
		if serves2026 {
			c = modern
			body = func(id string) string {
				return `{"jsonrpc":"2.0","id":` + id + `,"method":"server/discover","params":{` + meta + `}}`
			}
			hdr = h26("server/discover")
		}
		for _, id := range []string{`9007199254740993`, `"id-é"`, `0`} {
			r := post(t, c, hdr, body(id))
			if string(r.ID) != id {
				t.Errorf("id %s echoed as %s", id, r.ID)
			}
		}
	})

	check("2026/discover", serves2026, func(t tb) {
		var r struct {
			ResultType string                     `json:"resultType"`
			TTLMs      *int64                     `json:"ttlMs"`
			CacheScope string                     `json:"cacheScope"`
			Meta       map[string]json.RawMessage `json:"_meta"`
		}
		_ = json.Unmarshal(d.Result, &r)
		if !slices.Contains(supported, mcp.Version20260728) || r.ResultType != "complete" || r.TTLMs == nil ||
			(r.CacheScope != "private" && r.CacheScope != "public") {
			t.Errorf("server/discover: %s", d.Raw)
		}
		if d.Header.Get("MCP-Protocol-Version") != "2026-07-28" {
			t.Errorf("MCP-Protocol-Version = %q", d.Header.Get("MCP-Protocol-Version"))
		}
	})
	check("2026/unsupported-version", serves2026, func(t tb) {
		r := post(t, modern, jsonHeaders("MCP-Protocol-Version", "v999.0.0", "Mcp-Method", "server/discover"),
			`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}}}`)
		wantError(t, r, 400, mcp.CodeUnsupportedProtocolVersion, "1")
		var data struct {
			Supported []string `json:"supported"`
			Requested string   `json:"requested"`
		}
		if r.Error != nil {
			_ = json.Unmarshal(r.Error.Data, &data)
		}
		if len(data.Supported) == 0 || data.Requested != "v999.0.0" {
			t.Errorf("data %s: want supported and requested", errData(r))
		}
	})
	check("2026/header-mismatch", serves2026, func(t tb) {
		r := post(t, modern, jsonHeaders("MCP-Protocol-Version", "2025-06-18", "Mcp-Method", "server/discover"),
			`{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{`+meta+`}}`)
		wantError(t, r, 400, mcp.CodeHeaderMismatch, "2")
		r = post(t, modern, h26("tools/list"), `{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{`+meta+`}}`)
		wantError(t, r, 400, mcp.CodeHeaderMismatch, "3")
	})
	check("2026/client-capabilities-required", serves2026, func(t tb) {
		r := post(t, modern, h26("server/discover"),
			`{"jsonrpc":"2.0","id":4,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
		wantError(t, r, 400, mcp.CodeInvalidParams, "4")
	})
	check("2026/unknown-and-removed-methods-404", serves2026, func(t tb) {
		for _, m := range []string{"no/such/method", "initialize", "ping", "logging/setLevel", "resources/subscribe"} {
			r := post(t, modern, h26(m), `{"jsonrpc":"2.0","id":5,"method":"`+m+`","params":{`+meta+`}}`)
			wantError(t, r, 404, mcp.CodeMethodNotFound, "5")
		}
	})
	check("2026/lists-are-stamped", serves2026, func(t tb) {
		for cap, method := range map[string]string{"tools": "tools/list", "resources": "resources/list", "prompts": "prompts/list"} {
			if _, ok := caps[cap]; !ok {
				continue
			}
			r, err := modern.Call(ctx, method, nil)
			if err != nil || r.Error != nil {
				t.Fatalf("%s: %v %s", method, err, describe(r))
			}
			var s struct {
				ResultType string `json:"resultType"`
				TTLMs      *int64 `json:"ttlMs"`
				CacheScope string `json:"cacheScope"`
			}
			_ = json.Unmarshal(r.Result, &s)
			if s.ResultType != "complete" || s.TTLMs == nil || *s.TTLMs < 0 || (s.CacheScope != "private" && s.CacheScope != "public") {
				t.Errorf("%s: resultType %q ttlMs %v cacheScope %q", method, s.ResultType, s.TTLMs, s.CacheScope)
			}
		}
	})
	check("2025/initialize-negotiates", serves2025, func(t tb) {
		for _, asked := range []string{"2025-06-18", "2024-01-01"} {
			c := New(h, mcp.Version20250618, cfg.client...)
			r, err := c.Call(ctx, "initialize", map[string]any{"protocolVersion": asked, "capabilities": map[string]any{}, "clientInfo": map[string]string{"name": "mcptest", "version": "1"}})
			if err != nil || r.Error != nil || r.Status != http.StatusOK {
				t.Fatalf("initialize %s: %v %s", asked, err, describe(r))
			}
			var res struct {
				ProtocolVersion mcp.Version `json:"protocolVersion"`
			}
			_ = json.Unmarshal(r.Result, &res)
			if asked == "2025-06-18" && res.ProtocolVersion != mcp.Version20250618 {
				t.Errorf("asked 2025-06-18, got %q", res.ProtocolVersion)
			}
			if res.ProtocolVersion != mcp.Version20250618 && res.ProtocolVersion != mcp.Version20250326 {
				t.Errorf("asked %s, got %q: not a handshake revision", asked, res.ProtocolVersion)
			}
		}
	})
	check("2025/ping", serves2025, func(t tb) {
		r, err := legacy.Call(ctx, "ping", nil)
		if err != nil || r.Error != nil || strings.TrimSpace(string(r.Result)) != "{}" {
			t.Errorf("ping: %v %s", err, describe(r))
		}
	})
	check("2025/unknown-method-in-band", serves2025, func(t tb) {
		r, err := legacy.Call(ctx, "no/such/method", nil)
		if err != nil {
			t.Fatalf("%v", err)
		}
		wantError(t, r, 200, mcp.CodeMethodNotFound, string(r.ID))
	})
	check("2025/unsupported-header-version", serves2025, func(t tb) {
		r := post(t, legacy, jsonHeaders("MCP-Protocol-Version", "1999-01-01"), `{"jsonrpc":"2.0","id":6,"method":"ping"}`)
		wantStatus(t, r, 400, 400)
	})
	check("tools/unknown-tool-in-band", caps["tools"] != nil, func(t tb) {
		for _, c := range []*Client{modern, legacy} {
			if (c == modern && !serves2026) || (c == legacy && !serves2025) {
				continue
			}
			r, err := c.CallTool(ctx, "mcptest_no_such_tool", map[string]any{})
			if err != nil {
				t.Fatalf("%v", err)
			}
			wantError(t, r, 200, mcp.CodeInvalidParams, string(r.ID))
		}
	})
	check("tools/definitions", caps["tools"] != nil, func(t tb) {
		c := legacy
		if serves2026 {
			c = modern
		}
		r, err := c.Call(ctx, "tools/list", nil)
		if err != nil || r.Error != nil {
			t.Fatalf("tools/list: %v %s", err, describe(r))
		}
		var list struct {
			Tools []struct {
				Name        string         `json:"name"`
				InputSchema map[string]any `json:"inputSchema"`
			} `json:"tools"`
		}
		_ = json.Unmarshal(r.Result, &list)
		seen := map[string]bool{}
		for _, tl := range list.Tools {
			if tl.Name == "" || seen[tl.Name] || tl.InputSchema["type"] != "object" {
				t.Errorf("tool %q: needs a unique name and an object inputSchema", tl.Name)
			}
			seen[tl.Name] = true
		}
	})
}

func describe(r *Response) string {
	if r == nil {
		return "no response"
	}
	return string(r.Raw)
}

func errData(r *Response) string {
	if r == nil || r.Error == nil {
		return "none"
	}
	return string(r.Error.Data)
}

func wantStatus(t tb, r *Response, lo, hi int) {
	t.Helper()
	if r.Status < lo || r.Status > hi {
		t.Errorf("status %d, want %d..%d: %s", r.Status, lo, hi, r.Raw)
	}
}

// wantError checks status, code and id ("" wants no id).
func wantError(t tb, r *Response, status int, code mcp.Code, id string) {
	t.Helper()
	if r.Status != status || r.Error == nil || r.Error.Code != code {
		t.Errorf("got %d %s, want HTTP %d with code %d", r.Status, r.Raw, status, code)
		return
	}
	if string(r.ID) != id {
		t.Errorf("id %s, want %q", r.ID, id)
	}
}
