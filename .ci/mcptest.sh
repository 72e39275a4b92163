#!/usr/bin/env bash
# mcptest as a conformance kit for any MCP server (design record 021):
#   1. internal/kitpeers (a module of its own, it needs the other Go SDKs):
#      the kit at its default level against go-sdk, mcp-go and a floor
#      written by hand, pinned exactly;
#   2. cmd/mcpcheck over loopback against examples/inbox and examples/hello
#      at the strict level, which must pass: hello with no deviation (a
#      default endpoint serves 2025-03-26 batches), the inbox declaring
#      the one its contract makes (it refuses every batch);
#   3. cmd/mcpcheck at the default level against the peers over loopback:
#      every go-sdk and mcp-go configuration must fail (their MUST
#      violations), the floor must pass.
# Every server is started on a loopback port and stopped by its PID.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== internal/kitpeers: go vet, go test"
go -C internal/kitpeers vet ./...
go -C internal/kitpeers test -race -count=1 ./...

WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcpdual-mcptest.XXXXXX")"
source .ci/fixture.sh
CLEANUP_DIRS+=("$WORK")
go build -o "$WORK/mcpcheck" ./mcp/mcptest/cmd/mcpcheck
DEVIATION=(-deviation "2025-03-26/batch=the inbox's contract refuses batches in every revision (mcp.WithoutBatches)")

echo "== mcpcheck -strict against examples/inbox"
start_example inbox "$WORK"
"$WORK/mcpcheck" -strict -q -H "Authorization: Bearer dev-writer" "${DEVIATION[@]}" "$URL"

echo "== mcpcheck -strict against examples/hello"
start_example hello "$WORK"
"$WORK/mcpcheck" -strict -q "$URL" # a default endpoint: it serves 2025-03-26 batches, no deviation

echo "== mcpcheck (default level) against the peers"
go -C internal/kitpeers build -o "$WORK/peer" ./cmd/peer
for peer in gosdk gosdk-stream gosdk-sessions mcpgo mcpgo-sessions floor; do
  start_server "$peer" "$WORK" "$WORK/peer" -peer "$peer" -addr 127.0.0.1:0
  rc=0
  "$WORK/mcpcheck" -q "$URL" > "$WORK/$peer.check" || rc=$?
  grep -E '^(FAIL|[0-9]+ checks)' "$WORK/$peer.check" | sed "s/^/$peer: /"
  want=1
  [ "$peer" = floor ] && want=0
  if [ "$rc" -ne "$want" ]; then
    cat "$WORK/$peer.check" >&2
    echo "mcpcheck against $peer exited $rc, want $want" >&2
    exit 1
  fi
done
