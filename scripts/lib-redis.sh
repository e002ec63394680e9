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

# Random ports below the kernel's ephemeral range (ip_local_port_range, 32768 by default),
# with their +10000 bus ports below it too, until one and its bus port accept no connection
# (bash's /dev/tcp; no python on a minimal Debian). A port in the ephemeral range may be
# the source port of any client's connection at the moment redis-server binds it, which
# makes the bind fail while nothing listens there. Start each server before asking for the
# next port: a listening port is then seen as taken.
free_port() {
  local p lo=32768 span
  read -r lo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || lo=32768
  span=$((lo - 10000 - 10000)) # ports 10000 .. lo - 10001, bus ports 20000 .. lo - 1
  ((span >= 1000)) || span=1000
  while :; do
    p=$((10000 + RANDOM % span))
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
