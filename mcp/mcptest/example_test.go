package mcptest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
)

// A client of each era calls the same tool; the 2026-07-28 one also answers
// the tool's question and retries.
func Example() {
	srv := mcp.NewServer(mcp.Implementation{Name: "demo", Version: "1.0.0"})
	srv.AddTool(mcp.Tool{Name: "hello"}, "GET /hello", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		call := mcp.CallFromContext(r.Context())
		if !call.CanRequestInput() {
			fmt.Fprint(w, `"Hello, stranger!"`)
			return
		}
		if a, ok := call.Elicitation("name"); ok {
			var v struct{ Name string }
			json.Unmarshal(a.Content, &v)
			fmt.Fprintf(w, `"Hello, %s!"`, v.Name)
			return
		}
		call.RequireInput(nil, mcp.ElicitForm("name", "Your name?", json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)))
	}))
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})

	ctx := context.Background()
	old := mcptest.New(h, mcp.Version20250618)
	res, _ := old.CallTool(ctx, "hello", nil)
	fmt.Println(old.Version(), string(res.Result))

	modern := mcptest.New(h, mcp.Version20260728,
		mcptest.WithCapabilities(json.RawMessage(`{"elicitation":{}}`)),
		mcptest.WithAnswers(func(key string, req mcptest.InputRequest) (json.RawMessage, bool) {
			return json.RawMessage(`{"action":"accept","content":{"name":"Ada"}}`), true
		}))
	res, _ = modern.CallTool(ctx, "hello", nil)
	var out struct {
		Content []struct{ Text string } `json:"content"`
	}
	json.Unmarshal(res.Result, &out)
	fmt.Println(modern.Version(), res.ResultType(), out.Content[0].Text)
	// Output:
	// 2025-06-18 {"content":[{"type":"text","text":"\"Hello, stranger!\""}]}
	// 2026-07-28 complete "Hello, Ada!"
}
