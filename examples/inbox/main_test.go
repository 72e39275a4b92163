package main

// End-to-end tests of the reference server over real HTTP, one per
// statement of the seed document. testdata/seed-statements.md maps each
// statement to its test; TestStatementTable keeps the two in step.

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
)

var eras = []mcp.Version{mcp.Version20260728, mcp.Version20250618, mcp.Version20250326}

// testServer runs the app on a loopback port, its resource URI matching.
type testServer struct {
	base string
	app  *app
}

func start(t *testing.T) *testServer {
	t.Helper()
	return startWith(t, appConfig{queue: 1024, worker: true, perSecond: 50, burst: 100})
}

func startWith(t *testing.T, cfg appConfig) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	a := newAppWith(base+"/mcp", cfg)
	ts := &httptest.Server{Listener: ln, Config: &http.Server{Handler: a.handler}}
	ts.Start()
	t.Cleanup(func() { ts.Close(); a.close() })
	return &testServer{base: base, app: a}
}

type who struct {
	token, workspace string
}

var (
	writer = who{token: "dev-writer"}
	reader = who{token: "dev-reader"}
)

// client speaks era v as w; elicit makes a 2026 client declare form
// elicitation and answer every question with answer.
func (s *testServer) client(v mcp.Version, w who, answer string) *mcptest.Client {
	opts := []mcptest.Option{mcptest.WithHeader("Authorization", "Bearer "+w.token)}
	if w.workspace != "" {
		opts = append(opts, mcptest.WithHeader("X-Workspace-Id", w.workspace))
	}
	if answer != "" {
		opts = append(opts, mcptest.WithCapabilities(json.RawMessage(`{"elicitation":{}}`)),
			mcptest.WithAnswers(func(string, mcptest.InputRequest) (json.RawMessage, bool) { return json.RawMessage(answer), true }))
	}
	return mcptest.Dial(s.base+"/mcp", v, opts...)
}

// rest calls the REST API directly.
func (s *testServer) rest(t *testing.T, method, path string, w who, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, s.base+path, strings.NewReader(body))
	if w.token != "" {
		req.Header.Set("Authorization", "Bearer "+w.token)
	}
	if w.workspace != "" {
		req.Header.Set("X-Workspace-Id", w.workspace)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

type toolResult struct {
	ResultType        string                        `json:"resultType"`
	Content           []struct{ Type, Text string } `json:"content"`
	StructuredContent map[string]any                `json:"structuredContent"`
	IsError           bool                          `json:"isError"`
}

func callTool(t *testing.T, c *mcptest.Client, name string, args any) (*mcptest.Response, toolResult) {
	t.Helper()
	r, err := c.CallTool(context.Background(), name, args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var res toolResult
	_ = json.Unmarshal(r.Result, &res)
	return r, res
}

func call(t *testing.T, c *mcptest.Client, method string, params any) *mcptest.Response {
	t.Helper()
	r, err := c.Call(context.Background(), method, params)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return r
}

func raw(t *testing.T, s *testServer, h http.Header, body string) *mcptest.Response {
	t.Helper()
	r, err := mcptest.Dial(s.base+"/mcp", mcp.Version20250618).Send(context.Background(), h, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func hdr(kv ...string) http.Header {
	h := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer dev-writer"}}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			h.Del(kv[i])
		} else {
			h.Set(kv[i], kv[i+1])
		}
	}
	return h
}

const meta26 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// S1: stateless transport, one JSON object per POST, no session; the
// battery of protocol rules passes with a token, at the level that
// includes this library's stateless profile, with the profile's one
// departure from the specification declared (2025-03-26 batches refused).
func TestSeed_StatelessTransport(t *testing.T) {
	s := start(t)
	mcptest.Run(t, s.app.handler, mcptest.WithClientOptions(mcptest.WithHeader("Authorization", "Bearer dev-writer")),
		mcptest.Strict(), mcptest.Deviation("2025-03-26/batch", "the seed's contract: a batch gets 400 in every revision"))
	for _, v := range eras {
		r := call(t, s.client(v, writer, ""), "tools/list", nil)
		if r.Header.Get("Mcp-Session-Id") != "" || r.Header.Get("Content-Type") != "application/json" || r.Error != nil {
			t.Errorf("%s: %v %s", v, r.Header, r.Raw)
		}
	}
	if r := raw(t, s, hdr(), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`); r.Header.Get("Mcp-Session-Id") != "" {
		t.Error("initialize issued a session")
	}
}

// S2: the three revisions; 2025-06-18 when nothing names one.
func TestSeed_Versions(t *testing.T) {
	s := start(t)
	d := call(t, s.client(mcp.Version20260728, writer, ""), "server/discover", nil)
	var res struct {
		SupportedVersions []string `json:"supportedVersions"`
	}
	_ = json.Unmarshal(d.Result, &res)
	if strings.Join(res.SupportedVersions, ",") != "2026-07-28,2025-06-18,2025-03-26" {
		t.Errorf("supportedVersions %v", res.SupportedVersions)
	}
	r := raw(t, s, hdr(), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if r.Header.Get("Mcp-Protocol-Version") != "2025-06-18" || r.Error != nil {
		t.Errorf("no header: %v %s", r.Header.Get("Mcp-Protocol-Version"), r.Raw)
	}
}

// S3: a 2026 header without the envelope is 400 -32602, never a silent
// fall back.
func TestSeed_ModernHeaderWithoutEnvelope(t *testing.T) {
	s := start(t)
	r := raw(t, s, hdr("MCP-Protocol-Version", "2026-07-28"), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if r.Status != 400 || r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("%d %s", r.Status, r.Raw)
	}
}

// S4: an unknown version, in the header or the envelope, is 400 -32022
// with the supported list and the requested echo.
func TestSeed_UnsupportedVersion(t *testing.T) {
	s := start(t)
	for _, r := range []*mcptest.Response{
		raw(t, s, hdr("MCP-Protocol-Version", "1999-01-01"), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`),
		raw(t, s, hdr("MCP-Protocol-Version", "1999-01-01", "Mcp-Method", "tools/list"),
			`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`),
	} {
		if r.Status != 400 || r.Error == nil || r.Error.Code != -32022 || r.Error.Message != "Unsupported protocol version" ||
			string(r.Error.Data) != `{"supported":["2026-07-28","2025-06-18","2025-03-26"],"requested":"1999-01-01"}` {
			t.Errorf("%d %s", r.Status, r.Raw)
		}
	}
	// The contract names three revisions: a 2025-11-25 client's header is
	// refused like any unknown revision, and its initialize negotiates
	// down to 2025-06-18.
	r := raw(t, s, hdr("MCP-Protocol-Version", "2025-11-25"), `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if r.Status != 400 || r.Error == nil || string(r.Error.Data) != `{"supported":["2026-07-28","2025-06-18","2025-03-26"],"requested":"2025-11-25"}` {
		t.Errorf("2025-11-25 header: %d %s", r.Status, r.Raw)
	}
	r = raw(t, s, hdr("MCP-Protocol-Version", "2025-11-25"),
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	if r.Status != 200 || !strings.Contains(string(r.Result), `"protocolVersion":"2025-06-18"`) {
		t.Errorf("2025-11-25 initialize: %d %s", r.Status, r.Raw)
	}
}

// S5: the revision in use comes back in MCP-Protocol-Version.
func TestSeed_VersionHeaderEchoed(t *testing.T) {
	s := start(t)
	for _, v := range eras {
		if r := call(t, s.client(v, writer, ""), "tools/list", nil); r.Header.Get("Mcp-Protocol-Version") != string(v) {
			t.Errorf("%s: %q", v, r.Header.Get("Mcp-Protocol-Version"))
		}
	}
}

// S6: the 2026 envelope: clientCapabilities required (400 -32602),
// clientInfo optional.
func TestSeed_Envelope(t *testing.T) {
	s := start(t)
	h := hdr("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list")
	r := raw(t, s, h, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	if r.Status != 400 || r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("no clientCapabilities: %d %s", r.Status, r.Raw)
	}
	if r := raw(t, s, h, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+meta26+`}}`); r.Status != 200 || r.Error != nil {
		t.Errorf("no clientInfo: %d %s", r.Status, r.Raw)
	}
}

// S7: MCP-Protocol-Version, Mcp-Method and Mcp-Name must repeat the body
// (Mcp-Name plain or base64 sentinel); any mismatch is 400 -32020.
func TestSeed_HeadersMatchBody(t *testing.T) {
	s := start(t)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"emails_list","arguments":{},` + meta26 + `}}`
	for name, c := range map[string]struct {
		h    http.Header
		want int
	}{
		"all match":       {hdr("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "emails_list"), 200},
		"base64 sentinel": {hdr("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "=?base64?ZW1haWxzX2xpc3Q=?="), 200},
		"version differs": {hdr("MCP-Protocol-Version", "2025-06-18", "Mcp-Method", "tools/call", "Mcp-Name", "emails_list"), -32020},
		"method differs":  {hdr("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list", "Mcp-Name", "emails_list"), -32020},
		"name differs":    {hdr("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "emails_get"), -32020},
		"name missing":    {hdr("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call"), -32020},
	} {
		r := raw(t, s, c.h, body)
		if (c.want == 200 && (r.Status != 200 || r.Error != nil)) || (c.want != 200 && (r.Status != 400 || r.Error == nil || int(r.Error.Code) != c.want)) {
			t.Errorf("%s: %d %s", name, r.Status, r.Raw)
		}
	}
}

// S8: 2026 results carry resultType and serverInfo; discover, lists and
// reads carry ttlMs 0 and cacheScope private.
func TestSeed_ResultStamps(t *testing.T) {
	s := start(t)
	c := s.client(mcp.Version20260728, writer, "")
	cacheable := map[string]any{"server/discover": nil, "tools/list": nil, "resources/list": nil, "resources/templates/list": nil,
		"prompts/list": nil, "resources/read": map[string]string{"uri": "inbox://docs/getting-started"}}
	for m, p := range cacheable {
		var res struct {
			ResultType string                     `json:"resultType"`
			TTLMs      *int64                     `json:"ttlMs"`
			CacheScope string                     `json:"cacheScope"`
			Meta       map[string]json.RawMessage `json:"_meta"`
		}
		r := call(t, c, m, p)
		_ = json.Unmarshal(r.Result, &res)
		if res.ResultType != "complete" || res.TTLMs == nil || *res.TTLMs != 0 || res.CacheScope != "private" || res.Meta["io.modelcontextprotocol/serverInfo"] == nil {
			t.Errorf("%s: %s", m, r.Raw)
		}
	}
	r, res := callTool(t, c, "emails_list", map[string]any{})
	if res.ResultType != "complete" || strings.Contains(string(r.Result), "ttlMs") {
		t.Errorf("tools/call stamp: %s", r.Raw)
	}
}

var destructive = []string{"emails_reprocess", "emails_delete", "inboxes_update_senders", "webhooks_send_test", "webhooks_resend", "webhooks_rotate_secret"}

// S9 + S25: every destructive tool waits for the user's confirmation: a
// 2026 client with elicitation gets input_required and the store changes
// only after accept; decline changes nothing; a 2025 client gets
// confirmation_required; a 2026 client without elicitation gets -32021.
func TestSeed_DestructiveConfirmation(t *testing.T) {
	args := map[string]map[string]any{
		"emails_reprocess":       {"id": "eml_globex_0003"},
		"emails_delete":          {"id": "eml_globex_0002"},
		"inboxes_update_senders": {"id": "inb_globex_ops", "senders": []string{"new@partner.test"}},
		"webhooks_send_test":     {"id": "whk_globex_ops"},
		"webhooks_resend":        {"id": "whk_globex_ops", "delivery_id": "dlv_globex_0001"},
		"webhooks_rotate_secret": {"id": "whk_globex_ops"},
	}
	// state reads what the tool would change, through the REST API.
	state := func(t *testing.T, s *testServer, tool string) string {
		var path string
		switch tool {
		case "emails_reprocess", "emails_delete":
			path = "/api/v1/emails/" + args[tool]["id"].(string)
		case "inboxes_update_senders":
			path = "/api/v1/inboxes/inb_globex_ops"
		default:
			path = "/api/v1/webhooks/whk_globex_ops"
		}
		_, b := s.rest(t, "GET", path, writer, "")
		s.app.store.mu.Lock()
		n := len(s.app.store.deliveries) + len(s.app.store.jobs)
		s.app.store.mu.Unlock()
		return b + "|" + strconv.Itoa(n)
	}
	for _, tool := range destructive {
		t.Run(tool, func(t *testing.T) {
			s := start(t)
			before := state(t, s, tool)
			for _, v := range []mcp.Version{mcp.Version20250618, mcp.Version20250326} {
				r, res := callTool(t, s.client(v, writer, ""), tool, args[tool])
				if !res.IsError || !strings.Contains(res.Content[0].Text, "Do not retry") || (v == mcp.Version20250618 && res.StructuredContent["outcome"] != "confirmation_required") {
					t.Errorf("%s: %s", v, r.Raw)
				}
			}
			if r, _ := callTool(t, s.client(mcp.Version20260728, writer, ""), tool, args[tool]); r.Status != 400 || r.Error == nil || r.Error.Code != -32021 {
				t.Errorf("2026 without elicitation: %d %s", r.Status, r.Raw)
			}
			// Round 1 only: a client that leaves the question unanswered.
			asker := mcptest.Dial(s.base+"/mcp", mcp.Version20260728, mcptest.WithHeader("Authorization", "Bearer dev-writer"),
				mcptest.WithCapabilities(json.RawMessage(`{"elicitation":{}}`)))
			r, res := callTool(t, asker, tool, args[tool])
			if res.ResultType != "input_required" || !strings.Contains(string(r.Result), `"confirm"`) {
				t.Fatalf("round 1: %s", r.Raw)
			}
			_, _ = callTool(t, s.client(mcp.Version20260728, writer, `{"action":"decline"}`), tool, args[tool])
			if after := state(t, s, tool); after != before {
				t.Fatalf("the store changed before an accept:\n%s\n%s", before, after)
			}
			r, res = callTool(t, s.client(mcp.Version20260728, writer, `{"action":"accept","content":{"confirm":true}}`), tool, args[tool])
			if res.IsError || res.ResultType != "complete" {
				t.Fatalf("accepted: %s", r.Raw)
			}
			waitJobs(t, s)
			if after := state(t, s, tool); after == before {
				t.Errorf("the store did not change after accept")
			}
		})
	}
}

// waitJobs waits (at most 2 s) until every job has finished.
func waitJobs(t *testing.T, s *testServer) {
	t.Helper()
	for range 100 {
		s.app.store.mu.Lock()
		pending := 0
		for _, j := range s.app.store.jobs {
			if j.Status != "succeeded" {
				pending++
			}
		}
		s.app.store.mu.Unlock()
		if pending == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("jobs did not finish within 2 s")
}

// S10: X-Workspace-Id selects the workspace when the organization has
// several; Origin is checked against the allow-list.
func TestSeed_WorkspaceAndOrigin(t *testing.T) {
	s := start(t)
	for _, v := range eras {
		r, _ := callTool(t, s.client(v, who{token: "dev-admin"}, ""), "emails_list", map[string]any{})
		if r.Status != 400 || r.Error == nil || r.Error.Code != -32602 || !strings.Contains(string(r.Error.Data), "workspace_required") {
			t.Errorf("%s admin without workspace: %d %s", v, r.Status, r.Raw)
		}
		_, res := callTool(t, s.client(v, who{"dev-admin", "ws_acme_staging"}, ""), "emails_list", map[string]any{})
		if !strings.Contains(res.Content[0].Text, "eml_acme_0004") || strings.Contains(res.Content[0].Text, "eml_acme_0001") {
			t.Errorf("%s staging: %s", v, res.Content[0].Text)
		}
		r, _ = callTool(t, s.client(v, who{"dev-admin", "ws_globex"}, ""), "emails_list", map[string]any{})
		if r.Status != 403 || r.Error == nil || r.Error.Code != -31403 {
			t.Errorf("%s another organization's workspace: %d %s", v, r.Status, r.Raw)
		}
	}
	if d := call(t, s.client(mcp.Version20260728, who{token: "dev-admin"}, ""), "server/discover", nil); d.Error != nil {
		t.Errorf("discover needs no workspace: %s", d.Raw)
	}
	if r := raw(t, s, hdr("Origin", "https://evil.example.com"), `{"jsonrpc":"2.0","id":1,"method":"ping"}`); r.Status != 403 {
		t.Errorf("evil origin: %d", r.Status)
	}
	if r := raw(t, s, hdr("Origin", "http://localhost:3000"), `{"jsonrpc":"2.0","id":1,"method":"ping"}`); r.Status != 200 {
		t.Errorf("loopback origin: %d %s", r.Status, r.Raw)
	}
}

// S11: X-RateLimit-* on every response, Cache-Control no-store always,
// 429 with Retry-After when the budget is spent.
func TestSeed_ResponseHeaders(t *testing.T) {
	s := start(t)
	var last *mcptest.Response
	for i := 0; i < 120; i++ { // the per-principal burst is 100
		last = raw(t, s, hdr(), `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		if last.Header.Get("Cache-Control") != "no-store" {
			t.Fatalf("Cache-Control %q", last.Header.Get("Cache-Control"))
		}
		if i == 0 && (last.Header.Get("X-Ratelimit-Limit") != "100" || last.Header.Get("X-Ratelimit-Remaining") == "" || last.Header.Get("X-Ratelimit-Reset") == "") {
			t.Errorf("rate headers %v", last.Header)
		}
		if last.Status == 429 {
			break
		}
	}
	if last.Status != 429 || last.Header.Get("Retry-After") == "" || last.Error == nil || last.Error.Code != -31429 {
		t.Errorf("after the burst: %d %v %s", last.Status, last.Header, last.Raw)
	}
}

// S12: each method in its era; others -32601 (404 in 2026, 200 in 2025);
// batches 400.
func TestSeed_Methods(t *testing.T) {
	s := start(t)
	both := map[string]any{"tools/list": nil, "resources/list": nil, "resources/templates/list": nil, "prompts/list": nil,
		"resources/read":      map[string]string{"uri": "inbox://docs/getting-started"},
		"prompts/get":         map[string]any{"name": "summarize_email", "arguments": map[string]string{"email_id": "eml_globex_0001"}},
		"completion/complete": map[string]any{"ref": map[string]string{"type": "ref/prompt", "name": "summarize_email"}, "argument": map[string]string{"name": "email_id", "value": "eml_"}}}
	for _, v := range eras {
		c := s.client(v, writer, "")
		for m, p := range both {
			if r := call(t, c, m, p); r.Error != nil || r.Status != 200 {
				t.Errorf("%s %s: %s", v, m, r.Raw)
			}
		}
		var only, other []string
		if v == mcp.Version20260728 {
			only, other = []string{"server/discover"}, []string{"initialize", "ping", "logging/setLevel", "no/such"}
		} else {
			only, other = []string{"ping"}, []string{"server/discover", "resources/subscribe", "no/such"}
		}
		for _, m := range only {
			if r := call(t, c, m, nil); r.Error != nil {
				t.Errorf("%s %s: %s", v, m, r.Raw)
			}
		}
		for _, m := range other {
			r := call(t, c, m, nil)
			want := 200
			if v == mcp.Version20260728 {
				want = 404
			}
			if r.Status != want || r.Error == nil || r.Error.Code != -32601 {
				t.Errorf("%s %s: %d %s", v, m, r.Status, r.Raw)
			}
		}
	}
	if r := raw(t, s, hdr(), `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`); r.Status != 400 {
		t.Errorf("batch: %d", r.Status)
	}
}

// S13: bodies over 1 MB are 413 -32600.
func TestSeed_BodyLimit(t *testing.T) {
	s := start(t)
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("a", 1<<20) + `"}}`
	if r := raw(t, s, hdr(), big); r.Status != 413 || r.Error == nil || r.Error.Code != -32600 {
		t.Errorf("%d %s", r.Status, r.Raw)
	}
}

// S14: a notification is accepted with 202 and an empty body.
func TestSeed_Notifications(t *testing.T) {
	s := start(t)
	if r := raw(t, s, hdr(), `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.Status != 202 || len(r.Raw) != 0 {
		t.Errorf("%d %q", r.Status, r.Raw)
	}
}

// S15: authentication comes before any method, server/discover included:
// without a token, the 401 challenge that starts the OAuth login.
func TestSeed_AuthFirst(t *testing.T) {
	s := start(t)
	for _, r := range []*mcptest.Response{
		raw(t, s, hdr("Authorization", "", "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "server/discover"), `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta26+`}}`),
		raw(t, s, hdr("Authorization", ""), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`),
	} {
		want := `Bearer resource_metadata="` + s.base + `/.well-known/oauth-protected-resource/mcp", scope="inbox:read"`
		if r.Status != 401 || r.Header.Get("WWW-Authenticate") != want {
			t.Errorf("%d %q", r.Status, r.Header.Get("WWW-Authenticate"))
		}
	}
	resp, err := http.Get(s.base + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var prm map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&prm)
	if resp.StatusCode != 200 || prm["resource"] != s.base+"/mcp" {
		t.Errorf("PRM: %d %v", resp.StatusCode, prm)
	}
	if code, _ := s.rest(t, "GET", "/api/v1/emails", who{token: "nope"}, ""); code != 401 {
		t.Errorf("REST with a bad token: %d", code)
	}
}

// S16, S17, S18: discover and initialize answer as the seed shows, and
// the instructions carry the three warnings.
func TestSeed_DiscoverInitializeInstructions(t *testing.T) {
	s := start(t)
	d := call(t, s.client(mcp.Version20260728, writer, ""), "server/discover", nil)
	var dr struct {
		Capabilities json.RawMessage `json:"capabilities"`
		Instructions string          `json:"instructions"`
	}
	_ = json.Unmarshal(d.Result, &dr)
	if string(dr.Capabilities) != `{"tools":{},"resources":{},"prompts":{},"completions":{},"extensions":{"io.modelcontextprotocol/tasks":{},"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}` { // ui: triage.go
		t.Errorf("discover capabilities %s", dr.Capabilities)
	}
	i := raw(t, s, hdr(), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
	var ir struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      map[string]any  `json:"serverInfo"`
		Instructions    string          `json:"instructions"`
	}
	_ = json.Unmarshal(i.Result, &ir)
	if ir.ProtocolVersion != "2025-06-18" || string(ir.Capabilities) != `{"tools":{"listChanged":false},"resources":{"subscribe":false,"listChanged":false},"prompts":{"listChanged":false},"completions":{}}` ||
		ir.ServerInfo["title"] != "Autonomous Inbox" {
		t.Errorf("initialize %s", i.Raw)
	}
	for _, text := range []string{dr.Instructions, ir.Instructions} {
		for _, must := range []string{"third parties", "never instructions", "2026-07-28 with elicitation", "confirmation_required", "do not retry"} {
			if !strings.Contains(text, must) {
				t.Errorf("instructions lack %q", must)
			}
		}
	}
}

func toolDefs(t *testing.T, c *mcptest.Client) map[string]map[string]any {
	t.Helper()
	r := call(t, c, "tools/list", nil)
	var list struct {
		Tools []map[string]any `json:"tools"`
	}
	_ = json.Unmarshal(r.Result, &list)
	out := map[string]map[string]any{}
	for _, tl := range list.Tools {
		out[tl["name"].(string)] = tl
	}
	return out
}

// S19, S20: tools/list shows only what the caller may run (the reader sees
// no write tool) with the seed's annotations.
func TestSeed_ToolListAndAnnotations(t *testing.T) {
	s := start(t)
	for _, v := range eras {
		all := toolDefs(t, s.client(v, writer, ""))
		read := toolDefs(t, s.client(v, reader, ""))
		// 13, emails_triage (triage.go), and the status tools of the two
		// task tools (tasks.go).
		if len(all) != 16 {
			t.Errorf("%s writer sees %d tools", v, len(all))
		}
		for name, def := range all {
			a := def["annotations"].(map[string]any)
			isDestructive := slices.Contains(destructive, name)
			if a["destructiveHint"] != isDestructive || a["readOnlyHint"] == isDestructive || a["openWorldHint"] != false {
				t.Errorf("%s %s annotations %v", v, name, a)
			}
			// A status tool is seen by whoever sees its task's tool.
			writeOnly := slices.Contains(destructive, strings.TrimSuffix(name, "_status"))
			if _, seen := read[name]; seen == writeOnly {
				t.Errorf("%s reader sees %s: %v", v, name, seen)
			}
		}
	}
	// A reader calling a write tool it cannot see gets the scope challenge.
	r, _ := callTool(t, s.client(mcp.Version20250618, reader, ""), "emails_delete", map[string]any{"id": "eml_globex_0001"})
	if r.Status != 403 || !strings.Contains(r.Header.Get("WWW-Authenticate"), `scope="inbox:read inbox:write"`) {
		t.Errorf("reader calling a write tool: %d %v %s", r.Status, r.Header, r.Raw)
	}
}

// S21: a tool call's result is the endpoint's JSON answer as text: the
// same bytes the REST API gives the same caller.
func TestSeed_ResultIsEndpointJSON(t *testing.T) {
	s := start(t)
	_, rest := s.rest(t, "GET", "/api/v1/emails?limit=2&status=processed", writer, "")
	for _, v := range eras {
		_, res := callTool(t, s.client(v, writer, ""), "emails_list", map[string]any{"status": "processed", "limit": 2})
		if len(res.Content) != 1 || res.Content[0].Type != "text" || res.Content[0].Text != strings.TrimSpace(rest) {
			t.Errorf("%s:\n%v\n%s", v, res.Content, rest)
		}
		if !regexp.MustCompile(`^\{"data":\[.*\],"meta":\{"next_cursor":`).MatchString(res.Content[0].Text) {
			t.Errorf("%s: not the envelope: %s", v, res.Content[0].Text)
		}
	}
}

// S22: errors the caller can act on come back as isError results with the
// endpoint's JSON error, not as JSON-RPC errors.
func TestSeed_ActionableErrors(t *testing.T) {
	s := start(t)
	for _, v := range eras {
		c := s.client(v, writer, "")
		for name, args := range map[string]map[string]any{
			"emails_get":  {"id": "eml_missing"},
			"emails_list": {"limit": 500}, // out of range: the schema refuses it
			"jobs_get":    {"id": "job_nope"},
			"inboxes_get": {"id": "inb_acme_billing"}, // another organization's: 404 from the route
		} {
			r, res := callTool(t, c, name, args)
			if r.Error != nil || !res.IsError || len(res.Content) == 0 {
				t.Errorf("%s %s: %s", v, name, r.Raw)
			}
		}
		// A validation error of the route itself: its 422 JSON, for the model.
		_, res := callTool(t, c, "emails_list", map[string]any{"cursor": "!!"})
		if !res.IsError || !strings.Contains(res.Content[0].Text, `"invalid_parameter"`) {
			t.Errorf("%s route validation: %v", v, res.Content)
		}
	}
}

// S23: identity goes to the routes in-process and ids stay in their path
// segment: ../ or %2F in an id never reaches another route, and another
// organization's records are never found.
func TestSeed_InProcessDispatchConfinement(t *testing.T) {
	s := start(t)
	for _, v := range eras {
		c := s.client(v, writer, "")
		for _, id := range []string{"../inboxes/inb_globex_ops", "eml_globex_0001/../../inboxes/inb_globex_ops", "..%2Finboxes%2Finb_globex_ops", "eml_acme_0001"} {
			_, res := callTool(t, c, "emails_get", map[string]any{"id": id})
			if !res.IsError || strings.Contains(res.Content[0].Text, "allowed_senders") || strings.Contains(res.Content[0].Text, "Boleto") {
				t.Errorf("%s id %q: %v", v, id, res.Content)
			}
		}
	}
	// The route itself refuses a REST caller without a token, so only the
	// verified identity the endpoint passes in-process lets tools run.
	if code, _ := s.rest(t, "GET", "/api/v1/emails/eml_globex_0001", who{}, ""); code != 401 {
		t.Errorf("REST without a token: %d", code)
	}
}

// S26: long operations answer 202 with a job a background worker
// completes; the job is readable.
func TestSeed_Jobs(t *testing.T) {
	s := start(t)
	code, body := s.rest(t, "POST", "/api/v1/emails/eml_globex_0003/reprocess", writer, "")
	if code != 202 || !strings.Contains(body, `"status":"queued"`) {
		t.Fatalf("reprocess: %d %s", code, body)
	}
	var created struct{ Data job }
	_ = json.Unmarshal([]byte(body), &created)
	c := s.client(mcp.Version20250618, writer, "")
	for range 100 {
		_, res := callTool(t, c, "jobs_get", map[string]any{"id": created.Data.ID})
		if strings.Contains(res.Content[0].Text, `"status":"succeeded"`) {
			if _, e := s.rest(t, "GET", "/api/v1/emails/eml_globex_0003", writer, ""); !strings.Contains(e, `"status":"processed"`) {
				t.Errorf("email after the job: %s", e)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the job did not finish within 2 s")
}

// S27: REST semantics the tools inherit: cursor pagination and filters,
// validation errors as 4xx JSON, soft delete, upsert by natural key.
func TestSeed_RESTSemantics(t *testing.T) {
	s := start(t)
	_, p1 := s.rest(t, "GET", "/api/v1/emails?limit=2", writer, "")
	var page struct {
		Data []email
		Meta struct {
			NextCursor *string `json:"next_cursor"`
		}
	}
	_ = json.Unmarshal([]byte(p1), &page)
	if len(page.Data) != 2 || page.Meta.NextCursor == nil {
		t.Fatalf("page 1: %s", p1)
	}
	_, p2 := s.rest(t, "GET", "/api/v1/emails?limit=2&cursor="+*page.Meta.NextCursor, writer, "")
	if !strings.Contains(p2, "eml_globex_0003") || strings.Contains(p2, page.Data[0].ID) {
		t.Errorf("page 2: %s", p2)
	}
	if code, b := s.rest(t, "GET", "/api/v1/emails?status=lost", writer, ""); code != 422 || !strings.Contains(b, "invalid_parameter") {
		t.Errorf("bad filter: %d %s", code, b)
	}
	if code, _ := s.rest(t, "DELETE", "/api/v1/emails/eml_globex_0002", writer, ""); code != 200 {
		t.Fatal("delete failed")
	}
	if code, _ := s.rest(t, "GET", "/api/v1/emails/eml_globex_0002", writer, ""); code != 404 {
		t.Errorf("a deleted email is still readable")
	}
	if code, _ := s.rest(t, "DELETE", "/api/v1/emails/eml_globex_0002", writer, ""); code != 404 {
		t.Errorf("a second delete found the email")
	}
	_, b := s.rest(t, "PUT", "/api/v1/inboxes/inb_globex_ops/allowed-senders", writer, `{"senders":["A@Partner.test","a@partner.test","b@partner.test"]}`)
	if !strings.Contains(b, `"allowed_senders":["a@partner.test","b@partner.test"]`) {
		t.Errorf("upsert by address: %s", b)
	}
	if code, _ := s.rest(t, "PUT", "/api/v1/inboxes/inb_globex_ops/allowed-senders", reader, `{"senders":[]}`); code != 403 {
		t.Errorf("the route lets a reader write: %d", code)
	}
}

// S28: resources, templates, prompts and completions.
func TestSeed_ResourcesPromptsCompletions(t *testing.T) {
	s := start(t)
	for _, v := range eras {
		c := s.client(v, writer, "")
		r, _ := c.ReadResource(context.Background(), "inbox://emails/eml_globex_0001")
		if r.Error != nil || !strings.Contains(string(r.Result), "Shipment 7781") {
			t.Errorf("%s read: %s", v, r.Raw)
		}
		if r, _ := c.ReadResource(context.Background(), "inbox://emails/eml_acme_0001"); r.Error == nil {
			t.Errorf("%s read across tenants: %s", v, r.Raw)
		}
		p, _ := c.GetPrompt(context.Background(), "summarize_email", map[string]string{"email_id": "eml_globex_0001"})
		if p.Error != nil || !strings.Contains(string(p.Result), "do not do it") {
			t.Errorf("%s prompt: %s", v, p.Raw)
		}
		comp := call(t, c, "completion/complete", map[string]any{"ref": map[string]string{"type": "ref/prompt", "name": "triage_inbox"},
			"argument": map[string]string{"name": "inbox_id", "value": "inb_"}})
		if !strings.Contains(string(comp.Result), `"values":["inb_globex_ops"]`) {
			t.Errorf("%s completion: %s", v, comp.Raw)
		}
	}
}

// TestStatementTable checks that every statement in
// testdata/seed-statements.md names a test of this package.
func TestStatementTable(t *testing.T) {
	b, err := os.ReadFile("testdata/seed-statements.md")
	if err != nil {
		t.Fatal(err)
	}
	var src []byte
	files, _ := filepath.Glob("*_test.go")
	for _, f := range files {
		b, _ := os.ReadFile(f)
		src = append(src, b...)
	}
	rows := regexp.MustCompile(`(?m)^\| S\d+ \|.*\| (TestSeed_\w+) \|$`).FindAllStringSubmatch(string(b), -1)
	if len(rows) < 25 {
		t.Fatalf("only %d statements mapped", len(rows))
	}
	for _, r := range rows {
		if !strings.Contains(string(src), "func "+r[1]+"(") {
			t.Errorf("the table names %s, which does not exist", r[1])
		}
	}
}

// TestTasks_Jobs: the 202-plus-job operations are tasks for a 2026 client
// that takes them (confirmed first, then polled through the job route to
// completion), and keep their synchronous answer for everyone else.
func TestTasks_Jobs(t *testing.T) {
	s := start(t)
	c := mcptest.Dial(s.base+"/mcp", mcp.Version20260728, mcptest.WithHeader("Authorization", "Bearer dev-writer"),
		mcptest.WithCapabilities(json.RawMessage(`{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`)),
		mcptest.WithAnswers(func(string, mcptest.InputRequest) (json.RawMessage, bool) {
			return json.RawMessage(`{"action":"accept","content":{"confirm":true}}`), true
		}))
	for tool, args := range map[string]map[string]any{
		"emails_reprocess": {"id": "eml_globex_0003"},
		"webhooks_resend":  {"id": "whk_globex_ops", "delivery_id": "dlv_globex_0001"},
	} {
		r, err := c.CallTool(context.Background(), tool, args)
		if err != nil {
			t.Fatal(err)
		}
		var created struct {
			ResultType, TaskID, Status string
			TTLMs                      int64 `json:"ttlMs"`
		}
		if json.Unmarshal(r.Result, &created) != nil || created.ResultType != "task" || created.TaskID == "" ||
			created.Status != "working" || created.TTLMs != time.Hour.Milliseconds() {
			t.Fatalf("%s: %s", tool, r.Raw)
		}
		var got struct {
			Status string
			Result toolResult
		}
		for i := 0; got.Status != "completed"; i++ {
			if i == 100 {
				t.Fatalf("%s: not completed after 2 s: %+v", tool, got)
			}
			time.Sleep(20 * time.Millisecond)
			g := call(t, c, "tasks/get", map[string]any{"taskId": created.TaskID})
			if g.Error != nil || json.Unmarshal(g.Result, &got) != nil {
				t.Fatalf("%s: tasks/get: %s", tool, g.Raw)
			}
		}
		if got.Result.IsError || !strings.Contains(got.Result.Content[0].Text, `"status":"succeeded"`) {
			t.Errorf("%s: completed result %+v", tool, got.Result)
		}
		// Another caller cannot read it.
		other := mcptest.Dial(s.base+"/mcp", mcp.Version20260728, mcptest.WithHeader("Authorization", "Bearer dev-reader"),
			mcptest.WithCapabilities(json.RawMessage(`{"extensions":{"io.modelcontextprotocol/tasks":{}}}`)))
		if g := call(t, other, "tasks/get", map[string]any{"taskId": created.TaskID}); g.Error == nil || g.Error.Code != -32602 {
			t.Errorf("%s: another caller's tasks/get: %s", tool, g.Raw)
		}
	}
	// A client without the extension follows the job through the
	// generated status tool (TestTasks_StatusTool).
}

// TestTasks_StatusTool: a 2026-07-28 client without the tasks extension
// gets a job reference naming the generated status tool, and follows the
// reprocess and resend jobs to completion through it; another caller
// cannot read the reference.
func TestTasks_StatusTool(t *testing.T) {
	s := start(t)
	c := s.client(mcp.Version20260728, writer, `{"action":"accept","content":{"confirm":true}}`)
	for tool, args := range map[string]map[string]any{
		"emails_reprocess": {"id": "eml_globex_0003"},
		"webhooks_resend":  {"id": "whk_globex_ops", "delivery_id": "dlv_globex_0001"},
	} {
		r, res := callTool(t, c, tool, args)
		ref, _ := res.StructuredContent["taskId"].(string)
		if res.ResultType != "complete" || res.IsError || ref == "" || res.StructuredContent["statusTool"] != tool+"_status" ||
			!strings.Contains(res.Content[0].Text, tool+"_status") || !strings.Contains(res.Content[0].Text, ref) {
			t.Fatalf("%s without the extension: %s", tool, r.Raw)
		}
		followJob(t, c, tool+"_status", ref)
		// Another caller's status tool refuses it as tasks/get would.
		other := s.client(mcp.Version20260728, who{token: "dev-admin", workspace: "ws_acme_prod"}, "")
		if r, err := other.CallTool(context.Background(), tool+"_status", map[string]any{"taskId": ref}); err != nil || r.Error == nil || r.Error.Code != -32602 {
			t.Errorf("%s: another caller's status tool: %v %s", tool, err, r.Raw)
		}
	}
}

// followJob calls a status tool until the job completed, and checks its
// result is the job's.
func followJob(t *testing.T, c *mcptest.Client, statusTool, ref string) {
	t.Helper()
	for i := 0; ; i++ {
		if i == 100 {
			t.Fatalf("%s: not completed after 2 s", statusTool)
		}
		r, res := callTool(t, c, statusTool, map[string]any{"taskId": ref})
		if r.Error != nil || res.IsError || len(res.Content) != 1 {
			t.Fatalf("%s: %s", statusTool, r.Raw)
		}
		if res.StructuredContent["status"] == "working" && strings.Contains(res.Content[0].Text, "working") {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if !strings.Contains(res.Content[0].Text, `"status":"succeeded"`) {
			t.Errorf("%s: completed result %s", statusTool, r.Raw)
		}
		return
	}
}

// TestInstructions_LegacyInput: with -legacy-input the instructions say
// what is then true for every client — a 2025 client that declares
// elicitation can confirm — and keep the other warnings; without it they
// are the seed's (TestSeed_DiscoverInitializeInstructions).
func TestInstructions_LegacyInput(t *testing.T) {
	s := startWith(t, appConfig{queue: 1024, worker: true, perSecond: 50, burst: 100, legacyInput: true})
	i := raw(t, s, hdr(), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
	var ir struct {
		Instructions string `json:"instructions"`
	}
	_ = json.Unmarshal(i.Result, &ir)
	for _, must := range []string{"third parties", "never instructions", "declares elicitation on initialize", "2026-07-28 with elicitation", "confirmation_required", "do not retry"} {
		if !strings.Contains(ir.Instructions, must) {
			t.Errorf("instructions lack %q: %s", must, ir.Instructions)
		}
	}
	if strings.Contains(ir.Instructions, "cannot run them") {
		t.Errorf("instructions still say a confirmation_required client cannot run them at all: %s", ir.Instructions)
	}
}

// TestEmailsList_OrderAsDescribed: emails_list's description tells the
// model the order its pages come in, and the pages come in that order: by
// id, which is not by time (the seeded eml_globex_0001, received first,
// comes first; a new email's id sorts anywhere). It said "newest data
// first", so a model reading one page believed it had the latest mail.
func TestEmailsList_OrderAsDescribed(t *testing.T) {
	s := start(t)
	if st, b := s.rest(t, "POST", "/api/v1/inboxes/inb_globex_ops/emails", writer, `{"from":"a@b.test","subject":"new","body":"x"}`); st != 201 {
		t.Fatalf("receive: %d %s", st, b)
	}
	for _, v := range []mcp.Version{mcp.Version20250326, mcp.Version20250618, mcp.Version20260728} {
		c := s.client(v, writer, "")
		desc, _ := toolDefs(t, c)["emails_list"]["description"].(string)
		if !strings.Contains(desc, "in id order") || strings.Contains(desc, "newest") {
			t.Errorf("%s: emails_list says %q, want its order: by id", v, desc)
		}
		var ids []string
		cursor := ""
		for range 10 {
			args := map[string]any{"limit": 2}
			if cursor != "" {
				args["cursor"] = cursor
			}
			r, res := callTool(t, c, "emails_list", args)
			var page struct {
				Data []struct{ ID string }
				Meta struct {
					NextCursor *string `json:"next_cursor"`
				}
			}
			if res.IsError || len(res.Content) != 1 || json.Unmarshal([]byte(res.Content[0].Text), &page) != nil {
				t.Fatalf("%s: %s", v, r.Raw)
			}
			for _, e := range page.Data {
				ids = append(ids, e.ID)
			}
			if page.Meta.NextCursor == nil {
				cursor = ""
				break
			}
			cursor = *page.Meta.NextCursor
		}
		if cursor != "" || len(ids) != 4 || !sort.StringsAreSorted(ids) {
			t.Errorf("%s: pages gave %v, want all 4 emails in id order", v, ids)
		}
	}
}

// TestInstructions_HowToFollowAJob: what the server tells the model about
// long operations matches what their answer holds. A confirmed
// emails_reprocess or webhooks_resend answers with a sealed reference and
// the status tool to follow it (record 025), not the job's id, so "read it
// with jobs_get" (the instructions, the getting-started document and
// emails_reprocess's description said so) sent the model to a tool it had
// no argument for. Checked in every revision that serves the texts.
func TestInstructions_HowToFollowAJob(t *testing.T) {
	s := start(t)
	d := call(t, s.client(mcp.Version20260728, writer, ""), "server/discover", nil)
	i := raw(t, s, hdr(), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
	texts := map[string]string{}
	for name, r := range map[string]*mcptest.Response{"discover": d, "initialize": i} {
		var v struct{ Instructions string }
		_ = json.Unmarshal(r.Result, &v)
		texts[name] = v.Instructions
	}
	for _, v := range []mcp.Version{mcp.Version20250326, mcp.Version20250618, mcp.Version20260728} {
		c := s.client(v, writer, "")
		r := call(t, c, "resources/read", map[string]string{"uri": "inbox://docs/getting-started"})
		var rr struct{ Contents []struct{ Text string } }
		if json.Unmarshal(r.Result, &rr) != nil || len(rr.Contents) != 1 {
			t.Fatalf("%s getting-started: %s", v, r.Raw)
		}
		texts[string(v)+" getting-started"] = rr.Contents[0].Text
		defs := toolDefs(t, c)
		for _, tool := range []string{"emails_reprocess", "webhooks_resend"} {
			texts[string(v)+" "+tool] = defs[tool]["description"].(string)
		}
	}
	// What a long operation's answer names: its status tool.
	c := s.client(mcp.Version20260728, writer, `{"action":"accept","content":{"confirm":true}}`)
	for _, tool := range []string{"emails_reprocess", "webhooks_resend"} {
		args := map[string]any{"id": "eml_globex_0003"}
		if tool == "webhooks_resend" {
			args = map[string]any{"id": "whk_globex_ops", "delivery_id": "dlv_globex_0001"}
		}
		r, res := callTool(t, c, tool, args)
		status, _ := res.StructuredContent["statusTool"].(string)
		if status != tool+"_status" || strings.Contains(res.Content[0].Text, `"job_`) {
			t.Fatalf("%s's answer: %s", tool, r.Raw)
		}
		for where, text := range texts {
			if strings.Contains(where, "webhooks_resend") && tool != "webhooks_resend" || strings.Contains(where, "emails_reprocess") && tool != "emails_reprocess" {
				continue
			}
			if !strings.Contains(text, status) {
				t.Errorf("%s does not name %s, which %s's answer says to call: %q", where, status, tool, text)
			}
		}
	}
	for where, text := range texts {
		if strings.Contains(text, "read it with jobs_get") || strings.Contains(text, "see jobs_get") {
			t.Errorf("%s sends the model to jobs_get, for which a long operation's answer holds no id: %q", where, text)
		}
	}
}
