package oidc

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp/auth"
)

func newIntrospection(t *testing.T, is *testIssuer, change func(*IntrospectionConfig)) *IntrospectionVerifier {
	t.Helper()
	cfg := IntrospectionConfig{Issuer: is.url, Audience: resource, ClientID: is.clientID, ClientSecret: is.secret}
	if change != nil {
		change(&cfg)
	}
	v, err := NewIntrospectionVerifier(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// activeAnswer is an introspection answer for a valid token.
func (is *testIssuer) activeAnswer() map[string]any {
	c := is.claims(resource)
	c["active"] = true
	return c
}

func (is *testIssuer) setActive(token string, answer map[string]any) {
	is.mu.Lock()
	defer is.mu.Unlock()
	if answer == nil {
		delete(is.active, token)
		return
	}
	is.active[token] = answer
}

func TestIntrospectionAccepts(t *testing.T) {
	for _, method := range []string{ClientSecretBasic, ClientSecretPost} {
		t.Run(method, func(t *testing.T) {
			is := startIssuer(t, nil)
			is.postAuth = method == ClientSecretPost
			is.setActive("opaque-1", is.activeAnswer())
			v := newIntrospection(t, is, func(c *IntrospectionConfig) { c.AuthMethod = method })
			p, f := authenticate(t, v, "opaque-1")
			if f != nil {
				t.Fatalf("refused: %+v %v", f, f.Unwrap())
			}
			if p.Subject != "user-1" || p.ClientID != "app-1" || !slices.Equal(p.Scopes, []string{"mcp:read", "mcp:write"}) || p.Issuer != is.url {
				t.Errorf("principal = %+v", p)
			}
			if _, ok := p.Claims["active"]; ok {
				t.Error("active left among the claims")
			}
		})
	}
}

func TestIntrospectionRefusals(t *testing.T) {
	is := startIssuer(t, nil)
	v := newIntrospection(t, is, nil)
	answer := func(change func(map[string]any)) map[string]any {
		a := is.activeAnswer()
		change(a)
		return a
	}
	tests := []struct {
		name   string
		answer map[string]any // nil: the issuer does not know the token
	}{
		{"unknown to the issuer", nil},
		{"inactive", answer(func(a map[string]any) { a["active"] = false })},
		{"active missing", answer(func(a map[string]any) { delete(a, "active") })},
		{"active as a string", answer(func(a map[string]any) { a["active"] = "true" })},
		{"another audience", answer(func(a map[string]any) { a["aud"] = "http://127.0.0.1:9/other" })},
		{"no audience", answer(func(a map[string]any) { delete(a, "aud") })},
		{"another issuer", answer(func(a map[string]any) { a["iss"] = "http://127.0.0.1:1" })},
		{"expired", answer(func(a map[string]any) { a["exp"] = time.Now().Add(-2 * time.Minute).Unix() })},
		{"no expiry", answer(func(a map[string]any) { delete(a, "exp") })},
		{"not yet valid", answer(func(a map[string]any) { a["nbf"] = time.Now().Add(2 * time.Minute).Unix() })},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			token := fmt.Sprintf("opaque-%d", i)
			is.setActive(token, tt.answer)
			p, f := authenticate(t, v, token)
			if f == nil || f.Status != http.StatusUnauthorized {
				t.Fatalf("got %+v %+v, want 401", p, f)
			}
		})
	}
	// An answer without iss is the issuer's own (RFC 7662 makes iss
	// optional).
	is.setActive("no-iss", answer(func(a map[string]any) { delete(a, "iss") }))
	if p, f := authenticate(t, v, "no-iss"); f != nil || p.Issuer != is.url {
		t.Fatalf("answer without iss: %+v %+v", p, f)
	}
}

// TestIntrospectionUnavailable: the endpoint down, our own credentials
// refused, or a garbled answer: 503 with Retry-After, never 401.
func TestIntrospectionUnavailable(t *testing.T) {
	is := startIssuer(t, nil)
	is.setActive("opaque", is.activeAnswer())
	wrong := newIntrospection(t, is, func(c *IntrospectionConfig) { c.ClientSecret = "wrong" })
	if _, f := authenticate(t, wrong, "opaque"); f == nil || f.Status != http.StatusServiceUnavailable || f.RetryAfter <= 0 {
		t.Fatalf("wrong client secret: %+v, want 503", f)
	}
	v := newIntrospection(t, is, func(c *IntrospectionConfig) { c.RetryAfter = 200 * time.Millisecond })
	is.stop()
	if _, f := authenticate(t, v, "opaque"); f == nil || f.Status != http.StatusServiceUnavailable || f.RetryAfter <= 0 {
		t.Fatalf("issuer down: %+v, want 503", f)
	}
	is.restart()
	time.Sleep(200 * time.Millisecond)
	if _, f := authenticate(t, v, "opaque"); f != nil {
		t.Fatalf("after recovery: %+v %v", f, f.Unwrap())
	}
}

// TestIntrospectionCacheBound: a revoked token is accepted from the cache
// for at most CacheTTL, then refused; an answer is never kept past exp.
func TestIntrospectionCacheBound(t *testing.T) {
	is := startIssuer(t, nil)
	const ttl = 300 * time.Millisecond
	v := newIntrospection(t, is, func(c *IntrospectionConfig) { c.CacheTTL = ttl; c.Leeway = time.Millisecond })
	is.setActive("opaque", is.activeAnswer())
	for range 5 {
		if _, f := authenticate(t, v, "opaque"); f != nil {
			t.Fatal(f)
		}
	}
	if n := is.introspectHits.Load(); n != 1 {
		t.Fatalf("5 requests introspected %d times, want 1", n)
	}
	revoked := time.Now()
	is.setActive("opaque", nil) // revoked at the issuer
	for {
		// Measured before the call: an acceptance is a fault only if it
		// was asked for past the TTL. Measured after, a pause of the
		// loaded machine between an in-time acceptance and the check
		// would read as one.
		asked := time.Since(revoked)
		_, f := authenticate(t, v, "opaque")
		if f != nil {
			if f.Status != http.StatusUnauthorized {
				t.Fatalf("revoked: %+v", f)
			}
			break
		}
		if asked > ttl+300*time.Millisecond { // slack for clock reads only
			t.Fatalf("revoked token accepted when asked %v after revocation, CacheTTL %v", asked, ttl)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// A token expiring before CacheTTL is asked about again after exp.
	v = newIntrospection(t, is, func(c *IntrospectionConfig) { c.CacheTTL = time.Hour; c.Leeway = time.Millisecond })
	a := is.activeAnswer()
	a["exp"] = float64(time.Now().Add(time.Second).UnixMilli()) / 1000
	is.setActive("short", a)
	if _, f := authenticate(t, v, "short"); f != nil {
		t.Fatal(f)
	}
	before := is.introspectHits.Load()
	time.Sleep(time.Until(time.UnixMilli(int64(a["exp"].(float64)*1000))) + 50*time.Millisecond)
	if _, f := authenticate(t, v, "short"); f == nil || f.Status != http.StatusUnauthorized {
		t.Fatalf("after exp: %+v", f)
	}
	if is.introspectHits.Load() == before {
		t.Fatal("the answer was reused past the token's exp")
	}
}

// TestIntrospectionSingleflight: concurrent requests with one token make
// one call; the cache never holds more than CacheSize answers.
func TestIntrospectionSingleflight(t *testing.T) {
	is := startIssuer(t, nil)
	is.setActive("opaque", is.activeAnswer())
	v := newIntrospection(t, is, func(c *IntrospectionConfig) { c.CacheSize = 10 })
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if _, f := authenticate(t, v, "opaque"); f != nil {
				t.Errorf("refused: %+v", f)
			}
		})
	}
	wg.Wait()
	if n := is.introspectHits.Load(); n != 1 {
		t.Fatalf("20 concurrent requests introspected %d times", n)
	}
	for i := range 100 {
		_, _ = authenticate(t, v, fmt.Sprintf("flood-%d", i))
	}
	v.mu.Lock()
	n := len(v.cache)
	v.mu.Unlock()
	if n > 10 {
		t.Fatalf("cache holds %d answers, CacheSize 10", n)
	}
}

func TestIntrospectionConfig(t *testing.T) {
	ok := IntrospectionConfig{Issuer: "https://login.example.com", Audience: resource, ClientID: "rs", ClientSecret: "s"}
	for _, change := range []func(*IntrospectionConfig){
		func(c *IntrospectionConfig) { c.Issuer = "" },
		func(c *IntrospectionConfig) { c.Audience = "" },
		func(c *IntrospectionConfig) { c.ClientSecret = "" },
		func(c *IntrospectionConfig) { c.AuthMethod = "private_key_jwt" },
		func(c *IntrospectionConfig) { c.Endpoint = "http://login.example.com/introspect" },
		func(c *IntrospectionConfig) { c.CacheTTL = -1 },
	} {
		cfg := ok
		change(&cfg)
		if _, err := NewIntrospectionVerifier(cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	v, err := NewIntrospectionVerifier(ok)
	if err != nil {
		t.Fatal(err)
	}
	var _ auth.TokenVerifier = v
	if m := v.Metadata(resource); m.Resource != resource || !slices.Equal(m.AuthorizationServers, []string{ok.Issuer}) {
		t.Fatalf("%+v", m)
	}
}

// TestIntrospectionBackoff: after a call that got no answer, tokens not in
// the cache are 503 without calling the issuer until RetryAfter has
// passed; cached answers are still served.
func TestIntrospectionBackoff(t *testing.T) {
	is := startIssuer(t, nil)
	const retry = time.Second
	v := newIntrospection(t, is, func(c *IntrospectionConfig) { c.RetryAfter = retry; c.Endpoint = is.url + "/introspect" })
	is.setActive("cached", is.activeAnswer())
	if _, f := authenticate(t, v, "cached"); f != nil {
		t.Fatal(f)
	}
	is.setFailing(true)
	for i := range 10 {
		token := fmt.Sprintf("new-%d", i)
		is.setActive(token, is.activeAnswer())
		if _, f := authenticate(t, v, token); f == nil || f.Status != http.StatusServiceUnavailable || f.RetryAfter <= 0 {
			t.Fatalf("token %d while the endpoint fails: %+v", i, f)
		}
	}
	if n := is.introspectHits.Load(); n != 2 {
		t.Fatalf("endpoint called %d times, want 2 (the cached token, then one failure)", n)
	}
	if _, f := authenticate(t, v, "cached"); f != nil {
		t.Fatalf("cached answer during the failure: %+v", f)
	}
	is.setFailing(false)
	time.Sleep(retry)
	if _, f := authenticate(t, v, "new-3"); f != nil {
		t.Fatalf("after recovery: %+v %v", f, f.Unwrap())
	}
}
