// Package era2026 serves MCP revision 2026-07-28, the stateless one, on an
// mcp.Handler.
//
// Every request carries its revision and the client's capabilities in
// params._meta and repeats routing facts in headers (MCP-Protocol-Version,
// Mcp-Method, Mcp-Name, Mcp-Param-*); the era checks that they agree with
// the body before anything runs, answers server/discover, and stamps every
// result with resultType and the server's identity in _meta. Methods the
// revision removed (initialize, ping, logging/setLevel,
// resources/subscribe, resources/unsubscribe) are 404 with -32601.
//
//	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
package era2026
