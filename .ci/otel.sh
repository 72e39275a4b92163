#!/usr/bin/env bash
# The OpenTelemetry observer (mcp/otelmcp, a module of its own) on the real
# OpenTelemetry SDK. Run from anywhere:
# bash .ci/otel.sh
set -euo pipefail
cd "$(dirname "$0")/.."

go -C mcp/otelmcp mod verify
go -C mcp/otelmcp vet ./...
go -C mcp/otelmcp test -race -count=1 ./...
# The inbox's -otel-stdout flag is tested with the rest of its tests, in
# openapi.sh.
