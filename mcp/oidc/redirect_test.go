package oidc

import (
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// twoIssuers returns the issuer a verifier is configured with (front) and
// a second server on another loopback port (back) that front redirects
// its discovery, keys and introspection to. back holds front's keys and
// answers for front's issuer, so following the redirect would succeed:
// only the redirect policy stands in the way.
func twoIssuers(t *testing.T) (front, back *testIssuer) {
	t.Helper()
	front, back = startIssuer(t, nil), startIssuer(t, nil)
	back.docIssuer = front.url
	back.published, back.current = front.published, front.current
	front.redirects = map[string]string{
		"/.well-known/openid-configuration":       back.url + "/.well-known/openid-configuration",
		"/.well-known/oauth-authorization-server": back.url + "/.well-known/oauth-authorization-server",
		"/moved-keys":       back.url + "/keys",
		"/moved-introspect": back.url + "/introspect",
		"/here-keys":        front.url + "/keys",
	}
	return front, back
}

// TestRedirectToAnotherOrigin: a redirect from the issuer to another
// origin (another port on the same loopback address counts) is refused,
// for discovery, keys and introspection alike, before anything is sent
// there; it is a 503, the issuer being misconfigured, not the token bad.
// RedirectOrigins names the origins that may be followed.
func TestRedirectToAnotherOrigin(t *testing.T) {
	t.Run("discovery", func(t *testing.T) {
		front, back := twoIssuers(t)
		token := front.mint(front.claims(resource), "")
		v := newJWT(t, JWTConfig{Issuer: front.url})
		_, f := authenticate(t, v, token)
		if f == nil || f.Status != http.StatusServiceUnavailable || !errors.Is(f, ErrIssuerUnavailable) {
			t.Fatalf("got %+v, want 503", f)
		}
		if !strings.Contains(f.Unwrap().Error(), "another origin") {
			t.Errorf("cause %v does not say why", f.Unwrap())
		}
		if n := back.discoveryHits.Load(); n != 0 {
			t.Errorf("the other origin was asked %d times", n)
		}
		// Named, it is followed.
		v = newJWT(t, JWTConfig{Issuer: front.url, RedirectOrigins: []string{back.url}})
		if _, f := authenticate(t, v, token); f != nil {
			t.Fatalf("redirect to a named origin: %+v %v", f, f.Unwrap())
		}
		// Another port of the same host is another origin.
		other := startIssuer(t, nil)
		v = newJWT(t, JWTConfig{Issuer: front.url, RedirectOrigins: []string{other.url}})
		if _, f := authenticate(t, v, token); f == nil || f.Status != http.StatusServiceUnavailable {
			t.Fatalf("redirect to an origin not named: %+v", f)
		}
	})
	t.Run("keys", func(t *testing.T) {
		front, back := twoIssuers(t)
		token := front.mint(front.claims(resource), "")
		v := newJWT(t, JWTConfig{Issuer: front.url, JWKSURL: front.url + "/moved-keys"})
		if _, f := authenticate(t, v, token); f == nil || f.Status != http.StatusServiceUnavailable {
			t.Fatalf("got %+v, want 503", f)
		}
		if n := back.jwksHits.Load(); n != 0 {
			t.Errorf("the other origin was asked %d times", n)
		}
		// Within the origin a redirect is followed.
		v = newJWT(t, JWTConfig{Issuer: front.url, JWKSURL: front.url + "/here-keys"})
		if _, f := authenticate(t, v, token); f != nil {
			t.Fatalf("same-origin redirect: %+v %v", f, f.Unwrap())
		}
	})
	t.Run("introspection", func(t *testing.T) {
		front, back := twoIssuers(t)
		back.postAuth = true // the secret travels in the body, which a 307 would resend
		back.setActive("opaque-1", front.activeAnswer())
		cfg := IntrospectionConfig{Issuer: front.url, Endpoint: front.url + "/moved-introspect", Audience: resource,
			ClientID: back.clientID, ClientSecret: back.secret, AuthMethod: ClientSecretPost}
		v, err := NewIntrospectionVerifier(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, f := authenticate(t, v, "opaque-1"); f == nil || f.Status != http.StatusServiceUnavailable {
			t.Fatalf("got %+v, want 503", f)
		}
		if n := back.introspectHits.Load(); n != 0 {
			t.Errorf("the credentials went to the other origin %d times", n)
		}
		cfg.RedirectOrigins = []string{back.url}
		if v, err = NewIntrospectionVerifier(cfg); err != nil {
			t.Fatal(err)
		}
		if _, f := authenticate(t, v, "opaque-1"); f != nil {
			t.Fatalf("redirect to a named origin: %+v %v", f, f.Unwrap())
		}
	})
}

// TestRedirectOriginsConfig: each entry is an origin and nothing more.
func TestRedirectOriginsConfig(t *testing.T) {
	for _, o := range []string{"", "ftp://keys.example.com", "http://keys.example.com", "https://keys.example.com/path",
		"https://keys.example.com?x=1", "https://u@keys.example.com", "keys.example.com"} {
		if _, err := NewJWTVerifier(t.Context(), JWTConfig{Issuer: "https://login.example.com", Audience: resource, RedirectOrigins: []string{o}}); err == nil {
			t.Errorf("JWTConfig.RedirectOrigins %q accepted", o)
		}
		if _, err := NewIntrospectionVerifier(IntrospectionConfig{Issuer: "https://login.example.com", Audience: resource,
			ClientID: "rs", ClientSecret: "s", RedirectOrigins: []string{o}}); err == nil {
			t.Errorf("IntrospectionConfig.RedirectOrigins %q accepted", o)
		}
	}
	for _, o := range []string{"https://keys.example.com", "https://KEYS.example.com:443/", "http://127.0.0.1:8080"} {
		if _, err := NewJWTVerifier(t.Context(), JWTConfig{Issuer: "https://login.example.com", Audience: resource, RedirectOrigins: []string{o}}); err != nil {
			t.Errorf("%q: %v", o, err)
		}
	}
}

// TestRedirectPolicyLeavesTheHostClient: the host's client is copied,
// not changed, and its own CheckRedirect still has the last word within
// the origin.
func TestRedirectPolicyLeavesTheHostClient(t *testing.T) {
	front, _ := twoIssuers(t)
	token := front.mint(front.claims(resource), "")
	mine := &http.Client{}
	newJWT(t, JWTConfig{Issuer: front.url, HTTPClient: mine})
	if mine.CheckRedirect != nil {
		t.Error("the host's client was changed")
	}
	var asked atomic.Int32
	strict := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error {
		asked.Add(1)
		return errors.New("no redirects here")
	}}
	v := newJWT(t, JWTConfig{Issuer: front.url, JWKSURL: front.url + "/here-keys", HTTPClient: strict})
	if _, f := authenticate(t, v, token); f == nil || f.Status != http.StatusServiceUnavailable || asked.Load() == 0 {
		t.Fatalf("got %+v after asking the host's policy %d times", f, asked.Load())
	}
}
