package mcp

import (
	"context"
	"encoding/json"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
)

// ToolResultMediaType is the media type a handler written for MCP uses to
// answer with a complete CallToolResult ({"content": [...], ...}) instead of
// a body the library turns into one.
const ToolResultMediaType = "application/vnd.mcp.tool-result+json"

// Call describes the MCP request a handler is serving: a tools/call, a
// resources/read or a prompts/get. Handlers get it from their request's
// context with CallFromContext.
type Call struct {
	method  string
	tool    string // the target: tool or prompt name, or resource URI
	version Version
	caps    json.RawMessage
	capBits Capability
	args    json.RawMessage
	canAsk  bool // the revision can carry input requests (Profile.InputRequests)

	round   *round                     // the opened requestState of a retry
	answers map[string]json.RawMessage // validated answers to the keys it asked
	idemKey string

	pending      bool
	pendingState []byte
	pendingReqs  []InputRequest

	notify *notifier // nil unless the request may stream
}

type callKey struct{}

// CallFromContext returns the call a handler is serving — a tool's route
// or function, a resource's or template's route or function, a prompt's
// route or function: a tools/call, resources/read or prompts/get — or nil
// when ctx comes from none of them.
func CallFromContext(ctx context.Context) *Call {
	c, _ := ctx.Value(callKey{}).(*Call)
	return c
}

// Method returns the MCP method: tools/call, resources/read or prompts/get.
func (c *Call) Method() string { return c.method }

// Target returns the tool or prompt name, or the resource URI.
func (c *Call) Target() string { return c.tool }

// ProtocolVersion returns the revision the client speaks.
func (c *Call) ProtocolVersion() Version { return c.version }

// ClientCapabilities returns the capabilities the client declared with this
// request (2026-07-28) or, for a 2025 client with a sealed session
// (era2025.WithSessions), on initialize; nil otherwise: without a session
// a stateless server cannot know what a 2025 client declared.
func (c *Call) ClientCapabilities() json.RawMessage { return c.caps }

// Arguments returns the call's arguments as sent (a JSON object): a tool's
// arguments, a prompt's arguments, or a resource template's variables.
func (c *Call) Arguments() json.RawMessage { return c.args }

// CanRequestInput reports whether the client can be asked for input at
// all: 2026-07-28 requests, and 2025 calls over a sealed session that
// declared something to ask for, with WithLegacyInput. Any other 2025
// client that reaches RequireInput gets an isError result saying so.
func (c *Call) CanRequestInput() bool { return c.canAsk }

// Supports reports whether the client declared capability with this
// request (2026-07-28) or on initialize (a 2025 client asked over its
// stream, WithLegacyInput); false whenever the client cannot be asked.
func (c *Call) Supports(capability Capability) bool {
	return c.canAsk && c.capBits&capability == capability
}

// State returns the payload the tool sealed with RequireInput in the
// previous round, verified and opened; nil on a first round.
func (c *Call) State() []byte {
	if c.round == nil || c.round.loose {
		return nil
	}
	return c.round.state.payload
}

// InputResponse returns the client's answer to the input request key of
// the previous round, already checked for its shape, and an accepted
// form's content against the requestedSchema asked (ElicitForm): an
// answer that fails either never reaches the handler, the call ending
// with -32602. A decline's or cancel's content is not checked (it
// submits nothing; Elicitation drops it). When the retry carries the
// state of that round, answers to keys it did not ask are dropped. A
// request may also carry inputResponses without any state (State is then
// nil): they are passed on as sent, each an object, unchecked against any
// form, since nothing says what was asked, and the handler treats them
// like any other client input.
func (c *Call) InputResponse(key string) (json.RawMessage, bool) {
	if c.round != nil && c.round.loose {
		return jsonrpc.Lookup(c.round.responses, key)
	}
	v, ok := c.answers[key]
	return v, ok
}

// Elicitation returns the answer to the elicitation key of the previous
// round. With a state, an accepted form's Content conforms to the form
// asked (see InputResponse).
func (c *Call) Elicitation(key string) (ElicitResult, bool) {
	v, ok := c.InputResponse(key)
	stated := c.round != nil && !c.round.loose
	if !ok || (stated && !c.round.asked(key, "elicitation")) || (!stated && !validResponse("elicitation", v)) {
		return ElicitResult{}, false
	}
	a, _ := jsonrpc.Lookup(v, "action")
	action, _ := jsonrpc.String(a)
	res := ElicitResult{Action: ElicitAction(action)}
	// Content is what the user submitted: with a decline or a cancel
	// there is none, whatever the client sent beside it.
	if content, ok := jsonrpc.Lookup(v, "content"); ok && res.Action == ElicitAccept && jsonrpc.IsObject(content) {
		res.Content = content
	}
	return res, true
}

// IdempotencyKey returns the key a confirmed destructive call carries
// (also sent to the route as the Idempotency-Key header), "" otherwise.
// It is the confirmation's nonce: the same for any replay of the same
// confirmation, so a route that stores it executes at most once.
func (c *Call) IdempotencyKey() string { return c.idemKey }

// RequireInput answers the call with "input required": the client is to
// answer requests and retry, and state (small, at most a few hundred
// bytes; keep large data in your own storage) comes back to the handler,
// sealed, verified and opened, through State. Whatever the handler writes
// after calling it is discarded. The SDK refuses the answer with -32021
// when a request needs a capability the client did not declare; check
// Supports first to degrade instead. A 2025 client that cannot be asked
// (see CanRequestInput) gets, for a tool, an isError result explaining that
// MCP 2026-07-28 is required, and for a prompt or a resource an
// invalid-request error saying so.
func (c *Call) RequireInput(state []byte, requests ...InputRequest) {
	c.pending = true
	c.pendingState = append([]byte(nil), state...)
	c.pendingReqs = append([]InputRequest(nil), requests...)
}
