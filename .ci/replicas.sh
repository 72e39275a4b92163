#!/usr/bin/env bash
# Runs examples/inbox as three replicas behind nginx, as a fleet runs it,
# and drives the fleet over HTTP with TestReplicas
# (examples/inbox/replicas_test.go):
#
#   redis-server   loopback, a free port, no persistence
#   3 × inbox      loopback, free ports, one INBOX_STATE_KEYS ring, -redis,
#                  one -public-url (the balancer's), a small -rate budget
#   nginx          round-robin over the three, a free loopback port, its
#                  own config, pid, logs and temp files in a temp dir
#
# The test restarts replicas (a key rotation) and stops and restarts Redis
# (an outage) through this script's "ctl" commands, below. Every process is
# started here and stopped by its PID on exit. redis-server and nginx are
# installed from Debian with apt-get when missing.
#
# Run from anywhere: bash .ci/replicas.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# The per-principal budget the replicas enforce (-rate): small, so that the
# test can spend it quickly, and large enough for 50 concurrent retries.
RATE="20,60"
REPLICAS=3

# alive PID: the process exists and is not a zombie (a replica restarted by
# "ctl" is not this shell's child, and nobody may reap it at once).
alive() {
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

# stop NAME stops the process whose PID is in $WORK/pids/NAME: SIGTERM,
# then at most 10 s for it to finish what it is serving, then SIGKILL.
stop() {
  local file="$WORK/pids/$1" pid
  [ -f "$file" ] || return 0
  pid=$(cat "$file")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 200); do
    alive "$pid" || break
    sleep 0.05
  done
  if alive "$pid"; then
    echo "$1 (pid $pid) did not stop in 10 s; killing it" >&2
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$file"
}

# listening PORT: something accepts connections on 127.0.0.1:PORT.
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# wait_for NAME PORT: at most 10 s for the process to listen.
wait_for() {
  local pid
  pid=$(cat "$WORK/pids/$1")
  for _ in $(seq 1 200); do
    listening "$2" && return 0
    alive "$pid" || break
    sleep 0.05
  done
  echo "$1 did not start listening on 127.0.0.1:$2; its log:" >&2
  tail -n 20 "$WORK/$1.log" >&2 || true
  return 1
}

start_redis() {
  redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no --daemonize no \
    --dir "$WORK" --logfile "$WORK/redis.log" </dev/null >/dev/null 2>&1 &
  echo $! >"$WORK/pids/redis"
  wait_for redis "$REDIS_PORT"
  for _ in $(seq 1 50); do
    [ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ] && return 0
    sleep 0.1
  done
  echo "redis-server does not answer PING" >&2
  return 1
}

# keys STEP prints the ring of one step of a rotation from k1 to k2, in
# the text form of mrtr.ParseKeys. The secrets stay in files of the work
# directory; nothing prints them.
keys() {
  local k1 k2
  k1="k1:$(cat "$WORK/k1")" k2="k2:$(cat "$WORK/k2")"
  case "$1" in
    before) echo "$k1" ;;
    add) echo "$k1,$k2" ;;
    promote) echo "$k2,$k1" ;;
    retire) echo "$k2" ;;
    *) echo "unknown rotation step $1" >&2; return 1 ;;
  esac
}

# start_replica I STEP starts replica I with the ring of rotation step STEP.
start_replica() {
  local i="$1" ring
  ring=$(keys "$2")
  INBOX_STATE_KEYS="$ring" "$WORK/inbox" -addr "127.0.0.1:${PORTS[$i]}" -public-url "$PUBLIC" \
    -redis "redis://127.0.0.1:$REDIS_PORT/0" -rate "$RATE" -legacy-input </dev/null >>"$WORK/replica$i.log" 2>&1 &
  echo $! >"$WORK/pids/replica$i"
  wait_for "replica$i" "${PORTS[$i]}"
}

# ctl: what the test asks for while it runs. The work directory and the
# ports come from the environment the test inherited.
if [ "${1:-}" = ctl ]; then
  WORK="${INBOX_REPLICAS_WORK:?ctl runs under .ci/replicas.sh}"
  # shellcheck source=/dev/null
  source "$WORK/ports"
  case "${2:-}" in
    restart) # restart I STEP: replica I, with the ring of rotation step STEP
      [ -n "${PORTS[${3:-x}]:-}" ] || { echo "ctl restart: no replica ${3:-}" >&2; exit 2; }
      stop "replica$3"
      start_replica "$3" "${4:?ctl restart I STEP}"
      ;;
    stop-redis) stop redis ;;
    start-redis) start_redis ;;
    *) echo "ctl: unknown command ${2:-}" >&2; exit 2 ;;
  esac
  exit 0
fi

need=()
command -v redis-server >/dev/null && command -v redis-cli >/dev/null || need+=(redis-server)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx)
if [ ${#need[@]} -gt 0 ]; then
  echo "== installing ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

WORK="$(mktemp -d "${TMPDIR:-/tmp}/mcpdual-replicas.XXXXXX")"
mkdir -p "$WORK/pids" "$WORK/nginx"
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
  local f
  for f in "$WORK"/pids/*; do
    [ -e "$f" ] && stop "$(basename "$f")"
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

# Free loopback ports, distinct ($taken lists those handed out), none
# answering now. Another process may still take one before its server
# binds; that start then fails loudly.
taken=" "
free_port() {
  local port
  for _ in $(seq 1 50); do
    # Below the kernel's ephemeral range (32768 on): an outgoing
    # connection (a build, a client) can take a port there between this
    # choice and the server's bind.
    port=$(((RANDOM * 32768 + RANDOM) % 12000 + 20000))
    case "$taken" in *" $port "*) continue ;; esac
    listening "$port" && continue
    echo "$port"
    return 0
  done
  echo "no free port found" >&2
  return 1
}
REDIS_PORT=$(free_port)
taken="$taken$REDIS_PORT "
BALANCER_PORT=$(free_port)
taken="$taken$BALANCER_PORT "
PORTS=()
for i in $(seq 0 $((REPLICAS - 1))); do
  PORTS[i]=$(free_port)
  taken="$taken${PORTS[i]} "
done
PUBLIC="http://127.0.0.1:$BALANCER_PORT"
declare -p REDIS_PORT PORTS PUBLIC RATE >"$WORK/ports"

# Two 32-byte secrets, for a rotation from k1 to k2.
(umask 077 && head -c 32 /dev/urandom | base64 >"$WORK/k1" && head -c 32 /dev/urandom | base64 >"$WORK/k2")

started=$(date +%s)
echo "== building examples/inbox"
go -C examples/inbox build -o "$WORK/inbox" .

start_redis
echo "== $(redis-server --version | cut -d' ' -f1-3) at 127.0.0.1:$REDIS_PORT"
for i in $(seq 0 $((REPLICAS - 1))); do
  start_replica "$i" before
done
echo "== $REPLICAS replicas at 127.0.0.1:${PORTS[*]}; their banner:"
sed -n '/Replicas:/,$p' "$WORK/replica0.log"

# nginx as the current user: its own pid, logs and temp files in $WORK.
# Every request opens a new upstream connection, so a replica being
# restarted refuses the connection and nginx passes the request to the
# next one (max_fails=0: it never takes a replica out of the rotation).
# X-Upstream tells the test which replica answered.
user_line=""
[ "$(id -u)" = 0 ] && user_line="user $(id -un) $(id -gn);"
{
  echo "$user_line"
  cat <<EOF
worker_processes 1;
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $WORK/nginx/body;
  proxy_temp_path $WORK/nginx/proxy;
  fastcgi_temp_path $WORK/nginx/fastcgi;
  uwsgi_temp_path $WORK/nginx/uwsgi;
  scgi_temp_path $WORK/nginx/scgi;
  upstream inbox {
$(for p in "${PORTS[@]}"; do echo "    server 127.0.0.1:$p max_fails=0;"; done)
  }
  server {
    listen 127.0.0.1:$BALANCER_PORT;
    location / {
      proxy_pass http://inbox;
      proxy_set_header Host \$http_host;
      proxy_connect_timeout 2s;
      proxy_read_timeout 30s;
      proxy_next_upstream error timeout;
      add_header X-Upstream \$upstream_addr always;
    }
  }
}
EOF
} >"$WORK/nginx/nginx.conf"
"$NGINX" -p "$WORK/nginx/" -e "$WORK/nginx/error.log" -c "$WORK/nginx/nginx.conf" </dev/null >"$WORK/nginx.log" 2>&1 &
echo $! >"$WORK/pids/nginx"
if ! wait_for nginx "$BALANCER_PORT"; then
  cat "$WORK/nginx/error.log" >&2 || true
  exit 1
fi
echo "== $("$NGINX" -v 2>&1 | cut -d' ' -f3) balancing at $PUBLIC"

export INBOX_REPLICAS_URL="$PUBLIC" INBOX_REPLICAS_WORK="$WORK" INBOX_REPLICAS_CTL="$PWD/.ci/replicas.sh"
export INBOX_REPLICAS_COUNT="$REPLICAS" INBOX_REPLICAS_RATE="$RATE" INBOX_REPLICAS_PORTS="${PORTS[*]}"
status=0
# The inbox's own Redis tests (tenants_test.go: Idempotency-Keys and jobs
# in Redis) on this Redis, in databases 1 and up; the fleet uses 0.
MCPDUAL_REDIS_ADDR="127.0.0.1:$REDIS_PORT" go -C examples/inbox test -count=1 \
  -run '^(TestIdempotency_|TestQueue_|TestTasks_RedisAcrossReplicas|TestRedisJobs_|TestJobs_)' . || status=$?
go -C examples/inbox test -count=1 -v -run '^TestReplicas$' . || status=$?

# Published clients confirm through the balancer (design record 025): the go-sdk
# client at 2025-06-18 and the TypeScript SDK v1 client, each with an
# elicitation handler, run emails_delete accepted once and declined once.
# The call's stream stays on one replica; the answer POST, the client's
# next request, reaches another (each client checks it by nginx's
# X-Upstream), and Redis hands it over. Each client counts the effect on
# every replica's own REST API: deleted on exactly one when accepted, on
# none when declined. They run after TestReplicas, whose key rotation
# restarted every replica (fresh seed data, one ring). The replicas'
# audit lines then say which one executed: one "executed" and one
# "declined" line per client, in all.
echo "== published clients confirming through the balancer: $(for i in "${!PORTS[@]}"; do printf 'replica%s=127.0.0.1:%s ' "$i" "${PORTS[$i]}"; done)"
BASES=()
for p in "${PORTS[@]}"; do BASES+=("http://127.0.0.1:$p"); done
# audit_counts prints, per replica, its emails_delete audit lines
# "executed" and "declined" so far.
audit_counts() {
  local i
  for i in "${!PORTS[@]}"; do
    printf '%s %s ' "$(grep -c 'tool=emails_delete outcome="executed' "$WORK/replica$i.log" || true)" \
      "$(grep -c 'tool=emails_delete outcome=declined' "$WORK/replica$i.log" || true)"
  done
}
# confirm_through NAME COMMAND...: runs a client, then checks the audit
# lines it added over the fleet (one execution, one decline) and says
# which replica wrote them.
confirm_through() {
  local name="$1" before after i ex=0 de=0 where=""
  shift
  before=($(audit_counts))
  "$@" || { echo "replicas: the $name client failed" >&2; return 1; }
  after=($(audit_counts))
  for i in "${!PORTS[@]}"; do
    local e=$((after[2 * i] - before[2 * i])) d=$((after[2 * i + 1] - before[2 * i + 1]))
    ex=$((ex + e)) de=$((de + d))
    [ $((e + d)) -gt 0 ] && where="$where replica$i: $e executed, $d declined;"
  done
  echo "== $name: audit lines by replica:$where"
  if [ "$ex" != 1 ] || [ "$de" != 1 ]; then
    echo "replicas: $name: $ex executions and $de declines in the replicas' audit lines, want 1 and 1" >&2
    return 1
  fi
}
confirm_through go-sdk timeout 120 go -C internal/interop/goclient run . -legacy "$PUBLIC/mcp" "${BASES[@]}" || status=$?
NODE="$(bash .ci/node.sh)"
(cd internal/interop/node && npm ci --no-audit --no-fund --loglevel=error) || status=$?
confirm_through "TypeScript v1" timeout 120 "$NODE" internal/interop/node/legacy-v1.mjs "$PUBLIC/mcp" "${BASES[@]}" || status=$?
if [ "$status" != 0 ]; then
  for i in $(seq 0 $((REPLICAS - 1))); do
    echo "== replica$i log (last lines)" >&2
    tail -n 15 "$WORK/replica$i.log" >&2 || true
  done
  echo "== nginx error log (last lines)" >&2
  tail -n 15 "$WORK/nginx/error.log" >&2 || true
fi
echo "== replicas: $(($(date +%s) - started)) s from build to the end of the test"
exit "$status"
