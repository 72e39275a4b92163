#!/usr/bin/env bash
# The OpenAPI and Go-type schema integrations, and the inbox that uses the
# first: nested modules of their own, vetted and tested with the race
# detector. Run from anywhere: bash .ci/openapi.sh
set -euo pipefail
cd "$(dirname "$0")/.."

for m in mcp/openapi mcp/typeschema examples/inbox; do
  echo "== $m"
  go -C "$m" vet ./...
  go -C "$m" test -race -count=1 ./...
done
