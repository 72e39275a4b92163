package mcp

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/mcpdual/mcpdual/mcp/auth"
)

// Authentication's refusals (and the log that keeps them from repeating),
// the scopes an item needs, the identity a route is given.

// failure turns an authentication or workspace refusal into the error the
// endpoint sends: a JSON-RPC error whose data.reason is the stable key,
// with WWW-Authenticate or Retry-After where due. The cause of a 5xx goes
// to the log only.
func (h *Handler) failure(ctx context.Context, f *auth.Failure) *Error {
	code := codeUnauthorized
	switch {
	case f.Status == http.StatusForbidden:
		code = codeForbidden
	case f.Status == http.StatusServiceUnavailable:
		code = codeUnavailable
	case f.Status >= 500:
		code = CodeInternal
	case f.Reason == "workspace_required" || f.Reason == "workspace_invalid":
		code = CodeInvalidParams
	}
	if f.Status >= 500 {
		h.logRefusal(ctx, f, time.Now())
	}
	data := map[string]any{"reason": f.Reason}
	if f.Required != nil {
		data["required"] = f.Required
	}
	if f.RetryAfter > 0 {
		data["retryAfterMs"] = ceilMillis(f.RetryAfter)
	}
	if f.Reason == "workspace_required" {
		data["header"] = auth.WorkspaceHeader
	}
	e := httpError(f.Status, code, f.Message).WithData(data)
	e.challenge = f.Challenge
	e.retryAfter = f.RetryAfter
	return e
}

// maxRefusalQuiet bounds how long refusals of one reason go unlogged.
const maxRefusalQuiet = time.Minute

// refusalKey names a refusal reason's entry in Handler.warned.
type refusalKey string

// refusalLog is when the next refusal of one reason may be logged, and
// how many were left out since the last line.
type refusalLog struct {
	mu         sync.Mutex
	next       time.Time
	suppressed int
}

// take reports whether a refusal at now is logged and, when it is, how
// many were left out before it; quiet is how long the ones after it are
// left out.
func (l *refusalLog) take(now time.Time, quiet time.Duration) (logged bool, suppressed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Before(l.next) {
		l.suppressed++
		return false, 0
	}
	suppressed, l.suppressed, l.next = l.suppressed, 0, now.Add(quiet)
	return true, suppressed
}

// logRefusal logs the cause of a 5xx refusal. A 503 with Retry-After (the
// issuer down, a token naming a signing key inside the verifier's refresh
// cooldown, the workspace store down) is the same answer to every request
// until then, and a flood of tokens with made-up key ids would otherwise
// write one ERROR line each: such refusals are logged at most once per
// reason per Retry-After (at most a minute), and the next line counts the
// ones left out. Reasons are auth's fixed keys, so the entries are few.
// Other 5xx (a verifier that panicked) are logged every time. now is
// the time of the refusal.
func (h *Handler) logRefusal(ctx context.Context, f *auth.Failure, now time.Time) {
	if f.Status == http.StatusServiceUnavailable && f.RetryAfter > 0 {
		key := refusalKey(f.Reason)
		v, ok := h.warned.Load(key)
		if !ok {
			v, _ = h.warned.LoadOrStore(key, &refusalLog{})
		}
		logged, suppressed := v.(*refusalLog).take(now, min(f.RetryAfter, maxRefusalQuiet))
		switch {
		case !logged:
			return
		case suppressed > 0:
			h.cfg.logger.ErrorContext(ctx, "mcp: request refused", "reason", f.Reason, "err", f.Unwrap(), "suppressed", suppressed)
			return
		}
	}
	h.cfg.logger.ErrorContext(ctx, "mcp: request refused", "reason", f.Reason, "err", f.Unwrap())
}
