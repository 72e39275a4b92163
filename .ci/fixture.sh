# Sourced by the CI scripts. start_example NAME DIR [ARGS...] builds
# ./examples/NAME into DIR, starts it with -addr 127.0.0.1:0 (a port the
# system picks) and ARGS through start_server (below), and sets URL. Every process started here is stopped by its PID when the
# script exits. start_fixture DIR is start_example conformance DIR.
# CLEANUP_DIRS lists directories (the caller's WORK) removed on a clean
# exit, after the processes are stopped; a failing run keeps them to read.
STARTED_PIDS=()
CLEANUP_DIRS=()
stop_started() {
  local rc=$?
  for pid in "${STARTED_PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [ "$rc" -eq 0 ]; then
    for dir in "${CLEANUP_DIRS[@]}"; do
      rm -rf "$dir"
    done
  fi
}
trap stop_started EXIT

start_example() {
  local name="$1" dir="$2"
  shift 2
  go -C "examples/$name" build -o "$dir/$name" .  # examples/inbox is a module of its own
  start_server "$name" "$dir" "$dir/$name" -addr 127.0.0.1:0 "$@"
  echo "== examples/$name at $URL"
}

# start_server NAME DIR CMD [ARGS...] starts CMD (which must listen on a
# loopback port and print its "http://127.0.0.1:PORT/mcp" URL), its
# stdout in DIR/NAME.out and stderr in DIR/NAME.log, waits at most 10 s
# for the URL, and sets URL.
start_server() {
  local name="$1" dir="$2"
  shift 2
  "$@" > "$dir/$name.out" 2> "$dir/$name.log" &
  local pid=$!
  STARTED_PIDS+=("$pid")
  URL=""
  for _ in $(seq 1 50); do
    URL="$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$dir/$name.out" | head -n 1 || true)"
    [ -n "$URL" ] && return 0
    kill -0 "$pid" 2>/dev/null || { cat "$dir/$name.log" >&2; echo "$name: exited before listening" >&2; return 1; }
    sleep 0.2
  done
  echo "$name: not listening within 10 s" >&2
  return 1
}

start_fixture() { start_example conformance "$@"; }
