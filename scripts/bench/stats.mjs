/**
 * The click-history rows of `npm run bench` (`--only stats`), called by scripts/bench.mjs with
 * its helpers:
 *
 * - `stats snapshot` of 10,000 links: at most ⌈N/1000⌉ + 3 requests, and at most 1.3 × the time
 *   of `link list --all -o ndjson` of the same account (each snapshot's time includes the
 *   database write; after the first, nothing changed, as on a quiet day);
 * - `stats show --by day` over 365 daily snapshots of 10,000 links, 10% of them clicked each day,
 *   20 QR codes and the details of the 100 most clicked links (`--details 100`), written by
 *   scripts/bench/stats-db.ts through the history API: at most 1 s, peak memory under 150 MB;
 * - `stats top --since 30d` over the same: at most 1 s;
 * - `stats report --since 365d` over the same: at most 2 s, peak memory at most 200 MB, the page
 *   at most 2 MB;
 * - the size of that database: at most 50 MB.
 *
 * `--only stats` runs them all; `--only stats-year` only those over the year (not the snapshot).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { spawn } from 'node:child_process';
import { build } from 'esbuild';

const LINKS = 10_000;
const SEEDED_LINKS = 2;
const DAYS = 365;
const SHOW_BUDGET_MS = 1000;
const TOP_BUDGET_MS = 1000;
const REPORT_BUDGET_MS = 2000;
const REPORT_MEMORY_MB = 200;
const REPORT_FILE_MB = 2;
const DETAILS = 100;
const QRS = 20;
const SIZE_BUDGET_MB = 50;

export async function benchStats({ ROOT, BIN, MAXRSS, NODE, tmp, RUNS, timed, alternate, report, median, sandbox, sandboxJs, clean, memoryCapMb, snapshot = true }) {
  const runs = Math.max(3, Math.ceil(RUNS / 3));
  if (snapshot) await benchSnapshot({ BIN, tmp, runs, timed, alternate, report, median, sandbox, sandboxJs });
  await benchYear({ ROOT, MAXRSS, NODE, tmp, runs, timed, alternate, report, median, clean, memoryCapMb });
}

async function benchSnapshot({ BIN, tmp, runs, timed, alternate, report, median, sandbox, sandboxJs }) {
  // ---- snapshot of 10,000 links
  const sb = await sandbox(sandboxJs, ['--seed-links', String(LINKS - SEEDED_LINKS), '--rate-limit', 'off']);
  const db = join(tmp, 'snapshot-history.db');
  const env = { ...sb.env, LINKCTL_DB: db, LINKCTL_CONFIG_DIR: join(tmp, 'stats-config') };
  await sb.reset();
  const first = JSON.parse(timed([BIN, 'stats', 'snapshot', '--json'], env).stdout);
  if (first.links !== LINKS) throw new Error(`stats snapshot read ${first.links} links, expected ${LINKS}`);
  const requests = (await sb.requests()).filter((r) => r.path.startsWith('/api/')).length;
  const allowed = Math.ceil(LINKS / 1000) + 3;
  const [a, b] = alternate(
    () => timed([BIN, 'link', 'list', '--all', '-o', 'ndjson'], sb.env).ms,
    () => timed([BIN, 'stats', 'snapshot', '-q'], env).ms,
    runs,
  );
  report(
    `stats snapshot of ${LINKS.toLocaleString('en')} links  vs  link list --all -o ndjson`,
    [['link list --all -o ndjson', a, 'ms'], ['stats snapshot -q', b, 'ms']],
    median(b) / median(a),
    1.3,
    [{ ok: requests <= allowed, text: `${requests} requests for the snapshot (at most ⌈${LINKS.toLocaleString('en')}/1000⌉ + 3 = ${allowed}); link list --all sends ${Math.ceil(LINKS / 100)}` }],
  );
}

async function benchYear({ ROOT, MAXRSS, NODE, tmp, runs, timed, alternate, report, median, clean, memoryCapMb }) {
  // ---- a year of daily snapshots
  const generator = join(tmp, 'stats-db.mjs');
  await build({ entryPoints: [join(ROOT, 'scripts/bench/stats-db.ts')], outfile: generator, bundle: true, format: 'esm', platform: 'node', target: 'node20', external: ['libsql', 'pg'], logLevel: 'warning' });
  const year = join(tmp, 'year-history.db');
  const started = Date.now();
  const made = spawnSync(NODE, [generator, year, '--links', String(LINKS), '--days', String(DAYS), '--change', '0.1', '--details', String(DETAILS), '--qrs', String(QRS)], {
    env: clean({ NODE_PATH: join(ROOT, 'node_modules') }),
    encoding: 'utf8',
  });
  if (made.status !== 0) throw new Error(`stats-db.mjs exited ${made.status}\n${made.stderr}`);
  console.log(`\n(${DAYS} daily snapshots of ${LINKS.toLocaleString('en')} links, ${QRS} QR codes and the details of ${DETAILS} links written through the history API in ${((Date.now() - started) / 1000).toFixed(0)} s)`);
  const rssFile = join(tmp, 'maxrss-stats');
  const cpuFile = join(tmp, 'cpu-stats');
  const showEnv = clean({ LINKCTL_BASE_URL: 'http://bench.invalid', LINKCTL_API_KEY: 'bench-key', LINKCTL_DB: year, LINKCTL_NOW: '2025-12-31T07:00:00Z', BENCH_MAXRSS_FILE: rssFile, BENCH_CPU_FILE: cpuFile });
  const peaks = [];
  const cpu = [];
  const show = () => {
    const r = timed([MAXRSS, 'stats', 'show', '--by', 'day', '--since', '365d', '-o', 'csv'], showEnv);
    const points = r.stdout.trim().split('\n').filter((l) => l.startsWith('links,')).length;
    if (points !== DAYS + 1) throw new Error(`stats show printed ${points} points, expected ${DAYS + 1}`);
    peaks.push(Number(readFileSync(rssFile, 'utf8')) / 1024);
    cpu.push(Number(readFileSync(cpuFile, 'utf8')));
    return r.ms;
  };
  const [node0, shows] = alternate(() => timed(['-e', '0'], clean()).ms, show, runs);
  const peak = Math.max(...peaks);
  report(
    `stats show --by day over ${DAYS} daily snapshots of ${LINKS.toLocaleString('en')} links (10% changing a day)  vs  its ${SHOW_BUDGET_MS} ms budget`,
    [['node -e 0 (for scale)', node0, 'ms'], ['stats show --by day --since 365d -o csv', shows, 'ms'], ['  its CPU time (user + system)', cpu.slice(1), 'ms'], ['  peak memory', peaks.slice(1), 'MB']],
    median(shows) / SHOW_BUDGET_MS,
    1,
    [{ ok: peak < memoryCapMb, text: `largest peak ${peak.toFixed(1)} MB (target under ${memoryCapMb} MB)` }],
  );

  // ---- top and report over the same year
  const measured = (args, check, env = showEnv) => {
    const peaks = [];
    const run = () => {
      const r = timed([MAXRSS, ...args], env);
      check(r);
      peaks.push(Number(readFileSync(rssFile, 'utf8')) / 1024);
      return r.ms;
    };
    return { run, peaks };
  };
  const top = measured(['stats', 'top', '--since', '30d', '--json'], (r) => {
    const out = JSON.parse(r.stdout);
    if (out.links.length !== 10 || !out.comparison) throw new Error(`stats top ranked ${out.links.length} links${out.comparison ? '' : ' without a comparison'}`);
  });
  const [node1, tops] = alternate(() => timed(['-e', '0'], clean()).ms, top.run, runs);
  report(
    `stats top --since 30d over the same year  vs  its ${TOP_BUDGET_MS} ms budget`,
    [['node -e 0 (for scale)', node1, 'ms'], ['stats top --since 30d --json', tops, 'ms'], ['  peak memory', top.peaks.slice(1), 'MB']],
    median(tops) / TOP_BUDGET_MS,
    1,
    [{ ok: Math.max(...top.peaks) < memoryCapMb, text: `largest peak ${Math.max(...top.peaks).toFixed(1)} MB (target under ${memoryCapMb} MB)` }],
  );
  const page = join(tmp, 'year-report.html');
  const sizes = [];
  // The report reads the account's channels from its server (its section by channel). The year's
  // history is of http://bench.invalid: the bench answers for it, an account without channels,
  // through a proxy on 127.0.0.1 (no name is looked up).
  const server = await accountWithoutChannels(NODE);
  const reportEnv = { ...showEnv, HTTP_PROXY: server.proxy };
  const reportRun = measured(['stats', 'report', '--since', '365d', '--html', page, '--force', '--insecure-http'], () => sizes.push(statSync(page).size / 1024 / 1024), reportEnv);
  let node2, reports;
  try {
    [node2, reports] = alternate(() => timed(['-e', '0'], clean()).ms, reportRun.run, runs);
  } finally {
    server.stop(); // also when a run fails: the bench leaves no process behind
  }
  const pagePeak = Math.max(...reportRun.peaks);
  const html = readFileSync(page, 'utf8');
  report(
    `stats report --since 365d over the same year (${DETAILS} links with details)  vs  its ${REPORT_BUDGET_MS} ms budget`,
    [['node -e 0 (for scale)', node2, 'ms'], ['stats report --since 365d --html', reports, 'ms'], ['  peak memory', reportRun.peaks.slice(1), 'MB'], ['  the page', sizes, 'MB']],
    median(reports) / REPORT_BUDGET_MS,
    1,
    [
      { ok: pagePeak <= REPORT_MEMORY_MB, text: `largest peak ${pagePeak.toFixed(1)} MB (target at most ${REPORT_MEMORY_MB} MB)` },
      { ok: Math.max(...sizes) <= REPORT_FILE_MB, text: `page ${Math.max(...sizes).toFixed(2)} MB (target at most ${REPORT_FILE_MB} MB)` },
      { ok: /id="breakdown-countries"/.test(html) && /id="top-qrs"/.test(html), text: 'the page has the breakdowns and the QR codes' },
    ],
  );

  // ---- its size
  const bytes = statSync(year).size + (() => {
    try {
      return statSync(`${year}-wal`).size;
    } catch {
      return 0;
    }
  })();
  const mb = bytes / 1024 / 1024;
  report(
    `size of the history database after ${DAYS} daily snapshots of ${LINKS.toLocaleString('en')} links  vs  ${SIZE_BUDGET_MB} MB`,
    [['database file (MB)', [mb], 'MB']],
    mb / SIZE_BUDGET_MB,
    1,
  );
}

/** scripts/bench/empty-account.mjs in a process of its own (the bench's runs block its own loop): its proxy's URL, and how to stop it. */
async function accountWithoutChannels(NODE) {
  const child = spawn(NODE, [new URL('./empty-account.mjs', import.meta.url).pathname], { stdio: ['ignore', 'pipe', 'inherit'] });
  const proxy = await new Promise((resolve, reject) => {
    child.stdout.once('data', (d) => resolve(String(d).trim()));
    child.once('exit', (code) => reject(new Error(`empty-account.mjs exited ${code}`)));
  });
  return { proxy, stop: () => child.kill('SIGTERM') };
}
