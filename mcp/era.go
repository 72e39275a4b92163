package mcp

import (
	"context"
	"log/slog"

	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/local"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// Era serves the protocol revisions of one era: era2026.New() for
// 2026-07-28, era2025.New() for the handshake revisions. The composition
// root passes the eras it wants to NewHandler. Only the era packages of
// this module implement Era: its method returns a type of an internal
// package, which no other package can name; and that type is an interface,
// so whoever holds an Era can call its hooks but never replace them.
type Era interface {
	// Seam returns the era's revisions and hooks, as the core reads them.
	Seam() seam.Era
}

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
}

// setVersion sets the revision in use, in both its forms.
func (r *request) setVersion(v Version) {
	r.version, r.Request.Version = v, string(v)
}

// HeaderParams implements seam.Core.
func (r *request) HeaderParams(tool string) ([]headers.Param, bool) {
	t := r.visibleTool(tool)
	if t == nil {
		return nil, false
	}
	return t.params, true
}

// Binding implements seam.Core. A sealed state of this request belongs
// to who asks (principal and workspace, re-established from the
// credential on every round), which server, which revision, which
// operation on which target, with which arguments. A task id belongs to
// the caller and the server, whatever tasks/* method reads it.
func (r *request) Binding(task bool) (seam.Binding, error) {
	ws, err := r.Workspace()
	if err != nil {
		return seam.Binding{}, err
	}
	if task {
		return seam.Binding{Principal: r.principal.Key(), Workspace: ws, Audience: r.handler.audience,
			Version: string(r.version), Method: tasksExtension}, nil
	}
	b := seam.Binding{Principal: r.principal.Key(), Workspace: ws, Audience: r.handler.audience,
		Version: string(r.version), Method: r.msg.Method}
	if r.row != nil && r.row.Member != "" {
		raw, _ := r.Param(r.row.Member)
		b.Target, _ = jsonrpc.String(raw)
	}
	if args, ok := r.Param("arguments"); ok && !jsonrpc.IsNull(args) {
		b.Arguments = args
	}
	return b, nil
}

// ctx is the request's context, for logs and hooks.
func (r *request) ctx() context.Context { return r.HTTP.Context() }

// logError logs an internal failure with the request's context.
func (r *request) logError(msg string, args ...any) { r.Log(slog.LevelError, msg, args...) }

var _ seam.Core = (*request)(nil)
