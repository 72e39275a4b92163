#!/usr/bin/env bash
# The TypeScript SDK v1 client (@modelcontextprotocol/sdk 1.x, pinned in
# internal/interop/node) lists the tools of a server registered from the
# OpenAPI document huma generates (mcp/openapi/testdata/huma-3.1.json,
# every body with a readOnly "$schema" property; design record 021's amendment): builds
# mcp/openapi/internal/humaserve, starts it on a free loopback port, and
# fails unless listTools() lists every tool the server registered (the
# client throws on a tool definition it refuses, listing none). The server
# is stopped by its PID. Run from anywhere: bash .ci/huma-ts.sh
set -euo pipefail
cd "$(dirname "$0")/.."
WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcpdual-huma-ts.XXXXXX")"
NODE="$(bash .ci/node.sh)"

source .ci/fixture.sh
CLEANUP_DIRS+=("$WORK")
go -C mcp/openapi build -o "$WORK/humaserve" ./internal/humaserve
start_server humaserve "$WORK" "$WORK/humaserve" -addr 127.0.0.1:0 -spec mcp/openapi/testdata/huma-3.1.json
echo "== humaserve at $URL"
tools=""
for _ in $(seq 1 50); do
  tools="$(sed -n 's/^tools: //p' "$WORK/humaserve.out")"
  [ -n "$tools" ] && break
  sleep 0.1
done
if [ -z "$tools" ]; then
  echo "huma-ts: the server printed no tools" >&2
  exit 1
fi
echo "== registered: $tools"

(cd internal/interop/node && npm ci --no-audit --no-fund --loglevel=error)
echo "== TypeScript SDK v1 client listTools"
# shellcheck disable=SC2086 # the tool names are words
(cd internal/interop/node && timeout 60 "$NODE" huma-v1.mjs "$URL" $tools)
echo "== huma-ts: every tool listed"
