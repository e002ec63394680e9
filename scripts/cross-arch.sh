#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Same answers on other machines: builds the library and tests/cross/cross_check.c (golden
# hashes, kernel equivalence, golden filter digests, loading files saved elsewhere) for
# x86-64 (native), AArch64 and big-endian s390x (Debian cross compilers, run under qemu-user),
# then exchanges the saved filter files in both directions: x86-64 files must load and answer
# identically on AArch64 and s390x, and theirs on x86-64, byte for byte. "chars" builds the
# x86-64 library and check twice, with -fsigned-char and -funsigned-char, and requires
# byte-identical filter files (the keys include bytes >= 0x80).
#
#   scripts/cross-arch.sh [aarch64] [s390x] [chars]     (default: all three)
#
# Installs gcc-<triple>, libc6-dev-<arch>-cross and qemu-user with apt, only if missing.
# Build directories are <prefix>cross-<name>, prefix BB_BUILD_PREFIX (default "build-").
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${BB_BUILD_PREFIX:-build-}
out=${prefix}cross-files
jobs=2

targets=("$@")
((${#targets[@]})) || targets=(aarch64 s390x chars)
declare -A debarch=([aarch64]=arm64 [s390x]=s390x)

install_missing() {
  local pkgs=(qemu-user) t
  for t in "${targets[@]}"; do
    case $t in
    aarch64 | s390x) pkgs+=("gcc-$t-linux-gnu" "libc6-dev-${debarch[$t]}-cross") ;;
    chars) ;;
    *) echo "cross-arch: unknown target '$t' (aarch64, s390x or chars)" >&2; exit 2 ;;
    esac
  done
  scripts/setup.sh "${pkgs[@]}"
}

# build NAME CC [CMAKE ARGS...]: static library with CMake, then cross_check linked to it.
build() {
  local name=$1 cc=$2 dir=${prefix}cross-$1 start=$SECONDS
  shift 2
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
    -DBB_BUILD_TESTS=OFF -DBB_BUILD_BENCH=OFF -DBB_BUILD_CLI=OFF -DBB_BUILD_PARQUET=OFF \
    -DBB_WITH_IDN2=OFF "$@" >/dev/null
  cmake --build "$dir" -j"$jobs" --target blockbloom >/dev/null
  # The check is compiled with the same extra flags (CMAKE_C_FLAGS) as the library.
  local flags
  flags=$(sed -n 's/^CMAKE_C_FLAGS:STRING=//p' "$dir/CMakeCache.txt")
  # shellcheck disable=SC2086 # flags is a list of words
  "$cc" -std=c11 -O2 -Wall -Wextra $flags -DBB_STATIC_DEFINE -Iinclude tests/cross/cross_check.c \
    "$dir/libblockbloom.a" -lm -static -o "$dir/cross_check"
  echo "cross-arch: built $name in $((SECONDS - start)) s" >&2
}

# run NAME RUNNER... -- OUTDIR [INDIR...]: run that build's check, saving into OUTDIR.
run() {
  local name=$1 start=$SECONDS runner=()
  shift
  while [[ $1 != -- ]]; do runner+=("$1"); shift; done
  shift
  rm -rf "$1" && mkdir -p "$1"
  "${runner[@]}" "${prefix}cross-$name/cross_check" "$@"
  echo "cross-arch: ran $name in $((SECONDS - start)) s" >&2
}

# same_files DIR1 DIR2: the saved filters are byte-identical.
same_files() {
  local f
  for f in "$1"/*.bbf; do
    cmp "$f" "$2/$(basename "$f")" || { echo "cross-arch: $f differs from $2" >&2; exit 1; }
  done
  echo "cross-arch: $1 and $2 hold byte-identical filters" >&2
}

total=$SECONDS
install_missing
build x86_64 gcc
run x86_64 -- "$out/x86_64"
foreign=()
for t in "${targets[@]}"; do
  [[ $t == chars ]] && continue
  build "$t" "$t-linux-gnu-gcc" -DCMAKE_TOOLCHAIN_FILE="cmake/toolchains/$t-linux-gnu.cmake"
  # Loads what x86-64 and every earlier target saved.
  run "$t" "qemu-$t" -L "/usr/$t-linux-gnu" -- "$out/$t" "$out/x86_64" "${foreign[@]/#/$out/}"
  same_files "$out/x86_64" "$out/$t"
  foreign+=("$t")
done
if ((${#foreign[@]})); then # the reverse direction: their files on x86-64
  run x86_64 -- "$out/x86_64-again" "${foreign[@]/#/$out/}"
fi
for t in "${targets[@]}"; do
  [[ $t == chars ]] || continue
  build signed-char gcc -DCMAKE_C_FLAGS=-fsigned-char
  build unsigned-char gcc -DCMAKE_C_FLAGS=-funsigned-char
  run signed-char -- "$out/signed-char"
  run unsigned-char -- "$out/unsigned-char" "$out/signed-char"
  same_files "$out/signed-char" "$out/unsigned-char"
  same_files "$out/x86_64" "$out/signed-char"
done
echo "cross-arch: all passed in $((SECONDS - total)) s" >&2
