// Package era2025 serves the handshake revisions of MCP, 2025-11-25,
// 2025-06-18 and 2025-03-26, on an mcp.Handler.
//
// A 2025 client opens with initialize; the server answers with the revision
// it asked for when served (otherwise the newest one served) and remembers
// nothing: later requests name their revision in the MCP-Protocol-Version
// header. No Mcp-Session-Id is issued unless WithSessions asks for one, and
// then it is sealed, so any replica opens it. Every
// JSON-RPC error of a request served in one of these revisions is answered
// in-band with HTTP 200, as these revisions expect; refusals before that are
// not (an MCP-Protocol-Version this server does not serve, or on initialize
// one not spelled as a date, is 400 -32022; a session id that does not open
// is 404). WithVersions restricts the revisions a host
// accepts.
//
//	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
package era2025
