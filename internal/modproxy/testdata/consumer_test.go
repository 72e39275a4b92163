package consumer

// The test of the consumer module .ci/modules.sh builds outside the
// repository: it requires the core and every module under mcp/ by the
// release version, fetched from a file module proxy with no replace, and
// calls something of each. imports.go, written beside it, imports every
// package of every module, so a module added later is at least built.

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/openapi"
	"github.com/mcpdual/mcpdual/mcp/otelmcp"
	"github.com/mcpdual/mcpdual/mcp/redisstore"
	"github.com/mcpdual/mcpdual/mcp/typeschema"
)

const spec = `openapi: 3.1.0
info: {title: greetings, version: "1"}
paths:
  /greetings/{name}:
    get:
      operationId: greet
      parameters:
        - {name: name, in: path, required: true, schema: {type: string}}
      responses:
        "200":
          description: a greeting
          content:
            application/json:
              schema: {type: object, properties: {greeting: {type: string}}}
`

type greeting struct {
	Name string `json:"name"`
}

func TestModules(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /greetings/{name}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"greeting": "Hello, " + r.PathValue("name") + "!"})
	})
	srv := mcp.NewServer(mcp.Implementation{Name: "consumer", Version: "1.0.0"})

	// mcp/typeschema: a schema from a Go type, for a tool of the core.
	in, err := typeschema.For[greeting]()
	if err != nil {
		t.Fatal(err)
	}
	srv.AddTool(mcp.Tool{Name: "greet_typed", InputSchema: in}, "GET /greetings/{name}", mux)

	// mcp/openapi: the same route registered from a document.
	if _, err := openapi.Register(srv, []byte(spec), mux); err != nil {
		t.Fatal(err)
	}

	// mcp/redisstore: reading a Redis URL (nothing connects).
	if opt, err := redisstore.ParseURL("redis://127.0.0.1:6379/0"); err != nil || opt.Addr != "127.0.0.1:6379" {
		t.Fatalf("ParseURL: %v, %v", opt, err)
	}

	// mcp/otelmcp: the observer, on the global (no-op) providers.
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithObserver(otelmcp.New()))

	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `Hello, Ada!`) || strings.Contains(rec.Body.String(), `"isError":true`) {
		t.Fatalf("tools/call greet: %d %s", rec.Code, rec.Body)
	}
}
