// SPDX-License-Identifier: MIT
// harness.mjs - what the Parquet oracles (oracle.mjs, writers.mjs) share: the environment
// (BB_CLI, PQ_DUMP, BB_ORACLE_MODULES), a temporary directory removed on exit, counted
// checks that throw on the first disagreement, running the CLI, and SQL string quoting.
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const cli = process.env.BB_CLI, dumpTool = process.env.PQ_DUMP;
export const modules = process.env.BB_ORACLE_MODULES;
if (!cli || !dumpTool || !modules) throw new Error('set BB_CLI, PQ_DUMP and BB_ORACLE_MODULES');
export const req = createRequire(path.join(modules, 'x.js'));

export function harness(name) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `bb_pq_${name}_`));
  process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
  const h = { tmp, checks: 0 };
  h.check = (ok, what) => {
    if (!ok) throw new Error(`${name}: FAILED: ${what}`);
    h.checks++;
  };
  return h;
}

export function run(args, input = '') {
  const r = spawnSync(cli, args, { input, maxBuffer: 1 << 30, encoding: 'utf8' });
  if (r.error) throw r.error;
  return r;
}

export const q = (s) => `'${String(s).replaceAll("'", "''")}'`;
