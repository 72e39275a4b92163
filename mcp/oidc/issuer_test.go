package oidc

import (
	"cmp"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
)

// testIssuer is a handwritten authorization server for the edge cases a
// real provider will not produce on demand: discovery at either
// location, a key set that can be rotated or garbled, an introspection
// endpoint with revocation, and counters of what the verifier asked.
type testIssuer struct {
	t   testing.TB
	srv *httptest.Server
	url string

	mu        sync.Mutex
	published []testKey // the key set
	current   testKey   // signs new tokens
	oidcPath  bool      // serve /.well-known/openid-configuration (else RFC 8414 only)
	oidcError int       // the status of the OpenID Connect location when !oidcPath (default 404)
	oidcBody  string    // and its body
	docIssuer string    // issuer named in the metadata ("" = url)
	extraKeys []json.RawMessage
	active    map[string]map[string]any // introspection: token → answer
	clientID  string
	secret    string
	postAuth  bool // expect client_secret_post instead of basic
	failing   bool // answer 500 to everything
	// keysAt and introspectAt are where the keys and the introspection
	// endpoint are ("": /keys, /introspect), as the metadata says: an
	// issuer that moves them answers 404 at the old address.
	keysAt, introspectAt string
	discoveryDown        bool   // answer 500 at both discovery locations
	jwksURI              string // the metadata's jwks_uri when set, wherever it points
	introspectURI        string // and its introspection_endpoint
	// redirects sends a request for a path elsewhere (307, which keeps
	// the method and the body).
	redirects map[string]string

	// gate, when set, sees every request first, without the lock (it may
	// block); the request is answered only when it returns true.
	gate func(r *http.Request) bool

	discoveryHits, jwksHits, introspectHits atomic.Int32
}

type testKey struct {
	kid  string
	alg  jose.SignatureAlgorithm
	priv crypto.Signer
}

func newECKey(t testing.TB, kid string) testKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return testKey{kid: kid, alg: jose.ES256, priv: k}
}

// startIssuer serves a test issuer on ln (a new loopback listener when
// nil), and stops it when the test ends.
func startIssuer(t testing.TB, ln net.Listener) *testIssuer {
	t.Helper()
	k := newECKey(t, "k1")
	is := &testIssuer{t: t, published: []testKey{k}, current: k, oidcPath: true,
		active: map[string]map[string]any{}, clientID: "rs", secret: "rs secret"}
	is.serve(ln)
	t.Cleanup(is.stop)
	return is
}

func (is *testIssuer) serve(ln net.Listener) {
	is.t.Helper()
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			is.t.Fatal(err)
		}
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(is.handle))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	is.mu.Lock()
	is.srv, is.url = srv, srv.URL
	is.mu.Unlock()
}

func (is *testIssuer) stop() {
	is.mu.Lock()
	srv := is.srv
	is.mu.Unlock()
	srv.Close()
}

// restart serves again at the same address, as an issuer back from an
// outage does.
func (is *testIssuer) restart() {
	is.t.Helper()
	addr := strings.TrimPrefix(is.url, "http://")
	var ln net.Listener
	var err error
	for range 50 { // the old socket may take a moment to be released
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		is.t.Fatal(err)
	}
	is.serve(ln)
}

func (is *testIssuer) handle(w http.ResponseWriter, r *http.Request) {
	is.mu.Lock()
	gate := is.gate
	is.mu.Unlock()
	if gate != nil && !gate(r) {
		return
	}
	is.mu.Lock()
	defer is.mu.Unlock()
	writeJSON := func(v any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	keysAt, introspectAt := cmp.Or(is.keysAt, "/keys"), cmp.Or(is.introspectAt, "/introspect")
	meta := func() {
		is.discoveryHits.Add(1)
		if is.discoveryDown {
			http.Error(w, "discovery down", http.StatusInternalServerError)
			return
		}
		iss := is.docIssuer
		if iss == "" {
			iss = is.url
		}
		writeJSON(map[string]any{"issuer": iss, "jwks_uri": cmp.Or(is.jwksURI, is.url+keysAt), "introspection_endpoint": cmp.Or(is.introspectURI, is.url+introspectAt)})
	}
	if r.URL.Path == introspectAt {
		is.introspectHits.Add(1)
	}
	if is.failing {
		http.Error(w, "down for maintenance", http.StatusInternalServerError)
		return
	}
	if to, ok := is.redirects[r.URL.Path]; ok {
		http.Redirect(w, r, to, http.StatusTemporaryRedirect)
		return
	}
	switch p := r.URL.Path; p {
	case "/.well-known/openid-configuration":
		if !is.oidcPath {
			w.WriteHeader(cmp.Or(is.oidcError, http.StatusNotFound))
			_, _ = io.WriteString(w, is.oidcBody)
			return
		}
		meta()
	case "/.well-known/oauth-authorization-server":
		meta()
	case keysAt:
		is.jwksHits.Add(1)
		keys := []any{}
		for _, k := range is.published {
			keys = append(keys, jose.JSONWebKey{Key: k.priv.Public(), KeyID: k.kid, Algorithm: string(k.alg), Use: "sig"})
		}
		for _, raw := range is.extraKeys {
			keys = append(keys, raw)
		}
		writeJSON(map[string]any{"keys": keys})
	case introspectAt:
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		id, secret, basic := r.BasicAuth()
		if basic {
			// RFC 6749 §2.3.1: the parts are form-encoded inside Basic.
			id, _ = url.QueryUnescape(id)
			secret, _ = url.QueryUnescape(secret)
		}
		if is.postAuth {
			id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		}
		if id != is.clientID || secret != is.secret || basic == is.postAuth {
			w.WriteHeader(http.StatusUnauthorized)
			writeJSON(map[string]any{"error": "invalid_client"})
			return
		}
		answer, ok := is.active[r.PostForm.Get("token")]
		if !ok {
			writeJSON(map[string]any{"active": false})
			return
		}
		if status, ok := answer["_status"].(int); ok { // this token's request fails so
			w.WriteHeader(status)
			writeJSON(map[string]any{"error": "invalid_request"})
			return
		}
		writeJSON(answer)
	default:
		http.NotFound(w, r)
	}
}

func (is *testIssuer) setFailing(f bool) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.failing = f
}

// rotate makes key the signing key; keepOld leaves the previous keys
// published.
func (is *testIssuer) rotate(key testKey, keepOld bool) {
	is.mu.Lock()
	defer is.mu.Unlock()
	if !keepOld {
		is.published = nil
	}
	is.published = append(is.published, key)
	is.current = key
}

// claims returns a valid access token's claims for resource.
func (is *testIssuer) claims(resource string) map[string]any {
	now := time.Now()
	return map[string]any{
		"iss": is.url, "sub": "user-1", "aud": []string{resource, "other-api"},
		"exp": now.Add(time.Hour).Unix(), "iat": now.Unix(), "nbf": now.Add(-time.Minute).Unix(),
		"jti": "tok-1", "client_id": "app-1", "scope": "mcp:read mcp:write",
	}
}

// mint signs claims with the current key; typ "" leaves the header's typ
// out.
func (is *testIssuer) mint(claims map[string]any, typ string) string {
	is.mu.Lock()
	k := is.current
	is.mu.Unlock()
	return signWith(is.t, k, claims, typ)
}

func signWith(t testing.TB, k testKey, claims map[string]any, typ string) string {
	t.Helper()
	opts := &jose.SignerOptions{}
	if k.kid != "" {
		// A key without an id signs tokens whose header names none.
		opts = opts.WithHeader("kid", k.kid)
	}
	if typ != "" {
		opts = opts.WithType(jose.ContentType(typ))
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: k.priv}, opts)
	if err != nil {
		t.Fatal(err)
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	jws, err := s.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jws.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return out
}
