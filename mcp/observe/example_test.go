package observe_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/observe"
)

// An access log: one line per MCP request, with the request's context.
func ExampleAccessLog() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /hello", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("hello")) })
	srv := mcp.NewServer(mcp.Implementation{Name: "hello", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "hello", InputSchema: json.RawMessage(`{"type":"object"}`)}, "GET /hello", mux)

	// Time, client address and duration vary; leave them out here.
	drop := func(_ []string, a slog.Attr) slog.Attr {
		switch a.Key {
		case slog.TimeKey, "client", "durationMs":
			return slog.Attr{}
		}
		return a
	}
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{ReplaceAttr: drop}))
	h := mcp.NewHandler(srv, []mcp.Era{era2025.New()}, mcp.WithObserver(observe.AccessLog(logger)))

	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello","arguments":{}}}`
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
	req.RemoteAddr = "127.0.0.1:50000"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	h.ServeHTTP(httptest.NewRecorder(), req)
	// Output:
	// level=INFO msg="mcp: request" transport=http method=tools/call id=1 target=hello version=2025-06-18 status=200 bytesIn=87 bytesOut=78
}
