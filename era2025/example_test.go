package era2025_test

import (
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/mcp"
)

// initialize answers the revision the client asked for when it is served.
func ExampleNew() {
	srv := mcp.NewServer(mcp.Implementation{Name: "demo", Title: "Demo", Version: "1.0.0"})
	h := mcp.NewHandler(srv, []mcp.Era{era2025.New()})

	req := httptest.NewRequest("POST", "http://localhost/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	fmt.Println(rec.Header().Get("MCP-Protocol-Version"), rec.Body.String())
	// Output:
	// 2025-03-26 {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","capabilities":{},"serverInfo":{"name":"demo","version":"1.0.0"}}}
}
