package oidc

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/mcpdual/mcpdual/mcp/auth"
)

// The issuer's answers change while a verifier runs: it moves its keys or
// its introspection endpoint, it names an address it should not, it hangs,
// it answers something that is not a claim set. These tests hold what a
// verifier does then.

// TestJWTKeysMoved: the issuer moves its jwks_uri and the old address
// answers 404. The fetch that fails there forgets the metadata, so the
// next one, after RetryAfter, discovers the new address, though the keys
// are far from MaxKeyAge.
func TestJWTKeysMoved(t *testing.T) {
	is := startIssuer(t, nil)
	v := newJWT(t, JWTConfig{Issuer: is.url, MaxKeyAge: time.Hour,
		RefreshCooldown: 50 * time.Millisecond, RetryAfter: 50 * time.Millisecond})
	if _, f := authenticate(t, v, is.mint(is.claims(resource), "")); f != nil {
		t.Fatalf("before the move: %+v %v", f, f.Unwrap())
	}
	is.mu.Lock()
	is.keysAt = "/keys-v2"
	is.mu.Unlock()
	is.rotate(newECKey(t, "k2"), false)
	token := is.mint(is.claims(resource), "")
	if !eventually(t, func() bool { _, f := authenticate(t, v, token); return f == nil }) {
		_, f := authenticate(t, v, token)
		t.Fatalf("a token of the moved key set is still refused: %+v %v", f, f.Unwrap())
	}
}

// TestJWTMetadataAge: metadata is kept for MaxKeyAge, as keys are. Past
// it the next key fetch discovers again, even though the old address
// still answers (with keys the issuer no longer signs with).
func TestJWTMetadataAge(t *testing.T) {
	is := startIssuer(t, nil)
	old := startIssuer(t, nil) // the old key set, still served
	is.mu.Lock()
	is.jwksURI = old.url + "/keys"
	is.mu.Unlock()
	v := newJWT(t, JWTConfig{Issuer: is.url, MaxKeyAge: 100 * time.Millisecond, RetryAfter: 50 * time.Millisecond})
	if _, f := authenticate(t, v, signWith(t, old.current, is.claims(resource), "")); f != nil {
		t.Fatalf("a token of the first key set: %+v %v", f, f.Unwrap())
	}
	is.mu.Lock()
	is.jwksURI = "" // back to the issuer's own /keys
	is.mu.Unlock()
	hits := is.discoveryHits.Load()
	token := is.mint(is.claims(resource), "")
	if !eventually(t, func() bool { _, f := authenticate(t, v, token); return f == nil }) {
		t.Fatal("the new jwks_uri was never discovered past MaxKeyAge")
	}
	if is.discoveryHits.Load() == hits {
		t.Error("no discovery past MaxKeyAge")
	}
}

// TestJWTOldMetadataWhileDiscoveryDown: metadata past MaxKeyAge whose
// discovery fails stays in use, as keys do: a key the issuer added since
// is found at the address already known.
func TestJWTOldMetadataWhileDiscoveryDown(t *testing.T) {
	is := startIssuer(t, nil)
	v := newJWT(t, JWTConfig{Issuer: is.url, MaxKeyAge: 50 * time.Millisecond,
		RefreshCooldown: time.Millisecond, RetryAfter: time.Hour})
	if _, f := authenticate(t, v, is.mint(is.claims(resource), "")); f != nil {
		t.Fatalf("first token: %+v %v", f, f.Unwrap())
	}
	is.mu.Lock()
	is.discoveryDown = true
	is.mu.Unlock()
	is.rotate(newECKey(t, "k2"), true)
	time.Sleep(60 * time.Millisecond)
	if _, f := authenticate(t, v, is.mint(is.claims(resource), "")); f != nil {
		t.Fatalf("a new key while discovery is down: %+v %v", f, f.Unwrap())
	}
	if is.discoveryHits.Load() < 2 {
		t.Errorf("discovery asked %d times, want a second try past MaxKeyAge", is.discoveryHits.Load())
	}
}

// TestIntrospectionEndpointMoved: an introspection endpoint that answers
// 404 is an outage (503 for RetryAfter) and forgets the metadata, so the
// next call discovers where the endpoint went.
func TestIntrospectionEndpointMoved(t *testing.T) {
	is := startIssuer(t, nil)
	is.setActive("opaque", is.activeAnswer())
	v := newIntrospection(t, is, func(c *IntrospectionConfig) { c.RetryAfter = 50 * time.Millisecond; c.CacheTTL = time.Millisecond })
	if _, f := authenticate(t, v, "opaque"); f != nil {
		t.Fatalf("before the move: %+v %v", f, f.Unwrap())
	}
	is.mu.Lock()
	is.introspectAt = "/introspect-v2"
	is.mu.Unlock()
	time.Sleep(5 * time.Millisecond) // past CacheTTL
	if !eventually(t, func() bool { _, f := authenticate(t, v, "opaque"); return f == nil }) {
		_, f := authenticate(t, v, "opaque")
		t.Fatalf("the moved endpoint was never found: %+v %v", f, f.Unwrap())
	}
}

// TestDiscoveredAddressScheme: a jwks_uri or introspection_endpoint the
// metadata names must be what a configured one may be, https or http on
// a loopback host; keys over plain http could be replaced on the way, and
// an introspection request carries the client secret. The client sends
// every request to the loopback test issuer whatever host it names, so
// nothing leaves this machine, and records the hosts asked: the refused
// address is never asked.
func TestDiscoveredAddressScheme(t *testing.T) {
	for _, kind := range []string{"jwt", "introspection"} {
		t.Run(kind, func(t *testing.T) {
			is := startIssuer(t, nil)
			is.setActive("opaque", is.activeAnswer())
			var mu sync.Mutex
			var asked []string
			target, _ := url.Parse(is.url)
			client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
				mu.Lock()
				asked = append(asked, r.URL.Host)
				mu.Unlock()
				r = r.Clone(r.Context())
				r.URL.Host = target.Host
				return http.DefaultTransport.RoundTrip(r)
			})}
			// The issuer names its addresses on another, non-loopback
			// host, over http.
			moved := func(v string) string { return strings.Replace(v, target.Host, "keys.example", 1) }
			is.mu.Lock()
			is.jwksURI, is.introspectURI = moved(is.url+"/keys"), moved(is.url+"/introspect")
			is.mu.Unlock()
			var v auth.TokenVerifier = newIntrospection(t, is, func(c *IntrospectionConfig) { c.HTTPClient = client })
			token := "opaque"
			if kind == "jwt" {
				v = newJWT(t, JWTConfig{Issuer: is.url, HTTPClient: client})
				token = is.mint(is.claims(resource), "")
			}
			_, f := authenticate(t, v, token)
			if f == nil || f.Status != http.StatusServiceUnavailable {
				t.Fatalf("an http address on another host: %+v, want 503", f)
			}
			if msg := f.Unwrap().Error(); !strings.Contains(msg, "not https") {
				t.Errorf("the refusal says %q, want it to name the scheme", msg)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, h := range asked {
				if h == "keys.example" {
					t.Errorf("the refused address was asked: %v", asked)
				}
			}
		})
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestIntrospectionGarbledAnswer: an answer of 200 that is not a claim set
// is the issuer's fault, not the token's: 503, never the 401 that would
// send every client to log in again.
func TestIntrospectionGarbledAnswer(t *testing.T) {
	for _, body := range []string{`null`, `[]`, `"x"`, `42`, `{"active":true} {}`} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(body))
		}))
		v, err := NewIntrospectionVerifier(IntrospectionConfig{Issuer: srv.URL, Endpoint: srv.URL + "/introspect",
			Audience: resource, ClientID: "c", ClientSecret: "s"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = v.VerifyAccessToken(t.Context(), "opaque", nil)
		if !errors.Is(err, ErrIssuerUnavailable) || errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("answer %s: %v, want ErrIssuerUnavailable alone", body, err)
		}
		if _, f := authenticate(t, v, "opaque"); f == nil || f.Status != http.StatusServiceUnavailable {
			t.Errorf("answer %s: %+v, want 503", body, f)
		}
		srv.Close()
	}
}

// TestWaitEndsWithCaller: a request waiting on the issuer leaves when its
// own context ends, though the shared fetch goes on for the others; and a
// host's client without a timeout gets the default one, so that fetch
// ends too.
func TestWaitEndsWithCaller(t *testing.T) {
	release := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hung.Close)
	t.Cleanup(func() { close(release) })
	gone, cancel := context.WithCancel(context.Background())
	cancel() // no warm-up
	jv, err := NewJWTVerifier(gone, JWTConfig{Issuer: hung.URL, JWKSURL: hung.URL + "/keys", Audience: resource,
		HTTPClient: &http.Client{}})
	if err != nil {
		t.Fatal(err)
	}
	iv, err := NewIntrospectionVerifier(IntrospectionConfig{Issuer: hung.URL, Endpoint: hung.URL + "/introspect",
		Audience: resource, ClientID: "c", ClientSecret: "s", HTTPClient: &http.Client{}})
	if err != nil {
		t.Fatal(err)
	}
	if jv.cfg.HTTPClient.Timeout != defaultTimeout || iv.cfg.HTTPClient.Timeout != defaultTimeout {
		t.Errorf("client timeouts %v and %v, want %v", jv.cfg.HTTPClient.Timeout, iv.cfg.HTTPClient.Timeout, defaultTimeout)
	}
	const token = "eyJhbGciOiJFUzI1NiIsImtpZCI6ImsxIn0.e30.c2ln" // well formed: the keys are looked for
	for name, v := range map[string]auth.TokenVerifier{"jwt": jv, "introspection": iv} {
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		done := make(chan error, 1)
		go func() { _, err := v.VerifyAccessToken(ctx, token, nil); done <- err }()
		select {
		case err := <-done:
			if !errors.Is(err, ErrIssuerUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s: %v, want ErrIssuerUnavailable for the deadline", name, err)
			}
		case <-time.After(3 * time.Second):
			t.Errorf("%s: still waiting 3 s after the caller's deadline", name)
		}
		cancel()
	}
}

// TestJWTWarmUpOutlivesCtx: the context NewJWTVerifier was given ending
// during the warm-up (a setup function's deferred cancel) is not an
// issuer failure: the first request is answered from the keys the
// warm-up goes on to fetch, not with 503.
func TestJWTWarmUpOutlivesCtx(t *testing.T) {
	is := startIssuer(t, nil)
	slow := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		select {
		case <-time.After(100 * time.Millisecond):
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
		return http.DefaultTransport.RoundTrip(r)
	})
	ctx, cancel := context.WithCancel(t.Context())
	v, err := NewJWTVerifier(ctx, JWTConfig{Issuer: is.url, Audience: resource, RetryAfter: time.Hour,
		HTTPClient: &http.Client{Transport: slow}})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	time.Sleep(20 * time.Millisecond)
	if _, f := authenticate(t, v, is.mint(is.claims(resource), "")); f != nil {
		t.Fatalf("a valid token after the setup's context ended: %+v %v", f, f.Unwrap())
	}
	if n := is.jwksHits.Load(); n != 1 {
		t.Errorf("keys fetched %d times, want the warm-up's one", n)
	}
}

// TestStillUnavailable: while a failure is remembered, the 503 says how
// long is left, not the whole wait the failure first named.
func TestStillUnavailable(t *testing.T) {
	cause := errors.New("connection refused")
	first := unavailableAfter(3*time.Second, cause)
	for _, tc := range []struct {
		left, want time.Duration
	}{{1500 * time.Millisecond, 1500 * time.Millisecond}, {10 * time.Millisecond, time.Second}} {
		err := stillUnavailable(tc.left, first)
		u, ok := err.(*unavailable)
		if !ok || u.RetryAfter() != tc.want || !errors.Is(err, ErrIssuerUnavailable) || !errors.Is(err, cause) {
			t.Errorf("left %v: %v (%T), want RetryAfter %v wrapping the cause", tc.left, err, err, tc.want)
		}
		if strings.Count(err.Error(), ErrIssuerUnavailable.Error()) != 1 {
			t.Errorf("left %v: %q names the outage twice", tc.left, err)
		}
	}
}

// eventually retries ok every 20 ms for up to 2 s.
func eventually(t *testing.T, ok func() bool) bool {
	t.Helper()
	for range 100 {
		if ok() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// TestSharedPanics: a fetch that panics fails its callers with an error;
// singleflight's DoChan would otherwise raise the panic where nothing can
// recover it.
func TestSharedPanics(t *testing.T) {
	var g singleflight.Group
	_, err := shared(t.Context(), &g, "", func(context.Context) (any, error) { panic("a key the parser did not expect") })
	if err == nil || !strings.Contains(err.Error(), "panicked") {
		t.Fatalf("a panicking fetch: %v", err)
	}
	if v, err := shared(t.Context(), &g, "", func(context.Context) (any, error) { return 1, nil }); v != 1 || err != nil {
		t.Fatalf("the next fetch: %v, %v", v, err)
	}
}
