#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# readme_demo.sh - the README's pasted `blockbloom demo` output must be what today's program
# prints: part 1 and the overfill rows of the README's sample run are compared with a fresh
# `blockbloom demo --no-npm`, on every column that does not depend on timing or on the CPU
# (kind, kernel, p, keys, bits, KiB, bits/key, k, FN, FPR, model FPR: fixed seeds make them
# deterministic), for the kernels this CPU runs. The ns columns are left out; a change of
# sizing or hashing that leaves the README's table stale fails here.
#   tests/scripts/readme_demo.sh CLI README
set -euo pipefail
cli=$1 readme=$2
fail() { echo "readme_demo: FAILED: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The deterministic columns of the table rows (kind, kernel, ... model FPR) before "Part 2".
rows() { awk '/^Part 2/ { exit } /^(classic|blocked) / { $12 = $13 = ""; sub(/ +$/, ""); print }'; }
awk '/^```$/ && f { exit } f { print } /^```$/ && !f { getline l; if (l ~ /^blockbloom .* demo:/) { f = 1; print l } }' \
  "$readme" | rows >"$tmp/readme"
[[ -s $tmp/readme ]] || fail "no demo output block found in $readme"
"$cli" demo --no-npm >"$tmp/out" || fail "demo failed"
rows <"$tmp/out" >"$tmp/run"
# The block's first line names the version that printed it: today's.
want_head=$(awk '/^```$/ { getline l; if (l ~ /^blockbloom .* demo:/) { split(l, w, " "); print w[2]; exit } }' "$readme")
got_head=$(awk 'NR == 1 { print $2 }' "$tmp/out")
[[ $want_head == "$got_head" ]] || fail "README demo block says version '$want_head', the demo prints '$got_head'"
# Keep the README's rows whose kernel this CPU runs (and classic's, which has none).
kernels=$(awk '{ print $2 }' "$tmp/run" | sort -u)
grep -wF -f <(echo "$kernels") "$tmp/readme" >"$tmp/want" || true
[[ $(wc -l <"$tmp/want") -ge 5 ]] || fail "fewer than 5 README rows for kernels '$kernels'"
missing=$(grep -vxF -f "$tmp/run" "$tmp/want" || true)
[[ -z $missing ]] || fail "README demo rows that today's demo does not print:
$missing
today's rows:
$(cat "$tmp/run")"
echo "readme_demo: $(wc -l <"$tmp/want") README rows match" >&2
