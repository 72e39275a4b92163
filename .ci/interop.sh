#!/usr/bin/env bash
# Full sessions of published MCP client SDKs against examples/conformance
# (and, for the go-sdk client, examples/inbox with a development token and
# a confirmed destructive tool) on loopback: the go-sdk client (all three
# revisions), the TypeScript SDK
# v2 client (2026-07-28 with a multi round-trip call) and the TypeScript
# SDK v1 client (2025-11-25 and 2025-03-26). Then each client launches
# examples/inbox -stdio itself, over its stdio transport (the go-sdk's
# CommandTransport: 2026-07-28 by default and 2025-06-18 when asked; the
# TypeScript v2 client: 2026-07-28; v1: 2025-06-18, the inbox serving no
# 2025-11-25); the go-sdk and mcp-go stdio clients also launch it with
# -stdio -legacy-input and confirm a delete at 2025-06-18 over the lines;
# no server process may outlive its client. The clients
# live under internal/interop, in their own Go module and npm package, so
# the library itself depends on none of them.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcpdual-interop.XXXXXX")"
NODE="$(bash .ci/node.sh)"

source .ci/fixture.sh
CLEANUP_DIRS+=("$WORK")
start_example inbox "$WORK"
INBOX_URL="$URL"
start_fixture "$WORK"
# A second inbox that asks 2025 clients mid-call (design record 025); start_example
# sets URL, so the fixture's is kept aside.
FIXTURE_URL="$URL"
mkdir -p "$WORK/legacy"
start_example inbox "$WORK/legacy" -legacy-input
LEGACY_URL="$URL"
URL="$FIXTURE_URL"

echo
echo "== go-sdk v1.8.0 client (and an authenticated session on examples/inbox)"
(cd internal/interop/goclient && go vet ./... && timeout 120 go run . "$URL" "$INBOX_URL")
echo "== go-sdk v1.8.0 client at 2025-06-18, confirming on examples/inbox -legacy-input"
(cd internal/interop/goclient && timeout 120 go run . -legacy "$LEGACY_URL")
(cd internal/interop/goclient && timeout 120 go test -count=1 -v -run TestHello .) # examples/hello's function tool, 3 revisions

echo
echo "== TypeScript SDK clients (npm ci)"
(cd internal/interop/node && npm ci --no-audit --no-fund --loglevel=error)
echo "== TypeScript SDK v2 client (@modelcontextprotocol/client@2.4.0)"
(cd internal/interop/node && timeout 120 "$NODE" v2.mjs "$URL")
echo "== TypeScript SDK v2 client: task status notifications on subscriptions/listen (@modelcontextprotocol/ext-tasks@0.2.2 schemas)"
(cd internal/interop/node && timeout 120 "$NODE" listen-v2.mjs "$URL")
echo "== TypeScript SDK v1 client (@modelcontextprotocol/sdk@1.32.2)"
(cd internal/interop/node && timeout 120 "$NODE" v1.mjs "$URL")
echo "== TypeScript SDK v1 client at 2025-06-18, confirming on examples/inbox -legacy-input"
(cd internal/interop/node && timeout 120 "$NODE" legacy-v1.mjs "$LEGACY_URL")
echo
echo "== stdio: each client launches $WORK/inbox -stdio (built once, above) itself"
# Every server a client started must be gone when the client is: one
# left over is reported and stopped by its PID.
command -v pgrep > /dev/null || { echo "interop: pgrep is needed to check for surviving servers" >&2; exit 1; }
no_stdio_survivors() {
  local pids
  pids="$(pgrep -f "^$WORK/inbox -stdio" || true)"
  if [ -n "$pids" ]; then
    echo "stdio: server processes outlived their client ($1): $pids" >&2
    kill $pids 2>/dev/null || true
    return 1
  fi
}
echo "== go-sdk v1.8.0 client, CommandTransport"
(cd internal/interop/goclient && timeout 120 go run . -stdio "$WORK/inbox")
no_stdio_survivors go-sdk
echo "== go-sdk v1.8.0 and mcp-go v1.2.1 stdio clients at 2025-06-18, confirming on -stdio -legacy-input"
(cd internal/interop/goclient && timeout 120 go run . -stdio-legacy "$WORK/inbox")
no_stdio_survivors "go-sdk and mcp-go, -legacy-input"
echo "== TypeScript SDK v2 client, StdioClientTransport"
(cd internal/interop/node && timeout 120 "$NODE" stdio-v2.mjs "$WORK/inbox")
no_stdio_survivors "TypeScript v2"
echo "== TypeScript SDK v1 client, StdioClientTransport"
(cd internal/interop/node && timeout 120 "$NODE" stdio-v1.mjs "$WORK/inbox")
no_stdio_survivors "TypeScript v1"

echo
echo "== interop: every client session succeeded"
