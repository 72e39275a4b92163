package oidc

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp/auth"
)

const resource = "http://127.0.0.1:9/mcp"

// authenticate runs token through an Authenticator using v, as the MCP
// endpoint does, so tests see the status a client would.
func authenticate(t *testing.T, v auth.TokenVerifier, token string) (*auth.Principal, *auth.Failure) {
	t.Helper()
	a := auth.New(auth.Config{Verifier: v, Resource: resource})
	r := httptest.NewRequest(http.MethodPost, resource, nil)
	r.Header.Set("Authorization", "Bearer "+token)
	return a.Authenticate(r)
}

func newJWT(t *testing.T, cfg JWTConfig) *JWTVerifier {
	t.Helper()
	if cfg.Audience == "" {
		cfg.Audience = resource
	}
	v, err := NewJWTVerifier(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func b64JSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b64(b)
}

func TestJWTAccepts(t *testing.T) {
	is := startIssuer(t, nil)
	v := newJWT(t, JWTConfig{Issuer: is.url, MapClaims: func(_ context.Context, claims map[string]any, p *auth.Principal) error {
		ws, _ := claims["workspaces"].([]any)
		p.Claims["workspace_count"] = len(ws)
		return nil
	}})
	c := is.claims(resource)
	c["workspaces"] = []string{"ws_1", "ws_2"}
	p, f := authenticate(t, v, is.mint(c, "at+jwt"))
	if f != nil {
		t.Fatalf("refused: %+v %v", f, f.Unwrap())
	}
	if p.Issuer != is.url || p.Subject != "user-1" || p.ClientID != "app-1" || p.TokenID != "tok-1" ||
		!slices.Equal(p.Scopes, []string{"mcp:read", "mcp:write"}) || !slices.Equal(p.Audience, []string{resource, "other-api"}) ||
		time.Until(p.ExpiresAt) < 59*time.Minute || p.NotBefore.IsZero() || p.Claims["workspace_count"] != 2 {
		t.Errorf("principal = %+v", p)
	}

	// Entra ID and Okta put scopes in scp, azp names the client when
	// client_id is absent, and aud may be one string.
	c = is.claims(resource)
	delete(c, "scope")
	delete(c, "client_id")
	c["scp"] = []string{"mcp:read"}
	c["azp"] = "app-2"
	c["aud"] = resource
	p, f = authenticate(t, v, is.mint(c, ""))
	if f != nil {
		t.Fatalf("refused: %+v", f)
	}
	if p.ClientID != "app-2" || !slices.Equal(p.Scopes, []string{"mcp:read"}) || !slices.Equal(p.Audience, []string{resource}) {
		t.Errorf("principal = %+v", p)
	}
	// Okta names the client cid.
	c = is.claims(resource)
	delete(c, "client_id")
	c["cid"] = "app-3"
	if p, f = authenticate(t, v, is.mint(c, "")); f != nil || p.ClientID != "app-3" {
		t.Fatalf("cid: %+v %+v", p, f)
	}
	if got := is.jwksHits.Load(); got != 1 {
		t.Errorf("key set fetched %d times, want once", got)
	}
}

// TestJWTRefusals: every token here must be a 401, never a 503 and never
// accepted.
func TestJWTRefusals(t *testing.T) {
	is := startIssuer(t, nil)
	v := newJWT(t, JWTConfig{Issuer: is.url})
	strict := newJWT(t, JWTConfig{Issuer: is.url, RequireJWTAccessTokenType: true})
	k1 := is.current
	valid := is.mint(is.claims(resource), "at+jwt")
	parts := strings.Split(valid, ".")
	with := func(change func(c map[string]any)) string {
		c := is.claims(resource)
		change(c)
		return is.mint(c, "at+jwt")
	}
	// The verifier's public key, as PEM and as a JWK: what an attacker
	// would use as an HMAC secret.
	der, err := x509.MarshalPKIXPublicKey(k1.priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	hs256 := func(secret []byte) string {
		head := b64JSON(t, map[string]any{"alg": "HS256", "typ": "at+jwt", "kid": "k1"})
		m := hmac.New(sha256.New, secret)
		m.Write([]byte(head + "." + parts[1]))
		return head + "." + parts[1] + "." + b64(m.Sum(nil))
	}
	stranger := newECKey(t, "k1") // same kid, a key the issuer never published
	ghost := newECKey(t, "ghost")
	tampered := []byte(parts[2])
	// One character of the signature changed, still base64url.
	if tampered[10] == 'A' {
		tampered[10] = 'B'
	} else {
		tampered[10] = 'A'
	}
	otherPayload := b64JSON(t, map[string]any{"iss": is.url, "sub": "admin", "aud": resource, "exp": time.Now().Add(time.Hour).Unix()})

	tests := []struct {
		name  string
		v     *JWTVerifier
		token string
	}{
		{"another audience", v, with(func(c map[string]any) { c["aud"] = []string{"http://127.0.0.1:9/other"} })},
		{"audience differing by a slash", v, with(func(c map[string]any) { c["aud"] = resource + "/" })},
		{"no audience", v, with(func(c map[string]any) { delete(c, "aud") })},
		{"another issuer", v, with(func(c map[string]any) { c["iss"] = "http://127.0.0.1:1/other" })},
		{"issuer with a trailing slash", v, with(func(c map[string]any) { c["iss"] = is.url + "/" })},
		{"no issuer", v, with(func(c map[string]any) { delete(c, "iss") })},
		{"expired", v, with(func(c map[string]any) { c["exp"] = time.Now().Add(-2 * time.Minute).Unix() })},
		{"no expiry", v, with(func(c map[string]any) { delete(c, "exp") })},
		{"not yet valid", v, with(func(c map[string]any) { c["nbf"] = time.Now().Add(2 * time.Minute).Unix() })},
		{"issued in the future", v, with(func(c map[string]any) { c["iat"] = time.Now().Add(2 * time.Minute).Unix() })},
		{"exp as a string", v, with(func(c map[string]any) { c["exp"] = "tomorrow" })},
		{"scope as a number", v, with(func(c map[string]any) { c["scope"] = 7 })},
		{"scp holding a number", v, with(func(c map[string]any) { delete(c, "scope"); c["scp"] = []any{"mcp:read", 7} })},
		{"alg none", v, b64JSON(t, map[string]any{"alg": "none", "typ": "at+jwt"}) + "." + parts[1] + "."},
		{"alg none with a kid", v, b64JSON(t, map[string]any{"alg": "none", "kid": "k1"}) + "." + parts[1] + "."},
		{"HS256 keyed with the PEM public key", v, hs256(pemKey)},
		{"HS256 keyed with the DER public key", v, hs256(der)},
		{"tampered signature", v, parts[0] + "." + parts[1] + "." + string(tampered)},
		{"another payload under the signature", v, parts[0] + "." + otherPayload + "." + parts[2]},
		{"no signature", v, parts[0] + "." + parts[1] + "."},
		{"signed by another key under a known kid", v, signWith(t, stranger, is.claims(resource), "at+jwt")},
		{"unknown kid", v, signWith(t, ghost, is.claims(resource), "at+jwt")},
		{"not a JWT", v, "opaque-token"},
		{"typ missing when required", strict, is.mint(is.claims(resource), "")},
		{"an ID token's typ when at+jwt is required", strict, is.mint(is.claims(resource), "JWT")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, f := authenticate(t, tt.v, tt.token)
			if f == nil {
				t.Fatalf("accepted: %+v", p)
			}
			if f.Status != http.StatusUnauthorized || f.Reason != "invalid_token" {
				t.Fatalf("status %d %s, want 401 invalid_token (cause %v)", f.Status, f.Reason, f.Unwrap())
			}
		})
	}
	// The strict verifier takes both spellings of RFC 9068's type.
	for _, typ := range []string{"at+jwt", "application/at+jwt"} {
		if _, f := authenticate(t, strict, is.mint(is.claims(resource), typ)); f != nil {
			t.Errorf("typ %q refused: %+v", typ, f)
		}
	}
}

func TestJWTConfig(t *testing.T) {
	for _, cfg := range []JWTConfig{
		{Audience: resource},
		{Issuer: "http://login.example.com", Audience: resource}, // http off loopback
		{Issuer: "https://login.example.com?x=1", Audience: resource},
		{Issuer: "https://login.example.com"},
		{Issuer: "https://login.example.com", Audience: resource, Algorithms: []string{"HS256"}},
		{Issuer: "https://login.example.com", Audience: resource, Algorithms: []string{"none"}},
		{Issuer: "https://login.example.com", Audience: resource, Algorithms: []string{"RS256", "HS512"}},
		{Issuer: "https://login.example.com", Audience: resource, JWKSURL: "ftp://keys"},
		{Issuer: "https://login.example.com", Audience: resource, RefreshCooldown: -time.Second},
	} {
		if _, err := NewJWTVerifier(t.Context(), cfg); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
}

// TestJWTAlgorithmsAllowlist: a token in an algorithm left out of
// Algorithms is refused even though its key is published.
func TestJWTAlgorithmsAllowlist(t *testing.T) {
	is := startIssuer(t, nil)
	v := newJWT(t, JWTConfig{Issuer: is.url, Algorithms: []string{"RS256"}})
	if _, f := authenticate(t, v, is.mint(is.claims(resource), "")); f == nil || f.Status != http.StatusUnauthorized {
		t.Fatalf("ES256 token with only RS256 allowed: %+v", f)
	}
}

// TestJWTKeySetFiltering: symmetric, encryption and garbled keys in the
// set are skipped; the signature keys beside them still work.
func TestJWTKeySetFiltering(t *testing.T) {
	is := startIssuer(t, nil)
	is.extraKeys = []json.RawMessage{
		json.RawMessage(`{"kty":"oct","kid":"k1","k":"c2VjcmV0"}`),
		json.RawMessage(`{"kty":"EC","kid":"enc","use":"enc","crv":"P-256","x":"AA","y":"AA"}`),
		json.RawMessage(`{"kty":"unknown","kid":"x"}`),
		json.RawMessage(`"not a key"`),
	}
	v := newJWT(t, JWTConfig{Issuer: is.url})
	if _, f := authenticate(t, v, is.mint(is.claims(resource), "")); f != nil {
		t.Fatalf("refused: %+v %v", f, f.Unwrap())
	}
	// An HMAC under the oct key's kid, with the oct key's secret.
	head := b64JSON(t, map[string]any{"alg": "HS256", "kid": "k1"})
	payload := b64JSON(t, is.claims(resource))
	m := hmac.New(sha256.New, []byte("secret"))
	m.Write([]byte(head + "." + payload))
	if _, f := authenticate(t, v, head+"."+payload+"."+b64(m.Sum(nil))); f == nil || f.Status != http.StatusUnauthorized {
		t.Fatalf("HMAC under a published oct key: %+v", f)
	}
}

// TestJWTDiscovery: the metadata is found at the OpenID Connect location
// or at RFC 8414's, and a document naming another issuer is not trusted.
func TestJWTDiscovery(t *testing.T) {
	t.Run("RFC 8414 only", func(t *testing.T) {
		is := startIssuer(t, nil)
		is.oidcPath = false
		v := newJWT(t, JWTConfig{Issuer: is.url})
		if _, f := authenticate(t, v, is.mint(is.claims(resource), "")); f != nil {
			t.Fatalf("refused: %+v %v", f, f.Unwrap())
		}
	})
	t.Run("RFC 8414 after another error at the OpenID Connect location", func(t *testing.T) {
		is := startIssuer(t, nil)
		is.oidcPath, is.oidcError = false, http.StatusForbidden
		v := newJWT(t, JWTConfig{Issuer: is.url})
		if _, f := authenticate(t, v, is.mint(is.claims(resource), "")); f != nil {
			t.Fatalf("refused: %+v %v", f, f.Unwrap())
		}
	})
	// An authorization server that is no OpenID Provider, behind a web
	// application answering every unknown path 200 with its page (or an
	// object that is no metadata): RFC 8414's location is tried.
	for name, body := range map[string]string{
		"an HTML page":         "<!doctype html><title>Sign in</title>",
		"an object, no issuer": `{"status":"not found"}`,
	} {
		t.Run("RFC 8414 after 200 with "+name+" at the OpenID Connect location", func(t *testing.T) {
			is := startIssuer(t, nil)
			is.mu.Lock()
			is.oidcPath, is.oidcError, is.oidcBody = false, http.StatusOK, body
			is.mu.Unlock()
			v := newJWT(t, JWTConfig{Issuer: is.url})
			if _, f := authenticate(t, v, is.mint(is.claims(resource), "")); f != nil {
				t.Fatalf("refused: %+v %v", f, f.Unwrap())
			}
		})
	}
	t.Run("document names another issuer", func(t *testing.T) {
		is := startIssuer(t, nil)
		is.docIssuer = "http://127.0.0.1:1"
		v := newJWT(t, JWTConfig{Issuer: is.url})
		_, f := authenticate(t, v, is.mint(is.claims(resource), ""))
		if f == nil || f.Status != http.StatusServiceUnavailable || !errors.Is(f, ErrIssuerUnavailable) {
			t.Fatalf("got %+v, want 503", f)
		}
	})
	t.Run("JWKSURL skips discovery", func(t *testing.T) {
		is := startIssuer(t, nil)
		v := newJWT(t, JWTConfig{Issuer: is.url, JWKSURL: is.url + "/keys"})
		if _, f := authenticate(t, v, is.mint(is.claims(resource), "")); f != nil {
			t.Fatalf("refused: %+v", f)
		}
		if n := is.discoveryHits.Load(); n != 0 {
			t.Errorf("discovery fetched %d times", n)
		}
	})
}

// TestJWTUnknownKidCooldown: an unknown kid fetches the keys at most once
// per cooldown. The first one is checked against fresh keys (401); the
// flood that follows is 503 with a Retry-After inside the cooldown and
// costs the issuer nothing; after the cooldown a rotated key is found.
func TestJWTUnknownKidCooldown(t *testing.T) {
	is := startIssuer(t, nil)
	const cooldown = 1500 * time.Millisecond
	v := newJWT(t, JWTConfig{Issuer: is.url, RefreshCooldown: cooldown})
	if _, f := authenticate(t, v, is.mint(is.claims(resource), "")); f != nil {
		t.Fatalf("refused: %+v", f)
	}
	before := is.jwksHits.Load()
	_, f := authenticate(t, v, signWith(t, newECKey(t, "random-0"), is.claims(resource), ""))
	if f == nil || f.Status != http.StatusUnauthorized {
		t.Fatalf("first unknown kid: %+v, want 401 after a fresh fetch", f)
	}
	// Minted beforehand, so the loop runs well inside the cooldown even on
	// a loaded machine.
	flood := make([]string, 51)
	for i := range flood {
		k := is.current
		k.kid = fmt.Sprintf("random-%d", i)
		flood[i] = signWith(t, k, is.claims(resource), "")
	}
	for i := 1; i <= 50; i++ {
		_, f := authenticate(t, v, flood[i])
		if f == nil || f.Status != http.StatusServiceUnavailable || f.RetryAfter <= 0 || f.RetryAfter > cooldown+time.Second {
			t.Fatalf("unknown kid %d inside the cooldown: %+v", i, f)
		}
	}
	if got := is.jwksHits.Load() - before; got != 1 {
		t.Fatalf("51 unknown kids fetched the keys %d times, want 1", got)
	}
	// The issuer rotates; inside the cooldown the new key is a 503 (try
	// again), never a 401 (log in again).
	is.rotate(newECKey(t, "k2"), true)
	rotated := is.mint(is.claims(resource), "")
	if _, f := authenticate(t, v, rotated); f == nil || f.Status != http.StatusServiceUnavailable {
		t.Fatalf("rotated key inside the cooldown: %+v, want 503", f)
	}
	time.Sleep(cooldown)
	if _, f := authenticate(t, v, rotated); f != nil {
		t.Fatalf("rotated key after the cooldown: %+v %v", f, f.Unwrap())
	}
	// Tokens of the old key, still published, keep working.
	k1 := is.published[0]
	if _, f := authenticate(t, v, signWith(t, k1, is.claims(resource), "")); f != nil {
		t.Fatalf("old key: %+v", f)
	}
}

// TestJWTIssuerDownAtStart: the verifier is created while nothing listens
// at the issuer; requests are 503 with Retry-After, and once the issuer
// is up and RetryAfter has passed, tokens are accepted without a restart.
func TestJWTIssuerDownAtStart(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	const retry = 300 * time.Millisecond
	v := newJWT(t, JWTConfig{Issuer: "http://" + addr, RetryAfter: retry})
	k := newECKey(t, "k1")
	c := map[string]any{"iss": "http://" + addr, "aud": resource, "sub": "u", "exp": time.Now().Add(time.Hour).Unix()}
	token := signWith(t, k, c, "")
	for range 3 {
		_, f := authenticate(t, v, token)
		if f == nil || f.Status != http.StatusServiceUnavailable || f.RetryAfter < time.Second || !errors.Is(f, ErrIssuerUnavailable) {
			t.Fatalf("issuer down: %+v, want 503 with Retry-After", f)
		}
	}
	ln, err = net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("port %s taken meanwhile: %v", addr, err)
	}
	is := startIssuer(t, ln)
	is.rotate(k, false)
	time.Sleep(retry)
	if _, f := authenticate(t, v, token); f != nil {
		t.Fatalf("after recovery: %+v %v", f, f.Unwrap())
	}
}

// TestJWTOutageKeepsKnownKeys: keys past MaxKeyAge are fetched again; when
// the issuer is down meanwhile, the keys already known keep verifying.
func TestJWTOutageKeepsKnownKeys(t *testing.T) {
	is := startIssuer(t, nil)
	v := newJWT(t, JWTConfig{Issuer: is.url, MaxKeyAge: 100 * time.Millisecond})
	token := is.mint(is.claims(resource), "")
	if _, f := authenticate(t, v, token); f != nil {
		t.Fatal(f)
	}
	is.stop()
	time.Sleep(150 * time.Millisecond)
	if _, f := authenticate(t, v, token); f != nil {
		t.Fatalf("known key during an outage: %+v", f)
	}
	// An unknown kid during the outage cannot be decided: 503.
	if _, f := authenticate(t, v, signWith(t, newECKey(t, "k9"), is.claims(resource), "")); f == nil || f.Status != http.StatusServiceUnavailable {
		t.Fatalf("unknown kid during an outage: %+v, want 503", f)
	}
}

// TestJWTConcurrentColdStart: requests arriving together before the keys
// are known share one discovery and one key fetch.
func TestJWTConcurrentColdStart(t *testing.T) {
	is := startIssuer(t, nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // no warm-up: the requests below find nothing fetched
	v, err := NewJWTVerifier(ctx, JWTConfig{Issuer: is.url, Audience: resource})
	if err != nil {
		t.Fatal(err)
	}
	token := is.mint(is.claims(resource), "")
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if _, f := authenticate(t, v, token); f != nil {
				t.Errorf("refused: %+v", f)
			}
		})
	}
	wg.Wait()
	if d, k := is.discoveryHits.Load(), is.jwksHits.Load(); d > 2 || k > 2 {
		t.Errorf("20 concurrent requests: %d discoveries, %d key fetches", d, k)
	}
}

func TestMetadata(t *testing.T) {
	// A cancelled context skips the warm-up: nothing is fetched from a
	// host off loopback.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	v, err := NewJWTVerifier(ctx, JWTConfig{Issuer: "https://login.example.com/realms/acme", Audience: resource})
	if err != nil {
		t.Fatal(err)
	}
	m := v.Metadata(resource)
	if m.Resource != resource || !slices.Equal(m.AuthorizationServers, []string{"https://login.example.com/realms/acme"}) {
		t.Fatalf("%+v", m)
	}
	// It is what auth.NewMetadataHandler serves.
	rec := httptest.NewRecorder()
	auth.NewMetadataHandler(m).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if !strings.Contains(rec.Body.String(), `"authorization_servers":["https://login.example.com/realms/acme"]`) {
		t.Fatal(rec.Body.String())
	}
}

// TestMapClaimsRefuses: the host's mapper may refuse a token (401) or
// fail (503).
func TestMapClaimsRefuses(t *testing.T) {
	is := startIssuer(t, nil)
	for _, tt := range []struct {
		err    error
		status int
	}{
		{fmt.Errorf("no workspace: %w", auth.ErrInvalidToken), http.StatusUnauthorized},
		{errors.New("directory down"), http.StatusServiceUnavailable},
	} {
		v := newJWT(t, JWTConfig{Issuer: is.url, MapClaims: func(context.Context, map[string]any, *auth.Principal) error { return tt.err }})
		if _, f := authenticate(t, v, is.mint(is.claims(resource), "")); f == nil || f.Status != tt.status {
			t.Errorf("mapper error %v: %+v, want %d", tt.err, f, tt.status)
		}
	}
}

// TestJWTFailedKidFetchNoCooldown: a fetch for an unknown kid that failed
// saw no keys, so it does not start the cooldown: once the issuer is back
// and RetryAfter has passed, a key rotated during the outage is found.
func TestJWTFailedKidFetchNoCooldown(t *testing.T) {
	is := startIssuer(t, nil)
	const retry = 300 * time.Millisecond
	v := newJWT(t, JWTConfig{Issuer: is.url, RefreshCooldown: time.Hour, RetryAfter: retry})
	if _, f := authenticate(t, v, is.mint(is.claims(resource), "")); f != nil {
		t.Fatal(f)
	}
	is.rotate(newECKey(t, "k2"), false)
	rotated := is.mint(is.claims(resource), "")
	is.setFailing(true)
	if _, f := authenticate(t, v, rotated); f == nil || f.Status != http.StatusServiceUnavailable {
		t.Fatalf("new key while the issuer fails: %+v", f)
	}
	is.setFailing(false)
	time.Sleep(retry)
	if _, f := authenticate(t, v, rotated); f != nil {
		t.Fatalf("new key after recovery, inside the hour's cooldown: %+v %v", f, f.Unwrap())
	}
}

// TestJWTColdUnknownKid: keys fetched for the very request that names an
// unknown kid are fresh; the kid is refused at once, without a second
// fetch and without a 503.
func TestJWTColdUnknownKid(t *testing.T) {
	is := startIssuer(t, nil)
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // no warm-up
	v, err := NewJWTVerifier(ctx, JWTConfig{Issuer: is.url, Audience: resource})
	if err != nil {
		t.Fatal(err)
	}
	if _, f := authenticate(t, v, signWith(t, newECKey(t, "ghost"), is.claims(resource), "")); f == nil || f.Status != http.StatusUnauthorized {
		t.Fatalf("unknown kid on a cold verifier: %+v, want 401", f)
	}
	if n := is.jwksHits.Load(); n != 1 {
		t.Fatalf("key set fetched %d times, want 1", n)
	}
}

// TestNoSubjectNorClient: a token naming neither a subject nor a client
// would be keyed by its issuer alone, and every holder of one would share
// the others' sealed state, tasks and sessions: both verifiers refuse it
// (401), unless the host's MapClaims names the holder from another claim.
// A token naming only one of the two is accepted.
func TestNoSubjectNorClient(t *testing.T) {
	is := startIssuer(t, nil)
	anonymous := func(c map[string]any) map[string]any {
		delete(c, "sub")
		delete(c, "client_id")
		c["email"] = "a@example.com"
		return c
	}
	byEmail := func(_ context.Context, claims map[string]any, p *auth.Principal) error {
		if p.Subject == "" {
			p.Subject, _ = claims["email"].(string)
		}
		return nil
	}
	is.setActive("anonymous", anonymous(is.activeAnswer()))
	for name, v := range map[string]interface {
		VerifyAccessToken(context.Context, string, *http.Request) (*auth.Principal, error)
	}{
		"jwt":           newJWT(t, JWTConfig{Issuer: is.url}),
		"introspection": newIntrospection(t, is, nil),
	} {
		token := "anonymous"
		if name == "jwt" {
			token = is.mint(anonymous(is.claims(resource)), "at+jwt")
		}
		if p, f := authenticate(t, v, token); f == nil || f.Status != http.StatusUnauthorized || f.Reason != "invalid_token" {
			t.Errorf("%s: neither sub nor client_id: %+v %+v, want 401 invalid_token", name, p, f)
		}
	}
	for name, v := range map[string]interface {
		VerifyAccessToken(context.Context, string, *http.Request) (*auth.Principal, error)
	}{
		"jwt":           newJWT(t, JWTConfig{Issuer: is.url, MapClaims: byEmail}),
		"introspection": newIntrospection(t, is, func(c *IntrospectionConfig) { c.MapClaims = byEmail }),
	} {
		token := "anonymous"
		if name == "jwt" {
			token = is.mint(anonymous(is.claims(resource)), "at+jwt")
		}
		if p, f := authenticate(t, v, token); f != nil || p.Subject != "a@example.com" {
			t.Errorf("%s: subject from MapClaims: %+v %+v", name, p, f)
		}
	}
	v := newJWT(t, JWTConfig{Issuer: is.url})
	for _, drop := range []string{"sub", "client_id"} {
		c := is.claims(resource)
		delete(c, drop)
		if _, f := authenticate(t, v, is.mint(c, "at+jwt")); f != nil {
			t.Errorf("without %s alone: refused %+v", drop, f)
		}
	}
}
