#!/usr/bin/env bash
# Side-by-side benchmark: mcpdual, go-sdk, mcp-go (without and with input
# validation) and the net/http floor, in process and over loopback, then
# one Markdown table on stdout (progress and raw lines on stderr).
#
#   ./run.sh [DURATION [WORKERS [REPEATS]]]   full run, defaults 5s 4 3
#   ./run.sh quick                            CI smoke test: 1 repeat, short runs
#
# Environment (arguments win): DURATION, WORKERS, REPEATS, WARMUP (1s),
# BENCHTIME (go test -benchtime, 1s), MAX_REQUESTS per load run (2000000),
# SERVER_CPUS (0) and LOAD_CPUS (1) for taskset, VARIANTS and PROTOS
# (space-separated subsets), RESULTS (a file to keep the raw lines in).
#
# Repeats are the outer loop, so a slow spell of a shared machine spreads
# over every variant instead of landing on one. Servers listen on
# 127.0.0.1 only, and each is stopped by its PID (also on exit or Ctrl-C).
set -euo pipefail
cd "$(dirname "$0")"

if [[ "${1:-}" == quick ]]; then
  shift
  : "${DURATION:=1s}" "${WARMUP:=200ms}" "${REPEATS:=1}" "${BENCHTIME:=200ms}" "${MAX_REQUESTS:=200000}"
fi
DURATION=${1:-${DURATION:-5s}}
WORKERS=${2:-${WORKERS:-4}}
REPEATS=${3:-${REPEATS:-3}}
WARMUP=${WARMUP:-1s}
BENCHTIME=${BENCHTIME:-1s}
MAX_REQUESTS=${MAX_REQUESTS:-2000000}
SERVER_CPUS=${SERVER_CPUS:-0}
LOAD_CPUS=${LOAD_CPUS:-1}
VARIANTS=${VARIANTS:-"mcpdual gosdk mcpgo mcpgo-validate floor"}
PROTOS=${PROTOS:-"2025-06-18 2026-07-28"}

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
  "${PIN_SERVER[@]}" "$W/server" -variant "$1" -lifetime 15m >"$W/server.out" 2>"$W/server.err" &
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
for r in $(seq "$REPEATS"); do
  echo "== repeat $r/$REPEATS: in process (-benchtime $BENCHTIME)" >&2
  for v in $VARIANTS; do
    "${PIN_SERVER[@]}" "$W/bench.test" -test.run '^$' -test.bench "^BenchmarkToolsCall\$/^($protos_re)\$/^$v\$" \
      -test.benchmem -test.benchtime "$BENCHTIME" -test.count 1 >"$W/bench.out" ||
      { cat "$W/bench.out" >&2; exit 1; }
    grep '^BenchmarkToolsCall/' "$W/bench.out" | tee -a "$RAW" >&2
  done
  echo "== repeat $r/$REPEATS: loopback ($WORKERS workers, $WARMUP warm-up, $DURATION, at most $MAX_REQUESTS requests)" >&2
  for v in $VARIANTS; do
    for p in $PROTOS; do
      start_server "$v"
      "${PIN_LOAD[@]}" "$W/load" -url "$URL" -proto "$p" -label "$v" -workers "$WORKERS" \
        -warmup "$WARMUP" -duration "$DURATION" -max-requests "$MAX_REQUESTS" >>"$RAW"
      stop_server
    done
  done
done

[[ -z "${RESULTS:-}" ]] || cp "$RAW" "$RESULTS"
echo "$REPEATS interleaved repeats; in process: -benchtime $BENCHTIME; loopback: $WORKERS keep-alive workers, $WARMUP warm-up + $DURATION per run; pinning: $pinning; $(go version | cut -d' ' -f3); $(nproc) CPUs"
echo
"$W/summarize" "$RAW"
