package era2026_test

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

// A 2026-07-28 request names its revision in _meta and repeats it, and the
// method, in headers.
func ExampleNew() {
	srv := mcp.NewServer(mcp.Implementation{Name: "demo", Version: "1.0.0"})
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(era2026.WithCaching(time.Minute, era2026.Public))})

	req := httptest.NewRequest("POST", "http://localhost/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{`+
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "server/discover")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	fmt.Println(rec.Code, rec.Body.String())
	// Output:
	// 200 {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":60000,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"demo","version":"1.0.0"}},"supportedVersions":["2026-07-28"],"capabilities":{}}}
}
