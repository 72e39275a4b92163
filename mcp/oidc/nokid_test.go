package oidc

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// TestJWTRotationWithoutKid: an issuer whose keys and tokens carry no kid
// rotates its key. The first token of the new key, which no known key
// verifies, fetches the key set again, as a token naming an unknown kid
// does, and is accepted; without that it would be 401 (log in again, and
// again) until MaxKeyAge, a day by default. A kid-less token that no key
// verifies, right after that fetch, is 503 inside the cooldown as an
// unknown kid is, and costs no fetch.
func TestJWTRotationWithoutKid(t *testing.T) {
	is := startIssuer(t, nil)
	is.rotate(newECKey(t, ""), false)
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // no warm-up: the fetches counted are the requests'
	v, err := NewJWTVerifier(ctx, JWTConfig{Issuer: is.url, Audience: resource})
	if err != nil {
		t.Fatal(err)
	}
	first := is.mint(is.claims(resource), "")
	if strings.Contains(first, "kid") {
		t.Fatal("the test token names a kid")
	}
	if _, f := authenticate(t, v, first); f != nil {
		t.Fatalf("kid-less token of the published key: %+v %v", f, f.Unwrap())
	}
	is.rotate(newECKey(t, ""), false)
	if _, f := authenticate(t, v, is.mint(is.claims(resource), "")); f != nil {
		t.Fatalf("kid-less token of the rotated key: %+v %v", f, f.Unwrap())
	}
	if n := is.jwksHits.Load(); n != 2 {
		t.Fatalf("key set fetched %d times, want 2 (the first request, the rotation)", n)
	}
	// A stranger's kid-less token right after that kid-caused fetch: 503
	// with Retry-After inside the cooldown, as an unknown kid is, and no
	// fetch.
	_, f := authenticate(t, v, signWith(t, newECKey(t, ""), is.claims(resource), ""))
	if f == nil || f.Status != http.StatusServiceUnavailable || f.RetryAfter <= 0 {
		t.Fatalf("a stranger's kid-less token: %+v", f)
	}
	if n := is.jwksHits.Load(); n != 2 {
		t.Fatalf("key set fetched %d times after a stranger's token, want 2", n)
	}
}
