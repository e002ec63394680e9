#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds blockbloom (library, CLI, tests) with sanitizers and runs the tests:
#   build-asan      BB_SANITIZE=address,undefined  the whole CTest suite (parquet_oracle
#                   included: DuckDB's files through the sanitized CLI)
#   build-tsan      BB_SANITIZE=thread             the multi-threaded tests (test_threads,
#                   test_concurrent, test_conc_private, test_batch_threads; plain programs
#                   there: Criterion cannot start under TSan), and the CLI's -j read-ahead
#   build-valgrind  no sanitizer: a CLI build/add/query/info round trip (line and NUL mode,
#                   blocked and classic) under `valgrind --error-exitcode=1`, once per kernel
#                   valgrind can run (3.19 has no AVX-512, so BB_ISA picks scalar, avx2, neon)
# Every sanitizer report is fatal (-fno-sanitize-recover=all plus the options below), so a
# finding fails the script. Criterion runs each test in a forked child; the sanitizer options
# are inherited through the environment and a report makes the child crash, which Criterion
# counts as a failure. Usage: scripts/sanitize.sh [asan|tsan|valgrind]... (default: all)
# BB_BUILD_PREFIX (default "build-") names the build directories: <prefix>asan etc.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=2 # the machine's two cores are shared; never more

# halt_on_error: stop at the first report; detect_leaks: LeakSanitizer at exit (works in
# Criterion's forked children); abort_on_error: a report ends in SIGABRT, which Criterion
# reports as a crash rather than a plain exit code it might miss.
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1"
export TSAN_OPTIONS="halt_on_error=1:abort_on_error=1:second_deadlock_stack=1"

run() { # run NAME SANITIZERS [ctest args...]
  local name=$1 san=$2
  shift 2
  local dir=${BB_BUILD_PREFIX:-build-}$name start=$SECONDS
  echo "sanitize: $name ($san): configuring and building in $dir" >&2
  # Each step exits on failure itself: set -e does not act inside a function called from an
  # && list, so a failed build or test would otherwise be reported as passed.
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBB_SANITIZE="$san" \
    -DBB_BUILD_BENCH=OFF >/dev/null || { echo "sanitize: $name: configure failed" >&2; exit 1; }
  cmake --build "$dir" -j"$jobs" >/dev/null || { echo "sanitize: $name: build failed" >&2; exit 1; }
  ctest --test-dir "$dir" --output-on-failure -j"$jobs" "$@" ||
    { echo "sanitize: $name: tests failed" >&2; exit 1; }
  echo "sanitize: $name passed in $((SECONDS - start)) s" >&2
}

# The CLI round trip under valgrind: every command, both kinds, both key modes.
valgrind_round_trip() {
  local dir=${BB_BUILD_PREFIX:-build-}valgrind start=$SECONDS isa
  scripts/setup.sh valgrind
  echo "sanitize: valgrind: building in $dir" >&2
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBB_BUILD_TESTS=OFF \
    -DBB_BUILD_BENCH=OFF >/dev/null
  cmake --build "$dir" -j"$jobs" --target blockbloom_cli >/dev/null
  local cli work
  cli=$(realpath "$dir/blockbloom") # BB_BUILD_PREFIX may be absolute
  work=$(mktemp -d)
  seq 1 20000 | sed 's/^/key-/' >"$work/keys.txt"
  printf 'a\0b\r\0\xff\xfe\0' >"$work/keys0.bin"
  local vg=(valgrind -q --error-exitcode=1 --leak-check=full "--errors-for-leak-kinds=definite,indirect")
  # count WANT ARGS...: the CLI under valgrind prints WANT (and valgrind exits 0).
  count() {
    local want=$1 got
    shift
    got=$("${vg[@]}" "$cli" "$@")
    [[ $got == "$want" ]] || { echo "sanitize: valgrind: $*: got '$got', want $want" >&2; exit 1; }
  }
  for isa in scalar avx2 neon; do
    export BB_ISA=$isa
    "${vg[@]}" "$cli" build -o "$work/b.bb" "$work/keys.txt"
    "${vg[@]}" "$cli" build --kind classic -n 30000 -o "$work/c.bb" "$work/keys.txt"
    "${vg[@]}" "$cli" add "$work/b.bb" "$work/keys0.bin"
    count 20000 query -c "$work/b.bb" "$work/keys.txt"
    count 20000 query -c "$work/c.bb" "$work/keys.txt"
    "${vg[@]}" "$cli" build -0 -o "$work/n.bb" "$work/keys0.bin"
    count 3 query -0 -c "$work/n.bb" "$work/keys0.bin"
    "${vg[@]}" "$cli" info --json "$work/b.bb" >/dev/null
    "${vg[@]}" "$cli" info "$work/c.bb" >/dev/null
  done
  unset BB_ISA
  rm -rf "$work"
  echo "sanitize: valgrind passed in $((SECONDS - start)) s" >&2
}

# The CLI's read-ahead thread (-j N >= 2 reads the next chunk of keys beside the batch calls)
# under ThreadSanitizer: plain runs of the TSan build's CLI, so a report (an abort) fails.
tsan_cli() {
  local cli work rc
  cli=$(realpath "${BB_BUILD_PREFIX:-build-}tsan/blockbloom")
  work=$(mktemp -d)
  seq 1 300000 | sed 's/^/key-/' >"$work/keys.txt"
  "$cli" build -j 2 -n 300000 -o "$work/f.bb" "$work/keys.txt" 2>/dev/null
  "$cli" add -j 2 "$work/f.bb" "$work/keys.txt" 2>/dev/null
  [[ $("$cli" query -c -j 2 "$work/f.bb" "$work/keys.txt") == 300000 ]] ||
    { echo "sanitize: tsan: query -j 2 -c did not count 300000" >&2; exit 1; }
  # A match on a pipe that stays open: the reader is cancelled in its read.
  (echo key-7; sleep 2) | "$cli" query -q -j 2 "$work/f.bb"
  # A key over the limit in the third chunk: its message waits for that chunk.
  { head -n 300000 "$work/keys.txt"; echo key-far-too-long-for-the-limit; } >"$work/bad.txt"
  rc=0
  "$cli" query -j 2 --max-key-bytes 20 "$work/f.bb" "$work/bad.txt" >/dev/null 2>&1 || rc=$?
  [[ $rc == 1 ]] || { echo "sanitize: tsan: query -j 2 over the limit: exit $rc, want 1" >&2; exit 1; }
  rm -rf "$work"
  echo "sanitize: tsan: the CLI's read-ahead passed" >&2
}

targets=("$@")
((${#targets[@]})) || targets=(asan tsan valgrind)
for t in "${targets[@]}"; do
  case $t in
  asan)
    scripts/setup-duckdb.sh # parquet_oracle needs DuckDB
    run asan address,undefined
    ;;
  # ThreadSanitizer needs every thread-using test (tests/CMakeLists.txt, BB_THREAD_TESTS).
  tsan)
    run tsan thread -R '^test_(threads|concurrent|conc_private|batch_threads)$'
    tsan_cli
    ;;
  valgrind) valgrind_round_trip ;;
  *) echo "sanitize: unknown target '$t' (asan, tsan or valgrind)" >&2; exit 2 ;;
  esac
done
