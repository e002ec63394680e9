#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs DuckDB, the test oracle of `blockbloom parquet` (tests/parquet/oracle.mjs), from
# the npm registry: the package @duckdb/node-api at the version pinned in
# tests/parquet/package.json and package-lock.json (its native library comes inside the
# npm package), into build-oracle/node_modules (git-ignored). Node.js and npm come from
# Debian (nodejs, npm: Node 18 on Debian 12) and are installed only when npm is missing.
# Idempotent: nothing is fetched when the pinned version is already there. Any failure is
# fatal and loud: the Parquet tests need the real DuckDB, they never skip it.
#   scripts/setup-duckdb.sh
set -euo pipefail
cd "$(dirname "$0")/.."
command -v npm >/dev/null || scripts/setup.sh nodejs npm
dir=build-oracle
mkdir -p "$dir"
pinned=$(sed -n 's/.*"@duckdb\/node-api": *"\([^"]*\)".*/\1/p' tests/parquet/package.json)
have=$(node -p "require('./$dir/node_modules/@duckdb/node-api/package.json').version" 2>/dev/null || true)
if [[ $have != "$pinned" ]]; then
  echo "setup-duckdb: installing @duckdb/node-api $pinned into $dir" >&2
  cp tests/parquet/package.json tests/parquet/package-lock.json "$dir/"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
fi
# Prove that the native library loads on this machine, with this Node.
(cd "$dir" && node --input-type=module -e "
  import { DuckDBInstance } from '@duckdb/node-api';
  const c = await (await DuckDBInstance.create(':memory:')).connect();
  const v = (await c.runAndReadAll('SELECT version() AS v')).getRowObjects()[0].v;
  console.error('setup-duckdb: DuckDB ' + v + ' on Node ' + process.version);")
