#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fetches the real-data half of `blockbloom demo`: every public npm package name (about 4.5
# million strings), from the npm registry package `all-the-package-names`, whose tarball holds
# package/names.json, one JSON array of strings. Writes them verbatim, one per line, to
# data/npm-names.txt (data/ is git-ignored; installed: ~/.local/share/blockbloom/; BB_DATA_DIR
# names another directory) and the package version used to data/npm-names.version.
# Idempotent: an existing non-empty data/npm-names.txt is kept. Needs npm (and the node that comes with it; scripts/setup.sh
# nodejs npm installs them). Exits 1 with a message if npm is missing, at once (npm ping,
# no retries, 10 s timeout) if the registry cannot be reached, and after 120 s at most if
# the download stalls.
#   scripts/fetch-npm-names.sh
set -euo pipefail
# In a source tree (scripts/ beside CMakeLists.txt) the default is its data/; installed (as
# blockbloom-fetch-npm-names) it is the per-user data directory, where the installed demo
# and benchmark look (src/cli/datadir.h).
here=$(dirname "$(realpath "$0")")
if [[ -f $here/../CMakeLists.txt && -d $here/../src/cli ]]; then
  cd "$here/.."
  default_dir=data
else
  default_dir=${XDG_DATA_HOME:-$HOME/.local/share}/blockbloom
fi

pkg=all-the-package-names
dir=${BB_DATA_DIR:-$default_dir}
out=$dir/npm-names.txt
ver_file=$dir/npm-names.version

report() { # count and version of what is in data/
  local count version=unknown
  count=$(wc -l <"$out")
  [[ -s $ver_file ]] && version=$(<"$ver_file")
  echo "fetch-npm-names: $out holds $count names ($pkg $version)"
}

if [[ -s $out ]]; then
  echo "fetch-npm-names: $out already there, not fetched again (delete it to refresh)"
  report
  exit 0
fi

for tool in npm node tar; do
  if ! command -v "$tool" >/dev/null; then
    echo "fetch-npm-names: '$tool' not found; install npm (scripts/setup.sh nodejs npm)" >&2
    exit 1
  fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# npm's defaults retry a refused connection for over a minute: ask once, quickly, first.
registry=$(npm config get registry)
if ! timeout 20 npm ping --fetch-retries=0 --fetch-timeout=10000 --loglevel=error \
  >/dev/null 2>"$tmp/npm.err"; then
  echo "fetch-npm-names: the npm registry $registry cannot be reached (npm ping failed):" >&2
  grep -v '^npm error  *at ' "$tmp/npm.err" | grep -m 3 . | sed 's/^/  /' >&2 || true
  exit 1
fi
mkdir -p "$dir"
echo "fetch-npm-names: downloading $pkg from $registry (timeout 120 s)" >&2
if ! tarball=$(cd "$tmp" && timeout 120 npm pack "$pkg" --fetch-retries=1 --loglevel=error \
  2>"$tmp/npm.err"); then
  echo "fetch-npm-names: 'npm pack $pkg' failed (registry unreachable or timed out):" >&2
  grep -v '^npm error  *at ' "$tmp/npm.err" | head -n 5 | sed 's/^/  /' >&2 || true
  exit 1
fi
tarball=$(tail -n 1 <<<"$tarball")
tar -xzf "$tmp/$tarball" -C "$tmp" package/names.json package/package.json

# The JSON array goes out one element per line, each string exactly as decoded, in UTF-8. An
# element that is not a string, or holds a CR or LF (it could not be read back as one line:
# the CLI drops a CR before LF), is skipped with a warning; none did in 2.0.2578.
# shellcheck disable=SC2016 # the single-quoted text is JavaScript, not shell
node -e '
  const fs = require("fs");
  const fail = (msg) => { console.error("fetch-npm-names: " + msg); process.exit(1); };
  const [src, dst] = process.argv.slice(1);
  const names = JSON.parse(fs.readFileSync(src, "utf8"));
  if (!Array.isArray(names)) fail("names.json is not an array");
  const keep = names.filter((s) => typeof s === "string" && !/[\r\n]/.test(s));
  const skipped = names.length - keep.length;
  if (skipped) console.error(`fetch-npm-names: skipped ${skipped} entries, not one-line strings`);
  if (keep.length === 0) fail("names.json holds no names");
  fs.writeFileSync(dst, keep.join("\n") + "\n");
' "$tmp/package/names.json" "$tmp/names.txt"
node -e 'process.stdout.write(require(process.argv[1]).version + "\n")' \
  "$tmp/package/package.json" >"$tmp/version"

# Move into place last, so an interrupted run never leaves a partial list behind.
mv "$tmp/version" "$ver_file"
mv "$tmp/names.txt" "$out"
report
