package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
)

func post(t *testing.T, url string, headers map[string]string, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return resp.StatusCode, m
}

// TestHello drives the example in both eras: create a note through MCP and
// read it back through the REST API, proving the tool ran the real route.
func TestHello(t *testing.T) {
	ts := httptest.NewServer(newApp())
	defer ts.Close()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

	status, init := post(t, ts.URL, nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`)
	if status != 200 || init["result"].(map[string]any)["protocolVersion"] != "2025-06-18" {
		t.Fatalf("initialize: %d %v", status, init)
	}
	status, created := post(t, ts.URL, map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "notes_create"},
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"notes_create","arguments":{"text":"buy milk"},`+meta+`}}`)
	content := created["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
	if status != 200 || content != `{"id":"n1","text":"buy milk"}` {
		t.Fatalf("notes_create: %d %v", status, created)
	}
	resp, err := http.Get(ts.URL + "/api/notes/n1")
	if err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.TrimSpace(string(rest)) != content {
		t.Errorf("REST sees %s, MCP returned %s", rest, content)
	}
	status, got := post(t, ts.URL, map[string]string{"MCP-Protocol-Version": "2025-03-26"},
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"notes_get","arguments":{"id":"n1"}}}`)
	if status != 200 || got["result"].(map[string]any)["isError"] != nil {
		t.Errorf("notes_get: %v", got)
	}
	status, missing := post(t, ts.URL, map[string]string{"MCP-Protocol-Version": "2025-06-18"},
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"notes_delete","arguments":{"id":"../notes/n1"}}}`)
	if status != 200 || missing["result"].(map[string]any)["isError"] != true {
		t.Errorf("hostile id: %v", missing)
	}
	if resp, _ := http.Get(ts.URL + "/api/notes/n1"); resp.StatusCode != 200 {
		t.Error("a hostile id deleted another note")
	}
}

// TestHelloConfirmedDelete: notes_delete runs only after the user confirms
// a question built from the stored note.
func TestHelloConfirmedDelete(t *testing.T) {
	ts := httptest.NewServer(newApp())
	defer ts.Close()
	h := func(name string) map[string]string {
		return map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name}
	}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	post(t, ts.URL, h("notes_create"), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"notes_create","arguments":{"text":"call \"mom\""},`+meta+`}}`)

	// A note that does not exist: nothing to confirm, nothing runs.
	_, none := post(t, ts.URL, h("notes_delete"), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"notes_delete","arguments":{"id":"../notes/n1"},`+meta+`}}`)
	if r := none["result"].(map[string]any); r["isError"] != true {
		t.Fatalf("hostile id: %v", none)
	}

	_, round1 := post(t, ts.URL, h("notes_delete"), `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"notes_delete","arguments":{"id":"n1"},`+meta+`}}`)
	r1 := round1["result"].(map[string]any)
	msg := r1["inputRequests"].(map[string]any)["confirm"].(map[string]any)["params"].(map[string]any)["message"]
	if r1["resultType"] != "input_required" || msg != `Delete note "n1" with text "call \u{0022}mom\u{0022}"? This cannot be undone.` {
		t.Fatalf("round 1: %v", round1)
	}
	if resp, _ := http.Get(ts.URL + "/api/notes/n1"); resp.StatusCode != 200 {
		t.Fatal("deleted before the confirmation")
	}
	state, _ := json.Marshal(r1["requestState"])
	_, round2 := post(t, ts.URL, h("notes_delete"), `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"notes_delete","arguments":{"id":"n1"},`+
		`"requestState":`+string(state)+`,"inputResponses":{"confirm":{"action":"accept","content":{"confirm":true}}},`+meta+`}}`)
	if r := round2["result"].(map[string]any); r["isError"] == true {
		t.Fatalf("round 2: %v", round2)
	}
	if resp, _ := http.Get(ts.URL + "/api/notes/n1"); resp.StatusCode != 404 {
		t.Errorf("note still there after the confirmed delete: %d", resp.StatusCode)
	}
}

// TestHelloSearch: the function tool and a route tool, side by side in
// every revision through the test kit.
func TestHelloSearch(t *testing.T) {
	h := newApp()
	ctx := context.Background()
	for _, v := range []mcp.Version{mcp.Version20260728, mcp.Version20250618, mcp.Version20250326} {
		c := mcptest.New(h, v)
		r, err := c.CallTool(ctx, "notes_create", map[string]string{"text": "Buy milk " + string(v)})
		if err != nil || r.Error != nil || strings.Contains(string(r.Result), `"isError"`) {
			t.Fatalf("%s notes_create: %v %s", v, err, r.Raw)
		}
		for _, tc := range []struct {
			args    map[string]any
			isError bool
			text    string
		}{
			{map[string]any{"word": "MILK " + string(v)}, false, `{"notes":[{"id":`},
			{map[string]any{"word": "bread"}, false, `{"notes":[]}`},
			{map[string]any{"word": ""}, true, "Invalid arguments"},
			{map[string]any{"word": "milk", "limit": 0}, true, "Invalid arguments"},
		} {
			r, err := c.CallTool(ctx, "notes_search", tc.args)
			var res struct {
				Content    []struct{ Text string } `json:"content"`
				Structured json.RawMessage         `json:"structuredContent"`
				IsError    bool                    `json:"isError"`
			}
			if err != nil || r.Error != nil || json.Unmarshal(r.Result, &res) != nil {
				t.Fatalf("%s: %v %s", v, err, r.Raw)
			}
			if res.IsError != tc.isError || !strings.HasPrefix(res.Content[0].Text, tc.text) && !strings.Contains(res.Content[0].Text, tc.text) {
				t.Errorf("%s notes_search %v: %s", v, tc.args, r.Result)
			}
			if !tc.isError && (v == mcp.Version20250326) != (res.Structured == nil) {
				t.Errorf("%s: structuredContent %s", v, res.Structured)
			}
		}
	}
}

// TestBattery runs the public test kit against the example at the level
// that includes this library's stateless profile, with the profile's one
// departure from the specification declared rather than hidden:
// 2025-03-26 says a server MUST accept JSON-RPC batches, and mcpdual
// refuses them (400, -32600) in every revision.
func TestBattery(t *testing.T) {
	mcptest.Run(t, newApp(), mcptest.Strict())
}
