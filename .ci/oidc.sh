#!/usr/bin/env bash
# The token verifiers of mcp/oidc (a module of its own): first against a
# handwritten issuer for the edge cases, then against a real OpenID
# Provider (github.com/zitadel/oidc/v3, started on loopback inside the
# tests of internal/oidcprovider, a test-only module so the provider's
# dependencies never reach mcp/oidc's users). Run from anywhere:
# bash .ci/oidc.sh
set -euo pipefail
cd "$(dirname "$0")/.."

for m in mcp/oidc internal/oidcprovider; do
  go -C "$m" mod verify
  go -C "$m" vet ./...
  go -C "$m" test -race -count=1 ./...
done
# Fuzz smoke: no mutation of a signed token is accepted as anything else.
source .ci/fuzz.sh
fuzz mcp/oidc . FuzzJWTVerify 5s
fuzz mcp/oidc . FuzzClaims 5s
