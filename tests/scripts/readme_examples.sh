#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# readme_examples.sh - every ```sh block of each DOC (default README.md) runs as written, in
# order, in one shell per DOC, in a fresh directory holding a copy of examples/, with the CLI
# under test first on PATH. A block fails the test when a command in it fails (errexit,
# pipefail) or, if the block shows output (lines starting "#> "), when its standard output
# differs from those lines. ```bash blocks (set-up and install commands), plain ``` blocks
# (synopses, dumps) and ```python blocks are not run here.
# A block that names 127.0.0.1:6379 (a Redis URL's host and port) gets a redis-server of its
# own on a free loopback port instead (scripts/lib-redis.sh), substituted for 6379 in the block
# and given as BB_REDIS_URL to the commands that name no server; each DOC starts on an empty
# server (FLUSHALL). Without redis-server (a fresh machine before run-tests.sh's redis stage
# installs it) such a block is skipped, and says so; the sanitize stage runs this test again
# after that stage.
# A block that names the cluster node 127.0.0.1:7000 runs only when BB_DOCS_CLUSTER gives the
# HOST:PORT of a running Redis Cluster node to put there (scripts/test-redis.sh does); it is
# skipped, and says so, otherwise.
#   tests/scripts/readme_examples.sh CLI_DIR SOURCE_DIR [DOC]...
set -euo pipefail
cli_dir=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
shift 2
(($#)) || set -- README.md
fail() { echo "readme_examples: FAILED: $*" >&2; exit 1; }
[[ -x $cli_dir/blockbloom ]] || fail "no blockbloom in $cli_dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
redis_port=

# run_doc DOC: the sh blocks of DOC, in a directory of their own.
run_doc() {
  local doc=$1 dir blocks least i
  dir=$tmp/$(tr / _ <<<"$doc")
  mkdir "$dir"
  cp -r "$src/examples" "$dir/examples"
  # Split the sh blocks into block-N.sh (the commands) and block-N.want (the #> lines).
  awk -v dir="$dir" '
    /^```sh$/ { n++; f = dir "/block-" n; printf "" >(f ".sh"); printf "" >(f ".want"); on = 1; next }
    on && /^```$/ { on = 0; next }
    on && /^#> / { print substr($0, 4) >(f ".want"); next }
    on && /^#>$/ { print "" >(f ".want"); next }
    on { print >(f ".sh") }
  ' "$src/$doc"
  blocks=$(find "$dir" -maxdepth 1 -name 'block-*.sh' | wc -l)
  least=1
  [[ $doc == README.md ]] && least=5
  ((blocks >= least)) || fail "only $blocks sh blocks found in $src/$doc"

  # One shell runs every block of DOC, so later blocks see the files earlier ones made.
  cd "$dir"
  [[ -z $redis_port ]] || redis-cli -p "$redis_port" flushall >/dev/null
  for ((i = 1; i <= blocks; i++)); do
    if grep -q '127\.0\.0\.1:7000' "block-$i.sh"; then
      if [[ -z ${BB_DOCS_CLUSTER:-} ]]; then
        echo "[SKIP] $doc block $i needs a Redis Cluster (scripts/test-redis.sh runs it)" >&2
        continue
      fi
      sed -i "s|127\.0\.0\.1:7000|$BB_DOCS_CLUSTER|g" "block-$i.sh"
    fi
    if grep -q '127\.0\.0\.1:6379' "block-$i.sh"; then
      if ! command -v redis-server >/dev/null; then
        echo "[SKIP] $doc block $i needs redis-server (scripts/test-redis.sh installs it)" >&2
        continue
      fi
      if [[ -z $redis_port ]]; then
        # shellcheck source=../../scripts/lib-redis.sh
        source "$src/scripts/lib-redis.sh"
        redis_port=$(free_port)
        start_server docs "$redis_port" || fail "cannot start redis-server"
        trap 'redis_cleanup; rm -rf "$tmp"' EXIT
        export BB_REDIS_URL=redis://127.0.0.1:$redis_port
      fi
      sed -i "s|127\.0\.0\.1:6379|127.0.0.1:$redis_port|g" "block-$i.sh"
    fi
    { echo "set -euo pipefail"; cat "block-$i.sh"; } >"run-$i.sh"
    PATH=$cli_dir:$PATH bash "run-$i.sh" >"block-$i.out" 2>"block-$i.err" ||
      fail "$doc block $i exited $?:
$(cat "block-$i.sh")
stderr:
$(cat "block-$i.err")"
    if [[ -s block-$i.want ]] && ! cmp -s "block-$i.want" "block-$i.out"; then
      fail "$doc block $i printed other than its #> lines:
$(diff "block-$i.want" "block-$i.out")"
    fi
  done
  echo "readme_examples: $blocks $doc blocks ran, their output as shown" >&2
}

for doc; do
  [[ -f $src/$doc ]] || fail "no $doc in $src"
  run_doc "$doc"
done
