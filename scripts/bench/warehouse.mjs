/**
 * `stats export` in `npm run bench` (`--only warehouse`), called by scripts/bench.mjs with its
 * helpers: the history of 10,000 links over 365 daily snapshots (10% of them clicked each day,
 * 20 QR codes; scripts/bench/stats-db.ts writes it through the history API), exported as Parquet
 * day partitions, and the same links over 90 days, to see that memory stays flat in the number of
 * days (the export holds one day's rows at a time).
 *
 * The yardstick (issue 52): DuckDB (@duckdb/node-api, a devDependency; one thread) reads
 * linkctl's own output into tables and writes the same rows again, partitioned by day
 * (`COPY ... (FORMAT PARQUET, PARTITION_BY (day))`), both tables; only the writing is timed. The
 * ratio is linkctl's whole run (start-up, reading the history, computing the days, writing) over
 * DuckDB's writing, per run, and the row prints their median; the target is 2.
 *
 * Also: peak memory at most 200 MB, and the 365-day peak at most 1.35 x the 90-day one (flat in
 * the number of days).
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { build } from 'esbuild';

const LINKS = 10_000;
const DAYS = 365;
const SHORT_DAYS = 90;
const DUCKDB_TARGET = 2;
const MEMORY_BUDGET_MB = 200;
const FLAT_RATIO = 1.35;

export async function benchWarehouse({ ROOT, MAXRSS, NODE, tmp, timed, report, median, clean, runs = 3 }) {
  const generator = join(tmp, 'warehouse-db.mjs');
  await build({ entryPoints: [join(ROOT, 'scripts/bench/stats-db.ts')], outfile: generator, bundle: true, format: 'esm', platform: 'node', target: 'node20', external: ['libsql', 'pg'], logLevel: 'warning' });
  const made = {};
  for (const days of [SHORT_DAYS, DAYS]) {
    const file = join(tmp, `warehouse-${days}.db`);
    const started = Date.now();
    const r = spawnSync(NODE, [generator, file, '--links', String(LINKS), '--days', String(days), '--change', '0.1', '--qrs', '20'], { env: clean({ NODE_PATH: join(ROOT, 'node_modules') }), encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`stats-db.mjs exited ${r.status}\n${r.stderr}`);
    made[days] = file;
    console.log(`\n(${days} daily snapshots of ${LINKS.toLocaleString('en')} links and 20 QR codes written through the history API in ${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
  const rssFile = join(tmp, 'maxrss-warehouse');
  const exportOnce = (days) => {
    const out = join(tmp, `warehouse-out-${days}`);
    rmSync(out, { recursive: true, force: true });
    // the clock at the last snapshot's day: the window is the history's days, no empty ones
    const end = new Date(Date.UTC(2025, 0, 1, 7) + (days - 1) * 86_400_000).toISOString();
    const env = clean({ LINKCTL_BASE_URL: 'http://bench.invalid', LINKCTL_API_KEY: 'bench-key', LINKCTL_DB: made[days], LINKCTL_NOW: end, BENCH_MAXRSS_FILE: rssFile });
    const r = timed([MAXRSS, 'stats', 'export', '--out', out, '--no-channels', '--json'], env);
    const summary = JSON.parse(r.stdout);
    const partitions = readdirSync(join(out, 'link_clicks')).length;
    if (partitions !== days - 1) throw new Error(`stats export wrote ${partitions} day partitions, expected ${days - 1}`);
    return { ms: r.ms, mb: Number(readFileSync(rssFile, 'utf8')) / 1024, rows: summary.tables[0].rows };
  };
  /**
   * DuckDB writing the rows of linkctl's output (read first, untimed) again, partitioned by day: ms.
   * In a process of its own: DuckDB holds the rows in memory, and a child of a large process reports
   * that process's peak memory as its own (fork), which would count against linkctl's.
   */
  const duckScript = join(tmp, 'warehouse-duckdb.mjs');
  writeFileSync(duckScript, [
    "import { createRequire } from 'node:module';",
    'const [root, from, to] = process.argv.slice(2);',
    "const { DuckDBInstance } = createRequire(root + '/package.json')('@duckdb/node-api');",
    "const instance = await DuckDBInstance.create(':memory:', { threads: '1' });",
    'const connection = await instance.connect();',
    "const tables = ['link_clicks', 'qr_scans'];",
    "for (const table of tables) await connection.run(`CREATE TABLE ${table} AS SELECT * FROM read_parquet('${from}/${table}/*/*.parquet', hive_partitioning = true)`);",
    'const started = performance.now();',
    "for (const table of tables) await connection.run(`COPY (SELECT * FROM ${table}) TO '${to}/${table}' (FORMAT PARQUET, PARTITION_BY (day))`);",
    'process.stdout.write(String(performance.now() - started));',
    'connection.closeSync();',
  ].join('\n'));
  const duckdb = (days) => {
    const to = join(tmp, `warehouse-duckdb-${days}`);
    rmSync(to, { recursive: true, force: true });
    mkdirSync(to, { recursive: true });
    return Number(timed([duckScript, ROOT, join(tmp, `warehouse-out-${days}`), to], clean()).stdout);
  };
  const year = [];
  const quarter = [];
  const duck = [];
  for (let i = 0; i < runs; i++) {
    quarter.push(exportOnce(SHORT_DAYS));
    year.push(exportOnce(DAYS));
    duck.push(duckdb(DAYS));
  }
  const ratios = year.map((r, i) => r.ms / duck[i]);
  const peakYear = Math.max(...year.map((r) => r.mb));
  const peakQuarter = Math.max(...quarter.map((r) => r.mb));
  report(
    `stats export --out DIR (Parquet) of ${DAYS} days of ${LINKS.toLocaleString('en')} links (${year[0].rows.toLocaleString('en')} daily rows)  vs  DuckDB (1 thread) writing the same rows by day`,
    [
      [`${DAYS} days: linkctl stats export (whole run)`, year.map((r) => r.ms), 'ms'],
      [`${DAYS} days: DuckDB writing the same tables`, duck, 'ms'],
      [`${SHORT_DAYS} days: time`, quarter.map((r) => r.ms), 'ms'],
      [`${SHORT_DAYS} days: peak memory`, quarter.map((r) => r.mb), 'MB'],
      [`${DAYS} days: peak memory`, year.map((r) => r.mb), 'MB'],
    ],
    median(ratios),
    DUCKDB_TARGET,
    [
      { text: `ratio per run: ${ratios.map((r) => r.toFixed(2)).join(', ')} (the row's ratio is their median)` },
      { ok: peakYear <= MEMORY_BUDGET_MB, text: `largest peak ${peakYear.toFixed(1)} MB (target at most ${MEMORY_BUDGET_MB} MB)` },
      { ok: peakYear / peakQuarter <= FLAT_RATIO, text: `memory flat in days: ${DAYS}-day peak / ${SHORT_DAYS}-day peak = ${(peakYear / peakQuarter).toFixed(2)} (target at most ${FLAT_RATIO})` },
    ],
  );
}
