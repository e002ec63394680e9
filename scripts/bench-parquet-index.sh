#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bench-parquet-index.sh - `blockbloom parquet index` against DuckDB rewriting the same file,
# in one run: DuckDB (the npm package of scripts/setup-duckdb.sh) writes a ~1 GB Parquet file
# of 6 columns (ZSTD, row groups of 1M rows), then both add Bloom filters to a copy of it:
#   blockbloom parquet index IN -o OUT -c cust -c sku -c id      (3 columns indexed)
#   DuckDB: COPY (FROM read_parquet(IN)) TO OUT (FORMAT parquet, COMPRESSION zstd)
# Each is timed once (wall, user+sys CPU, peak RSS by /usr/bin/time). A measurement, not a
# test: the figures go to docs/PARQUET.md with the machine and its load.
#   scripts/bench-parquet-index.sh BUILD_DIR [ROWS]     (default 30000000 rows, ~1 GB)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/bench-parquet-index.sh BUILD_DIR [ROWS]}
rows=${2:-30000000}
scripts/setup-duckdb.sh
dir=$(mktemp -d "${TMPDIR:-/tmp}/bb_pq_bench_XXXXXX")
trap 'rm -rf "$dir"' EXIT
export BB_DIR=$dir BB_ROWS=$rows
duck() { (cd build-oracle && node --input-type=module -e "
  import { DuckDBInstance } from '@duckdb/node-api';
  const c = await (await DuckDBInstance.create(':memory:')).connect();
  await c.run(\"SET threads = 2\");
  await c.run(process.argv[1]);" "$1"); }
echo "bench-parquet-index: writing $rows rows with DuckDB" >&2
duck "COPY (SELECT i AS id, 'customer-' || (i * 7919 % 200000) AS cust, (i % 50000)::INTEGER AS sku,
        (i % 10007) / 100.0 AS price, 'note ' || md5(i::VARCHAR) AS note,
        TIMESTAMP '2026-01-01' + INTERVAL (i % 31536000) SECOND AS ts
      FROM range($rows) r(i)) TO '$dir/in.parquet' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000000)"
ls -l "$dir/in.parquet" >&2
t() { /usr/bin/time -f "%e s wall, %U s user, %S s sys, %M KB peak RSS" "$@"; }
echo "--- blockbloom parquet index (3 columns)" >&2
t "$build/blockbloom" parquet index "$dir/in.parquet" -o "$dir/bb.parquet" -c cust -c sku -c id
echo "--- DuckDB rewrite (COPY ... FORMAT parquet)" >&2
t bash -c "$(declare -f duck); duck \"COPY (FROM read_parquet('$dir/in.parquet')) TO '$dir/duck.parquet' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 1000000)\""
ls -l "$dir"/*.parquet >&2
uptime >&2
