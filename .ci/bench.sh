#!/usr/bin/env bash
# The side-by-side benchmark of internal/bench, a module of its own so the
# library's go.mod never lists the other SDKs: vet, its tests (every
# variant and revision, and the load generator on loopback), and the quick
# run of run.sh as a smoke test of the whole harness.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== internal/bench: go vet"
go -C internal/bench vet ./...

echo "== internal/bench: go test"
go -C internal/bench test -count=1 ./...

echo "== internal/bench: run.sh quick"
bash internal/bench/run.sh quick
