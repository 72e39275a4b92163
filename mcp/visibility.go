package mcp

import (
	"context"
	"slices"

	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// What a caller may see and use: the workspace, the items the permission
// rule lets it know, the scopes an item needs, the identity a handler is
// given, the routing headers and bindings that depend on them.

// Workspace resolves the workspace the request acts on, once. Operations
// that touch data call it (server/discover, initialize and ping never do):
// a missing or malformed X-Workspace-Id is 400, an unknown or forbidden one
// 403. Without WithAuth it is always "".
func (req *request) Workspace() (string, error) {
	a := req.handler.cfg.auth
	if a == nil {
		return "", nil
	}
	if !req.wsDone {
		req.wsDone = true
		id, f := a.ResolveWorkspace(req.HTTP.Context(), req.principal, req.HTTP)
		if f != nil {
			req.wsErr = req.handler.failure(req.ctx(), f)
		}
		req.ws = id
	}
	if req.wsErr != nil {
		return "", req.wsErr
	}
	return req.ws, nil
}

// visible reports whether the caller may know that t exists: the
// permission rule allows it. Something hidden is answered exactly like
// something unknown.
func (req *request) visible(kind, name string) bool {
	a := req.handler.cfg.auth
	if a == nil {
		return true
	}
	ws, _ := req.Workspace()
	return a.Permits(req.HTTP.Context(), auth.Access{Principal: req.principal, Workspace: ws, Kind: kind, Name: name})
}

// visibleTool returns the tool named name when the caller may know it
// exists, nil otherwise. A 2026-07-28 tools/call needs it twice (its
// Mcp-Param-* headers, then dispatch), and the permission rule may be a
// database query: the answer is kept for the request.
func (req *request) visibleTool(name string) *tool {
	if req.toolKnown && req.toolName == name {
		return req.tool
	}
	t := req.server.byName[name]
	if t != nil && req.server.hiding != 0 && req.hiddenTool(t) {
		t = nil // an extension hides it (an app-only tool, a status tool)
	}
	if t != nil {
		if k, n, _ := t.access(); !req.visible(k, n) {
			t = nil
		}
	}
	req.tool, req.toolName, req.toolKnown = t, name, true
	return t
}

// HeaderParams implements seam.Core.
func (req *request) HeaderParams(tool string) ([]headers.Param, bool) {
	t := req.visibleTool(tool)
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
func (req *request) Binding(task bool) (seam.Binding, error) {
	ws, err := req.Workspace()
	if err != nil {
		return seam.Binding{}, err
	}
	if task {
		return seam.Binding{Principal: req.principal.Key(), Workspace: ws, Audience: req.handler.audience,
			Version: string(req.version), Method: tasksExtension}, nil
	}
	b := seam.Binding{Principal: req.principal.Key(), Workspace: ws, Audience: req.handler.audience,
		Version: string(req.version), Method: req.msg.Method}
	if req.row != nil && req.row.Member != "" {
		raw, _ := req.Param(req.row.Member)
		b.Target, _ = jsonrpc.String(raw)
	}
	if args, ok := req.Param("arguments"); ok && !jsonrpc.IsNull(args) {
		if err := req.boundArguments(args); err != nil {
			return seam.Binding{}, err
		}
		b.Arguments = args
	}
	return b, nil
}

func (t *tool) access() (string, string, []string) {
	if t.statusOf != nil {
		t = t.statusOf // a task's status tool is whoever may use the task's tool's
	}
	return auth.KindTool, t.def.Name, t.opts.scopes
}

// scopeError returns the 403 challenge when the caller's token lacks a
// scope the method or the item needs, listing all of them in one
// challenge.
func (req *request) scopeError(itemScopes []string) *Error {
	a := req.handler.cfg.auth
	if a == nil || len(itemScopes) == 0 {
		return nil
	}
	if a.Satisfies(req.principal, itemScopes) {
		return nil
	}
	all := append(slices.Clone(a.MethodScopes(req.msg.Method)), itemScopes...)
	slices.Sort(all)
	return req.handler.failure(req.ctx(), a.InsufficientScope(slices.Compact(all)))
}

// usable reports whether the caller's token grants scopes.
func (req *request) usable(scopes []string) bool {
	a := req.handler.cfg.auth
	return a == nil || a.Satisfies(req.principal, scopes)
}

// identityContext adds the verified identity to ctx for a tool handler.
func (req *request) identityContext(ctx context.Context) context.Context {
	if req.principal != nil {
		ctx = auth.NewContext(ctx, req.principal)
	}
	if req.wsDone && req.wsErr == nil && req.ws != "" {
		ctx = auth.NewWorkspaceContext(ctx, req.ws)
	}
	return ctx
}

// Sealed 2025 sessions (era2025.WithSessions): the era seals and opens the
// id; the core binds it to the caller and sends it on initialize's answer.
// A DELETE stays 405: a sealed session cannot end before it expires
// without state somewhere, and the transport lets a server refuse
// explicit termination that way (the client forgets the id).

// SessionBinding implements seam.Core: a session belongs to the caller and
// this server, whatever workspace, method or revision a later request
// names.
func (req *request) SessionBinding() seam.Binding {
	return seam.Binding{Principal: req.principal.Key(), Audience: req.handler.audience}
}
