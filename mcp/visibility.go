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
func (r *request) Workspace() (string, error) {
	a := r.handler.cfg.auth
	if a == nil {
		return "", nil
	}
	if !r.wsDone {
		r.wsDone = true
		id, f := a.ResolveWorkspace(r.HTTP.Context(), r.principal, r.HTTP)
		if f != nil {
			r.wsErr = r.handler.failure(r.ctx(), f)
		}
		r.ws = id
	}
	if r.wsErr != nil {
		return "", r.wsErr
	}
	return r.ws, nil
}

// visible reports whether the caller may know that t exists: the
// permission rule allows it. Something hidden is answered exactly like
// something unknown.
func (r *request) visible(kind, name string) bool {
	a := r.handler.cfg.auth
	if a == nil {
		return true
	}
	ws, _ := r.Workspace()
	return a.Permits(r.HTTP.Context(), auth.Access{Principal: r.principal, Workspace: ws, Kind: kind, Name: name})
}

// visibleTool returns the tool named name when the caller may know it
// exists, nil otherwise. A 2026-07-28 tools/call needs it twice (its
// Mcp-Param-* headers, then dispatch), and the permission rule may be a
// database query: the answer is kept for the request.
func (r *request) visibleTool(name string) *tool {
	if r.toolKnown && r.toolName == name {
		return r.tool
	}
	t := r.server.byName[name]
	if t != nil && r.server.hiding != 0 && r.hiddenTool(t) {
		t = nil // an extension hides it (an app-only tool, a status tool)
	}
	if t != nil {
		if k, n, _ := t.access(); !r.visible(k, n) {
			t = nil
		}
	}
	r.tool, r.toolName, r.toolKnown = t, name, true
	return t
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
		if err := r.boundArguments(args); err != nil {
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
func (r *request) scopeError(itemScopes []string) *Error {
	a := r.handler.cfg.auth
	if a == nil || len(itemScopes) == 0 {
		return nil
	}
	if a.Satisfies(r.principal, itemScopes) {
		return nil
	}
	all := append(slices.Clone(a.MethodScopes(r.msg.Method)), itemScopes...)
	slices.Sort(all)
	return r.handler.failure(r.ctx(), a.InsufficientScope(slices.Compact(all)))
}

// usable reports whether the caller's token grants scopes.
func (r *request) usable(scopes []string) bool {
	a := r.handler.cfg.auth
	return a == nil || a.Satisfies(r.principal, scopes)
}

// identityContext adds the verified identity to ctx for a tool handler.
func (r *request) identityContext(ctx context.Context) context.Context {
	if r.principal != nil {
		ctx = auth.NewContext(ctx, r.principal)
	}
	if r.wsDone && r.wsErr == nil && r.ws != "" {
		ctx = auth.NewWorkspaceContext(ctx, r.ws)
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
func (r *request) SessionBinding() seam.Binding {
	return seam.Binding{Principal: r.principal.Key(), Audience: r.handler.audience}
}
