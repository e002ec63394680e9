#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the test oracles of `blockbloom parquet` (tests/parquet/oracle.mjs) from the npm
# registry, at the versions pinned in tests/parquet/package.json and package-lock.json:
# DuckDB (@duckdb/node-api; its native library comes inside the npm package), hyparquet and
# hyparquet-writer, and @dsnp/parquetjs, into build-oracle/node_modules (git-ignored).
# Node.js and npm come from Debian (nodejs, npm: Node 18 on Debian 12) and are installed
# only when npm is missing. Idempotent: nothing is fetched when build-oracle holds the
# pinned lock file already. Any failure is fatal and loud: the Parquet tests need the real
# readers and writers, they never skip them.
#   scripts/setup-duckdb.sh
set -euo pipefail
cd "$(dirname "$0")/.."
command -v npm >/dev/null || scripts/setup.sh nodejs npm
dir=build-oracle
mkdir -p "$dir"
if ! cmp -s tests/parquet/package-lock.json "$dir/package-lock.json" ||
   [[ ! -d $dir/node_modules/@duckdb/node-api ]]; then
  echo "setup-duckdb: installing the Parquet oracles (tests/parquet/package-lock.json) into $dir" >&2
  cp tests/parquet/package.json tests/parquet/package-lock.json "$dir/"
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
fi
# Prove that the native library loads on this machine, with this Node.
(cd "$dir" && node --input-type=module -e "
  import { DuckDBInstance } from '@duckdb/node-api';
  const c = await (await DuckDBInstance.create(':memory:')).connect();
  const v = (await c.runAndReadAll('SELECT version() AS v')).getRowObjects()[0].v;
  await import('hyparquet'); await import('hyparquet-writer'); await import('@dsnp/parquetjs');
  console.error('setup-duckdb: DuckDB ' + v + ', hyparquet, parquetjs on Node ' + process.version);")
