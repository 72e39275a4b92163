// Package oidcprovider tests mcp/oidc against a real OpenID Provider: the
// one of github.com/zitadel/oidc/v3, started on loopback inside the tests
// with a storage of our own (storage_test.go). It is a module of its own
// so that the provider's dependencies never reach mcp/oidc's users; it
// has no code besides its tests. Run: go -C internal/oidcprovider test ./...
package oidcprovider
