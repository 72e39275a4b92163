// Package observe is what an MCP endpoint tells its operator about the
// requests it serves: an Observer the host sets once
// (mcp.WithObserver) gets an Event per MCP request and a RouteEvent per
// in-process route call, and may put what it needs (a span, a request id)
// in the context the request is served with.
//
// An endpoint without an observer does none of this work: no event is
// built, nothing is timed, nothing allocated. AccessLog is an Observer
// that writes one structured line per request; Join combines observers
// (an access log and OpenTelemetry, say). The OpenTelemetry adapter is a
// module of its own, so that this library's go.mod never lists the
// OpenTelemetry SDK.
package observe
