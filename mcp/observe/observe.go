package observe

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
)

// Observer watches an endpoint. Its methods are called on the goroutine
// serving the request, so they should be quick; they must be safe for
// concurrent use.
type Observer interface {
	// Request is called once for every message the endpoint receives: as
	// soon as its method is known, or, for a message refused before that
	// (a 401, an oversized body, a bad Origin), when the refusal is
	// written. A 2025 client's answer to a question the endpoint asked
	// (a JSON-RPC response, with mcp.WithLegacyInput) is no request and is not
	// observed, delivered or refused: the call that asked is, with the
	// wait in its duration. ev is filled in while the request is served and is
	// complete when done (which may be nil) is called, after the response
	// is written. The context Request returns is the request's from then
	// on: the endpoint's log lines and its routes' hooks get it.
	Request(ctx context.Context, ev *Event) (_ context.Context, done func())

	// Route is called around each in-process call of a host route (a
	// tool, a resource read, a prompt). outer is the MCP request's
	// context (what Request returned); inner is the context the route's
	// request will have, which on purpose holds none of outer's values.
	// The context Route returns replaces inner, so an observer adds to it
	// what the route should see (its span, to nest the route's own spans
	// under it). done is called when the route has answered.
	Route(outer, inner context.Context, ev *RouteEvent) (_ context.Context, done func())
}

// Event describes one MCP message and what became of it. The endpoint
// fills it; an observer reads it (and must not keep it past done).
type Event struct {
	Start     time.Time
	Transport string // "http" or "stdio"

	// What was asked. Method is "" when the message was refused before
	// it was read. ID is the JSON-RPC id as sent (JSON text: 7 or "a"),
	// "" for a notification.
	Method       string
	ID           string
	Notification bool
	// Target is the tool or prompt name, or the resource URI, of a
	// tools/call, prompts/get, resources/read, resources/subscribe or
	// resources/unsubscribe; "" otherwise. It is
	// what the client sent (cut to 128 bytes, with a mark): keep it out of
	// metric labels unless the server knows the name (TargetKnown).
	Target      string
	TargetKnown bool
	Version     string // the protocol revision the answer is in; "" when none was settled

	// Who asked: the verified principal's key and the workspace ("" when
	// anonymous or none), and the client's network address.
	Principal  string
	Workspace  string
	ClientAddr string

	// What was answered. Status is the HTTP status (on stdio, the one the
	// endpoint would have answered over HTTP). Code is
	// the JSON-RPC error code and Message its message, or 0 and "" for a
	// result. ResultType is the result's resultType ("complete",
	// "input_required", "task"; "" in revisions without one). ToolError
	// is a tools/call result with isError.
	Status     int
	Code       int
	Message    string
	ResultType string
	ToolError  bool

	// Multi round-trip requests: Retry is set when the request carried a
	// requestState the server opened (a later round). Confirmation is
	// what the confirmation of a destructive tool came to: "asked",
	// "accepted", "declined", "cancelled", "already_used",
	// "in_progress" (another call holds the replay guard's lease),
	// "interrupted" (the confirmed call's request ended before its tool
	// answered: no outcome, retry for it), "unavailable" (the question
	// could not be asked, or Handler.Close ended the wait for its answer:
	// the tool did not run) or "required" (a client that cannot confirm);
	// "" when no confirmation was involved.
	Retry        bool
	Confirmation string

	BytesIn  int
	BytesOut int
	Duration time.Duration // from Start to the response written

	// RawMeta is the request's params._meta object as sent (nil when
	// absent); Meta reads its members.
	RawMeta json.RawMessage
}

// Meta returns the string member key of the request's params._meta, such
// as "traceparent" (W3C trace context travels there in MCP, on every
// transport).
func (e *Event) Meta(key string) (string, bool) {
	if len(e.RawMeta) == 0 {
		return "", false
	}
	v, ok := jsonrpc.Lookup(e.RawMeta, key)
	if !ok {
		return "", false
	}
	return jsonrpc.String(v)
}

// RouteEvent describes one in-process call of a host route.
type RouteEvent struct {
	Start   time.Time
	Method  string // the HTTP method
	Pattern string // the route as registered, such as "GET /api/v1/emails/{id}"
	Path    string // the path it was called with: it holds argument values (the path wildcards), so keep it out of what leaves the process unless they may
	Target  string // the tool, prompt or resource it serves (a resource's URI as the client sent it, cut as Event.Target is)
	// Status is what the route answered (500 when it panicked).
	Status   int
	Duration time.Duration
}
