#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Redis stage of run-tests.sh: builds the Redis binding (needs hiredis), starts Debian's
# redis-server on free loopback ports, data in a temporary directory (one standalone server
# with AOF on, and a 3-master Redis Cluster made by `redis-cli --cluster create`), runs
# tests/redis/test_redis.c and CLI checks against them, and stops every server on any exit
# (trap). The AOF check restarts the standalone server and expects every key back. The last
# test kills a cluster node, so it runs alone, after the others. Then connections
# (scripts/test-redis-conn.sh) and failover (scripts/test-redis-failover.sh). About a minute
# and a half on 2 cores, besides the build.
#   scripts/test-redis.sh [BUILD-DIR]     (default build-redis)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh redis-server redis-tools libhiredis-dev python3
build=${1:-build-redis}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBB_BUILD_TESTS=ON >/dev/null
cmake --build "$build" -j2 --target blockbloom_cli test_redis test_redis_conn
bb=$build/blockbloom

source scripts/lib-redis.sh
tmp=$redis_tmp

sa_port=$(free_port)
start_server standalone "$sa_port" --appendonly yes --appendfsync always
cl_ports=()
for i in 0 1 2; do
  p=$(free_port)
  start_server "node$i" "$p" --cluster-enabled yes --cluster-config-file nodes.conf \
    --cluster-node-timeout 2000
  cl_ports+=("$p")
done
redis-cli --cluster create "${cl_ports[@]/#/127.0.0.1:}" --cluster-replicas 0 --cluster-yes \
  >"$tmp/cluster-create.log"
for _ in $(seq 100); do
  redis-cli -p "${cl_ports[0]}" cluster info | grep -q 'cluster_state:ok' && break
  sleep 0.1
done

export BB_REDIS_URL=redis://127.0.0.1:$sa_port
export BB_REDIS_CLUSTER="127.0.0.1:${cl_ports[0]} 127.0.0.1:${cl_ports[1]} 127.0.0.1:${cl_ports[2]}"
export BB_REDIS_KILL_PID=$pid_node2 BB_REDIS_KILL_PORT=${cl_ports[2]}

echo "test-redis: C tests (standalone $sa_port, cluster ${cl_ports[*]})" >&2
"$build/tests/test_redis" --jobs=1 --filter='standalone/*'
"$build/tests/test_redis" --jobs=1 --filter='cluster/*'

# The docs' Redis examples as written, the cluster one on this cluster (docs_examples, a CTest
# test, runs the others on a server of its own and skips that one).
echo "test-redis: the sh examples of docs/REDIS.md" >&2
BB_DOCS_CLUSTER=127.0.0.1:${cl_ports[0]} bash tests/scripts/readme_examples.sh "$build" . docs/REDIS.md

# ---- CLI checks ---------------------------------------------------------------------------------
fail() { echo "test-redis: FAIL: $*" >&2; exit 1; }
u=(--url "$BB_REDIS_URL")
seq 1 50000 | sed 's/^/key/' >"$tmp/keys"
seq 1 50000 | sed 's/^/other/' >"$tmp/others"
[[ $($bb redis "${u[@]}" reserve cli 0.01 50000 --shards 3) == OK ]] || fail "reserve"
expect_exit 1 'ERR item exists' $bb redis "${u[@]}" reserve cli 0.01 50000
expect_exit 2 'error rate' $bb redis "${u[@]}" reserve bad 1.5 10
expect_exit 2 'capacity' $bb redis "${u[@]}" reserve bad 0.01 0
# Counts are written as for build -n (1M, 1_000_000, 1e6), so push --slice takes the build's -n.
[[ $($bb redis "${u[@]}" reserve onem 0.01 1M) == OK ]] || fail "reserve CAPACITY 1M"
$bb redis "${u[@]}" info onem | grep -q '^Capacity: 1000000$' || fail "reserve 1M: capacity"
$bb build -n 1_000 --slice 0/2 -o "$tmp/kslice" "$tmp/keys" 2>/dev/null
[[ $($bb redis "${u[@]}" push --slice 0/2 -n 1k --keys 1e3 "$tmp/kslice" kform) == OK ]] ||
  fail "push --slice -n 1k"
redis-cli -p "$sa_port" set plain hello >/dev/null
expect_exit 1 'WRONGTYPE' $bb redis "${u[@]}" madd plain "$tmp/keys"
# A state claiming 40 sub-filters (2^55 bits): refused in 200 MB of address space, then deleted.
[[ $($bb redis "${u[@]}" reserve c40 0.01 100) == OK ]] || fail "reserve c40"
redis-cli -p "$sa_port" hset 'bb:{n:c40}' subs 40 >/dev/null
echo k >"$tmp/one"
for c in "exists c40 $tmp/one" "card c40" "info c40" "madd c40 $tmp/one" "pull c40 -o $tmp/c40"; do
  (ulimit -v 200000; expect_exit 1 "'c40' is refused as damaged: its state 'bb:\{n:c40\}' claims 40" \
    timeout 10 $bb redis "${u[@]}" --timeout 2 $c)
done
(ulimit -v 200000; timeout 10 $bb redis "${u[@]}" del c40 >/dev/null) || fail "del of a damaged chain"
[[ $(redis-cli -p "$sa_port" exists c40 'bb:{n:c40}' 'bb:{0:c40}') == 0 ]] || fail "del c40 left keys"
[[ $($bb redis "${u[@]}" madd cli -c "$tmp/keys") -ge 49500 ]] || fail "madd -c: new keys"
[[ $($bb redis "${u[@]}" madd cli -c "$tmp/keys") == 0 ]] || fail "madd again: no key is new"
[[ $($bb redis "${u[@]}" mexists cli -c <"$tmp/keys") == 50000 ]] || fail "mexists -c"
[[ $(head -3 "$tmp/keys" | $bb redis "${u[@]}" mexists cli | tr -d '\n') == 111 ]] || fail "mexists"
# A key over --max-key-bytes ends the run (exit 1) after the keys before it were answered.
out=$(printf 'key1\nkey2\nway-too-long\nkey3\n' | $bb redis "${u[@]}" mexists cli --max-key-bytes 8 \
  2>"$tmp/err") && fail "mexists of a key over the limit exited 0"
[[ $(tr -d '\n' <<<"$out") == 11 ]] || fail "mexists before a key over the limit printed '$out'"
grep -q 'key limit of 8 bytes' "$tmp/err" || fail "mexists over the limit said '$(cat "$tmp/err")'"
fp=$($bb redis "${u[@]}" mexists cli -c "$tmp/others")
((fp <= 600)) || fail "false positives $fp of 50000 at p = 0.01"
new=$($bb redis "${u[@]}" card cli)
$bb redis "${u[@]}" info cli | grep -q "^Number of items inserted: $new\$" || fail "info count"
# A scaling filter pulls as the local scalable build of the same keys (which counts the same).
$bb redis "${u[@]}" pull cli -o "$tmp/pulled.bbf" 2>/dev/null
$bb build --kind scalable -n 50000 -p 0.01 -o "$tmp/local.bbf" "$tmp/keys" "$tmp/keys" 2>/dev/null
cmp "$tmp/pulled.bbf" "$tmp/local.bbf" || fail "pull differs from the local build"

# ---- RedisBloom's semantics (src/rebloom.c, src/config.c, v8) ------------------------------------
# Missing filters: add creates one with the defaults, exists and card answer 0, info refuses.
[[ $(printf 'a\na\na\nb\nc\n' | $bb redis "${u[@]}" add clfresh | tr -d '\n') == 10011 ]] || fail "add a a a b c"
$bb redis "${u[@]}" info clfresh >"$tmp/info"
printf 'Capacity: 100\nSize: %s\nNumber of filters: 1\nNumber of items inserted: 3\nExpansion rate: 2\n' \
  "$(sed -n 's/^Size: //p' "$tmp/info")" | cmp - "$tmp/info" || fail "info of a a a b c: $(cat "$tmp/info")"
[[ $($bb redis "${u[@]}" card clfresh) == 3 ]] || fail "card counts the adds that answered 1"
[[ $($bb redis "${u[@]}" info clfresh items) == 3 ]] || fail "info NAME ITEMS"
$bb redis "${u[@]}" info clfresh -v | grep -q '^Error rate: 0.01$' || fail "info -v"
[[ $($bb redis "${u[@]}" mexists nothere -c "$tmp/keys") == 0 ]] || fail "mexists of a missing filter"
[[ $($bb redis "${u[@]}" card nothere) == 0 ]] || fail "card of a missing filter"
expect_exit 1 'ERR not found' $bb redis "${u[@]}" info nothere
# Numbers: negative ones are values; RedisBloom v8's texts.
expect_exit 2 'ERR error rate must be in the range \(0\.000000, 1\.000000\)' $bb redis "${u[@]}" reserve neg -0.1 100
expect_exit 2 'ERR capacity must be in the range \[1, 1073741824\]' $bb redis "${u[@]}" reserve neg 0.01 -5
expect_exit 2 'ERR capacity must be in the range \[1, 1073741824\]' $bb redis "${u[@]}" reserve neg 0.01 1073741825
expect_exit 2 'ERR bad error rate' $bb redis "${u[@]}" reserve neg abc 100
expect_exit 2 'ERR bad capacity' $bb redis "${u[@]}" reserve neg 0.01 lots
expect_exit 2 'ERR no expansion' $bb redis "${u[@]}" reserve neg 0.01 100 EXPANSION
expect_exit 2 'ERR bad expansion' $bb redis "${u[@]}" reserve neg 0.01 100 EXPANSION x
expect_exit 2 'ERR expansion must be in the range \[0, 32768\]' $bb redis "${u[@]}" reserve neg 0.01 100 EXPANSION -5
expect_exit 2 'Nonscaling filters cannot expand' $bb redis "${u[@]}" reserve neg 0.01 100 EXPANSION 4 NONSCALING
expect_exit 1 'ERR not found' $bb redis "${u[@]}" info neg
[[ $($bb redis "${u[@]}" reserve ex4 0.01 100 expansion 4) == OK ]] || fail "reserve EXPANSION 4"
$bb redis "${u[@]}" info ex4 | grep -q '^Expansion rate: 4$' || fail "expansion 4"
[[ $($bb redis "${u[@]}" reserve nsc 0.01 3 NONSCALING) == OK ]] || fail "reserve NONSCALING"
$bb redis "${u[@]}" info nsc | grep -q '^Expansion rate: (nil)$' || fail "NONSCALING: expansion nil"
# NONSCALING past capacity: the answers before the refused key, then RedisBloom's error.
out=$(printf 'k1\nk2\nk1\nk3\nk4\nk5\n' | $bb redis "${u[@]}" madd nsc 2>"$tmp/err") && fail "a full filter took keys"
[[ $(tr -d '\n' <<<"$out") == 1101 ]] || fail "answers before the full filter: '$out'"
grep -q '^blockbloom: redis: ERR non scaling filter is full$' "$tmp/err" || fail "full: $(cat "$tmp/err")"
# insert (BF.INSERT): NOCREATE, options for a new filter, ITEMS.
expect_exit 1 'ERR not found' $bb redis "${u[@]}" insert clins NOCREATE ITEMS a b
[[ $($bb redis "${u[@]}" insert clins CAPACITY 7 ERROR 0.001 EXPANSION 3 ITEMS a b a | tr -d '\n') == 110 ]] ||
  fail "insert ITEMS"
$bb redis "${u[@]}" info clins | grep -q '^Capacity: 7$' || fail "insert CAPACITY"
$bb redis "${u[@]}" info clins | grep -q '^Expansion rate: 3$' || fail "insert EXPANSION"
[[ $(printf 'c\na\n' | $bb redis "${u[@]}" insert clins NOCREATE | tr -d '\n') == 10 ]] || fail "insert from stdin"
out=$($bb redis "${u[@]}" insert clins3 CAPACITY 2 NONSCALING ITEMS a b c 2>"$tmp/err") &&
  fail "insert NONSCALING took a key past its capacity"
[[ $(tr -d '\n' <<<"$out") == 11 ]] && grep -q 'ERR non scaling filter is full' "$tmp/err" ||
  fail "insert NONSCALING: '$out' $(cat "$tmp/err")"
expect_exit 2 'Bad error rate' $bb redis "${u[@]}" insert clins2 ERROR 2 ITEMS a
expect_exit 2 'Unknown argument received' $bb redis "${u[@]}" insert clins2 SIDEWAYS ITEMS a
# Growth: 50000 keys into a filter reserved for 1000 stay below its error rate, and pull gives
# the local scalable build.
[[ $($bb redis "${u[@]}" reserve grow 0.01 1000) == OK ]] || fail "reserve grow"
$bb redis "${u[@]}" madd grow -c "$tmp/keys" >/dev/null
[[ $($bb redis "${u[@]}" mexists grow -c "$tmp/keys") == 50000 ]] || fail "grow: keys lost"
fp=$($bb redis "${u[@]}" mexists grow -c "$tmp/others")
((fp <= 600)) || fail "grow: false positives $fp of 50000 at p = 0.01"
$bb redis "${u[@]}" info grow | grep -q '^Number of filters: 6$' || fail "grow: $($bb redis "${u[@]}" info grow)"
$bb redis "${u[@]}" pull grow -o "$tmp/grow.bbf" 2>/dev/null
$bb build --kind scalable -n 1000 -p 0.01 -o "$tmp/grow-local.bbf" "$tmp/keys" 2>/dev/null
cmp "$tmp/grow.bbf" "$tmp/grow-local.bbf" || fail "pull of a grown filter differs from the local build"
# Help per subcommand.
$bb redis reserve --help | grep -q '^Usage: blockbloom redis reserve NAME ERROR_RATE CAPACITY' || fail "reserve --help"
$bb redis --help mexists | grep -q '^Usage: blockbloom redis exists|mexists' || fail "--help mexists"

# build --slice refuses what cannot be a slice.
expect_exit 2 'needs -n' $bb build --slice 0/3 -o "$tmp/x" "$tmp/keys"
expect_exit 2 "invalid value '3/3'" $bb build -n 10 --slice 3/3 -o "$tmp/x" "$tmp/keys"
expect_exit 2 'more slices than' $bb build -n 10 --slice 0/100 -o "$tmp/x" "$tmp/keys"
[[ ! -e $tmp/x ]] || fail "a refused build --slice wrote a file"

# Slices on the cluster: three machines' worth of `build --slice`, pushed one by one.
c=(--cluster "127.0.0.1:${cl_ports[0]}")
for i in 0 1 2; do
  $bb build -n 50000 -p 0.01 --slice "$i/3" -o "$tmp/slice$i" "$tmp/keys" 2>/dev/null
done
$bb build -n 50000 -p 0.01 -o "$tmp/once.bbf" "$tmp/keys" 2>/dev/null
cat "$tmp/slice0" "$tmp/slice1" "$tmp/slice2" | cmp - <(tail -c +129 "$tmp/once.bbf") ||
  fail "slices do not concatenate into the filter's payload"
for i in 2 0 1; do
  $bb redis "${c[@]}" push --slice "$i/3" -n 50000 -p 0.01 --keys 50000 "$tmp/slice$i" sliced \
    >>"$tmp/push.out"
done
[[ $(tr '\n' ' ' <"$tmp/push.out") == "OK OK OK published " ]] || fail "push --slice: $(cat "$tmp/push.out")"
$bb redis "${c[@]}" pull sliced -o "$tmp/sliced.bbf" 2>/dev/null
cmp "$tmp/sliced.bbf" "$tmp/once.bbf" || fail "pushed slices differ from the whole filter"
$bb redis "${c[@]}" push --slice 0/3 -n 50000 -p 0.01 "$tmp/slice0" half >/dev/null
expect_exit 1 'geometry differs' \
  $bb redis "${c[@]}" push --slice 1/3 -n 50000 -p 0.01 --seed 5 "$tmp/slice1" half
expect_exit 1 'must be [0-9]+ bytes' \
  $bb redis "${c[@]}" push --slice 1/3 -n 50000 -p 0.01 "$tmp/keys" half
[[ $($bb redis "${c[@]}" mexists half -c "$tmp/keys") == 0 ]] || fail "a half-pushed filter is seen"
expect_exit 1 'not found' $bb redis "${c[@]}" info half
$bb redis "${c[@]}" push "$tmp/once.bbf" whole >/dev/null
[[ $($bb redis "${c[@]}" mexists whole -c "$tmp/keys") == 50000 ]] || fail "push + mexists"
[[ $($bb redis "${c[@]}" del whole) == 1 ]] || fail "del"
expect_exit 1 'not found' $bb redis "${c[@]}" info whole

# AOF: restart the standalone server (SHUTDOWN writes nothing else: --save ""); every key is back.
redis-cli -p "$sa_port" shutdown nosave >/dev/null 2>&1 || true
wait "$pid_standalone" 2>/dev/null || true
start_server standalone "$sa_port" --appendonly yes --appendfsync always
[[ $($bb redis "${u[@]}" mexists cli -c "$tmp/keys") == 50000 ]] || fail "keys lost over an AOF restart"
$bb redis "${u[@]}" pull cli -o "$tmp/after-aof.bbf" 2>/dev/null
cmp "$tmp/after-aof.bbf" "$tmp/local.bbf" || fail "filter changed over an AOF restart"

# Last: a node killed while batches run must fail loudly (this breaks the cluster). `down` is a
# name whose slot a surviving node owns (node 2 redirects it), for the CLUSTERDOWN check below.
for down in down0 down1 down2 down3 down4 down5 down6 down7; do
  redis-cli -p "${cl_ports[2]}" exists "$down" | grep -q MOVED && break
done
# `on2` is a name whose slot node 2 owns (it answers without MOVED), so a batch into it needs
# the dead node whether or not the cluster has noticed yet: on an idle machine a batch into a
# name on a live node finished before the cluster did (exit 0).
for on2 in on0 on1 on2 on3 on4 on5 on6 on7 on8 on9 on10 on11 on12 on13 on14 on15; do
  redis-cli -p "${cl_ports[2]}" exists "$on2" | grep -q MOVED || break
done
redis-cli -p "${cl_ports[2]}" exists "$on2" | grep -q MOVED && fail "no name on node 2 among on0..on15"
echo "test-redis: killing node 127.0.0.1:${cl_ports[2]} mid-batch (a \"Killed\" line follows)" >&2
"$build/tests/test_redis" --jobs=1 --filter='cluster_kill/*'
# Right after the kill the dead node is named (it refuses connections); once the cluster has
# noticed (node timeout 2 s) the live nodes answer CLUSTERDOWN, and the one that did is named.
dead="127\\.0\\.0\\.1:${cl_ports[2]}" live="127\\.0\\.0\\.1:(${cl_ports[0]}|${cl_ports[1]})"
# Each request retries (reconnects, CLUSTERDOWN) until its deadline: 2 s here.
expect_exit 1 "^blockbloom: redis ($dead: .*commands not done|$live: CLUSTERDOWN .*commands not done)" \
  $bb redis "${c[@]}" --timeout 2 madd "$on2" "$tmp/keys"
for _ in $(seq 100); do
  redis-cli -p "${cl_ports[0]}" cluster info | grep -q 'cluster_state:fail' && break
  sleep 0.1
done
redis-cli -p "${cl_ports[0]}" cluster info | grep -q 'cluster_state:fail' || fail "cluster never noticed the kill"
for args in "madd $down $tmp/keys" "mexists $down $tmp/keys" "info $down"; do
  # shellcheck disable=SC2086 # $args is the subcommand and its operands (no spaces in them)
  expect_exit 1 "^blockbloom: redis $live: CLUSTERDOWN .*\\(1 of 1 commands not done\\)" \
    $bb redis "${c[@]}" --timeout 2 $args
done
scripts/test-redis-conn.sh "$build"
scripts/test-redis-failover.sh "$build"
echo "test-redis: all passed" >&2
