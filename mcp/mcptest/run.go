package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/schema"
	"github.com/mcpdual/mcpdual/mcp"
)

// RunOption configures Run.
type RunOption interface{ applyRun(*runConfig) }

type runConfig struct {
	client   []Option
	skip     map[string]bool
	examples map[string]any // tool name -> example arguments
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

// WithToolExamples turns on the check "tools/read-only-examples": every
// read-only tool (readOnlyHint true) is called, in every revision the
// server serves, with the example arguments given for it by name, and must
// answer a result that is not an error and that matches its outputSchema.
// A read-only tool without an example fails the check, so a new tool
// cannot slip through. It catches a tool routed to the wrong handler or
// refused by the host's own middleware, which the protocol checks cannot
// see.
func WithToolExamples(examples map[string]any) RunOption {
	return runOptionFunc(func(c *runConfig) {
		if c.examples == nil {
			c.examples = map[string]any{}
		}
		for k, v := range examples {
			c.examples[k] = v
		}
	})
}

// Run checks h against the transport, era, envelope, header and error
// rules of the revisions it serves, one subtest per rule: the answers any
// MCP server must give, whoever built it. It learns what h serves from
// server/discover and initialize, and skips what does not apply. Every
// request has a timeout (DefaultTimeout, or WithTimeout through
// WithClientOptions).
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

// battery is what the checks share: the handler, a client of each era and
// what the server said it serves.
type battery struct {
	h              http.Handler
	cfg            *runConfig
	ctx            context.Context
	modern, legacy *Client
	serves2026     bool
	serves2025     bool
	supported      []mcp.Version
	caps           map[string]json.RawMessage
	discover, init *Response
}

// check is one rule of the battery.
type check struct {
	name    string
	applies func(b *battery) bool
	run     func(b *battery, t tb)
}

func always(*battery) bool        { return true }
func only2026(b *battery) bool    { return b.serves2026 }
func only2025(b *battery) bool    { return b.serves2025 }
func hasTools(b *battery) bool    { return b.caps["tools"] != nil }
func hasExamples(b *battery) bool { return b.cfg.examples != nil && hasTools(b) }

var checks = []check{
	{"transport/get-is-405", always, (*battery).getIs405},
	{"transport/content-type-required", always, (*battery).contentTypeRequired},
	{"transport/no-session-and-no-store", always, (*battery).noSessionNoStore},
	{"transport/json-content-type", always, (*battery).jsonContentType},
	{"envelope/batch-refused", always, (*battery).batchRefused},
	{"envelope/parse-error", always, (*battery).parseError},
	{"envelope/duplicate-member", always, (*battery).duplicateMember},
	{"envelope/notification-accepted", always, (*battery).notificationAccepted},
	{"envelope/id-echoed-exactly", always, (*battery).idEchoed},
	{"2026/discover", only2026, (*battery).discover2026},
	{"2026/unsupported-version", only2026, (*battery).unsupportedVersion},
	{"2026/header-mismatch", only2026, (*battery).headerMismatch},
	{"2026/client-capabilities-required", only2026, (*battery).capabilitiesRequired},
	{"2026/unknown-and-removed-methods-404", only2026, (*battery).removedMethods},
	{"2026/lists-are-stamped", only2026, (*battery).listsStamped},
	{"2025/initialize-negotiates", only2025, (*battery).initializeNegotiates},
	{"2025/ping", only2025, (*battery).ping},
	{"2025/unknown-method-in-band", only2025, (*battery).unknownMethodInBand},
	{"2025/unsupported-header-version", only2025, (*battery).unsupportedHeaderVersion},
	{"tools/unknown-tool-in-band", hasTools, (*battery).unknownTool},
	{"tools/definitions", hasTools, (*battery).toolDefinitions},
	{"tools/read-only-examples", hasExamples, (*battery).readOnlyExamples},
}

func run(t tb, h http.Handler, opts []RunOption) {
	t.Helper()
	cfg := &runConfig{skip: map[string]bool{}}
	for _, o := range opts {
		o.applyRun(cfg)
	}
	b := &battery{h: h, cfg: cfg, ctx: context.Background(),
		modern: New(h, mcp.Version20260728, cfg.client...), legacy: New(h, mcp.Version20250618, cfg.client...)}
	b.learn()
	if !b.serves2026 && !b.serves2025 {
		t.Fatalf("mcptest: the handler answers neither server/discover nor initialize (discover: %v; initialize: %v)", describe(b.discover), describe(b.init))
	}
	for _, c := range checks {
		t.Run(c.name, func(t tb) {
			if cfg.skip[c.name] {
				t.Skip("skipped by mcptest.Skip")
			}
			if !c.applies(b) {
				t.Skip("does not apply to this server")
			}
			c.run(b, t)
		})
	}
}

// learn asks the server what it serves.
func (b *battery) learn() {
	d, err := b.modern.Call(b.ctx, "server/discover", nil)
	b.discover = d
	b.serves2026 = err == nil && d.Error == nil && d.Status == http.StatusOK
	if b.serves2026 {
		var r struct {
			SupportedVersions []mcp.Version              `json:"supportedVersions"`
			Capabilities      map[string]json.RawMessage `json:"capabilities"`
		}
		_ = json.Unmarshal(d.Result, &r)
		b.supported, b.caps = r.SupportedVersions, r.Capabilities
	}
	init, err := b.legacy.Initialize(b.ctx)
	b.init = init
	b.serves2025 = err == nil && init.Error == nil && init.Status == http.StatusOK
	if b.serves2025 && b.caps == nil {
		var r struct {
			Capabilities map[string]json.RawMessage `json:"capabilities"`
		}
		_ = json.Unmarshal(init.Result, &r)
		b.caps = r.Capabilities
	}
}

// clients returns a client of each era the server serves.
func (b *battery) clients() []*Client {
	var out []*Client
	if b.serves2026 {
		out = append(out, b.modern)
	}
	if b.serves2025 {
		out = append(out, b.legacy, New(b.h, mcp.Version20250326, b.cfg.client...))
	}
	return out
}

func (b *battery) post(t tb, c *Client, h http.Header, body string) *Response {
	t.Helper()
	r, err := c.Send(b.ctx, h, []byte(body))
	if err != nil {
		t.Fatalf("%v", err)
	}
	return r
}

func jsonHeaders(extra ...string) http.Header {
	h := http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}}
	for i := 0; i+1 < len(extra); i += 2 {
		h.Set(extra[i], extra[i+1])
	}
	return h
}

const meta2026 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func h26(method string) http.Header {
	return jsonHeaders("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method)
}

func (b *battery) getIs405(t tb) {
	ctx, cancel := context.WithTimeout(b.ctx, b.legacy.timeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://localhost/mcp", nil)
	req.Header.Set("Accept", "text/event-stream")
	// A server that answers GET with a stream it holds open must fail the
	// check, not hang the run.
	resp, err := inProcess(b.h)(req)
	if err != nil {
		t.Fatalf("GET: %v (a stateless server answers 405 at once)", err)
	}
	if resp.StatusCode != http.StatusMethodNotAllowed || !strings.Contains(resp.Header.Get("Allow"), "POST") {
		t.Errorf("GET: status %d, Allow %q; want 405 with Allow: POST", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

func (b *battery) contentTypeRequired(t tb) {
	r := b.post(t, b.legacy, http.Header{"Content-Type": {"text/plain"}}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	wantStatus(t, r, 400, 499)
}

func (b *battery) noSessionNoStore(t tb) {
	for _, r := range []*Response{b.discover, b.init} {
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
}

// jsonContentType: a response that is one JSON object says so.
func (b *battery) jsonContentType(t tb) {
	responses := []*Response{b.discover, b.init}
	for _, c := range b.clients() {
		if r, err := c.Call(b.ctx, "tools/list", nil); err == nil {
			responses = append(responses, r)
		}
	}
	responses = append(responses, b.post(t, b.legacy, jsonHeaders(), `{"jsonrpc":"2.0","id":1,`))
	for _, r := range responses {
		if r == nil || len(r.Raw) == 0 {
			continue
		}
		if mt, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";"); mt != "application/json" {
			t.Errorf("Content-Type %q for a JSON body (status %d): %s", r.Header.Get("Content-Type"), r.Status, truncate(r.Raw))
		}
	}
}

func (b *battery) batchRefused(t tb) {
	r := b.post(t, b.legacy, jsonHeaders(), `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`)
	wantError(t, r, 400, mcp.CodeInvalidRequest, "")
}

func (b *battery) parseError(t tb) {
	r := b.post(t, b.legacy, jsonHeaders(), `{"jsonrpc":"2.0","id":1,`)
	wantError(t, r, 400, mcp.CodeParseError, "")
}

func (b *battery) duplicateMember(t tb) {
	r := b.post(t, b.legacy, jsonHeaders(), `{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}`)
	wantStatus(t, r, 400, 400)
}

func (b *battery) notificationAccepted(t tb) {
	r := b.post(t, b.legacy, jsonHeaders(), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if !b.serves2025 {
		r = b.post(t, b.modern, h26("notifications/cancelled"), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{`+meta2026+`}}`)
	}
	if r.Status != http.StatusAccepted || len(strings.TrimSpace(string(r.Raw))) != 0 {
		t.Errorf("notification: %d %q; want 202 with no body", r.Status, r.Raw)
	}
}

func (b *battery) idEchoed(t tb) {
	c := b.legacy
	body := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}` }
	hdr := jsonHeaders("MCP-Protocol-Version", string(b.legacy.Version()))
	if b.serves2026 {
		c = b.modern
		body = func(id string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"method":"server/discover","params":{` + meta2026 + `}}`
		}
		hdr = h26("server/discover")
	}
	for _, id := range []string{`9007199254740993`, `"id-é"`, `0`} {
		r := b.post(t, c, hdr, body(id))
		if string(r.ID) != id {
			t.Errorf("id %s echoed as %s", id, r.ID)
		}
	}
}

func (b *battery) discover2026(t tb) {
	var r struct {
		ResultType string                     `json:"resultType"`
		TTLMs      *int64                     `json:"ttlMs"`
		CacheScope string                     `json:"cacheScope"`
		Meta       map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(b.discover.Result, &r)
	if !slices.Contains(b.supported, mcp.Version20260728) || r.ResultType != "complete" || r.TTLMs == nil ||
		(r.CacheScope != "private" && r.CacheScope != "public") {
		t.Errorf("server/discover: %s", b.discover.Raw)
	}
	if b.discover.Header.Get("MCP-Protocol-Version") != "2026-07-28" {
		t.Errorf("MCP-Protocol-Version = %q", b.discover.Header.Get("MCP-Protocol-Version"))
	}
}

func (b *battery) unsupportedVersion(t tb) {
	r := b.post(t, b.modern, jsonHeaders("MCP-Protocol-Version", "v999.0.0", "Mcp-Method", "server/discover"),
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
}

func (b *battery) headerMismatch(t tb) {
	r := b.post(t, b.modern, jsonHeaders("MCP-Protocol-Version", "2025-06-18", "Mcp-Method", "server/discover"),
		`{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{`+meta2026+`}}`)
	wantError(t, r, 400, mcp.CodeHeaderMismatch, "2")
	r = b.post(t, b.modern, h26("tools/list"), `{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{`+meta2026+`}}`)
	wantError(t, r, 400, mcp.CodeHeaderMismatch, "3")
}

func (b *battery) capabilitiesRequired(t tb) {
	r := b.post(t, b.modern, h26("server/discover"),
		`{"jsonrpc":"2.0","id":4,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`)
	wantError(t, r, 400, mcp.CodeInvalidParams, "4")
}

func (b *battery) removedMethods(t tb) {
	for _, m := range []string{"no/such/method", "initialize", "ping", "logging/setLevel", "resources/subscribe"} {
		r := b.post(t, b.modern, h26(m), `{"jsonrpc":"2.0","id":5,"method":"`+m+`","params":{`+meta2026+`}}`)
		wantError(t, r, 404, mcp.CodeMethodNotFound, "5")
	}
}

func (b *battery) listsStamped(t tb) {
	for _, kind := range []string{"tools", "resources", "prompts"} {
		if _, ok := b.caps[kind]; !ok {
			continue
		}
		method := kind + "/list"
		r, err := b.modern.Call(b.ctx, method, nil)
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
			ttl := "absent"
			if s.TTLMs != nil {
				ttl = fmt.Sprint(*s.TTLMs)
			}
			t.Errorf("%s: resultType %q, ttlMs %s, cacheScope %q; want complete, a ttlMs >= 0 and private or public", method, s.ResultType, ttl, s.CacheScope)
		}
	}
}

func (b *battery) initializeNegotiates(t tb) {
	for _, asked := range []string{"2025-06-18", "2024-01-01"} {
		c := New(b.h, mcp.Version20250618, b.cfg.client...)
		r, err := c.Call(b.ctx, "initialize", map[string]any{"protocolVersion": asked, "capabilities": map[string]any{}, "clientInfo": map[string]string{"name": "mcptest", "version": "1"}})
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
		// Any handshake revision will do, but not 2026-07-28 (it has no
		// handshake) and not nothing.
		if res.ProtocolVersion == "" || res.ProtocolVersion.Compare(mcp.Version20260728) >= 0 {
			t.Errorf("asked %s, got %q: not a handshake revision", asked, res.ProtocolVersion)
		}
	}
}

func (b *battery) ping(t tb) {
	r, err := b.legacy.Call(b.ctx, "ping", nil)
	if err != nil || r.Error != nil || strings.TrimSpace(string(r.Result)) != "{}" {
		t.Errorf("ping: %v %s", err, describe(r))
	}
}

func (b *battery) unknownMethodInBand(t tb) {
	r, err := b.legacy.Call(b.ctx, "no/such/method", nil)
	if err != nil {
		t.Fatalf("%v", err)
	}
	wantError(t, r, 200, mcp.CodeMethodNotFound, string(r.ID))
}

func (b *battery) unsupportedHeaderVersion(t tb) {
	r := b.post(t, b.legacy, jsonHeaders("MCP-Protocol-Version", "1999-01-01"), `{"jsonrpc":"2.0","id":6,"method":"ping"}`)
	wantStatus(t, r, 400, 400)
}

func (b *battery) unknownTool(t tb) {
	for _, c := range b.clients() {
		r, err := c.CallTool(b.ctx, "mcptest_no_such_tool", map[string]any{})
		if err != nil {
			t.Fatalf("%v", err)
		}
		wantError(t, r, 200, mcp.CodeInvalidParams, string(r.ID))
	}
}

// listedTool is a tool definition as tools/list sends it.
type listedTool struct {
	Name         string          `json:"name"`
	InputSchema  map[string]any  `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
	Annotations  map[string]any  `json:"annotations"`
}

// tools lists every tool c sees, following cursors.
func (b *battery) tools(t tb, c *Client) []listedTool {
	t.Helper()
	var all []listedTool
	cursor := ""
	for range 100 {
		var p any
		if cursor != "" {
			p = map[string]string{"cursor": cursor}
		}
		r, err := c.Call(b.ctx, "tools/list", p)
		if err != nil || r.Error != nil {
			t.Fatalf("tools/list: %v %s", err, describe(r))
		}
		var page struct {
			Tools      []listedTool `json:"tools"`
			NextCursor string       `json:"nextCursor"`
		}
		if err := json.Unmarshal(r.Result, &page); err != nil {
			t.Fatalf("tools/list: %v %s", err, truncate(r.Raw))
		}
		all = append(all, page.Tools...)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	return all
}

func (b *battery) toolDefinitions(t tb) {
	seen := map[string]bool{}
	for _, tl := range b.tools(t, b.clients()[0]) {
		if tl.Name == "" || seen[tl.Name] || tl.InputSchema["type"] != "object" {
			t.Errorf("tool %q: needs a unique name and an object inputSchema", tl.Name)
		}
		seen[tl.Name] = true
		for k, v := range tl.Annotations {
			switch k {
			case "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint":
				if _, ok := v.(bool); !ok {
					t.Errorf("tool %q: annotation %s is %T (%v), want a boolean", tl.Name, k, v, v)
				}
			case "title":
				if _, ok := v.(string); !ok {
					t.Errorf("tool %q: annotation title is %T, want a string", tl.Name, v)
				}
			}
		}
		if tl.OutputSchema != nil {
			var out map[string]any
			if json.Unmarshal(tl.OutputSchema, &out) != nil || out["type"] != "object" {
				t.Errorf("tool %q: outputSchema must be an object schema with type \"object\"", tl.Name)
			}
		}
	}
}

// readOnlyExamples calls every read-only tool with its example arguments.
func (b *battery) readOnlyExamples(t tb) {
	for _, c := range b.clients() {
		listed := b.tools(t, c)
		names := map[string]bool{}
		for _, tl := range listed {
			names[tl.Name] = true
			if ro, _ := tl.Annotations["readOnlyHint"].(bool); !ro {
				continue
			}
			args, ok := b.cfg.examples[tl.Name]
			if !ok {
				t.Errorf("read-only tool %q has no example arguments: give it one with WithToolExamples, or skip this check", tl.Name)
				continue
			}
			b.callExample(t, c, tl, args)
		}
		for _, name := range slices.Sorted(maps.Keys(b.cfg.examples)) {
			if !names[name] {
				t.Errorf("%s: WithToolExamples names %q, which tools/list does not show", c.Version(), name)
			}
		}
	}
}

func (b *battery) callExample(t tb, c *Client, tl listedTool, args any) {
	t.Helper()
	v := c.Version()
	r, err := c.CallTool(b.ctx, tl.Name, args)
	if err != nil || r.Error != nil {
		t.Errorf("%s %s: %v %s", v, tl.Name, err, describe(r))
		return
	}
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           bool            `json:"isError"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Errorf("%s %s: result is not a CallToolResult: %s", v, tl.Name, truncate(r.Raw))
		return
	}
	if res.IsError {
		t.Errorf("%s %s answered isError: %s (a route refusing the in-process identity, or the wrong route, answers like this; a server's log may say more)",
			v, tl.Name, truncate(r.Result))
		return
	}
	if tl.OutputSchema == nil {
		return
	}
	data := res.StructuredContent
	if data == nil {
		if v.Compare(mcp.Version20250618) >= 0 {
			t.Errorf("%s %s: no structuredContent though the tool has an outputSchema", v, tl.Name)
			return
		}
		if len(res.Content) == 1 && res.Content[0].Type == "text" {
			data = json.RawMessage(res.Content[0].Text) // 2025-03-26 has no structuredContent
		}
	}
	s, err := schema.Compile(tl.OutputSchema)
	if err != nil {
		t.Errorf("%s %s: outputSchema does not compile: %v", v, tl.Name, err)
		return
	}
	var doc any
	err = jsonrpc.Validate(data, jsonrpc.DefaultMaxDepth)
	if err == nil {
		doc, err = schema.Decode(data, 0)
	}
	if err != nil {
		t.Errorf("%s %s: the result is not the JSON its outputSchema describes: %s", v, tl.Name, truncate(data))
		return
	}
	if violations := s.Validate(doc, 10); violations != nil {
		t.Errorf("%s %s: the result does not match its outputSchema:\n  %s\nresult: %s", v, tl.Name, strings.Join(violations, "\n  "), truncate(data))
	}
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
