// Package headers holds the MCP HTTP header names and the rules for their
// values.
//
// In protocol revision 2026-07-28 a client repeats parts of the body in
// headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*) so that
// intermediaries can route without reading the body; the server must check
// that they agree. Values that are not safe as plain header text travel in a
// sentinel, =?base64?…?=, holding standard padded base64 of the UTF-8 bytes.
//
// The package is a stdlib-only leaf: [Get] reads one header strictly,
// [Decode] and [Encode] handle the sentinel, [ParseAnnotations] checks a
// tool's "x-mcp-header" annotations at registration, and [Match] compares a
// header with the body value it mirrors.
package headers
