package oidc

import (
	"net/http"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp/auth"
)

// TestJWTLeewayIsTheOne: JWTConfig.Leeway is the clock skew a token gets,
// end to end through an Authenticator left at its default Skew: a token
// expired (or not yet valid) within the leeway is accepted, one past it
// refused, and the Authenticator does not re-check with its own tighter
// 30 s.
func TestJWTLeewayIsTheOne(t *testing.T) {
	is := startIssuer(t, nil)
	wide := newJWT(t, JWTConfig{Issuer: is.url, Leeway: 3 * time.Minute})
	dflt := newJWT(t, JWTConfig{Issuer: is.url})
	at := func(exp, nbf time.Duration) string {
		c := is.claims(resource)
		now := time.Now()
		c["exp"], c["nbf"], c["iat"] = now.Add(exp).Unix(), now.Add(nbf).Unix(), now.Add(nbf).Unix()
		return is.mint(c, "")
	}
	tests := []struct {
		name     string
		v        *JWTVerifier
		token    string
		accepted bool
	}{
		{"expired within a 3 min leeway", wide, at(-2*time.Minute, -time.Hour), true},
		{"expired past a 3 min leeway", wide, at(-4*time.Minute, -time.Hour), false},
		{"not yet valid within a 3 min leeway", wide, at(time.Hour, 2*time.Minute), true},
		{"not yet valid past a 3 min leeway", wide, at(time.Hour, 4*time.Minute), false},
		{"expired within the default minute", dflt, at(-45*time.Second, -time.Hour), true},
		{"expired past the default minute", dflt, at(-75*time.Second, -time.Hour), false},
		{"not yet valid within the default minute", dflt, at(time.Hour, 45*time.Second), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, f := authenticate(t, tt.v, tt.token)
			switch {
			case tt.accepted && f != nil:
				t.Fatalf("refused: %+v %v", f, f.Unwrap())
			case !tt.accepted && f == nil:
				t.Fatalf("accepted: %+v", p)
			case !tt.accepted && (f.Status != http.StatusUnauthorized || f.Reason != "invalid_token"):
				t.Fatalf("status %d %s, want 401 invalid_token", f.Status, f.Reason)
			}
		})
	}
}

// TestLeewayAndSkewConflict: an Authenticator told a Skew other than the
// leeway its verifier checks with refuses to start, rather than silently
// applying the tighter one; the same value, or none, is fine.
func TestLeewayAndSkewConflict(t *testing.T) {
	is := startIssuer(t, nil)
	jv := newJWT(t, JWTConfig{Issuer: is.url, Leeway: 2 * time.Minute})
	iv, err := NewIntrospectionVerifier(IntrospectionConfig{Issuer: is.url, Audience: resource, ClientID: "rs", ClientSecret: "s", Leeway: 2 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []auth.TokenVerifier{jv, iv} {
		for _, skew := range []time.Duration{0, 2 * time.Minute} {
			auth.New(auth.Config{Verifier: v, Resource: resource, Skew: skew})
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%T: Skew 30s beside a 2 min leeway accepted", v)
				}
			}()
			auth.New(auth.Config{Verifier: v, Resource: resource, Skew: 30 * time.Second})
		}()
	}
	if jv.Leeway() != 2*time.Minute || iv.Leeway() != 2*time.Minute {
		t.Errorf("Leeway() = %v, %v", jv.Leeway(), iv.Leeway())
	}
	if d := newJWT(t, JWTConfig{Issuer: is.url}).Leeway(); d != time.Minute {
		t.Errorf("default JWT leeway %v, want 1m", d)
	}
}

// TestLeewayBound: a leeway beyond what an Authenticator allows (5
// minutes) is refused where it is set.
func TestLeewayBound(t *testing.T) {
	if _, err := NewJWTVerifier(t.Context(), JWTConfig{Issuer: "https://login.example.com", Audience: resource, Leeway: 6 * time.Minute}); err == nil {
		t.Error("JWTConfig.Leeway 6m accepted")
	}
	if _, err := NewIntrospectionVerifier(IntrospectionConfig{Issuer: "https://login.example.com", Audience: resource,
		ClientID: "rs", ClientSecret: "s", Leeway: 6 * time.Minute}); err == nil {
		t.Error("IntrospectionConfig.Leeway 6m accepted")
	}
}
