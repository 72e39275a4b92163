package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"flag"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/mcpdual/mcpdual/mcp"
)

// idp is a minimal identity provider: discovery and a key set. The
// provider-level behaviour (rotation, outages, forgeries) is tested in
// mcp/oidc and internal/oidcprovider; here the flag's wiring is.
type idp struct {
	url string
	key *ecdsa.PrivateKey
}

func startIDP(t *testing.T) *idp {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p := &idp{key: k}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/.well-known/openid-configuration":
			_ = json.NewEncoder(w).Encode(map[string]string{"issuer": p.url, "jwks_uri": p.url + "/keys"})
		case "/keys":
			_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &k.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	p.url = srv.URL
	return p
}

// token mints an access token for resource; change edits its claims.
func (p *idp) token(t *testing.T, resource string, change func(map[string]any)) string {
	t.Helper()
	claims := map[string]any{"iss": p.url, "sub": "sam@example.test", "aud": resource, "client_id": "claude",
		"scope": "inbox:read inbox:write", "exp": time.Now().Add(time.Hour).Unix(), "iat": time.Now().Unix()}
	if change != nil {
		change(claims)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: p.key, KeyID: "k1"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(claims)
	jws, err := s.Sign(b)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := jws.CompactSerialize()
	return out
}

// TestOIDCIssuer: with -oidc-issuer the inbox serves MCP clients and REST
// callers holding the identity provider's tokens, refuses the
// development tokens, and its metadata sends clients to the provider.
func TestOIDCIssuer(t *testing.T) {
	p := startIDP(t)
	s := startWith(t, appConfig{queue: 1024, worker: true, perSecond: 50, burst: 100, oidcIssuer: p.url})
	resource := s.base + "/mcp"
	real := p.token(t, resource, nil)
	for _, v := range eras {
		c := s.client(v, who{token: real}, "")
		if r := call(t, c, "tools/list", nil); r.Status != 200 || r.Error != nil {
			t.Fatalf("%s tools/list with a real token: %d %s", v, r.Status, r.Raw)
		}
		// No workspace claim: the demo workspace.
		_, res := callTool(t, c, "emails_list", map[string]any{})
		if len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, "eml_globex_0001") {
			t.Errorf("%s emails_list: %+v", v, res)
		}
	}

	// The workspaces claim names the token's workspaces; the header picks
	// one, and one the token does not name is refused.
	acme := p.token(t, resource, func(c map[string]any) { c["inbox_workspaces"] = []string{"ws_acme_prod", "ws_acme_staging"} })
	_, res := callTool(t, s.client(mcp.Version20260728, who{acme, "ws_acme_staging"}, ""), "emails_list", map[string]any{})
	if len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, "eml_acme_0004") {
		t.Errorf("acme staging: %+v", res)
	}
	if r, _ := callTool(t, s.client(mcp.Version20260728, who{acme, "ws_globex"}, ""), "emails_list", map[string]any{}); r.Status != 403 {
		t.Errorf("a workspace the token does not name: %d %s", r.Status, r.Raw)
	}
	// A provider's user whose subject happens to be a development
	// account's gets nothing of that account's.
	lookalike := p.token(t, resource, func(c map[string]any) { c["sub"] = "admin@acme.test" })
	if r, _ := callTool(t, s.client(mcp.Version20260728, who{lookalike, "ws_acme_prod"}, ""), "emails_list", map[string]any{}); r.Status != 403 {
		t.Errorf("lookalike subject: %d %s", r.Status, r.Raw)
	}

	for name, token := range map[string]string{
		"development token": "dev-admin",
		"another audience":  p.token(t, resource, func(c map[string]any) { c["aud"] = "http://127.0.0.1:1/mcp" }),
		"expired":           p.token(t, resource, func(c map[string]any) { c["exp"] = time.Now().Add(-time.Hour).Unix() }),
	} {
		r := call(t, s.client(mcp.Version20260728, who{token: token}, ""), "tools/list", nil)
		if r.Status != 401 || !strings.Contains(r.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
			t.Errorf("%s: %d %s", name, r.Status, r.Header.Get("WWW-Authenticate"))
		}
	}
	if code, body := s.rest(t, "GET", "/api/v1/emails", who{token: real}, ""); code != 200 || !strings.Contains(body, "eml_globex_0001") {
		t.Errorf("REST with a real token: %d %s", code, body)
	}

	resp, err := http.Get(s.base + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var prm struct {
		AuthorizationServers []string `json:"authorization_servers"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&prm); err != nil || len(prm.AuthorizationServers) != 1 || prm.AuthorizationServers[0] != p.url {
		t.Errorf("PRM authorization_servers %v, want [%s] (%v)", prm.AuthorizationServers, p.url, err)
	}
}

// TestOIDCIssuerDown: the inbox starts while its identity provider is
// unreachable and answers 503 with Retry-After, not 401.
func TestOIDCIssuerDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String()
	ln.Close()
	p := startIDP(t)
	s := startWith(t, appConfig{queue: 1024, worker: true, perSecond: 50, burst: 100, oidcIssuer: down})
	token := p.token(t, s.base+"/mcp", func(c map[string]any) { c["iss"] = down })
	r := call(t, s.client(mcp.Version20260728, who{token: token}, ""), "tools/list", nil)
	if r.Status != 503 || r.Header.Get("Retry-After") == "" {
		t.Fatalf("issuer down: %d Retry-After %q %s", r.Status, r.Header.Get("Retry-After"), r.Raw)
	}
}

// TestOIDCIssuerFlag: a value that cannot be an issuer is a usage error.
func TestOIDCIssuerFlag(t *testing.T) {
	f := flag.Lookup("oidc-issuer")
	t.Cleanup(func() { oidcIssuer = "" })
	for value, ok := range map[string]bool{
		"https://login.example.com/realms/acme": true,
		"http://127.0.0.1:8081":                 true,
		"http://login.example.com":              false, // http off loopback
		"ftp://login.example.com":               false,
		"login.example.com":                     false,
		"":                                      false,
	} {
		if err := f.Value.Set(value); (err == nil) != ok {
			t.Errorf("-oidc-issuer %q: %v", value, err)
		}
	}
}
