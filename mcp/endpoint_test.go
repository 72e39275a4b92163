package mcp_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpdual/mcpdual/mcp"
)

// want is what a response must show. id "" means no id member.
type want struct {
	status int
	code   int // 0: a result
	id     string
	proto  string // MCP-Protocol-Version response header; "" means absent
}

func check(t *testing.T, r *reply, w want) {
	t.Helper()
	checkCommon(t, r)
	if r.status != w.status || r.code() != w.code {
		t.Fatalf("got %d code %d, want %d code %d; body %s", r.status, r.code(), w.status, w.code, r.raw)
	}
	if string(r.msg.ID) != w.id {
		t.Errorf("id = %s, want %q", r.msg.ID, w.id)
	}
	if got := r.header.Get("MCP-Protocol-Version"); got != w.proto {
		t.Errorf("MCP-Protocol-Version = %q, want %q", got, w.proto)
	}
}

func TestTransport_NonPost(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, m := range []string{http.MethodGet, http.MethodPut, http.MethodDelete, http.MethodPatch, http.MethodOptions} {
		req, _ := http.NewRequest(m, f.url, nil)
		r := send(t, req)
		check(t, r, want{status: 405, code: -32600})
		if r.header.Get("Allow") != "POST" {
			t.Errorf("%s: Allow = %q", m, r.header.Get("Allow"))
		}
	}
}

// TestTransport_Bodies runs the body rules in every era: the era's headers
// are sent, and the answer does not depend on them.
func TestTransport_Bodies(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	deep := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"x":` + strings.Repeat("[", 64) + strings.Repeat("]", 64) + `}}`
	tests := []struct {
		name string
		body string
		want want
	}{
		{"invalid JSON", `{"jsonrpc":`, want{status: 400, code: -32700}},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}", want{status: 400, code: -32700}},
		{"trailing data", `{"jsonrpc":"2.0","id":1,"method":"ping"}{}`, want{status: 400, code: -32700}},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, want{status: 400, code: -32600}},
		{"empty batch", `[]`, want{status: 400, code: -32600}},
		{"not an object", `"ping"`, want{status: 400, code: -32600}},
		{"duplicate member", `{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}`, want{status: 400, code: -32600}},
		{"case variant", `{"jsonrpc":"2.0","id":1,"method":"ping","Method":"tools/list"}`, want{status: 400, code: -32600}},
		{"too deep", deep, want{status: 400, code: -32600}},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, want{status: 400, code: -32600}},
		{"fraction id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, want{status: 400, code: -32600}},
		{"bad jsonrpc echoes id", `{"jsonrpc":"1.0","id":"k","method":"ping"}`, want{status: 400, code: -32600, id: `"k"`}},
		// The error has no id (as the transport allows it): with the
		// response's own it would read as the answer to the client's
		// request 1.
		{"response posted", `{"jsonrpc":"2.0","id":1,"result":{}}`, want{status: 400, code: -32600}},
	}
	for _, era := range eras {
		for _, tt := range tests {
			t.Run(string(era)+"/"+tt.name, func(t *testing.T) {
				if era == mcp.Version20250326 && tt.name == "batch" {
					t.Skip("2025-03-26 serves batches: TestBatch_2025_03_26")
				}
				r := f.do(t, call{era: era, method: "tools/list", rawBody: tt.body})
				check(t, r, tt.want)
			})
		}
	}
}

func TestTransport_BodyLimit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// A body of exactly the limit is read (and then judged on its content).
	pad := func(n int) string {
		head := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`
		tail := `"}}`
		return head + strings.Repeat("a", n-len(head)-len(tail)) + tail
	}
	at := f.do(t, call{era: mcp.Version20250618, rawBody: pad((1 << 20))})
	check(t, at, want{status: 200, id: "1", proto: "2025-06-18"})
	over := f.do(t, call{era: mcp.Version20250618, rawBody: pad((1 << 20) + 1)})
	check(t, over, want{status: 413, code: -32600})
	// Without Content-Length (chunked) the limit still holds while reading.
	req, _ := http.NewRequest(http.MethodPost, f.url, io.MultiReader(strings.NewReader(pad((1<<20)+1))))
	req.ContentLength = -1
	req.Header.Set("Content-Type", "application/json")
	check(t, send(t, req), want{status: 413, code: -32600})
}

func TestTransport_ContentType(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for ct, status := range map[string]int{
		"":                                  415,
		"text/plain":                        415,
		"application/x-www-form-urlencoded": 415,
		"application/json; charset=utf-16":  415,
		"application/json; charset=utf-8":   200,
		"Application/JSON":                  200,
		// Charset names are case-insensitive (RFC 9110 §8.3.2).
		"application/json; charset=Utf-8":   200,
		"application/json; CHARSET=uTF-8":   200,
		`application/json; charset="UTF-8"`: 200,
		"application/json; charset=utf8":    415,
	} {
		for _, era := range eras {
			r := f.do(t, call{era: era, id: "1", method: "tools/list", header: map[string]string{"Content-Type": ct}})
			if r.status != status || status == 415 && (r.code() != -32600 || r.msg.ID != nil) {
				t.Errorf("%s Content-Type %q: status %d, want %d: %s", era, ct, r.status, status, r.raw)
			}
		}
	}
}

func TestTransport_OriginAndHost(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tests := []struct {
		name   string
		header map[string]string
		status int
	}{
		{"no origin", nil, 200},
		{"loopback origin", map[string]string{"Origin": "http://localhost:3000"}, 200},
		{"loopback ip origin", map[string]string{"Origin": "http://127.0.0.1:8080"}, 200},
		{"evil origin", map[string]string{"Origin": "http://evil.example.com"}, 403},
		{"null origin", map[string]string{"Origin": "null"}, 403},
		{"origin with path", map[string]string{"Origin": "http://localhost/x"}, 403},
		{"evil host (DNS rebinding)", map[string]string{"Host": "evil.example.com", "Origin": "http://evil.example.com"}, 403},
		{"evil host alone", map[string]string{"Host": "evil.example.com"}, 403},
		{"localhost host", map[string]string{"Host": "localhost:9"}, 200},
	}
	for _, era := range eras {
		for _, tt := range tests {
			t.Run(string(era)+"/"+tt.name, func(t *testing.T) {
				c := call{era: era, id: "1", method: "tools/list"}
				req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(c.body()))
				req.Header = headersFor(c)
				for k, v := range tt.header {
					if k == "Host" {
						req.Host = v
					} else {
						req.Header.Set(k, v)
					}
				}
				r := send(t, req)
				checkCommon(t, r)
				if r.status != tt.status {
					t.Fatalf("status %d, want %d: %s", r.status, tt.status, r.raw)
				}
				if tt.status == 403 && (r.code() != -31403 || r.msg.ID != nil) {
					t.Errorf("403 body %s", r.raw)
				}
			})
		}
	}
	// Two Origin headers are refused even when both are allowed.
	c := call{era: mcp.Version20250618, id: "1", method: "ping"}
	req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(c.body()))
	req.Header = headersFor(c)
	req.Header.Add("Origin", "http://localhost")
	req.Header.Add("Origin", "http://localhost")
	if r := send(t, req); r.status != 403 {
		t.Errorf("duplicate Origin: %d", r.status)
	}
}

func TestTransport_ExplicitAllowLists(t *testing.T) {
	t.Parallel()
	f := newFixture(t, mcp.WithAllowedHosts("mcp.example.com"), mcp.WithAllowedOrigins("https://app.example.com"))
	c := call{era: mcp.Version20250618, id: "1", method: "ping"}
	try := func(host, origin string) int {
		req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(c.body()))
		req.Header = headersFor(c)
		req.Host = host
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		return send(t, req).status
	}
	if s := try("mcp.example.com", "https://app.example.com"); s != 200 {
		t.Errorf("allowed: %d", s)
	}
	if s := try("mcp.example.com", "http://app.example.com"); s != 403 {
		t.Errorf("scheme differs: %d", s)
	}
	if s := try("mcp.example.com:8443", ""); s != 403 {
		t.Errorf("port differs: %d", s)
	}
	if s := try("localhost", ""); s != 403 {
		t.Errorf("loopback is not implied by an explicit list: %d", s)
	}
	// Origins compare after normalization: case and the default port do
	// not matter; another port, a path, user info or a bad port do.
	for origin, status := range map[string]int{
		"HTTPS://APP.example.com:443":          200,
		"https://App.Example.Com":              200,
		"https://app.example.com:8443":         403,
		"https://app.example.com:":             403,
		"https://app.example.com/":             403,
		"https://u@app.example.com":            403,
		"https://app.example.com:x":            403,
		"https://app.example.com.evil.example": 403,
	} {
		if s := try("mcp.example.com", origin); s != status {
			t.Errorf("Origin %q: %d, want %d", origin, s, status)
		}
	}
}

func TestNotifications(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, era := range eras {
		for _, method := range []string{"notifications/initialized", "notifications/cancelled", "tools/call"} {
			t.Run(string(era)+"/"+method, func(t *testing.T) {
				params := ""
				if method == "tools/call" {
					params = `"name":"items_get","arguments":{"id":"n1"}`
				}
				before := f.count("GET /items/{id}")
				r := f.do(t, call{era: era, method: method, params: params})
				checkCommon(t, r)
				if r.status != 202 || len(r.raw) != 0 {
					t.Fatalf("got %d %q, want 202 and no body", r.status, r.raw)
				}
				if f.count("GET /items/{id}") != before {
					t.Error("a notification ran a tool")
				}
			})
		}
	}
}

// TestNotifications_RevisionByHeader: a 2026-07-28 notification's _meta
// is optional and names no revision (schema.ts NotificationParams), so
// the header alone names it, as a client that sends one bare does: it is
// accepted, where a request so named is refused for its missing _meta
// (TestEraSelection).
func TestNotifications_RevisionByHeader(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for name, body := range map[string]string{
		"no params":       `{"jsonrpc":"2.0","method":"notifications/cancelled"}`,
		"params, no meta": `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		"meta without revision": `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,` +
			`"_meta":{"io.modelcontextprotocol/subscriptionId":3}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", "2026-07-28")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusAccepted || len(b) != 0 || res.Header.Get("MCP-Protocol-Version") != "2026-07-28" {
				t.Errorf("got %d %q (MCP-Protocol-Version %q), want 202, no body, 2026-07-28", res.StatusCode, b, res.Header.Get("MCP-Protocol-Version"))
			}
		})
	}
}

func TestIDEcho(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, era := range eras {
		for _, id := range []string{`9007199254740993`, `-12345678901234567890`, `0`, `"x"`, `""`, `"\u00e9\n"`} {
			t.Run(string(era)+"/"+id, func(t *testing.T) {
				ok := f.do(t, call{era: era, id: id, method: "tools/list"})
				if !strings.Contains(string(ok.raw), `"id":`+id+`,`) {
					t.Errorf("result does not echo %s byte-exact: %s", id, ok.raw)
				}
				bad := f.do(t, call{era: era, id: id, method: "no/such/method"})
				if !strings.Contains(string(bad.raw), `"id":`+id+`,`) || bad.code() != -32601 {
					t.Errorf("error does not echo %s byte-exact: %s", id, bad.raw)
				}
			})
		}
	}
}

func TestEraSelection(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	meta := func(v string) string {
		return `"_meta":{"io.modelcontextprotocol/protocolVersion":"` + v + `","io.modelcontextprotocol/clientCapabilities":{}}`
	}
	tests := []struct {
		name   string
		header map[string]string
		params string
		want   want
	}{
		{"no header, no envelope: 2025-06-18", nil, "", want{status: 200, id: "1", proto: "2025-06-18"}},
		{"2025-03-26 header", map[string]string{"MCP-Protocol-Version": "2025-03-26"}, "", want{status: 200, id: "1", proto: "2025-03-26"}},
		{"2025-06-18 header", map[string]string{"MCP-Protocol-Version": "2025-06-18"}, "", want{status: 200, id: "1", proto: "2025-06-18"}},
		{"2026 header without envelope", map[string]string{"MCP-Protocol-Version": "2026-07-28"}, "", want{status: 400, code: -32602, id: "1"}},
		{"unknown header version", map[string]string{"MCP-Protocol-Version": "1999-01-01"}, "", want{status: 400, code: -32022, id: "1"}},
		{"2025-11-25 header", map[string]string{"MCP-Protocol-Version": "2025-11-25"}, "", want{status: 200, id: "1", proto: "2025-11-25"}},
		{"duplicate header", map[string]string{"MCP-Protocol-Version": "2025-06-18", "+MCP-Protocol-Version": "2025-06-18"}, "", want{status: 400, code: -32020, id: "1"}},
		{"envelope: 2026", map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}, meta("2026-07-28"), want{status: 200, id: "1", proto: "2026-07-28"}},
		{"envelope without header", map[string]string{"Mcp-Method": "tools/list"}, meta("2026-07-28"), want{status: 400, code: -32020, id: "1"}},
		{"envelope, header differs", map[string]string{"MCP-Protocol-Version": "2025-06-18", "Mcp-Method": "tools/list"}, meta("2026-07-28"), want{status: 400, code: -32020, id: "1"}},
		{"envelope names unknown version", map[string]string{"MCP-Protocol-Version": "v999.0.0", "Mcp-Method": "tools/list"}, meta("v999.0.0"), want{status: 400, code: -32022, id: "1"}},
		{"envelope names a handshake version", map[string]string{"MCP-Protocol-Version": "2025-06-18", "Mcp-Method": "tools/list"}, meta("2025-06-18"), want{status: 400, code: -32602, id: "1"}},
		{"envelope version not a string", map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}, `"_meta":{"io.modelcontextprotocol/protocolVersion":20260728}`, want{status: 400, code: -32602, id: "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := call{id: "1", method: "tools/list", params: tt.params}
			req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(c.body()))
			req.Header = headersFor(c)
			// Sets first, then "+" adds: map order must not decide the result.
			for k, v := range tt.header {
				if !strings.HasPrefix(k, "+") {
					req.Header.Set(k, v)
				}
			}
			for k, v := range tt.header {
				if strings.HasPrefix(k, "+") {
					req.Header.Add(k[1:], v)
				}
			}
			r := send(t, req)
			check(t, r, tt.want)
			if tt.want.code == -32022 {
				var d struct {
					Supported []string `json:"supported"`
					Requested string   `json:"requested"`
				}
				json.Unmarshal(r.msg.Error.Data, &d)
				if strings.Join(d.Supported, ",") != "2026-07-28,2025-11-25,2025-06-18,2025-03-26" || d.Requested != req.Header.Get("MCP-Protocol-Version") {
					t.Errorf("data = %s", r.msg.Error.Data)
				}
			}
		})
	}
}

func TestEra2025_Methods(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, era := range []mcp.Version{mcp.Version20251125, mcp.Version20250618, mcp.Version20250326} {
		t.Run(string(era), func(t *testing.T) {
			ping := f.do(t, call{era: era, id: "1", method: "ping"})
			check(t, ping, want{status: 200, id: "1", proto: string(era)})
			if string(ping.msg.Result) != "{}" {
				t.Errorf("ping result %s", ping.msg.Result)
			}
			for _, m := range []string{"server/discover", "no/such", "Tools/List", "tools/list ", "resources/list", "logging/setLevel"} {
				r := f.do(t, call{era: era, id: "2", method: m})
				check(t, r, want{status: 200, code: -32601, id: "2", proto: string(era)})
			}
			bad := f.do(t, call{era: era, id: "3", method: "initialize", params: `"protocolVersion":7`})
			check(t, bad, want{status: 200, code: -32602, id: "3", proto: string(era)})
		})
	}
}

func TestEra2025_Initialize(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for asked, got := range map[string]string{
		"2025-11-25": "2025-11-25",
		"2025-06-18": "2025-06-18",
		"2025-03-26": "2025-03-26",
		"2024-11-05": "2025-11-25",
		"2026-07-28": "2025-11-25",
		"garbage":    "2025-11-25",
	} {
		t.Run(asked, func(t *testing.T) {
			r := f.do(t, call{id: "1", method: "initialize", params: `"protocolVersion":"` + asked + `","capabilities":{},"clientInfo":{"name":"c","version":"1"}`})
			check(t, r, want{status: 200, id: "1", proto: got})
			res := r.result(t)
			if res["protocolVersion"] != got {
				t.Errorf("protocolVersion %v", res["protocolVersion"])
			}
			info := res["serverInfo"].(map[string]any)
			if _, hasTitle := info["title"]; hasTitle != (got != "2025-03-26") {
				t.Errorf("serverInfo %v for %s", info, got)
			}
			caps := res["capabilities"].(map[string]any)
			if tools, _ := json.Marshal(caps["tools"]); string(tools) != `{"listChanged":false}` {
				t.Errorf("capabilities %v", caps)
			}
		})
	}
	// A session id sent by the client is ignored, never an error.
	r := f.do(t, call{era: mcp.Version20250618, id: "1", method: "tools/list", header: map[string]string{"Mcp-Session-Id": "abc"}})
	check(t, r, want{status: 200, id: "1", proto: "2025-06-18"})
}

func TestEra2026_Ladder(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	v := mcp.Version20260728
	callItems := `"name":"items_get","arguments":{"id":"a"}`
	tests := []struct {
		name   string
		c      call
		status int
		code   int
	}{
		{"discover", call{method: "server/discover"}, 200, 0},
		{"missing clientCapabilities", call{method: "tools/list", rawBody: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`}, 400, -32602},
		{"clientCapabilities not an object", call{method: "tools/list", rawBody: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}}}`}, 400, -32602},
		{"clientInfo optional", call{method: "tools/list", rawBody: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`}, 200, 0},
		{"bad log level", call{method: "tools/list", rawBody: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}}}`}, 400, -32602},
		{"case-variant _meta key", call{method: "tools/list", rawBody: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/ClientCapabilities":{"sampling":{}}}}}`}, 400, -32602},
		{"Mcp-Method missing", call{method: "tools/list", header: map[string]string{"Mcp-Method": ""}}, 400, -32020},
		{"Mcp-Method mismatch", call{method: "tools/list", header: map[string]string{"Mcp-Method": "tools/call"}}, 400, -32020},
		{"Mcp-Method wrong case", call{method: "tools/list", header: map[string]string{"Mcp-Method": "TOOLS/LIST"}}, 400, -32020},
		{"Mcp-Method comma-joined", call{method: "tools/list", header: map[string]string{"Mcp-Method": "tools/list, tools/call"}}, 400, -32020},
		{"header names are case-insensitive", call{method: "tools/list", header: map[string]string{"Mcp-Method": "", "raw:mcp-method": "tools/list"}}, 200, 0},
		{"removed: initialize", call{method: "initialize"}, 404, -32601},
		{"removed: ping", call{method: "ping"}, 404, -32601},
		{"removed: logging/setLevel", call{method: "logging/setLevel", params: `"level":"info"`}, 404, -32601},
		{"removed: resources/subscribe", call{method: "resources/subscribe", params: `"uri":"x"`}, 404, -32601},
		{"removed: resources/unsubscribe", call{method: "resources/unsubscribe", params: `"uri":"x"`}, 404, -32601},
		{"unknown method", call{method: "no/such"}, 404, -32601},
		{"Mcp-Name missing", call{method: "tools/call", params: callItems, header: map[string]string{"Mcp-Name": ""}}, 400, -32020},
		{"Mcp-Name mismatch", call{method: "tools/call", params: callItems, header: map[string]string{"Mcp-Name": "echo"}}, 400, -32020},
		{"Mcp-Name with spaces around", call{method: "tools/call", params: callItems, header: map[string]string{"Mcp-Name": "  items_get  "}}, 200, 0},
		{"Mcp-Name base64", call{method: "tools/call", params: callItems, header: map[string]string{"Mcp-Name": "=?base64?aXRlbXNfZ2V0?="}}, 200, 0},
		{"Mcp-Name bad base64", call{method: "tools/call", params: callItems, header: map[string]string{"Mcp-Name": "=?base64?aXRlbXNfZ2V0?=="}}, 400, -32020},
		{"Mcp-Name uppercase sentinel is literal", call{method: "tools/call", params: callItems, header: map[string]string{"Mcp-Name": "=?BASE64?aXRlbXNfZ2V0?="}}, 400, -32020},
		{"unknown tool is in-band", call{method: "tools/call", params: `"name":"nope","arguments":{}`}, 200, -32602},
		{"name not a string", call{method: "tools/call", params: `"name":5`, header: map[string]string{"Mcp-Name": "5"}}, 400, -32602},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.c.era, tt.c.id = v, "1"
			r := f.do(t, tt.c)
			want := want{status: tt.status, code: tt.code, id: "1", proto: "2026-07-28"}
			check(t, r, want)
			if tt.code == 0 {
				res := r.result(t)
				if res["resultType"] != "complete" {
					t.Errorf("resultType %v", res["resultType"])
				}
				meta, _ := res["_meta"].(map[string]any)
				if info, _ := meta["io.modelcontextprotocol/serverInfo"].(map[string]any); info["name"] != "fixture" {
					t.Errorf("_meta %v", res["_meta"])
				}
			}
		})
	}
}

func TestEra2026_ParamHeaders(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	args := `"name":"regional","arguments":{"region":"us-west1","count":42,"opts":{"dry":true}}`
	all := map[string]string{"Mcp-Param-Region": "us-west1", "Mcp-Param-Count": "42", "Mcp-Param-Dry": "true"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range all {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name   string
		params string
		header map[string]string
		code   int
	}{
		{"all match", args, all, 0},
		{"names case-insensitive", args, with("Mcp-Param-Region", "", "raw:mcp-param-region", "us-west1"), 0},
		{"numeric compare", args, with("Mcp-Param-Count", "42.0"), 0},
		{"base64 value", args, with("Mcp-Param-Region", "=?base64?dXMtd2VzdDE=?="), 0},
		{"missing header", args, with("Mcp-Param-Region", ""), -32020},
		{"value differs", args, with("Mcp-Param-Region", "eu-west1"), -32020},
		{"value case differs", args, with("Mcp-Param-Region", "US-WEST1"), -32020},
		{"bad base64", args, with("Mcp-Param-Region", "=?base64?dXMtd2VzdDE?="), -32020},
		{"non-ASCII plain value", args, with("Mcp-Param-Region", "üs"), -32020},
		{"count differs", args, with("Mcp-Param-Count", "41"), -32020},
		{"count as an exponent", args, with("Mcp-Param-Count", "4.2e1"), 0},
		// Go's float syntax is not JSON's: an intermediary reading these as
		// JSON numbers would not see 42.
		{"count in hex", args, with("Mcp-Param-Count", "0x2Ap0"), -32020},
		{"count with a plus", args, with("Mcp-Param-Count", "+42"), -32020},
		{"count with a leading zero", args, with("Mcp-Param-Count", "042"), -32020},
		{"count with a bare point", args, with("Mcp-Param-Count", "42."), -32020},
		// A member encoding/json would take for the mirrored one: a tool
		// decoding with it could act on a value the header was not
		// checked against.
		{"case variant beside the argument", `"name":"regional","arguments":{"region":"us-west1","Region":"eu-central1","count":42,"opts":{"dry":true}}`, all, -32020},
		{"case variant alone", `"name":"regional","arguments":{"REGION":"eu-central1"}`, map[string]string{}, -32020},
		{"long s variant on the path", `"name":"regional","arguments":{"region":"us-west1","count":42,"opts":{"dry":true},"optſ":{"dry":false}}`, all, -32020},
		{"case variant in a nested object", `"name":"regional","arguments":{"region":"us-west1","count":42,"opts":{"dry":true,"DRY":false}}`, all, -32020},
		{"bool differs", args, with("Mcp-Param-Dry", "false"), -32020},
		{"absent argument needs no header", `"name":"regional","arguments":{}`, map[string]string{}, 0},
		{"null argument needs no header", `"name":"regional","arguments":{"region":null}`, map[string]string{}, 0},
		{"header for an absent argument", `"name":"regional","arguments":{}`, map[string]string{"Mcp-Param-Region": "x"}, -32020},
		{"unknown Mcp-Param ignored", args, with("Mcp-Param-Other", "zzz"), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := call{era: mcp.Version20260728, id: "1", method: "tools/call", params: tt.params, header: map[string]string{}}
			for k, v := range tt.header {
				c.header[k] = v
			}
			r := f.do(t, c)
			status := 200
			if tt.code != 0 {
				status = 400
			}
			check(t, r, want{status: status, code: tt.code, id: "1", proto: "2026-07-28"})
		})
	}
}

func TestDiscover(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.do(t, call{era: mcp.Version20260728, id: "1", method: "server/discover"})
	check(t, r, want{status: 200, id: "1", proto: "2026-07-28"})
	want := map[string]any{
		"resultType": "complete", "ttlMs": 0.0, "cacheScope": "private", "instructions": "Test fixture.",
		"supportedVersions": []any{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"},
		"capabilities":      map[string]any{"tools": map[string]any{}},
		"_meta":             map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "fixture", "title": "Fixture", "version": "1.0.0"}},
	}
	if diff := cmp.Diff(want, r.result(t)); diff != "" {
		t.Errorf("server/discover (-want +got):\n%s", diff)
	}
}

// TestTools_List checks shapes per revision, stable order and pagination.
func TestTools_List(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			var names []string
			cursor := ""
			for page := 0; ; page++ {
				params := ""
				if cursor != "" {
					params = `"cursor":` + quoteJSON(cursor)
				}
				r := f.do(t, call{era: era, id: "1", method: "tools/list", params: params})
				check(t, r, want{status: 200, id: "1", proto: string(era)})
				var res struct {
					Tools []map[string]any `json:"tools"`
					Next  string           `json:"nextCursor"`
					TTL   *int             `json:"ttlMs"`
					Scope string           `json:"cacheScope"`
				}
				json.Unmarshal(r.msg.Result, &res)
				if (era == mcp.Version20260728) != (res.TTL != nil && res.Scope == "private") {
					t.Errorf("page %d: ttlMs/cacheScope %v %q", page, res.TTL, res.Scope)
				}
				if len(res.Tools) > 5 {
					t.Fatalf("page of %d tools, page size is 5", len(res.Tools))
				}
				for _, tool := range res.Tools {
					names = append(names, tool["name"].(string))
					ann, _ := tool["annotations"].(map[string]any)
					for _, hint := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
						if _, ok := ann[hint].(bool); !ok {
							t.Errorf("%s: %s not explicit", tool["name"], hint)
						}
					}
					_, hasTitle := tool["title"]
					_, hasOut := tool["outputSchema"]
					if tool["name"] == "typed" && (hasTitle != (era != mcp.Version20250326) || hasOut != (era != mcp.Version20250326)) {
						t.Errorf("typed tool in %s: title %v outputSchema %v", era, hasTitle, hasOut)
					}
				}
				if res.Next == "" {
					break
				}
				cursor = res.Next
				if page > 10 {
					t.Fatal("pagination does not end")
				}
			}
			got := strings.Join(names, ",")
			if got != "items_get,echo,missing,broken,panic,image,audio,own,headers,typed,mistyped,regional" {
				t.Errorf("order %s", got)
			}
		})
	}
}

func TestTools_BadCursor(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, era := range eras {
		for _, c := range []string{`"garbage"`, `"` + "dG9vbHN8NXx4eA" + `"`, `"cHJvbXB0c3w1fDAw"`, `5`, `"` + strings.Repeat("A", 500) + `"`} {
			r := f.do(t, call{era: era, id: "1", method: "tools/list", params: `"cursor":` + c})
			check(t, r, want{status: 200, code: -32602, id: "1", proto: string(era)})
		}
	}
}

func callTool(t *testing.T, f *fixture, era mcp.Version, name, args string) (*reply, map[string]any) {
	t.Helper()
	r := f.do(t, call{era: era, id: "7", method: "tools/call", params: `"name":` + quoteJSON(name) + `,"arguments":` + args})
	if r.code() != 0 {
		return r, nil
	}
	return r, r.result(t)
}

func text(res map[string]any) string {
	c, _ := res["content"].([]any)
	if len(c) != 1 {
		return ""
	}
	m := c[0].(map[string]any)
	s, _ := m["text"].(string)
	return s
}

func TestTools_Call(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			_, res := callTool(t, f, era, "items_get", `{"id":"a1","q":"x y","n":3}`)
			// The fixture route encodes with json.Marshal, which escapes "&".
			if text(res) != `{"id":"a1","query":"n=3\u0026q=x+y"}` || res["isError"] != nil {
				t.Errorf("items_get: %v", res)
			}
			_, res = callTool(t, f, era, "echo", `{"text":"hi"}`)
			if text(res) != `{"text":"hi"}` {
				t.Errorf("echo: %v", res)
			}
			_, res = callTool(t, f, era, "echo", `{"text":"far too long for the schema"}`)
			if res["isError"] != true || !strings.Contains(text(res), "Invalid arguments") {
				t.Errorf("schema violation: %v", res)
			}
			_, res = callTool(t, f, era, "missing", `{}`)
			if res["isError"] != true || text(res) != `{"error":"no such thing"}` {
				t.Errorf("4xx: %v", res)
			}
			_, res = callTool(t, f, era, "broken", `{}`)
			if res["isError"] != true || strings.Contains(text(res), "hunter2") {
				t.Errorf("5xx: %v", res)
			}
			_, res = callTool(t, f, era, "panic", `{}`)
			if res["isError"] != true || strings.Contains(text(res), "secret") {
				t.Errorf("panic: %v", res)
			}
			_, res = callTool(t, f, era, "image", `{}`)
			if diff := cmp.Diff([]any{map[string]any{"type": "image", "data": "iVBORw==", "mimeType": "image/png"}}, res["content"]); diff != "" {
				t.Errorf("image (-want +got):\n%s", diff)
			}
			_, res = callTool(t, f, era, "audio", `{}`)
			if diff := cmp.Diff([]any{map[string]any{"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}}, res["content"]); diff != "" {
				t.Errorf("audio (-want +got):\n%s", diff)
			}
			modern := era != mcp.Version20250326
			_, res = callTool(t, f, era, "own", `{}`)
			if text(res) != "own" || (res["structuredContent"] != nil) != modern {
				t.Errorf("own result: %v", res)
			}
			_, res = callTool(t, f, era, "typed", `{}`)
			if sc, _ := json.Marshal(res["structuredContent"]); modern != (string(sc) == `{"n":7}`) || text(res) != `{"n":7}` {
				t.Errorf("typed: %v", res)
			}
			_, res = callTool(t, f, era, "mistyped", `{}`)
			if modern && (res["isError"] != true || res["structuredContent"] != nil) {
				t.Errorf("output violating outputSchema: %v", res)
			}
			for _, args := range []string{`[]`, `"x"`, `5`} {
				r, _ := callTool(t, f, era, "echo", args)
				check(t, r, want{status: 200, code: -32602, id: "7", proto: string(era)})
			}
			r, res := callTool(t, f, era, "echo", `null`)
			if r.code() != 0 || text(res) != `{}` {
				t.Errorf("null arguments: %s", r.raw)
			}
			r, _ = callTool(t, f, era, "no_such_tool", `{}`)
			check(t, r, want{status: 200, code: -32602, id: "7", proto: string(era)})
		})
	}
}

// TestTools_PathConfinement sends hostile ids: none may reach another
// route, and the route must see the id exactly as sent.
func TestTools_PathConfinement(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, era := range eras {
		for _, id := range []string{"../admin", "..%2Fadmin", "a/secret", "x/../../admin", "%2e%2e", "a?x=1", "a#frag", "a b", "é", strings.Repeat("z", 5000)} {
			t.Run(string(era)+"/"+id[:min(len(id), 20)], func(t *testing.T) {
				admin, secret := f.count("GET /admin"), f.count("GET /items/{id}/secret")
				_, res := callTool(t, f, era, "items_get", `{"id":`+quoteJSON(id)+`}`)
				var got struct {
					ID string `json:"id"`
				}
				json.Unmarshal([]byte(text(res)), &got)
				if res["isError"] != nil || got.ID != id {
					t.Errorf("route saw %q, want %q (%v)", got.ID, id, res)
				}
				if f.count("GET /admin") != admin || f.count("GET /items/{id}/secret") != secret {
					t.Error("an id reached another route")
				}
			})
		}
		for _, id := range []string{"", ".", ".."} {
			before := f.count("GET /items/{id}")
			_, res := callTool(t, f, era, "items_get", `{"id":`+quoteJSON(id)+`}`)
			if res["isError"] != true || f.count("GET /items/{id}") != before {
				t.Errorf("id %q was dispatched: %v", id, res)
			}
		}
	}
}

func TestTools_NoCredentialsForwarded(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, era := range eras {
		r := f.do(t, call{era: era, id: "1", method: "tools/call", params: `"name":"headers","arguments":{}`,
			header: map[string]string{"Authorization": "Bearer secret-token", "Cookie": "session=abc"}})
		res := r.result(t)
		if text(res) != `{"authorization":null,"cookie":null,"tool":"headers"}` {
			t.Errorf("%s: route saw %s", era, text(res))
		}
	}
}

func TestHandler_NoPartialWrites(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// Every refusal is one complete JSON object with a Content-Length.
	for _, body := range []string{``, `{`, `[1,2`, strings.Repeat(`{"a":`, 100), "\x00"} {
		c := call{era: mcp.Version20250618, rawBody: body}
		req, _ := http.NewRequest(http.MethodPost, f.url, bytes.NewReader([]byte(body)))
		req.Header = headersFor(c)
		r := send(t, req)
		if r.status != 400 || r.header.Get("Content-Length") == "" {
			t.Errorf("%q: %d %s", body, r.status, r.raw)
		}
	}
}

func TestLogs_NoSecrets(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	callTool(t, f, mcp.Version20250618, "broken", `{}`)
	f.do(t, call{era: mcp.Version20250618, id: "1", method: "tools/list", header: map[string]string{"Authorization": "Bearer tok-123"}})
	logs := f.log.String()
	if !strings.Contains(logs, "tool route failed") {
		t.Errorf("failure not logged: %s", logs)
	}
	for _, secret := range []string{"hunter2", "tok-123"} {
		if strings.Contains(logs, secret) {
			t.Errorf("log holds %q: %s", secret, logs)
		}
	}
}

// TestEraSelection_InitializeNegotiates: initialize with a header naming a
// revision this server does not serve (a newer client) is negotiated down,
// while any other method with that header is refused.
func TestEraSelection_InitializeNegotiates(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, hv := range []string{"2026-01-01", "2099-01-01"} {
		c := call{id: "1", method: "initialize", params: `"protocolVersion":"` + hv + `","capabilities":{},"clientInfo":{"name":"c","version":"1"}`,
			header: map[string]string{"MCP-Protocol-Version": hv}}
		r := f.do(t, c)
		check(t, r, want{status: 200, id: "1", proto: "2025-11-25"})
		if v := r.result(t)["protocolVersion"]; v != "2025-11-25" {
			t.Errorf("%s: negotiated %v", hv, v)
		}
		r = f.do(t, call{method: "notifications/initialized", header: map[string]string{"MCP-Protocol-Version": hv}})
		if r.status != 202 {
			t.Errorf("%s notifications/initialized: %d %s", hv, r.status, r.raw)
		}
		r = f.do(t, call{id: "2", method: "tools/list", header: map[string]string{"MCP-Protocol-Version": hv}})
		check(t, r, want{status: 400, code: -32022, id: "2"})
		r = f.do(t, call{method: "notifications/cancelled", header: map[string]string{"MCP-Protocol-Version": hv}})
		check(t, r, want{status: 400, code: -32022})
	}
}
