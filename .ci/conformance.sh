#!/usr/bin/env bash
# Runs the official MCP conformance suite against examples/conformance, on
# every wire it has:
#   1. --requirements 2026-07-28                 every scored scenario must pass
#   2. --requirements 2025-11-25                 every scenario must pass
#   3. --suite all --spec-version 2025-06-18     every scenario must pass
# (the change-notification scenarios included: the fixture serves listen
# and the 2025 push, examples/conformance/changes.go)
# each twice: against one fixture process, then against a fleet of three
# replicas behind nginx (round robin: consecutive requests of one client
# reach different replicas) sharing one Redis and one key ring
# (.ci/fixture.sh's start_fleet). Both pass the same gates, and the fleet
# must give every scenario the state the single process gave it.
# Node 22 and the suite come from the npm registry into a cache
# (MCPDUAL_CONFORMANCE_CACHE, default ~/.cache/mcpdual-conformance). Every
# process is started on a free loopback port and stopped by its PID.
set -euo pipefail
cd "$(dirname "$0")/.."

SUITE_VERSION=0.2.0-alpha.12
CACHE="${MCPDUAL_CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcpdual-conformance}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcpdual-conformance.XXXXXX")"
mkdir -p "$CACHE"

# --- Node 22 (the suite needs fs.globSync).
NODE="$(bash .ci/node.sh)"

CLI="$CACHE/suite-$SUITE_VERSION/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -f "$CLI" ]; then
  echo "== installing @modelcontextprotocol/conformance@$SUITE_VERSION"
  mkdir -p "$CACHE/suite-$SUITE_VERSION"
  echo '{"private":true}' > "$CACHE/suite-$SUITE_VERSION/package.json"
  npm install --prefix "$CACHE/suite-$SUITE_VERSION" --no-audit --no-fund --loglevel=error "@modelcontextprotocol/conformance@$SUITE_VERSION"
fi

source .ci/fixture.sh
CLEANUP_DIRS+=("$WORK")

# The fixture is a module of its own (go-redis stays out of the library's
# go.mod), which the root's go vet does not reach.
go -C examples/conformance vet ./...

# leg NAME [suite arguments...]: runs the suite once against $URL, prints
# one line per scenario from its checks.json files, and a closing "N
# passed, N failed".
leg() {
  local name="$1"; shift
  local out="$WORK/$name"
  mkdir -p "$out"
  echo
  echo "== conformance leg: $name ($*)"
  local rc=0
  (cd "$out" && timeout 900 "$NODE" "$CLI" server --url "$URL" "$@" -o "$out") > "$out/cli.txt" 2>&1 || rc=$?
  "$NODE" - "$out" <<'JS'
const fs = require("fs"), path = require("path");
const out = process.argv[2];
const cli = fs.readFileSync(path.join(out, "cli.txt"), "utf8");
// Scenarios a requirement set runs without scoring, as the CLI lists them.
const unscored = new Set([...cli.matchAll(/^\s+\S\s+(\S+)\s+\((?:extension|pending|added-after-release)\)\s*$/gm)].map((m) => m[1]));
const rows = [];
for (const dir of fs.readdirSync(out).sort()) {
  const m = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(dir);
  const file = path.join(out, dir, "checks.json");
  if (!m || !fs.existsSync(file)) continue;
  const checks = JSON.parse(fs.readFileSync(file, "utf8"));
  const count = (s) => checks.filter((c) => c.status === s).length;
  const ok = checks.filter((c) => c.id !== "wire-schema-valid" && c.status === "SUCCESS").length;
  const state = count("FAILURE") > 0 ? "FAIL" : ok > 0 ? "PASS" : count("WARNING") > 0 ? "WARN" : "SKIP";
  const failed = checks.filter((c) => c.status === "FAILURE").map((c) => c.id);
  rows.push({ name: m[1], state, scored: !unscored.has(m[1]),
    text: `${state} ${m[1]} (${count("SUCCESS")} ok, ${count("FAILURE")} failed, ${count("WARNING")} warnings)` +
      (failed.length ? ` failed: ${failed.join(" ")}` : "") + (unscored.has(m[1]) ? " [not scored]" : "") });
}
for (const r of rows) console.log(r.text);
const scored = rows.filter((r) => r.scored);
const n = (s) => scored.filter((r) => r.state === s).length;
console.log(`${n("PASS")} passed, ${n("FAIL")} failed` + (n("WARN") ? `, ${n("WARN")} with warnings only` : "") + (n("SKIP") ? `, ${n("SKIP")} skipped` : ""));
JS
  # The suite's own verdict on the expected-failures file, when one is given.
  sed -n '/Expected failures (in baseline)/,$p' "$out/cli.txt" | sed 's/\x1b\[[0-9;]*m//g'
  if [ "$rc" -ne 0 ]; then
    echo "conformance: leg $name failed (suite exit $rc); its output is in $out/cli.txt" >&2
    tail -n 40 "$out/cli.txt" >&2
    return 1
  fi
}

# legs TARGET LOG...: the three legs against $URL, with their gates; LOG
# are the access logs of the processes behind $URL. Each leg's lines go to
# $WORK/TARGET-LEG.txt as well.
legs() {
  local target="$1"; shift
  local logs=("$@") before=() i
  leg "$target-2026-07-28" --requirements 2026-07-28 | tee "$WORK/$target-2026-07-28.txt"
  grep -qx '37 passed, 0 failed' "$WORK/$target-2026-07-28.txt" || { echo "conformance ($target): the 2026-07-28 leg must pass all 37 scored scenarios" >&2; return 1; }
  # The tasks extension's scenarios are not scored; every one must pass all
  # the same (design record 015), except tasks-status-notifications, which the suite
  # always skips (its harness is unfinished).
  local tasks_bad tasks_ok
  tasks_bad="$(grep -E '^(PASS|FAIL|WARN|SKIP) tasks-' "$WORK/$target-2026-07-28.txt" | grep -v '^PASS ' | grep -v '^SKIP tasks-status-notifications ' || true)"
  tasks_ok="$(grep -c '^PASS tasks-' "$WORK/$target-2026-07-28.txt" || true)"
  if [ -n "$tasks_bad" ] || [ "$tasks_ok" -ne 9 ]; then
    echo "conformance ($target): every tasks-* scenario must pass (got $tasks_ok of 9):" >&2
    echo "$tasks_bad" >&2
    return 1
  fi
  echo "tasks-*: $tasks_ok of 9 scenarios passed (tasks-status-notifications skipped by the suite)"
  # server-stateless's subscriptions/listen checks ran and passed, the
  # list-change deliveries (SHOULD) included: not skipped, not warnings.
  "$NODE" - "$WORK/$target-2026-07-28" <<'JS' || { echo "conformance ($target): the listen checks of server-stateless did not all pass" >&2; return 1; }
const fs = require("fs"), path = require("path");
const out = process.argv[2];
const dir = fs.readdirSync(out).find((d) => /^server-server-stateless-\d{4}/.test(d));
if (!dir) { console.error("no server-stateless result"); process.exit(1); }
const checks = JSON.parse(fs.readFileSync(path.join(out, dir, "checks.json"), "utf8"));
const want = ["sep-2575-server-sends-subscription-ack", "sep-2575-server-tags-subscription-id", "sep-2575-server-honors-notification-filter",
  "sep-2575-server-sends-prompts-list-changed-on-subscription", "sep-2575-server-sends-tools-list-changed-on-subscription"];
let bad = 0;
for (const id of want) {
  const c = checks.filter((c) => c.id === id);
  const ok = c.length > 0 && c.every((x) => x.status === "SUCCESS");
  console.log(`listen check ${id}: ${c.map((x) => x.status).join(",") || "not run"}`);
  if (!ok) bad++;
}
process.exit(bad ? 1 : 0);
JS

  for i in "${!logs[@]}"; do before[i]=$(wc -l < "${logs[i]}"); done
  leg "$target-2025-11-25" --requirements 2025-11-25 | tee "$WORK/$target-2025-11-25.txt"
  grep -qE '^[0-9]+ passed, 0 failed' "$WORK/$target-2025-11-25.txt" || { echo "conformance ($target): the 2025-11-25 leg has failures" >&2; return 1; }
  # The leg must really speak 2025-11-25: its sessions' initialize requests,
  # as the access logs record them, negotiated that revision.
  local negotiated
  negotiated="$(for i in "${!logs[@]}"; do tail -n +"$((before[i] + 1))" "${logs[i]}"; done | grep '"method":"initialize"' | grep -o '"version":"[0-9-]*"' | sort | uniq -c || true)"
  echo "2025-11-25 leg, initialize by negotiated revision:"
  echo "$negotiated"
  echo "$negotiated" | grep -q '"version":"2025-11-25"' || { echo "conformance ($target): no session of the 2025-11-25 leg negotiated 2025-11-25" >&2; return 1; }
  leg "$target-2025-06-18" --suite all --spec-version 2025-06-18 | tee "$WORK/$target-2025-06-18.txt"
  grep -qE '^[0-9]+ passed, 0 failed' "$WORK/$target-2025-06-18.txt" || { echo "conformance ($target): the 2025-06-18 leg has failures" >&2; return 1; }
}

# states TARGET: every scenario's state, per leg, for the comparison.
states() {
  local l
  for l in 2026-07-28 2025-11-25 2025-06-18; do
    grep -E '^(PASS|FAIL|WARN|SKIP) ' "$WORK/$1-$l.txt" | cut -d' ' -f1-2 | sed "s/^/$l /"
  done
}

# --- One fixture process, on a port the system picks.
mkdir -p "$WORK/single-run"
start_fixture "$WORK/single-run" -access-log
echo
echo "==== one fixture process at $URL"
legs single "$WORK/single-run/conformance.log"

# --- Three replicas behind nginx, one Redis, one key ring.
echo
echo "==== a fleet: three fixture replicas behind nginx, one Redis, one key ring"
mkdir -p "$WORK/fleet-run"
start_fleet "$WORK/fleet-run" 3 -access-log
legs fleet "${FLEET_LOGS[@]}"
# Round robin really spread the legs: every replica served requests.
for log in "${FLEET_LOGS[@]}"; do
  served=$(grep -c '"method":' "$log" || true)
  echo "$(basename "$log" .log): $served MCP requests"
  [ "$served" -gt 0 ] || { echo "conformance (fleet): $(basename "$log" .log) served no request" >&2; exit 1; }
done
# The fleet gives every scenario the state one process gave it.
if ! diff <(states single) <(states fleet) > "$WORK/states.diff"; then
  echo "conformance: the fleet's scenarios differ from one process's (< single, > fleet):" >&2
  cat "$WORK/states.diff" >&2
  exit 1
fi
echo
echo "== conformance: every leg as expected, on one process and on the fleet"
