#!/usr/bin/env bash
# Vets and tests mcp/redisstore, a module of its own, against a real Redis:
# installs redis-server with apt-get when it is missing, starts it on a
# free loopback port with no persistence, exports MCPDUAL_REDIS_ADDR for the
# tests (which also start and stop servers of their own: for the outage
# cases, and a three-master Redis Cluster that the store contract suite
# runs on, built with redis-cli --cluster create), and stops it by its PID
# on exit.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
  echo "== installing redis-server"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcpdual-redis.XXXXXX")"
REDIS_PID=""
stop_redis() {
  if [ -n "$REDIS_PID" ]; then
    kill "$REDIS_PID" 2>/dev/null || true
    wait "$REDIS_PID" 2>/dev/null || true
    REDIS_PID=""
  fi
}
trap 'stop_redis; rm -rf "$WORK"' EXIT

# start_redis PORT starts redis-server and waits at most 5 s for PING.
start_redis() {
  local port="$1"
  redis-server --bind 127.0.0.1 --port "$port" --save "" --appendonly no --daemonize no \
    --dir "$WORK" --logfile "$WORK/redis.log" &
  REDIS_PID=$!
  for _ in $(seq 1 50); do
    if [ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = "PONG" ]; then
      return 0
    fi
    kill -0 "$REDIS_PID" 2>/dev/null || break
    sleep 0.1
  done
  stop_redis
  return 1
}

# A port nothing answers on; another process may take it before Redis
# binds, so a failed start tries another, ten times at most.
for _ in $(seq 1 10); do
  port=$(( (RANDOM * 32768 + RANDOM) % 12000 + 20000 )) # below the ephemeral range (32768 on), which outgoing connections draw from
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    continue
  fi
  start_redis "$port" && break
done
if [ -z "$REDIS_PID" ]; then
  cat "$WORK/redis.log" >&2 2>/dev/null || true
  echo "redis-server did not start" >&2
  exit 1
fi
export MCPDUAL_REDIS_ADDR="127.0.0.1:$port"
echo "== $(redis-server --version | cut -d' ' -f1-3) at $MCPDUAL_REDIS_ADDR (pid $REDIS_PID)"

go -C mcp/redisstore mod verify
go -C mcp/redisstore vet ./...
go -C mcp/redisstore test -race -count=1 ./...

# Fuzz smoke: what the stores read back from Redis (a session's hash, the
# claim script's answer) is taken only as the stores write it. The targets
# need no Redis; their workers start none.
source .ci/fuzz.sh
fuzz mcp/redisstore . FuzzLoadFields 5s
fuzz mcp/redisstore . FuzzClaimAnswer 5s
