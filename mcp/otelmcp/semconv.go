package otelmcp

import (
	"encoding/json"
	"strconv"

	"github.com/mcpdual/mcpdual/mcp/observe"
)

// Attribute and metric names. The MCP conventions are at Development
// status and their Go constants left the semconv packages (v1.42.0), so
// the names are spelled here, in one place, as the conventions in
// open-telemetry/semantic-conventions-genai (model/mcp) give them; see
// internal/design/013-observability.md.
const (
	metricOperationDuration = "mcp.server.operation.duration"

	attrMCPMethodName      = "mcp.method.name"
	attrMCPProtocolVersion = "mcp.protocol.version"
	attrMCPResourceURI     = "mcp.resource.uri"
	attrJSONRPCRequestID   = "jsonrpc.request.id"
	attrGenAIToolName      = "gen_ai.tool.name"
	attrGenAIPromptName    = "gen_ai.prompt.name"
	attrGenAIOperationName = "gen_ai.operation.name"

	attrRPCResponseStatusCode = "rpc.response.status_code"
	attrErrorType             = "error.type"

	attrNetworkTransport    = "network.transport"
	attrNetworkProtocolName = "network.protocol.name"
	attrClientAddress       = "client.address"
	attrClientPort          = "client.port"

	attrHTTPRequestMethod      = "http.request.method"
	attrHTTPRoute              = "http.route"
	attrHTTPResponseStatusCode = "http.response.status_code"

	// mcpdual's own, for what the conventions have no name for: the
	// multi round-trip requests of revision 2026-07-28 and confirmed
	// destructive tools, and the method a client sent that MCP does not
	// define.
	attrResultType     = "mcpdual.result_type"
	attrRetry          = "mcpdual.mrtr.retry"
	attrConfirmation   = "mcpdual.confirmation"
	attrMethodOriginal = "mcpdual.method.original"
)

// otherValue stands for a value that would otherwise be the client's
// choice, as OpenTelemetry's conventions spell it (http.request.method
// does the same).
const otherValue = "_OTHER"

// unreadSpanName names the span of a message whose method was never read
// (a 401, an oversized body, a refused Origin, a parse error) or is none
// MCP defines.
const unreadSpanName = "mcp"

// knownMethods are the methods MCP defines that a client sends to a
// server, in every revision (the mcp.method.name values of the
// conventions' registry, and the 2025-11-25 task methods and 2026-07-28's tasks/update). Any other
// method is recorded as _OTHER: a client may send anything, and a metric
// label or span name must not grow with what it sends.
var knownMethods = func() map[string]bool {
	m := map[string]bool{}
	for _, name := range []string{
		"initialize", "ping", "server/discover",
		"tools/list", "tools/call",
		"resources/list", "resources/templates/list", "resources/read",
		"resources/subscribe", "resources/unsubscribe", "subscriptions/listen",
		"prompts/list", "prompts/get", "completion/complete", "logging/setLevel",
		"tasks/get", "tasks/result", "tasks/list", "tasks/cancel", "tasks/update",
		"notifications/initialized", "notifications/cancelled", "notifications/progress",
		"notifications/roots/list_changed", "notifications/tasks/status",
	} {
		m[name] = true
	}
	return m
}()

func methodName(method string) string {
	if knownMethods[method] {
		return method
	}
	return otherValue
}

// errorType is the span's error.type, "" when the message did not fail
// the server:
//
//   - a JSON-RPC error the conventions call the caller's (parse error,
//     invalid request, method not found, invalid params — unknown tool
//     included — and resource not found) is no failure; nor are mcpdual's
//     HTTP-level refusals of the caller (-31401, -31403, -31429), codes
//     outside JSON-RPC's reserved range that the conventions do not
//     list, judged as HTTP server spans judge a 4xx;
//   - any other code is the failure, as its decimal string (-32603,
//     -32020, mcpdual's -31503 for an overloaded endpoint);
//   - a tools/call result with isError is "tool_error";
//   - a 5xx without a code (the endpoint always sends one; this is for
//     an answer cut short) is the status, as HTTP spans record it.
func errorType(ev *observe.Event) string {
	switch {
	case ev.Code != 0:
		if callerCode(ev.Code) {
			return ""
		}
		return strconv.Itoa(ev.Code)
	case ev.ToolError:
		return "tool_error"
	case ev.Status >= 500:
		return strconv.Itoa(ev.Status)
	}
	return ""
}

func callerCode(code int) bool {
	switch code {
	case -32700, -32600, -32601, -32602, -32002, // the conventions'
		-31401, -31403, -31429: // mcpdual's 401, 403 and 429
		return true
	}
	return false
}

// errorDescription is the span status's description: the JSON-RPC
// error's message when there is one.
func errorDescription(ev *observe.Event) string {
	if ev.Code != 0 {
		return ev.Message
	}
	return ""
}

// metaCarrier lets a propagator read params._meta, where MCP carries W3C
// trace context (traceparent, tracestate, baggage: unprefixed keys the
// specification reserves for it). It is read-only: a server never
// injects into a request it received.
type metaCarrier struct{ ev *observe.Event }

func (c metaCarrier) Get(key string) string {
	v, _ := c.ev.Meta(key)
	return v
}

func (metaCarrier) Set(string, string) {}

// Keys lists _meta's members. The W3C propagators never call it; it is
// here for those that look for prefixed keys.
func (c metaCarrier) Keys() []string {
	var m map[string]json.RawMessage
	if json.Unmarshal(c.ev.RawMeta, &m) != nil {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}
