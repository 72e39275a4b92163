# Sourced by the CI scripts. start_example NAME DIR [ARGS...] builds
# ./examples/NAME into DIR, starts it with -addr 127.0.0.1:0 (a port the
# system picks) and ARGS through start_server (below), and sets URL. Every process started here is stopped by its PID when the
# script exits. start_fixture DIR is start_example conformance DIR;
# start_fleet (below) runs examples/conformance as replicas behind nginx.
# CLEANUP_DIRS lists directories (the caller's WORK) removed on a clean
# exit, after the processes are stopped; a failing run keeps them to read.
STARTED_PIDS=()
CLEANUP_DIRS=()
stop_started() {
  local rc=$? i pid
  # The last started first: a balancer before its replicas, the replicas
  # before their Redis.
  for ((i = ${#STARTED_PIDS[@]} - 1; i >= 0; i--)); do
    pid=${STARTED_PIDS[i]}
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

# start_fleet DIR N [ARGS...] runs examples/conformance as a fleet, as
# .ci/replicas.sh runs the inbox: redis-server (no persistence), N
# replicas with one CONFORMANCE_STATE_KEYS ring, -redis on that Redis
# (database 0), -public-url of the balancer and ARGS, and nginx balancing
# round robin over them, each on a free loopback port and stopped by its
# PID when the script exits. It sets URL to the balancer's endpoint and
# FLEET_LOGS to the replicas' stderr files (DIR/replicaI.log). Redis and
# nginx are installed from Debian with apt-get when missing.
start_fleet() {
  local dir="$1" n="$2" i pid
  shift 2
  local need=()
  command -v redis-server >/dev/null && command -v redis-cli >/dev/null || need+=(redis-server)
  command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx)
  if [ ${#need[@]} -gt 0 ]; then
    echo "== installing ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  fi
  local nginx
  nginx=$(command -v nginx || echo /usr/sbin/nginx)
  mkdir -p "$dir/nginx"
  go -C examples/conformance build -o "$dir/conformance" .

  local taken=" " redis_port balancer_port ports=()
  redis_port=$(fleet_free_port "$taken")
  taken="$taken$redis_port "
  balancer_port=$(fleet_free_port "$taken")
  taken="$taken$balancer_port "
  for i in $(seq 0 $((n - 1))); do
    ports[i]=$(fleet_free_port "$taken")
    taken="$taken${ports[i]} "
  done

  redis-server --bind 127.0.0.1 --port "$redis_port" --save "" --appendonly no --daemonize no \
    --dir "$dir" --logfile "$dir/redis.log" </dev/null >/dev/null 2>&1 &
  pid=$!
  STARTED_PIDS+=("$pid")
  fleet_wait_for redis "$pid" "$redis_port" "$dir/redis.log"
  local pong=""
  for _ in $(seq 1 50); do
    pong=$(redis-cli -h 127.0.0.1 -p "$redis_port" ping 2>/dev/null) && [ "$pong" = PONG ] && break
    sleep 0.1
  done
  if [ "$pong" != PONG ]; then
    echo "redis-server on 127.0.0.1:$redis_port does not answer PING; its log:" >&2
    tail -n 20 "$dir/redis.log" >&2 || true
    return 1
  fi
  echo "== $(redis-server --version | cut -d' ' -f1-3) at 127.0.0.1:$redis_port"

  # One 32-byte secret for every replica; it stays in a file of DIR and
  # in the replicas' environment, never on a command line or in the log.
  (umask 077 && head -c 32 /dev/urandom | base64 >"$dir/k1")
  local public="http://127.0.0.1:$balancer_port"
  FLEET_LOGS=()
  for i in $(seq 0 $((n - 1))); do
    CONFORMANCE_STATE_KEYS="k1:$(cat "$dir/k1")" "$dir/conformance" -addr "127.0.0.1:${ports[i]}" -public-url "$public" \
      -redis "redis://127.0.0.1:$redis_port/0" "$@" </dev/null >"$dir/replica$i.out" 2>"$dir/replica$i.log" &
    pid=$!
    STARTED_PIDS+=("$pid")
    FLEET_LOGS+=("$dir/replica$i.log")
    fleet_wait_for "replica$i" "$pid" "${ports[i]}" "$dir/replica$i.log"
  done
  echo "== $n replicas at 127.0.0.1:${ports[*]}; replica0 says:"
  grep -v '^{' "$dir/replica0.log" | sed 's/^/   /' || true

  # nginx as the current user, its pid, logs and temp files in DIR. No
  # buffering (progress, logs and listen streams arrive as they are
  # sent), a read timeout past the longest stream (a listen stream lasts
  # 45 s), and X-Upstream naming the replica that answered.
  local user_line=""
  [ "$(id -u)" = 0 ] && user_line="user $(id -un) $(id -gn);"
  {
    echo "$user_line"
    cat <<NGINX
worker_processes 1;
daemon off;
pid $dir/nginx/nginx.pid;
error_log $dir/nginx/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $dir/nginx/body;
  proxy_temp_path $dir/nginx/proxy;
  fastcgi_temp_path $dir/nginx/fastcgi;
  uwsgi_temp_path $dir/nginx/uwsgi;
  scgi_temp_path $dir/nginx/scgi;
  upstream conformance {
$(for p in "${ports[@]}"; do echo "    server 127.0.0.1:$p max_fails=0;"; done)
  }
  server {
    listen 127.0.0.1:$balancer_port;
    location / {
      proxy_pass http://conformance;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host \$http_host;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_connect_timeout 2s;
      proxy_read_timeout 120s;
      add_header X-Upstream \$upstream_addr always;
    }
  }
}
NGINX
  } >"$dir/nginx/nginx.conf"
  "$nginx" -p "$dir/nginx/" -e "$dir/nginx/error.log" -c "$dir/nginx/nginx.conf" </dev/null >"$dir/nginx.log" 2>&1 &
  pid=$!
  STARTED_PIDS+=("$pid")
  fleet_wait_for nginx "$pid" "$balancer_port" "$dir/nginx/error.log"
  echo "== $("$nginx" -v 2>&1 | cut -d' ' -f3) balancing round robin at $public"
  URL="$public/mcp"
}

# fleet_listening PORT: something accepts connections on 127.0.0.1:PORT.
fleet_listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# fleet_free_port TAKEN prints a loopback port that nothing answers on and
# TAKEN (" p1 p2 ") does not list, below the kernel's ephemeral range
# (32768 on), where an outgoing connection (a build, a client) could take
# it before the server binds. Another process may still take it first;
# that start then fails loudly.
fleet_free_port() {
  local port
  for _ in $(seq 1 50); do
    port=$(((RANDOM * 32768 + RANDOM) % 12000 + 20000))
    case "$1" in *" $port "*) continue ;; esac
    fleet_listening "$port" && continue
    echo "$port"
    return 0
  done
  echo "no free port found" >&2
  return 1
}

# fleet_wait_for NAME PID PORT LOG: at most 10 s for PID to listen on PORT.
fleet_wait_for() {
  for _ in $(seq 1 200); do
    fleet_listening "$3" && return 0
    kill -0 "$2" 2>/dev/null || break
    sleep 0.05
  done
  echo "$1 did not start listening on 127.0.0.1:$3; its log:" >&2
  tail -n 20 "$4" >&2 || true
  return 1
}
