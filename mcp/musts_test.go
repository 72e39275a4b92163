package mcp_test

// Rules of the numbered MUST list (../shared/reference/spec-digest.md)
// and the 2025 revisions' transport rules that no other test held. Each
// runs over real HTTP, in every revision its rule applies to, and names
// the MUST it holds.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/content"
	"github.com/mcpdual/mcpdual/mrtr"
)

// specPost posts body with the headers a correct client of era sends
// (plus extra) and returns the status, the headers and the raw body.
func specPost(t *testing.T, url string, era mcp.Version, method, name, body string, extra map[string]string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if era != "" {
		req.Header.Set("MCP-Protocol-Version", string(era))
	}
	if era == mcp.Version20260728 {
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
	}
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

// specBody builds a request body; a 2026-07-28 one carries the _meta
// envelope (with extraMeta members) and caps as its clientCapabilities.
func specBody(era mcp.Version, id int, method, params, caps, extraMeta string) string {
	var meta string
	if era == mcp.Version20260728 {
		if caps == "" {
			caps = "{}"
		}
		meta = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":` + caps
	}
	if extraMeta != "" {
		meta = strings.TrimPrefix(meta+","+extraMeta, ",")
	}
	members := params
	if meta != "" {
		members = strings.TrimPrefix(`"_meta":{`+meta+`},`+params, ",")
		members = strings.TrimSuffix(members, ",")
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s}}`, id, method, members)
}

type specMsg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// sseMessages decodes the data lines of an event stream.
func sseMessages(t *testing.T, body []byte) []specMsg {
	t.Helper()
	var out []specMsg
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var m specMsg
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("event %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

var specEras = []mcp.Version{mcp.Version20260728, mcp.Version20251125, mcp.Version20250618, mcp.Version20250326}

// TestMUST076_ProgressIncreases: "The progress value MUST increase with
// each notification, even if the total is unknown" (basic/utilities/
// progress, every revision), and a server's notifications carry no id
// (MUST 15). A handler reporting 1, 1, 0.5, 2 must put 1 and 2 on the wire.
func TestMUST076_ProgressIncreases(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Implementation{Name: "progress", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "work"}, func(ctx context.Context, in struct{}) (struct{}, error) {
		c := mcp.CallFromContext(ctx)
		for _, p := range []float64{1, 1, 0.5, 2} {
			c.Progress(p, 0, "")
		}
		return struct{}{}, nil
	})
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithStreaming(),
		mcp.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))))
	for _, era := range specEras {
		t.Run(string(era), func(t *testing.T) {
			body := specBody(era, 7, "tools/call", `"name":"work","arguments":{}`, "", `"progressToken":"tok"`)
			status, hdr, raw := specPost(t, url, era, "tools/call", "work", body, nil)
			if status != 200 || !strings.HasPrefix(hdr.Get("Content-Type"), "text/event-stream") {
				t.Fatalf("got %d %q: %s", status, hdr.Get("Content-Type"), raw)
			}
			msgs := sseMessages(t, raw)
			var got []float64
			for i, m := range msgs {
				if m.Method == "" {
					if i != len(msgs)-1 || string(m.ID) != "7" || m.Result == nil {
						t.Errorf("message %d is not the final result with id 7: %+v", i, m)
					}
					continue
				}
				if m.Method != "notifications/progress" || m.ID != nil {
					t.Errorf("notification %d: method %q id %s (a notification has no id)", i, m.Method, m.ID)
				}
				var p struct {
					Token    string  `json:"progressToken"`
					Progress float64 `json:"progress"`
				}
				json.Unmarshal(m.Params, &p)
				if p.Token != "tok" {
					t.Errorf("progressToken %q", p.Token)
				}
				got = append(got, p.Progress)
			}
			if fmt.Sprint(got) != "[1 2]" {
				t.Errorf("progress values on the wire %v, want [1 2]: each MUST exceed the one before", got)
			}
		})
	}
}

// TestMUST115_ElicitationRequestsValid: an elicitation request MUST carry
// a message; form mode a requestedSchema of type "object" with
// top-level primitive properties; URL mode mode "url" and a valid
// (absolute) url (client/elicitation, schema ElicitRequest*Params; MUST 67
// and 115). An invalid one is a handler bug: the tool answers isError,
// HTTP 200, and nothing reaches the client.
func TestMUST115_ElicitationRequestsValid(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Implementation{Name: "elicit", Version: "1"})
	cases := []struct {
		tool string
		req  mcp.InputRequest
		ok   bool
	}{
		{"url_ok", mcp.ElicitURL("k", "Sign in", "https://localhost/login"), true},
		{"form_ok", mcp.ElicitForm("k", "Name?", json.RawMessage(`{"type":"object","properties":{"n":{"type":"string"}},"required":["n"]}`)), true},
		{"form_multiselect_ok", mcp.ElicitForm("k", "Pick", json.RawMessage(`{"type":"object","properties":{"c":{"type":"array","items":{"type":"string","enum":["a","b"]}}}}`)), true},
		{"url_empty", mcp.ElicitURL("k", "Sign in", ""), false},
		{"url_relative", mcp.ElicitURL("k", "Sign in", "/login"), false},
		{"url_no_host", mcp.ElicitURL("k", "Sign in", "https:///login"), false},
		{"url_javascript", mcp.ElicitURL("k", "Sign in", "javascript:alert(1)"), false},
		{"url_no_message", mcp.ElicitURL("k", "", "https://localhost/login"), false},
		{"form_no_message", mcp.ElicitForm("k", "", json.RawMessage(`{"type":"object","properties":{"n":{"type":"string"}}}`)), false},
		{"form_empty_schema", mcp.ElicitForm("k", "Name?", json.RawMessage(`{}`)), false},
		{"form_array_root", mcp.ElicitForm("k", "Name?", json.RawMessage(`{"type":"array","items":{"type":"string"}}`)), false},
		{"form_no_properties", mcp.ElicitForm("k", "Name?", json.RawMessage(`{"type":"object"}`)), false},
		{"form_nested_object", mcp.ElicitForm("k", "Name?", json.RawMessage(`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}}}}`)), false},
		// Names are exact, as the client reads them: a second spelling
		// of "type" neither hides a nested object nor stands for "type".
		{"form_nested_object_type_respelled", mcp.ElicitForm("k", "Name?", json.RawMessage(`{"type":"object","properties":{"a":{"type":"object","Type":"string","properties":{"b":{"type":"string"}}}}}`)), false},
		{"form_root_type_respelled", mcp.ElicitForm("k", "Name?", json.RawMessage(`{"TYPE":"object","properties":{"n":{"type":"string"}}}`)), false},
		{"form_items_type_respelled", mcp.ElicitForm("k", "Pick", json.RawMessage(`{"type":"object","properties":{"c":{"type":"array","items":{"type":"object","TYPE":"string"}}}}`)), false},
	}
	for _, c := range cases {
		q := c.req
		mcp.AddToolFunc(srv, mcp.Tool{Name: c.tool}, func(ctx context.Context, in struct{}) (struct{}, error) {
			mcp.CallFromContext(ctx).RequireInput([]byte("s"), q)
			return struct{}{}, nil
		})
	}
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()},
		mcp.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))))
	caps := `{"elicitation":{"form":{},"url":{}}}`
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			era := mcp.Version20260728 // input requests exist only in 2026-07-28
			status, hdr, raw := specPost(t, url, era, "tools/call", c.tool, specBody(era, 3, "tools/call", `"name":"`+c.tool+`","arguments":{}`, caps, ""), nil)
			var m specMsg
			if err := json.Unmarshal(raw, &m); err != nil || status != 200 || hdr.Get("Content-Type") != "application/json" || string(m.ID) != "3" || m.Error != nil {
				t.Fatalf("got %d %q: %s", status, hdr.Get("Content-Type"), raw)
			}
			var res struct {
				ResultType    string                     `json:"resultType"`
				InputRequests map[string]json.RawMessage `json:"inputRequests"`
				IsError       bool                       `json:"isError"`
			}
			json.Unmarshal(m.Result, &res)
			if c.ok {
				if res.ResultType != "input_required" || res.InputRequests["k"] == nil {
					t.Fatalf("want input_required: %s", raw)
				}
				return
			}
			if res.ResultType != "complete" || !res.IsError || res.InputRequests != nil {
				t.Errorf("an invalid elicitation request reached the client (want a complete isError result): %s", raw)
			}
		})
	}
}

// TestMUST012_ReservedCodesFromHandlers: in 2026-07-28 a server MUST NOT
// emit -32002 or -32042 (MUST 13), MUST NOT emit an undefined code in
// -32020..-32099 nor a defined one outside its meaning (MUST 12), and does
// not allocate codes in -32000..-32019 (MUST 11). A prompt, completion or
// resource function returning mcp.NewError with such a code must not put
// it on the 2026 wire: "resource not found" (-32002) becomes -32602, the
// rest an internal error. The handshake revisions keep the host's code.
func TestMUST012_ReservedCodesFromHandlers(t *testing.T) {
	t.Parallel()
	codes := []int{-32002, -32042, -32020, -32022, -32050, -32001, -32000}
	srv := mcp.NewServer(mcp.Implementation{Name: "codes", Version: "1"})
	for _, c := range codes {
		code := mcp.Code(c)
		srv.AddPrompt(mcp.Prompt{Name: fmt.Sprintf("p%d", -c)}, func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
			return nil, mcp.NewError(code, "from the host")
		})
	}
	type vars struct {
		Code int `json:"code"`
	}
	mcp.AddTemplateFunc(srv, mcp.ResourceTemplate{URITemplate: "codes://err/{code}", Name: "err"}, func(ctx context.Context, v vars) (string, error) {
		return "", mcp.NewError(mcp.Code(-v.Code), "from the host")
	})
	// A legitimate application code outside the reserved range passes.
	srv.AddPrompt(mcp.Prompt{Name: "app"}, func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
		return nil, mcp.NewError(mcp.Code(-1234), "application code")
	})
	srv.AddPrompt(mcp.Prompt{Name: "ok", Arguments: []mcp.PromptArgument{{Name: "a"}}}, func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
		return &mcp.PromptResult{Messages: []mcp.PromptMessage{{Role: content.User, Content: content.Text("x")}}}, nil
	}, mcp.WithCompletion("a", func(ctx context.Context, value string, args map[string]string) ([]string, error) {
		return nil, mcp.NewError(mcp.Code(-32042), "from the host")
	}))
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()},
		mcp.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))))

	want26 := func(c int) int {
		switch {
		case c == -32002:
			return -32602
		case c > -32020:
			return c // the legacy range, but -32002, is not forbidden
		}
		return -32603
	}
	type probe struct {
		name, method, target, params string
		host                         int
	}
	var probes []probe
	for _, c := range codes {
		n := fmt.Sprintf("p%d", -c)
		probes = append(probes, probe{"prompts/get " + n, "prompts/get", n, `"name":"` + n + `"`, c})
		uri := fmt.Sprintf("codes://err/%d", -c)
		probes = append(probes, probe{"resources/read " + uri, "resources/read", uri, `"uri":"` + uri + `"`, c})
	}
	probes = append(probes, probe{"completion/complete", "completion/complete", "", `"ref":{"type":"ref/prompt","name":"ok"},"argument":{"name":"a","value":"x"}`, -32042})
	probes = append(probes, probe{"prompts/get app", "prompts/get", "app", `"name":"app"`, -1234})
	for _, era := range specEras {
		for _, p := range probes {
			t.Run(string(era)+"/"+p.name, func(t *testing.T) {
				status, _, raw := specPost(t, url, era, p.method, p.target, specBody(era, 9, p.method, p.params, "", ""), nil)
				var m specMsg
				json.Unmarshal(raw, &m)
				if m.Error == nil || string(m.ID) != "9" {
					t.Fatalf("want an error with id 9: %d %s", status, raw)
				}
				want := p.host
				if era == mcp.Version20260728 && p.host >= -32099 && p.host <= -32000 {
					want = want26(p.host)
				}
				if m.Error.Code != want || status != 200 {
					t.Errorf("got %d code %d, want 200 code %d: %s", status, m.Error.Code, want, raw)
				}
			})
		}
	}
}

// TestMUST_2025_InvalidHeaderVersion: 2025-06-18 and 2025-11-25
// transports: "If the server receives a request with an invalid or
// unsupported MCP-Protocol-Version, it MUST respond with 400 Bad Request."
// initialize is a request too: a header that is not a revision at all is
// refused, whatever the method.
func TestMUST_2025_InvalidHeaderVersion(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, hv := range []string{"garbage", "2025-6-18", "latest"} {
		for _, method := range []string{"initialize", "tools/list"} {
			t.Run(hv+"/"+method, func(t *testing.T) {
				params := ""
				if method == "initialize" {
					params = `"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}`
				}
				status, _, raw := specPost(t, f.url, "", method, "", specBody("", 4, method, params, "", ""), map[string]string{"MCP-Protocol-Version": hv})
				var m specMsg
				json.Unmarshal(raw, &m)
				if status != 400 || m.Error == nil || m.Error.Code != -32022 || string(m.ID) != "4" {
					t.Errorf("got %d %s, want 400 with -32022 and id 4", status, raw)
				}
			})
		}
	}
}

// TestMUST124_SamplingToolsNeedsCapability: a server MUST NOT send a
// tool-enabled sampling request unless the client declared sampling.tools
// (client/sampling; MUST 73 and 124): -32021, HTTP 400, naming
// {"sampling":{"tools":{}}}; with the capability, the request goes out.
func TestMUST124_SamplingToolsNeedsCapability(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Implementation{Name: "sampling", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "agent"}, func(ctx context.Context, in struct{}) (struct{}, error) {
		mcp.CallFromContext(ctx).RequireInput(nil, mcp.Sample("s", mcp.SamplingRequest{
			Messages:  []mcp.SamplingMessage{{Role: content.User, Content: content.Text("Weather?")}},
			MaxTokens: 50,
			Tools:     json.RawMessage(`[{"name":"get_weather","inputSchema":{"type":"object"}}]`),
		}))
		return struct{}{}, nil
	})
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()},
		mcp.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))))
	tests := []struct {
		caps     string
		status   int
		code     int
		required string
	}{
		{`{}`, 400, -32021, `{"sampling":{"tools":{}}}`},
		{`{"sampling":{}}`, 400, -32021, `{"sampling":{"tools":{}}}`},
		{`{"sampling":{"context":{}}}`, 400, -32021, `{"sampling":{"tools":{}}}`},
		{`{"sampling":{"tools":{}}}`, 200, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.caps, func(t *testing.T) {
			era := mcp.Version20260728
			status, _, raw := specPost(t, url, era, "tools/call", "agent", specBody(era, 2, "tools/call", `"name":"agent","arguments":{}`, tt.caps, ""), nil)
			var m specMsg
			json.Unmarshal(raw, &m)
			if status != tt.status || string(m.ID) != "2" {
				t.Fatalf("got %d %s, want %d", status, raw, tt.status)
			}
			if tt.code != 0 {
				var d struct {
					Required json.RawMessage `json:"requiredCapabilities"`
				}
				if m.Error == nil || m.Error.Code != tt.code || json.Unmarshal(m.Error.Data, &d) != nil || string(d.Required) != tt.required {
					t.Errorf("got %s, want %d with requiredCapabilities %s", raw, tt.code, tt.required)
				}
				return
			}
			if !strings.Contains(string(m.Result), `"resultType":"input_required"`) || !strings.Contains(string(m.Result), `"tools":[{"name":"get_weather"`) {
				t.Errorf("want the tool-enabled sampling request: %s", raw)
			}
		})
	}
}

// TestMUST104_CacheHintsOnEveryPage: 2026-07-28 caching — every complete
// result of a list MUST carry ttlMs (an integer >= 0) and cacheScope (MUST
// 102, 103), the same cacheScope on every page of one list (MUST 104).
func TestMUST104_CacheHintsOnEveryPage(t *testing.T) {
	t.Parallel()
	for _, scope := range []era2026.CacheScope{era2026.Public, era2026.Private} {
		srv := mcp.NewServer(mcp.Implementation{Name: "pages", Version: "1"}, mcp.WithPageSize(2))
		mux := http.NewServeMux()
		mux.HandleFunc("GET /x", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "x") })
		for i := range 5 {
			srv.AddTool(mcp.Tool{Name: fmt.Sprintf("t%d", i), InputSchema: json.RawMessage(`{"type":"object"}`)}, "GET /x", mux)
			srv.AddResource(mcp.Resource{URI: fmt.Sprintf("pages://r/%d", i), Name: fmt.Sprintf("r%d", i)}, "GET /x", mux)
			srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: fmt.Sprintf("pages://t%d/{id}", i), Name: fmt.Sprintf("t%d", i)}, "GET /x", mux)
			srv.AddPrompt(mcp.Prompt{Name: fmt.Sprintf("p%d", i)}, func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
				return &mcp.PromptResult{Messages: []mcp.PromptMessage{{Role: content.User, Content: content.Text("x")}}}, nil
			})
		}
		url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(era2026.WithCaching(90_000_000_000, scope)), era2025.New()},
			mcp.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))))
		for _, method := range []string{"tools/list", "resources/list", "resources/templates/list", "prompts/list"} {
			t.Run(string(scope)+"/"+method, func(t *testing.T) {
				era := mcp.Version20260728
				cursor, pages := "", 0
				for {
					params := ""
					if cursor != "" {
						params = `"cursor":` + quoteJSON(cursor)
					}
					status, _, raw := specPost(t, url, era, method, "", specBody(era, 1, method, params, "", ""), nil)
					var res struct {
						ResultType string          `json:"resultType"`
						TTLMs      json.RawMessage `json:"ttlMs"`
						CacheScope string          `json:"cacheScope"`
						NextCursor string          `json:"nextCursor"`
					}
					var m specMsg
					json.Unmarshal(raw, &m)
					json.Unmarshal(m.Result, &res)
					if status != 200 || res.ResultType != "complete" {
						t.Fatalf("page %d: %d %s", pages, status, raw)
					}
					if string(res.TTLMs) != "90000" || res.CacheScope != string(scope) {
						t.Errorf("page %d: ttlMs %s cacheScope %q, want 90000 and %q on every page", pages, res.TTLMs, res.CacheScope, scope)
					}
					pages++
					if res.NextCursor == "" || pages > 5 {
						break
					}
					cursor = res.NextCursor
				}
				if pages != 3 {
					t.Errorf("%d pages, want 3", pages)
				}
			})
		}
	}
}

// TestMUST006_ResultEnvelope2026: every 2026-07-28 result MUST carry
// resultType (MUST 6) and echo the id (MUST 4); the cacheable ones MUST
// carry ttlMs and cacheScope (MUST 102) and the others carry neither (the
// schema gives them no such members). In the handshake revisions results
// carry none of these members.
func TestMUST006_ResultEnvelope2026(t *testing.T) {
	t.Parallel()
	f := newRPFixture(t)
	probes := []struct {
		method, target, params string
		cacheable              bool
	}{
		{"server/discover", "", "", true},
		{"resources/list", "", "", true},
		{"resources/templates/list", "", "", true},
		{"resources/read", "inbox://readme", `"uri":"inbox://readme"`, true},
		{"prompts/list", "", "", true},
		{"prompts/get", "simple", `"name":"simple"`, false},
		{"completion/complete", "", `"ref":{"type":"ref/prompt","name":"with_args"},"argument":{"name":"arg1","value":"a"}`, false},
	}
	for _, era := range specEras {
		for _, p := range probes {
			if era != mcp.Version20260728 && p.method == "server/discover" {
				continue
			}
			t.Run(string(era)+"/"+p.method, func(t *testing.T) {
				status, hdr, raw := specPost(t, f.url, era, p.method, p.target, `{"jsonrpc":"2.0","id":"r-1","method":"`+p.method+`","params":{`+
					strings.TrimSuffix(strings.TrimPrefix(specBody(era, 0, "x", p.params, "", ""), `{"jsonrpc":"2.0","id":0,"method":"x","params":{`), "}}")+`}}`, nil)
				var m specMsg
				if err := json.Unmarshal(raw, &m); err != nil || status != 200 || hdr.Get("Content-Type") != "application/json" || m.Result == nil || string(m.ID) != `"r-1"` {
					t.Fatalf("got %d %q: %s", status, hdr.Get("Content-Type"), raw)
				}
				var res map[string]json.RawMessage
				json.Unmarshal(m.Result, &res)
				_, hasTTL := res["ttlMs"]
				_, hasScope := res["cacheScope"]
				if era != mcp.Version20260728 {
					if res["resultType"] != nil || hasTTL || hasScope {
						t.Errorf("a %s result carries 2026 members: %s", era, m.Result)
					}
					return
				}
				if string(res["resultType"]) != `"complete"` {
					t.Errorf("resultType %s", res["resultType"])
				}
				if hasTTL != p.cacheable || hasScope != p.cacheable {
					t.Errorf("ttlMs present %v, cacheScope present %v, want %v: %s", hasTTL, hasScope, p.cacheable, m.Result)
				}
			})
		}
	}
}

// TestMUST_2025_11_25_TaskParamIgnored: 2025-11-25 (basic/utilities/
// tasks): a server that does not declare the tasks capability MUST ignore
// params.task and handle the request normally. Older revisions have no
// such member; they ignore it as any unknown member.
func TestMUST_2025_11_25_TaskParamIgnored(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, era := range []mcp.Version{mcp.Version20251125, mcp.Version20250618, mcp.Version20250326} {
		t.Run(string(era), func(t *testing.T) {
			// Not declared: initialize has no tasks capability.
			_, _, raw := specPost(t, f.url, "", "initialize", "", specBody("", 1, "initialize",
				`"protocolVersion":"`+string(era)+`","capabilities":{"tasks":{"requests":{"tools":{"call":{}}}}},"clientInfo":{"name":"c","version":"1"}`, "", ""), nil)
			if strings.Contains(string(raw), `"tasks"`) {
				t.Fatalf("initialize declares tasks: %s", raw)
			}
			before := f.count("GET /items/{id}")
			status, _, raw := specPost(t, f.url, era, "tools/call", "", specBody(era, 2, "tools/call",
				`"name":"items_get","arguments":{"id":"t1"},"task":{"ttl":60000}`, "", ""), nil)
			var m specMsg
			json.Unmarshal(raw, &m)
			if status != 200 || m.Error != nil || string(m.ID) != "2" {
				t.Fatalf("got %d %s", status, raw)
			}
			var res struct {
				Content []struct{ Text string } `json:"content"`
				Task    json.RawMessage         `json:"task"`
				IsError bool                    `json:"isError"`
			}
			json.Unmarshal(m.Result, &res)
			if res.Task != nil || res.IsError || len(res.Content) != 1 || !strings.Contains(res.Content[0].Text, `"id":"t1"`) {
				t.Errorf("want the tool's own result, no task: %s", m.Result)
			}
			if f.count("GET /items/{id}") != before+1 {
				t.Error("the tool did not run once")
			}
		})
	}
}

// TestMUST113_LegacyElicitationModes: "Servers MUST NOT send elicitation
// requests with modes that are not supported by the client" (2025-11-25
// client/elicitation; MUST 113), and a question must be one the client's
// revision has: 2025-06-18 has form mode only (any "elicitation" object
// declares it, a "url" member declares nothing, and a form's properties
// are primitives: no multi-select), and tool-enabled sampling arrived in
// 2025-11-25 (MUST 124). 2025-03-26 defines no elicitation; a client of it
// that declares one is asked as a 2025-06-18 client (record 025).
// A 2025-11-25 URL-mode request MUST carry an elicitationId. A call whose
// question cannot be asked ends isError, with no question sent.
func TestMUST113_LegacyElicitationModes(t *testing.T) {
	t.Parallel()
	ring := sessionRing(t, 7)
	srv := mcp.NewServer(mcp.Implementation{Name: "modes", Version: "1"})
	asks := map[string]mcp.InputRequest{
		"url":   mcp.ElicitURL("q", "Connect your account", "https://localhost/connect"),
		"form":  mcp.ElicitForm("q", "Your name?", json.RawMessage(`{"type":"object","properties":{"n":{"type":"string"}}}`)),
		"multi": mcp.ElicitForm("q", "Pick", json.RawMessage(`{"type":"object","properties":{"c":{"type":"array","items":{"type":"string","enum":["a","b"]}}}}`)),
		"tools": mcp.Sample("q", mcp.SamplingRequest{MaxTokens: 10, Messages: []mcp.SamplingMessage{{Role: content.User, Content: content.Text("hi")}}, Tools: json.RawMessage(`[{"name":"w","inputSchema":{"type":"object"}}]`)}),
	}
	for name, q := range asks {
		mcp.AddToolFunc(srv, mcp.Tool{Name: name}, func(ctx context.Context, in struct{}) (map[string]any, error) {
			c := mcp.CallFromContext(ctx)
			if _, ok := c.InputResponse("q"); ok {
				return map[string]any{"answered": true}, nil
			}
			c.RequireInput([]byte("s"), q)
			return nil, nil
		})
	}
	a := auth.New(auth.Config{Resource: resourceURI, Verifier: auth.VerifierFunc(testVerifier)})
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(era2026.WithSealer(mrtr.NewSealer(ring))),
		era2025.New(era2025.WithSessions(mrtr.NewSealer(ring), 0))}, mcp.WithAuth(a),
		mcp.WithLegacyInput(mcp.LegacyInput{Bus: &sharedBus{subs: map[string]chan []byte{}}}),
		mcp.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))))
	tests := []struct {
		era        mcp.Version
		caps, tool string
		asked      string // the question's params must contain these members; "" = never asked
	}{
		{mcp.Version20251125, `{"elicitation":{"url":{}}}`, "url", `"mode":"url"`},
		{mcp.Version20251125, `{"elicitation":{"form":{},"url":{}}}`, "url", `"mode":"url"`},
		{mcp.Version20251125, `{"elicitation":{}}`, "url", ""},
		{mcp.Version20251125, `{"elicitation":{"url":{}}}`, "form", ""},
		{mcp.Version20251125, `{"elicitation":{}}`, "form", `"requestedSchema"`},
		{mcp.Version20251125, `{"elicitation":{}}`, "multi", `"type":"array"`},
		{mcp.Version20251125, `{"sampling":{"tools":{}}}`, "tools", `"tools":[{`},
		{mcp.Version20251125, `{"sampling":{}}`, "tools", ""},
		{mcp.Version20250618, `{"elicitation":{"url":{}}}`, "url", ""},
		{mcp.Version20250618, `{"elicitation":{"form":{},"url":{}}}`, "url", ""},
		{mcp.Version20250618, `{"elicitation":{"url":{}}}`, "form", `"requestedSchema"`},
		{mcp.Version20250618, `{"elicitation":{}}`, "form", `"requestedSchema"`},
		{mcp.Version20250618, `{"elicitation":{}}`, "multi", ""},
		{mcp.Version20250618, `{"sampling":{"tools":{}}}`, "tools", ""},
		{mcp.Version20250326, `{"elicitation":{}}`, "form", `"requestedSchema"`},
		{mcp.Version20250326, `{"elicitation":{}}`, "multi", ""},
		{mcp.Version20250326, `{"elicitation":{"form":{},"url":{}}}`, "url", ""},
		{mcp.Version20250326, `{"sampling":{"tools":{}}}`, "tools", ""},
	}
	for _, tt := range tests {
		t.Run(string(tt.era)+"/"+tt.tool+"/"+tt.caps, func(t *testing.T) {
			s := openCall(t, url, tokAlice, sessionFor(t, url, tokAlice, tt.era, tt.caps), tt.era, tt.tool)
			defer s.cancel()
			first := s.next(t)
			if tt.asked == "" {
				if text, isErr := resultText(t, first); first["id"] != float64(5) || !isErr || !strings.Contains(text, "did not complete") {
					t.Fatalf("want the call to end isError with no question: %v", first)
				}
				return
			}
			params, _ := json.Marshal(first["params"])
			if first["method"] == "elicitation/create" && tt.era != mcp.Version20251125 && strings.Contains(string(params), `"mode"`) {
				t.Errorf("a %s elicitation names a mode: %s", tt.era, params)
			}
			if first["method"] == nil || !strings.Contains(string(params), tt.asked) {
				t.Fatalf("want a question with %s: %v", tt.asked, first)
			}
			var p struct {
				Mode, Message, URL, ElicitationID string
			}
			json.Unmarshal(params, &p)
			if p.Mode == "url" && (p.ElicitationID == "" || p.ElicitationID != first["id"] || p.URL != "https://localhost/connect" || p.Message == "") {
				t.Errorf("a URL-mode request needs message, url and elicitationId (the question's id %v): %s", first["id"], params)
			}
			if p.Mode != "url" && p.ElicitationID != "" {
				t.Errorf("elicitationId outside URL mode: %s", params)
			}
			answerBody := `{"action":"accept","content":{"n":"x"}}`
			if tt.tool == "url" {
				answerBody = `{"action":"accept"}`
			} else if tt.tool == "multi" {
				answerBody = `{"action":"accept","content":{"c":["a"]}}`
			} else if tt.tool == "tools" {
				answerBody = `{"role":"assistant","content":{"type":"text","text":"ok"},"model":"m"}`
			}
			if st := answer(t, url, tokAlice, first["id"], answerBody); st != http.StatusAccepted {
				t.Fatalf("answer: %d", st)
			}
			if text, isErr := resultText(t, s.next(t)); isErr || !strings.Contains(text, `"answered":true`) {
				t.Errorf("after the answer: %q isError=%v", text, isErr)
			}
		})
	}
}

// TestMUST_DefinitionMembersPerRevision: what a server sends MUST be valid
// for the revision in use (basic/index: messages follow the schema).
// icons (on Implementation, Tool, Resource, ResourceTemplate, Prompt) and
// Implementation's description and websiteUrl arrived in 2025-11-25; title
// (on those and on PromptArgument), a tool's outputSchema and a
// definition's _meta in 2025-06-18. Each revision gets exactly its own:
// over initialize's serverInfo (server/discover's _meta on 2026-07-28)
// and every list.
func TestMUST_DefinitionMembersPerRevision(t *testing.T) {
	t.Parallel()
	icons := []mcp.Icon{{Src: "https://localhost/i.png", MIMEType: "image/png", Sizes: []string{"48x48"}, Theme: "dark"}}
	srv := mcp.NewServer(mcp.Implementation{Name: "ic", Title: "Icons", Version: "1", Description: "d", WebsiteURL: "https://localhost/", Icons: icons})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /x", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "x") })
	meta := json.RawMessage(`{"com.example/k":1}`)
	srv.AddTool(mcp.Tool{Name: "t", Title: "T", Icons: icons, Meta: meta, OutputSchema: json.RawMessage(`{"type":"object"}`)}, "GET /x", mux)
	srv.AddResource(mcp.Resource{URI: "ic://r", Name: "r", Title: "R", Icons: icons}, "GET /x", mux)
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "ic://t/{id}", Name: "tt", Title: "TT", Icons: icons}, "GET /x", mux)
	srv.AddPrompt(mcp.Prompt{Name: "p", Title: "P", Icons: icons, Arguments: []mcp.PromptArgument{{Name: "a", Title: "A"}}},
		func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
			return &mcp.PromptResult{Messages: []mcp.PromptMessage{{Role: content.User, Content: content.Text("x")}}}, nil
		})
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()},
		mcp.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))))
	wantIcon := `[{"src":"https://localhost/i.png","mimeType":"image/png","sizes":["48x48"],"theme":"dark"}]`
	for _, era := range specEras {
		icons := era == mcp.Version20260728 || era == mcp.Version20251125
		titles := era != mcp.Version20250326
		// check holds the members obj must have (want) and must not.
		check := func(t *testing.T, what string, obj map[string]json.RawMessage, members map[string]bool) {
			t.Helper()
			for name, want := range members {
				v, has := obj[name]
				if has != want {
					t.Errorf("%s: %q present %v, want %v: %v", what, name, has, want, obj)
				}
				if has && name == "icons" && string(v) != wantIcon {
					t.Errorf("%s: icons %s, want %s", what, v, wantIcon)
				}
			}
		}
		t.Run(string(era), func(t *testing.T) {
			var status int
			var raw []byte
			var info map[string]json.RawMessage
			var m specMsg
			if era == mcp.Version20260728 {
				status, _, raw = specPost(t, url, era, "server/discover", "", specBody(era, 1, "server/discover", "", "", ""), nil)
				var res struct {
					Meta map[string]map[string]json.RawMessage `json:"_meta"`
				}
				json.Unmarshal(raw, &m)
				json.Unmarshal(m.Result, &res)
				info = res.Meta["io.modelcontextprotocol/serverInfo"]
			} else {
				status, _, raw = specPost(t, url, "", "initialize", "", specBody("", 1, "initialize",
					`"protocolVersion":"`+string(era)+`","capabilities":{},"clientInfo":{"name":"c","version":"1"}`, "", ""), nil)
				var res struct {
					ServerInfo map[string]json.RawMessage `json:"serverInfo"`
				}
				json.Unmarshal(raw, &m)
				json.Unmarshal(m.Result, &res)
				info = res.ServerInfo
			}
			if status != 200 || info == nil || string(info["name"]) != `"ic"` {
				t.Fatalf("got %d %s", status, raw)
			}
			check(t, "serverInfo", info, map[string]bool{"title": titles, "description": icons, "websiteUrl": icons, "icons": icons})
			lists := []struct{ method, member string }{
				{"tools/list", "tools"}, {"resources/list", "resources"}, {"resources/templates/list", "resourceTemplates"}, {"prompts/list", "prompts"},
			}
			for _, l := range lists {
				status, _, raw := specPost(t, url, era, l.method, "", specBody(era, 2, l.method, "", "", ""), nil)
				var res map[string][]map[string]json.RawMessage
				json.Unmarshal(raw, &m)
				json.Unmarshal(m.Result, &res)
				if status != 200 || len(res[l.member]) != 1 {
					t.Fatalf("%s: %d %s", l.method, status, raw)
				}
				def := res[l.member][0]
				check(t, l.method, def, map[string]bool{"title": titles, "icons": icons})
				switch l.method {
				case "tools/list":
					check(t, l.method, def, map[string]bool{"outputSchema": titles, "_meta": titles})
				case "prompts/list":
					var args []map[string]json.RawMessage
					json.Unmarshal(def["arguments"], &args)
					if len(args) != 1 {
						t.Fatalf("prompt arguments: %s", def["arguments"])
					}
					check(t, "prompt argument", args[0], map[string]bool{"title": titles})
				}
			}
		})
	}
}

// TestMUST_MetaKeyNames: _meta key names MUST have an optional prefix of
// dot-separated labels (each starting with a letter, ending with a letter
// or digit, hyphens inside) and a slash, and a name that, unless empty,
// starts and ends with a letter or digit (basic/index "_meta", 2025-06-18
// on; MUST 25). A definition's Meta with another key is refused at
// registration, for tools, function tools, resources and templates; a
// well-formed one, reserved prefixes included, reaches the wire as
// written in every revision that has a definition's _meta. A name in
// further "/"-separated segments, each well formed, is taken: the OpenAI
// Apps SDK's tool descriptors carry openai/toolInvocation/invoking.
func TestMUST_MetaKeyNames(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("GET /x", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "x") })
	bad := []string{`{"bad key":1}`, `{"-x/y":1}`, `{"com.example/-n":1}`, `{"com..example/n":1}`, `{"1com/n":1}`, `{"com-/n":1}`, `{"a/b//c":1}`, `{"a/b/":1}`, `{"a/b/-c":1}`, `{"n_":1}`, `{"":1,"/":2}`, `{"café":1}`}
	for _, meta := range bad {
		adds := map[string]func(s *mcp.Server){
			"tool": func(s *mcp.Server) { s.AddTool(mcp.Tool{Name: "t", Meta: json.RawMessage(meta)}, "GET /x", mux) },
			"func tool": func(s *mcp.Server) {
				mcp.AddToolFunc(s, mcp.Tool{Name: "f", Meta: json.RawMessage(meta)}, func(ctx context.Context, in struct{}) (struct{}, error) { return struct{}{}, nil })
			},
			"resource": func(s *mcp.Server) {
				s.AddResource(mcp.Resource{URI: "m://r", Name: "r", Meta: json.RawMessage(meta)}, "GET /x", mux)
			},
			"template": func(s *mcp.Server) {
				s.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "m://t/{id}", Name: "t", Meta: json.RawMessage(meta)}, "GET /x", mux)
			},
		}
		for what, add := range adds {
			t.Run(what+"/"+meta, func(t *testing.T) {
				err := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}).Register(add)
				if err == nil || !strings.Contains(err.Error(), "is not a _meta key name") {
					t.Errorf("Register: %v, want the key refused", err)
				}
			})
		}
	}
	good := `{"com.example/owner":"a","com.example-2.x9/":1,"plain":2,"a.b_c-d.e":3,"io.modelcontextprotocol/x":4,"dev.mcp/y":5,"":6,"openai/toolInvocation/invoking":"Looking","openai/outputTemplate":"ui://w/x.html"}`
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "t", Meta: json.RawMessage(good)}, "GET /x", mux)
	url := newTestServer(t, mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()},
		mcp.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))))
	for _, era := range specEras {
		t.Run(string(era), func(t *testing.T) {
			status, _, raw := specPost(t, url, era, "tools/list", "", specBody(era, 1, "tools/list", "", "", ""), nil)
			var m specMsg
			json.Unmarshal(raw, &m)
			var res struct {
				Tools []map[string]json.RawMessage `json:"tools"`
			}
			json.Unmarshal(m.Result, &res)
			if status != 200 || len(res.Tools) != 1 {
				t.Fatalf("got %d %s", status, raw)
			}
			got, has := res.Tools[0]["_meta"]
			if era == mcp.Version20250326 {
				if has {
					t.Errorf("2025-03-26 has no _meta on a tool: %s", got)
				}
				return
			}
			if string(got) != good {
				t.Errorf("_meta %s, want %s", got, good)
			}
		})
	}
}
