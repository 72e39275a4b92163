package oidc

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// TestJWTStaleKeysDoNotWaitForAHungIssuer: past MaxKeyAge the keys are
// fetched again, but a token of a key already known does not wait for
// that fetch. An issuer that hangs (a dropped route, a stuck proxy)
// rather than refusing would otherwise hold every request for the HTTP
// client's timeout, and again after every RetryAfter: the outage rule
// (known keys keep verifying) held only for issuers that fail fast. The
// key set's handler here holds the second fetch until the token was
// answered; a verifier that waited for it is answered only once its
// client's timeout failed the fetch, which the verifier then remembers.
func TestJWTStaleKeysDoNotWaitForAHungIssuer(t *testing.T) {
	is := startIssuer(t, nil)
	release := make(chan struct{})
	held := make(chan struct{}) // closed when the held fetch has ended
	var hits atomic.Int32
	is.mu.Lock()
	is.gate = func(r *http.Request) bool {
		if r.URL.Path != "/keys" || hits.Add(1) != 2 {
			return true
		}
		defer close(held)
		select {
		case <-release:
			return true
		case <-r.Context().Done():
			return false
		}
	}
	is.mu.Unlock()
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // no warm-up: the first fetch is the first token's
	v, err := NewJWTVerifier(ctx, JWTConfig{Issuer: is.url, Audience: resource, MaxKeyAge: time.Nanosecond,
		HTTPClient: &http.Client{Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	token := is.mint(is.claims(resource), "")
	if _, f := authenticate(t, v, token); f != nil {
		t.Fatalf("first token: %+v %v", f, f.Unwrap())
	}
	// The keys are now past MaxKeyAge: this token starts the second fetch,
	// which hangs until released.
	_, f := authenticate(t, v, token)
	v.mu.Lock()
	failure := v.failure
	v.mu.Unlock()
	close(release)
	<-held
	if f != nil {
		t.Fatalf("a token of a known key while the key set is fetched again: %+v %v", f, f.Unwrap())
	}
	if failure != nil {
		t.Fatalf("the token was answered only after the hung fetch failed: %v", failure)
	}
}
