// Package otelmcp records an MCP endpoint's requests with OpenTelemetry,
// following OpenTelemetry's semantic conventions for MCP (Development
// status, open-telemetry/semantic-conventions-genai). It is a module of its
// own, so that the library's go.mod never lists OpenTelemetry.
//
//	h := mcp.NewHandler(srv, eras, mcp.WithObserver(otelmcp.New()))
//
// New returns an observe.Observer. For every MCP request or notification
// it records (a 2025 client's answer to a question the server asked is a
// JSON-RPC response, no operation of the server's, and is not recorded):
//
//   - a SERVER span named "{mcp.method.name} {target}" for a tools/call or
//     prompts/get of a tool or prompt the server has ("tools/call
//     emails_get"), else the method alone ("tools/list"), and "mcp" for a
//     message refused before its method was read (a 401, an oversized
//     body) or whose method MCP does not define. Its attributes:
//     mcp.method.name (_OTHER for those), mcp.protocol.version,
//     jsonrpc.request.id, gen_ai.tool.name, gen_ai.prompt.name,
//     gen_ai.operation.name (execute_tool), mcp.resource.uri,
//     rpc.response.status_code, error.type, network.transport (tcp, or
//     pipe for stdio), network.protocol.name, client.address and
//     client.port (the peer's address: a proxy's, behind one),
//     http.response.status_code, and mcpdual's own mcpdual.result_type,
//     mcpdual.mrtr.retry, mcpdual.confirmation and
//     mcpdual.method.original. It never records arguments, results,
//     tokens or the principal.
//   - an mcp.server.operation.duration histogram measurement (seconds,
//     the conventions' buckets) with the span's attributes that have a
//     bounded set of values; a tool or prompt the server does not have is
//     recorded as _OTHER.
//
// A message counts as failed (error.type set, span status Error) when its
// answer is a JSON-RPC error other than the caller's mistakes (parse
// error, invalid request, unknown method, invalid params, an unknown tool
// included, unknown resource) and mcpdual's refusals of the caller (401,
// 403, 429); error.type is then the code ("-32603"). A tool result with
// isError is error.type "tool_error".
//
// The span's parent is the trace context the client sent in
// params._meta (traceparent, tracestate, baggage), read with the
// propagator; when the request's context holds another span (an
// otelhttp server span around the endpoint), the MCP span is linked to
// it. Without a valid traceparent the span is a child of that span, or a
// root.
//
// Around every in-process route call it records an INTERNAL span
// "{HTTP method} {route}" (http.request.method, http.route,
// http.response.status_code; status Error for a 5xx), a child of the
// message's span, and puts it in the route's context: spans the route
// starts from r.Context() nest under it.
//
// Joined with an access log, put this observer first
// (observe.Join(otelmcp.New(), observe.AccessLog(logger))): the log is
// then given the context that holds the span.
//
// To add attributes of its own (the principal, the workspace), a host
// joins an observer after this one (observe.Join(otelmcp.New(), mine)):
// its Request gets the context holding the span
// (trace.SpanFromContext), and its done runs before the span ends.
package otelmcp
