package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mcpdual/mcpdual/internal/panics"
)

// TokenVerifier checks an access token — its signature or introspection,
// its issuer, its type — and returns who it belongs to. The request is
// passed for sender-constrained tokens (DPoP, mTLS).
//
// Return an error wrapping ErrInvalidToken for a token that is not valid;
// the client is then asked to log in again (401). Any other error means the
// verifier could not decide (JWKS or introspection endpoint down) and is
// answered 503 with Retry-After, so that an outage does not send every
// client back to the login page at once. The error text is never sent to
// the client.
type TokenVerifier interface {
	VerifyAccessToken(ctx context.Context, token string, r *http.Request) (*Principal, error)
}

// VerifierFunc adapts a function to TokenVerifier.
type VerifierFunc func(ctx context.Context, token string, r *http.Request) (*Principal, error)

// VerifyAccessToken implements TokenVerifier.
func (f VerifierFunc) VerifyAccessToken(ctx context.Context, token string, r *http.Request) (*Principal, error) {
	return f(ctx, token, r)
}

var (
	// ErrInvalidToken is what a TokenVerifier wraps for a token that is
	// not valid: bad signature, unknown issuer, wrong type, revoked.
	ErrInvalidToken = errors.New("auth: invalid access token")
	// ErrWorkspaceRequired is what a WorkspaceResolver returns when the
	// principal belongs to several workspaces and none was named (400).
	ErrWorkspaceRequired = errors.New("auth: workspace required")
	// ErrWorkspaceForbidden is what a WorkspaceResolver returns for a
	// workspace that does not exist or that the principal is not a member
	// of. Both get the same answer (403), so ids cannot be enumerated.
	ErrWorkspaceForbidden = errors.New("auth: workspace forbidden")
)

// WorkspaceHeader names the header that selects a workspace.
const WorkspaceHeader = "X-Workspace-Id"

// WorkspaceResolver turns the X-Workspace-Id header into the workspace a
// request acts on. requested is "" when the header is absent; the resolver
// then returns the principal's only workspace, "" if workspaces do not
// apply to it, or ErrWorkspaceRequired. The header's syntax has been
// checked before the resolver runs.
type WorkspaceResolver interface {
	ResolveWorkspace(ctx context.Context, p *Principal, requested string) (string, error)
}

// WorkspaceFunc adapts a function to WorkspaceResolver.
type WorkspaceFunc func(ctx context.Context, p *Principal, requested string) (string, error)

// ResolveWorkspace implements WorkspaceResolver.
func (f WorkspaceFunc) ResolveWorkspace(ctx context.Context, p *Principal, requested string) (string, error) {
	return f(ctx, p, requested)
}

// Kinds of things a permission rule is asked about.
const (
	KindTool     = "tool"
	KindPrompt   = "prompt"
	KindResource = "resource"          // Name is the resource's URI
	KindTemplate = "resource_template" // Name is the URI template
)

// Access is what a permission rule decides on: may this principal, in this
// workspace, use the named tool, prompt or resource?
type Access struct {
	Principal *Principal
	Workspace string
	Kind      string // KindTool, KindPrompt, KindResource or KindTemplate
	Name      string // tool or prompt name, or resource URI
}

// Config configures an Authenticator.
type Config struct {
	// Verifier checks tokens. Required.
	Verifier TokenVerifier
	// Resource is this server's canonical resource URI, such as
	// "https://api.example.com/mcp": the audience tokens must carry and the
	// "resource" of the Protected Resource Metadata. Required; https, or
	// http on a loopback host.
	Resource string
	// MetadataURL is the Protected Resource Metadata URL put in every
	// challenge. The default is the path-inserted well-known URL of
	// Resource (see MetadataURL). It comes from configuration only, never
	// from a request's Host.
	MetadataURL string
	// Scopes is the baseline scope set, announced in the 401 challenge so a
	// client asks for least privilege at login. It is not enforced; use
	// MethodScopes and per-tool scopes for that.
	Scopes []string
	// MethodScopes lists the scopes a method requires, such as
	// {"tools/list": {"mcp:read"}}. A token lacking one gets the 403
	// insufficient_scope challenge.
	MethodScopes map[string][]string
	// ScopeSatisfied reports whether the granted scopes satisfy one
	// required scope, for hosts whose scopes form a hierarchy
	// ("projects:admin" implies "projects:delete"). The default is exact
	// membership.
	ScopeSatisfied func(granted []string, required string) bool
	// Skew is the clock skew allowed on expiry and not-before (default
	// 30 s, at most 5 minutes), for a verifier that leaves those checks
	// to the Authenticator. A verifier that makes them itself and says
	// with what leeway, through a method Leeway() time.Duration (mcp/oidc's
	// verifiers do), sets the skew instead: its leeway is then the only
	// one, so a token it accepted within it is not refused here with a
	// tighter bound. Leave Skew zero then; any other value than that
	// leeway is refused by New. A verifier wrapped in another type (a
	// VerifierFunc) no longer says, and Skew applies on top of its own.
	Skew time.Duration
	// VerifierChecksAudience turns off the audience check this package
	// does, for verifiers that already check it exactly. Leave it false
	// unless you have read the verifier's code.
	VerifierChecksAudience bool
	// AcceptNoExpiry accepts a Principal whose ExpiresAt is zero: an
	// opaque API key that does not expire, which the verifier looks up
	// (and the host revokes) itself. Without it such a principal is
	// refused. A principal that has an expiry is still checked.
	AcceptNoExpiry bool
	// AcceptNoAudience accepts a Principal whose Audience is empty: a key
	// the host issued for this server alone. Without it such a principal
	// is refused. A principal that names audiences must still name
	// Resource.
	AcceptNoAudience bool
	// Workspaces resolves X-Workspace-Id; nil means requests name no
	// workspace (the header is then refused).
	Workspaces WorkspaceResolver
	// Permit decides person-level access to one tool, prompt or resource.
	// Lists show only what it permits, and using something it does not
	// permit is answered exactly like using something that does not exist.
	// nil permits everything the token's scopes allow.
	Permit func(ctx context.Context, a Access) bool
	// RateByClient keys rate budgets and concurrency slot shares by
	// issuer, subject and client id (Principal.Key) instead of by issuer
	// and subject (Principal.RateKey): each OAuth client of a user then
	// has a budget of its own. Choose it only where clients are
	// registered by hand; with dynamic registration a user multiplies
	// the budget by registering clients.
	RateByClient bool
}

// maxSkew bounds the clock skew on expiry and not-before.
const maxSkew = 5 * time.Minute

// leewayVerifier is a TokenVerifier that checks expiry and not-before
// itself and reports the leeway it allows (see Config.Skew).
type leewayVerifier interface {
	Leeway() time.Duration
}

// Authenticator enforces a Config. Create it with New; it is safe for
// concurrent use.
type Authenticator struct {
	cfg       Config
	challenge string // `resource_metadata="…"` plus `, scope="…"` when there is a baseline
	rm        string // `resource_metadata="…"`
}

// New validates cfg and returns its Authenticator. Like http.ServeMux.Handle
// it panics on misuse: no verifier, a Resource that is not an absolute
// https URL (http is allowed on loopback), a scope with characters RFC 6750
// does not allow, a skew outside 0–5 minutes, or a Skew that differs from
// the verifier's own leeway (see Config.Skew).
func New(cfg Config) *Authenticator {
	if cfg.Verifier == nil {
		panic("auth: Config.Verifier is required")
	}
	if err := checkResource(cfg.Resource); err != nil {
		panic("auth: Config.Resource: " + err.Error())
	}
	if cfg.MetadataURL == "" {
		cfg.MetadataURL = MetadataURL(cfg.Resource)
	} else if err := checkResource(cfg.MetadataURL); err != nil {
		panic("auth: Config.MetadataURL: " + err.Error())
	}
	if cfg.Skew < 0 || cfg.Skew > maxSkew {
		panic("auth: Config.Skew must be between 0 and 5 minutes")
	}
	if lv, ok := cfg.Verifier.(leewayVerifier); ok {
		l := lv.Leeway()
		switch {
		case l < 0 || l > maxSkew:
			panic(fmt.Sprintf("auth: the verifier's Leeway %v is not between 0 and 5 minutes", l))
		case cfg.Skew != 0 && cfg.Skew != l:
			panic(fmt.Sprintf("auth: Config.Skew %v differs from the leeway %v the verifier checks expiry with; set the verifier's leeway and leave Skew zero", cfg.Skew, l))
		}
		cfg.Skew = l
	} else if cfg.Skew == 0 {
		cfg.Skew = 30 * time.Second
	}
	for _, s := range cfg.Scopes {
		mustScope(s)
	}
	ms := make(map[string][]string, len(cfg.MethodScopes))
	for m, scopes := range cfg.MethodScopes {
		for _, s := range scopes {
			mustScope(s)
		}
		ms[m] = slices.Clone(scopes)
	}
	cfg.MethodScopes = ms
	cfg.Scopes = slices.Clone(cfg.Scopes)
	if cfg.ScopeSatisfied == nil {
		cfg.ScopeSatisfied = func(granted []string, required string) bool { return slices.Contains(granted, required) }
	}
	a := &Authenticator{cfg: cfg}
	a.rm = `resource_metadata=` + quoted(cfg.MetadataURL)
	a.challenge = a.rm
	if len(cfg.Scopes) > 0 {
		a.challenge += `, scope=` + quoted(strings.Join(cfg.Scopes, " "))
	}
	return a
}

// RateKey returns the key p's rate budget and slot share are kept under:
// p.RateKey(), or p.Key() with Config.RateByClient. A nil Authenticator
// answers p.RateKey(). A host's own routes that meter the same principal
// use it, to spend from the endpoint's budget.
func (a *Authenticator) RateKey(p *Principal) string {
	if a != nil && a.cfg.RateByClient {
		return p.Key()
	}
	return p.RateKey()
}

// Resource returns the canonical resource URI.
func (a *Authenticator) Resource() string { return a.cfg.Resource }

// Expires is when a token with p's expiry stops being accepted: its
// ExpiresAt plus the clock skew Authenticate allows (zero for none). A
// stream opened with the token ends then, not at ExpiresAt, which a token
// accepted within the skew has already passed.
func (a *Authenticator) Expires(p *Principal) time.Time {
	if p == nil || p.ExpiresAt.IsZero() {
		return time.Time{}
	}
	return p.ExpiresAt.Add(a.cfg.Skew)
}

// MethodScopes returns the scopes method requires (nil when none).
func (a *Authenticator) MethodScopes(method string) []string { return a.cfg.MethodScopes[method] }

// HasWorkspaces reports whether a WorkspaceResolver is configured.
func (a *Authenticator) HasWorkspaces() bool { return a.cfg.Workspaces != nil }

// Filters reports whether what a caller may see can differ between callers
// (a Permit rule is set). Per-tool scopes also make lists caller-dependent;
// the endpoint accounts for those itself.
func (a *Authenticator) Filters() bool { return a.cfg.Permit != nil }

// Permits applies the Permit rule (true when there is none).
func (a *Authenticator) Permits(ctx context.Context, acc Access) bool {
	return a.cfg.Permit == nil || a.cfg.Permit(ctx, acc)
}

// Satisfies reports whether p's grant satisfies every scope of required,
// without the allocation Missing makes to list what is missing: a
// filtered tools/list asks it once per tool it walks.
func (a *Authenticator) Satisfies(p *Principal, required []string) bool {
	for _, r := range required {
		if p == nil || !a.cfg.ScopeSatisfied(p.Scopes, r) {
			return false
		}
	}
	return true
}

// Missing returns the scopes of required that p's grant does not satisfy,
// nil when it satisfies all of them.
func (a *Authenticator) Missing(p *Principal, required []string) []string {
	var missing []string
	for _, r := range required {
		if p == nil || !a.cfg.ScopeSatisfied(p.Scopes, r) {
			missing = append(missing, r)
		}
	}
	return missing
}

// Failure is a refused request: what the endpoint answers instead of
// serving it. Message and Description are fixed texts of this package,
// never the verifier's or the client's.
type Failure struct {
	Status int    // 400, 401, 403, 500 or 503
	Reason string // stable key for data.reason, such as "invalid_token"
	// Message is the JSON-RPC error message.
	Message string
	// Challenge is the WWW-Authenticate value ("" when none is due).
	Challenge string
	// RetryAfter is set on 503.
	RetryAfter time.Duration
	// Required lists the scopes an insufficient_scope refusal needs.
	Required []string
	// cause is logged by the endpoint, never sent.
	cause error
}

func (f *Failure) Error() string { return "auth: " + f.Reason }

// Unwrap returns the underlying cause (for logs).
func (f *Failure) Unwrap() error { return f.cause }

// InsufficientScope returns the 403 refusal for an operation that needs
// required: one challenge listing every scope the operation needs, each
// once (in the order first named), however many of the lists it was
// gathered from name it.
func (a *Authenticator) InsufficientScope(required []string) *Failure {
	once := make([]string, 0, len(required))
	for _, s := range required {
		if !slices.Contains(once, s) {
			once = append(once, s)
		}
	}
	required = once
	list := strings.Join(required, " ")
	return &Failure{
		Status:  http.StatusForbidden,
		Reason:  "insufficient_scope",
		Message: "Insufficient scope",
		Challenge: `Bearer error="insufficient_scope", scope=` + quoted(list) + ", " + a.rm +
			`, error_description=` + quoted("The operation requires scope "+list),
		Required: required,
	}
}

func (a *Authenticator) unauthorized() *Failure {
	return &Failure{Status: http.StatusUnauthorized, Reason: "unauthorized", Message: "Authentication required", Challenge: "Bearer " + a.challenge}
}

func (a *Authenticator) invalidToken(description string) *Failure {
	return &Failure{
		Status: http.StatusUnauthorized, Reason: "invalid_token", Message: "Invalid access token",
		Challenge: `Bearer error="invalid_token", error_description=` + quoted(description) + ", " + a.challenge,
	}
}

func (a *Authenticator) invalidRequest(description string) *Failure {
	return &Failure{
		Status: http.StatusBadRequest, Reason: "invalid_request", Message: "Malformed authorization",
		Challenge: `Bearer error="invalid_request", error_description=` + quoted(description) + ", " + a.rm,
	}
}

// DefaultRetryAfter is what a 503 asks clients to wait when the verifier
// or resolver does not say.
const DefaultRetryAfter = 5 * time.Second

func unavailable(reason, message string, cause error) *Failure {
	ra := DefaultRetryAfter
	var hint interface{ RetryAfter() time.Duration }
	if errors.As(cause, &hint) && hint.RetryAfter() > 0 {
		ra = min(hint.RetryAfter(), 10*time.Minute)
	}
	return &Failure{Status: http.StatusServiceUnavailable, Reason: reason, Message: message, RetryAfter: ra, cause: cause}
}

// redacted is a verifier's error with the token cut out of its text, so
// that logging the cause cannot leak the credential even when the
// verifier quoted it.
//
// It answers errors.Is and errors.As for the errors it holds but has no
// Unwrap: a log handler that walks a chain with errors.Unwrap and prints
// every link's text would otherwise reach the verifier's own error, token
// and all. A caller that asks for the verifier's error type by errors.As
// gets it as the verifier made it, which is what it asked for.
type redacted struct {
	err   error
	token string
}

func (r redacted) Error() string { return strings.ReplaceAll(r.err.Error(), r.token, "[token]") }

func (r redacted) Is(target error) bool { return errors.Is(r.err, target) }

func (r redacted) As(target any) bool { return errors.As(r.err, target) }

// maxTokenBytes bounds a bearer token; no legitimate access token comes
// near it.
const maxTokenBytes = 16 << 10

// Authenticate checks the request's credential and returns its principal.
// It reads only headers and the URL, so it runs before the body is read.
//
//   - no Authorization header, or another scheme: 401 with the baseline
//     challenge and no error code (RFC 6750 §3.1);
//   - two Authorization headers, a token in the query string, "Bearer"
//     without exactly one space and one token (a tab for the space, say):
//     400 invalid_request;
//   - a token the verifier refuses, one without an expiry, expired, not
//     yet valid, or not issued for Resource: 401 invalid_token;
//   - the verifier cannot decide: 503 with Retry-After;
//   - the verifier panics: 500.
func (a *Authenticator) Authenticate(r *http.Request) (p *Principal, f *Failure) {
	token, f := a.bearer(r)
	if f != nil {
		return nil, f
	}
	defer func() {
		if v := recover(); v != nil {
			// Described, not quoted: the value is whatever the verifier
			// had at hand, the token's claims as likely as the token.
			cause := redacted{fmt.Errorf("auth: token verifier panicked: %v", panics.Describe(v)), token}
			p, f = nil, &Failure{Status: http.StatusInternalServerError, Reason: "internal", Message: "Internal error", cause: cause}
		}
	}()
	p, err := a.cfg.Verifier.VerifyAccessToken(r.Context(), token, r)
	switch {
	case errors.Is(err, ErrInvalidToken):
		return nil, a.invalidToken("The access token is invalid")
	case err != nil:
		return nil, unavailable("auth_unavailable", "Authorization temporarily unavailable", redacted{err, token})
	case p == nil:
		return nil, a.invalidToken("The access token is invalid")
	}
	now := time.Now()
	switch {
	case p.ExpiresAt.IsZero() && !a.cfg.AcceptNoExpiry:
		return nil, a.invalidToken("The access token has no expiry")
	case !p.ExpiresAt.IsZero() && now.After(p.ExpiresAt.Add(a.cfg.Skew)):
		return nil, a.invalidToken("The access token expired")
	case !p.NotBefore.IsZero() && now.Add(a.cfg.Skew).Before(p.NotBefore):
		return nil, a.invalidToken("The access token is not yet valid")
	case a.cfg.VerifierChecksAudience, len(p.Audience) == 0 && a.cfg.AcceptNoAudience:
	case !slices.Contains(p.Audience, a.cfg.Resource):
		return nil, a.invalidToken("The access token was not issued for this resource")
	}
	return p, nil
}

// bearer extracts the one bearer token of r.
func (a *Authenticator) bearer(r *http.Request) (string, *Failure) {
	if r.URL != nil && queryHasToken(r.URL.RawQuery) {
		return "", a.invalidRequest("Send the access token in the Authorization header, never in the URL")
	}
	vals := r.Header.Values("Authorization")
	switch len(vals) {
	case 0:
		return "", a.unauthorized()
	case 1:
	default:
		return "", a.invalidRequest("Send exactly one Authorization header")
	}
	// The scheme is the token the value starts with (RFC 9110 §11.1), cut
	// wherever a character no token holds begins: "Bearer<TAB>t" names
	// Bearer, credentials malformed (one SP must follow the scheme, §11.4),
	// and is answered invalid_request as "Bearer  t" is. Cut at the first
	// SP alone, it read as a scheme of its own and got the challenge for a
	// request that sent no credentials, which tells the client its token
	// was never seen.
	v := vals[0]
	n := 0
	for n < len(v) && isTchar(v[n]) {
		n++
	}
	if !strings.EqualFold(v[:n], "Bearer") {
		// Another scheme (Basic, ...) is not a bearer credential at all.
		return "", a.unauthorized()
	}
	token, found := strings.CutPrefix(v[n:], " ")
	if !found || !isToken68(token) {
		return "", a.invalidRequest("Send one bearer token: Authorization: Bearer <token>")
	}
	return token, nil
}

// isTchar reports whether c may appear in an RFC 9110 token, such as an
// authentication scheme's name.
func isTchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// queryHasToken reports whether a raw query names access_token, however it
// is written: pairs split on "&" and on ";" (which url.ParseQuery refuses,
// dropping the pair, so a token behind one would pass unseen), the name
// percent-decoded when it decodes and compared in any case.
func queryHasToken(raw string) bool {
	for _, pair := range strings.FieldsFunc(raw, func(c rune) bool { return c == '&' || c == ';' }) {
		name, _, _ := strings.Cut(pair, "=")
		if decoded, err := url.QueryUnescape(name); err == nil {
			name = decoded
		}
		if strings.EqualFold(strings.TrimSpace(name), "access_token") {
			return true
		}
	}
	return false
}

// isToken68 reports whether s is an RFC 7235 token68 of sane length.
func isToken68(s string) bool {
	if s == "" || len(s) > maxTokenBytes {
		return false
	}
	end := len(s)
	for end > 0 && s[end-1] == '=' {
		end--
	}
	if end == 0 {
		return false
	}
	for i := 0; i < end; i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/':
		default:
			return false
		}
	}
	return true
}

// maxWorkspaceBytes bounds an X-Workspace-Id value.
const maxWorkspaceBytes = 128

// ResolveWorkspace checks the X-Workspace-Id header of r and resolves it
// for p. With no resolver configured the header is refused. Malformed or
// duplicated: 400 workspace_invalid. Missing when required: 400
// workspace_required. Unknown or not a member: 403 workspace_forbidden.
// A resolver that fails otherwise: 503.
func (a *Authenticator) ResolveWorkspace(ctx context.Context, p *Principal, r *http.Request) (string, *Failure) {
	vals := r.Header.Values(WorkspaceHeader)
	if len(vals) > 1 || (len(vals) == 1 && !validWorkspaceID(vals[0])) {
		return "", &Failure{Status: http.StatusBadRequest, Reason: "workspace_invalid", Message: "Invalid " + WorkspaceHeader + " header"}
	}
	requested := ""
	if len(vals) == 1 {
		requested = vals[0]
	}
	if a.cfg.Workspaces == nil {
		if requested != "" {
			return "", &Failure{Status: http.StatusBadRequest, Reason: "workspace_invalid", Message: "Invalid " + WorkspaceHeader + " header"}
		}
		return "", nil
	}
	id, err := a.cfg.Workspaces.ResolveWorkspace(ctx, p, requested)
	switch {
	case err == nil:
		return id, nil
	case errors.Is(err, ErrWorkspaceRequired):
		return "", &Failure{Status: http.StatusBadRequest, Reason: "workspace_required", Message: "Missing " + WorkspaceHeader + " header"}
	case errors.Is(err, ErrWorkspaceForbidden):
		return "", &Failure{Status: http.StatusForbidden, Reason: "workspace_forbidden", Message: "Workspace access denied"}
	default:
		return "", unavailable("workspace_unavailable", "Workspace lookup temporarily unavailable", err)
	}
}

// validWorkspaceID admits 1 to 128 characters from A-Z a-z 0-9 _ - : .
// except the path segments "." and "..", so an id can never steer a path.
func validWorkspaceID(s string) bool {
	if s == "" || len(s) > maxWorkspaceBytes || s == "." || s == ".." {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '-' || c == '_' || c == ':' || c == '.':
		default:
			return false
		}
	}
	return true
}

func checkResource(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return err
	case u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname())):
		return errors.New("must be an https URL (http only on a loopback host)")
	case u.Host == "" || u.User != nil || u.Fragment != "" || u.RawQuery != "":
		return errors.New("must be an absolute URL without user info, query or fragment")
	case u.Scheme != strings.ToLower(u.Scheme) || u.Host != strings.ToLower(u.Host):
		return errors.New("scheme and host must be lowercase")
	}
	return nil
}

func isLoopback(host string) bool {
	return host == "localhost" || host == "127.0.0.1" || host == "::1"
}

// ValidScope reports whether s is a scope RFC 6750 §3 allows: one or more
// printable ASCII characters, no space, double quote or backslash. Only
// such a scope can be named in a challenge as it is.
func ValidScope(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// mustScope panics on a scope RFC 6750 §3 does not allow.
func mustScope(s string) {
	if !ValidScope(s) {
		panic(fmt.Sprintf("auth: scope %q is empty or has a character RFC 6750 does not allow", s))
	}
}

// quoted renders an auth-param quoted-string: backslash and double quote
// escaped, anything outside printable ASCII replaced, so no value can break
// the header.
func quoted(s string) string {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20 || c > 0x7e:
			b = append(b, '?')
		default:
			b = append(b, c)
		}
	}
	return string(append(b, '"'))
}
