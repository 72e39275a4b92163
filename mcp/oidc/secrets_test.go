package oidc

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/era2026"
	"github.com/mcpdual/mcpdual/internal/syncbuf"
	"github.com/mcpdual/mcpdual/mcp"
	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/observe"
)

// secretEras are the revisions a refused token is sent in: refusal comes
// before the revision is read, and holds in every one.
var secretEras = []mcp.Version{mcp.Version20260728, mcp.Version20251125, mcp.Version20250618, mcp.Version20250326}

// The markers a refused token and the verifier's own credential carry.
const (
	mkClaim        = "mkClaimValueQz7Wv3Lp9Tx"
	mkOpaque       = "mkOpaqueTokenQz7Wv3Lp9Tx"
	mkClientSecret = "mkClientSecretQz7Wv3Lp9Tx"
)

// eventRecorder keeps every field of every event the endpoint gives its
// observer, as text.
type eventRecorder struct {
	mu     sync.Mutex
	fields []string
}

func (o *eventRecorder) Request(ctx context.Context, ev *observe.Event) (context.Context, func()) {
	return ctx, func() { o.add(ev) }
}

func (o *eventRecorder) Route(_, inner context.Context, ev *observe.RouteEvent) (context.Context, func()) {
	return inner, func() { o.add(ev) }
}

func (o *eventRecorder) add(v any) {
	rv := reflect.ValueOf(v).Elem()
	o.mu.Lock()
	defer o.mu.Unlock()
	for i := range rv.NumField() {
		f := rv.Field(i)
		text := fmt.Sprint(f.Interface())
		if f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Uint8 {
			text = string(f.Bytes())
		}
		o.fields = append(o.fields, rv.Type().Field(i).Name+"="+text)
	}
}

func (o *eventRecorder) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return strings.Join(o.fields, "\n")
}

// refusedEndpoint is an MCP endpoint whose tokens v verifies, with its log
// (every level) and its observer's events kept.
func refusedEndpoint(t *testing.T, v auth.TokenVerifier) (url string, log *syncbuf.Buffer, events *eventRecorder) {
	t.Helper()
	log, events = &syncbuf.Buffer{}, &eventRecorder{}
	logger := slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := mcp.NewServer(mcp.Implementation{Name: "secrets", Version: "1"})
	h := mcp.NewHandler(srv, []mcp.Era{era2026.New(), era2025.New()}, mcp.WithLogger(logger),
		mcp.WithObserver(observe.Join(events, observe.AccessLog(logger))),
		mcp.WithAuth(auth.New(auth.Config{Verifier: v, Resource: resource})))
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL, log, events
}

// listTools sends tools/list in revision era with token; it returns the
// status, the headers and the body.
func listTools(t *testing.T, url string, era mcp.Version, token string) (int, http.Header, string) {
	t.Helper()
	params := ""
	if era == mcp.Version20260728 {
		params = `,"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
			`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}`
	}
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"`+params+`}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", string(era))
	req.Header.Set("Mcp-Method", "tools/list")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// secretsOf are the texts of token that must not appear: the token, each
// of a JWT's three parts, and the markers.
func secretsOf(token string) []string {
	out := []string{token, mkClaim, mkClientSecret}
	if parts := strings.Split(token, "."); len(parts) == 3 {
		out = append(out, parts...)
	}
	return out
}

// refusedCase is one token a verifier refuses.
type refusedCase struct {
	name   string
	token  func(t *testing.T) string
	status int
	// logged: a 5xx refusal, whose cause the endpoint logs (with the
	// token cut out).
	logged bool
}

// checkRefused sends c's token in every revision, each to an endpoint of
// its own (a 503 is logged once per Retry-After per endpoint), and looks
// for the token in the log, the observer's events, the WWW-Authenticate
// challenge and the body.
func checkRefused(t *testing.T, newVerifier func(t *testing.T) auth.TokenVerifier, cases []refusedCase) {
	for _, c := range cases {
		for _, era := range secretEras {
			t.Run(c.name+"/"+string(era), func(t *testing.T) {
				token := c.token(t)
				url, log, events := refusedEndpoint(t, newVerifier(t))
				status, hdr, body := listTools(t, url, era, token)
				if status != c.status {
					t.Errorf("status %d, want %d: %s", status, c.status, body)
				}
				if c.status == http.StatusUnauthorized && !strings.HasPrefix(hdr.Get("WWW-Authenticate"), `Bearer error="invalid_token"`) {
					t.Errorf("challenge %q", hdr.Get("WWW-Authenticate"))
				}
				if c.logged && !strings.Contains(log.String(), "mcp: request refused") {
					t.Errorf("the cause is not logged: %s", log)
				}
				var headers strings.Builder
				for k, vs := range hdr {
					fmt.Fprintf(&headers, "%s: %s\n", k, strings.Join(vs, ", "))
				}
				for _, s := range secretsOf(token) {
					for where, text := range map[string]string{"the log": log.String(), "an observer's event": events.String(),
						"the response's headers": headers.String(), "the response's body": body} {
						if strings.Contains(text, s) {
							t.Errorf("%s holds %q:\n%s", where, s, text)
						}
					}
				}
			})
		}
	}
}

// TestRefusedJWT_NeverLogged: a JWT the verifier refuses — a signature
// that does not verify, expired, for another audience or issuer, a key id
// the key set lacks (401), the same inside the refresh cooldown (503,
// logged), not a JWT at all — appears nowhere the endpoint writes.
func TestRefusedJWT_NeverLogged(t *testing.T) {
	is := startIssuer(t, nil)
	claims := func(change func(map[string]any)) map[string]any {
		c := is.claims(resource)
		c["jti"] = mkClaim
		if change != nil {
			change(c)
		}
		return c
	}
	other := newECKey(t, "k1") // the issuer's key id, another key
	unknown := newECKey(t, "k9")
	// Each case gets a verifier of its own: one that fetched the key set
	// for an unknown key id refuses the next unknown one 503 (cooldown).
	fresh := func(t *testing.T) auth.TokenVerifier { return newJWT(t, JWTConfig{Issuer: is.url}) }
	cooling := func(t *testing.T) auth.TokenVerifier {
		v := newJWT(t, JWTConfig{Issuer: is.url})
		// A valid token fetches the key set, and a first unknown key id
		// fetches it again and starts the cooldown.
		if _, f := authenticate(t, v, is.mint(claims(nil), "at+jwt")); f != nil {
			t.Fatalf("a valid token: %+v", f)
		}
		if _, f := authenticate(t, v, signWith(t, newECKey(t, "k8"), claims(nil), "at+jwt")); f == nil || f.Status != http.StatusUnauthorized {
			t.Fatalf("the first unknown key id: %+v", f)
		}
		return v
	}
	checkRefused(t, fresh, []refusedCase{
		{"bad signature", func(t *testing.T) string { return signWith(t, other, claims(nil), "at+jwt") }, 401, false},
		{"signature of another token", func(t *testing.T) string {
			a := strings.Split(is.mint(claims(nil), "at+jwt"), ".")
			b := strings.Split(is.mint(claims(func(c map[string]any) { c["sub"] = "user-2" }), "at+jwt"), ".")
			return a[0] + "." + a[1] + "." + b[2]
		}, 401, false},
		{"expired", func(t *testing.T) string {
			return is.mint(claims(func(c map[string]any) { c["exp"] = time.Now().Add(-time.Hour).Unix() }), "at+jwt")
		}, 401, false},
		{"wrong audience", func(t *testing.T) string {
			return is.mint(claims(func(c map[string]any) { c["aud"] = "http://127.0.0.1:9/other" }), "at+jwt")
		}, 401, false},
		{"wrong issuer", func(t *testing.T) string {
			return is.mint(claims(func(c map[string]any) { c["iss"] = "http://127.0.0.1:1" }), "at+jwt")
		}, 401, false},
		{"unknown key id", func(t *testing.T) string { return signWith(t, unknown, claims(nil), "at+jwt") }, 401, false},
		{"not a JWT", func(t *testing.T) string { return mkOpaque }, 401, false},
		{"not a JWT, three parts", func(t *testing.T) string { return mkOpaque + "." + mkClaim + "." + mkOpaque }, 401, false},
	})
	checkRefused(t, cooling, []refusedCase{
		{"unknown key id in the cooldown", func(t *testing.T) string { return signWith(t, unknown, claims(nil), "at+jwt") }, 503, true},
	})
}

// TestRefusedIntrospection_NeverLogged: an opaque token the issuer says
// is inactive, expired or for another audience (401), or that cannot be
// introspected — the issuer failing, refusing our credentials, failing
// this one token, answering what cannot be read (503, logged) — appears
// nowhere the endpoint writes, and neither does the verifier's own client
// secret.
func TestRefusedIntrospection_NeverLogged(t *testing.T) {
	is := startIssuer(t, nil)
	is.secret = mkClientSecret
	answer := func(change func(map[string]any)) map[string]any {
		a := is.activeAnswer()
		a["jti"] = mkClaim
		change(a)
		return a
	}
	is.setActive(mkOpaque+"-inactive", answer(func(a map[string]any) { a["active"] = false }))
	is.setActive(mkOpaque+"-expired", answer(func(a map[string]any) { a["exp"] = time.Now().Add(-time.Hour).Unix() }))
	is.setActive(mkOpaque+"-audience", answer(func(a map[string]any) { a["aud"] = "http://127.0.0.1:9/other" }))
	is.setActive(mkOpaque+"-refused", answer(func(a map[string]any) { a["_status"] = http.StatusBadRequest }))
	is.setActive(mkOpaque+"-garbled", answer(func(a map[string]any) { a["exp"] = mkClaim }))
	verifier := func(change func(*IntrospectionConfig)) func(t *testing.T) auth.TokenVerifier {
		return func(t *testing.T) auth.TokenVerifier { return newIntrospection(t, is, change) }
	}
	token := func(s string) func(*testing.T) string { return func(*testing.T) string { return s } }
	checkRefused(t, verifier(nil), []refusedCase{
		{"unknown", token(mkOpaque + "-unknown"), 401, false},
		{"inactive", token(mkOpaque + "-inactive"), 401, false},
		{"expired", token(mkOpaque + "-expired"), 401, false},
		{"wrong audience", token(mkOpaque + "-audience"), 401, false},
		{"refused for this token", token(mkOpaque + "-refused"), 503, true},
		{"an answer that cannot be read", token(mkOpaque + "-garbled"), 401, false},
	})
	checkRefused(t, verifier(func(c *IntrospectionConfig) { c.ClientSecret = mkClientSecret + "-wrong" }), []refusedCase{
		{"our credentials refused", token(mkOpaque + "-inactive"), 503, true},
	})
	checkRefused(t, verifier(func(c *IntrospectionConfig) { c.AuthMethod = ClientSecretPost }), []refusedCase{
		// The issuer expects Basic: the secret in the form is refused.
		{"our credentials in the form refused", token(mkOpaque + "-inactive"), 503, true},
	})
	checkRefused(t, verifier(func(c *IntrospectionConfig) { c.Endpoint = "http://127.0.0.1:1/introspect" }), []refusedCase{
		{"the endpoint unreachable", token(mkOpaque + "-inactive"), 503, true},
	})
}
