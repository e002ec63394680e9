// SPDX-License-Identifier: MIT
// oracle.mjs - `blockbloom parquet` checked against DuckDB, a real Parquet engine (the npm
// package @duckdb/node-api, installed by scripts/setup-duckdb.sh into build-oracle/).
// DuckDB writes the input files: one table of strings (5000 distinct names in 100k rows, and
// a nullable one), INT32, INT64, FLOAT, DOUBLE, DECIMAL(18,2), DATE, UUID (a
// FIXED_LEN_BYTE_ARRAY) and a high-cardinality string column (PLAIN pages, no filter), with
// every codec DuckDB writes (UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4_RAW, BROTLI), data pages
// v1 and (PARQUET_VERSION V2) v2 (DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY,
// BYTE_STREAM_SPLIT), and 3 row groups each; DuckDB writes an SBBF for each
// dictionary-encoded chunk; and leaves of a nullable list and struct. Then:
//   info     `parquet info --json` lists DuckDB's chunks, filters, offsets and lengths, and
//            estimates the distinct count from the fill within 10%; every --help works;
//   decode   every value our page decoder yields (tests/parquet/pq_dump.c) equals, in order
//            and per row group, what DuckDB reads (nested leaves: its unnested values);
//   errors   damaged copies (wrong magic, truncated footer, filter offset outside the file,
//            numBytes disagreeing with bloom_filter_length, a non-power-of-two filter) and
//            unsupported columns (BOOLEAN) each get their own message and
//            exit status, and `parquet index` then creates no output;
//   probe    `parquet probe` agrees with DuckDB's parquet_bloom_probe on every value of the
//            names column, on a sample of every other column's values, and on absent ones;
//   extract  an extracted filter answers present (blockbloom query) for every value of its
//            chunk;
//   index    DuckDB reads the files `parquet index` writes with identical query results,
//            their bytes before the old footer are the input's, and parquet_bloom_probe on
//            them agrees with our probe (never excluding a present value); nested leaves
//            are indexed and read back the same;
//   dataset  a hive-partitioned directory: info, probe and index (-j 2) take it and globs,
//            index keeps each file's path below OUT, DuckDB reads the copy the same.
// Usage: node oracle.mjs [SECTION...]   (default: all). Environment: BB_CLI (the blockbloom
// binary), PQ_DUMP (the pq_dump test tool), BB_ORACLE_MODULES (node_modules holding DuckDB).
// Any disagreement throws: exit status 1 with what differed. Nothing is skipped: a missing
// DuckDB is a failure.
import { pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { dumpTool, harness, modules, q, req, run } from './harness.mjs';

// A plain `ctest` after the README's build has no DuckDB yet: say how to get it (still a
// failure) instead of Node's MODULE_NOT_FOUND stack.
let duckdbPath;
try {
  duckdbPath = req.resolve('@duckdb/node-api');
} catch {
  console.error(`oracle: FAILED: DuckDB (@duckdb/node-api) is not installed in ${modules}; ` +
    'run scripts/setup-duckdb.sh (scripts/run-tests.sh does)');
  process.exit(1);
}
const { DuckDBInstance } = await import(pathToFileURL(duckdbPath).href);

const sections = process.argv.slice(2);
const want = (s) => s === 'files' || sections.length === 0 || sections.includes(s);
const h = harness('oracle'), { tmp } = h;
const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const rows = async (sql) => (await con.runAndReadAll(sql)).getRowObjects();
const check = h.check;
let lap = Date.now();
function done(section) { // progress on stderr: the CI log shows where the time goes
  if (want(section)) console.error(`oracle: ${section} done in ${((Date.now() - lap) / 1000).toFixed(1)} s`);
  lap = Date.now();
}

// ---- The input files ------------------------------------------------------------------------
// Columns: how DuckDB's value prints as pq_dump's text (sql), how a value is typed in a
// probe's SQL (lit), and whether DuckDB writes it with a dictionary (so with an SBBF).
const columns = {
  s: { sql: 's', lit: (v) => q(v) },
  sn: { sql: 'sn', lit: (v) => q(v) },
  i32: { sql: 'i32::VARCHAR', lit: (v) => `${v}::INTEGER` },
  i64: { sql: 'i64::VARCHAR', lit: (v) => `${v}::BIGINT` },
  f: { sql: 'f', lit: (v) => `${v}::FLOAT`, num: 'float' },
  d: { sql: 'd', lit: (v) => `${v}::DOUBLE`, num: 'double' },
  dec: { sql: '(dec * 100)::BIGINT::VARCHAR', probe: 'dec::VARCHAR', lit: (v) => `${v}::DECIMAL(18,2)` },
  dt: { sql: '(dt - DATE \'1970-01-01\')::VARCHAR', probe: 'dt::VARCHAR', lit: (v) => `DATE ${q(v)}` },
  // DuckDB 1.5.6's parquet_bloom_probe never excludes a UUID (it writes their filters, but
  // does not probe them): there our probe must find every value of DuckDB's filters and
  // exclude nearly all absent ones.
  u: { sql: 'replace(u::VARCHAR, \'-\', \'\')', probe: 'u::VARCHAR', lit: (v) => `${q(v)}::UUID`, noDuckProbe: true },
  k: { sql: 'k', lit: (v) => q(v), plain: true },
};
await con.run(`CREATE TABLE t AS SELECT
    'name' || (i * 7919 % 5000) AS s,
    CASE WHEN i % 10 = 0 THEN NULL ELSE 'n' || (i % 777) END AS sn,
    (i % 5000 - 2500)::INTEGER AS i32,
    ((i % 3000) * 1000003)::BIGINT AS i64,
    ((i % 400) / 8)::FLOAT AS f,
    ((i % 700) / 3)::DOUBLE AS d,
    ((i % 500) / 100)::DECIMAL(18,2) AS dec,
    DATE '2020-01-01' + (i % 365)::INTEGER AS dt,
    ('00000000-0000-0000-0000-' || lpad((i % 100)::VARCHAR, 12, '0'))::UUID AS u,
    'k' || i AS k
  FROM range(100000) r(i)`);
// Every codec DuckDB writes (lz4 is LZ4_RAW), with data pages v1 and v2. v2 pages bring
// DuckDB's other encodings: DELTA_BINARY_PACKED (i32, i64), DELTA_LENGTH_BYTE_ARRAY (k) and
// BYTE_STREAM_SPLIT (f, d). The full table for two files, probed; 30k rows for the rest,
// decoded only (the oracle's time stays modest).
const files = [];
await con.run('CREATE TABLE t30 AS FROM t LIMIT 30000');
for (const version of ['V1', 'V2'])
  for (const codec of ['uncompressed', 'snappy', 'gzip', 'zstd', 'lz4', 'brotli']) {
    const full = (version === 'V1' && codec === 'uncompressed') || (version === 'V2' && codec === 'zstd');
    const f = path.join(tmp, `t_${codec}_${version}.parquet`);
    await con.run(`COPY ${full ? 't' : 't30'} TO ${q(f)} (FORMAT parquet, COMPRESSION ${codec},
        ROW_GROUP_SIZE ${full ? 40000 : 12000}, PARQUET_VERSION ${version})`);
    files.push({ path: f, cols: Object.keys(columns), probe: full || codec === 'snappy', full });
  }
files.sort((a, b) => b.full - a.full); // files[0]: v1 uncompressed, files[1]: v2 zstd
const v2 = files[1].path;
// Leaves of a struct and of a list (definition and repetition levels), v1 and v2.
const nested = [];
for (const version of ['V1', 'V2']) {
  const f = path.join(tmp, `nested_${version}.parquet`);
  await con.run(`COPY (SELECT CASE WHEN i % 7 = 0 THEN NULL ELSE [i, i + 1] END AS l,
      CASE WHEN i % 5 = 0 THEN NULL ELSE {'a': i, 'b': CASE WHEN i % 3 = 0 THEN NULL ELSE 'x' || (i % 10) END} END AS st,
      i AS x FROM range(5000) r(i)) TO ${q(f)} (FORMAT parquet, PARQUET_VERSION ${version}, ROW_GROUP_SIZE 2000)`);
  nested.push(f);
}

// DuckDB's view of one column: per row group, the non-null values as text, in order
// (remembered: several sections ask for the same).
const duckCache = new Map();
async function duckValues(file, col, expr) {
  const key = `${file}\n${expr}`;
  if (!duckCache.has(key)) duckCache.set(key, await readDuck(file, expr));
  return duckCache.get(key);
}
async function readDuck(file, expr) {
  const groups = await rows(`SELECT row_group_id AS g, row_group_num_rows AS n
      FROM parquet_metadata(${q(file)}) GROUP BY ALL ORDER BY g`);
  // Nulls are dropped by DuckDB; the row numbers say which row group each value is in.
  const [vs, rs] = (await con.runAndReadAll(`SELECT ${expr} AS v, file_row_number AS r
      FROM read_parquet(${q(file)}, file_row_number = true) WHERE v IS NOT NULL ORDER BY r`)).getColumns();
  const out = groups.map(() => []);
  let g = 0, end = Number(groups[0].n);
  for (let i = 0; i < vs.length; i++) {
    while (Number(rs[i]) >= end) end += Number(groups[++g].n);
    out[g].push(vs[i]);
  }
  return out;
}

done('files');

// ---- decode ---------------------------------------------------------------------------------
if (want('decode')) {
  for (const f of files)
    for (const col of f.cols) {
      const r = spawnSync(dumpTool, [f.path, col], { maxBuffer: 1 << 30, encoding: 'utf8' });
      check(r.status === 0, `pq_dump ${f.path} ${col}: ${r.stderr}`);
      const theirs = await duckValues(f.path, col, columns[col].sql);
      if (!columns[col].num) { // exact text: one comparison of the whole dump
        const want = theirs.map((vs, g) => vs.map((v) => `${g}\t${v}\n`).join('')).join('');
        if (r.stdout !== want) {
          const a = r.stdout.split('\n'), b = want.split('\n'), i = a.findIndex((x, j) => x !== b[j]);
          check(false, `${f.path} ${col}: line ${i}: ours ${a[i]}, DuckDB ${b[i]} (${a.length - 1} vs ${b.length - 1} values)`);
        }
        h.checks++;
        continue;
      }
      const ours = r.stdout.split('\n').slice(0, -1);
      const flat = theirs.flatMap((vs, g) => vs.map((v) => [g, v]));
      check(ours.length === flat.length, `${f.path} ${col}: ${ours.length} values, DuckDB ${flat.length}`);
      for (let i = 0; i < flat.length; i++) {
        const [g, v] = flat[i];
        const tab = ours[i].indexOf('\t');
        const og = Number(ours[i].slice(0, tab)), ov = Number(ours[i].slice(tab + 1));
        const same = columns[col].num === 'float' ? Math.fround(ov) === Math.fround(v) : ov === v;
        if (!(og === g && same)) check(false, `${f.path} ${col} value ${i}: ours ${ours[i]}, DuckDB ${g}\t${v}`);
      }
      h.checks++;
    }
}

if (want('decode')) { // nested leaves against DuckDB's unnested values
  for (const f of nested)
    for (const [col, expr] of [['l.list.element', 'unnest(l)'], ['st.a', 'st.a'], ['st.b', 'st.b']]) {
      const r = spawnSync(dumpTool, [f, col], { maxBuffer: 1 << 30, encoding: 'utf8' });
      check(r.status === 0, `pq_dump ${f} ${col}: ${r.stderr}`);
      const theirs = (await rows(`SELECT v FROM (SELECT ${expr}::VARCHAR AS v, file_row_number AS r
          FROM read_parquet(${q(f)}, file_row_number = true)) WHERE v IS NOT NULL`)).map((x) => x.v);
      const ours = r.stdout.split('\n').slice(0, -1).map((l) => l.split('\t')[1]);
      check(ours.join('\n') === theirs.join('\n'), `${f} ${col}: ${ours.length} values, DuckDB ${theirs.length}`);
    }
}

done('decode');

// ---- info -----------------------------------------------------------------------------------
// Our footer reading against DuckDB's parquet_metadata: the same chunks, filters, offsets and
// lengths; the distinct-count estimate from the fill near DuckDB's exact count.
if (want('info')) {
  for (const f of files) {
    const r = run(['parquet', 'info', '--json', f.path]);
    check(r.status === 0, `info --json ${f.path}: ${r.stderr}`);
    const j = JSON.parse(r.stdout);
    const meta = await rows(`SELECT row_group_id AS g, path_in_schema AS c, bloom_filter_offset AS o,
        bloom_filter_length AS l, num_values AS n FROM parquet_metadata(${q(f.path)})`);
    check(j.chunks.length === meta.length && j.row_groups === new Set(meta.map((m) => m.g)).size,
      `info ${f.path}: ${j.chunks.length} chunks, DuckDB ${meta.length}`);
    for (const m of meta) {
      const c = j.chunks.find((x) => x.row_group === Number(m.g) && x.column === m.c);
      check(c && c.num_values === Number(m.n) && c.bloom_filter === (m.o !== null),
        `info ${f.path} ${m.g} ${m.c}: ${JSON.stringify(c)}`);
      if (m.o === null) continue;
      check(c.offset === Number(m.o) && c.length === Number(m.l) && c.bytes < c.length &&
        c.pow2 === ((c.bytes & (c.bytes - 1)) === 0) &&
        c.fill_ratio > 0 && c.fill_ratio < 1, `info ${f.path} ${m.g} ${m.c}: ${JSON.stringify(c)}`);
      if (f !== files[0] || m.c !== 's') continue;
      const d = new Set((await duckValues(f.path, 's', 's'))[Number(m.g)]).size;
      check(Math.abs(c.cardinality_estimate - Number(d)) < 0.1 * Number(d),
        `info ${f.path} rg ${m.g}: estimate ${c.cardinality_estimate}, distinct ${d}`);
    }
    const t = run(['parquet', 'info', f.path]);
    check(t.status === 0 && t.stdout.split('\n').length === meta.length + 3, `info table ${f.path}`);
  }
  for (const args of [['parquet', '--help'], ['parquet', 'info', '--help'], ['parquet', 'probe', '--help'],
    ['parquet', 'extract', '--help'], ['parquet', 'index', '--help'], ['help', 'parquet']]) {
    const r = run(args);
    check(r.status === 0 && /^Usage: blockbloom parquet/.test(r.stdout), `${args.join(' ')}: ${r.status}`);
  }
}

done('info');

// ---- Probing both ways ----------------------------------------------------------------------
// Our answers: value -> per row group 'present' | 'absent' | 'unfiltered'.
function ourProbe(file, col, values) {
  const r = run(['parquet', 'probe', file, '--column', col], values.map((v) => v + '\n').join(''));
  check(r.status === 0, `parquet probe ${file} ${col}: ${r.stderr}`);
  const m = new Map();
  for (const line of r.stdout.split('\n').slice(0, -1)) {
    const [, g, v, a] = line.split('\t');
    if (!m.has(v)) m.set(v, []);
    m.get(v)[Number(g)] = a;
  }
  return m;
}
async function compareProbe(file, col, values, mustBePresent) {
  const ours = ourProbe(file, col, values);
  let falsePos = 0, absentProbes = 0;
  for (const v of values) {
    const res = await rows(`SELECT row_group_id AS g, bloom_filter_excludes AS x
        FROM parquet_bloom_probe(${q(file)}, ${q(col)}, ${columns[col].lit(v)})`);
    const mine = ours.get(String(v));
    check(mine && mine.length === res.length, `${file} ${col} ${v}: row groups differ`);
    for (const { g, x } of res) {
      const a = mine[Number(g)];
      if (a === 'unfiltered') {
        check(x === false, `${file} ${col} ${v} rg ${g}: DuckDB excludes, we have no filter`);
        continue;
      }
      if (x !== (a === 'absent') && !columns[col].noDuckProbe) check(false, `${file} ${col} ${v} rg ${g}: DuckDB excludes=${x}, we say ${a}`);
      if (mustBePresent.has(`${g}\t${v}`)) check(a === 'present', `${file} ${col} ${v} rg ${g}: a false negative`);
      else if (absentProbes++, a === 'present') falsePos++;
    }
  }
  h.checks++;
  if (columns[col].noDuckProbe) // our own answers only: a few false positives at most
    check(falsePos <= 0.1 * absentProbes, `${file} ${col}: ${falsePos} false positives in ${absentProbes}`);
  return { falsePos, absentProbes };
}
// The values of a column per row group, as probe input (DuckDB's text of them).
async function probeValues(file, col) {
  const per = await duckValues(file, col, columns[col].probe ?? columns[col].sql);
  const present = new Set(), distinct = new Set();
  per.forEach((vs, g) => vs.forEach((v) => { present.add(`${g}\t${v}`); distinct.add(String(v)); }));
  return { per, present, distinct: [...distinct] };
}
const absentOf = {
  s: (i) => `absent${i}`, sn: (i) => `nope${i}`, i32: (i) => 100000 + i * 7, i64: (i) => -1 - i * 13,
  f: (i) => 1000.5 + i, d: (i) => 1e6 + i / 4, dec: (i) => `${(700 + i / 100).toFixed(2)}`,
  dt: (i) => new Date(Date.UTC(2030, 0, 1 + i)).toISOString().slice(0, 10),
  u: (i) => `ffffffff-0000-0000-0000-${String(i).padStart(12, '0')}`, k: (i) => `zz${i}`,
};
const sample = (xs, n) => xs.filter((_, i) => i % Math.max(1, Math.floor(xs.length / n)) === 0);

if (want('probe')) {
  for (const f of files.filter((x) => x.probe))
    for (const col of f.cols.filter((c) => !columns[c].plain)) {
      const { present, distinct } = await probeValues(f.path, col);
      const all = f === files[0] && col === 's'; // every value once, a sample elsewhere
      const values = [...(all ? distinct : sample(distinct, 40)),
        ...Array.from({ length: all ? 1000 : 40 }, (_, i) => String(absentOf[col](i)))];
      await compareProbe(f.path, col, values, present);
    }
}

done('probe');

// ---- extract --------------------------------------------------------------------------------
if (want('extract')) {
  for (const f of files.filter((x) => x.probe))
    for (const col of ['sn', ...(f.cols.includes('s') ? ['s'] : [])]) {
      const { per } = await probeValues(f.path, col);
      const hasFilter = (await rows(`SELECT row_group_id AS g FROM parquet_metadata(${q(f.path)})
          WHERE path_in_schema = ${q(col)} AND bloom_filter_offset IS NOT NULL`)).map((m) => Number(m.g));
      for (let g = 0; g < per.length; g++) {
        const out = path.join(tmp, `x_${path.basename(f.path)}_${col}_${g}.bb`);
        let r = run(['parquet', 'extract', f.path, '--column', col, '--row-group', String(g), '-o', out]);
        if (!hasFilter.includes(g)) {
          check(r.status === 1 && /no Bloom filter/.test(r.stderr) && !fs.existsSync(out), `extract without a filter: ${r.stderr}`);
          continue;
        }
        check(r.status === 0, `extract ${f.path} ${col} ${g}: ${r.stderr}`);
        const keys = [...new Set(per[g])];
        r = run(['query', '-c', out], keys.map((v) => v + '\n').join(''));
        check(r.status === 0 && Number(r.stdout) === keys.length,
          `extract ${f.path} ${col} rg ${g}: query found ${r.stdout.trim()} of ${keys.length} values`);
        r = run(['info', out]);
        check(r.status === 0 && /kind: split/.test(r.stdout), `info of an extracted filter: ${r.stdout}${r.stderr}`);
      }
    }
  // OUT naming the input (itself, or through a symlink) is refused and the input unchanged.
  const f = files.find((x) => x.cols.includes('s')), before = fs.readFileSync(f.path);
  const link = path.join(tmp, 'link_to_input.parquet');
  fs.symlinkSync(f.path, link);
  for (const out of [f.path, link]) {
    const r = run(['parquet', 'extract', f.path, '--column', 's', '--row-group', '0', '-o', out]);
    check(r.status === 1 && /is the input file/.test(r.stderr) && before.equals(fs.readFileSync(f.path)),
      `extract onto its input ${out}: status ${r.status}, ${r.stderr}`);
  }
}

done('extract');

// ---- index ----------------------------------------------------------------------------------
if (want('index')) {
  for (const f of [files[0], files[1]]) { // v1 (with DuckDB's filters), zstd v2 (DELTA, BSS)
    const out = path.join(tmp, 'indexed.parquet');
    const cols = f === files[0] ? ['s', 'i32', 'f', 'k'] : ['sn', 'i64', 'd', 'dec', 'u', 'k', 'i32'];
    const before = fs.readFileSync(f.path);
    let r = run(['parquet', 'index', f.path, '-o', out, ...cols.flatMap((c) => ['--column', c]), '-p', '0.01']);
    check(r.status === 0, `index ${f.path}: ${r.stderr}`);
    check(Buffer.compare(before, fs.readFileSync(f.path)) === 0, 'index changed its input');
    const after = fs.readFileSync(out);
    const footerStart = before.length - 8 - before.readUInt32LE(before.length - 8);
    check(Buffer.compare(before.subarray(0, footerStart), after.subarray(0, footerStart)) === 0,
      'index: the bytes before the footer differ from the input');
    const diff = await rows(`SELECT
        (SELECT count(*) FROM (FROM read_parquet(${q(f.path)}) EXCEPT ALL FROM read_parquet(${q(out)}))) AS a,
        (SELECT count(*) FROM (FROM read_parquet(${q(out)}) EXCEPT ALL FROM read_parquet(${q(f.path)}))) AS b,
        (SELECT count(*) FROM read_parquet(${q(out)})) AS n`);
    check(diff[0].a === 0n && diff[0].b === 0n && diff[0].n === 100000n, `DuckDB reads the indexed file differently: ${JSON.stringify(diff, (k, v) => typeof v === 'bigint' ? String(v) : v)}`);
    const same = await rows(`SELECT count(*) AS n FROM read_parquet(${q(out)}) WHERE i64 = 2000006 AND sn = 'n2'`);
    const orig = await rows(`SELECT count(*) AS n FROM read_parquet(${q(f.path)}) WHERE i64 = 2000006 AND sn = 'n2'`);
    check(same[0].n === orig[0].n, 'a filtered query differs on the indexed file');
    const meta = await rows(`SELECT path_in_schema AS c, bloom_filter_offset AS o, bloom_filter_length AS l
        FROM parquet_metadata(${q(out)})`);
    for (const m of meta.filter((m) => cols.includes(m.c)))
      check(m.o !== null && Number(m.o) >= footerStart && m.l !== null, `indexed ${m.c} has no new filter`);
    let fp = 0, n = 0; // false positives among n probes of absent values
    for (const col of cols) {
      const { present, distinct } = await probeValues(f.path, col);
      const absent = Array.from({ length: 150 }, (_, i) => String(absentOf[col](i)));
      const res = await compareProbe(out, col, [...sample(distinct, 150), ...absent], present);
      fp += res.falsePos;
      n += res.absentProbes;
    }
    // p = 1% per chunk: the absent values' false positives stay well below 3%.
    check(fp <= 0.03 * n, `index: ${fp} false positives in ${n} absent probes at p = 1%`);
  }
  // Leaves of lists and structs: indexed, read back the same by DuckDB, every value present.
  for (const f of nested) {
    const out = path.join(tmp, 'indexed_nested.parquet');
    const cols = ['l.list.element', 'st.a', 'st.b'];
    let r = run(['parquet', 'index', f, '-o', out, ...cols.flatMap((c) => ['--column', c])]);
    check(r.status === 0, `index ${f}: ${r.stderr}`);
    const diff = await rows(`SELECT (SELECT count(*) FROM (FROM read_parquet(${q(f)}) EXCEPT ALL FROM read_parquet(${q(out)}))) AS a,
        (SELECT count(*) FROM read_parquet(${q(out)})) AS n`);
    check(diff[0].a === 0n && diff[0].n === 5000n, `DuckDB reads the indexed ${f} differently`);
    const vals = (await rows(`SELECT DISTINCT st.b AS v FROM read_parquet(${q(f)}) WHERE v IS NOT NULL`)).map((x) => x.v);
    r = run(['parquet', 'probe', out, '--column', 'st.b'], [...vals, 'nope1', 'nope2'].map((v) => v + '\n').join(''));
    const lines = r.stdout.split('\n').slice(0, -1).map((l) => l.split('\t'));
    check(r.status === 0 && lines.filter((l) => vals.includes(l[2])).every((l) => l[3] === 'present') &&
      lines.filter((l) => l[2].startsWith('nope')).some((l) => l[3] === 'absent'), `probe of the indexed ${f}: ${r.stderr}`);
  }
  // OUT a dangling symlink: index and extract (bb_save) both refuse it, name it, keep the link.
  const dangling = path.join(tmp, 'dangling.out');
  fs.symlinkSync(path.join(tmp, 'no_such_dir', 'x'), dangling);
  const src = files.find((x) => x.cols.includes('s'));
  for (const args of [['parquet', 'index', src.path, '-o', dangling, '--column', 's'],
    ['parquet', 'extract', src.path, '--column', 's', '--row-group', '0', '-o', dangling]]) {
    const r = run(args);
    check(r.status === 1 && /symbolic link to .*does not exist/.test(r.stderr) &&
      fs.lstatSync(dangling).isSymbolicLink(), `${args[1]} onto a dangling link: ${r.status} ${r.stderr}`);
  }
}

done('index');

// ---- dataset --------------------------------------------------------------------------------
// A hive-partitioned dataset (COPY ... PARTITION_BY): info, probe and index take its
// directory and globs; index -j 2 writes each file at its path below OUT, and DuckDB reads the
// indexed dataset with the same rows; two inputs of one path are refused (exit 2).
if (want('dataset')) {
  const ds = path.join(tmp, 'sales'), out = path.join(tmp, 'sales_indexed');
  await con.run(`COPY (SELECT 'd' || (i % 4) AS date, 'c' || (i * 13 % 700) AS cust, i AS n FROM range(20000) r(i))
      TO ${q(ds)} (FORMAT parquet, PARTITION_BY (date), ROW_GROUP_SIZE 2000)`);
  let r = run(['parquet', 'index', ds, '-o', out, '-c', 'cust', '-c', 'n', '-j', '2']);
  check(r.status === 0 && /wrote 4 of 4 files under/.test(r.stderr), `index of a dataset: ${r.status} ${r.stderr}`);
  for (const d of ['d0', 'd1', 'd2', 'd3'])
    check(fs.existsSync(path.join(out, `date=${d}`, 'data_0.parquet')), `index kept the partition date=${d}`);
  const glob = (dir) => q(path.join(dir, '*', '*.parquet'));
  const [d] = await rows(`SELECT
      (SELECT count(*) FROM (FROM read_parquet(${glob(ds)}, hive_partitioning = true) EXCEPT ALL FROM read_parquet(${glob(out)}, hive_partitioning = true))) AS a,
      (SELECT count(*) FROM read_parquet(${glob(out)})) AS n`);
  check(d.a === 0n && d.n === 20000n, 'DuckDB reads the indexed dataset differently');
  const info = run(['parquet', 'info', '--json', out]);
  const objs = info.stdout.trim().split('\n').map((l) => JSON.parse(l));
  check(info.status === 0 && objs.length === 4 && objs.every((o) => o.chunks.filter((c) => c.column === 'cust').every((c) => c.bloom_filter)),
    `info of a dataset directory: ${info.stderr}`);
  // The partitions DuckDB finds c13 in must all answer present; the rest mostly absent.
  const where = (await rows(`SELECT DISTINCT date FROM read_parquet(${glob(ds)}, hive_partitioning = true) WHERE cust = 'c13'`)).map((x) => x.date);
  r = run(['parquet', 'probe', path.join(out, '*', '*.parquet'), '--column', 'cust', 'c13']);
  const hits = r.stdout.split('\n').filter((l) => l.endsWith('\tpresent')).map((l) => /date=(d\d)/.exec(l)[1]);
  check(r.status === 0 && where.every((w) => hits.includes(w)) && hits.length < 40, `probe of a glob: ${where} vs ${hits}`);
  r = run(['parquet', 'index', path.join(ds, 'date=d1'), path.join(ds, 'date=d2'), '-o', path.join(tmp, 'clash'), '-c', 'cust']);
  check(r.status === 2 && /would both be written to/.test(r.stderr) && !fs.existsSync(path.join(tmp, 'clash')), `two inputs of one path: ${r.status} ${r.stderr}`);
  r = run(['parquet', 'info', path.join(tmp, 'nothing_*.parquet')]);
  check(r.status === 1 && /no file matches/.test(r.stderr), `a glob matching nothing: ${r.stderr}`);
  // Symbolic links back to the directory and a second link to a partition: each directory is
  // listed once (the loop alone listed its file 41 times, until ELOOP).
  const looped = path.join(tmp, 'looped');
  fs.cpSync(ds, looped, { recursive: true });
  fs.symlinkSync('..', path.join(looped, 'date=d0', 'up'));
  fs.symlinkSync('date=d1', path.join(looped, 'link_d1'));
  r = run(['parquet', 'info', '--json', looped]);
  const got = r.stdout.trim().split('\n').map((l) => JSON.parse(l).file).sort();
  check(r.status === 0 && got.length === 4 && got.every((f, i) => f.endsWith(`date=d${i}/data_0.parquet`)),
    `info of a directory with symbolic link loops: ${r.status} ${got} ${r.stderr}`);
}

done('dataset');

// ---- errors ---------------------------------------------------------------------------------
function expectFail(args, re, what, status = 1) {
  const r = run(args);
  check(r.status === status && re.test(r.stderr), `${what}: status ${r.status}, stderr ${r.stderr}`);
}
function varint(v) {
  const b = [];
  do { let x = v & 0x7f; v = Math.floor(v / 128); if (v) x |= 0x80; b.push(x); } while (v);
  return Buffer.from(b);
}
const zz = (n) => n * 2; // zigzag of a non-negative value
function readVarint(buf, at) {
  let v = 0, mul = 1, i = at;
  for (;;) { const b = buf[i++]; v += (b & 0x7f) * mul; mul *= 128; if (!(b & 0x80)) return [v, i - at]; }
}
function patch(buf, at, bytes) { const c = Buffer.from(buf); bytes.copy(c, at); return c; }
function findIn(buf, from, needle) {
  const i = buf.indexOf(needle, from);
  check(i >= 0, 'mutation target not found');
  return i;
}

if (want('errors')) {
  const src = files[0].path, buf = fs.readFileSync(src);
  const flen = buf.readUInt32LE(buf.length - 8), footerStart = buf.length - 8 - flen;
  const [bf] = await rows(`SELECT bloom_filter_offset AS o, bloom_filter_length AS l
      FROM parquet_metadata(${q(src)}) WHERE row_group_id = 0 AND path_in_schema = 's'`);
  const off = Number(bf.o), len = Number(bf.l);
  const write = (name, b) => { const p = path.join(tmp, name); fs.writeFileSync(p, b); return p; };
  const info = (p) => ['parquet', 'info', p];

  let p = write('magic_end.parquet', patch(buf, buf.length - 4, Buffer.from('PAR2')));
  expectFail(info(p), /wrong magic: not a Parquet file \(no PAR1 at the end\)/, 'wrong magic');
  p = write('magic_start.parquet', patch(buf, 0, Buffer.from('XXXX')));
  expectFail(info(p), /wrong magic: not a Parquet file \(no PAR1 at the start\)/, 'wrong magic');
  const huge = Buffer.alloc(4); huge.writeUInt32LE(buf.length);
  p = write('footer_len.parquet', patch(buf, buf.length - 8, huge));
  expectFail(info(p), /truncated footer: its length/, 'footer length beyond the file');
  const half = Math.floor(flen / 2), hl = Buffer.alloc(4); hl.writeUInt32LE(half);
  p = write('footer_cut.parquet', Buffer.concat([buf.subarray(0, footerStart + half), hl, Buffer.from('PAR1')]));
  expectFail(info(p), /truncated footer: FileMetaData ends early/, 'truncated footer');
  const emptyDir = path.join(tmp, 'empty_dir');
  fs.mkdirSync(emptyDir);
  expectFail(info(emptyDir), /no \*\.parquet file under the directory/, 'a directory without Parquet files');
  expectFail(info(path.join(tmp, 'missing.parquet')), /No such file or directory/, 'a missing file');
  p = write('empty.parquet', Buffer.alloc(0));
  expectFail(info(p), /not a Parquet file \(0 bytes, no PAR1 magic\)/, 'an empty file');
  p = write('tiny.parquet', Buffer.from('PAR1PAR1'));
  expectFail(info(p), /truncated file/, 'truncated file');

  // The filter offset in the footer (ColumnMetaData 14, i64) moved past the end of the file.
  const offVar = varint(zz(off)), lenVar = varint(zz(len));
  const at = findIn(buf, footerStart, Buffer.concat([offVar, Buffer.from([0x15]), lenVar]));
  const far = varint(zz(2 ** (7 * offVar.length - 2))); // same byte count, beyond the file
  check(far.length === offVar.length, 'far offset has the same length');
  p = write('bloom_offset.parquet', patch(buf, at, far));
  expectFail(info(p), /bloom_filter_offset \d+ outside the data/, 'filter offset outside the file');

  // numBytes in the filter header (field 1, i32, right after the header's first byte).
  check(buf[off] === 0x15, 'BloomFilterHeader starts with field 1 (i32)');
  const [nbz, nbLen] = readVarint(buf, off + 1), nb = nbz / 2;
  const other = nb + nb / 2; // a multiple of 32, not a power of two, same varint length
  check(varint(zz(other)).length === nbLen, 'numBytes patch keeps its length');
  p = write('numbytes.parquet', patch(buf, off + 1, varint(zz(other))));
  expectFail(info(p), /numBytes \d+ disagrees with bloom_filter_length \d+/, 'numBytes disagrees');
  // The same, with bloom_filter_length agreeing: a non-power-of-two filter, accepted.
  const lenAt = at + offVar.length + 1, newLen = varint(zz(len - nb + other));
  check(newLen.length === lenVar.length, 'length patch keeps its length');
  p = write('non_pow2.parquet', patch(patch(buf, off + 1, varint(zz(other))), lenAt, newLen));
  let r = run(info(p));
  check(r.status === 0 && /note: .*not a power of two \(accepted/.test(r.stderr), `non-power-of-two filter: ${r.status} ${r.stderr}`);
  r = run(['parquet', 'info', '--json', p]);
  const c0 = JSON.parse(r.stdout).chunks.find((c) => c.row_group === 0 && c.column === 's');
  check(c0.pow2 === false && c0.bytes === other, `non-power-of-two filter in JSON: ${JSON.stringify(c0)}`);

  // A column type without a filter hash (BOOLEAN) is refused by name.
  const bools = path.join(tmp, 'bools.parquet');
  await con.run(`COPY (SELECT i % 3 = 0 AS b FROM range(1000) r(i)) TO ${q(bools)} (FORMAT parquet)`);
  const out = path.join(tmp, 'never.parquet');
  expectFail(['parquet', 'index', bools, '-o', out, '--column', 'b'], /column 'b' has physical type BOOLEAN \(not supported\)/, 'BOOLEAN column');
  expectFail(['parquet', 'index', src, '-o', out, '--column', 'nosuch'], /no column 'nosuch'/, 'unknown column');
  expectFail(['parquet', 'index', src, '-o', src, '--column', 's'], /OUT '.*' is IN/, 'OUT is IN', 2);
  const viaLink = path.join(tmp, 'index_link.parquet');
  fs.symlinkSync(src, viaLink);
  expectFail(['parquet', 'index', src, '-o', viaLink, '--column', 's'], /is the input file/, 'OUT links to IN');
  check(!fs.existsSync(out), 'a failed index left its output');
  expectFail(['parquet', 'probe', src, '--column', 'i32', 'x12'], /'x12' is not a value of column 'i32' \(INT32 INT\)/, 'bad INT32 value');
  expectFail(['parquet', 'probe', src, 'x'], /missing --column NAME/, 'probe usage', 2);
  // Values on stdin: those before a value over the 16 MiB key limit are answered, then the
  // error (exit 1), as `query` does; they were dropped with their whole chunk.
  r = run(['parquet', 'probe', src, '--column', 's'], 'a\n' + 'x'.repeat((16 << 20) + 1) + '\n');
  check(r.status === 1 && /longer than the key limit/.test(r.stderr) &&
        r.stdout.split('\n').some((l) => l.split('\t')[2] === 'a'),
        `probe before a too-long value: status ${r.status}, stdout ${r.stdout.slice(0, 200)}, stderr ${r.stderr}`);
  expectFail(['parquet', 'extract', src, '--column', 'k', '--row-group', '0', '-o', out], /column 'k': no Bloom filter/, 'extract of an unfiltered chunk');
  check(!fs.existsSync(out), 'a failed extract left its output');
}

done('errors');
console.log(`oracle: ${h.checks} checks passed (${sections.length ? sections.join(', ') : 'all sections'})`);
