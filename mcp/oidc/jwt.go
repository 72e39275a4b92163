package oidc

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"golang.org/x/sync/singleflight"

	"github.com/mcpdual/mcpdual/mcp/auth"
)

// JWTConfig configures a JWTVerifier.
type JWTConfig struct {
	// Issuer is the authorization server's issuer identifier, such as
	// "https://login.example.com/realms/acme": tokens must carry it as iss
	// byte for byte, and its metadata is discovered from it. Required.
	Issuer string
	// Audience is what a token's aud must name: this server's canonical
	// resource URI, the Authenticator's Config.Resource, for an issuer
	// that follows RFC 8707 or lets you set the audience (Keycloak's
	// audience mapper, Auth0's API identifier, Okta's authorization server
	// audience). Entra ID v2 tokens name the API's application ID
	// instead: set Audience to it and the Authenticator's
	// VerifierChecksAudience. Required.
	Audience string
	// JWKSURL is where the signing keys are; "" discovers it from the
	// issuer's metadata ({Issuer}/.well-known/openid-configuration, then
	// RFC 8414's oauth-authorization-server).
	JWKSURL string
	// Algorithms lists the signature algorithms accepted. The default is
	// every asymmetric one: RS256/384/512, PS256/384/512, ES256/384/512
	// and EdDSA. "none" and the HMAC algorithms are refused, since a
	// verifier holding only public keys would check an HMAC against a
	// public key anyone can read.
	Algorithms []string
	// RequireJWTAccessTokenType requires the header typ "at+jwt" (or
	// "application/at+jwt") of RFC 9068, which keeps ID tokens and other
	// JWTs of the same issuer from being used as access tokens. Turn it on
	// when the issuer sets it (Keycloak, Okta and Auth0 do not by default).
	RequireJWTAccessTokenType bool
	// Leeway is the clock skew allowed on exp, nbf and iat, at most 5
	// minutes. Zero means the default, go-jose's jwt.DefaultLeeway (one
	// minute); a negative value means none: a token is refused the second
	// it expires. It is the only one a token gets: an auth.Authenticator
	// using this verifier takes it as its Config.Skew (leave that zero).
	Leeway time.Duration
	// RefreshCooldown is the least time between two fetches of the keys
	// caused by tokens naming an unknown kid (default 1 minute). Inside
	// it, such a token is answered 503 with Retry-After rather than 401:
	// the kid may be a key the issuer just started using.
	RefreshCooldown time.Duration
	// MaxKeyAge is how long fetched keys are used before the next request
	// fetches them again (default 24 hours). That fetch runs in the
	// background: the old keys stay in use while it runs, and when it
	// fails.
	MaxKeyAge time.Duration
	// RetryAfter is how long the issuer is left alone after a failed
	// discovery or key fetch, and the Retry-After of the 503s meanwhile
	// (default 2 seconds).
	RetryAfter time.Duration
	// MapClaims adds host-specific claims (workspaces, roles) to the
	// principal; nil adds nothing.
	MapClaims ClaimMapper
	// HTTPClient fetches metadata and keys (default: a client with a
	// 10-second timeout; a client without Timeout gets that one too). The verifier uses a copy whose redirect policy
	// is RedirectOrigins' (the client's own CheckRedirect runs after it).
	HTTPClient *http.Client
	// RedirectOrigins lists the origins ("https://cdn.example.com",
	// scheme, host and port only) a redirect from the issuer may lead to.
	// Without it a redirect is followed only within the origin of the URL
	// asked (same scheme, host and port; another port of the same host is
	// another origin), and one elsewhere fails the fetch (503): discovery
	// and keys never move to another host on a response's say-so. A
	// jwks_uri on another host is not a redirect and needs no entry.
	RedirectOrigins []string
}

// JWTVerifier checks JWT access tokens against the issuer's keys. It is
// an auth.TokenVerifier, safe for concurrent use.
type JWTVerifier struct {
	cfg    JWTConfig
	algs   []jose.SignatureAlgorithm
	checks claimChecks
	disc   *discovery

	group singleflight.Group
	mu    sync.Mutex
	keys  map[string][]jose.JSONWebKey // by kid; "" holds keys without one
	// fetchedAt is when keys were fetched; kidRefreshAt when an unknown
	// kid last caused a fetch (the cooldown runs from it).
	fetchedAt    time.Time
	kidRefreshAt time.Time
	// failedAt and failure are the last failed fetch of the keys.
	failedAt time.Time
	failure  error
	// refreshing is set while a fetch of keys past MaxKeyAge runs in
	// the background (refreshInBackground).
	refreshing bool
}

var asymmetric = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA,
}

// NewJWTVerifier validates cfg and returns its verifier, or an error
// naming the field at fault: no Issuer, an Issuer or JWKSURL that is not
// an absolute https URL (http on a loopback host) without user info, query
// or fragment, no Audience, an algorithm that is not asymmetric, a
// negative duration (Leeway aside), a Leeway over 5 minutes, or a
// RedirectOrigins entry that is not an origin. It does not
// contact the issuer and so succeeds while the issuer is down; it starts a
// first discovery and key fetch in the background, so that the first
// request usually finds the keys ready (an already cancelled ctx skips
// it). Requests arriving meanwhile share that fetch, so ctx ending does
// not stop it: HTTPClient's timeout bounds it. A failure there is not an
// error: requests are answered 503 until the issuer answers.
func NewJWTVerifier(ctx context.Context, cfg JWTConfig) (*JWTVerifier, error) {
	if err := checkIssuer("JWTConfig.Issuer", cfg.Issuer); err != nil {
		return nil, err
	}
	if cfg.Audience == "" {
		return nil, errors.New("oidc: JWTConfig.Audience is required")
	}
	if cfg.JWKSURL != "" {
		if err := checkIssuer("JWTConfig.JWKSURL", cfg.JWKSURL); err != nil {
			return nil, err
		}
	}
	algs := asymmetric
	if len(cfg.Algorithms) > 0 {
		algs = nil
		for _, a := range cfg.Algorithms {
			alg := jose.SignatureAlgorithm(a)
			if !slices.Contains(asymmetric, alg) {
				return nil, fmt.Errorf("oidc: JWTConfig.Algorithms: %q is not an asymmetric signature algorithm", a)
			}
			algs = append(algs, alg)
		}
	}
	if cfg.RefreshCooldown < 0 || cfg.MaxKeyAge < 0 || cfg.RetryAfter < 0 {
		return nil, errors.New("oidc: JWTConfig durations must not be negative (but Leeway, where negative means none)")
	}
	if cfg.Leeway > maxLeeway {
		return nil, errors.New("oidc: JWTConfig.Leeway must be at most 5 minutes")
	}
	cfg.Leeway = leewayOf(cfg.Leeway)
	cfg.RefreshCooldown = cmp.Or(cfg.RefreshCooldown, time.Minute)
	cfg.MaxKeyAge = cmp.Or(cfg.MaxKeyAge, 24*time.Hour)
	cfg.RetryAfter = cmp.Or(cfg.RetryAfter, defaultRetryAfter)
	allowed, err := redirectOrigins("JWTConfig.RedirectOrigins", cfg.RedirectOrigins)
	if err != nil {
		return nil, err
	}
	cfg.HTTPClient = httpClient(cfg.HTTPClient, allowed)
	v := &JWTVerifier{
		cfg:    cfg,
		algs:   algs,
		checks: claimChecks{issuer: cfg.Issuer, audience: cfg.Audience, leeway: cfg.Leeway},
		disc:   &discovery{issuer: cfg.Issuer, client: cfg.HTTPClient, retryAfter: cfg.RetryAfter, maxAge: cfg.MaxKeyAge},
	}
	if ctx.Err() == nil {
		// Warm up, as one flight with the requests that arrive meanwhile:
		// like theirs, it does not end with ctx (shared). A failure counts
		// like any other: requests are answered 503 for RetryAfter before
		// the issuer is tried again.
		go func() { _, _ = v.flight(ctx, time.Time{}) }()
	}
	return v, nil
}

// Metadata returns the Protected Resource Metadata of resource (the
// Authenticator's Config.Resource) naming this verifier's issuer as the
// authorization server, which is where a client sent by a 401 challenge
// logs in. Set the other fields (scopes, name) and serve it with
// auth.NewMetadataHandler at auth.MetadataPaths(resource).
func (v *JWTVerifier) Metadata(resource string) auth.ResourceMetadata {
	return metadataOf(resource, v.cfg.Issuer)
}

// Leeway is the clock skew the verifier allows on exp, nbf and iat. An
// auth.Authenticator reads it and checks expiry with the same bound, so
// JWTConfig.Leeway is the one setting.
func (v *JWTVerifier) Leeway() time.Duration { return v.cfg.Leeway }

// VerifyAccessToken implements auth.TokenVerifier.
func (v *JWTVerifier) VerifyAccessToken(ctx context.Context, token string, _ *http.Request) (*auth.Principal, error) {
	// ParseSigned refuses any algorithm outside the list, "none" included,
	// before a key is looked at.
	tok, err := jwt.ParseSigned(token, v.algs)
	if err != nil {
		return nil, invalid("%v", err)
	}
	if len(tok.Headers) != 1 {
		return nil, invalid("%d signatures", len(tok.Headers))
	}
	h := tok.Headers[0]
	if v.cfg.RequireJWTAccessTokenType {
		typ, _ := h.ExtraHeaders[jose.HeaderType].(string)
		if !strings.EqualFold(typ, "at+jwt") && !strings.EqualFold(typ, "application/at+jwt") {
			return nil, invalid("typ %q is not at+jwt", typ)
		}
	}
	var raw json.RawMessage
	verifies := func(keys []jose.JSONWebKey) bool {
		for _, k := range keys {
			// A key that declares its algorithm is used with that one only.
			if k.Algorithm != "" && k.Algorithm != h.Algorithm {
				continue
			}
			if err := tok.Claims(k.Key, &raw); err == nil {
				return true
			}
		}
		return false
	}
	if err := v.verifyWith(ctx, h.KeyID, verifies); err != nil {
		return nil, err
	}
	claims, err := decodeClaims(raw)
	if err != nil {
		return nil, invalid("%v", err)
	}
	p, err := v.checks.principal(claims, time.Now())
	if err != nil {
		return nil, err
	}
	return mapClaims(ctx, v.cfg.MapClaims, claims, p)
}

// verifyWith finds the keys that may have signed a token naming kid and
// reports whether verifies accepts them, fetching the key set when it is
// not yet known, or lacks kid and the cooldown allows (and in the
// background when it is past MaxKeyAge). A token
// without a kid names no key to look for: when no known key verifies it,
// it may be signed by a key the issuer started using since the keys were
// fetched, so it is treated as an unknown kid is (fetched again, within
// the same cooldown). Otherwise an issuer that publishes keys without
// kids would have its tokens refused for MaxKeyAge after every rotation.
// An error is ErrInvalidToken when a fresh key set does not verify the
// token, ErrIssuerUnavailable otherwise.
func (v *JWTVerifier) verifyWith(ctx context.Context, kid string, verifies func([]jose.JSONWebKey) bool) error {
	v.mu.Lock()
	keys, fetchedAt, kidRefreshAt := v.keys, v.fetchedAt, v.kidRefreshAt
	v.mu.Unlock()
	now := time.Now()
	fetched := false
	switch {
	case keys == nil:
		fresh, err := v.refresh(ctx, false, fetchedAt)
		if err != nil {
			return err
		}
		keys, fetched = fresh, true
	case now.Sub(fetchedAt) > v.cfg.MaxKeyAge:
		// Keys past MaxKeyAge are fetched again, but a token of a key
		// already known does not wait for that: an issuer that hangs
		// rather than refuses would hold every request for the client's
		// timeout, and again after every RetryAfter. The known keys are
		// used meanwhile, and still when the fetch fails; a token that
		// needs fresh keys (an unknown kid) joins the fetch below.
		v.refreshInBackground(ctx, fetchedAt)
	}
	ks := lookup(keys, kid)
	switch {
	case kid != "" && len(ks) > 0:
		return signedBy(verifies(ks), kid)
	case kid == "" && verifies(ks):
		return nil
	case fetched:
		// Fetched for this very request: as fresh as keys get.
		return notInKeySet(kid)
	}
	if wait := v.cfg.RefreshCooldown - now.Sub(kidRefreshAt); wait > 0 {
		return unavailableAfter(wait, fmt.Errorf("oidc: key %q unknown; keys fetched too recently to fetch again", kid))
	}
	fresh, err := v.refresh(ctx, true, fetchedAt)
	if err != nil {
		return err
	}
	if ks := lookup(fresh, kid); len(ks) > 0 {
		return signedBy(verifies(ks), kid)
	}
	return notInKeySet(kid)
}

// refreshInBackground starts fetching the key set, unless a fetch it
// started is still running, for requests that go on with the keys fetched
// at seen. The fetch is the one flight every request needing fresh keys
// joins; it does not end with ctx (see shared).
func (v *JWTVerifier) refreshInBackground(ctx context.Context, seen time.Time) {
	v.mu.Lock()
	running := v.refreshing
	v.refreshing = true
	v.mu.Unlock()
	if running {
		return
	}
	go func() {
		defer func() {
			v.mu.Lock()
			v.refreshing = false
			v.mu.Unlock()
		}()
		_, _ = v.refresh(context.WithoutCancel(ctx), false, seen)
	}()
}

// signedBy is the verdict on a token whose signature the keys named kid
// verify (ok) or not.
func signedBy(ok bool, kid string) error {
	if ok {
		return nil
	}
	return invalid("signature does not verify with key %q", kid)
}

// notInKeySet is the refusal of a token naming kid that a fresh key set
// has no key for ("": no key of it verifies the token).
func notInKeySet(kid string) error {
	if kid == "" {
		return invalid("no key in the issuer's key set verifies a token without kid")
	}
	return invalid("no key %q in the issuer's key set", kid)
}

// lookup returns the keys named kid; a token without a kid may have been
// signed by any key of the set.
func lookup(keys map[string][]jose.JSONWebKey, kid string) []jose.JSONWebKey {
	if kid != "" {
		return keys[kid]
	}
	var all []jose.JSONWebKey
	for _, ks := range keys {
		all = append(all, ks...)
	}
	return all
}

// refresh fetches the key set once for every request that needs it at
// the same time. forKid marks a fetch caused by an unknown kid, which
// starts the cooldown.
func (v *JWTVerifier) refresh(ctx context.Context, forKid bool, seen time.Time) (map[string][]jose.JSONWebKey, error) {
	v.mu.Lock()
	failedAt, failure := v.failedAt, v.failure
	if wait := v.cfg.RetryAfter - time.Since(failedAt); failure != nil && wait > 0 {
		v.mu.Unlock()
		return nil, stillUnavailable(wait, failure)
	}
	prev, started := v.kidRefreshAt, time.Now()
	if forKid {
		// Set before fetching: requests that arrive during the fetch are
		// inside the cooldown too.
		v.kidRefreshAt = started
	}
	v.mu.Unlock()
	res, err := v.flight(ctx, seen)
	if err != nil {
		if forKid {
			// No keys were seen: the failure's RetryAfter governs, not
			// the cooldown, so a key rotated during an outage is found as
			// soon as the issuer is back.
			v.mu.Lock()
			if v.kidRefreshAt.Equal(started) {
				v.kidRefreshAt = prev
			}
			v.mu.Unlock()
		}
		return nil, unavailableAfter(v.cfg.RetryAfter, err)
	}
	return res, nil
}

// flight fetches the key set once for all callers arriving while it runs.
// seen is when the keys the caller looked at were fetched (zero: none):
// keys fetched since then, by a flight that ended just before this one
// started, are returned without fetching again.
func (v *JWTVerifier) flight(ctx context.Context, seen time.Time) (map[string][]jose.JSONWebKey, error) {
	res, err := shared(ctx, &v.group, "", func(ctx context.Context) (any, error) {
		v.mu.Lock()
		keys, fetchedAt := v.keys, v.fetchedAt
		v.mu.Unlock()
		if keys != nil && fetchedAt.After(seen) {
			return keys, nil
		}
		keys, err := v.fetchKeys(ctx)
		v.mu.Lock()
		defer v.mu.Unlock()
		if err != nil {
			v.failedAt, v.failure = time.Now(), err
			return nil, err
		}
		v.keys, v.fetchedAt, v.failure = keys, time.Now(), nil
		return keys, nil
	})
	if err != nil {
		return nil, err
	}
	return res.(map[string][]jose.JSONWebKey), nil
}

// fetchKeys reads the issuer's key set and keeps its public signature
// keys of an algorithm family we accept. A key that does not parse is
// skipped, not fatal: an issuer may publish key types we do not know.
func (v *JWTVerifier) fetchKeys(ctx context.Context) (map[string][]jose.JSONWebKey, error) {
	jwksURL := v.cfg.JWKSURL
	var meta *metadata // the metadata jwksURL came from, if discovered
	if jwksURL == "" {
		var err error
		if jwksURL, meta, err = v.disc.address(ctx, "jwks_uri", func(m *metadata) string { return m.JWKSURI }); err != nil {
			return nil, err
		}
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if _, err := getJSON(ctx, v.cfg.HTTPClient, jwksURL, &set); err != nil {
		if meta != nil {
			// The issuer may have moved its keys: discover them again
			// when they are next fetched.
			v.disc.forget(meta)
		}
		return nil, err
	}
	keys := make(map[string][]jose.JSONWebKey)
	for _, raw := range set.Keys {
		var k jose.JSONWebKey
		if json.Unmarshal(raw, &k) != nil || !k.Valid() || (k.Use != "" && k.Use != "sig") {
			continue
		}
		// Only the public half is kept, and a symmetric key is never
		// one: an "oct" key in a JWKS would otherwise verify HMACs.
		if !k.IsPublic() {
			pub := k.Public()
			if !pub.Valid() {
				continue
			}
			k = pub
		}
		keys[k.KeyID] = append(keys[k.KeyID], k)
	}
	return keys, nil
}
