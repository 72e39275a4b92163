#!/usr/bin/env bash
# Schemas derived from Go types (mcp.AddToolFunc, mcp/typeschema) raise no
# portability warning in the MCP Inspector's strict mode (design record 024).
# Run from anywhere: bash .ci/schema-strict.sh
set -euo pipefail
cd "$(dirname "$0")/.."
INSPECTOR_VERSION=2.12.0
NODE="$(bash .ci/node.sh)" # Node 22 (the Inspector's engine), and npm
tmp="$(mktemp -d)"
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
npm install --prefix "$tmp/npm" --no-audit --no-fund --ignore-scripts --loglevel=error --engine-strict=false \
  "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >/dev/null
go build -o "$tmp/server" ./internal/typeschema/testdata/strictserver
"$tmp/server" > "$tmp/addr" &
pid=$!
for _ in $(seq 100); do
  [ -s "$tmp/addr" ] && break
  sleep 0.1
done
addr="$(head -1 "$tmp/addr")"
# --strict reports every portability problem on stderr; a clean list says nothing.
"$NODE" "$tmp/npm/node_modules/.bin/mcp-inspector" --cli "http://$addr/mcp" --method tools/list --strict > "$tmp/tools.json" 2> "$tmp/report"
if [ -s "$tmp/report" ]; then
  echo "schema-strict: the Inspector flags derived schemas:" >&2
  cat "$tmp/report" >&2
  exit 1
fi
grep -q '"name": "everything"' "$tmp/tools.json"
echo "schema-strict: no portability warnings"
