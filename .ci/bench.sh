#!/usr/bin/env bash
# The side-by-side benchmark of internal/bench, a module of its own so the
# library's go.mod never lists the other SDKs: vet, its tests (every
# variant and revision, the floor's mandatory work and allocation budget,
# the load generator on loopback, the OpenAPI side-by-side on a small
# document), and the quick run of run.sh as a smoke test of the whole
# harness (the TypeScript SDK v2 server on Node included; about a minute).
# Nothing here fails on a time: the figures are printed, not judged.
#
#   bash .ci/bench.sh          CI: the above, under ~3 minutes
#   bash .ci/bench.sh --full   the README's run instead of the quick one:
#                              5 s x 3 repeats, 16 and 64 workers (~11 min)
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== internal/bench: go vet"
go -C internal/bench vet ./...

echo "== internal/bench: go test"
go -C internal/bench test -count=1 ./... 2> >(grep -v 'WARN era2026: requestState is sealed' >&2)

if [[ "${1:-}" == --full ]]; then
  echo "== internal/bench: run.sh (full)"
  bash internal/bench/run.sh
else
  echo "== internal/bench: run.sh quick"
  bash internal/bench/run.sh quick
fi
