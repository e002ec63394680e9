#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The CLI on inputs too big for CI (tests/test_faults.c runs small versions of each):
#   long-key    one 1 GiB line (one key); build, then query -c finds it: 1
#   empty       10 million empty lines: keys_added 10000000, the empty key is present
#   binary      64 MiB of random bytes in line mode (NUL, CR and non-UTF-8 bytes inside
#               keys): query -c of the same file counts every key, query -v -c counts 0
#   binary-nul  the same bytes with -0 (NUL-terminated keys)
# Each step prints its wall time and the peak memory of the CLI (GNU time). Documented
# behaviour (docs/CLI.md "Keys"): keys up to --max-key-bytes long, an empty line is the empty key, a NUL
# is an ordinary byte in line mode, bytes are hashed as they are (no text decoding).
#   scripts/stress-cli.sh [STEP...]        (default: all four; needs ~4 GiB RAM, ~1.2 GiB disk)
# Build directory: <prefix>stress, prefix BB_BUILD_PREFIX (default "build-"); data in its data/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh time # GNU time (/usr/bin/time) for the peak-memory figures
dir=${BB_BUILD_PREFIX:-build-}stress
steps=("$@")
((${#steps[@]})) || steps=(long-key empty binary binary-nul)
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DBB_BUILD_TESTS=OFF -DBB_BUILD_BENCH=OFF >/dev/null
cmake --build "$dir" -j2 --target blockbloom_cli >/dev/null
cli=$(realpath "$dir/blockbloom") # BB_BUILD_PREFIX may be absolute
data=$dir/data
mkdir -p "$data"

# timed LABEL CMD...: run CMD with GNU time; prints "LABEL: <s> s, <KiB> KiB peak".
timed() {
  local label=$1
  shift
  /usr/bin/time -f "stress: $label: %e s, %M KiB peak" "$@"
}
fail() { echo "stress: FAILED: $*" >&2; exit 1; }
expect() { # expect WHAT WANT GOT
  [[ $2 == "$3" ]] || fail "$1: want '$2', got '$3'"
  echo "stress: $1: $3 (as expected)" >&2
}
info_field() { "$cli" info "$1" | sed -n "s/^$2: //p"; }

for step in "${steps[@]}"; do
  case $step in
  long-key)
    # 1 GiB of 'a', no newline: the whole file is one key.
    head -c $((1 << 30)) /dev/zero | tr '\0' a >"$data/long.txt"
    # Over the default key limit (16 MiB): raised to exactly the key's length.
    timed "build, one 1 GiB key" "$cli" build --max-key-bytes $((1 << 30)) -o "$data/long.bb" "$data/long.txt"
    expect "long-key keys_added" 1 "$(info_field "$data/long.bb" keys_added)"
    expect "long-key query -c" 1 "$(timed "query, one 1 GiB key" "$cli" query --max-key-bytes $((1 << 30)) -c "$data/long.bb" "$data/long.txt")"
    expect "long-key over the default limit (exit 1)" 1 "$("$cli" query -c "$data/long.bb" "$data/long.txt" 2>/dev/null; echo $?)"
    rm -f "$data/long.txt"
    ;;
  empty)
    head -c 10000000 /dev/zero | tr '\0' '\n' >"$data/empty.txt"
    timed "build, 10M empty lines" "$cli" build -o "$data/empty.bb" "$data/empty.txt"
    expect "empty keys_added" 10000000 "$(info_field "$data/empty.bb" keys_added)"
    expect "empty query -c" 10000000 "$(timed "query, 10M empty lines" "$cli" query -c "$data/empty.bb" "$data/empty.txt")"
    ;;
  binary | binary-nul)
    [[ -f $data/random.bin ]] || head -c $((64 << 20)) /dev/urandom >"$data/random.bin"
    if [[ $step == binary ]]; then opt=() sep='\n'; else opt=(-0) sep='\0'; fi
    # Keys = separators, plus one if the last byte is not a separator.
    n=$(tr -cd "$sep" <"$data/random.bin" | wc -c)
    [[ $(tail -c 1 "$data/random.bin" | tr -d "$sep" | wc -c) -eq 1 ]] && n=$((n + 1))
    timed "build, $step" "$cli" build "${opt[@]}" -o "$data/$step.bb" "$data/random.bin"
    expect "$step keys_added" "$n" "$(info_field "$data/$step.bb" keys_added)"
    expect "$step query -c (no false negative)" "$n" \
      "$(timed "query, $step" "$cli" query "${opt[@]}" -c "$data/$step.bb" "$data/random.bin")"
    expect "$step query -v -c" 0 "$("$cli" query "${opt[@]}" -v -c "$data/$step.bb" "$data/random.bin")"
    ;;
  *) fail "unknown step '$step' (long-key, empty, binary, binary-nul)" ;;
  esac
done
echo "stress: all passed" >&2
