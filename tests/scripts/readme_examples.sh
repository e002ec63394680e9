#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# readme_examples.sh - every ```sh block of the README runs as written, in order, in one
# shell, in a fresh directory holding a copy of examples/, with the CLI under test first on
# PATH. A block fails the test when a command in it fails (errexit, pipefail) or, if the
# block shows output (lines starting "#> "), when its standard output differs from those
# lines. ```bash blocks (set-up and install commands) and ```python blocks are not run here.
# A block that talks to redis://127.0.0.1:6379 gets a redis-server of its own on a free
# loopback port instead (scripts/lib-redis.sh), substituted for 6379 in the block and given as
# BB_REDIS_URL to the commands that name no server. Without redis-server
# (a fresh machine before run-tests.sh's redis stage installs it) such a block is skipped, and
# says so; the sanitize stage runs this test again after that stage.
#   tests/scripts/readme_examples.sh CLI_DIR SOURCE_DIR
set -euo pipefail
cli_dir=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
fail() { echo "readme_examples: FAILED: $*" >&2; exit 1; }
[[ -x $cli_dir/blockbloom ]] || fail "no blockbloom in $cli_dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src/examples" "$tmp/examples"

# Split the README's sh blocks into block-N.sh (the commands) and block-N.want (the #> lines).
awk -v dir="$tmp" '
  /^```sh$/ { n++; f = dir "/block-" n; printf "" >(f ".sh"); printf "" >(f ".want"); on = 1; next }
  on && /^```$/ { on = 0; next }
  on && /^#> / { print substr($0, 4) >(f ".want"); next }
  on && /^#>$/ { print "" >(f ".want"); next }
  on { print >(f ".sh") }
' "$src/README.md"
blocks=$(find "$tmp" -maxdepth 1 -name 'block-*.sh' | wc -l)
((blocks >= 5)) || fail "only $blocks sh blocks found in $src/README.md"

# One shell runs every block, so later blocks see the files earlier ones made.
cd "$tmp"
redis_port=
for ((i = 1; i <= blocks; i++)); do
  if grep -q 'redis://127\.0\.0\.1:6379' "block-$i.sh"; then
    if ! command -v redis-server >/dev/null; then
      echo "[SKIP] README block $i needs redis-server (scripts/test-redis.sh installs it)" >&2
      continue
    fi
    if [[ -z $redis_port ]]; then
      # shellcheck source=../../scripts/lib-redis.sh
      source "$src/scripts/lib-redis.sh"
      redis_port=$(free_port)
      start_server readme "$redis_port" || fail "cannot start redis-server"
      trap 'redis_cleanup; rm -rf "$tmp"' EXIT
      export BB_REDIS_URL=redis://127.0.0.1:$redis_port
    fi
    sed -i "s|redis://127\.0\.0\.1:6379|redis://127.0.0.1:$redis_port|g" "block-$i.sh"
  fi
  { echo "set -euo pipefail"; cat "block-$i.sh"; } >"run-$i.sh"
  PATH=$cli_dir:$PATH bash "run-$i.sh" >"block-$i.out" 2>"block-$i.err" ||
    fail "block $i exited $?:
$(cat "block-$i.sh")
stderr:
$(cat "block-$i.err")"
  if [[ -s block-$i.want ]] && ! cmp -s "block-$i.want" "block-$i.out"; then
    fail "block $i printed other than its #> lines:
$(diff "block-$i.want" "block-$i.out")"
  fi
done
echo "readme_examples: $blocks README blocks ran, their output as shown" >&2
