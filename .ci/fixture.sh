# Sourced by the CI scripts: start_fixture DIR builds examples/conformance
# into DIR, starts it on a loopback port the system picks, waits (at most
# 10 s) for it to name its URL, sets URL and FIXTURE_PID, and stops it by
# that PID when the script exits.
start_fixture() {
  local dir="$1"
  go build -o "$dir/fixture" ./examples/conformance
  "$dir/fixture" -addr 127.0.0.1:0 > "$dir/fixture.out" 2> "$dir/fixture.log" &
  FIXTURE_PID=$!
  trap 'kill "$FIXTURE_PID" 2>/dev/null || true; wait "$FIXTURE_PID" 2>/dev/null || true' EXIT
  URL=""
  for _ in $(seq 1 50); do
    URL="$(sed -n 's/^listening on //p' "$dir/fixture.out" | head -n 1)"
    [ -n "$URL" ] && break
    kill -0 "$FIXTURE_PID" 2>/dev/null || { cat "$dir/fixture.log" >&2; echo "fixture: exited before listening" >&2; return 1; }
    sleep 0.2
  done
  [ -n "$URL" ] || { echo "fixture: not listening within 10 s" >&2; return 1; }
  case "$URL" in http://127.0.0.1:*) ;; *) echo "fixture: not a loopback URL: $URL" >&2; return 1 ;; esac
  echo "== fixture at $URL (pid $FIXTURE_PID)"
}
