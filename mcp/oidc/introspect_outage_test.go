package oidc

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// TestIntrospectionOneTokenFails (review item 10): an introspection that
// fails for one token (a 400 or 413 for it, a 429) answers that request 503 and nothing more: the next caller's
// token is introspected at once. A 5xx, the issuer unreachable, or our
// own credentials refused is the same for every token, and stops asking
// for RetryAfter (TestIntrospectionBackoff).
func TestIntrospectionOneTokenFails(t *testing.T) {
	is := startIssuer(t, nil)
	v := newIntrospection(t, is, func(c *IntrospectionConfig) { c.RetryAfter = time.Hour; c.Endpoint = is.url + "/introspect" })
	for i, status := range []int{http.StatusBadRequest, http.StatusTooManyRequests, http.StatusRequestEntityTooLarge} {
		odd := fmt.Sprintf("odd-%d", status)
		is.setActive(odd, map[string]any{"_status": status})
		if _, f := authenticate(t, v, odd); f == nil || f.Status != http.StatusServiceUnavailable {
			t.Fatalf("%d for the odd token: %+v, want 503", status, f)
		}
		good := fmt.Sprintf("good-%d", status)
		is.setActive(good, is.activeAnswer())
		if _, f := authenticate(t, v, good); f != nil {
			t.Errorf("after a %d for another token: %+v %v", status, f, f.Unwrap())
		}
		if n := is.introspectHits.Load(); n != int32(2*(i+1)) {
			t.Errorf("endpoint called %d times, want %d", n, 2*(i+1))
		}
	}
	// A 5xx is an outage: the next token is not asked about.
	is.setActive("down", map[string]any{"_status": http.StatusBadGateway})
	if _, f := authenticate(t, v, "down"); f == nil || f.Status != http.StatusServiceUnavailable {
		t.Fatalf("502: %+v", f)
	}
	is.setActive("after-down", is.activeAnswer())
	hits := is.introspectHits.Load()
	if _, f := authenticate(t, v, "after-down"); f == nil || f.Status != http.StatusServiceUnavailable || is.introspectHits.Load() != hits {
		t.Errorf("a token during the outage: %+v, %d calls", f, is.introspectHits.Load()-hits)
	}
}
