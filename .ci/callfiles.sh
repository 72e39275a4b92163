#!/usr/bin/env bash
# Counts the files of package mcp that one 2026-07-28 route tools/call over
# HTTP executes (design record 030): two coverage runs of TestCallFilesProbe,
# without the call and with it; a file counts when a block of it runs only
# with the call. Fails above the bound.
set -euo pipefail
cd "$(dirname "$0")/.."
bound=${MCPDUAL_CALLFILES_BOUND:-12}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for call in 0 1; do
  MCPDUAL_PROBE_CALL=$call go test -count=1 -run '^TestCallFilesProbe$' -covermode=count \
    -coverpkg=github.com/mcpdual/mcpdual/mcp -coverprofile="$dir/$call.out" ./mcp >/dev/null
done
files=$(awk 'FNR==1{next} FILENAME~/0.out$/{base[$1]=$3; next} $3>0 && !(base[$1]>0){split($1,a,":"); f=a[1]; sub(/.*\//,"",f); seen[f]=1} END{for (f in seen) print f}' "$dir/0.out" "$dir/1.out" | sort)
n=$(echo "$files" | grep -c . || true)
echo "files of mcp one 2026-07-28 route tools/call runs: $n (bound $bound)"
echo "$files" | sed 's/^/  /'
if [ "$n" -gt "$bound" ]; then
  echo "more than $bound files" >&2
  exit 1
fi
