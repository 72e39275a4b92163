// Package jsonrpc is the module's JSON-RPC parser: every message the
// endpoint serves, over HTTP or stdio, is parsed here. It is not the only
// code that reads JSON-RPC: mcp/stdio follows an over-long line with a
// streaming probe of its own (to answer it with its id without holding
// it) and splits the endpoint's event streams back into messages with a
// small SSE reader, and mcp/mcptest decodes answers with encoding/json.
//
// A request body is scanned exactly once by [Parse]: the scan checks RFC 8259
// grammar, UTF-8 (no lone surrogate escapes), refuses duplicate member names
// at every depth, bounds nesting, and captures the envelope's members as
// slices of the body. The request id is kept as raw bytes so that it is
// echoed byte for byte, including integers beyond 2^53 that a float64 round
// trip would change.
//
// Nothing here knows MCP. Callers map [Kind] onto JSON-RPC codes and read
// params with [Index], [Iter], [Lookup] and [String], which never match
// member names case-insensitively (encoding/json does, which lets "Method"
// stand in for "method"). [ParseIndexed] fills an Index of params, and one
// of a member of params the caller names (MCP's _meta), during the same
// scan, so that reading them walks no byte twice.
package jsonrpc
