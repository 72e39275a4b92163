package auth

import (
	"context"
	"strconv"
	"time"
)

// Principal is the verified identity behind an access token.
type Principal struct {
	Issuer   string // iss
	Subject  string // sub; may be empty for client-credentials tokens
	ClientID string // client_id or azp
	// Audience lists the resources the token was issued for (aud). Unless
	// Config.VerifierChecksAudience is set, it must contain Config.Resource.
	Audience []string
	// Scopes are the granted scopes (scope split on spaces, or scp).
	Scopes []string
	// ExpiresAt is required unless Config.AcceptNoExpiry is set: a token
	// without an expiry is refused.
	ExpiresAt time.Time
	NotBefore time.Time // zero when the token has none
	TokenID   string    // jti, for audit; optional
	// Claims holds other claims for the host's own rules. Treat it as
	// read-only: it is shared by every handler of the request.
	Claims map[string]any
}

// Key identifies the principal by issuer, subject and client. Sealed
// request state and task ids are bound to it, so a state issued to one
// client is refused to another client of the same user. Rate budgets are
// not keyed by it unless Config.RateByClient says so (see RateKey). The
// parts are length-prefixed, so no two different triples share a key.
func (p *Principal) Key() string {
	if p == nil {
		return ""
	}
	return lengthPrefixed(p.Issuer, p.Subject, p.ClientID)
}

// RateKey identifies who spends a rate budget and holds concurrency
// slots: the issuer and the subject, or the issuer and the client id when
// the token has no subject (a client-credentials token acts for the
// client itself). The client id of a user's token is left out because
// dynamic client registration makes client ids free: a budget per client
// would let one user multiply it by registering clients. The two forms
// are marked apart, so a subject never shares a key with a client id.
func (p *Principal) RateKey() string {
	if p == nil {
		return ""
	}
	if p.Subject == "" {
		return lengthPrefixed(p.Issuer, "client", p.ClientID)
	}
	return lengthPrefixed(p.Issuer, "subject", p.Subject)
}

func lengthPrefixed(parts ...string) string {
	n := 16
	for _, s := range parts {
		n += len(s)
	}
	b := make([]byte, 0, n)
	for _, s := range parts {
		b = strconv.AppendInt(b, int64(len(s)), 10)
		b = append(b, ':')
		b = append(b, s...)
	}
	return string(b)
}

type principalKey struct{}

type workspaceKey struct{}

// NewContext returns ctx carrying p. The endpoint does this for every
// authenticated request; the key is unexported, so nothing a client sends
// can place an identity in a context.
func NewContext(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the verified principal of the request ctx belongs
// to, or nil when the request was not authenticated.
func FromContext(ctx context.Context) *Principal {
	p, _ := ctx.Value(principalKey{}).(*Principal)
	return p
}

// NewWorkspaceContext returns ctx carrying the resolved workspace id.
func NewWorkspaceContext(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, workspaceKey{}, id)
}

// WorkspaceFromContext returns the workspace the request acts on, as the
// WorkspaceResolver resolved it; ok is false when none was resolved.
func WorkspaceFromContext(ctx context.Context) (id string, ok bool) {
	id, ok = ctx.Value(workspaceKey{}).(string)
	return id, ok
}
