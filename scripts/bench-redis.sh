#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Redis benchmark, run by hand (not in CI): builds bench/redis-bench, starts its own
# redis-server on a free loopback port (no persistence, data in a temp dir, stopped on exit)
# and prints keys per second, round trips per key and memory per key of blockbloom's
# madd/mexists (a filter reserved for N keys and one for CAP), the hand-written classic
# BITFIELD layout and a plain set (SADD/SMISMEMBER), with the CPU.
#   scripts/bench-redis.sh [N-KEYS [RUNS [CAP]]]   (default 200000 keys, 3 runs, CAP 10^8)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh redis-server redis-tools libhiredis-dev
build=build-bench-redis
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DBB_BUILD_BENCH=ON -DBB_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j2 --target redis-bench >/dev/null
source scripts/lib-redis.sh
port=$(free_port)
start_server bench "$port" --appendonly no
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores (client and server share them)"
echo "redis-server $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/'), hiredis $(pkg-config --modversion hiredis)"
"$build/bench/redis-bench" "redis://127.0.0.1:$port" "${1:-200000}" "${2:-3}" "${3:-100000000}"
