#!/usr/bin/env bash
# Prints the path of a Node.js 22 binary, installing one from the npm
# registry (package node-linux-<arch>) into the cache when the machine's
# node is older. The conformance suite needs fs.globSync (Node 22).
set -euo pipefail
NODE_VERSION=22.23.3
CACHE="${MCPDUAL_CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcpdual-conformance}"
node_ok() { "$1" -e 'process.exit(typeof require("fs").globSync === "function" ? 0 : 1)' 2>/dev/null; }
NODE="$(command -v node || true)"
if [ -n "$NODE" ] && node_ok "$NODE"; then
  echo "$NODE"
  exit 0
fi
case "$(uname -m)" in
  x86_64|amd64) arch=x64 ;;
  aarch64|arm64) arch=arm64 ;;
  *) echo "node.sh: no Node 22 package for $(uname -m)" >&2; exit 1 ;;
esac
NODE="$CACHE/node-$NODE_VERSION/node_modules/node-linux-$arch/bin/node"
if [ ! -x "$NODE" ]; then
  if ! command -v npm >/dev/null; then
    # A machine without Node at all: Debian's npm (and the node it pulls
    # in) is only the installer of the pinned Node below.
    echo "== installing npm from Debian" >&2
    apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >&2
  fi
  echo "== installing Node $NODE_VERSION from the npm registry" >&2
  mkdir -p "$CACHE/node-$NODE_VERSION"
  echo '{"private":true}' > "$CACHE/node-$NODE_VERSION/package.json"
  npm install --prefix "$CACHE/node-$NODE_VERSION" --no-audit --no-fund --loglevel=error "node-linux-$arch@$NODE_VERSION" >&2
fi
node_ok "$NODE" || { echo "node.sh: $NODE is not Node 22" >&2; exit 1; }
echo "$NODE"
