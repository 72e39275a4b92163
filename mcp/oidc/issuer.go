package oidc

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/mcpdual/mcpdual/mcp/auth"
)

// ErrIssuerUnavailable is wrapped by the errors a verifier returns when it
// could not decide: the issuer's discovery, keys or introspection endpoint
// did not answer, or answered something unusable, or a token names a
// signing key that may be new and the keys were fetched too recently to
// fetch them again. The Authenticator answers these with 503 and the
// error's RetryAfter.
var ErrIssuerUnavailable = errors.New("oidc: issuer unavailable")

// unavailable is an ErrIssuerUnavailable with a retry hint, read by
// auth's 503 through its RetryAfter method.
type unavailable struct {
	err   error
	after time.Duration
}

func (u *unavailable) Error() string { return ErrIssuerUnavailable.Error() + ": " + u.err.Error() }

func (u *unavailable) Unwrap() []error { return []error{ErrIssuerUnavailable, u.err} }

// RetryAfter is how long the client should wait before trying again.
func (u *unavailable) RetryAfter() time.Duration { return u.after }

func unavailableAfter(after time.Duration, err error) error {
	if u, ok := err.(*unavailable); ok {
		return u // already one, with its own hint
	}
	return &unavailable{err: err, after: max(after, time.Second)}
}

// stillUnavailable is the answer while a failure is remembered: its cause,
// with the time left before the issuer is tried again rather than the
// whole wait the failure first named.
func stillUnavailable(left time.Duration, failure error) error {
	if u, ok := failure.(*unavailable); ok {
		failure = u.err
	}
	return &unavailable{err: failure, after: max(left, time.Second)}
}

// shared runs fetch once for all callers of key arriving while it runs.
// The fetch is every waiting caller's, so it does not end when the first
// of them leaves: it runs on ctx without its cancellation, bounded by the
// verifier's client's timeout (httpClient gives every client one). A
// caller waits only as long as its own ctx lasts. A panic in fetch is
// its error: singleflight would raise it again in a goroutine of its own,
// where nothing can recover it and the process ends.
func shared(ctx context.Context, g *singleflight.Group, key string, fetch func(context.Context) (any, error)) (any, error) {
	ch := g.DoChan(key, func() (v any, err error) {
		defer func() {
			if p := recover(); p != nil {
				v, err = nil, fmt.Errorf("oidc: handling the issuer's answer panicked (%T)", p)
			}
		}()
		return fetch(context.WithoutCancel(ctx))
	})
	select {
	case r := <-ch:
		return r.Val, r.Err
	case <-ctx.Done():
		return nil, fmt.Errorf("oidc: gave up waiting for the issuer: %w", ctx.Err())
	}
}

// Defaults shared by both verifiers.
const (
	defaultTimeout    = 10 * time.Second
	maxDocumentBytes  = 1 << 20
	defaultRetryAfter = 2 * time.Second
	// maxLeeway is what an auth.Authenticator allows as its skew.
	maxLeeway = 5 * time.Minute
	// defaultLeeway is the leeway of a config that leaves it zero, for both
	// verifiers (go-jose's jwt.DefaultLeeway is the same minute).
	defaultLeeway = time.Minute
)

// leewayOf is the leeway a verifier checks with for a config's Leeway
// (checked to be at most maxLeeway): the zero value is the default, as
// for every other setting, so "none" is spelled with a negative value,
// as net.Dialer.KeepAlive spells "off".
func leewayOf(l time.Duration) time.Duration {
	switch {
	case l < 0:
		return 0
	case l == 0:
		return defaultLeeway
	}
	return l
}

// metadata is the part of the issuer's discovery document the verifiers
// read (OpenID Connect Discovery 1.0 and RFC 8414 share these names).
type metadata struct {
	Issuer                string `json:"issuer"`
	JWKSURI               string `json:"jwks_uri"`
	IntrospectionEndpoint string `json:"introspection_endpoint"`
}

// discovery fetches the issuer's metadata once it is first needed and
// keeps it for maxAge, or until a call to an address it named fails
// (forget): an issuer may move its keys or endpoints, and the old address
// may then answer 404 for ever. A failed attempt is remembered for
// retryAfter, so that while the issuer is down requests are answered 503
// at once instead of each one waiting on it; metadata past maxAge whose
// refresh failed stays in use, as old keys do.
type discovery struct {
	issuer     string
	client     *http.Client
	retryAfter time.Duration
	maxAge     time.Duration

	group     singleflight.Group
	mu        sync.Mutex
	meta      *metadata
	fetchedAt time.Time
	stale     bool // meta named an address that failed (forget)
	// failedAt and failure are the last failed attempt.
	failedAt time.Time
	failure  error
}

// defaultMetadataAge is how long an introspection verifier keeps the
// issuer's metadata; a JWT verifier keeps it for MaxKeyAge.
const defaultMetadataAge = 24 * time.Hour

// get returns the issuer's metadata, fetching it when not yet known,
// past maxAge, or forgotten.
func (d *discovery) get(ctx context.Context) (*metadata, error) {
	d.mu.Lock()
	meta, fetchedAt, stale, failedAt, failure := d.meta, d.fetchedAt, d.stale, d.failedAt, d.failure
	d.mu.Unlock()
	usable := meta != nil && !stale
	if usable && time.Since(fetchedAt) <= d.maxAge {
		return meta, nil
	}
	if wait := d.retryAfter - time.Since(failedAt); failure != nil && wait > 0 {
		if usable {
			return meta, nil
		}
		return nil, stillUnavailable(wait, failure)
	}
	v, err := shared(ctx, &d.group, "", func(ctx context.Context) (any, error) {
		m, err := d.fetch(ctx)
		d.mu.Lock()
		defer d.mu.Unlock()
		if err != nil {
			d.failedAt, d.failure = time.Now(), err
			return nil, err
		}
		d.meta, d.fetchedAt, d.stale, d.failure = m, time.Now(), false, nil
		return m, nil
	})
	switch {
	case err == nil:
		return v.(*metadata), nil
	case usable:
		return meta, nil
	}
	return nil, unavailableAfter(d.retryAfter, err)
}

// address returns the address the issuer's metadata gives for field (of
// reads it), with the metadata it came from: discovered when need be, and
// checked as a configured address would be (checkDiscovered). Metadata
// that names none, or one refused, is forgotten, so that the issuer is
// asked again when it is next tried.
func (d *discovery) address(ctx context.Context, field string, of func(*metadata) string) (string, *metadata, error) {
	meta, err := d.get(ctx)
	if err != nil {
		return "", nil, err
	}
	addr := of(meta)
	if addr == "" {
		err = fmt.Errorf("oidc: issuer %s publishes no %s", d.issuer, field)
	} else {
		err = checkDiscovered(field, d.issuer, addr)
	}
	if err != nil {
		d.forget(meta)
		return "", nil, err
	}
	return addr, meta, nil
}

// forget marks meta, if it is still the metadata in use, as out of date:
// an address it named failed, so the next get asks the issuer again.
func (d *discovery) forget(meta *metadata) {
	d.mu.Lock()
	if d.meta == meta {
		d.stale = true
	}
	d.mu.Unlock()
}

// fetch tries the OpenID Connect location first, then, when that answers
// anything but a document, RFC 8414's path-inserted one. Anything but a
// document is a status other than 200, or a 200 whose body is not a JSON
// object naming an issuer: an authorization server that is not an OpenID
// Provider may answer every unknown path with its web application's page.
// The document's issuer must be the configured one byte for byte (OpenID
// Connect Discovery §4.3, RFC 8414 §3.3): anything else would let one
// issuer's document speak for another.
func (d *discovery) fetch(ctx context.Context) (*metadata, error) {
	var errs []error
	for _, u := range discoveryURLs(d.issuer) {
		var m metadata
		status, err := getJSON(ctx, d.client, u, &m)
		if err == nil && m.Issuer == "" {
			err = fmt.Errorf("oidc: %s: %w: no issuer", u, errNoDocument)
		}
		switch {
		case err != nil && status != 0 && status != http.StatusOK, errors.Is(err, errNoDocument):
			// Answered, but without a document here: try the other
			// location.
			errs = append(errs, err)
			continue
		case err != nil:
			return nil, err
		case m.Issuer != d.issuer:
			return nil, fmt.Errorf("oidc: %s names issuer %q, not %q", u, m.Issuer, d.issuer)
		}
		return &m, nil
	}
	return nil, errors.Join(errs...)
}

// discoveryURLs returns where an issuer's metadata may be:
// {issuer}/.well-known/openid-configuration, then
// {origin}/.well-known/oauth-authorization-server{path}.
func discoveryURLs(issuer string) []string {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil
	}
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	return []string{
		strings.TrimSuffix(issuer, "/") + "/.well-known/openid-configuration",
		u.Scheme + "://" + u.Host + "/.well-known/oauth-authorization-server" + path,
	}
}

// getJSON GETs u and decodes its JSON body into v. A status other than
// 200 is an error; the status is returned so callers can tell 404 apart.
func getJSON(ctx context.Context, c *http.Client, u string, v any) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json")
	return doJSON(c, req, v)
}

func doJSON(c *http.Client, req *http.Request, v any) (int, error) {
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocumentBytes+1))
	switch {
	case err != nil:
		return resp.StatusCode, err
	case resp.StatusCode != http.StatusOK:
		return resp.StatusCode, fmt.Errorf("oidc: %s %s: status %d", req.Method, req.URL.Redacted(), resp.StatusCode)
	case len(body) > maxDocumentBytes:
		return resp.StatusCode, fmt.Errorf("oidc: %s %s: answer larger than %d bytes", req.Method, req.URL.Redacted(), maxDocumentBytes)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return resp.StatusCode, fmt.Errorf("oidc: %s %s: %w: %w", req.Method, req.URL.Redacted(), errNoDocument, err)
	}
	return resp.StatusCode, nil
}

// errNoDocument marks an answer whose body is not the JSON document asked
// for (an HTML page, say), whatever its status.
var errNoDocument = errors.New("the answer is not the JSON document asked for")

// checkDiscovered refuses an address the issuer's metadata names (its
// jwks_uri, its introspection_endpoint) that a configured one would not be
// allowed to be: keys fetched over plain http could be replaced on the way,
// and an introspection request carries this server's credentials.
func checkDiscovered(field, issuer, s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Errorf("oidc: issuer %s names an unusable %s: %w", issuer, field, err)
	case u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname())):
		return fmt.Errorf("oidc: issuer %s names a %s that is not https (http only on a loopback host): %s", issuer, field, u.Redacted())
	case u.Host == "" || u.User != nil:
		return fmt.Errorf("oidc: issuer %s names a %s that is not an absolute URL without user info", issuer, field)
	}
	return nil
}

// checkIssuer refuses an issuer identifier that is not an https URL
// (http only on loopback) without query or fragment.
func checkIssuer(field, s string) error {
	u, err := url.Parse(s)
	switch {
	case s == "":
		return fmt.Errorf("oidc: %s is required", field)
	case err != nil:
		return fmt.Errorf("oidc: %s: %w", field, err)
	case u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname())):
		return fmt.Errorf("oidc: %s must be an https URL (http only on a loopback host)", field)
	case u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("oidc: %s must be an absolute URL without user info, query or fragment", field)
	}
	return nil
}

func isLoopback(host string) bool {
	return host == "localhost" || host == "127.0.0.1" || host == "::1"
}

// metadataOf is the Protected Resource Metadata sending clients of
// resource to issuer. The issuer identifier, not a discovery URL, is what
// RFC 9728 lists; a client derives the discovery URLs from it.
func metadataOf(resource, issuer string) auth.ResourceMetadata {
	return auth.ResourceMetadata{Resource: resource, AuthorizationServers: []string{issuer}}
}

// maxRedirects is how many redirects one request follows, as net/http's
// default policy does.
const maxRedirects = 10

// httpClient returns the client the verifier calls the issuer with: a
// copy of c (default: a 10-second timeout) that follows a redirect only
// within the origin of the URL first asked, or to an origin in allowed.
// The issuer's answers steer where discovery, keys and introspection go
// next, and an introspection request carries this server's credentials:
// a redirect must not send them, or the trust placed in a document, to
// another host on a response's say-so. c itself is left as it is, and
// its own CheckRedirect still runs after this check.
func httpClient(c *http.Client, allowed map[string]bool) *http.Client {
	var cp http.Client
	if c != nil {
		cp = *c
	}
	// A client without a timeout (a host's, made for its Transport) would
	// let a hung issuer hold every request waiting on it for ever.
	cp.Timeout = cmp.Or(cp.Timeout, defaultTimeout)
	next := cp.CheckRedirect
	cp.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return fmt.Errorf("oidc: stopped after %d redirects", maxRedirects)
		}
		if to := origin(req.URL); to != origin(via[0].URL) && !allowed[to] {
			return fmt.Errorf("oidc: %s redirected to another origin, %s; name it in RedirectOrigins to follow",
				via[0].URL.Redacted(), to)
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
	return &cp
}

// origin is u's scheme, host and port, lowercase, with the scheme's
// default port left out: what a redirect may not change unannounced.
// Another port of the same host is another origin, as in a browser,
// since another server may listen there.
func origin(u *url.URL) string {
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host
}

// redirectOrigins checks a RedirectOrigins setting: every entry an
// origin, https (http only on loopback) with no path, user info, query or
// fragment. It returns them normalized, as origin gives them.
func redirectOrigins(field string, list []string) (map[string]bool, error) {
	allowed := make(map[string]bool, len(list))
	for _, s := range list {
		if err := checkIssuer(field, s); err != nil {
			return nil, err
		}
		u, _ := url.Parse(s)
		if u.Path != "" && u.Path != "/" {
			return nil, fmt.Errorf("oidc: %s: %q is not an origin (scheme, host and port only)", field, s)
		}
		allowed[origin(u)] = true
	}
	return allowed, nil
}
