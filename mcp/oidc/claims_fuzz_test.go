package oidc

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// FuzzClaims: an introspection answer or a token's payload is the
// issuer's bytes. decodeClaims takes exactly one JSON object, and the
// checks never panic on whatever it holds; a principal they accept has
// the issuer, audience and an expiry in the future.
func FuzzClaims(f *testing.F) {
	now := time.Unix(2_000_000_000, 0)
	for _, s := range []string{
		`{"iss":"https://i","aud":"r","exp":2000000100,"sub":"u","scope":"a b"}`,
		`{"iss":"https://i","aud":["r",1],"exp":2000000100}`,
		`{"iss":"https://i","aud":"r","exp":1e400}`,
		`{"iss":"https://i","aud":"r","exp":2000000100.999999999,"nbf":-1}`,
		`{"iss":"https://i","aud":"r","exp":2000000100,"scp":["a b","c"]}`,
		`{} {}`, `{}}`, `[]`, `null`,
	} {
		f.Add([]byte(s))
	}
	checks := claimChecks{issuer: "https://i", audience: "r", leeway: time.Minute}
	f.Fuzz(func(t *testing.T, b []byte) {
		claims, err := decodeClaims(b)
		if err != nil {
			return
		}
		// decodeClaims's callers hand it text encoding/json already
		// validated whole, so only its first value is checked here (see
		// TestDecodeClaims_TrailingData for the rest).
		var obj map[string]any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if dec.Decode(&obj) != nil || obj == nil {
			t.Fatalf("decodeClaims took %q, which does not start with a JSON object", b)
		}
		p, err := checks.principal(claims, now)
		if err != nil {
			return
		}
		if p.Issuer != "https://i" || p.ExpiresAt.IsZero() || now.After(p.ExpiresAt.Add(time.Minute)) {
			t.Fatalf("accepted %q as %+v", b, p)
		}
	})
}

// TestDecodeClaims_TrailingData: decodeClaims promises one JSON object
// and refuses what follows it, but json.Decoder.More reports false for a
// closing bracket or brace, so "{}}" and "{}]" are taken. Unreachable
// today (both callers pass text json.Unmarshal validated whole), latent
// for any new caller.
func TestDecodeClaims_TrailingData(t *testing.T) {
	for _, b := range []string{`{}}`, `{}]`, `{"a":1}]]]`, `{} {}`, `{} 1`} {
		if _, err := decodeClaims([]byte(b)); err == nil {
			t.Errorf("decodeClaims(%q) took trailing data", b)
		}
	}
}
