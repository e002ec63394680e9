# SPDX-License-Identifier: MIT
# Sourced by scripts/test-redis.sh and scripts/bench-redis.sh: start Debian's redis-server
# on free loopback ports with its data in a temporary directory, and stop every server
# started (and remove the directory) on any exit of the sourcing script (trap).
#   redis_tmp        the temporary directory
#   free_port        print a free loopback port whose cluster bus port (+10000) is free too
#   start_server NAME PORT ARGS...   start one server, wait until it answers; its pid is in
#                    the variable pid_NAME
#   expect_exit CODE MESSAGE-REGEX COMMAND...   run COMMAND (stdout in $redis_tmp/out, stderr in
#                    $redis_tmp/err); the caller's `fail` unless it exits CODE saying /REGEX/
redis_tmp=$(mktemp -d)
redis_pids=()
redis_cleanup() {
  for p in "${redis_pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${redis_pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$redis_tmp"
}
trap redis_cleanup EXIT INT TERM

# Random ports in 20000..44999 until one and its +10000 bus port accept no connection
# (bash's /dev/tcp; no python on a minimal Debian). Start each server before asking for the
# next port: a listening port is then seen as taken.
free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 25000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && continue
    (exec 3<>"/dev/tcp/127.0.0.1/$((p + 10000))") 2>/dev/null && continue
    echo "$p"
    return
  done
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
    redis-cli -p "$port" ping 2>/dev/null | grep -Eq 'PONG|NOAUTH' && return 0 # NOAUTH: --requirepass
    sleep 0.05
  done
  echo "redis: redis-server $name on port $port did not start:" >&2
  cat "$redis_tmp/$name/log" >&2
  return 1
}

expect_exit() {
  local want=$1 re=$2 rc=0
  shift 2
  "$@" >"$redis_tmp/out" 2>"$redis_tmp/err" || rc=$?
  [[ $rc == "$want" ]] || fail "'$*' exited $rc, expected $want: $(cat "$redis_tmp/err")"
  grep -Eq "$re" "$redis_tmp/err" || fail "'$*' said '$(cat "$redis_tmp/err")', expected /$re/"
}
