#!/usr/bin/env bash
# Sourced by the scripts that fuzz. fuzz DIR PKG TARGET TIME runs
# `go -C DIR test PKG -fuzz TARGET -fuzztime TIME`. Go 1.26's fuzzing
# coordinator can report a bare "context deadline exceeded" when the
# -fuzztime window closes while a worker is mid-input (golang/go#75804,
# fixed in Go 1.27): no input failed and nothing is written. Such a run is
# not taken for a finding: the target's corpus is replayed instead (seeds
# and every input ever committed), which must pass. Anything else that
# fails — a written failing input, a panic, a test error — fails as
# before.
fuzz() {
  local dir="$1" pkg="$2" target="$3" time="$4" log rc=0
  log="$(mktemp)"
  go -C "$dir" test "$pkg" -run '^$' -fuzz "^$target\$" -fuzztime "$time" 2>&1 | tee "$log" || rc=$?
  if [ "$rc" -ne 0 ] && grep -q 'context deadline exceeded' "$log" &&
    ! grep -q -e 'Failing input written' -e 'panic:' -e '_test.go:[0-9]*:' "$log"; then
    echo "fuzz: $target stopped on Go's fuzztime-boundary race (golang/go#75804), with no failing input; replaying its corpus"
    rc=0
    go -C "$dir" test "$pkg" -run "^$target\$" -count=1 || rc=$?
  fi
  rm -f "$log"
  return "$rc"
}
