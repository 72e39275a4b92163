#!/usr/bin/env bash
# Modules a user outside this tree can fetch (design record 018): every publishable
# module — the core and every go.mod under mcp/, found afresh each run — is
# packed at the release version into a file module proxy, and a consumer
# module in a temporary directory outside the repository requires each by
# that version, with no replace, and is built and tested from that proxy
# alone: no network, and our modules can come from nowhere else.
# Run from anywhere: bash .ci/modules.sh
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

version=v0.5.0

mods=(.)
while IFS= read -r m; do mods+=("$m"); done < <(find mcp -name go.mod -not -path '*/testdata/*' -printf '%h\n' | sort)
echo "modules at $version: ${mods[*]}"

# Third-party dependencies of every module into the module cache, the
# usual way (the packer's own golang.org/x/mod too).
for m in "${mods[@]}" internal/modproxy; do
  go -C "$m" mod download
done
cache=$(go env GOMODCACHE)
origproxy=$(go env GOPROXY)

tmp=$(mktemp -d)
cleanup() {
  # A module cache is read-only on disk; go clean empties it.
  GOMODCACHE="$tmp/modcache" go clean -modcache 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

go -C internal/modproxy vet ./...
go -C internal/modproxy test -count=1 ./...
go -C internal/modproxy build -o "$tmp/modproxy" .
dirs=()
for m in "${mods[@]}"; do dirs+=("$repo/$m"); done
"$tmp/modproxy" -version "$version" -out "$tmp/proxy" -consumer "$tmp/consumer" "${dirs[@]}"
cp internal/modproxy/testdata/consumer_test.go "$tmp/consumer/"
case "$tmp" in "$repo"/*) echo "the consumer is inside the repository" >&2; exit 1 ;; esac

# The consumer resolves our modules from the packed proxy only, and
# third-party modules from the download cache filled above (itself laid
# out as a module proxy); a fresh module cache means nothing packed by an
# earlier run is reused, and there is no https proxy or direct fetch.
export GOPROXY="file://$tmp/proxy,file://$cache/cache/download"
export GOMODCACHE="$tmp/modcache"
export GOFLAGS="-mod=mod -trimpath" # -trimpath: the build cache serves the next run, whose module cache is elsewhere
export GONOSUMDB=github.com/mcpdual GOSUMDB=off GOTOOLCHAIN=local
unset GOPRIVATE GONOPROXY GOWORK

cd "$tmp/consumer"
go build ./...
if grep -n replace go.mod; then
  echo "the consumer's go.mod has a replace" >&2
  exit 1
fi
go vet ./...
go test -count=1 ./...
# Every module was taken from the packed proxy at the release version.
# (Listed from the packages the consumer builds, not `go list -m all`,
# which wants the .info of every module in the graph, test-only ones of
# our dependencies too, and those need not be in the cache.)
go list -deps -test -f '{{with .Module}}{{.Path}} {{.Version}} {{with .Replace}}replaced{{end}}{{end}}' ./... | grep '^github.com/mcpdual/' | sort -u | tee "$tmp/ours"
awk -v v="$version" -v n="${#mods[@]}" '$2 != v || NF > 2 { bad = 1 } END { exit bad || NR != n }' "$tmp/ours" || {
  echo "expected our ${#mods[@]} modules, each at $version and none replaced" >&2
  exit 1
}
# ... and its bytes are those packed here, not a copy found elsewhere.
while read -r path _; do
  cmp "$tmp/proxy/$path/@v/$version.zip" "$GOMODCACHE/cache/download/$path/@v/$version.zip"
done < "$tmp/ours"
echo "ok: ${#mods[@]} modules fetched at $version through a file module proxy and tested by a consumer outside the repository"

# The path the README gives while the modules are not published: a module
# outside the tree that requires ours through a replace to a clone, one
# per module, tidied and built with no proxy of ours at all (the version
# in its require is a placeholder the replace stands in for).
repl="$tmp/replaced"
mkdir -p "$repl"
cp "$tmp/consumer/"*.go "$repl/"
cd "$repl"
go mod init example.com/replaced >/dev/null 2>&1
for m in "${mods[@]}"; do
  path=github.com/mcpdual/mcpdual
  [ "$m" = . ] || path="$path/$m"
  go mod edit -replace "$path=$repo/$m"
done
# Third-party modules as a user gets them (the usual proxy and module
# cache); ours come from the replaces, from nowhere else.
export GOPROXY="$origproxy" GOMODCACHE="$cache" GOFLAGS="-trimpath"
go mod tidy
go build ./...
go vet ./...
go test -count=1 ./...
n=$(go list -deps -test -f '{{with .Module}}{{.Path}} {{with .Replace}}{{.Path}}{{end}}{{end}}' ./... | sort -u | awk '$1 ~ /^github.com\/mcpdual\// && $2 != "" { n++ } END { print n+0 }')
[ "$n" = "${#mods[@]}" ] || { echo "expected our ${#mods[@]} modules replaced by the clone, got $n" >&2; exit 1; }
echo "ok: ${#mods[@]} modules used through replace lines to a clone, as the README's Versions section says"
