#!/usr/bin/env bash
# Change notifications across replicas, received by published client SDKs
# (issue 34): examples/conformance as three replicas behind nginx sharing
# one Redis (.ci/fixture.sh's start_fleet), and
#   - the TypeScript SDK v2 client (@modelcontextprotocol/client) at
#     2026-07-28 holding a subscriptions/listen stream (Client.listen) on
#     replica 0, told of a tool list change made through replica 1
#     (test_trigger_tool_change) and of a resource update announced on
#     replica 2 (test_notify_resource_updated);
#   - the go-sdk client at 2025-06-18 with a session, its GET stream and
#     resources/subscribe on replica 0, told (ResourceUpdatedHandler,
#     ToolListChangedHandler) of what is triggered through replica 1; then
#     the same through the balancer, the replicas that served the stream
#     and the trigger read from nginx's X-Upstream.
# Each client is given replica URLs directly (the balancer's only in the
# last run), so which replica serves what is fixed by the URL. Every
# process is started and stopped by its PID (fixture.sh); loopback only.
# Run from anywhere: bash .ci/notify-interop.sh
set -euo pipefail
cd "$(dirname "$0")/.."
WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcpdual-notify.XXXXXX")"
NODE="$(bash .ci/node.sh)"

source .ci/fixture.sh
CLEANUP_DIRS+=("$WORK")
start_fleet "$WORK" 3
BALANCER_URL="$URL"
# Each replica's own endpoint, from the line it prints when listening.
REPLICA_URLS=()
for i in 0 1 2; do
  u="$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$WORK/replica$i.out" | head -n 1 || true)"
  [ -n "$u" ] || { echo "replica$i printed no endpoint" >&2; exit 1; }
  REPLICA_URLS+=("$u")
done
echo "== replicas ${REPLICA_URLS[*]}, balancer $BALANCER_URL"

echo
echo "== TypeScript SDK clients (npm ci)"
(cd internal/interop/node && npm ci --no-audit --no-fund --loglevel=error)
echo "== TypeScript SDK v2 client (@modelcontextprotocol/client@2.4.0): listen on replica 0, changes through replicas 1 and 2"
(cd internal/interop/node && timeout 120 "$NODE" notify-v2.mjs "${REPLICA_URLS[0]}" "${REPLICA_URLS[1]}" "${REPLICA_URLS[2]}")

echo
echo "== go-sdk v1.8.0 client at 2025-06-18: a session's GET stream on replica 0, triggers through replica 1, then through the balancer"
(cd internal/interop/goclient && go vet ./... && timeout 120 go run . -notify "${REPLICA_URLS[0]}" "${REPLICA_URLS[1]}" "$BALANCER_URL")

# No replica logged a failure to publish or follow the bus.
for log in "${FLEET_LOGS[@]}"; do
  if grep -E 'was not published|cannot follow fleet events|lost its events|could not be published|OnFleet panicked' "$log"; then
    echo "$log: the event bus failed (above)" >&2
    exit 1
  fi
done

echo
echo "== notify-interop: both clients were told across replicas"
