#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# npm_setup.sh - the demo's real data on a fresh machine: scripts/setup.sh wants
# Debian's nodejs and npm when (and only when) no npm is on PATH, and
# scripts/fetch-npm-names.sh fails at once, with a message naming the registry, when the
# registry is unreachable (a closed loopback port), leaving no file behind. Needs npm on PATH
# (run-tests.sh installs it through setup.sh). Temporary files are removed on every exit.
#   tests/scripts/npm_setup.sh SOURCE_DIR
set -euo pipefail
cd "$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "npm_setup: FAILED: $*" >&2; exit 1; }
command -v npm >/dev/null || fail "npm is not on PATH (scripts/setup.sh nodejs npm)"

# 1. With npm on PATH, nodejs and npm are not asked for.
got=$(BB_SETUP_DRY_RUN=1 scripts/setup.sh nodejs npm)
[[ $got != *nodejs* && $got != *npm* ]] || fail "npm on PATH, yet setup wants: $got"

# 2. Without npm on PATH (a PATH of just the tools setup.sh uses), both are asked for,
#    unless dpkg has them already.
mkdir "$tmp/bin"
for t in bash dpkg-query grep; do ln -s "$(command -v "$t")" "$tmp/bin/$t"; done
got=$(PATH=$tmp/bin BB_SETUP_DRY_RUN=1 bash scripts/setup.sh nodejs npm)
for p in nodejs npm; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" && continue
  [[ " $got " == *" $p "* ]] || fail "no npm on PATH, yet setup does not want $p: $got"
done

# 3. An unreachable registry: exit 1 within 30 s, a message naming it, no data written.
start=$SECONDS
if BB_DATA_DIR=$tmp/data npm_config_registry=http://127.0.0.1:9/ \
  scripts/fetch-npm-names.sh 2>"$tmp/err"; then
  fail "fetch succeeded against a closed port"
fi
((SECONDS - start <= 30)) || fail "fetch took $((SECONDS - start)) s to give up"
grep -q "registry http://127.0.0.1:9/ cannot be reached" "$tmp/err" || fail "message: $(cat "$tmp/err")"
[[ ! -e $tmp/data ]] || fail "fetch left $tmp/data behind"
echo "npm_setup: passed" >&2
