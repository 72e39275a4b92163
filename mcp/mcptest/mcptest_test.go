package mcptest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/mcptest"
)

func server(eras ...mcp.Era) http.Handler {
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "regional", InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`)},
		"GET /r", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`"ok"`)) }))
	return mcp.NewHandler(srv, eras)
}

// strict is how mcpdual's own servers run the kit: every level enforced,
// this library's stateless profile included, and no deviation declared
// (a default endpoint serves 2025-03-26 batches, as that revision requires).
var strict = []mcptest.RunOption{mcptest.Strict()}

// TestRun runs the battery against servers of each era mix.
func TestRun(t *testing.T) {
	mcptest.Run(t, server(era2026.New(), era2025.New()), strict...)
	t.Run("2026 only", func(t *testing.T) { mcptest.Run(t, server(era2026.New()), strict...) })
	t.Run("2025 only", func(t *testing.T) { mcptest.Run(t, server(era2025.New()), strict...) })
}

// TestRunURL runs the battery over a loopback listener.
func TestRunURL(t *testing.T) {
	ts := httptest.NewServer(server(era2026.New(), era2025.New()))
	defer ts.Close()
	mcptest.RunURL(t, ts.URL, strict...)
}

// TestClient_Dial speaks to a real listener, with the routing headers a
// tool's x-mcp-header annotation asks for.
func TestClient_Dial(t *testing.T) {
	ts := httptest.NewServer(server(era2026.New(), era2025.New()))
	defer ts.Close()
	for _, v := range []mcp.Version{mcp.Version20260728, mcp.Version20250618, mcp.Version20250326} {
		c := mcptest.Dial(ts.URL, v)
		res, err := c.CallTool(context.Background(), "regional", map[string]string{"region": "eu west"})
		if err != nil || res.Error != nil || res.Status != 200 {
			t.Errorf("%s: %v %s", v, err, res.Raw)
		}
	}
}
