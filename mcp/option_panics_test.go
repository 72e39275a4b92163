package mcp_test

import (
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/era2025"
	"github.com/mcpdual/mcpdual/mcp"
)

// The options and constructors whose doc comments say they panic on bad
// input do, each with a message naming what is wrong, so that a mistake in
// a composition root stops the program where it is made.
func TestOptions_PanicOnBadInputAsDocumented(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		want string // in the panic's message
		f    func()
	}{
		{"WithAuth nil", "WithAuth needs", func() { mcp.WithAuth(nil) }},
		{"WithRateLimit nil", "WithRateLimit needs", func() { mcp.WithRateLimit(nil) }},
		{"WithClientRateLimit nil", "WithClientRateLimit needs", func() { mcp.WithClientRateLimit(nil, nil) }},
		{"WithReplayGuard nil", "WithoutReplayGuard", func() { mcp.WithReplayGuard(nil) }},
		{"WithRouteRequest nil", "WithRouteRequest needs", func() { mcp.WithRouteRequest(nil) }},
		{"WithLimits PerCaller alone", "PerCaller needs Concurrent", func() { mcp.WithLimits(mcp.Limits{PerCaller: 1}) }},
		{"WithLegacyInput negative Wait", "WithLegacyInput needs bounds", func() { mcp.WithLegacyInput(mcp.LegacyInput{Wait: -1}) }},
		{"WithLegacyInput negative Total", "WithLegacyInput needs bounds", func() { mcp.WithLegacyInput(mcp.LegacyInput{Total: -1}) }},
		{"WithChangeNotifications negative", "WithChangeNotifications needs bounds", func() { mcp.WithChangeNotifications(mcp.ChangeNotifications{Streams: -1}) }},
		{"RequireScopes with a space", "invalid scope", func() { mcp.RequireScopes("read write") }},
		{"RequireScopes with a quote", "invalid scope", func() { mcp.RequireScopes(`a"b`) }},
		{"WithPageSize 0", "WithPageSize needs", func() { mcp.WithPageSize(0) }},
		{"ConfirmWith nil", "ConfirmWith needs", func() { mcp.ConfirmWith(nil) }},
		{"NewServer without a version", "Name and Version", func() { mcp.NewServer(mcp.Implementation{Name: "x"}) }},
		{"NewHandler nil Server", "needs a Server", func() { mcp.NewHandler(nil, []mcp.Era{era2025.New()}) }},
		{"NewHandler no era", "at least one Era", func() {
			mcp.NewHandler(mcp.NewServer(mcp.Implementation{Name: "x", Version: "1"}), nil)
		}},
	}
	for _, c := range cases {
		func() {
			defer func() {
				p := recover()
				if p == nil {
					t.Errorf("%s: no panic", c.name)
					return
				}
				if msg, _ := p.(string); !strings.Contains(msg, c.want) {
					t.Errorf("%s: panic %v, want one naming %q", c.name, p, c.want)
				}
			}()
			c.f()
		}()
	}
}
