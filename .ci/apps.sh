#!/usr/bin/env bash
# MCP Apps in a real browser (design record 026): headless Chromium (Debian's,
# installed when missing) loads a minimal host page that uses
# @modelcontextprotocol/ext-apps' host-side bridge over the TypeScript SDK
# v2 client (2026-07-28) against examples/inbox on loopback. The host
# calls emails_triage, renders the triage view in a sandboxed iframe, a
# click in the view calls the app-only emails_mark_processed, and the REST
# API shows the change. Every npm package is pinned (internal/interop/apps).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcpdual-apps.XXXXXX")"
NODE="$(bash .ci/node.sh)"

CHROMIUM="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$CHROMIUM" ]; then
  echo "== installing chromium from Debian"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium > /dev/null
  CHROMIUM="$(command -v chromium)"
fi
echo "== $("$CHROMIUM" --version 2>/dev/null || echo chromium)"

source .ci/fixture.sh
CLEANUP_DIRS+=("$WORK")
start_example inbox "$WORK"

echo "== ext-apps host bridge, TypeScript SDK v2 client, puppeteer-core (npm ci)"
(cd internal/interop/apps && npm ci --no-audit --no-fund --loglevel=error)
(cd internal/interop/apps && timeout 120 "$NODE" run.mjs "$URL" "$CHROMIUM")
