package mcp_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

// The quick start: an existing REST route exposed as an MCP tool on /mcp.
func Example() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/greetings/{name}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"greeting": "Hello, " + r.PathValue("name") + "!"})
	})

	srv := mcp.NewServer(mcp.Implementation{Name: "hello", Version: "1.0.0"})
	srv.AddTool(mcp.Tool{
		Name:        "greet",
		Description: "Greets someone by name.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`),
		Annotations: mcp.Annotations{ReadOnly: true, Idempotent: true},
	}, "GET /api/greetings/{name}", mux)
	mux.Handle("/mcp", mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}))

	ts := httptest.NewServer(mux)
	defer ts.Close()

	// A 2025-06-18 client (no _meta envelope).
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`
	req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		panic(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, string(out))
	// Output:
	// 200 {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"greeting\":\"Hello, Ada!\"}"}]}}
}

// A tool handler reads the call it serves from its request's context.
func ExampleCallFromContext() {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		fmt.Fprintf(w, `{"tool":%q,"revision":%q}`, call.Tool(), call.ProtocolVersion())
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "demo", Version: "1.0.0"})
	srv.AddTool(mcp.Tool{Name: "whoami"}, "GET /whoami", handler)
	h := mcp.NewHandler(srv, []mcp.Era{era2025.New()})

	req := httptest.NewRequest("POST", "http://localhost/mcp",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami"}}`))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	fmt.Println(rec.Body.String())
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"tool\":\"whoami\",\"revision\":\"2025-06-18\"}"}]}}
}
