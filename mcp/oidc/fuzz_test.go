package oidc

import (
	"encoding/base64"
	"strings"
	"testing"
)

// FuzzJWTVerify: whatever the token, the verifier does not panic, and
// what it accepts carries exactly the claims the issuer signed: no
// mutation of a signed token (header, payload, signature, separators)
// changes who it names.
func FuzzJWTVerify(f *testing.F) {
	is := startIssuer(f, nil)
	v, err := NewJWTVerifier(f.Context(), JWTConfig{Issuer: is.url, Audience: resource})
	if err != nil {
		f.Fatal(err)
	}
	good := is.mint(is.claims(resource), "at+jwt")
	parts := strings.Split(good, ".")
	f.Add(good)
	f.Add(base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none"}`)) + "." + parts[1] + ".")
	f.Add(base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"HS256","kid":"k1"}`)) + "." + parts[1] + "." + parts[2])
	f.Add(parts[0] + "." + parts[1] + "." + parts[2] + "." + parts[2])
	f.Add(parts[0] + ".." + parts[2])
	f.Fuzz(func(t *testing.T, token string) {
		p, err := v.VerifyAccessToken(t.Context(), token, nil)
		if err != nil {
			return
		}
		if p.Subject != "user-1" || p.TokenID != "tok-1" || p.Issuer != is.url || p.ClientID != "app-1" {
			t.Fatalf("accepted %q as %+v", token, p)
		}
	})
}
