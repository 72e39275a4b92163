package mcp

import (
	"net"
	"net/http"
	"time"

	"github.com/mcpdual/mcpdual/mcp/auth"
	"github.com/mcpdual/mcpdual/mcp/ratelimit"
)

// Rate budgets: per client address before authentication, per caller
// after it, and the caller key both use.

// limitedBeforeAuth reports whether the per-client limiter meters r. It
// stands in front of the verifier (record 003), so with authentication on
// it skips a request that carries no Authorization header at all: that one
// is refused 401 (or 400 for a token in the query) from its headers alone,
// and a limiter whose store is down must not hide the challenge a client
// needs to log in behind a 503. Anything in an Authorization header, of
// any scheme, is still metered first.
func (h *Handler) limitedBeforeAuth(r *http.Request) bool {
	return h.cfg.auth == nil || len(r.Header.Values("Authorization")) != 0
}

func remoteIP(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

func ceilSeconds(d time.Duration) int64 {
	s := int64((d + time.Second - 1) / time.Second)
	return max(s, 1)
}

// ceilMillis is d in whole milliseconds, rounded up (at least 1): a
// client that waits retryAfterMs must find the budget there, which a
// rounded-down wait does not (a token at 3 a second is 333.33 ms away).
func ceilMillis(d time.Duration) int64 {
	ms := int64((d + time.Millisecond - 1) / time.Millisecond)
	return max(ms, 1)
}

// takeRate spends one unit of key's budget and sets the X-RateLimit-*
// headers; it returns the 429 or 503 to answer when the request may not
// proceed.
func (h *Handler) takeRate(w http.ResponseWriter, r *http.Request, l ratelimit.Limiter, key string, report bool) *Error {
	d, err := l.Take(r.Context(), key, 1)
	if err != nil {
		h.cfg.logger.ErrorContext(r.Context(), "mcp: rate limiter failed", "err", err)
		return unavailable("Server temporarily unavailable", "rate_limiter_unavailable")
	}
	if d.Allowed && !report {
		return nil
	}
	d.SetHeaders(w.Header())
	if d.Allowed {
		return nil
	}
	ra := max(d.RetryAfter, time.Millisecond)
	e := httpError(http.StatusTooManyRequests, codeRateLimited, "Too many requests").
		WithData(map[string]any{"reason": "rate_limited", "retryAfterMs": ceilMillis(ra)})
	e.retryAfter = ra
	return e
}

// takePrincipalRate meters an admitted request of the caller key names
// (callerKey). server/discover has a
// budget of its own, so discovery keeps working for a caller who spent
// everything else.
func (h *Handler) takePrincipalRate(w http.ResponseWriter, r *http.Request, key, method string) *Error {
	if row := methodsByName[method]; row != nil && row.ownBudget {
		key = "own|" + method + "|" + key
	}
	return h.takeRate(w, r, h.cfg.limiter, key, true)
}

// callerKey names who is calling, for rate budgets and slot shares: the
// verified principal's rate key (issuer and subject unless the host asks
// for the client too), or the client without authentication.
func (h *Handler) callerKey(r *http.Request, p *auth.Principal) string {
	if p != nil {
		return ratelimit.PrincipalKey(h.cfg.auth.RateKey(p))
	}
	return ratelimit.ClientKey(h.cfg.clientKey(r))
}

// callerKey is Handler.callerKey for this request, made once: the
// per-principal limit and the concurrency slot both key on it.
func (req *request) callerKey() string { return req.accessCache.callerKey(req.who()) }

// callerKey makes the key once and keeps it.
func (a *accessCache) callerKey(w who) string {
	if a.caller == "" {
		a.caller = w.h.callerKey(w.r, w.principal)
	}
	return a.caller
}
