#!/usr/bin/env bash
# What open subscriptions/listen streams cost (issue 34), measured with
# internal/streambench (a module of its own): the server in its own
# process (cmd/server), the streams opened over loopback by another
# (cmd/measure), which writes what it measured as JSON; then TestBounds
# reads those files and fails when a figure is past its bound. Nothing
# here is a timed unit test: the check is a measurement read.
#
#   memory   2,000 idle listen streams (toolsListChanged) on one server
#            with WithChangeNotifications (its in-process bus): its heap
#            and stacks in use (after GC) open minus before, per stream;
#            bound 32 KiB. The same run against a bare net/http SSE
#            handler on the same server (/floor) is printed beside it.
#   latency  3 replicas sharing one redis-server (redisstore.NewEventBus),
#            1,000 streams spread over them subscribed to one resource;
#            a publication (NotifyResourceUpdated through a debug route)
#            on each replica in turn, one warm-up and 20 counted; from
#            just before the trigger to each stream's receipt; p99 over
#            every delivery, reported beside its 50 ms target (not gated:
#            the replicas, Redis and this program share 2 cores, and the
#            tail moves from run to run; design record 033).
#
# Every process listens on 127.0.0.1 only and is stopped by its PID
# (.ci/fixture.sh). Streams end after 45 s, so each run is done within
# 40 s of its first stream. About a minute, builds included.
#
#   bash .ci/streams.sh             CI
#   PUBLICATIONS=60 bash .ci/streams.sh   more publications counted
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/fixture.sh

PUBLICATIONS=${PUBLICATIONS:-40}

# Each stream is a socket in the server and one in the measuring program.
need=4500
soft=$(ulimit -n)
if [ "$soft" != unlimited ] && [ "$soft" -lt "$need" ]; then
  hard=$(ulimit -Hn)
  if [ "$hard" != unlimited ] && [ "$hard" -lt "$need" ]; then
    echo "ulimit -Hn is $hard: 2,000 streams need $need open files" >&2
    exit 1
  fi
  ulimit -n "$need"
fi

if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
  echo "== installing redis-server"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mcpdual-streams.XXXXXX")
CLEANUP_DIRS+=("$WORK")
mkdir -p "$WORK/results" "$WORK/floor" "$WORK/profiles"

echo "== machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo) memory, $(go version | cut -d' ' -f3), ulimit -n $(ulimit -n)"

echo "== internal/streambench: go vet, go test"
go -C internal/streambench vet ./...
go -C internal/streambench test -count=1 ./...
go -C internal/streambench build -o "$WORK/server" ./cmd/server
go -C internal/streambench build -o "$WORK/measure" ./cmd/measure

# stop_last stops the process started last, by its PID.
stop_last() {
  local pid=${STARTED_PIDS[-1]}
  unset 'STARTED_PIDS[-1]'
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

echo "== memory: 2,000 idle listen streams on one server"
start_server server "$WORK" "$WORK/server" -streams 2100
"$WORK/measure" -mode mem -url "$URL" -streams 2000 -out "$WORK/results" -profiles "$WORK/profiles"
echo "   the same on a bare net/http event stream (the floor, no MCP):"
"$WORK/measure" -mode mem -url "${URL%/mcp}/floor" -streams 2000 -out "$WORK/floor" | sed 's/^/   /'
stop_last

echo "== latency: 1,000 streams on 3 replicas sharing Redis"
redis_port=$(fleet_free_port " ")
redis-server --bind 127.0.0.1 --port "$redis_port" --save "" --appendonly no --daemonize no \
  --dir "$WORK" --logfile "$WORK/redis.log" </dev/null >/dev/null 2>&1 &
STARTED_PIDS+=("$!")
fleet_wait_for redis "$!" "$redis_port" "$WORK/redis.log"
pong=""
for _ in $(seq 1 50); do
  pong=$(redis-cli -h 127.0.0.1 -p "$redis_port" ping 2>/dev/null) && [ "$pong" = PONG ] && break
  sleep 0.1
done
[ "$pong" = PONG ] || { echo "redis-server on 127.0.0.1:$redis_port does not answer PING" >&2; exit 1; }
echo "   $(redis-server --version | cut -d' ' -f1-3) at 127.0.0.1:$redis_port"
urls=()
for i in 0 1 2; do
  start_server "replica$i" "$WORK" "$WORK/server" -streams 1100 -redis "redis://127.0.0.1:$redis_port/0"
  urls+=("$URL")
done
"$WORK/measure" -mode latency -url "$(IFS=,; echo "${urls[*]}")" -streams 1000 -publications "$PUBLICATIONS" -out "$WORK/results"
stop_last
stop_last
stop_last
stop_last

echo "== bounds (TestBounds reads $WORK/results)"
if ! STREAMBENCH_RESULTS="$WORK/results" go -C internal/streambench test -count=1 -run '^TestBounds$' -v . | grep -v -e '^=== RUN'; then
  echo "a figure is past its bound; the server's heap and goroutine profiles with the streams open: $WORK/profiles" >&2
  exit 1
fi
