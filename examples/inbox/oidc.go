package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"strings"

	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/oidc"
)

// oidcIssuer is -oidc-issuer, checked as it is parsed so that a typo is
// a usage error rather than a failure at the first request.
var oidcIssuer string

func init() {
	flag.Func("oidc-issuer", "issuer URL of an OpenID Connect or OAuth identity provider: accept its JWT access tokens, issued for the -public-url's /mcp, instead of the development tokens (README: \"Tokens from your identity provider\")",
		func(s string) error {
			u, err := url.Parse(s)
			loopback := u != nil && (u.Hostname() == "127.0.0.1" || u.Hostname() == "::1" || u.Hostname() == "localhost")
			if err != nil || u.Host == "" || !(u.Scheme == "https" || u.Scheme == "http" && loopback) {
				return errors.New("want the issuer's https URL (http only on a loopback host)")
			}
			oidcIssuer = s
			return nil
		})
}

// devIssuer is the issuer of the development tokens.
const devIssuer = "https://login.inbox.test"

// tokenWorkspaces is the Principal.Claims key under which mapWorkspaces
// leaves the workspaces a token grants, as a []string. Claims decoded
// from a token are never a []string, so no token can set it itself.
const tokenWorkspaces = "inbox.workspaces"

// workspacesClaim is the claim an identity provider puts the caller's
// workspaces in: a list of ids, or one space-separated string.
const workspacesClaim = "inbox_workspaces"

// demoWorkspace is where a token without workspacesClaim acts, so that a
// token from any identity provider can try the seed data.
const demoWorkspace = "ws_globex"

// identityFor returns the token verifier for resource and the
// authorization server the Protected Resource Metadata names: the
// development tokens when issuer is "", otherwise the identity provider's
// JWT access tokens. The provider is not contacted here: the server
// starts while it is down and answers 503 until it is back.
func identityFor(resource, issuer string) (auth.TokenVerifier, string, error) {
	if issuer == "" {
		return devVerifier(resource), devIssuer, nil
	}
	v, err := oidc.NewJWTVerifier(context.Background(), oidc.JWTConfig{Issuer: issuer, Audience: resource, MapClaims: mapWorkspaces})
	if err != nil {
		return nil, "", fmt.Errorf("-oidc-issuer: %w", err)
	}
	return v, issuer, nil
}

// mapWorkspaces reads workspacesClaim for the workspace resolver.
func mapWorkspaces(_ context.Context, claims map[string]any, p *auth.Principal) error {
	var ws []string
	switch v := claims[workspacesClaim].(type) {
	case nil:
		ws = []string{demoWorkspace}
	case string:
		ws = strings.Fields(v)
	case []any:
		for _, e := range v {
			if s, ok := e.(string); ok {
				ws = append(ws, s)
			}
		}
	}
	p.Claims[tokenWorkspaces] = ws
	return nil
}
