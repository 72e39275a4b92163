package mcp

import (
	"context"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/mcpdual/mcpdual/headers"
	"github.com/mcpdual/mcpdual/internal/jsonrpc"
	"github.com/mcpdual/mcpdual/internal/seam"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/ratelimit"
)

// limitedBeforeAuth reports whether the per-client limiter meters r. It
// stands in front of the verifier (record 003), so with authentication on
// it skips a request that carries no Authorization header at all: that one
// is refused 401 (or 400 for a token in the query) from its headers alone,
// and a limiter whose store is down must not hide the challenge a client
// needs to log in behind a 503. Anything in an Authorization header, of
// any scheme, is still metered first.
func (h *Handler) limitedBeforeAuth(r *http.Request) bool {
	return h.cfg.auth == nil || len(r.Header.Values("Authorization")) != 0
}

func remoteIP(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

func ceilSeconds(d time.Duration) int64 {
	s := int64((d + time.Second - 1) / time.Second)
	return max(s, 1)
}

// takeRate spends one unit of key's budget and sets the X-RateLimit-*
// headers; it returns the 429 or 503 to answer when the request may not
// proceed.
func (h *Handler) takeRate(w http.ResponseWriter, r *http.Request, l ratelimit.Limiter, key string, report bool) *Error {
	d, err := l.Take(r.Context(), key, 1)
	if err != nil {
		h.cfg.logger.ErrorContext(r.Context(), "mcp: rate limiter failed", "err", err)
		return unavailable("Server temporarily unavailable", "rate_limiter_unavailable")
	}
	if d.Allowed && !report {
		return nil
	}
	d.SetHeaders(w.Header())
	if d.Allowed {
		return nil
	}
	ra := max(d.RetryAfter, time.Millisecond)
	e := httpError(http.StatusTooManyRequests, codeRateLimited, "Too many requests").
		WithData(map[string]any{"reason": "rate_limited", "retryAfterMs": ra.Milliseconds()})
	e.retryAfter = ra
	return e
}

// takePrincipalRate meters an admitted request of the caller key names
// (callerKey). server/discover has a
// budget of its own, so discovery keeps working for a caller who spent
// everything else.
func (h *Handler) takePrincipalRate(w http.ResponseWriter, r *http.Request, key, method string) *Error {
	if row := methodsByName[method]; row != nil && row.ownBudget {
		key = "own|" + method + "|" + key
	}
	return h.takeRate(w, r, h.cfg.limiter, key, true)
}

// callerKey names who is calling, for rate budgets and slot shares: the
// verified principal's rate key (issuer and subject unless the host asks
// for the client too), or the client without authentication.
func (h *Handler) callerKey(r *http.Request, p *auth.Principal) string {
	if p != nil {
		return ratelimit.PrincipalKey(h.cfg.auth.RateKey(p))
	}
	return ratelimit.ClientKey(h.cfg.clientKey(r))
}

// failure turns an authentication or workspace refusal into the error the
// endpoint sends: a JSON-RPC error whose data.reason is the stable key,
// with WWW-Authenticate or Retry-After where due. The cause of a 5xx goes
// to the log only.
func (h *Handler) failure(ctx context.Context, f *auth.Failure) *Error {
	code := codeUnauthorized
	switch {
	case f.Status == http.StatusForbidden:
		code = codeForbidden
	case f.Status == http.StatusServiceUnavailable:
		code = codeUnavailable
	case f.Status >= 500:
		code = CodeInternal
	case f.Reason == "workspace_required" || f.Reason == "workspace_invalid":
		code = CodeInvalidParams
	}
	if f.Status >= 500 {
		h.logRefusal(ctx, f, time.Now())
	}
	data := map[string]any{"reason": f.Reason}
	if f.Required != nil {
		data["required"] = f.Required
	}
	if f.RetryAfter > 0 {
		data["retryAfterMs"] = f.RetryAfter.Milliseconds()
	}
	if f.Reason == "workspace_required" {
		data["header"] = auth.WorkspaceHeader
	}
	e := httpError(f.Status, code, f.Message).WithData(data)
	e.challenge = f.Challenge
	e.retryAfter = f.RetryAfter
	return e
}

// maxRefusalQuiet bounds how long refusals of one reason go unlogged.
const maxRefusalQuiet = time.Minute

// refusalKey names a refusal reason's entry in Handler.warned.
type refusalKey string

// refusalLog is when the next refusal of one reason may be logged, and
// how many were left out since the last line.
type refusalLog struct {
	mu         sync.Mutex
	next       time.Time
	suppressed int
}

// take reports whether a refusal at now is logged and, when it is, how
// many were left out before it; quiet is how long the ones after it are
// left out.
func (l *refusalLog) take(now time.Time, quiet time.Duration) (logged bool, suppressed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Before(l.next) {
		l.suppressed++
		return false, 0
	}
	suppressed, l.suppressed, l.next = l.suppressed, 0, now.Add(quiet)
	return true, suppressed
}

// logRefusal logs the cause of a 5xx refusal. A 503 with Retry-After (the
// issuer down, a token naming a signing key inside the verifier's refresh
// cooldown, the workspace store down) is the same answer to every request
// until then, and a flood of tokens with made-up key ids would otherwise
// write one ERROR line each: such refusals are logged at most once per
// reason per Retry-After (at most a minute), and the next line counts the
// ones left out. Reasons are auth's fixed keys, so the entries are few.
// Other 5xx (a verifier that panicked) are logged every time. now is
// the time of the refusal.
func (h *Handler) logRefusal(ctx context.Context, f *auth.Failure, now time.Time) {
	if f.Status == http.StatusServiceUnavailable && f.RetryAfter > 0 {
		key := refusalKey(f.Reason)
		v, ok := h.warned.Load(key)
		if !ok {
			v, _ = h.warned.LoadOrStore(key, &refusalLog{})
		}
		logged, suppressed := v.(*refusalLog).take(now, min(f.RetryAfter, maxRefusalQuiet))
		switch {
		case !logged:
			return
		case suppressed > 0:
			h.cfg.logger.ErrorContext(ctx, "mcp: request refused", "reason", f.Reason, "err", f.Unwrap(), "suppressed", suppressed)
			return
		}
	}
	h.cfg.logger.ErrorContext(ctx, "mcp: request refused", "reason", f.Reason, "err", f.Unwrap())
}

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
	if t != nil && t.appOnly && r.capBits&capUI == 0 {
		t = nil // an MCP Apps view's tool, and the client declared no views
	}
	if t != nil && t.statusOf != nil && !r.rev.f.sealsTasks {
		t = nil // a task's status tool, where no job reference can be sealed
	}
	if t != nil {
		if k, n, _ := t.access(); !r.visible(k, n) {
			t = nil
		}
	}
	r.tool, r.toolName, r.toolKnown = t, name, true
	return t
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

// callerKey is Handler.callerKey for this request, made once: the
// per-principal limit and the concurrency slot both key on it.
func (r *request) callerKey() string {
	if r.caller == "" {
		r.caller = r.handler.callerKey(r.HTTP, r.principal)
	}
	return r.caller
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
