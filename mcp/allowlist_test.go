package mcp_test

import (
	"strings"
	"testing"

	"github.com/mcpdual/mcpdual/mcp"
)

// TestWithAllowedHosts_RefusesAURL: a Host allow-list entry is
// host[:port]; a URL ("https://api.example.com") would match no Host
// header, so that every request of the deployment would be 403. It panics
// at configuration, like an entry with any other slash, naming the entry.
func TestWithAllowedHosts_RefusesAURL(t *testing.T) {
	t.Parallel()
	for _, entry := range []string{"https://api.example.com", "https://api.example.com/", "http://127.0.0.1:8080", "api.example.com/mcp", ""} {
		func() {
			defer func() {
				p := recover()
				if msg, _ := p.(string); !strings.Contains(msg, "invalid allow-list entry "+entry) {
					t.Errorf("WithAllowedHosts(%q): panic %v, want one naming the entry", entry, p)
				}
			}()
			mcp.WithAllowedHosts(entry)
		}()
	}
	// What an entry is, still taken.
	for _, entry := range []string{"api.example.com", "API.example.com:8443", "[::1]:3000", "*"} {
		mcp.WithAllowedHosts(entry)
	}
}
