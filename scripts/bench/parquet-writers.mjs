/**
 * Which Parquet writer `stats export` uses, measured (docs/warehouse.md): the same daily rows of
 * 10,000 links over 365 days (every link a row each day: 3.65 million rows, the worst case), one
 * file per day, written by hyparquet-writer (pure JavaScript) and by DuckDB's Node API (a
 * prebuilt native binary, a devDependency here for the tests' independent reader).
 *
 *   node scripts/bench/parquet-writers.mjs [--links 10000] [--days 365]
 *
 * Prints the wall time and the peak RSS of each, measured in a child process of its own.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, mkdirSync, renameSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const flag = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
};
const LINKS = flag('--links', 10_000);
const DAYS = flag('--days', 365);
const START = Date.UTC(2025, 0, 1) / 86_400_000;

/** One day's rows, as columns (the export builds a day at a time). */
function day(d) {
  const n = LINKS;
  return {
    date: new Array(n).fill(START + d),
    link_id: Array.from({ length: n }, (_, i) => BigInt(i + 1)),
    alias: Array.from({ length: n }, (_, i) => `bulk${i + 1}`),
    short_url: Array.from({ length: n }, (_, i) => `https://go.example.invalid/bulk${i + 1}`),
    campaign: Array.from({ length: n }, (_, i) => `Campaign ${(i % 7) + 1}`),
    clicks: Array.from({ length: n }, (_, i) => BigInt((i * 31 + d) % 50)),
    estimated: Array.from({ length: n }, () => false),
  };
}

async function child(which, out) {
  const started = Date.now();
  if (which === 'hyparquet-writer') {
    const { parquetWriteFile } = await import('hyparquet-writer');
    for (let d = 0; d < DAYS; d++) {
      const c = day(d);
      const dir = join(out, `day=${d}`);
      mkdirSync(dir, { recursive: true });
      parquetWriteFile({
        filename: join(dir, '.part-0.tmp'),
        columnData: Object.entries(c).map(([name, data]) => ({ name, data })),
        schema: [{ name: 'root', num_children: 7 }, { name: 'date', type: 'INT32', converted_type: 'DATE', repetition_type: 'OPTIONAL' }, { name: 'link_id', type: 'INT64', repetition_type: 'OPTIONAL' },
          { name: 'alias', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' }, { name: 'short_url', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
          { name: 'campaign', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' }, { name: 'clicks', type: 'INT64', repetition_type: 'OPTIONAL' }, { name: 'estimated', type: 'BOOLEAN', repetition_type: 'OPTIONAL' }],
        rowGroupSize: LINKS,
      });
      renameSync(join(dir, '.part-0.tmp'), join(dir, 'part-0.parquet'));
    }
  } else {
    const { DuckDBInstance, DuckDBDateValue } = await import('@duckdb/node-api');
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    for (let d = 0; d < DAYS; d++) {
      const c = day(d);
      await con.run('CREATE OR REPLACE TABLE t (date DATE, link_id BIGINT, alias VARCHAR, short_url VARCHAR, campaign VARCHAR, clicks BIGINT, estimated BOOLEAN)');
      const appender = await con.createAppender('t');
      for (let i = 0; i < LINKS; i++) {
        appender.appendDate(new DuckDBDateValue(c.date[i]));
        appender.appendBigInt(c.link_id[i]);
        appender.appendVarchar(c.alias[i]);
        appender.appendVarchar(c.short_url[i]);
        appender.appendVarchar(c.campaign[i]);
        appender.appendBigInt(c.clicks[i]);
        appender.appendBoolean(c.estimated[i]);
        appender.endRow();
      }
      appender.flushSync();
      appender.closeSync();
      const dir = join(out, `day=${d}`);
      mkdirSync(dir, { recursive: true });
      await con.run(`COPY t TO '${join(dir, '.part-0.tmp')}' (FORMAT parquet)`);
      renameSync(join(dir, '.part-0.tmp'), join(dir, 'part-0.parquet'));
    }
    con.closeSync();
  }
  const bytes = readdirSync(out).reduce((a, d) => a + statSync(join(out, d, 'part-0.parquet')).size, 0);
  process.stdout.write(JSON.stringify({ which, ms: Date.now() - started, mb: bytes / 1024 / 1024, maxRssMb: process.resourceUsage().maxRSS / 1024 }) + '\n');
}

if (process.argv[2] === '--child') {
  await child(process.argv[3], process.argv[4]);
} else {
  const self = fileURLToPath(import.meta.url);
  for (const which of ['hyparquet-writer', 'duckdb']) {
    const out = mkdtempSync(join(tmpdir(), 'parquet-writers-'));
    try {
      const r = spawnSync(process.execPath, [self, '--child', which, out, ...process.argv.slice(2)], { encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`${which}: ${r.stderr}`);
      const m = JSON.parse(r.stdout);
      console.log(`${which.padEnd(18)} ${(m.ms / 1000).toFixed(1).padStart(6)} s  peak ${m.maxRssMb.toFixed(0).padStart(5)} MB  files ${m.mb.toFixed(1)} MB  (${LINKS.toLocaleString('en')} links x ${DAYS} days)`);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }
}
