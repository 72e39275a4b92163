#!/usr/bin/env bash
# The OpenTelemetry observer (mcp/otelmcp, a module of its own) on the real
# OpenTelemetry SDK, and the inbox's -otel-stdout flag. Run from anywhere:
# bash .ci/otel.sh
set -euo pipefail
cd "$(dirname "$0")/.."

go -C mcp/otelmcp mod verify
go -C mcp/otelmcp vet ./...
go -C mcp/otelmcp test -race -count=1 ./...

# The inbox's -otel-stdout flag (the rest of its tests run in openapi.sh).
go -C examples/inbox test -race -count=1 -run '^TestOtelStdout$' .
