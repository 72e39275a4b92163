#!/usr/bin/env bash
# mcptest as a conformance kit for any MCP server (issue 28):
#   1. internal/kitpeers (a module of its own, it needs the other Go SDKs):
#      the kit at its default level against go-sdk, mcp-go and a floor
#      written by hand, pinned exactly;
#   2. cmd/mcpcheck over loopback against examples/inbox and examples/hello
#      at the strict level, with mcpdual's one declared deviation (it
#      refuses 2025-03-26 batches), which must pass;
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
DEVIATION=(-deviation "2025-03-26/batch=mcpdual refuses batches in every revision: one message per POST")

# wait_port PORT: waits at most 10 s for something to listen on the
# loopback PORT (bash's /dev/tcp, so nothing to install).
wait_port() {
  for _ in $(seq 1 50); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.2
  done
  echo "127.0.0.1:$1: nothing listening within 10 s" >&2
  return 1
}

# free_port: a loopback port nothing listens on now.
free_port() {
  local p
  for _ in $(seq 1 50); do
    p=$((20000 + RANDOM % 12000)) # below the kernel's ephemeral range (32768 on), which outgoing connections draw from
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return 0; }
  done
  return 1
}

echo "== mcpcheck -strict against examples/inbox"
start_example inbox "$WORK"
"$WORK/mcpcheck" -strict -q -H "Authorization: Bearer dev-writer" "${DEVIATION[@]}" "$URL"

echo "== mcpcheck -strict against examples/hello"
go build -o "$WORK/hello" ./examples/hello
port="$(free_port)"
"$WORK/hello" -addr "127.0.0.1:$port" > "$WORK/hello.out" 2> "$WORK/hello.log" &
STARTED_PIDS+=("$!")
wait_port "$port"
"$WORK/mcpcheck" -strict -q "${DEVIATION[@]}" "http://127.0.0.1:$port/mcp"

echo "== mcpcheck (default level) against the peers"
go -C internal/kitpeers build -o "$WORK/peer" ./cmd/peer
for peer in gosdk gosdk-stream gosdk-sessions mcpgo mcpgo-sessions floor; do
  "$WORK/peer" -peer "$peer" -addr 127.0.0.1:0 > "$WORK/$peer.out" 2> "$WORK/$peer.log" &
  STARTED_PIDS+=("$!")
  url=""
  for _ in $(seq 1 50); do
    url="$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$WORK/$peer.out" || true)"
    [ -n "$url" ] && break
    sleep 0.2
  done
  [ -n "$url" ] || { echo "$peer: not listening" >&2; exit 1; }
  rc=0
  "$WORK/mcpcheck" -q "$url" > "$WORK/$peer.check" || rc=$?
  grep -E '^(FAIL|[0-9]+ checks)' "$WORK/$peer.check" | sed "s/^/$peer: /"
  want=1
  [ "$peer" = floor ] && want=0
  if [ "$rc" -ne "$want" ]; then
    cat "$WORK/$peer.check" >&2
    echo "mcpcheck against $peer exited $rc, want $want" >&2
    exit 1
  fi
done
