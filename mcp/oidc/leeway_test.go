package oidc

import (
	"fmt"
	"net/http"
	"strings"
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

// TestLeewayEdges: Leeway 0 is the default minute, a negative Leeway is
// none (a token expired or not yet valid by a second is refused, end to
// end through an Authenticator, which takes the verifier's 0 as its
// skew), 5 minutes is the most allowed and one nanosecond more is
// refused; for the JWT verifier and introspection alike. A strict zero
// could not be asked for: 0 meant the default and a negative value was
// refused.
func TestLeewayEdges(t *testing.T) {
	is := startIssuer(t, nil)
	var n int
	// token returns a token of the kind whose exp and nbf are now plus
	// exp and nbf, and the verifier of that kind with leeway.
	kinds := map[string]struct {
		verifier func(leeway time.Duration) (auth.TokenVerifier, time.Duration, error)
		token    func(exp, nbf time.Duration) string
	}{
		"jwt": {
			verifier: func(leeway time.Duration) (auth.TokenVerifier, time.Duration, error) {
				v, err := NewJWTVerifier(t.Context(), JWTConfig{Issuer: is.url, Audience: resource, Leeway: leeway})
				if err != nil {
					return nil, 0, err
				}
				return v, v.Leeway(), nil
			},
			token: func(exp, nbf time.Duration) string {
				c := is.claims(resource)
				now := time.Now()
				c["exp"], c["nbf"], c["iat"] = now.Add(exp).Unix(), now.Add(nbf).Unix(), now.Add(min(nbf, 0)).Unix()
				return is.mint(c, "")
			},
		},
		"introspection": {
			verifier: func(leeway time.Duration) (auth.TokenVerifier, time.Duration, error) {
				v, err := NewIntrospectionVerifier(IntrospectionConfig{Issuer: is.url, Audience: resource, ClientID: is.clientID, ClientSecret: is.secret, Leeway: leeway})
				if err != nil {
					return nil, 0, err
				}
				return v, v.Leeway(), nil
			},
			token: func(exp, nbf time.Duration) string {
				n++
				tok := fmt.Sprintf("opaque-leeway-%d", n)
				a := is.activeAnswer()
				now := time.Now()
				a["exp"], a["nbf"], a["iat"] = now.Add(exp).Unix(), now.Add(nbf).Unix(), now.Add(min(nbf, 0)).Unix()
				is.setActive(tok, a)
				return tok
			},
		},
	}
	type probe struct {
		name     string
		exp, nbf time.Duration
		accepted bool
	}
	cases := []struct {
		name   string
		leeway time.Duration
		want   time.Duration // what Leeway() reports
		probes []probe
	}{
		{"zero is the default minute", 0, time.Minute, []probe{
			{"expired 30s ago", -30 * time.Second, -time.Hour, true},
			{"expired 90s ago", -90 * time.Second, -time.Hour, false},
		}},
		{"negative is none", -time.Nanosecond, 0, []probe{
			{"valid", time.Hour, -time.Hour, true},
			{"expired 2s ago", -2 * time.Second, -time.Hour, false},
			{"valid from 3s on", time.Hour, 3 * time.Second, false},
		}},
		{"a larger negative is none too", -time.Hour, 0, []probe{
			{"expired 2s ago", -2 * time.Second, -time.Hour, false},
		}},
		{"5 minutes, the most", 5 * time.Minute, 5 * time.Minute, []probe{
			{"expired 4m30s ago", -4*time.Minute - 30*time.Second, -time.Hour, true},
			{"valid from 4m30s on", time.Hour, 4*time.Minute + 30*time.Second, true},
			{"expired 5m30s ago", -5*time.Minute - 30*time.Second, -time.Hour, false},
		}},
	}
	for kind, k := range kinds {
		t.Run(kind, func(t *testing.T) {
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					v, got, err := k.verifier(c.leeway)
					if err != nil {
						t.Fatalf("Leeway %v refused: %v", c.leeway, err)
					}
					if got != c.want {
						t.Errorf("Leeway %v: Leeway() = %v, want %v", c.leeway, got, c.want)
					}
					for _, p := range c.probes {
						pr, f := authenticate(t, v, k.token(p.exp, p.nbf))
						switch {
						case p.accepted && f != nil:
							t.Errorf("%s: refused: %d %s %v", p.name, f.Status, f.Reason, f.Unwrap())
						case !p.accepted && f == nil:
							t.Errorf("%s: accepted: %+v", p.name, pr)
						case !p.accepted && (f.Status != http.StatusUnauthorized || f.Reason != "invalid_token"):
							t.Errorf("%s: %d %s, want 401 invalid_token", p.name, f.Status, f.Reason)
						}
					}
				})
			}
			if _, _, err := k.verifier(5*time.Minute + time.Nanosecond); err == nil || !strings.Contains(err.Error(), "at most 5 minutes") {
				t.Errorf("Leeway 5m0.000000001s: %v, want refused as over 5 minutes", err)
			}
		})
	}
}
