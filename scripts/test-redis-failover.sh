#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Failover of the Redis binding, run by scripts/test-redis.sh: a Redis Cluster of 3 masters
# with one replica each, all with a password (requirepass and masterauth: every node the
# client meets must be authenticated), cluster-node-timeout 1 s so that a replica takes over
# about 2 s after its master dies. tests/redis/test_redis_conn.c ("failover") adds batches
# with WAIT 1 and kills a master mid-stream; this script restarts it once its replica has
# taken over (it rejoins as a replica, so WAIT 1 can succeed again). Every server is on
# loopback and stopped on any exit (scripts/lib-redis.sh's trap). About 20 s.
#   scripts/test-redis-failover.sh BUILD-DIR
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1
source scripts/lib-redis.sh
tmp=$redis_tmp
fail() { echo "test-redis-failover: FAIL: $*" >&2; exit 1; }
pw=fo-secret
ports=()
node_args=(--cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 1000
  --requirepass "$pw" --masterauth "$pw")
for i in 0 1 2 3 4 5; do
  p=$(free_port)
  start_server "fo$i" "$p" "${node_args[@]}"
  ports+=("$p")
done
REDISCLI_AUTH=$pw redis-cli --cluster create "${ports[@]/#/127.0.0.1:}" --cluster-replicas 1 \
  --cluster-yes >"$tmp/create.log" 2>&1 || { cat "$tmp/create.log" >&2; fail "cluster create"; }
rc() { REDISCLI_AUTH=$pw redis-cli -p "$1" "${@:2}"; }
ready() { # every node sees the cluster ok, 6 nodes, and each replica's link to its master up
  for p in "${ports[@]}"; do
    rc "$p" cluster info | grep -q cluster_state:ok || return 1
    [[ $(rc "$p" cluster nodes | grep -c ' connected') == 6 ]] || return 1
    rc "$p" info replication | grep -q role:master ||
      rc "$p" info replication | grep -q master_link_status:up || return 1
  done
  [[ $(rc "${ports[0]}" cluster nodes | grep -c slave) == 3 ]]
}
for _ in $(seq 200); do ready && break; sleep 0.1; done
ready || fail "the cluster never became ready: $(rc "${ports[0]}" cluster nodes)"
# The victim: a master; the seeds: the other masters... and it, as a user would list them.
victim=
for i in 0 1 2 3 4 5; do
  rc "${ports[$i]}" role | head -1 | grep -q master && { victim=$i; break; }
done
vport=${ports[$victim]}
vpid_var=pid_fo$victim
echo "test-redis-failover: killing master 127.0.0.1:$vport mid-stream" >&2
export BB_FO_SEEDS="redis://:$pw@127.0.0.1:${ports[0]} redis://:$pw@127.0.0.1:${ports[1]} redis://:$pw@127.0.0.1:${ports[2]}"
export BB_FO_KILL_PID=${!vpid_var} BB_FO_MARKER=$tmp/killed
vid=$(rc "$vport" cluster myid)
heir=$(rc "$vport" cluster nodes | awk -v m="$vid" '$4 == m {print $1}')
[[ -n $heir ]] || fail "master $vid has no replica"
"$build/tests/test_redis_conn" --jobs=1 --filter='failover/stream' &
tpid=$!
while [[ ! -e $tmp/killed ]] && kill -0 "$tpid" 2>/dev/null; do sleep 0.05; done
if [[ -e $tmp/killed ]]; then
  live=${ports[$(((victim + 1) % 6))]}
  for _ in $(seq 200); do # the replica took over: it is a master and the cluster is ok again
    rc "$live" cluster nodes | grep "^$heir " | grep -q master &&
      rc "$live" cluster info | grep -q cluster_state:ok && break
    sleep 0.1
  done
  rc "$live" cluster info | grep -q cluster_state:ok || fail "no replica took over"
  # A new empty node on the dead one's port becomes the new master's replica. (Restarting the
  # dead node as it was would make it claim its old slots, empty, until it hears it lost them.)
  wait "${!vpid_var}" 2>/dev/null || true
  rm -f "$tmp/fo$victim/nodes.conf"
  start_server "fo$victim" "$vport" "${node_args[@]}"
  rc "$vport" cluster meet 127.0.0.1 "$live" >/dev/null
  for _ in $(seq 100); do rc "$vport" cluster nodes | grep -q "^$heir " && break; sleep 0.1; done
  rc "$vport" cluster replicate "$heir" >/dev/null || fail "cluster replicate"
fi
wait "$tpid" || fail "the failover test failed"
for _ in $(seq 200); do ready && break; sleep 0.1; done
ready || fail "the cluster did not become whole again: $(rc "$live" cluster nodes)"
"$build/tests/test_redis_conn" --jobs=1 --filter='failover/check' || fail "acknowledged keys lost"
echo "test-redis-failover: passed" >&2
