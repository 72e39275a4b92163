package oidc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mcpdual/mcpdual/mcp/auth"
)

// ClaimMapper adds what the host's own rules need to a principal the
// verifier has built and checked: workspaces, roles or an organization
// read from claims. claims holds every claim of the token (for
// introspection, every member of the answer), decoded as encoding/json
// decodes into any; p.Claims is the same map. Return an error wrapping
// auth.ErrInvalidToken to refuse the token (401); any other error is
// answered 503.
type ClaimMapper func(ctx context.Context, claims map[string]any, p *auth.Principal) error

// claimChecks are the checks both verifiers make on the claims of a token.
type claimChecks struct {
	issuer   string
	audience string
	leeway   time.Duration
	// issuerOptional accepts a claim set without iss (RFC 7662 makes it
	// optional in an introspection answer); one that has it must match.
	issuerOptional bool
}

func invalid(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{auth.ErrInvalidToken}, a...)...)
}

// principal checks claims and builds the principal they describe.
func (c claimChecks) principal(claims map[string]any, now time.Time) (*auth.Principal, error) {
	p := &auth.Principal{Claims: claims}
	var err error
	if p.Issuer, err = stringClaim(claims, "iss"); err != nil {
		return nil, err
	}
	switch {
	case p.Issuer == "" && c.issuerOptional:
		p.Issuer = c.issuer
	case p.Issuer != c.issuer:
		return nil, invalid("issuer %q is not %q", p.Issuer, c.issuer)
	}
	if p.Audience, err = stringsClaim(claims, "aud"); err != nil {
		return nil, err
	}
	if !slices.Contains(p.Audience, c.audience) {
		return nil, invalid("audience %q does not name %q", p.Audience, c.audience)
	}
	exp, err := timeClaim(claims, "exp")
	switch {
	case err != nil:
		return nil, err
	case exp.IsZero():
		return nil, invalid("no exp")
	case now.After(exp.Add(c.leeway)):
		return nil, invalid("expired at %v", exp)
	}
	p.ExpiresAt = exp
	if p.NotBefore, err = timeClaim(claims, "nbf"); err != nil {
		return nil, err
	}
	if !p.NotBefore.IsZero() && now.Add(c.leeway).Before(p.NotBefore) {
		return nil, invalid("not valid before %v", p.NotBefore)
	}
	iat, err := timeClaim(claims, "iat")
	if err != nil {
		return nil, err
	}
	if !iat.IsZero() && now.Add(c.leeway).Before(iat) {
		return nil, invalid("issued in the future, at %v", iat)
	}
	if p.Subject, err = stringClaim(claims, "sub"); err != nil {
		return nil, err
	}
	if p.TokenID, err = stringClaim(claims, "jti"); err != nil {
		return nil, err
	}
	if p.ClientID, err = stringClaim(claims, "client_id"); err != nil {
		return nil, err
	}
	// The client is client_id (RFC 9068, RFC 7662), else azp (OpenID
	// Connect; Auth0 and Entra ID v2), else cid (Okta).
	for _, name := range []string{"azp", "cid"} {
		if p.ClientID != "" {
			break
		}
		if p.ClientID, err = stringClaim(claims, name); err != nil {
			return nil, err
		}
	}
	if p.Scopes, err = scopes(claims); err != nil {
		return nil, err
	}
	return p, nil
}

// scopes reads scope (RFC 9068, RFC 7662: one space-separated string) or,
// when absent, scp (Okta and Entra ID: an array, or a string).
func scopes(claims map[string]any) ([]string, error) {
	for _, name := range []string{"scope", "scp"} {
		if s, ok := claims[name].(string); ok {
			return strings.Fields(s), nil
		}
		list, err := stringsClaim(claims, name)
		if err != nil {
			return nil, err
		}
		if list == nil {
			continue
		}
		out := make([]string, 0, len(list))
		for _, s := range list {
			out = append(out, strings.Fields(s)...)
		}
		return out, nil
	}
	return nil, nil
}

func stringClaim(claims map[string]any, name string) (string, error) {
	switch v := claims[name].(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	default:
		return "", invalid("%s is a %T, not a string", name, v)
	}
}

// stringsClaim reads a claim that is one string or an array of strings,
// as aud is (RFC 7519 §4.1.3).
func stringsClaim(claims map[string]any, name string) ([]string, error) {
	switch v := claims[name].(type) {
	case nil:
		return nil, nil
	case string:
		return []string{v}, nil
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, invalid("%s holds a %T", name, e)
			}
			out = append(out, s)
		}
		return out, nil
	default:
		return nil, invalid("%s is a %T", name, v)
	}
}

// timeClaim reads a NumericDate (seconds since the epoch, possibly with
// a fraction); zero when absent.
func timeClaim(claims map[string]any, name string) (time.Time, error) {
	switch v := claims[name].(type) {
	case nil:
		return time.Time{}, nil
	case json.Number:
		f, err := v.Float64()
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > 1<<40 {
			return time.Time{}, invalid("%s is not a date", name)
		}
		sec, frac := math.Modf(f)
		return time.Unix(int64(sec), int64(frac*1e9)), nil
	default:
		return time.Time{}, invalid("%s is a %T, not a date", name, v)
	}
}

// decodeClaims decodes a JSON object keeping numbers as json.Number, so
// large dates and ids lose no precision.
func decodeClaims(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var claims map[string]any
	if err := dec.Decode(&claims); err != nil || claims == nil {
		return nil, errors.New("claims are not a JSON object")
	}
	// More is false before a closing bracket too ("{}}"): only the end
	// of the input ends the claims.
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("claims are followed by more data")
	}
	return claims, nil
}

// mapClaims runs the host's mapper; a panic in it is left to the
// Authenticator, which answers 500. A principal that then names neither a
// subject nor a client is refused: its Key would be the issuer's alone,
// so every holder of such a token would share one another's sealed
// state, tasks, sessions and rate budget. RFC 9068 requires both sub and
// client_id in a JWT access token; RFC 7662 makes them optional in an
// introspection answer, and a host whose issuer names its holders in
// another claim sets Subject from it in MapClaims.
func mapClaims(ctx context.Context, m ClaimMapper, claims map[string]any, p *auth.Principal) (*auth.Principal, error) {
	if m != nil {
		if err := m(ctx, claims, p); err != nil {
			return nil, err
		}
	}
	if p.Subject == "" && p.ClientID == "" {
		return nil, invalid("the token names neither a subject (sub) nor a client (client_id, azp, cid)")
	}
	return p, nil
}
