/**
 * `stats export` in `npm run bench` (`--only warehouse`), called by scripts/bench.mjs with its
 * helpers: the history of 10,000 links over 365 daily snapshots (10% of them clicked each day,
 * 20 QR codes; scripts/bench/stats-db.ts writes it through the history API), exported as Parquet
 * day partitions, and the same links over 90 days, to see that memory stays flat in the number of
 * days (the export holds one day's rows at a time).
 *
 * Budgets: 365 days in at most 30 s (a nightly job's minute, with room), peak memory at most
 * 200 MB, and the 365-day peak at most 1.35 x the 90-day one.
 */
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { build } from 'esbuild';

const LINKS = 10_000;
const DAYS = 365;
const SHORT_DAYS = 90;
const TIME_BUDGET_MS = 30_000;
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
  const year = [];
  const quarter = [];
  for (let i = 0; i < runs; i++) {
    quarter.push(exportOnce(SHORT_DAYS));
    year.push(exportOnce(DAYS));
  }
  const peakYear = Math.max(...year.map((r) => r.mb));
  const peakQuarter = Math.max(...quarter.map((r) => r.mb));
  report(
    `stats export --out DIR (Parquet) of ${DAYS} days of ${LINKS.toLocaleString('en')} links (${year[0].rows.toLocaleString('en')} daily rows)  vs  its ${TIME_BUDGET_MS / 1000} s budget`,
    [
      [`${SHORT_DAYS} days: time`, quarter.map((r) => r.ms), 'ms'],
      [`${SHORT_DAYS} days: peak memory`, quarter.map((r) => r.mb), 'MB'],
      [`${DAYS} days: time`, year.map((r) => r.ms), 'ms'],
      [`${DAYS} days: peak memory`, year.map((r) => r.mb), 'MB'],
    ],
    median(year.map((r) => r.ms)) / TIME_BUDGET_MS,
    1,
    [
      { ok: peakYear <= MEMORY_BUDGET_MB, text: `largest peak ${peakYear.toFixed(1)} MB (target at most ${MEMORY_BUDGET_MB} MB)` },
      { ok: peakYear / peakQuarter <= FLAT_RATIO, text: `memory flat in days: ${DAYS}-day peak / ${SHORT_DAYS}-day peak = ${(peakYear / peakQuarter).toFixed(2)} (target at most ${FLAT_RATIO})` },
    ],
  );
}
