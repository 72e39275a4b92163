// Package mcptest is a test kit for MCP servers: a Client that speaks each
// protocol revision the way a correct client does, and Run, a battery of
// the transport, era, envelope, header and error rules any server must
// follow, to call from a server's own go test.
//
//	func TestMCP(t *testing.T) {
//		mcptest.Run(t, myHandler)
//		c := mcptest.New(myHandler, mcp.Version20260728)
//		res, err := c.CallTool(context.Background(), "greet", map[string]any{"name": "Ada"})
//		...
//	}
//
// A Client works in-process (New, on any http.Handler) or over the network
// (Dial, on a URL). It adds the 2026-07-28 _meta envelope and routing
// headers, or runs the 2025 initialize handshake, and follows multi
// round-trip retries when given answers (WithAnswers).
package mcptest
