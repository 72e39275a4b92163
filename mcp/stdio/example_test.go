package stdio_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/stdio"
)

// A server's routes served over stdio, as the user who started the
// process. A real program passes os.Stdin, and a context cancelled on
// SIGINT and SIGTERM.
func Example() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /greeting", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"hello":%q}`, auth.FromContext(r.Context()).Subject)
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "greeter", Version: "1.0.0"})
	srv.AddTool(mcp.Tool{Name: "greet", Description: "Greets whoever runs the server.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		"GET /greeting", mux)
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})

	// A 2025 client's handshake notification (never answered), then a
	// 2026-07-28 call: its _meta is all it needs.
	in := strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n")
	me := &auth.Principal{Issuer: "local", Subject: "ada"}
	if err := stdio.Serve(context.Background(), h, in, os.Stdout, stdio.WithPrincipal(me)); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"greeter","version":"1.0.0"}},"content":[{"type":"text","text":"{\"hello\":\"ada\"}"}]}}
}
