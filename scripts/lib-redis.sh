# Sourced by scripts/test-redis.sh and scripts/bench-redis.sh: start Debian's redis-server
# on free loopback ports with its data in a temporary directory, and stop every server
# started (and remove the directory) on any exit of the sourcing script (trap).
#   redis_tmp        the temporary directory
#   free_port        print a free loopback port whose cluster bus port (+10000) is free too
#   start_server NAME PORT ARGS...   start one server, wait until it answers; its pid is in
#                    the variable pid_NAME
redis_tmp=$(mktemp -d)
redis_pids=()
redis_cleanup() {
  for p in "${redis_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${redis_pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$redis_tmp"
}
trap redis_cleanup EXIT INT TERM

free_port() {
  /usr/bin/python3 - <<'PY'
import socket
while True:
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close()
    if p + 10000 < 65536:
        try:
            b = socket.socket(); b.bind(("127.0.0.1", p + 10000)); b.close(); print(p); break
        except OSError: pass
PY
}

start_server() {
  local name=$1 port=$2
  shift 2
  mkdir -p "$redis_tmp/$name"
  redis-server --port "$port" --bind 127.0.0.1 --dir "$redis_tmp/$name" --save "" \
    --logfile "$redis_tmp/$name/log" "$@" &
  redis_pids+=($!)
  printf -v "pid_$name" %s "$!"
  for _ in $(seq 100); do
    redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && return 0
    sleep 0.05
  done
  echo "redis: redis-server $name on port $port did not start:" >&2
  cat "$redis_tmp/$name/log" >&2
  return 1
}
