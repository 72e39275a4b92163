package mcp

import (
	"bytes"
	"context"
	"net/http"
	"slices"

	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/auth"
)

// What a caller may see and use: the workspace, the items the permission
// rule lets it know, the scopes an item needs, the identity a handler is
// given, the routing headers and bindings that depend on them.

// The access stage answers from the caller the envelope established (who)
// into its own part of the request (accessCache), once per request: the
// permission rule and the workspace resolver may be database queries.

// who is what the access stage reads of a request: the handler (its auth
// configuration), the verified principal (nil without authentication) and
// the HTTP request it came in.
type who struct {
	h         *Handler
	principal *auth.Principal
	r         *http.Request
}

// who hands the access stage the caller.
func (req *request) who() who { return who{req.handler, req.principal, req.HTTP} }

// Workspace resolves the workspace the request acts on, once. Operations
// that touch data call it (server/discover, initialize and ping never do):
// a missing or malformed X-Workspace-Id is 400, an unknown or forbidden one
// 403. Without WithAuth it is always "".
func (req *request) Workspace() (string, error) {
	ws, err := req.accessCache.workspace(req.who())
	if err != nil {
		return "", err
	}
	return ws, nil
}

// workspace is Workspace's answer, resolved on first use and kept.
func (a *accessCache) workspace(w who) (string, *Error) {
	au := w.h.cfg.auth
	if au == nil {
		return "", nil
	}
	if !a.wsDone {
		a.wsDone = true
		id, f := au.ResolveWorkspace(w.r.Context(), w.principal, w.r)
		if f != nil {
			a.wsErr = w.h.failure(w.r.Context(), f)
		}
		a.ws = id
	}
	if a.wsErr != nil {
		return "", a.wsErr
	}
	return a.ws, nil
}

// resolveAgain resolves the workspace anew: a listen stream's caller may
// have lost it since the stream opened.
func (a *accessCache) resolveAgain(w who) (string, *Error) {
	a.wsDone, a.wsErr = false, nil
	return a.workspace(w)
}

// resolved returns the workspace when it was resolved without error.
func (a *accessCache) resolved() (string, bool) {
	if a.wsDone && a.wsErr == nil {
		return a.ws, true
	}
	return "", false
}

// visible reports whether the caller may know that t exists: the
// permission rule allows it. Something hidden is answered exactly like
// something unknown.
func (req *request) visible(kind, name string) bool {
	return req.accessCache.visible(req.who(), kind, name)
}

// visible asks the permission rule, in the workspace resolved once.
func (a *accessCache) visible(w who, kind, name string) bool {
	au := w.h.cfg.auth
	if au == nil {
		return true
	}
	ws, _ := a.workspace(w)
	return au.Permits(w.r.Context(), auth.Access{Principal: w.principal, Workspace: ws, Kind: kind, Name: name})
}

// visibleTool returns the tool named name when the caller may know it
// exists, nil otherwise. A 2026-07-28 tools/call needs it twice (its
// Mcp-Param-* headers, then dispatch), and the permission rule may be a
// database query: the answer is kept for the request.
func (req *request) visibleTool(name string) *tool {
	if t, ok := req.accessCache.knownTool(name); ok {
		return t
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
	req.accessCache.keepTool(name, t)
	return t
}

// knownTool returns what visibleTool answered for name, if it was asked.
func (a *accessCache) knownTool(name string) (*tool, bool) {
	if a.toolKnown && a.toolName == name {
		return a.tool, true
	}
	return nil, false
}

// toolAsked returns the name of the tool the request's routing headers
// were checked against (seam.Core.HeaderParams looked it up, and
// visibleTool kept it), when raw names it: the registry is not read again.
func (a *accessCache) toolAsked(raw []byte) (string, bool) {
	if !a.toolKnown || len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if inner := raw[1 : len(raw)-1]; string(inner) == a.toolName && bytes.IndexByte(inner, '\\') < 0 {
		return a.toolName, true
	}
	return "", false
}

// keepTool keeps visibleTool's answer for name.
func (a *accessCache) keepTool(name string, t *tool) {
	a.tool, a.toolName, a.toolKnown = t, name, true
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
	return req.who().scopeError(req.msg.Method, itemScopes)
}

// scopeError is the check itself, for the request's method.
func (w who) scopeError(method string, itemScopes []string) *Error {
	a := w.h.cfg.auth
	if a == nil || len(itemScopes) == 0 {
		return nil
	}
	if a.Satisfies(w.principal, itemScopes) {
		return nil
	}
	all := append(slices.Clone(a.MethodScopes(method)), itemScopes...)
	slices.Sort(all)
	return w.h.failure(w.r.Context(), a.InsufficientScope(slices.Compact(all)))
}

// usable reports whether the caller's token grants scopes.
func (req *request) usable(scopes []string) bool { return req.who().usable(scopes) }

// usable is the check itself.
func (w who) usable(scopes []string) bool {
	a := w.h.cfg.auth
	return a == nil || a.Satisfies(w.principal, scopes)
}

// identityContext adds the verified identity to ctx for a tool handler.
func (req *request) identityContext(ctx context.Context) context.Context {
	ws, _ := req.accessCache.resolved()
	return identityContext(ctx, req.principal, ws)
}

// identityContext adds the principal (nil: none) and the workspace ("":
// none, or not resolved) to ctx.
func identityContext(ctx context.Context, p *auth.Principal, ws string) context.Context {
	if p != nil {
		ctx = auth.NewContext(ctx, p)
	}
	if ws != "" {
		ctx = auth.NewWorkspaceContext(ctx, ws)
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
