// Package mcp turns a Go service's net/http routes into a Model Context
// Protocol server: one http.Handler that serves revision 2026-07-28 (the
// stateless one) and the 2025 handshake revisions on the same endpoint,
// with no session state, so any replica can answer any request.
//
// # Model
//
// A [Server] holds the identity, instructions, tools, resources, resource
// templates and prompts. A tool is an MCP
// definition plus a route of the host's own API ("GET /api/v1/emails/{id}")
// and the http.Handler that serves it; a call runs that handler in-process,
// with the arguments placed in the path (each escaped as one segment), the
// query or the JSON body, and the response turned into a result. The route
// keeps its own validation, filters and tenant checks: the tool cannot
// diverge from the REST endpoint it mirrors. Resources and resource
// templates are read the same way, with a GET on their route; prompts are
// rendered by Go functions ([PromptFunc]) or routes, with content blocks
// from package mcp/content, and completions come from [WithCompletion] sources.
// The in-process request is routed from scratch by the host's router
// ([InProcess], [WithRouteRequest] to map the caller onto the host's own
// identity).
//
// [NewHandler] builds the endpoint from the Server and the eras it should
// speak (packages era2026 and era2025; an [Era] reaches the core through an
// internal seam, so only they implement it), passed in by the composition
// root:
//
//	srv := mcp.NewServer(mcp.Implementation{Name: "inbox", Version: "1.0.0"})
//	srv.AddTool(mcp.Tool{Name: "emails_get", InputSchema: schema}, "GET /api/v1/emails/{id}", mux)
//	mux.Handle("/mcp", mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}))
//
// # Requests
//
// The endpoint accepts POST (and, with [WithChangeNotifications], a 2025
// session's GET notification stream; any other method is 405), checks
// Host and Origin against allow-lists (loopback by default), requires
// Content-Type
// application/json, reads at most 1 MiB, and scans the body once, strictly:
// duplicate members, members differing only in case from the envelope's,
// invalid UTF-8 and excessive depth are refused; a batch is served only as revision 2025-03-26 requires (batch.go), and refused in every later revision. The request id is
// echoed byte for byte. The body decides the era; headers cross-check it.
//
// # Identity and limits
//
// [WithAuth] puts every request behind a bearer token checked by package
// mcp/auth; the verified principal and workspace reach handlers through
// the context, never the token. [RequireScopes] and the permission rule
// filter what each caller sees. [WithRateLimit], [WithClientRateLimit] and
// [WithLimits] bound the traffic and what one request may cost.
//
// # Multi round-trip requests
//
// Over MCP 2026-07-28 a handler can ask the client for input
// ([Call.RequireInput]) and read the answers on the retry (a 2025 client
// with a sealed session is asked over its call's stream with
// [WithLegacyInput]); the state it
// keeps between rounds is sealed by the era and verified before the handler
// runs again. Destructive tools run only after the user confirms them
// ([ConfirmWith], [WithoutConfirmation]), once per confirmation
// ([ReplayGuard]).
//
// # Errors
//
// Every error is an [*Error] with a [Code]. Errors a prompt or completion
// function returns with [NewError] are in-band: HTTP 200, except the
// statuses revision 2026-07-28 fixes (404 for an unknown method, 400 for a
// missing client capability); on 2026-07-28 a code that revision reserves
// or forbids is not sent as it is (see [Error]). Anything else that goes
// wrong is logged and answered as CodeInternal with a generic message.
package mcp
