#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Connections of the Redis binding, run by scripts/test-redis.sh after its own checks: URL
# forms (IPv6 too), AUTH with requirepass and with an ACL user, SELECT of a database other than
# 0 (also after a reconnect), the password file and REDISCLI_AUTH, the refusals (rediss://,
# /DB on a cluster, wrong or missing passwords), and the deadlines and size bounds against
# tests/redis/fake_server.py (a server that stalls, trickles, claims a 10 TB string or a 2e9
# element array, or breaks after a batch's counter was sent, and a DNS server that never
# answers, in a network namespace). Every server is on loopback and
# stopped on any exit (scripts/lib-redis.sh's trap).
#   scripts/test-redis-conn.sh BUILD-DIR
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1
bb=$build/blockbloom
source scripts/lib-redis.sh
tmp=$redis_tmp
fail() { echo "test-redis-conn: FAIL: $*" >&2; exit 1; }
seq 1 2000 | sed 's/^/key/' >"$tmp/keys"

# ---- AUTH and SELECT ----------------------------------------------------------------------------
# A password with the characters a URL must escape (':' '@' '/' '%'), an ACL user, IPv6 too.
pw='s3c:r@t/p%w' pw_url='s3c%3Ar%40t%2Fp%25w'
port=$(free_port)
start_server auth "$port" --bind 127.0.0.1 ::1 --requirepass "$pw"
rc() { REDISCLI_AUTH=$pw redis-cli -p "$port" "$@"; }
rc acl setuser alice on '>alice pw' '~*' '&*' '+@all' >/dev/null
rc acl setuser reader on '>rpw' '~*' '+@read' '+ping' '+auth' '+select' >/dev/null
echo "test-redis-conn: AUTH and SELECT (port $port)" >&2

u="redis://:$pw_url@127.0.0.1:$port/3"
[[ $($bb redis -u "$u" reserve a3 0.01 20000) == OK ]] || fail "reserve with a password, db 3"
[[ $($bb redis -u "$u" madd a3 -c "$tmp/keys") -ge 1990 ]] || fail "madd with a password"
[[ $(rc -n 3 exists a3) == 1 && $(rc -n 0 exists a3) == 0 ]] || fail "a3 not in db 3 alone"
# The ACL user, IPv6 in brackets, database 5; the host and port forms.
ua="redis://alice:alice%20pw@[::1]:$port/5"
[[ $($bb redis -u "$ua" reserve a5 0.01 20000) == OK ]] || fail "reserve as alice on [::1]"
[[ $(rc -n 5 exists a5) == 1 ]] || fail "alice's filter not in db 5"
[[ $($bb redis -u "$ua" madd a5 -c "$tmp/keys") -ge 1990 ]] || fail "madd as alice"
[[ $(REDISCLI_AUTH=$pw $bb redis -u "127.0.0.1:$port" reserve a0 0.01 10) == OK ]] ||
  fail "HOST:PORT with REDISCLI_AUTH"
[[ $(rc -n 0 exists a0) == 1 ]] || fail "HOST:PORT: not in db 0"
# The password file beats REDISCLI_AUTH; the URL's password beats both; --user with it.
printf '%s\n' "$pw" >"$tmp/pw"
printf 'alice pw\r\n' >"$tmp/alice"
echo wrong >"$tmp/wrong"
[[ $(REDISCLI_AUTH=wrong $bb redis -u "redis://127.0.0.1:$port/3" --password-file "$tmp/pw" \
  mexists a3 -c "$tmp/keys") == 2000 ]] || fail "--password-file"
[[ $(REDISCLI_AUTH=wrong $bb redis -u "$u" --password-file "$tmp/wrong" mexists a3 -c "$tmp/keys") \
  == 2000 ]] || fail "the URL's password is not the one used"
[[ $($bb redis -u "redis://[::1]:$port/5" --user alice --password-file "$tmp/alice" \
  mexists a5 -c "$tmp/keys") == 2000 ]] || fail "--user with --password-file (CRLF line)"
[[ $(BB_REDIS_URL=$ua $bb redis mexists a5 -c "$tmp/keys") == 2000 ]] || fail "BB_REDIS_URL"
# Refusals, each with its reason, and the password never echoed.
expect_exit 1 "127\\.0\\.0\\.1:$port: AUTH failed: WRONGPASS" \
  $bb redis -u "redis://:nope@127.0.0.1:$port" info a0
expect_exit 1 "127\\.0\\.0\\.1:$port: AUTH failed: WRONGPASS" \
  $bb redis -u "redis://alice:nope@127.0.0.1:$port" info a0
expect_exit 1 "127\\.0\\.0\\.1:$port: NOAUTH .*needs a password" \
  $bb redis -u "127.0.0.1:$port" info a0
expect_exit 1 "SELECT 99 failed: ERR DB index is out of range" \
  $bb redis -u "redis://:$pw_url@127.0.0.1:$port/99" info a0
expect_exit 1 "NOPERM" $bb redis -u "redis://reader:rpw@127.0.0.1:$port/3" madd a3 "$tmp/keys"
[[ $($bb redis -u "redis://reader:rpw@127.0.0.1:$port/3" mexists a3 -c "$tmp/keys") == 2000 ]] ||
  fail "a read-only ACL user cannot query"
expect_exit 2 "rediss:// \\(TLS\\) is not supported" $bb redis -u "rediss://127.0.0.1:$port" info a0
expect_exit 2 "bad %-escape" $bb redis -u "redis://:bad%zz@127.0.0.1:$port" info a0
expect_exit 2 "bad port '99999' \\(a number from 1 to 65535\\)" \
  $bb redis -u "redis://:secret@127.0.0.1:99999" info a0
grep -q secret "$tmp/err" && fail "a password was echoed: $(cat "$tmp/err")"
# Strict addresses: one ':' outside brackets, a numeric port, no ?parameters, a plain host.
expect_exit 2 "bad port 'p:5' \\(a number from 1 to 65535; an IPv6 address goes in brackets\\)" \
  $bb redis -u "redis://h:p:5" info a0
expect_exit 2 "bad port 'p:5'" $bb redis -u "h:p:5" info a0
expect_exit 2 "bad port '65x'" $bb redis -u "redis://127.0.0.1:65x" info a0
expect_exit 2 "unknown parameter 'x' \\(no \\?parameters are read" \
  $bb redis -u "redis://:secret@127.0.0.1:$port?x=1" info a0
expect_exit 2 "unknown parameter 'db'" $bb redis -u "redis://127.0.0.1:$port/2?db=3" info a0
expect_exit 2 "a '#' fragment" $bb redis -u "redis://127.0.0.1:$port#f" info a0
expect_exit 2 "bad host 'a b'" $bb redis -u "redis://a b:$port" info a0
expect_exit 2 "the database after '/' must be a number" $bb redis -u "redis://127.0.0.1:$port/x" info a0
grep -q secret "$tmp/err" && fail "a password was echoed: $(cat "$tmp/err")"
# The password ends at the last '@' (as the parser reads it), in every form of address.
expect_exit 2 "bad address 'redis://alice:\\*\\*\\*@127\\.0\\.0\\.1:1\\?db=2'" \
  $bb redis -u 'redis://alice:top@secret@127.0.0.1:1?db=2' info a0
grep -q secret "$tmp/err" && fail "a password was echoed: $(cat "$tmp/err")"
expect_exit 2 "bad address 'user:\\*\\*\\*@127\\.0\\.0\\.1': a user or password needs the redis:// form" \
  $bb redis -u 'user:secret@127.0.0.1' info a0
grep -q secret "$tmp/err" && fail "a password was echoed: $(cat "$tmp/err")"
expect_exit 2 "the database after '/' must be a number" \
  $bb redis -u 'redis://u:top/secret@127.0.0.1:1/x' info a0
grep -q secret "$tmp/err" && fail "a password was echoed: $(cat "$tmp/err")"
[[ $($bb redis -u "redis://:${pw//%/%25}@127.0.0.1:$port/3" mexists a3 -c "$tmp/keys") == 2000 ]] ||
  fail "a raw '@' and '/' in a password"
expect_exit 2 "Redis Cluster has only database 0" $bb redis --cluster "redis://127.0.0.1:$port/2" info a0
expect_exit 1 "password file '/nonexistent'" $bb redis --password-file /nonexistent info a0
expect_exit 1 "is empty" $bb redis --password-file /dev/null info a0
# --wait: a server without replicas cannot acknowledge writes (reads need no WAIT).
expect_exit 1 "127\\.0\\.0\\.1:$port: the writes are done, but only 0 of 1 replicas acknowledged them in time \\(WAIT\\)" \
  $bb redis -u "$u" --wait 1 --timeout 1 madd a3 "$tmp/keys"
[[ $($bb redis -u "$u" --wait 1 --timeout 1 mexists a3 -c "$tmp/keys") == 2000 ]] ||
  fail "mexists with --wait"
# After a reconnect the handle authenticates and selects again (the C test kills its
# connection between calls).
BB_REDIS_AUTH_URL=$u BB_REDIS_AUTH_PASSWORD=$pw "$build/tests/test_redis_conn" --jobs=1 --filter='auth/*'

# ---- Deadlines and bounds -------------------------------------------------------------------------
# Each run must end within its --timeout (1 s) plus start-up; `timeout 10` catches a hang.
fake() { # fake MODE [UPSTREAM-PORT]: start tests/redis/fake_server.py; its port in $fport
  rm -f "$tmp/fport"
  python3 tests/redis/fake_server.py "$1" "$tmp/fport" ${2:+"$2"} &
  redis_pids+=($!)
  for _ in $(seq 100); do [[ -e $tmp/fport ]] && break; sleep 0.05; done
  fport=$(cat "$tmp/fport")
}
bounded() { # bounded MESSAGE-REGEX COMMAND...: exit 1, the message, and within 4 s
  local t0=$SECONDS
  expect_exit 1 "$1" timeout 10 "${@:2}"
  ((SECONDS - t0 <= 4)) || fail "'${*:2}' took $((SECONDS - t0)) s with --timeout 1"
}
echo "test-redis-conn: deadlines and bounds against fake servers" >&2
fake stall
bounded "127\\.0\\.0\\.1:$fport: timed out \\(1\\.0 s\\) waiting for the reply to GET 'x'" \
  $bb redis -u "127.0.0.1:$fport" --timeout 1 exists x "$tmp/keys"
fake trickle
bounded "127\\.0\\.0\\.1:$fport: timed out \\(1\\.0 s\\) waiting for the reply to GET 'x'" \
  $bb redis -u "127.0.0.1:$fport" --timeout 1 info x
fake huge
bounded "127\\.0\\.0\\.1:$fport: the reply to GET 'x' claims 9999999999999 bytes, more than" \
  $bb redis -u "127.0.0.1:$fport" --timeout 1 exists x "$tmp/keys"
fake array
bounded "127\\.0\\.0\\.1:$fport: the reply to GET 'x' has more than 65536 elements" \
  $bb redis -u "127.0.0.1:$fport" --timeout 1 exists x "$tmp/keys"
fake close
bounded "127\\.0\\.0\\.1:$fport: (Server closed the connection|timed out).*GET 'x'" \
  $bb redis -u "127.0.0.1:$fport" --timeout 1 exists x "$tmp/keys"
# A batch's connection breaks after its count (the EVAL that adds its new keys to the state)
# was sent: it is not sent again (the relay saw exactly one), and the call says so.
[[ $($bb redis -u "redis://:$pw_url@127.0.0.1:$port" reserve drop 0.01 1000) == OK ]] ||
  fail "reserve drop"
fake drop "$port"
bounded "127\\.0\\.0\\.1:$fport: the connection broke after EVAL 'bb:\\{n:drop\\}' was sent; not sent again" \
  $bb redis -u "redis://:$pw_url@127.0.0.1:$fport" --timeout 1 madd drop "$tmp/keys"
[[ $(cat "$tmp/fport.log") == EVAL ]] || fail "the count was sent $(wc -l <"$tmp/fport.log") times"
expect_exit 2 "invalid value '0' for --timeout" $bb redis --timeout 0 info x
"$build/tests/test_redis_conn" --jobs=1 --filter='deadline/*'
# A host name whose DNS server never answers: in a user, mount and network namespace,
# /etc/resolv.conf names a loopback UDP socket that reads nothing (glibc would wait 30 s per
# try); the run must end by its --timeout, saying so.
if unshare -rmn true 2>/dev/null; then
  printf 'nameserver 127.0.0.1\noptions timeout:30 attempts:1\n' >"$tmp/resolv.conf"
  cat >"$tmp/silent-dns.sh" <<'SH'
ip link set lo up && mount --bind "$1" /etc/resolv.conf || exit 99
python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 53))
open(sys.argv[1], "w").close()
time.sleep(60)' "$2" &
dns=$!
while [ ! -e "$2" ]; do sleep 0.05; done
shift 2
rc=0
"$@" || rc=$?
kill $dns
exit $rc
SH
  bounded "silent-dns\\.test:6379: timed out \\(1\\.0 s\\) resolving the host name" \
    unshare -rmn sh "$tmp/silent-dns.sh" "$tmp/resolv.conf" "$tmp/dns-ready" \
    "$bb" redis -u redis://silent-dns.test:6379 --timeout 1 info x
else
  echo "test-redis-conn: SKIP the silent DNS server: no unprivileged user namespaces" >&2
  [[ -z ${BB_SKIP_LOG:-} ]] ||
    echo "test-redis-conn: the silent DNS server (no unprivileged user namespaces)" >>"$BB_SKIP_LOG"
fi
echo "test-redis-conn: all passed" >&2
