package main

import (
	"context"
	"net/http"
	"slices"
	"time"

	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/ratelimit"
)

// Scopes of the Autonomous Inbox.
const (
	scopeRead  = "inbox:read"
	scopeWrite = "inbox:write"
)

// account is what a development token stands for. A real deployment
// verifies JWTs from its authorization server instead.
type account struct {
	subject    string
	org        string
	workspaces []string
	scopes     []string
}

var devAccounts = map[string]account{
	"dev-admin":  {"admin@acme.test", "org_acme", []string{"ws_acme_prod", "ws_acme_staging"}, []string{scopeRead, scopeWrite}},
	"dev-writer": {"writer@globex.test", "org_globex", []string{"ws_globex"}, []string{scopeRead, scopeWrite}},
	"dev-reader": {"reader@globex.test", "org_globex", []string{"ws_globex"}, []string{scopeRead}},
}

// devVerifier accepts the development tokens, issued for resource.
func devVerifier(resource string) auth.TokenVerifier {
	return auth.VerifierFunc(func(ctx context.Context, token string, r *http.Request) (*auth.Principal, error) {
		a, ok := devAccounts[token]
		if !ok {
			return nil, auth.ErrInvalidToken
		}
		return &auth.Principal{
			Issuer: devIssuer, Subject: a.subject, ClientID: "dev",
			Audience: []string{resource}, Scopes: a.scopes, ExpiresAt: time.Now().Add(time.Hour),
			Claims: map[string]any{"org": a.org},
		}, nil
	})
}

// workspaces resolves X-Workspace-Id among the principal's workspaces: the
// only one when there is one, otherwise the header is required. A
// workspace of another organization and one that does not exist get the
// same answer.
var workspaces = auth.WorkspaceFunc(func(ctx context.Context, p *auth.Principal, requested string) (string, error) {
	mine, fromToken := p.Claims[tokenWorkspaces].([]string) // a real token's (oidc.go)
	for _, a := range devAccounts {
		if a.subject == p.Subject && !fromToken {
			mine = a.workspaces
		}
	}
	switch {
	case requested == "" && len(mine) == 1:
		return mine[0], nil
	case requested == "":
		return "", auth.ErrWorkspaceRequired
	case slices.Contains(mine, requested):
		return requested, nil
	}
	return "", auth.ErrWorkspaceForbidden
})

// identity is who a REST handler acts for.
type identity struct {
	principal *auth.Principal
	workspace string
}

// requireIdentity gives /api/v1 handlers a verified identity: the one the
// MCP endpoint put in the context of an in-process call (mcp.InProcess),
// or, for a direct REST request, one established here from the same bearer
// token. No network request can be marked in-process.
func requireIdentity(a *auth.Authenticator, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if mcp.InProcess(r) && auth.FromContext(r.Context()) != nil {
			next.ServeHTTP(w, r)
			return
		}
		p, f := a.Authenticate(r)
		if f == nil {
			var ws string
			ws, f = a.ResolveWorkspace(r.Context(), p, r)
			if f == nil {
				ctx := auth.NewWorkspaceContext(auth.NewContext(r.Context(), p), ws)
				next.ServeHTTP(w, r.WithContext(ctx))
				return
			}
		}
		if f.Challenge != "" {
			w.Header().Set("WWW-Authenticate", f.Challenge)
		}
		writeError(w, f.Status, f.Reason, f.Message)
	})
}

// tenantOf names the tenant a principal acts for, whose share of the job
// queue its jobs take: its organization (the org claim of the development
// tokens), or the principal itself when it names none.
func tenantOf(p *auth.Principal) string {
	if org, _ := p.Claims["org"].(string); org != "" {
		return "org|" + org
	}
	return "principal|" + p.RateKey()
}

func identityOf(r *http.Request) identity {
	ws, _ := auth.WorkspaceFromContext(r.Context())
	return identity{principal: auth.FromContext(r.Context()), workspace: ws}
}

// can reports whether the caller's token grants scope; the routes check
// it themselves, whoever calls them.
func (id identity) can(scope string) bool {
	return id.principal != nil && slices.Contains(id.principal.Scopes, scope)
}

// rateLimited meters direct REST requests against the principal's budget,
// the one the MCP endpoint meters its requests against (the same limiter,
// the same key), so the same token cannot spend twice. An in-process call
// was metered when it arrived at /mcp.
func rateLimited(a *auth.Authenticator, l ratelimit.Limiter, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := auth.FromContext(r.Context())
		if mcp.InProcess(r) || p == nil {
			next.ServeHTTP(w, r)
			return
		}
		// The endpoint's key for the principal's budget, and its headers:
		// REST and MCP spend one budget and say so alike.
		d, err := l.Take(r.Context(), ratelimit.PrincipalKey(a.RateKey(p)), 1)
		if err != nil {
			w.Header().Set("Retry-After", "1")
			writeError(w, http.StatusServiceUnavailable, "rate_limiter_unavailable", "Server temporarily unavailable")
			return
		}
		d.SetHeaders(w.Header())
		if !d.Allowed {
			writeError(w, http.StatusTooManyRequests, "rate_limited", "Too many requests")
			return
		}
		next.ServeHTTP(w, r)
	})
}
