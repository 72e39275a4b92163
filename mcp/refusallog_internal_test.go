package mcp

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpdual/mcpdual/mcp/auth"
)

// TestLogRefusalQuiet: 503 refusals of one reason are logged once per
// Retry-After (at most a minute); the first line after a quiet spell
// counts the ones left out; each reason has its own spell; a 500 is
// always logged.
func TestLogRefusalQuiet(t *testing.T) {
	var buf bytes.Buffer
	h := &Handler{cfg: handlerConfig{logger: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		}}))}}
	unavailable := func(reason string, after time.Duration) *auth.Failure {
		return &auth.Failure{Status: http.StatusServiceUnavailable, Reason: reason, RetryAfter: after}
	}
	t0 := time.Unix(2_000_000_000, 0)
	steps := []struct {
		at   time.Duration
		f    *auth.Failure
		want string // the line written, "" for none
	}{
		{0, unavailable("auth_unavailable", 30*time.Second), `level=ERROR msg="mcp: request refused" reason=auth_unavailable err=<nil>`},
		{time.Second, unavailable("auth_unavailable", 29*time.Second), ""},
		{29 * time.Second, unavailable("auth_unavailable", time.Second), ""},
		// Another reason is not held back by the first.
		{29 * time.Second, unavailable("workspace_unavailable", 5*time.Second), `level=ERROR msg="mcp: request refused" reason=workspace_unavailable err=<nil>`},
		{30 * time.Second, unavailable("auth_unavailable", 10*time.Minute), `level=ERROR msg="mcp: request refused" reason=auth_unavailable err=<nil> suppressed=2`},
		// A ten-minute Retry-After keeps the line quiet for a minute only.
		{89 * time.Second, unavailable("auth_unavailable", time.Second), ""},
		{90 * time.Second, unavailable("auth_unavailable", time.Second), `level=ERROR msg="mcp: request refused" reason=auth_unavailable err=<nil> suppressed=1`},
		{90 * time.Second, &auth.Failure{Status: http.StatusInternalServerError, Reason: "internal"}, `level=ERROR msg="mcp: request refused" reason=internal err=<nil>`},
		{90 * time.Second, &auth.Failure{Status: http.StatusInternalServerError, Reason: "internal"}, `level=ERROR msg="mcp: request refused" reason=internal err=<nil>`},
	}
	for i, s := range steps {
		buf.Reset()
		h.logRefusal(context.Background(), s.f, t0.Add(s.at))
		if got := strings.TrimSpace(buf.String()); got != s.want {
			t.Errorf("step %d: logged %q\nwant %q", i, got, s.want)
		}
	}
}
