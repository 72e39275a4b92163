package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/content"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata/")

// goldenServer is a one-tool server whose wire output the transcripts pin.
func goldenServer() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /greetings/{name}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"greeting": "Hello, " + r.PathValue("name") + "!"})
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "golden", Title: "Golden", Version: "1.0.0"}, mcp.WithInstructions("Greets."))
	srv.AddTool(mcp.Tool{
		Name:         "greet",
		Title:        "Greet",
		Description:  "Greets someone.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"greeting":{"type":"string"}},"required":["greeting"]}`),
		Annotations:  mcp.Annotations{ReadOnly: true, Idempotent: true},
	}, "GET /greetings/{name}", mux)
	mux.HandleFunc("GET /notes/{id}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "Note "+r.PathValue("id"))
	})
	srv.AddResource(mcp.Resource{URI: "golden://notes/first", Name: "first", Title: "First note", MIMEType: "text/plain"}, "GET /notes/first", mux)
	srv.AddResourceTemplate(mcp.ResourceTemplate{URITemplate: "golden://notes/{id}", Name: "note", Title: "A note", MIMEType: "text/plain"}, "GET /notes/{id}", mux)
	srv.AddPrompt(mcp.Prompt{Name: "greeting", Title: "Greeting", Description: "Writes a greeting.",
		Arguments: []mcp.PromptArgument{{Name: "name", Title: "Name", Required: true}}},
		func(ctx context.Context, args map[string]string) (*mcp.PromptResult, error) {
			return &mcp.PromptResult{Description: "A greeting", Messages: []mcp.PromptMessage{
				{Role: content.User, Content: content.Text("Write a greeting for " + args["name"] + ".")},
				{Role: content.User, Content: content.ResourceLink("golden://notes/first", "first", "text/plain")},
			}}, nil
		},
		mcp.WithCompletion("name", func(ctx context.Context, value string, args map[string]string) ([]string, error) {
			return []string{value + "da", value + "lan"}, nil
		}))
	return mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
}

// TestGolden replays each transcript's request and compares the response
// (status, the headers that matter, body) with the file. Run
// `go test ./mcp -run TestGolden -update` after an intended change.
func TestGolden(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(goldenServer())
	defer ts.Close()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	h26 := func(method, name string) map[string]string {
		h := map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method}
		if name != "" {
			h["Mcp-Name"] = name
		}
		return h
	}
	cases := []struct {
		file    string
		headers map[string]string
		body    string
	}{
		{"2025-06-18/initialize", nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`},
		{"2025-03-26/initialize", nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`},
		{"2026-07-28/server-discover", map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"}, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{` + meta + `}}`},
		{"2026-07-28/tools-list", map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"}, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{` + meta + `}}`},
		{"2025-06-18/tools-list", map[string]string{"MCP-Protocol-Version": "2025-06-18"}, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`},
		{"2025-03-26/tools-list", map[string]string{"MCP-Protocol-Version": "2025-03-26"}, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`},
		{"2026-07-28/tools-call", map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "greet"}, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"},` + meta + `}}`},
		{"2025-06-18/tools-call", map[string]string{"MCP-Protocol-Version": "2025-06-18"}, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`},
		{"2025-03-26/tools-call", map[string]string{"MCP-Protocol-Version": "2025-03-26"}, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`},
		{"2026-07-28/tools-call-unknown", map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "nope"}, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope","arguments":{},` + meta + `}}`},
		{"2026-07-28/resources-list", h26("resources/list", ""), `{"jsonrpc":"2.0","id":6,"method":"resources/list","params":{` + meta + `}}`},
		{"2026-07-28/resources-templates-list", h26("resources/templates/list", ""), `{"jsonrpc":"2.0","id":7,"method":"resources/templates/list","params":{` + meta + `}}`},
		{"2026-07-28/resources-read", h26("resources/read", "golden://notes/7"), `{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"golden://notes/7",` + meta + `}}`},
		{"2026-07-28/resources-read-not-found", h26("resources/read", "golden://nothing"), `{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"golden://nothing",` + meta + `}}`},
		{"2026-07-28/prompts-list", h26("prompts/list", ""), `{"jsonrpc":"2.0","id":10,"method":"prompts/list","params":{` + meta + `}}`},
		{"2026-07-28/prompts-get", h26("prompts/get", "greeting"), `{"jsonrpc":"2.0","id":11,"method":"prompts/get","params":{"name":"greeting","arguments":{"name":"Ada"},` + meta + `}}`},
		{"2026-07-28/completion-complete", h26("completion/complete", ""), `{"jsonrpc":"2.0","id":12,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greeting"},"argument":{"name":"name","value":"A"},` + meta + `}}`},
		{"2026-07-28/unsupported-version", map[string]string{"MCP-Protocol-Version": "1999-01-01", "Mcp-Method": "tools/list"}, `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1999-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`},
		{"2025-06-18/resources-list", map[string]string{"MCP-Protocol-Version": "2025-06-18"}, `{"jsonrpc":"2.0","id":6,"method":"resources/list"}`},
		{"2025-06-18/resources-templates-list", map[string]string{"MCP-Protocol-Version": "2025-06-18"}, `{"jsonrpc":"2.0","id":7,"method":"resources/templates/list"}`},
		{"2025-06-18/resources-read", map[string]string{"MCP-Protocol-Version": "2025-06-18"}, `{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"golden://notes/7"}}`},
		{"2025-06-18/resources-read-not-found", map[string]string{"MCP-Protocol-Version": "2025-06-18"}, `{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"golden://nothing"}}`},
		{"2025-06-18/prompts-list", map[string]string{"MCP-Protocol-Version": "2025-06-18"}, `{"jsonrpc":"2.0","id":10,"method":"prompts/list"}`},
		{"2025-06-18/prompts-get", map[string]string{"MCP-Protocol-Version": "2025-06-18"}, `{"jsonrpc":"2.0","id":11,"method":"prompts/get","params":{"name":"greeting","arguments":{"name":"Ada"}}}`},
		{"2025-06-18/completion-complete", map[string]string{"MCP-Protocol-Version": "2025-06-18"}, `{"jsonrpc":"2.0","id":12,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greeting"},"argument":{"name":"name","value":"A"}}}`},
		{"2025-03-26/resources-list", map[string]string{"MCP-Protocol-Version": "2025-03-26"}, `{"jsonrpc":"2.0","id":6,"method":"resources/list"}`},
		{"2025-03-26/resources-templates-list", map[string]string{"MCP-Protocol-Version": "2025-03-26"}, `{"jsonrpc":"2.0","id":7,"method":"resources/templates/list"}`},
		{"2025-03-26/resources-read", map[string]string{"MCP-Protocol-Version": "2025-03-26"}, `{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"golden://notes/7"}}`},
		{"2025-03-26/resources-read-not-found", map[string]string{"MCP-Protocol-Version": "2025-03-26"}, `{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"golden://nothing"}}`},
		{"2025-03-26/prompts-list", map[string]string{"MCP-Protocol-Version": "2025-03-26"}, `{"jsonrpc":"2.0","id":10,"method":"prompts/list"}`},
		{"2025-03-26/prompts-get", map[string]string{"MCP-Protocol-Version": "2025-03-26"}, `{"jsonrpc":"2.0","id":11,"method":"prompts/get","params":{"name":"greeting","arguments":{"name":"Ada"}}}`},
		{"2025-03-26/completion-complete", map[string]string{"MCP-Protocol-Version": "2025-03-26"}, `{"jsonrpc":"2.0","id":12,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greeting"},"argument":{"name":"name","value":"A"}}}`},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(c.body))
			req.Header.Set("Content-Type", "application/json")
			var reqHeaders []string
			for k, v := range c.headers {
				req.Header.Set(k, v)
				reqHeaders = append(reqHeaders, k+": "+v)
			}
			sort.Strings(reqHeaders)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var b bytes.Buffer
			fmt.Fprintf(&b, "> POST /mcp\n")
			for _, h := range reqHeaders {
				fmt.Fprintf(&b, "> %s\n", h)
			}
			fmt.Fprintf(&b, "> %s\n\n< %d\n", c.body, resp.StatusCode)
			for _, h := range []string{"Content-Type", "Cache-Control", "Mcp-Protocol-Version", "Mcp-Session-Id"} {
				if v := resp.Header.Get(h); v != "" {
					fmt.Fprintf(&b, "< %s: %s\n", h, v)
				}
			}
			fmt.Fprintf(&b, "< %s\n", body)
			path := filepath.Join("testdata", "transcripts", c.file+".txt")
			if *update {
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			golden, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(golden, b.Bytes()) {
				t.Errorf("transcript differs from %s:\n--- want\n%s\n--- got\n%s", path, golden, b.Bytes())
			}
		})
	}
}
