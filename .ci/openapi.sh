#!/usr/bin/env bash
# The OpenAPI integration and the inbox that uses it: nested modules of
# their own, vetted and tested with the race detector. Run from anywhere: bash .ci/openapi.sh
set -euo pipefail
cd "$(dirname "$0")/.."

for m in mcp/openapi examples/inbox; do
  echo "== $m"
  go -C "$m" vet ./...
  go -C "$m" test -race -count=1 ./...
done
