#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# install.sh - what `cmake --install` gives a user: the dynamic linker's cache is
# refreshed (ldconfig, here a stand-in that records its call, named by BB_LDCONFIG or found
# first on PATH), the manual page and the bash completion are installed and work (completion
# checked by calling its function as bash would), no installed program has the build or source
# tree compiled in, the installed demo and fetch script use the per-user data directory, and
# the README's C example builds and runs against the prefix through pkg-config and
# find_package, and so do small consumers of the parquet and redis libraries (their .pc files
# and package components).
# Installs into a fresh temporary prefix, removed on every exit.
#   tests/scripts/install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(realpath "$1") src=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install: FAILED: $*" >&2; exit 1; }
p=$tmp/prefix
printf '#!/bin/sh\necho called >"%s/ldconfig-called"\n' "$tmp" >"$tmp/fake-ldconfig"
chmod +x "$tmp/fake-ldconfig"
BB_LDCONFIG=$tmp/fake-ldconfig cmake --install "$build" --prefix "$p" >"$tmp/install.log"

# 1. ldconfig ran (and not under DESTDIR: a staged install must not touch the cache).
[[ -f $tmp/ldconfig-called ]] || fail "ldconfig was not run: $(cat "$tmp/install.log")"
rm "$tmp/ldconfig-called"
#    Without BB_LDCONFIG the ldconfig found by name runs (a stand-in first on PATH, which
#    find_program searches before /sbin and /usr/sbin): a user's install has no BB_LDCONFIG.
mkdir -p "$tmp/bin" && cp "$tmp/fake-ldconfig" "$tmp/bin/ldconfig"
env -u BB_LDCONFIG PATH="$tmp/bin:$PATH" cmake --install "$build" --prefix "$p" >"$tmp/install.log"
[[ -f $tmp/ldconfig-called ]] || fail "ldconfig (found by name) was not run: $(cat "$tmp/install.log")"
rm "$tmp/ldconfig-called"
DESTDIR=$tmp/stage BB_LDCONFIG=$tmp/fake-ldconfig cmake --install "$build" --prefix /usr >/dev/null
[[ ! -f $tmp/ldconfig-called ]] || fail "ldconfig run for a DESTDIR install"

# 2. The manual page: a section per command with its options, and the bash completion.
man1=$p/share/man/man1/blockbloom.1
[[ -s $man1 ]] || fail "no $man1"
for c in build add query info remove merge export demo; do
  grep -qx ".SS $c" "$man1" || fail "man page lacks command $c"
done
grep -q '^\\fB\\-q, \\-\\-quiet' "$man1" || fail "man page lacks query -q"
comp=$p/share/bash-completion/completions/blockbloom
[[ -s $comp ]] || fail "no $comp"
complete_words() { # complete_words WORD... : the completions of the last word
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _blockbloom; echo "${COMPREPLY[*]}"' _ "$comp" "$@"
}
[[ $(complete_words blockbloom qu) == query ]] || fail "completion of 'qu': $(complete_words blockbloom qu)"
[[ $(complete_words blockbloom query --inv) == --invert-match ]] || fail "completion of query --inv"
[[ $(complete_words blockbloom build --capa) == --capacity ]] || fail "completion of build --capa"
[[ $(complete_words blockbloom help ex) == export ]] || fail "completion of help ex"
# Option values, which gen-docs.sh asks the program for: --kind, --keys, the global --isa
# (also as --opt=VALUE, which bash splits at '=', and with --isa before the command).
[[ $(complete_words blockbloom build --kind "") == "blocked classic counting scalable split sectorized" ]] ||
  fail "completion of build --kind: $(complete_words blockbloom build --kind "")"
[[ $(complete_words blockbloom build --kind = sc) == scalable ]] || fail "completion of build --kind=sc"
[[ $(complete_words blockbloom query --keys "") == "url domain cidr 5tuple" ]] ||
  fail "completion of query --keys: $(complete_words blockbloom query --keys "")"
[[ $(complete_words blockbloom --isa sca) == scalar ]] || fail "completion of --isa sca"
[[ $(complete_words blockbloom --isa = scalar qu) == query ]] || fail "completion after --isa=scalar"
[[ $(complete_words blockbloom --isa avx2 build --kind cl) == classic ]] ||
  fail "completion of build --kind after --isa"
# An option whose name fills its column still needs two spaces before its text, or the
# text's words (here "-c:") become options of the completion and of the man page's tag.
[[ $(complete_words blockbloom query -c) == -c ]] || fail "completion of query -c: $(complete_words blockbloom query -c)"
grep -qx '\\fB\\-H, \\-\\-with\\-filename\\fR' "$man1" || fail "man page tag of query -H"
# Commands of subcommands: the subcommands, then each subcommand's own options, for the
# bindings this build has (section 6 finds them the same way); a build without one must not
# offer its command.
parts=()
for part in parquet redis; do
  [[ -f $build/libblockbloom_$part.so || -f $build/libblockbloom_$part.a ]] && parts+=("$part")
done
has_part() { [[ " ${parts[*]} " == *" $1 "* ]]; }
if has_part parquet; then
  [[ $(complete_words blockbloom parquet '') == "extract index info probe" ]] ||
    fail "completion of parquet: $(complete_words blockbloom parquet '')"
  [[ $(complete_words blockbloom parquet extract --row) == --row-group ]] ||
    fail "completion of parquet extract --row"
else
  [[ $(complete_words blockbloom pa) != *parquet* ]] || fail "completion offers parquet, not built"
fi
if has_part redis; then
  [[ $(complete_words blockbloom redis me) == mexists ]] || fail "completion of redis me"
  [[ $(complete_words blockbloom redis reserve --sh) == --shards ]] || fail "completion of redis reserve --sh"
else
  [[ $(complete_words blockbloom re) != *redis* ]] || fail "completion offers redis, not built"
fi

# 3. No installed program has a path into the build or source tree in its data (debug info
#    aside; sanitizer builds also keep source file names in .rodata, for their reports, so
#    only paths other than source files count).
for prog in "$p"/bin/*; do
  [[ $(head -c 4 "$prog") == $'\x7fELF' ]] || continue
  if readelf -p .rodata "$prog" 2>/dev/null | grep -F -e "$build" -e "$src" |
    grep -vE '\.(c|h)$' | grep -q .; then
    fail "$prog has a build or source path compiled in"
  fi
done

# 4. The installed demo and fetch script agree on the per-user data directory, and the
#    demo's --help names the fetcher as installed (a prefix has no scripts/ directory).
"$p/bin/blockbloom" demo --help | grep -q "fetch them with blockbloom-fetch-npm-names" ||
  fail "installed demo --help does not name blockbloom-fetch-npm-names"
[[ -x $p/bin/blockbloom-fetch-npm-names ]] || fail "no $p/bin/blockbloom-fetch-npm-names"
home=$tmp/home
mkdir -p "$home/.local/share/blockbloom" "$tmp/cwd"
cd "$tmp/cwd"
HOME=$home "$p/bin/blockbloom" demo --quick >/dev/null 2>"$tmp/err" || fail "installed demo failed"
grep -q "npm names not found at $home/.local/share/blockbloom/npm-names.txt; fetch them with blockbloom-fetch-npm-names" "$tmp/err" ||
  fail "installed demo says: $(cat "$tmp/err")"
seq 1 1000 | sed 's/^/name-/' >"$home/.local/share/blockbloom/npm-names.txt"
got=$(HOME=$home "$p/bin/blockbloom-fetch-npm-names" 2>&1) || fail "installed fetch script: $got"
[[ $got == *"$home/.local/share/blockbloom/npm-names.txt already there"* ]] ||
  fail "installed fetch script does not use ~/.local/share/blockbloom: $got"
HOME=$home "$p/bin/blockbloom" demo --quick >"$tmp/out" 2>"$tmp/err" || fail "installed demo with names failed"
grep -q "^Part 2: 1000 npm package names from $home/.local/share/blockbloom/npm-names.txt" "$tmp/out" ||
  fail "installed demo did not run part 2 on the installed names: $(cat "$tmp/err")"

# 5. The README's C example ("Quick start: C") against the prefix, through pkg-config
#    (whose paths must be the prefix given to `cmake --install`, not the configured one)
#    and through find_package.
#    A sanitizer build's library needs the program built with the same sanitizers.
san=$(sed -n 's/^BB_SANITIZE:[A-Z]*=//p' "$build/CMakeCache.txt")
sanflags=${san:+-fsanitize=$san}
mkdir -p "$tmp/ex" && cd "$tmp/ex"
awk '/^## Quick start: C/ { f = 1 } f && /^```c/ { g = 1; next } g && /^```/ { exit } g' \
  "$src/README.md" >ex.c
[[ -s ex.c ]] || fail "no C example under 'Quick start: C' in README.md"
pc=$(find "$p" -name blockbloom.pc) && [[ -n $pc ]] || fail "no blockbloom.pc installed"
export PKG_CONFIG_PATH=${pc%/*}
inc=$(pkg-config --variable=includedir blockbloom) || fail "pkg-config does not find blockbloom"
[[ $(realpath "$inc") == $(realpath "$p/include") ]] || fail "pkg-config includedir is $inc, not under $p"
# shellcheck disable=SC2046 # pkg-config's flags are meant to be split
"${CC:-gcc}" -std=c11 -Wall -Werror $sanflags ex.c $(pkg-config --cflags --libs blockbloom) -o ex-pc ||
  fail "README example does not build with pkg-config"
LD_LIBRARY_PATH=$(pkg-config --variable=libdir blockbloom) ./ex-pc >out-pc || fail "README example (pkg-config) failed"
grep -q '^1 0 (1 possibly present, kernel ' out-pc || fail "README example printed: $(cat out-pc)"
[[ -s urls.bloom ]] && "$p/bin/blockbloom" info urls.bloom >/dev/null || fail "README example's urls.bloom"
printf 'cmake_minimum_required(VERSION 3.25)\nproject(ex C)\nfind_package(blockbloom REQUIRED)\nadd_executable(ex ex.c)\ntarget_link_libraries(ex blockbloom::blockbloom)\n' >CMakeLists.txt
{ cmake -S . -B b -DCMAKE_PREFIX_PATH="$p" -DCMAKE_C_FLAGS="$sanflags" && cmake --build b; } >cmake.log 2>&1 ||
  fail "README example does not build with find_package: $(tail -5 cmake.log)"
b/ex >out-cm && cmp -s out-pc out-cm || fail "README example (find_package) printed: $(cat out-cm)"

# 6. The bindings built here (libblockbloom_parquet, libblockbloom_redis: `parts`, above) are
#    in the package too: a consumer finds each through its own .pc file and as a find_package component,
#    links it and runs (the parquet call refuses a buffer that is not Parquet; the redis one
#    fails to reach port 1: both go through the installed shared libraries and their
#    dependencies), and asking for a component that does not exist fails find_package.
cat >parquet.c <<'C'
#include <stdio.h>
#include <blockbloom_parquet.h>
int main(void) {
    bb_pq_file *pf;
    bb_status s = bb_pq_open_buffer(&pf, "not parquet", 11);
    /* The detail text is libblockbloom's, written by libblockbloom_parquet. */
    bool ok = s == BB_E_BAD_MAGIC && bb_last_error()[0] != '\0';
    printf("%s %s\n", bb_pq_type_name(BB_PQ_INT32), ok ? "refused" : "?");
    return ok ? 0 : 1;
}
C
cat >redis.c <<'C'
#include <stdio.h>
#include <string.h>
#include <blockbloom_redis.h>
int main(void) {
    bb_redis *r = NULL;
    bb_status s = bb_redis_connect(&r, "redis://127.0.0.1:1");
    bool ok = s == BB_E_IO && strstr(bb_last_error(), "127.0.0.1:1") != NULL;
    printf("%s\n", ok ? "unreachable" : "?");
    bb_redis_free(r);
    return ok ? 0 : 1;
}
C
declare -A want=([parquet]="INT32 refused" [redis]=unreachable)
for part in "${parts[@]}"; do
  pkg-config --exists "blockbloom_$part" || fail "pkg-config does not find blockbloom_$part"
  # shellcheck disable=SC2046 # pkg-config's flags are meant to be split
  "${CC:-gcc}" -std=c11 -Wall -Werror $sanflags "$part.c" $(pkg-config --cflags --libs "blockbloom_$part") \
    -o "$part-pc" || fail "a $part consumer does not build with pkg-config"
  [[ $(LD_LIBRARY_PATH=$p/lib:$(pkg-config --variable=libdir blockbloom) "./$part-pc") == "${want[$part]}" ]] ||
    fail "the $part consumer (pkg-config) failed"
done
if ((${#parts[@]})); then
  mkdir -p comp && cd comp
  cp ../parquet.c ../redis.c .
  {
    printf 'cmake_minimum_required(VERSION 3.25)\nproject(parts C)\n'
    printf 'find_package(blockbloom REQUIRED COMPONENTS %s)\n' "${parts[*]}"
    for part in "${parts[@]}"; do
      printf 'add_executable(%s %s.c)\ntarget_link_libraries(%s blockbloom::%s)\n' "$part" "$part" "$part" "$part"
    done
  } >CMakeLists.txt
  { cmake -S . -B b -DCMAKE_PREFIX_PATH="$p" -DCMAKE_C_FLAGS="$sanflags" && cmake --build b; } >cmake.log 2>&1 ||
    fail "the bindings do not build with find_package COMPONENTS ${parts[*]}: $(tail -5 cmake.log)"
  for part in "${parts[@]}"; do
    [[ $("b/$part") == "${want[$part]}" ]] || fail "the $part consumer (find_package) failed"
  done
  sed -i 's/COMPONENTS /COMPONENTS nosuch /' CMakeLists.txt
  if cmake -S . -B b2 -DCMAKE_PREFIX_PATH="$p" >cmake2.log 2>&1; then
    fail "find_package(blockbloom COMPONENTS nosuch) succeeded"
  fi
  cd ..
fi
echo "install: passed (bindings: ${parts[*]:-none})" >&2
