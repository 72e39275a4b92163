// Package mcptest is a conformance kit for MCP servers, whoever built
// them: a Client that speaks each protocol revision the way a correct
// client does, and Run, a battery of checks to call from a server's own
// go test (cmd/mcpcheck runs the same battery over the network).
//
//	func TestMCP(t *testing.T) {
//		mcptest.Run(t, myHandler)
//		c := mcptest.New(myHandler, mcp.Version20260728)
//		res, err := c.CallTool(context.Background(), "greet", map[string]any{"name": "Ada"})
//		...
//	}
//
// Every check cites its rule (the revision and section, or the JSON-RPC
// 2.0 or RFC clause) and its Level: Must, Should, or Profile, a choice of
// this library's stateless profile. By default Run fails only MUST
// violations and logs the rest; Strict fails them all. Where the
// specification leaves the answer open, every allowed answer passes. A
// server that departs from a rule on purpose declares it with Deviation.
// Check and CheckURL return the Results instead of failing a test.
//
// A Client works in-process (New, on any http.Handler) or over the network
// (Dial, on a URL). It adds the 2026-07-28 _meta envelope and routing
// headers, or runs the 2025 initialize handshake, and follows multi
// round-trip retries when given answers (WithAnswers).
package mcptest
