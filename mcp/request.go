package mcp

import (
	"context"
	"log/slog"

	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/local"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// request is one JSON-RPC request on its way through the pipeline: the
// strictly parsed envelope, the selected revision, and what the pipeline
// learns about it. It embeds what the core hands an era (seam.Request:
// the HTTP request, the method's name and row, the revision, params
// indexed once), so that handing it over costs nothing. Its byte slices
// alias the request body and are valid only while it is served.
type request struct {
	seam.Request
	msg     jsonrpc.Message
	version Version   // Request.Version, typed
	rev     *revision // the revision in use (nil until selected)
	row     *methodRow
	server  *Server
	handler *Handler
	capBits Capability // the client capabilities, read once

	call      Call         // the one call a request makes
	toolRes   toolResult   // and its result, when it is a tool's
	rec       recorder     // what the route it runs wrote
	routeCtx  routeContext // the context of that route's request
	innerBody innerBody    // and its body
	round     *round       // the opened requestState of a retry, nil otherwise
	roundBuf  round        // where round points, so a retry allocates no round
	loose     []byte       // inputResponses sent without a requestState
	// confirmation is what a destructive tool's confirmation came to, for
	// observers ("" when none was involved).
	confirmation string
	notify       *notifier // nil unless the request may stream

	// claim is the replay guard's lease on a confirmed call while it runs.
	claim *claimed

	local     *local.Exchange // a message that did not come over HTTP, nil otherwise
	task      *openTask       // the task a tasks/* request names, opened
	principal *auth.Principal
	tool      *tool  // the tool toolName names, if the caller may see it
	toolName  string // what visibleTool was last asked
	toolKnown bool
	wsDone    bool // the workspace was resolved (ws, wsErr hold the outcome)
	ws        string
	wsErr     *Error
	values    headerValues // the header values this request's responses own
	caller    string       // callerKey's answer, "" until asked (see callerKey)
	// slot: the request holds one of Limits.Concurrent's slots, which a
	// wait gives back (Handler.releaseSlot).
	slot bool
}

// setVersion sets the revision in use, in both its forms.
func (r *request) setVersion(v Version) {
	r.version, r.Request.Version = v, string(v)
}

// ctx is the request's context, for logs and hooks.
func (r *request) ctx() context.Context { return r.HTTP.Context() }

// logError logs an internal failure with the request's context.
func (r *request) logError(msg string, args ...any) { r.Log(slog.LevelError, msg, args...) }

var _ seam.Core = (*request)(nil)

// Log writes to the endpoint's log with the request's context.
func (r *request) Log(level slog.Level, msg string, args ...any) {
	r.handler.cfg.logger.Log(r.ctx(), level, msg, args...)
}
