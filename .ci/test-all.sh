#!/usr/bin/env bash
# Every module's tests: the root module and each nested one (its own
# go.mod), found afresh each run from the files git tracks (every go.mod
# below the root, in a copy without git). Arguments go to go test, e.g.
#   bash .ci/test-all.sh -race
# mcp/redisstore's tests and some of examples/inbox's start redis-server
# themselves: it is installed from Debian's packages when missing and this
# runs as root with apt-get; otherwise those tests say how to get it.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v redis-server >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "== installing redis-server (the Redis stores' tests run against a real one)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
fi

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t mods < <(git ls-files '*go.mod' | grep -v '/testdata/' | xargs -n1 dirname | sort -u)
else
  mapfile -t mods < <(find . -name go.mod -not -path '*/testdata/*' -not -path '*/node_modules/*' -printf '%h\n' | sed 's#^\./##' | sort -u)
fi

failed=()
for m in "${mods[@]}"; do
  # .ci/run has run the root module's tests already, as the README's first command.
  [ "$m" = . ] && [ -n "${MCPDUAL_TEST_ALL_SKIP_ROOT:-}" ] && continue
  echo "== go test $* ($m)"
  if ! go -C "$m" test -count=1 "$@" ./...; then
    failed+=("$m")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "modules with failing tests: ${failed[*]}" >&2
  exit 1
fi
echo "every module's tests passed: ${#mods[@]} modules"
