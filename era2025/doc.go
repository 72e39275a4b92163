// Package era2025 serves the handshake revisions of MCP, 2025-11-25,
// 2025-06-18 and 2025-03-26, on an mcp.Handler.
//
// A 2025 client opens with initialize; the server answers with the revision
// it asked for when served (otherwise the newest one served) and remembers
// nothing: later requests name their revision in the MCP-Protocol-Version
// header. No Mcp-Session-Id is issued unless WithSessions asks for one, and
// then it is sealed, so any replica opens it. Every
// JSON-RPC error of a well-formed request is answered in-band with HTTP 200,
// as these revisions expect. WithVersions restricts the revisions a host
// accepts.
//
//	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()})
package era2025
