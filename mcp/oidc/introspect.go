package oidc

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/mcpdual/mcpdual/mcp/auth"
)

// Client authentication methods at the introspection endpoint (RFC 7591
// names).
const (
	ClientSecretBasic = "client_secret_basic"
	ClientSecretPost  = "client_secret_post"
)

// IntrospectionConfig configures an IntrospectionVerifier.
type IntrospectionConfig struct {
	// Issuer is the authorization server's issuer identifier. An answer
	// that names an issuer must name this one; the introspection endpoint
	// is discovered from it when Endpoint is "". Required.
	Issuer string
	// Endpoint is the RFC 7662 introspection endpoint; "" reads
	// introspection_endpoint from the issuer's metadata.
	Endpoint string
	// Audience is what the answer's aud must name: this server's
	// canonical resource URI (the Authenticator's Config.Resource), or
	// what the issuer uses for it (see JWTConfig.Audience). Required.
	Audience string
	// ClientID and ClientSecret authenticate this server at the endpoint.
	// Required.
	ClientID     string
	ClientSecret string
	// AuthMethod is ClientSecretBasic (the default) or ClientSecretPost.
	AuthMethod string
	// CacheTTL bounds how long an answer is reused, and so how long a
	// token revoked at the issuer may still be accepted (default 1
	// minute). An active answer is never kept past the token's exp.
	CacheTTL time.Duration
	// CacheSize bounds the number of answers kept (default 10000).
	CacheSize int
	// Leeway is the clock skew allowed on exp, nbf and iat, at most 5
	// minutes; zero means the default, one minute, and a negative value
	// none. An auth.Authenticator using this verifier takes it as its
	// Config.Skew (see JWTConfig.Leeway). An answer is still never cached
	// past exp: once the token has expired, the issuer is asked again and
	// decides.
	Leeway time.Duration
	// RetryAfter is how long the issuer is left alone after a call got
	// no answer (discovery or introspection), and the Retry-After of the
	// 503s meanwhile (default 2 seconds).
	RetryAfter time.Duration
	// MapClaims adds host-specific claims to the principal; nil adds
	// nothing.
	MapClaims ClaimMapper
	// HTTPClient calls the issuer (default: a client with a 10-second
	// timeout; a client without Timeout gets that one too). The verifier
	// uses a copy whose redirect policy is RedirectOrigins'.
	HTTPClient *http.Client
	// RedirectOrigins lists the origins a redirect from the issuer may
	// lead to, for discovery and introspection (see
	// JWTConfig.RedirectOrigins). Without it an introspection request,
	// which carries ClientSecret, never follows a redirect to another
	// host.
	RedirectOrigins []string
}

// IntrospectionVerifier checks opaque access tokens by asking the issuer
// (RFC 7662). Answers are cached by a hash of the token, and concurrent
// requests carrying the same token share one call. It is an
// auth.TokenVerifier, safe for concurrent use.
type IntrospectionVerifier struct {
	cfg    IntrospectionConfig
	checks claimChecks
	disc   *discovery
	group  singleflight.Group

	mu    sync.Mutex
	cache map[[sha256.Size]byte]cached
	// failedAt and failure are the last call that got no answer: for
	// RetryAfter after it, tokens not in the cache are answered 503
	// without calling, so an issuer in trouble is not asked once per
	// distinct token.
	failedAt time.Time
	failure  error
}

// cached is one answer: a principal, or the refusal of an inactive or
// invalid token, until expires.
type cached struct {
	claims  map[string]any // nil for a refusal
	err     error
	expires time.Time
}

// NewIntrospectionVerifier validates cfg and returns its verifier, or an
// error naming the field at fault: no Issuer, an Issuer or Endpoint that
// is not an absolute https URL (http on a loopback host) without user info, query
// or fragment, no Audience, no ClientID or ClientSecret, another
// AuthMethod, a negative duration or size (Leeway aside), a Leeway over 5
// minutes, or a RedirectOrigins entry that is not an origin. It does not
// contact the issuer.
func NewIntrospectionVerifier(cfg IntrospectionConfig) (*IntrospectionVerifier, error) {
	if err := checkIssuer("IntrospectionConfig.Issuer", cfg.Issuer); err != nil {
		return nil, err
	}
	if cfg.Endpoint != "" {
		if err := checkIssuer("IntrospectionConfig.Endpoint", cfg.Endpoint); err != nil {
			return nil, err
		}
	}
	switch {
	case cfg.Audience == "":
		return nil, errors.New("oidc: IntrospectionConfig.Audience is required")
	case cfg.ClientID == "" || cfg.ClientSecret == "":
		return nil, errors.New("oidc: IntrospectionConfig.ClientID and ClientSecret are required")
	case cfg.AuthMethod != "" && cfg.AuthMethod != ClientSecretBasic && cfg.AuthMethod != ClientSecretPost:
		return nil, fmt.Errorf("oidc: IntrospectionConfig.AuthMethod %q is neither %s nor %s", cfg.AuthMethod, ClientSecretBasic, ClientSecretPost)
	case cfg.CacheTTL < 0 || cfg.CacheSize < 0 || cfg.RetryAfter < 0:
		return nil, errors.New("oidc: IntrospectionConfig durations and sizes must not be negative (but Leeway, where negative means none)")
	case cfg.Leeway > maxLeeway:
		return nil, errors.New("oidc: IntrospectionConfig.Leeway must be at most 5 minutes")
	}
	cfg.AuthMethod = cmp.Or(cfg.AuthMethod, ClientSecretBasic)
	cfg.CacheTTL = cmp.Or(cfg.CacheTTL, time.Minute)
	cfg.CacheSize = cmp.Or(cfg.CacheSize, 10000)
	cfg.Leeway = leewayOf(cfg.Leeway)
	cfg.RetryAfter = cmp.Or(cfg.RetryAfter, defaultRetryAfter)
	allowed, err := redirectOrigins("IntrospectionConfig.RedirectOrigins", cfg.RedirectOrigins)
	if err != nil {
		return nil, err
	}
	cfg.HTTPClient = httpClient(cfg.HTTPClient, allowed)
	return &IntrospectionVerifier{
		cfg:    cfg,
		checks: claimChecks{issuer: cfg.Issuer, audience: cfg.Audience, leeway: cfg.Leeway, issuerOptional: true},
		disc:   &discovery{issuer: cfg.Issuer, client: cfg.HTTPClient, retryAfter: cfg.RetryAfter, maxAge: defaultMetadataAge},
		cache:  make(map[[sha256.Size]byte]cached),
	}, nil
}

// Metadata returns the Protected Resource Metadata of resource naming
// this verifier's issuer as the authorization server (see
// JWTVerifier.Metadata).
func (v *IntrospectionVerifier) Metadata(resource string) auth.ResourceMetadata {
	return metadataOf(resource, v.cfg.Issuer)
}

// Leeway is the clock skew the verifier allows on exp, nbf and iat (see
// JWTVerifier.Leeway).
func (v *IntrospectionVerifier) Leeway() time.Duration { return v.cfg.Leeway }

// VerifyAccessToken implements auth.TokenVerifier.
func (v *IntrospectionVerifier) VerifyAccessToken(ctx context.Context, token string, _ *http.Request) (*auth.Principal, error) {
	key := sha256.Sum256([]byte(token))
	now := time.Now()
	v.mu.Lock()
	c, ok := v.cache[key]
	v.mu.Unlock()
	if !ok || !now.Before(c.expires) {
		v.mu.Lock()
		failedAt, failure := v.failedAt, v.failure
		v.mu.Unlock()
		if wait := v.cfg.RetryAfter - now.Sub(failedAt); failure != nil && wait > 0 {
			return nil, stillUnavailable(wait, failure)
		}
		res, err := shared(ctx, &v.group, string(key[:]), func(ctx context.Context) (any, error) {
			// A flight for this token may have ended between the look-up
			// above and this one starting: its answer is in the cache.
			v.mu.Lock()
			c, ok := v.cache[key]
			v.mu.Unlock()
			if ok && time.Now().Before(c.expires) {
				return c, nil
			}
			c, outage, err := v.introspect(ctx, token)
			if err != nil && outage {
				// Not cached: the issuer is asked again after RetryAfter,
				// for every token, since its answer would be the same.
				v.mu.Lock()
				v.failedAt, v.failure = time.Now(), err
				v.mu.Unlock()
			}
			if err != nil {
				return nil, err
			}
			v.store(key, c)
			return c, nil
		})
		if err != nil {
			return nil, unavailableAfter(v.cfg.RetryAfter, err)
		}
		c = res.(cached)
	}
	if c.err != nil {
		return nil, c.err
	}
	// Each request gets its own principal over a copy of the claims, so a
	// mapper or handler changing one cannot change the cached answer.
	claims := make(map[string]any, len(c.claims))
	for k, val := range c.claims {
		claims[k] = val
	}
	p, err := v.checks.principal(claims, now)
	if err != nil {
		return nil, err
	}
	return mapClaims(ctx, v.cfg.MapClaims, claims, p)
}

// introspect asks the endpoint about token. The result is a cached
// answer; an error means no answer (503). outage says the error is the
// same for every token, so the verifier stops asking for RetryAfter: the
// issuer unreachable or failing (a network error, a 5xx), its discovery
// failing, or refusing this server (401, 403: our credentials) or the
// endpoint's address (404). Any other failure (400 for this token, 429,
// an answer that cannot be read) fails this token's request only: one
// caller's odd token must not stop every other caller's.
func (v *IntrospectionVerifier) introspect(ctx context.Context, token string) (_ cached, outage bool, _ error) {
	endpoint := v.cfg.Endpoint
	var meta *metadata // the metadata endpoint came from, if discovered
	if endpoint == "" {
		var err error
		if endpoint, meta, err = v.disc.address(ctx, "introspection_endpoint", func(m *metadata) string { return m.IntrospectionEndpoint }); err != nil {
			return cached{}, true, unavailableAfter(v.cfg.RetryAfter, err)
		}
	}
	form := url.Values{"token": {token}, "token_type_hint": {"access_token"}}
	if v.cfg.AuthMethod == ClientSecretPost {
		form.Set("client_id", v.cfg.ClientID)
		form.Set("client_secret", v.cfg.ClientSecret)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return cached{}, true, unavailableAfter(v.cfg.RetryAfter, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if v.cfg.AuthMethod == ClientSecretBasic {
		// RFC 6749 §2.3.1: both parts form-encoded before Basic encoding.
		req.SetBasicAuth(url.QueryEscape(v.cfg.ClientID), url.QueryEscape(v.cfg.ClientSecret))
	}
	var answer rawClaims
	if status, err := doJSON(v.cfg.HTTPClient, req, &answer); err != nil {
		// Our own credentials refused (401) is a configuration problem of
		// this server, not the client's token: 503 like an outage.
		down := status == 0 || status >= 500 || status == http.StatusUnauthorized ||
			status == http.StatusForbidden || status == http.StatusNotFound
		if down && meta != nil {
			// The issuer may have moved its endpoint: discover it again
			// when it is next tried.
			v.disc.forget(meta)
		}
		return cached{}, down, unavailableAfter(v.cfg.RetryAfter, redact(err, token))
	}
	claims, err := decodeClaims(answer)
	if err != nil {
		// The issuer's answer, not the token, is at fault: 503, never the
		// 401 that would send every client to log in again.
		return cached{}, false, unavailableAfter(v.cfg.RetryAfter, fmt.Errorf("oidc: the introspection answer: %v", err))
	}
	now := time.Now()
	refusal := func(err error) (cached, bool, error) {
		return cached{err: err, expires: now.Add(v.cfg.CacheTTL)}, false, nil
	}
	if active, _ := claims["active"].(bool); !active {
		return refusal(invalid("the issuer says the token is not active"))
	}
	delete(claims, "active")
	// Checked now too, so a refusal is cached and the expiry is known.
	p, err := v.checks.principal(claims, now)
	if err != nil {
		return refusal(err)
	}
	return cached{claims: claims, expires: minTime(now.Add(v.cfg.CacheTTL), p.ExpiresAt)}, false, nil
}

// rawClaims keeps the answer's bytes for decodeClaims.
type rawClaims []byte

func (r *rawClaims) UnmarshalJSON(b []byte) error {
	*r = append((*r)[:0], b...)
	return nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// store keeps c, making room when the cache is full: expired entries go
// first, then arbitrary ones (map order), so a flood of distinct tokens
// cannot grow the cache past CacheSize.
func (v *IntrospectionVerifier) store(key [sha256.Size]byte, c cached) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.failure = nil
	if _, ok := v.cache[key]; !ok && len(v.cache) >= v.cfg.CacheSize {
		now := time.Now()
		for k, e := range v.cache {
			if !now.Before(e.expires) {
				delete(v.cache, k)
			}
		}
		// Down to nine tenths, so the sweep runs once per many inserts.
		for k := range v.cache {
			if len(v.cache) < max(v.cfg.CacheSize*9/10, 1) {
				break
			}
			delete(v.cache, k)
		}
	}
	v.cache[key] = c
}

// redact cuts the token out of an error's text.
func redact(err error, token string) error {
	if !strings.Contains(err.Error(), token) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), token, "[token]"))
}
