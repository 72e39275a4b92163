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
// Every message the kit reads, whichever check sent it, is also held to
// the wire's rules and to the revision's schema, each a MUST row of its
// own that runs last and reports what it saw: wire/jsonrpc (jsonrpc
// "2.0", exactly one of result and error, a well-formed error object; a
// request answered 2xx with something that is not a JSON-RPC response, or
// with more than 16 MiB, fails here, and so does an event stream that ends
// inside an event, before the blank line that ends one), wire/id (the id
// echoed as the same value), wire/redirect, schema/result (each method's result members and
// their types, _meta an object whose keys follow the grammar, serverInfo
// an Implementation), schema/content (content blocks: a type of the
// revision with that type's members), schema/tool (tool definitions:
// inputSchema an object schema of type "object", and every property
// schema, items, allOf/anyOf/oneOf/prefixItems member and $defs entry an
// object, never a boolean), 2026-07-28/result-type and
// 2026-07-28/no-server-requests (a request of the server's in a 2026-07-28
// answer: that revision's servers ask with input_required).
//
// A response may carry no id (absent or null) only when the request's id
// could not be read, with -32700 or -32600, or when it is one of the HTTP
// refusals a server or what stands in front of it sends before it reads
// the message: 401, 403, 413, 429 and 503. Any other answer to a request
// with an id carries that id.
//
// No redirect is followed by default: the redirect is the answer, and
// wire/redirect fails (in process nothing is followed either).
// FollowRedirects (mcpcheck -follow) follows one to the same origin; one
// to another origin is never followed, so the body and the headers of
// WithHeader (mcpcheck -H) never leave for another host. A server behind
// a certificate the system does not trust (httptest.NewTLSServer, a
// private CA) is reached through WithTransport.
//
// A Client works in-process (New, on any http.Handler) or over the network
// (Dial, on a URL). It adds the 2026-07-28 _meta envelope and routing
// headers, or runs the 2025 initialize handshake, and follows multi
// round-trip retries when given answers (WithAnswers).
package mcptest
