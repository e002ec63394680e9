#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer targets of tests/fuzz/ with clang (Debian clang-14 + libclang-rt-14-dev,
# installed here if missing) and -fsanitize=fuzzer,address,undefined, then runs each for
# SECONDS (default 30), one after the other on one core:
#   fuzz_load       bb_deserialize, bb_load and bb_open_mmap on the input
#   fuzz_keyreader  the CLI key reader (src/cli/keys.c), line and NUL mode
#   fuzz_diff       operations on a filter against a reference filter and an exact key set
#   fuzz_url        URL canonicalisation and expressions (src/net/url.c)
#   fuzz_parquet    the Parquet footer, Bloom filter header and Thrift compact parsers
#                   (libblockbloom_parquet; needs libsnappy-dev, libzstd-dev, liblz4-dev, libbrotli-dev, zlib1g-dev)
#   fuzz_arrow      validation of Arrow arrays (offsets, views, dictionary indices) against
#                   an independent verdict, buffers allocated at their exact sizes
# Each starts from its committed seeds, tests/fuzz/corpus/<target>/, and keeps what it finds
# in <prefix>fuzz/corpus/<target>/ (not committed). A finding (crash, sanitizer report,
# failed invariant, leak, timeout) stops that target, leaves the input in
# <prefix>fuzz/artifacts/ and makes the script exit 1 after the other targets have run.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
# BB_BUILD_PREFIX (default "build-") prefixes the build directory.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(fuzz_load fuzz_keyreader fuzz_diff fuzz_parquet fuzz_url fuzz_arrow)
dir=${BB_BUILD_PREFIX:-build-}fuzz
cc=clang-14

scripts/setup.sh clang-14 libclang-rt-14-dev libsnappy-dev libzstd-dev liblz4-dev libbrotli-dev zlib1g-dev

# The library (and, for the key reader, three CLI files) with coverage instrumentation
# (fuzzer-no-link) and the sanitizers; each target links libFuzzer's main.
san=address,undefined
cflags="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,$san -fno-sanitize-recover=all"
cmake -S . -B "$dir/lib" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=None \
  -DCMAKE_C_FLAGS="$cflags" -DBUILD_SHARED_LIBS=OFF -DBB_BUILD_TESTS=OFF -DBB_BUILD_BENCH=OFF \
  -DBB_BUILD_CLI=OFF -DBB_WITH_IDN2=OFF >/dev/null
cmake --build "$dir/lib" -j2 --target blockbloom blockbloom_parquet >/dev/null
for t in "${targets[@]}"; do
  extra=()
  [[ $t == fuzz_keyreader ]] && extra=(src/cli/keys.c src/cli/common.c src/cli/cgroup.c)
  [[ $t == fuzz_parquet ]] && extra=(-Isrc/parquet "$dir/lib/libblockbloom_parquet.a" -lsnappy -lzstd -llz4 -lbrotlidec -lz)
  # shellcheck disable=SC2086 # cflags is a list of words
  "$cc" $cflags -fsanitize=fuzzer -std=c11 -D_GNU_SOURCE -DBB_STATIC_DEFINE -Iinclude \
    "tests/fuzz/$t.c" "${extra[@]}" "$dir/lib/libblockbloom.a" -lm -o "$dir/$t"
done

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1"
status=0
mkdir -p "$dir/artifacts"
for t in "${targets[@]}"; do
  mkdir -p "$dir/corpus/$t"
  start=$SECONDS
  # -max_len: the seeds are small filters (<= 1 KiB) and key files; 8 KiB leaves room to
  # grow. -timeout: no input should take a second; a slow one is a finding too.
  if "$dir/$t" -max_total_time="$seconds" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$dir/artifacts/$t-" \
    "$dir/corpus/$t" "tests/fuzz/corpus/$t" >"$dir/$t.log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/$t.log")
    echo "fuzz: $t: no finding in $((SECONDS - start)) s ($runs runs)" >&2
  else
    echo "fuzz: $t: FINDING after $((SECONDS - start)) s; see $dir/$t.log and $dir/artifacts/" >&2
    grep -m5 -E "ERROR|runtime error|fuzz_diff:|fuzz_load|SUMMARY" "$dir/$t.log" >&2 || true
    status=1
  fi
done
exit $status
