package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/mcpdual/mcpdual/mcp"
)

// TestSchemaObjects checks that a schema the host supplies is refused at
// registration, with where, when it holds a boolean where clients expect
// a schema object (MCP types property schemas, items, allOf/anyOf/oneOf/
// prefixItems members and $defs entries as objects, and the TypeScript
// SDK refuses the whole tools/list answer over one), and that the
// booleans JSON Schema keeps elsewhere (additionalProperties, not) and
// values that merely look like schemas (a default) are taken.
func TestSchemaObjects(t *testing.T) {
	h := http.NotFoundHandler()
	for _, tc := range []struct {
		name string
		add  func(*mcp.Server)
		want string
	}{
		{"input property", func(s *mcp.Server) {
			s.AddTool(mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"},"x":false}}`)}, "POST /t", h)
		}, "mcp: tool t: inputSchema.properties.x: a property schema must be an object"},
		{"input nested items", func(s *mcp.Server) {
			s.AddTool(mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"array","items":true}}}`)}, "POST /t", h)
		}, "mcp: tool t: inputSchema.properties.a.items: items must be an object"},
		{"input $defs", func(s *mcp.Server) {
			s.AddTool(mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","$defs":{"A":{"type":"object","properties":{"b":true}}}}`)}, "POST /t", h)
		}, "mcp: tool t: inputSchema.$defs.A.properties.b: a property schema must be an object"},
		{"output anyOf", func(s *mcp.Server) {
			s.AddTool(mcp.Tool{Name: "t", OutputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},true]}}}`)}, "GET /t", h)
		}, "mcp: tool t: outputSchema.properties.a.anyOf[1]: a member of anyOf must be an object"},
		{"output prefixItems", func(s *mcp.Server) {
			s.AddTool(mcp.Tool{Name: "t", OutputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"prefixItems":[false]}}}`)}, "GET /t", h)
		}, "mcp: tool t: outputSchema.properties.a.prefixItems[0]: a member of prefixItems must be an object"},
		{"output $defs entry", func(s *mcp.Server) {
			s.AddTool(mcp.Tool{Name: "t", OutputSchema: json.RawMessage(`{"type":"object","$defs":{"Never":false}}`)}, "GET /t", h)
		}, "mcp: tool t: outputSchema.$defs.Never: a $defs entry must be an object"},
		{"function tool", func(s *mcp.Server) {
			mcp.AddToolFunc(s, mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"},"b":true}}`)},
				func(context.Context, struct {
					A string `json:"a"`
				}) (struct{}, error) {
					return struct{}{}, nil
				})
		}, "mcp: tool t: inputSchema.properties.b: a property schema must be an object"},
		{"booleans where they belong", func(s *mcp.Server) {
			s.AddTool(mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"object","default":{"properties":{"x":false}},"additionalProperties":true},"b":{"not":true}},"additionalProperties":false}`)}, "POST /t", h)
		}, ""},
	} {
		srv := mcp.NewServer(mcp.Implementation{Name: "s", Version: "1"})
		err := srv.Register(tc.add)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
