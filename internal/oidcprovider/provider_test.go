package oidcprovider

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	zoidc "github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"

	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/oidc"
)

// resource is the MCP server the tokens are for; nothing listens there,
// the Authenticator is called directly.
const (
	resource = "http://127.0.0.1:9/mcp"
	other    = "http://127.0.0.1:9/other"
	callback = "http://127.0.0.1:9/callback"
)

// provider is a zitadel OpenID Provider serving on loopback, with a login
// page of ours that signs every visitor in as alice.
type provider struct {
	t      *testing.T
	issuer string
	store  *store
	h      http.Handler

	mu  sync.Mutex
	srv *http.Server
	ln  net.Listener
}

func testClients(issuer string) []*client {
	cc := []zoidc.GrantType{zoidc.GrantTypeClientCredentials}
	return []*client{
		{id: "svc", secret: "svc-secret", grants: cc, tokenType: op.AccessTokenTypeJWT, audience: []string{resource}, lifetime: 5 * time.Minute},
		{id: "svc-opaque", secret: "opaque-secret", grants: cc, tokenType: op.AccessTokenTypeBearer, audience: []string{resource}, lifetime: 5 * time.Minute},
		{id: "svc-other", secret: "other-secret", grants: cc, tokenType: op.AccessTokenTypeJWT, audience: []string{other}, lifetime: 5 * time.Minute},
		{id: "svc-expired", secret: "expired-secret", grants: cc, tokenType: op.AccessTokenTypeJWT, audience: []string{resource}, lifetime: -3 * time.Minute},
		{id: "svc-early", secret: "early-secret", grants: cc, tokenType: op.AccessTokenTypeJWT, audience: []string{resource}, lifetime: 10 * time.Minute, skew: -5 * time.Minute},
		{id: "web", secret: "web-secret", grants: []zoidc.GrantType{zoidc.GrantTypeCode}, tokenType: op.AccessTokenTypeJWT,
			audience: []string{resource}, lifetime: 5 * time.Minute, redirect: callback, login: issuer + "/login"},
		{id: "rs", secret: "rs-secret", introspect: true},
	}
}

// startProvider starts a provider on a fresh loopback port.
func startProvider(t *testing.T) *provider {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	issuer := "http://" + ln.Addr().String()
	p := &provider{t: t, issuer: issuer, store: newStore(newSigningKey(t, "key-1"), testClients(issuer)...)}
	cfg := &op.Config{CodeMethodS256: true, AuthMethodPost: true}
	if _, err := rand.Read(cfg.CryptoKey[:]); err != nil {
		t.Fatal(err)
	}
	o, err := op.NewProvider(cfg, p.store, op.StaticIssuer(issuer), op.WithAllowInsecure())
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	// The login page: a real one would ask for a password; this one signs
	// the visitor in as alice and sends the browser back to the provider.
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get("id")
		if err := p.store.login(id, "alice"); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		http.Redirect(w, r, issuer+"/authorize/callback?id="+url.QueryEscape(id), http.StatusFound)
	})
	mux.Handle("/", o)
	p.h = mux
	p.serve(ln)
	t.Cleanup(p.stop)
	return p
}

func (p *provider) serve(ln net.Listener) {
	srv := &http.Server{Handler: p.h, ReadHeaderTimeout: 5 * time.Second}
	p.mu.Lock()
	p.srv, p.ln = srv, ln
	p.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
}

func (p *provider) stop() {
	p.mu.Lock()
	srv := p.srv
	p.mu.Unlock()
	_ = srv.Close()
}

// restart serves again at the same address after stop.
func (p *provider) restart() {
	p.t.Helper()
	addr := strings.TrimPrefix(p.issuer, "http://")
	var ln net.Listener
	var err error
	for range 50 {
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		p.t.Fatal(err)
	}
	p.serve(ln)
}

// tokenRequest posts form to the token endpoint as clientID and returns
// the access token.
func (p *provider) tokenRequest(clientID, secret string, form url.Values) string {
	p.t.Helper()
	req, err := http.NewRequest(http.MethodPost, p.issuer+"/oauth/token", strings.NewReader(form.Encode()))
	if err != nil {
		p.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(clientID, secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		AccessToken string `json:"access_token"`
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.AccessToken == "" {
		p.t.Fatalf("token endpoint: %d %v %s %s", resp.StatusCode, err, out.Error, out.Description)
	}
	return out.AccessToken
}

// clientCredentials gets a token with the client credentials grant.
func (p *provider) clientCredentials(clientID, secret string) string {
	p.t.Helper()
	return p.tokenRequest(clientID, secret, url.Values{"grant_type": {"client_credentials"}, "scope": {"inbox:read inbox:write"}})
}

// authorizationCode runs the authorization code flow with PKCE the way a
// browser would: authorize, the login page, the callback, then the code
// exchanged at the token endpoint.
func (p *provider) authorizationCode() string {
	p.t.Helper()
	verifier := rand.Text() + rand.Text()
	sum := sha256.Sum256([]byte(verifier))
	q := url.Values{
		"client_id": {"web"}, "redirect_uri": {callback}, "response_type": {"code"}, "scope": {"openid inbox:read"},
		"state": {"st-1"}, "code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
	}
	browser := &http.Client{CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if strings.HasPrefix(req.URL.String(), callback) {
			return http.ErrUseLastResponse // the client's redirect URI: stop here
		}
		return nil
	}}
	resp, err := browser.Get(p.issuer + "/authorize?" + q.Encode())
	if err != nil {
		p.t.Fatal(err)
	}
	resp.Body.Close()
	loc, err := url.Parse(resp.Header.Get("Location"))
	if err != nil || resp.StatusCode != http.StatusFound || !strings.HasPrefix(loc.String(), callback) {
		p.t.Fatalf("authorize: %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if loc.Query().Get("state") != "st-1" || loc.Query().Get("code") == "" {
		p.t.Fatalf("callback %s", loc)
	}
	return p.tokenRequest("web", "web-secret", url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")},
		"redirect_uri": {callback}, "code_verifier": {verifier}})
}

// revoke revokes token at the provider's revocation endpoint (RFC 7009).
func (p *provider) revoke(token, clientID, secret string) {
	p.t.Helper()
	req, err := http.NewRequest(http.MethodPost, p.issuer+"/revoke", strings.NewReader(url.Values{"token": {token}}.Encode()))
	if err != nil {
		p.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(clientID, secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		p.t.Fatalf("revoke: %d", resp.StatusCode)
	}
}

// authenticate runs token through an Authenticator as the MCP endpoint
// does, so the test sees the status a client would.
func authenticate(t *testing.T, v auth.TokenVerifier, token string) (*auth.Principal, *auth.Failure) {
	t.Helper()
	a := auth.New(auth.Config{Verifier: v, Resource: resource})
	r := httptest.NewRequest(http.MethodPost, resource, nil)
	r.Header.Set("Authorization", "Bearer "+token)
	return a.Authenticate(r)
}

func jwtVerifier(t *testing.T, issuer string, change func(*oidc.JWTConfig)) *oidc.JWTVerifier {
	t.Helper()
	cfg := oidc.JWTConfig{Issuer: issuer, Audience: resource, MapClaims: func(_ context.Context, claims map[string]any, p *auth.Principal) error {
		// The host's rule: the workspaces claim becomes a list of ids.
		for _, w := range claims["workspaces"].([]any) {
			p.Claims["ws:"+w.(string)] = true
		}
		return nil
	}}
	if change != nil {
		change(&cfg)
	}
	v, err := oidc.NewJWTVerifier(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// introspectionVerifier asks p's introspection endpoint as the resource
// server's client "rs"; change sets what a test needs.
func introspectionVerifier(t *testing.T, p *provider, change func(*oidc.IntrospectionConfig)) *oidc.IntrospectionVerifier {
	t.Helper()
	cfg := oidc.IntrospectionConfig{Issuer: p.issuer, Audience: resource, ClientID: "rs", ClientSecret: "rs-secret"}
	change(&cfg)
	v, err := oidc.NewIntrospectionVerifier(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func want401(t *testing.T, what string, f *auth.Failure) {
	t.Helper()
	if f == nil || f.Status != http.StatusUnauthorized || f.Reason != "invalid_token" {
		t.Errorf("%s: got %+v, want 401 invalid_token", what, f)
	}
}

func want503(t *testing.T, what string, f *auth.Failure) {
	t.Helper()
	if f == nil || f.Status != http.StatusServiceUnavailable || f.RetryAfter < time.Second || !errors.Is(f, oidc.ErrIssuerUnavailable) {
		t.Fatalf("%s: got %+v, want 503 with Retry-After", what, f)
	}
}

// TestProviderTokensAccepted: tokens of both grants, minted by the
// provider, are accepted with what they say mapped to the principal.
func TestProviderTokensAccepted(t *testing.T) {
	p := startProvider(t)
	v := jwtVerifier(t, p.issuer, nil)

	pr, f := authenticate(t, v, p.clientCredentials("svc", "svc-secret"))
	if f != nil {
		t.Fatalf("client credentials: %+v %v", f, f.Unwrap())
	}
	if pr.Issuer != p.issuer || pr.Subject != "svc" || pr.ClientID != "svc" || pr.TokenID == "" ||
		!slices.Equal(pr.Scopes, []string{"inbox:read", "inbox:write"}) || pr.Claims["ws:ws_2"] != true {
		t.Errorf("client credentials principal: %+v", pr)
	}

	pr, f = authenticate(t, v, p.authorizationCode())
	if f != nil {
		t.Fatalf("authorization code: %+v %v", f, f.Unwrap())
	}
	if pr.Subject != "alice" || pr.ClientID != "web" || !slices.Contains(pr.Scopes, "inbox:read") {
		t.Errorf("authorization code principal: %+v", pr)
	}
}

// TestProviderTokensRefused: tokens the provider minted for something
// else, and forgeries made from its real tokens and keys, are 401.
func TestProviderTokensRefused(t *testing.T) {
	p := startProvider(t)
	elsewhere := startProvider(t) // another issuer with the same clients
	v := jwtVerifier(t, p.issuer, nil)
	good := p.clientCredentials("svc", "svc-secret")
	if _, f := authenticate(t, v, good); f != nil {
		t.Fatalf("good token: %+v", f)
	}
	parts := strings.Split(good, ".")
	enc := base64.RawURLEncoding.EncodeToString
	header := func(h map[string]any) string {
		b, _ := json.Marshal(h)
		return enc(b)
	}

	// The provider's public key as an attacker would fetch it.
	resp, err := http.Get(p.issuer + "/keys")
	if err != nil {
		t.Fatal(err)
	}
	var set jose.JSONWebKeySet
	err = json.NewDecoder(resp.Body).Decode(&set)
	resp.Body.Close()
	if err != nil || len(set.Keys) == 0 {
		t.Fatalf("keys: %v %d", err, len(set.Keys))
	}
	der, err := x509.MarshalPKIXPublicKey(set.Keys[0].Key)
	if err != nil {
		t.Fatal(err)
	}
	hs256 := func(secret []byte) string {
		head := header(map[string]any{"alg": "HS256", "typ": "JWT", "kid": set.Keys[0].KeyID})
		m := hmac.New(sha256.New, secret)
		m.Write([]byte(head + "." + parts[1]))
		return head + "." + parts[1] + "." + enc(m.Sum(nil))
	}
	// The real claims signed by a key of ours under a kid the provider
	// never published.
	stranger := newSigningKey(t, "unknown-kid")
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: stranger.key, KeyID: stranger.id}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	jws, err := signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	unknownKid, _ := jws.CompactSerialize()
	sig := []byte(parts[2])
	if sig[5] == 'A' {
		sig[5] = 'B'
	} else {
		sig[5] = 'A'
	}

	for _, tt := range []struct{ name, token string }{
		{"another audience", p.clientCredentials("svc-other", "other-secret")},
		{"another issuer", elsewhere.clientCredentials("svc", "svc-secret")},
		{"expired", p.clientCredentials("svc-expired", "expired-secret")},
		{"not yet valid", p.clientCredentials("svc-early", "early-secret")},
		{"alg none", header(map[string]any{"alg": "none", "typ": "JWT"}) + "." + parts[1] + "."},
		{"HS256 keyed with the public key (PEM)", hs256(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))},
		{"HS256 keyed with the public key (DER)", hs256(der)},
		{"tampered signature", parts[0] + "." + parts[1] + "." + string(sig)},
		{"unknown kid", unknownKid},
		{"an opaque token given to the JWT verifier", p.clientCredentials("svc-opaque", "opaque-secret")},
	} {
		_, f := authenticate(t, v, tt.token)
		want401(t, tt.name, f)
	}
	// This provider signs access tokens with typ "JWT", not RFC 9068's
	// "at+jwt": a verifier that requires the latter refuses them.
	strict := jwtVerifier(t, p.issuer, func(c *oidc.JWTConfig) { c.RequireJWTAccessTokenType = true })
	_, f := authenticate(t, strict, good)
	want401(t, "typ JWT where at+jwt is required", f)
}

// TestProviderKeyRotation: the provider's signing key is rotated while
// the verifier runs; tokens of the new key are accepted without a
// restart. Inside the cooldown of an earlier unknown-kid fetch the new
// key is a 503 (try again), never a 401 (log in again).
func TestProviderKeyRotation(t *testing.T) {
	p := startProvider(t)
	// RSA keys are generated beforehand: generating one can take longer
	// than the cooldown on a loaded machine.
	key2, key3 := newSigningKey(t, "key-2"), newSigningKey(t, "key-3")
	const cooldown = 1500 * time.Millisecond
	v := jwtVerifier(t, p.issuer, func(c *oidc.JWTConfig) { c.RefreshCooldown = cooldown })
	if _, f := authenticate(t, v, p.clientCredentials("svc", "svc-secret")); f != nil {
		t.Fatal(f)
	}

	// Rotated with the old key withdrawn: the first token of the new key
	// makes the verifier fetch the keys again.
	p.store.rotate(key2, false)
	if _, f := authenticate(t, v, p.clientCredentials("svc", "svc-secret")); f != nil {
		t.Fatalf("first token of the rotated key: %+v %v", f, f.Unwrap())
	}

	// Rotated again right after that fetch: inside the cooldown.
	p.store.rotate(key3, true)
	third := p.clientCredentials("svc", "svc-secret")
	_, f := authenticate(t, v, third)
	want503(t, "rotated key inside the cooldown", f)
	if f.RetryAfter > cooldown+time.Second {
		t.Errorf("Retry-After %v longer than the cooldown", f.RetryAfter)
	}
	time.Sleep(cooldown)
	if _, f := authenticate(t, v, third); f != nil {
		t.Fatalf("rotated key after the cooldown: %+v %v", f, f.Unwrap())
	}
}

// TestProviderOutage: with the provider stopped, a verifier that has no
// keys yet (a server started during the outage) and a token naming a new
// key are 503 with Retry-After; once the provider is back, both are
// accepted without a restart.
func TestProviderOutage(t *testing.T) {
	p := startProvider(t)
	const retry = 300 * time.Millisecond
	// The default cooldown (a minute): a fetch that failed does not start
	// it, so the new key is found as soon as the provider is back.
	running := jwtVerifier(t, p.issuer, func(c *oidc.JWTConfig) { c.RetryAfter = retry })
	before := p.clientCredentials("svc", "svc-secret")
	if _, f := authenticate(t, running, before); f != nil {
		t.Fatal(f)
	}
	p.store.rotate(newSigningKey(t, "key-2"), true)
	rotated := p.clientCredentials("svc", "svc-secret")
	p.stop()

	started := jwtVerifier(t, p.issuer, func(c *oidc.JWTConfig) { c.RetryAfter = retry })
	_, f := authenticate(t, started, before)
	want503(t, "verifier started during the outage", f)
	_, f = authenticate(t, running, rotated)
	want503(t, "new key during the outage", f)
	// A key the running verifier already has keeps working.
	if _, f := authenticate(t, running, before); f != nil {
		t.Fatalf("known key during the outage: %+v", f)
	}

	p.restart()
	time.Sleep(retry)
	for name, v := range map[string]*oidc.JWTVerifier{"started during the outage": started, "running": running} {
		for _, tok := range []string{before, rotated} {
			if _, f := authenticate(t, v, tok); f != nil {
				t.Errorf("%s, after recovery: %+v %v", name, f, f.Unwrap())
			}
		}
	}
}

// TestProviderIntrospection: an opaque token is accepted through the
// provider's introspection endpoint, with client_secret_basic (this
// provider's endpoint takes no other secret-based method;
// client_secret_post is tested against the handwritten issuer in
// mcp/oidc); once revoked at the provider it is refused within the cache
// bound.
func TestProviderIntrospection(t *testing.T) {
	p := startProvider(t)
	const ttl = 400 * time.Millisecond
	v := introspectionVerifier(t, p, func(c *oidc.IntrospectionConfig) { c.CacheTTL = ttl })
	token := p.clientCredentials("svc-opaque", "opaque-secret")
	pr, f := authenticate(t, v, token)
	if f != nil {
		t.Fatalf("opaque token: %+v %v", f, f.Unwrap())
	}
	if pr.Subject != "svc-opaque" || pr.ClientID != "svc-opaque" || pr.Issuer != p.issuer || !slices.Contains(pr.Scopes, "inbox:write") {
		t.Errorf("principal %+v", pr)
	}
	// A token of another audience is refused on the provider's answer.
	_, f = authenticate(t, v, p.clientCredentials("svc-other", "other-secret"))
	want401(t, "another audience", f)

	p.revoke(token, "svc-opaque", "opaque-secret")
	revoked := time.Now()
	for {
		// The clock is read before the call: an acceptance is late only
		// when the call began past the bound, not when a loaded machine
		// took long to make a call begun in time, or paused after it.
		sent := time.Now()
		_, f := authenticate(t, v, token)
		if f != nil {
			want401(t, "revoked", f)
			break
		}
		if late := sent.Sub(revoked); late > ttl+300*time.Millisecond { // slack for clock reading only
			t.Fatalf("revoked token accepted on a call begun %v after revocation, CacheTTL %v", late, ttl)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// TestProviderIntrospectionOutage: with the provider stopped, a token not
// in the cache is 503 with Retry-After; once it is back, accepted.
func TestProviderIntrospectionOutage(t *testing.T) {
	p := startProvider(t)
	const retry = 200 * time.Millisecond
	v := introspectionVerifier(t, p, func(c *oidc.IntrospectionConfig) { c.RetryAfter = retry })
	token := p.clientCredentials("svc-opaque", "opaque-secret")
	p.stop()
	_, f := authenticate(t, v, token)
	want503(t, "introspection with the provider stopped", f)
	p.restart()
	time.Sleep(retry)
	if _, f := authenticate(t, v, token); f != nil {
		t.Fatalf("after recovery: %+v %v", f, f.Unwrap())
	}
}

// TestProviderMetadata: the Protected Resource Metadata names the
// provider, and the provider's discovery answers at the issuer it names,
// which is what a client follows from the 401 challenge to log in.
func TestProviderMetadata(t *testing.T) {
	p := startProvider(t)
	m := jwtVerifier(t, p.issuer, nil).Metadata(resource)
	m.ScopesSupported = []string{"inbox:read"}
	rec := httptest.NewRecorder()
	auth.NewMetadataHandler(m).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	var doc struct {
		AuthorizationServers []string `json:"authorization_servers"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil || len(doc.AuthorizationServers) != 1 {
		t.Fatalf("%s %v", rec.Body, err)
	}
	resp, err := http.Get(doc.AuthorizationServers[0] + "/.well-known/openid-configuration")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var disc struct {
		Issuer                string `json:"issuer"`
		AuthorizationEndpoint string `json:"authorization_endpoint"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&disc); err != nil || disc.Issuer != p.issuer || disc.AuthorizationEndpoint == "" {
		t.Fatalf("discovery: %+v %v", disc, err)
	}
}
