package mcp_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

func mustPanic(t *testing.T, name, want string, f func()) {
	t.Helper()
	defer func() {
		p := recover()
		if p == nil {
			t.Errorf("%s: no panic", name)
			return
		}
		if msg, _ := p.(string); !strings.Contains(msg, want) {
			t.Errorf("%s: panic %q does not mention %q", name, p, want)
		}
	}()
	f()
}

func TestAddTool_Misuse(t *testing.T) {
	t.Parallel()
	h := http.NotFoundHandler()
	obj := func(s string) json.RawMessage { return json.RawMessage(s) }
	idReq := obj(`{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}`)
	tests := []struct {
		name, want string
		tool       mcp.Tool
		route      string
	}{
		{"empty name", "invalid tool name", mcp.Tool{Name: ""}, "GET /x"},
		{"space in name", "invalid tool name", mcp.Tool{Name: "a b"}, "GET /x"},
		{"long name", "invalid tool name", mcp.Tool{Name: strings.Repeat("a", 129)}, "GET /x"},
		{"schema not JSON", "inputSchema", mcp.Tool{Name: "t", InputSchema: obj(`{`)}, "GET /x"},
		{"schema duplicate key", "inputSchema", mcp.Tool{Name: "t", InputSchema: obj(`{"type":"object","type":"object"}`)}, "GET /x"},
		{"root not object", "root", mcp.Tool{Name: "t", InputSchema: obj(`{"type":"string"}`)}, "GET /x"},
		{"network $ref", "inputSchema", mcp.Tool{Name: "t", InputSchema: obj(`{"type":"object","$ref":"https://example.com/s.json"}`)}, "GET /x"},
		{"bad outputSchema", "outputSchema", mcp.Tool{Name: "t", OutputSchema: obj(`{"type":7}`)}, "GET /x"},
		{"bad x-mcp-header", "x-mcp-header", mcp.Tool{Name: "t", InputSchema: obj(`{"type":"object","properties":{"a":{"type":"number","x-mcp-header":"A"}}}`)}, "GET /x"},
		{"route without method", "route", mcp.Tool{Name: "t"}, "/x"},
		{"route bad method", "route", mcp.Tool{Name: "t"}, "TRACE /x"},
		{"route dot-dot", "route", mcp.Tool{Name: "t"}, "GET /a/../b"},
		{"wildcard not in schema", "wildcard", mcp.Tool{Name: "t"}, "GET /x/{id}"},
		{"wildcard not required", "wildcard", mcp.Tool{Name: "t", InputSchema: obj(`{"type":"object","properties":{"id":{"type":"string"}}}`)}, "GET /x/{id}"},
		{"wildcard object type", "wildcard", mcp.Tool{Name: "t", InputSchema: obj(`{"type":"object","properties":{"id":{"type":"object"}},"required":["id"]}`)}, "GET /x/{id}"},
		{"repeated wildcard", "route", mcp.Tool{Name: "t", InputSchema: idReq}, "GET /x/{id}/{id}"},
	}
	for _, tt := range tests {
		srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
		mustPanic(t, tt.name, tt.want, func() { srv.AddTool(tt.tool, tt.route, h) })
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
	srv.AddTool(mcp.Tool{Name: "t"}, "GET /x", h)
	mustPanic(t, "duplicate", "twice", func() { srv.AddTool(mcp.Tool{Name: "t"}, "GET /y", h) })
	mustPanic(t, "nil handler", "nil handler", func() { srv.AddTool(mcp.Tool{Name: "u"}, "GET /y", nil) })
	mcp.NewHandler(srv, []mcp.Era{era2025.New()})
	mustPanic(t, "after NewHandler", "after NewHandler", func() { srv.AddTool(mcp.Tool{Name: "v"}, "GET /z", h) })
}

func TestNewHandler_Misuse(t *testing.T) {
	t.Parallel()
	srv := func() *mcp.Server { return mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"}) }
	mustPanic(t, "no eras", "at least one Era", func() { mcp.NewHandler(srv(), nil) })
	mustPanic(t, "two eras, one version", "two eras", func() { mcp.NewHandler(srv(), []mcp.Era{era2025.New(), era2025.New()}) })
	mustPanic(t, "no name", "Name", func() { mcp.NewServer(mcp.Implementation{}) })
}

// TestHandler_ModernOnly: without a handshake era, a request naming no
// revision is refused with -32020, and initialize is not served.
func TestHandler_ModernOnly(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New()})
	f := &fixture{}
	ts := newTestServer(t, h)
	f.url = ts
	r := f.do(t, call{id: "1", method: "initialize", params: `"protocolVersion":"2025-06-18"`})
	check(t, r, want{status: 400, code: -32020, id: "1"})
	r = f.do(t, call{era: mcp.Version20250618, id: "1", method: "tools/list"})
	check(t, r, want{status: 400, code: -32022, id: "1"})
	// No tools: tools/list is behind an unadvertised capability.
	r = f.do(t, call{era: mcp.Version20260728, id: "1", method: "tools/list"})
	check(t, r, want{status: 404, code: -32601, id: "1", proto: "2026-07-28"})
	r = f.do(t, call{era: mcp.Version20260728, id: "1", method: "server/discover"})
	if caps, _ := json.Marshal(r.result(t)["capabilities"]); string(caps) != `{}` {
		t.Errorf("capabilities %s", caps)
	}
}
