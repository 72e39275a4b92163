#!/usr/bin/env bash
# Side-by-side benchmark: mcpdual (a route and a function tool), go-sdk,
# mcp-go (without and with input validation), the net/http floor, and the
# TypeScript SDK v2 server on Node; in process (the Go variants) and over
# loopback HTTP (all), then the report of cmd/summarize on stdout (ratios
# to the floor, tables, the cost of growing work); progress and raw lines
# go to stderr.
#
#   ./run.sh [DURATION [WORKERS [REPEATS]]]   full run, defaults 5s "16 64" 3
#   ./run.sh quick                            CI: 1 repeat, 1 s runs, 16 workers
#
# Environment (arguments win): DURATION, WORKERS (space-separated counts),
# REPEATS, WARMUP (1s), BENCHTIME (go test -benchtime, 1s), MAX_REQUESTS
# per load run (2000000), SERVER_CPUS (0) and LOAD_CPUS (1) for taskset,
# VARIANTS and PROTOS (space-separated subsets), SCALE (1: run
# BenchmarkScale once per repeat; 0: not), RESULTS (a file to keep the raw
# lines in).
#
# Repeats are the outer loop and the variants interleave inside it, so a
# slow spell of a shared machine spreads over every variant instead of
# landing on one. The floor runs between mcpdual's two variants, and every
# second repeat takes the variants in reverse order: what each ratio
# divides was measured close together, and a drift over the run does not
# always fall on the same side of it. Servers listen on 127.0.0.1 only;
# each is stopped by its PID (also on exit or Ctrl-C). The server's CPU
# per request is read from /proc/<pid>/stat by cmd/load over the measured
# window.
set -euo pipefail
cd "$(dirname "$0")"

if [[ "${1:-}" == quick ]]; then
  shift
  : "${DURATION:=1s}" "${WARMUP:=300ms}" "${REPEATS:=1}" "${BENCHTIME:=200ms}" "${MAX_REQUESTS:=200000}" "${WORKERS:=16}" "${SCALE:=0}"
fi
DURATION=${1:-${DURATION:-5s}}
WORKERS=${2:-${WORKERS:-16 64}}
REPEATS=${3:-${REPEATS:-3}}
WARMUP=${WARMUP:-1s}
BENCHTIME=${BENCHTIME:-1s}
MAX_REQUESTS=${MAX_REQUESTS:-2000000}
SERVER_CPUS=${SERVER_CPUS:-0}
LOAD_CPUS=${LOAD_CPUS:-1}
VARIANTS=${VARIANTS:-"mcpdual floor mcpdual-func gosdk mcpgo mcpgo-validate ts-node"}
PROTOS=${PROTOS:-"2025-06-18 2026-07-28"}
SCALE=${SCALE:-1}

W=$(mktemp -d "${TMPDIR:-/tmp}/mcpdual-bench.XXXXXX")
SERVER_PID=""
stop_server() {
  if [[ -n "$SERVER_PID" ]]; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
  fi
}
trap 'stop_server; rm -rf "$W"' EXIT
trap 'exit 130' INT TERM # through the EXIT trap

echo "== build" >&2
go build -o "$W/server" ./cmd/server
go build -o "$W/load" ./cmd/load
go build -o "$W/summarize" ./cmd/summarize
go test -c -o "$W/bench.test" .
NODE=""
if [[ " $VARIANTS " == *" ts-node "* ]]; then
  # Node 22 and the pinned packages of node/package-lock.json.
  NODE=$(bash ../../.ci/node.sh)
  (cd node && npm ci --no-audit --no-fund --loglevel=error >&2)
fi

# Server (and in-process benchmarks) on one CPU, load generator on another,
# so that neither steals the other's time; Go sizes GOMAXPROCS to the
# affinity, so each process runs on one core. taskset execs its command,
# so $! below is the server's own PID.
PIN_SERVER=() PIN_LOAD=() pinning="none (taskset missing, one CPU, or CPUs not allowed)"
if command -v taskset >/dev/null && [[ $(nproc) -ge 2 ]] &&
  taskset -c "$SERVER_CPUS" true 2>/dev/null && taskset -c "$LOAD_CPUS" true 2>/dev/null; then
  PIN_SERVER=(taskset -c "$SERVER_CPUS") PIN_LOAD=(taskset -c "$LOAD_CPUS")
  pinning="server and in-process benchmarks on CPU $SERVER_CPUS, load generator on CPU $LOAD_CPUS"
fi

start_server() {
  rm -f "$W/server.out" # else the previous server's line may be read
  if [[ "$1" == ts-node ]]; then
    "${PIN_SERVER[@]}" "$NODE" node/server.mjs 900 >"$W/server.out" 2>"$W/server.err" &
  else
    "${PIN_SERVER[@]}" "$W/server" -variant "$1" -lifetime 15m >"$W/server.out" 2>"$W/server.err" &
  fi
  SERVER_PID=$!
  local line
  for _ in $(seq 100); do
    line=$(grep -m1 '^ready ' "$W/server.out" 2>/dev/null || true)
    if [[ -n "$line" ]]; then
      [[ "$line" == *" pid=$SERVER_PID" ]] || { echo "server reports another PID than $SERVER_PID: $line" >&2; return 1; }
      URL=$(cut -d' ' -f2 <<<"$line")
      return 0
    fi
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  cat "$W/server.err" >&2
  echo "server $1 did not start" >&2
  return 1
}

RAW="$W/results.txt"
protos_re=$(tr ' ' '|' <<<"$PROTOS")
load_avg() { cut -d' ' -f1-3 /proc/loadavg; }
LOAD_START=$(load_avg)
for r in $(seq "$REPEATS"); do
  order=$VARIANTS
  if ((r % 2 == 0)); then
    order=$(tr ' ' '\n' <<<"$VARIANTS" | tac | tr '\n' ' ')
  fi
  echo "== repeat $r/$REPEATS: in process (-benchtime $BENCHTIME): $order" >&2
  for v in $order; do
    [[ "$v" == ts-node ]] && continue # another process: loopback only
    "${PIN_SERVER[@]}" "$W/bench.test" -test.run '^$' -test.bench "^BenchmarkToolsCall\$/^($protos_re)\$/^$v\$" \
      -test.benchmem -test.benchtime "$BENCHTIME" -test.count 1 >"$W/bench.out" ||
      { cat "$W/bench.out" >&2; exit 1; }
    grep '^BenchmarkToolsCall/' "$W/bench.out" | tee -a "$RAW" >&2
  done
  if [[ "$SCALE" == 1 ]]; then
    "${PIN_SERVER[@]}" "$W/bench.test" -test.run '^$' -test.bench '^BenchmarkScale' \
      -test.benchmem -test.benchtime "$BENCHTIME" -test.count 1 >"$W/bench.out" ||
      { cat "$W/bench.out" >&2; exit 1; }
    grep '^BenchmarkScale' "$W/bench.out" | tee -a "$RAW" >&2
  fi
  for n in $WORKERS; do
    echo "== repeat $r/$REPEATS: loopback ($n workers, $WARMUP warm-up, $DURATION, at most $MAX_REQUESTS requests)" >&2
    for v in $order; do
      for p in $PROTOS; do
        start_server "$v"
        "${PIN_LOAD[@]}" "$W/load" -url "$URL" -proto "$p" -label "$v" -workers "$n" -server-pid "$SERVER_PID" \
          -warmup "$WARMUP" -duration "$DURATION" -max-requests "$MAX_REQUESTS" >>"$RAW"
        stop_server
      done
    done
  done
done

[[ -z "${RESULTS:-}" ]] || cp "$RAW" "$RESULTS"
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
echo "$REPEATS interleaved repeats; in process: -benchtime $BENCHTIME; loopback: $WORKERS keep-alive workers, $WARMUP warm-up + $DURATION per run; pinning: $pinning"
echo "machine: $(nproc) CPUs ($cpu), $(go version | cut -d' ' -f3)${NODE:+, Node $("$NODE" --version)}; load average $LOAD_START at the start, $(load_avg) at the end"
echo
"$W/summarize" "$RAW"
