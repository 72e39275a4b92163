package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

const (
	resource = "https://mcp.example.com/mcp"
	prmURL   = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
)

// tokens maps test tokens to what the verifier says about them.
func testVerifier() TokenVerifier {
	return VerifierFunc(func(ctx context.Context, token string, r *http.Request) (*Principal, error) {
		now := time.Now()
		p := &Principal{Issuer: "https://as.example.com", Subject: "alice", ClientID: "c1",
			Audience: []string{resource}, Scopes: []string{"mcp:read"}, ExpiresAt: now.Add(time.Hour)}
		switch token {
		case "good", "good==":
		case "expired":
			p.ExpiresAt = now.Add(-time.Hour)
		case "future":
			p.NotBefore = now.Add(time.Hour)
		case "noexp":
			p.ExpiresAt = time.Time{}
		case "otheraud":
			p.Audience = []string{"https://other.example.com/mcp"}
		case "samehostotherpath":
			p.Audience = []string{"https://mcp.example.com/admin"}
		case "slash":
			p.Audience = []string{resource + "/"}
		case "casefold":
			p.Audience = []string{"https://MCP.example.com/mcp"}
		case "noaud":
			p.Audience = nil
		case "bad":
			return nil, fmt.Errorf("signature: %w", ErrInvalidToken)
		case "nil":
			return nil, nil
		case "down":
			return nil, errors.New("dial tcp: jwks unreachable")
		case "downhint":
			return nil, retryErr{}
		case "panic":
			panic("verifier bug")
		default:
			return nil, ErrInvalidToken
		}
		return p, nil
	})
}

type retryErr struct{}

func (retryErr) Error() string             { return "busy" }
func (retryErr) RetryAfter() time.Duration { return 42 * time.Second }

func newTestAuth(mod ...func(*Config)) *Authenticator {
	cfg := Config{Verifier: testVerifier(), Resource: resource, Scopes: []string{"mcp:read", "mcp:write"}}
	for _, m := range mod {
		m(&cfg)
	}
	return New(cfg)
}

func TestAuthenticate(t *testing.T) {
	const (
		baseline = `resource_metadata="` + prmURL + `", scope="mcp:read mcp:write"`
		noCreds  = `Bearer ` + baseline
	)
	invalid := func(desc string) string {
		return `Bearer error="invalid_token", error_description="` + desc + `", ` + baseline
	}
	malformed := func(desc string) string {
		return `Bearer error="invalid_request", error_description="` + desc + `", resource_metadata="` + prmURL + `"`
	}
	const oneToken = "Send one bearer token: Authorization: Bearer <token>"
	tests := []struct {
		name      string
		auth      []string
		query     string
		status    int
		reason    string
		challenge string
	}{
		{"good", []string{"Bearer good"}, "", 0, "", ""},
		{"lowercase scheme", []string{"bearer good"}, "", 0, "", ""},
		{"uppercase scheme", []string{"BEARER good"}, "", 0, "", ""},
		{"token68 padding", []string{"Bearer good=="}, "", 0, "", ""},
		{"no header", nil, "", 401, "unauthorized", noCreds},
		{"basic scheme", []string{"Basic YWxpY2U6cHc="}, "", 401, "unauthorized", noCreds},
		{"empty header", []string{""}, "", 401, "unauthorized", noCreds},
		{"bearer without token", []string{"Bearer"}, "", 400, "invalid_request", malformed(oneToken)},
		{"bearer and a space", []string{"Bearer "}, "", 400, "invalid_request", malformed(oneToken)},
		{"two spaces", []string{"Bearer  good"}, "", 400, "invalid_request", malformed(oneToken)},
		{"two tokens", []string{"Bearer good other"}, "", 400, "invalid_request", malformed(oneToken)},
		// A tab (or any character no scheme name holds) right after
		// "Bearer" is a malformed bearer credential, not another scheme.
		{"tab for the space", []string{"Bearer\tgood"}, "", 400, "invalid_request", malformed(oneToken)},
		{"tab after the space", []string{"Bearer \tgood"}, "", 400, "invalid_request", malformed(oneToken)},
		{"tab, scheme in capitals", []string{"BEARER\tgood"}, "", 400, "invalid_request", malformed(oneToken)},
		{"trailing tab", []string{"Bearer\t"}, "", 400, "invalid_request", malformed(oneToken)},
		{"comma after the scheme", []string{"Bearer,good"}, "", 400, "invalid_request", malformed(oneToken)},
		{"scheme that starts with bearer", []string{"Bearerx good"}, "", 401, "unauthorized", noCreds},
		{"basic scheme and a tab", []string{"Basic\tYWxpY2U6cHc="}, "", 401, "unauthorized", noCreds},
		{"only padding", []string{"Bearer =="}, "", 400, "invalid_request", malformed(oneToken)},
		{"bad character", []string{"Bearer go\"od"}, "", 400, "invalid_request", malformed(oneToken)},
		{"padding inside", []string{"Bearer go=od"}, "", 400, "invalid_request", malformed(oneToken)},
		{"huge token", []string{"Bearer " + strings.Repeat("a", maxTokenBytes+1)}, "", 400, "invalid_request", malformed(oneToken)},
		{"two headers", []string{"Bearer good", "Bearer good"}, "", 400, "invalid_request", malformed("Send exactly one Authorization header")},
		{"token in query", nil, "access_token=good", 400, "invalid_request", malformed("Send the access token in the Authorization header, never in the URL")},
		{"token in query beside header", []string{"Bearer good"}, "x=1&access_token=good", 400, "invalid_request", malformed("Send the access token in the Authorization header, never in the URL")},
		{"token in query, name escaped", []string{"Bearer good"}, "access%5Ftoken=good", 400, "invalid_request", malformed("Send the access token in the Authorization header, never in the URL")},
		{"token in query after a bad pair", []string{"Bearer good"}, "%zz&access_token=good", 400, "invalid_request", malformed("Send the access token in the Authorization header, never in the URL")},
		{"token in query after a semicolon", []string{"Bearer good"}, "x=1;access_token=good", 400, "invalid_request", malformed("Send the access token in the Authorization header, never in the URL")},
		{"token in query, name in capitals", []string{"Bearer good"}, "ACCESS_TOKEN=good", 400, "invalid_request", malformed("Send the access token in the Authorization header, never in the URL")},
		{"token in query, bare name", []string{"Bearer good"}, "x=1&access_token", 400, "invalid_request", malformed("Send the access token in the Authorization header, never in the URL")},
		{"unrelated query", []string{"Bearer good"}, "x=access_tokens&access_token0=1;y=access_token", 0, "", ""},
		{"refused by verifier", []string{"Bearer bad"}, "", 401, "invalid_token", invalid("The access token is invalid")},
		{"unknown token", []string{"Bearer whatever"}, "", 401, "invalid_token", invalid("The access token is invalid")},
		{"verifier returns nothing", []string{"Bearer nil"}, "", 401, "invalid_token", invalid("The access token is invalid")},
		{"expired", []string{"Bearer expired"}, "", 401, "invalid_token", invalid("The access token expired")},
		{"not yet valid", []string{"Bearer future"}, "", 401, "invalid_token", invalid("The access token is not yet valid")},
		{"no expiry", []string{"Bearer noexp"}, "", 401, "invalid_token", invalid("The access token has no expiry")},
		{"other audience", []string{"Bearer otheraud"}, "", 401, "invalid_token", invalid("The access token was not issued for this resource")},
		{"same host other path", []string{"Bearer samehostotherpath"}, "", 401, "invalid_token", invalid("The access token was not issued for this resource")},
		{"trailing slash", []string{"Bearer slash"}, "", 401, "invalid_token", invalid("The access token was not issued for this resource")},
		{"case-folded host", []string{"Bearer casefold"}, "", 401, "invalid_token", invalid("The access token was not issued for this resource")},
		{"no audience", []string{"Bearer noaud"}, "", 401, "invalid_token", invalid("The access token was not issued for this resource")},
		{"verifier down", []string{"Bearer down"}, "", 503, "auth_unavailable", ""},
		{"verifier panics", []string{"Bearer panic"}, "", 500, "internal", ""},
	}
	a := newTestAuth()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp?"+tt.query, nil)
			for _, v := range tt.auth {
				r.Header.Add("Authorization", v)
			}
			p, f := a.Authenticate(r)
			if tt.status == 0 {
				if f != nil {
					t.Fatalf("refused: %+v", f)
				}
				if p == nil || p.Subject != "alice" {
					t.Fatalf("principal = %+v", p)
				}
				return
			}
			if f == nil {
				t.Fatalf("admitted, want %d", tt.status)
			}
			if f.Status != tt.status || f.Reason != tt.reason || f.Challenge != tt.challenge {
				t.Errorf("got %d %s %q\nwant %d %s %q", f.Status, f.Reason, f.Challenge, tt.status, tt.reason, tt.challenge)
			}
			if p != nil {
				t.Error("a refusal also returned a principal")
			}
		})
	}
}

func TestAuthenticate_Unavailable(t *testing.T) {
	a := newTestAuth()
	try := func(token string) *Failure {
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
		r.Header.Set("Authorization", "Bearer "+token)
		_, f := a.Authenticate(r)
		return f
	}
	if f := try("down"); f.RetryAfter != DefaultRetryAfter || f.Unwrap() == nil || strings.Contains(f.Message, "jwks") {
		t.Errorf("down: %+v", f)
	}
	if f := try("downhint"); f.RetryAfter != 42*time.Second {
		t.Errorf("RetryAfter hint not used: %v", f.RetryAfter)
	}
	// The panic is described for the log by its type and place, never its
	// value, which may hold the token's claims (design record 011).
	if f := try("panic"); f.Unwrap() == nil || !strings.Contains(f.Unwrap().Error(), ": string at ") ||
		!strings.Contains(f.Unwrap().Error(), "auth_test.go:") || strings.Contains(f.Unwrap().Error(), "verifier bug") {
		t.Errorf("panic cause for the log: %v", f.Unwrap())
	}
}

// TestAuthenticate_Skew pins the edges of expiry and not-before with the
// default 30 s skew.
func TestAuthenticate_Skew(t *testing.T) {
	var exp, nbf time.Time
	a := New(Config{Resource: resource, Verifier: VerifierFunc(func(context.Context, string, *http.Request) (*Principal, error) {
		return &Principal{Audience: []string{resource}, ExpiresAt: exp, NotBefore: nbf}, nil
	})})
	try := func() bool {
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
		r.Header.Set("Authorization", "Bearer x")
		_, f := a.Authenticate(r)
		return f == nil
	}
	now := time.Now()
	cases := []struct {
		name     string
		exp, nbf time.Time
		ok       bool
	}{
		{"expired within skew", now.Add(-25 * time.Second), time.Time{}, true},
		{"expired past skew", now.Add(-35 * time.Second), time.Time{}, false},
		{"not before within skew", now.Add(time.Hour), now.Add(25 * time.Second), true},
		{"not before past skew", now.Add(time.Hour), now.Add(35 * time.Second), false},
	}
	for _, c := range cases {
		exp, nbf = c.exp, c.nbf
		if got := try(); got != c.ok {
			t.Errorf("%s: admitted = %v, want %v", c.name, got, c.ok)
		}
	}
	// Expires is where admission ends: a stream opened with the token
	// ends then (the default skew, 30 s, past ExpiresAt).
	exp = now.Add(-25 * time.Second)
	if got := a.Expires(&Principal{ExpiresAt: exp}); !got.Equal(exp.Add(30 * time.Second)) {
		t.Errorf("Expires = %v, want ExpiresAt + 30 s", got)
	}
	if !a.Expires(&Principal{}).IsZero() || !a.Expires(nil).IsZero() {
		t.Error("Expires of a token without expiry is not zero")
	}
}

func TestAuthenticate_VerifierChecksAudience(t *testing.T) {
	a := newTestAuth(func(c *Config) { c.VerifierChecksAudience = true })
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
	r.Header.Set("Authorization", "Bearer otheraud")
	if _, f := a.Authenticate(r); f != nil {
		t.Fatalf("opt-out still checked the audience: %+v", f)
	}
}

// TestAuthenticate_OpaqueKeys: credentials without an expiry or an
// audience pass only when the host says so, each flag on its own, and a
// key that does carry them is still checked.
func TestAuthenticate_OpaqueKeys(t *testing.T) {
	cases := []struct {
		token        string
		noExp, noAud bool
		admitted     bool
	}{
		{"noexp", false, false, false},
		{"noexp", true, false, true},
		{"noexp", false, true, false},
		{"noaud", false, false, false},
		{"noaud", false, true, true},
		{"noaud", true, false, false},
		{"expired", true, true, false},
		{"otheraud", true, true, false},
		{"good", true, true, true},
	}
	for _, c := range cases {
		a := newTestAuth(func(cfg *Config) { cfg.AcceptNoExpiry, cfg.AcceptNoAudience = c.noExp, c.noAud })
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
		r.Header.Set("Authorization", "Bearer "+c.token)
		_, f := a.Authenticate(r)
		if (f == nil) != c.admitted {
			t.Errorf("%s with AcceptNoExpiry=%v AcceptNoAudience=%v: admitted = %v, want %v (%+v)", c.token, c.noExp, c.noAud, f == nil, c.admitted, f)
		}
		if f != nil && f.Status != http.StatusUnauthorized {
			t.Errorf("%s: status %d", c.token, f.Status)
		}
	}
}

func TestInsufficientScope(t *testing.T) {
	a := newTestAuth()
	f := a.InsufficientScope([]string{"items:delete", "mcp:read"})
	want := `Bearer error="insufficient_scope", scope="items:delete mcp:read", resource_metadata="` + prmURL +
		`", error_description="The operation requires scope items:delete mcp:read"`
	if f.Status != 403 || f.Reason != "insufficient_scope" || f.Challenge != want {
		t.Errorf("got %d %s\n%s\nwant\n%s", f.Status, f.Reason, f.Challenge, want)
	}
}

func TestMissing_Hierarchy(t *testing.T) {
	p := &Principal{Scopes: []string{"projects:admin", "mcp:read"}}
	exact := newTestAuth()
	if m := exact.Missing(p, []string{"projects:delete", "mcp:read"}); len(m) != 1 || m[0] != "projects:delete" {
		t.Errorf("exact: missing = %v", m)
	}
	hier := newTestAuth(func(c *Config) {
		c.ScopeSatisfied = func(granted []string, required string) bool {
			for _, g := range granted {
				if g == required || (g == "projects:admin" && strings.HasPrefix(required, "projects:")) {
					return true
				}
			}
			return false
		}
	})
	if m := hier.Missing(p, []string{"projects:delete", "mcp:read"}); m != nil {
		t.Errorf("hierarchy: missing = %v", m)
	}
	if m := hier.Missing(nil, []string{"mcp:read"}); len(m) != 1 {
		t.Errorf("no principal: missing = %v", m)
	}
	// Satisfies agrees with Missing, and allocates nothing.
	for _, tc := range []struct {
		a        *Authenticator
		p        *Principal
		required []string
	}{
		{exact, p, []string{"projects:delete", "mcp:read"}}, {exact, p, []string{"mcp:read"}}, {exact, p, nil},
		{hier, p, []string{"projects:delete", "mcp:read"}}, {hier, nil, []string{"mcp:read"}}, {hier, nil, nil},
	} {
		if got, want := tc.a.Satisfies(tc.p, tc.required), tc.a.Missing(tc.p, tc.required) == nil; got != want {
			t.Errorf("Satisfies(%v, %v) = %v, Missing says %v", tc.p, tc.required, got, want)
		}
	}
	if n := testing.AllocsPerRun(10, func() { exact.Satisfies(p, []string{"projects:delete"}) }); n != 0 {
		t.Errorf("Satisfies: %v allocations", n)
	}
}

func TestNew_Misuse(t *testing.T) {
	v := testVerifier()
	cases := map[string]Config{
		"no verifier":        {Resource: resource},
		"no resource":        {Verifier: v},
		"http remote":        {Verifier: v, Resource: "http://mcp.example.com/mcp"},
		"relative":           {Verifier: v, Resource: "/mcp"},
		"fragment":           {Verifier: v, Resource: resource + "#x"},
		"query":              {Verifier: v, Resource: resource + "?x=1"},
		"user info":          {Verifier: v, Resource: "https://u:p@mcp.example.com/mcp"},
		"uppercase host":     {Verifier: v, Resource: "https://MCP.example.com/mcp"},
		"scope with space":   {Verifier: v, Resource: resource, Scopes: []string{"a b"}},
		"scope with quote":   {Verifier: v, Resource: resource, Scopes: []string{`a"b`}},
		"method scope bad":   {Verifier: v, Resource: resource, MethodScopes: map[string][]string{"tools/list": {""}}},
		"negative skew":      {Verifier: v, Resource: resource, Skew: -time.Second},
		"huge skew":          {Verifier: v, Resource: resource, Skew: 6 * time.Minute},
		"bad metadata URL":   {Verifier: v, Resource: resource, MetadataURL: "ftp://x"},
		"http metadata host": {Verifier: v, Resource: resource, MetadataURL: "http://mcp.example.com/x"},
	}
	for name, cfg := range cases {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: New did not panic", name)
				}
			}()
			New(cfg)
		}()
	}
	// Loopback http is fine for development.
	New(Config{Verifier: v, Resource: "http://127.0.0.1:8080/mcp"})
}

func TestQuoted(t *testing.T) {
	cases := map[string]string{
		`plain`:       `"plain"`,
		`a"b`:         `"a\"b"`,
		`a\b`:         `"a\\b"`,
		"a\r\nb":      `"a??b"`,
		"caf\xc3\xa9": `"caf??"`,
	}
	for in, want := range cases {
		if got := quoted(in); got != want {
			t.Errorf("quoted(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestPrincipalKey(t *testing.T) {
	a := &Principal{Issuer: "i", Subject: "a|b", ClientID: "c"}
	b := &Principal{Issuer: "i", Subject: "a", ClientID: "b|c"}
	if a.Key() == b.Key() {
		t.Errorf("keys collide: %q", a.Key())
	}
	if (*Principal)(nil).Key() != "" {
		t.Error("nil principal has a key")
	}
}

func TestContext(t *testing.T) {
	ctx := context.Background()
	if FromContext(ctx) != nil {
		t.Error("empty context has a principal")
	}
	if _, ok := WorkspaceFromContext(ctx); ok {
		t.Error("empty context has a workspace")
	}
	p := &Principal{Subject: "alice"}
	ctx = NewWorkspaceContext(NewContext(ctx, p), "w1")
	if FromContext(ctx) != p {
		t.Error("principal lost")
	}
	if id, ok := WorkspaceFromContext(ctx); !ok || id != "w1" {
		t.Errorf("workspace = %q %v", id, ok)
	}
}

func TestResolveWorkspace(t *testing.T) {
	resolver := WorkspaceFunc(func(ctx context.Context, p *Principal, requested string) (string, error) {
		member := map[string]map[string]bool{"bob": {"w1": true, "w2": true}, "carol": {"w1": true}}[p.Subject]
		switch {
		case requested == "" && len(member) == 1:
			for w := range member {
				return w, nil
			}
		case requested == "" && len(member) > 1:
			return "", ErrWorkspaceRequired
		case requested == "":
			return "", nil
		case requested == "broken":
			return "", errors.New("db down")
		case member[requested]:
			return requested, nil
		}
		return "", ErrWorkspaceForbidden
	})
	a := newTestAuth(func(c *Config) { c.Workspaces = resolver })
	cases := []struct {
		name    string
		subject string
		header  []string
		want    string
		status  int
		reason  string
	}{
		{"single member, no header", "carol", nil, "w1", 0, ""},
		{"multi member, no header", "bob", nil, "", 400, "workspace_required"},
		{"multi member, named", "bob", []string{"w2"}, "w2", 0, ""},
		{"not a member", "carol", []string{"w2"}, "", 403, "workspace_forbidden"},
		{"does not exist", "carol", []string{"nope"}, "", 403, "workspace_forbidden"},
		{"dot dot slash", "bob", []string{"../x"}, "", 400, "workspace_invalid"},
		{"percent encoded", "bob", []string{"%2e%2e"}, "", 400, "workspace_invalid"},
		{"dot dot", "bob", []string{".."}, "", 400, "workspace_invalid"},
		{"5 KB", "bob", []string{strings.Repeat("w", 5000)}, "", 400, "workspace_invalid"},
		{"at the limit", "bob", []string{strings.Repeat("w", maxWorkspaceBytes)}, "", 403, "workspace_forbidden"},
		{"empty", "bob", []string{""}, "", 400, "workspace_invalid"},
		{"duplicated", "bob", []string{"w1", "w1"}, "", 400, "workspace_invalid"},
		{"space", "bob", []string{"w 1"}, "", 400, "workspace_invalid"},
		{"resolver fails", "bob", []string{"broken"}, "", 503, "workspace_unavailable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
			for _, v := range c.header {
				r.Header.Add(WorkspaceHeader, v)
			}
			id, f := a.ResolveWorkspace(context.Background(), &Principal{Subject: c.subject}, r)
			if c.status == 0 {
				if f != nil || id != c.want {
					t.Fatalf("got %q %+v, want %q", id, f, c.want)
				}
				return
			}
			if f == nil || f.Status != c.status || f.Reason != c.reason {
				t.Fatalf("got %q %+v, want %d %s", id, f, c.status, c.reason)
			}
		})
	}
	// Without a resolver a workspace header is refused, its absence fine.
	plain := newTestAuth()
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
	if id, f := plain.ResolveWorkspace(context.Background(), nil, r); f != nil || id != "" {
		t.Errorf("no resolver, no header: %q %+v", id, f)
	}
	r.Header.Set(WorkspaceHeader, "w1")
	if _, f := plain.ResolveWorkspace(context.Background(), nil, r); f == nil || f.Status != 400 {
		t.Errorf("no resolver, header: %+v", f)
	}
}

func TestValidScope(t *testing.T) {
	for s, want := range map[string]bool{
		"mcp:read": true, "items:write": true, "a!#$%&'()*+,-./:;<=>?@[]^_`{|}~z": true,
		"": false, "a b": false, "a\tb": false, `a"b`: false, `a\b`: false, "données:read": false, "a\x7f": false, "a\x00": false,
	} {
		if got := ValidScope(s); got != want {
			t.Errorf("ValidScope(%q) = %v, want %v", s, got, want)
		}
	}
}

// leewayFunc is a verifier that checks times itself with its own leeway
// and says so, as mcp/oidc's verifiers do.
type leewayFunc struct {
	VerifierFunc
	leeway time.Duration
}

func (l leewayFunc) Leeway() time.Duration { return l.leeway }

// TestAuthenticate_VerifierLeeway: a verifier that reports its leeway
// sets the skew: a token it accepted within a leeway wider than the
// default 30 s is not refused here, one past it is; a Skew beside it
// must agree, and a leeway out of range is refused.
func TestAuthenticate_VerifierLeeway(t *testing.T) {
	var exp time.Time
	v := leewayFunc{VerifierFunc(func(context.Context, string, *http.Request) (*Principal, error) {
		return &Principal{Audience: []string{resource}, ExpiresAt: exp}, nil
	}), 2 * time.Minute}
	a := New(Config{Resource: resource, Verifier: v})
	try := func(ago time.Duration) bool {
		exp = time.Now().Add(-ago)
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
		r.Header.Set("Authorization", "Bearer x")
		_, f := a.Authenticate(r)
		return f == nil
	}
	if !try(90 * time.Second) {
		t.Error("expired 90 s ago, within the verifier's 2 min leeway: refused")
	}
	if try(150 * time.Second) {
		t.Error("expired 150 s ago, past the verifier's 2 min leeway: admitted")
	}
	New(Config{Resource: resource, Verifier: v, Skew: 2 * time.Minute})
	for name, cfg := range map[string]Config{
		"another skew":   {Resource: resource, Verifier: v, Skew: time.Minute},
		"leeway too big": {Resource: resource, Verifier: leewayFunc{v.VerifierFunc, 6 * time.Minute}},
		"leeway < 0":     {Resource: resource, Verifier: leewayFunc{v.VerifierFunc, -time.Second}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: New did not panic", name)
				}
			}()
			New(cfg)
		}()
	}
}

// quotingErr is a verifier's error type that quotes the token it refused.
type quotingErr struct{ token string }

func (e *quotingErr) Error() string { return "introspection refused " + e.token }

var errUpstream = errors.New("upstream down")

// TestAuthenticate_CauseChainRedacted pins that no link of a refusal's
// cause reachable with errors.Unwrap carries the token: a log handler
// that walks the chain and prints each link would otherwise print it.
// errors.Is and errors.As still reach what the verifier returned.
func TestAuthenticate_CauseChainRedacted(t *testing.T) {
	const token = "s3cr3t-bearer-token-value"
	a := newTestAuth(func(c *Config) {
		c.Verifier = VerifierFunc(func(ctx context.Context, tok string, r *http.Request) (*Principal, error) {
			return nil, fmt.Errorf("verify %s: %w (%w)", tok, errUpstream, &quotingErr{tok})
		})
	})
	r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
	r.Header.Set("Authorization", "Bearer "+token)
	_, f := a.Authenticate(r)
	if f == nil || f.Status != http.StatusServiceUnavailable {
		t.Fatalf("refusal: %+v", f)
	}
	var walked []string
	var walk func(error)
	walk = func(err error) {
		for ; err != nil; err = errors.Unwrap(err) {
			walked = append(walked, err.Error())
			if m, ok := err.(interface{ Unwrap() []error }); ok {
				for _, e := range m.Unwrap() {
					walk(e)
				}
				return
			}
		}
	}
	walk(f)
	if len(walked) < 2 {
		t.Fatalf("the chain stops at the refusal itself: %q", walked)
	}
	for _, text := range walked {
		if strings.Contains(text, token) {
			t.Errorf("a link of the cause chain quotes the token: %q", text)
		}
	}
	if !strings.Contains(f.Unwrap().Error(), "[token]") {
		t.Errorf("the cause lost its redacted text: %q", f.Unwrap())
	}
	if !errors.Is(f, errUpstream) {
		t.Error("errors.Is no longer reaches the verifier's error")
	}
	var q *quotingErr
	if !errors.As(f, &q) || q.token != token {
		t.Errorf("errors.As no longer reaches the verifier's error type: %v", q)
	}
}
