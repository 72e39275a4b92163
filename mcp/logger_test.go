package mcp_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/mcp"
)

// WithLogger(nil) selects the documented default, slog.Default, even after
// an earlier WithLogger: a handler built with it logs its start-up warning
// and a route's panic there, and answers the call as without the option.
// Not parallel: it replaces the process's default logger for its duration.
func TestWithLogger_NilLogsToDefault(t *testing.T) {
	var buf syncBuffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(prev) })

	// era2026.New() without a sealer makes NewHandler log a warning.
	f := newFixture(t, mcp.WithLogger(nil))
	if !strings.Contains(buf.String(), "requestState is sealed with a random key") {
		t.Errorf("start-up warning not in slog.Default's output: %q", buf.String())
	}
	for _, era := range eras {
		t.Run(string(era), func(t *testing.T) {
			r, res := callTool(t, f, era, "panic", `{}`)
			if r.status != http.StatusOK || r.code() != 0 {
				t.Fatalf("status %d, code %d: %s", r.status, r.code(), r.raw)
			}
			checkCommon(t, r)
			if res["isError"] != true || strings.Contains(text(res), "secret") {
				t.Errorf("a route's panic: %v", res)
			}
		})
	}
	if got := strings.Count(buf.String(), "mcp: tool handler panicked"); got != len(eras) {
		t.Errorf("%d panic lines in slog.Default's output, want %d: %q", got, len(eras), buf.String())
	}
	if f.log.String() != "" {
		t.Errorf("the fixture's own logger was used: %q", f.log.String())
	}
}
