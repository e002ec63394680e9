#!/usr/bin/env bash
# Builds blockbloom (library, CLI, tests) twice with sanitizers and runs the tests:
#   build-asan  BB_SANITIZE=address,undefined  the whole CTest suite
#   build-tsan  BB_SANITIZE=thread             the multi-threaded tests (test_threads, test_concurrent)
# Every sanitizer report is fatal (-fno-sanitize-recover=all plus the options below), so a
# finding fails the script. Criterion runs each test in a forked child; the sanitizer options
# are inherited through the environment and a report makes the child crash, which Criterion
# counts as a failure. Usage: scripts/sanitize.sh [asan|tsan]... (default: both)
# BB_BUILD_PREFIX (default "build-") names the build directories: <prefix>asan, <prefix>tsan.
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
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBB_SANITIZE="$san" \
    -DBB_BUILD_BENCH=OFF >/dev/null
  cmake --build "$dir" -j"$jobs" >/dev/null
  ctest --test-dir "$dir" --output-on-failure -j"$jobs" "$@"
  echo "sanitize: $name passed in $((SECONDS - start)) s" >&2
}

targets=("$@")
((${#targets[@]})) || targets=(asan tsan)
for t in "${targets[@]}"; do
  case $t in
  asan) run asan address,undefined ;;
  # ThreadSanitizer needs every thread-using test: test_threads and test_concurrent.
  tsan) run tsan thread -R '^test_(threads|concurrent)$' ;;
  *) echo "sanitize: unknown target '$t' (asan or tsan)" >&2; exit 2 ;;
  esac
done
