#!/usr/bin/env bash
# The OpenAPI integration and the inbox that uses it: nested modules of
# their own, vetted and tested with the race detector; then the document
# reader is fuzzed, JSON and YAML, for a few seconds each
# (MCPDUAL_FUZZTIME, default 5s). Run from anywhere: bash .ci/openapi.sh
set -euo pipefail
cd "$(dirname "$0")/.."

for m in mcp/openapi examples/inbox; do
  echo "== $m"
  go -C "$m" vet ./...
  go -C "$m" test -race -count=1 ./...
done

FUZZTIME="${MCPDUAL_FUZZTIME:-5s}"
source .ci/fuzz.sh
for target in FuzzReadJSON FuzzReadYAML FuzzParseJSON; do
  echo "== mcp/openapi $target ($FUZZTIME)"
  # A failing input is written under mcp/openapi/testdata/fuzz: commit it
  # with the fix, as a regression seed.
  fuzz mcp/openapi . "$target" "$FUZZTIME"
done
