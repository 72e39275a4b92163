package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/mcp"
)

type funcHostKey struct{}

// TestFuncTool_Context: a function tool's context keeps what the host's
// middleware put in the MCP request's (it is no in-process request, whose
// context starts afresh), carries the Call, and is not marked in-process.
func TestFuncTool_Context(t *testing.T) {
	type in struct{}
	type out struct {
		Host      string `json:"host"`
		Call      bool   `json:"call"`
		InProcess bool   `json:"inProcess"`
	}
	srv := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"})
	mcp.AddToolFunc(srv, mcp.Tool{Name: "ctx"}, func(ctx context.Context, _ in) (out, error) {
		host, _ := ctx.Value(funcHostKey{}).(string)
		r := httptest.NewRequestWithContext(ctx, http.MethodGet, "/", nil)
		return out{Host: host, Call: mcp.CallFromContext(ctx) != nil, InProcess: mcp.InProcess(r)}, nil
	})
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), funcHostKey{}, "middleware")))
	}))
	defer ts.Close()
	for _, c := range []struct {
		hdr  map[string]string
		body string
	}{
		{map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "ctx"},
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ctx","arguments":{},` + meta2026 + `}}`},
		{map[string]string{"MCP-Protocol-Version": "2025-06-18"},
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ctx","arguments":{}}}`},
	} {
		r := post(t, ts.URL, http.MethodPost, "", c.hdr, c.body)
		if r.status != http.StatusOK || !strings.Contains(string(r.body), `"structuredContent":{"host":"middleware","call":true,"inProcess":false}`) {
			t.Errorf("%s: %d %s", c.hdr["MCP-Protocol-Version"], r.status, r.body)
		}
	}
}
