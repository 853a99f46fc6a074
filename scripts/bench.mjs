#!/usr/bin/env node
/**
 * `npm run bench`: start-up time, memory on big lists and --all pacing, each measured against
 * a baseline on this machine in this run, so the ratios hold on any machine. Every row prints
 * median, min and max of both sides and the ratio; the exit code is 1 when a target is missed.
 *
 *   node scripts/bench.mjs [--runs N] [--rate-runs N] [--bulk-runs N] [--check-runs N] [--qr-runs N] [--pipeline-runs N] [--limited-runs N] [--limited-rows N] [--limited-links N] [--only version,help,complete,help-tty,api,sandbox,memory,rate,export,plan-memory,requests,bulk-rate,bulk-speed,bulk-update,bulk-memory,pipeline-add,pipeline-migration,pipeline-limited,import,stats,stats-year,warehouse,check,qr-read,qr-export,qr-decoders,listen,ledger] [--no-build] [--bin FILE]
 *
 * --bin measures another entry script than bin/linkctl.js (a copy with a change, to try it first).
 *
 * How it measures, and why:
 * - Children run in a clean environment (`env -i PATH HOME=<tmp>`): this machine's
 *   NODE_EXTRA_CA_CERTS adds ~50 ms to every Node start and would hide our own cost.
 * - Both sides of a row alternate (A, B, A, B, ...) after one unmeasured warm-up each, so a
 *   burst of load from elsewhere hits both; the ratio is of the medians.
 * - The sandboxes run in their own processes (scripts/bench/sandbox.ts, bundled here with
 *   esbuild from src/), so serving never competes with the bench's own clock.
 * - Peak memory is the CLI's own maxRSS, written at exit by scripts/bench/maxrss.mjs, which
 *   runs dist/linkctl.js exactly as bin/linkctl.js does (Node 20 has no child rusage).
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MAXRSS = join(ROOT, 'scripts/bench/maxrss.mjs');
const NODE = process.execPath;

// ---------------------------------------------------------------- options
const argv = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = argv.indexOf(name);
  return i < 0 ? fallback : argv[i + 1];
};
const RUNS = Number(opt('--runs', 15));
const RATE_RUNS = Number(opt('--rate-runs', 3));
const ONLY = opt('--only', 'version,help,complete,help-tty,api,sandbox,memory,rate,export,plan-memory,requests,bulk-rate,bulk-speed,bulk-update,bulk-memory,pipeline-add,pipeline-migration,pipeline-limited,import,stats,warehouse,check,qr-read,qr-export,listen,ledger').split(',');
const QR_RUNS = Number(opt('--qr-runs', 3));
const BULK_RUNS = Number(opt('--bulk-runs', 5));
const CHECK_RUNS = Number(opt('--check-runs', 3));
const PIPELINE_RUNS = Number(opt('--pipeline-runs', 3));
// Several requests in flight (issue 33): sandboxes that take 30 ms a request, as a PHP server does.
const PIPELINE = { latencyMs: 30, inFlight: 8, addRows: 2_000, migrationLinks: 5_000, addTarget: 1.25, migrationTarget: 1.3 };
// The same jobs at a real server's default limit, 30 a minute: an hour for 2,000 rows, so by default sizes of three windows (--limited-rows, --limited-links).
const LIMITED = { limit: 30, windowSeconds: 60, rows: Number(opt('--limited-rows', 89)), links: Number(opt('--limited-links', 50)), runs: Number(opt('--limited-runs', 1)), target: 1.02 };
const BIN = resolve(opt('--bin', join(ROOT, 'bin/linkctl.js')));
if (!(RUNS >= 1) || !(RATE_RUNS >= 1)) throw new Error('--runs and --rate-runs take a positive number');

const MEMORY_BIG = 100_000;
const MEMORY_SMALL = 1_000;
const MEMORY_CAP_MB = 150;
const EXPORT_LINKS = 10_000;
const PLAN_MEMORY = { links: 200_000, budgetMb: 300, runs: 3 };
const REQUEST_LINKS = 10_000;
const RATE = { limit: 10, windowSeconds: 2, pages: 40, perPage: 10 };
const BULK_RATE = { limit: 20, windowSeconds: 2, rows: 200 };
const BULK_SPEED_ROWS = 2_000;
const BULK_MEMORY_BIG = 100_000;
const BULK_MEMORY_SMALL = 1_000;
const IMPORT_BIG = 100_000;
const IMPORT_SMALL = 1_000;
const SEEDED_LINKS = 2; // the demo account's own links, on top of --seed-links
// linkctl check: its default limits (8 at a time, 2 per host address) over hosts that answer after a delay.
const CHECK = { destinations: 1_000, hosts: 50, delayMs: 100, concurrency: 8, perHost: 2 };
// QR codes read from their images (issue 34): half styled SVG behind a 302, half PNG, every type.
const QR = { codes: 1_000, budgetMs: 20_000, budgetMb: 250, exportRatio: 1.5 };

const started = Date.now();
const tmp = mkdtempSync(join(tmpdir(), 'linkctl-bench-'));
const children = [];
process.on('exit', () => {
  for (const child of children) child.kill();
  rmSync(tmp, { recursive: true, force: true });
});

// ---------------------------------------------------------------- helpers
const clean = (extra = {}) => ({ PATH: process.env.PATH, HOME: tmp, ...extra });
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const stats = (xs) => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs) });

/** Runs a command to completion; returns wall time in ms and its output. Throws on a non-zero exit. */
function timed(args, env, { stdout = 'pipe' } = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(NODE, args, { env, stdio: ['ignore', stdout, 'pipe'], encoding: 'utf8', maxBuffer: 64 << 20 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status ?? r.signal}\n${r.stderr}`);
  return { ms, stdout: r.stdout, stderr: r.stderr };
}

/** One warm-up each, then `runs` alternating measurements of a() and b(). */
function alternate(a, b, runs = RUNS) {
  a();
  b();
  const xs = [];
  const ys = [];
  for (let i = 0; i < runs; i++) {
    xs.push(a());
    ys.push(b());
  }
  return [xs, ys];
}

const results = [];
const fmt = (x, unit) => `${unit === 'MB' ? x.toFixed(1) : x.toFixed(unit === 'x' ? 3 : 1)}${unit === 'x' ? '' : ` ${unit}`}`;
const line = (label, s, unit) => `    ${label.padEnd(44)} median ${fmt(s.median, unit).padStart(9)}   min ${fmt(s.min, unit).padStart(9)}   max ${fmt(s.max, unit).padStart(9)}`;

/** Prints a row and records whether it met its target. */
function report(title, sides, ratio, target, extra = []) {
  const ok = ratio <= target && extra.every((e) => e.ok !== false);
  results.push({ title, ok });
  console.log(`\n${ok ? 'PASS' : 'FAIL'}  ${title}`);
  for (const [label, xs, unit] of sides) console.log(line(label, stats(xs), unit));
  console.log(`    ratio ${ratio.toFixed(3)} (target at most ${target})`);
  for (const e of extra) console.log(`    ${e.ok === false ? 'MISSED: ' : ''}${e.text}`);
}

/** Starts scripts/bench/sandbox.ts in its own process; resolves to {url, key, admin helpers}. */
/**
 * A control request to a bench sandbox. Tried twice: between two calls a run can leave the
 * kept-alive connection idle past the server's keep-alive timeout, and fetch does not retry a
 * POST on the socket the server closed ("other side closed").
 */
async function control(url, init) {
  try {
    return await fetch(url, init).then((r) => r.json());
  } catch {
    return fetch(url, init).then((r) => r.json());
  }
}

async function sandbox(sandboxJs, flags) {
  const child = spawn(NODE, [sandboxJs, ...flags], { env: clean(), stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const first = await new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`bench sandbox exited ${code}`)));
    createInterface({ input: child.stdout }).once('line', resolve);
  });
  const { url, key } = JSON.parse(first);
  return {
    url,
    key,
    env: clean({ LINKCTL_BASE_URL: url, LINKCTL_API_KEY: key }),
    // The control routes need the sandbox key.
    requests: () => control(`${url}/__sandbox/requests`, { headers: { Authorization: `Bearer ${key}` } }),
    requestCount: () => control(`${url}/__sandbox/requests/count`, { headers: { Authorization: `Bearer ${key}` } }),
    clearRequests: () => control(`${url}/__sandbox/requests`, { method: 'DELETE', headers: { Authorization: `Bearer ${key}` } }),
    reset: () => control(`${url}/__sandbox/reset`, { method: 'POST', headers: { Authorization: `Bearer ${key}` } }),
  };
}

// ---------------------------------------------------------------- preparation
console.log(`linkctl bench: node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
console.log(`${RUNS} alternating runs per row (${RATE_RUNS} for the rate-limit row, ~6 s each), clean environment (env -i PATH HOME=<tmp>)`);
if (RUNS < 15) console.log(`note: fewer than the 15 runs per row the targets are defined with`);
if (BIN !== join(ROOT, 'bin/linkctl.js')) console.log(`entry script measured: ${BIN} (the memory row runs dist/linkctl.js through scripts/bench/maxrss.mjs)`);

if (!argv.includes('--no-build')) {
  const b = spawnSync(NODE, [join(ROOT, 'scripts/build.mjs')], { stdio: 'inherit' });
  if (b.status !== 0) process.exit(1);
}
const sandboxJs = join(tmp, 'bench-sandbox.mjs');
await build({
  entryPoints: [join(ROOT, 'scripts/bench/sandbox.ts')],
  outfile: sandboxJs,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // The sandbox bundles qrcode, a CommonJS package that require()s Node built-ins (as in scripts/build.mjs).
  banner: { js: "import { createRequire as __benchCreateRequire } from 'node:module'; const require = __benchCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
// The baseline for API calls: one fetch of the same URL with the same Authorization header.
const bareFetch = join(tmp, 'bare-fetch.mjs');
writeFileSync(
  bareFetch,
  "const r = await fetch(process.argv[2], { headers: { Authorization: `Bearer ${process.env.LINKCTL_API_KEY}` } });\nprocess.stdout.write(await r.text());\n",
);

const needsApi = ONLY.some((r) => ['api', 'sandbox'].includes(r));
const plain = needsApi ? await sandbox(sandboxJs, ['--rate-limit', 'off']) : undefined;

/** A fresh config folder: the journal of an earlier run would skip every row. */
let configs = 0;
const freshConfig = () => join(tmp, `bulk-config-${++configs}`);

// ---------------------------------------------------------------- start-up
const nodeE0 = () => timed(['-e', '0'], clean()).ms;

if (ONLY.includes('version')) {
  const out = timed([BIN, '--version'], clean()).stdout.trim();
  if (!/^\d+\.\d+\.\d+/.test(out)) throw new Error(`linkctl --version printed ${JSON.stringify(out)}`);
  const [a, b] = alternate(nodeE0, () => timed([BIN, '--version'], clean()).ms);
  report('linkctl --version  vs  node -e 0', [['node -e 0', a, 'ms'], ['linkctl --version', b, 'ms']], median(b) / median(a), 1.25);
}

if (ONLY.includes('help')) {
  if (!timed([BIN, '--help'], clean()).stdout.includes('Usage: linkctl')) throw new Error('linkctl --help printed no usage');
  const [a, b] = alternate(nodeE0, () => timed([BIN, '--help'], clean()).ms);
  report('linkctl --help  vs  node -e 0', [['node -e 0', a, 'ms'], ['linkctl --help', b, 'ms']], median(b) / median(a), 1.35);
}

// A TAB in bash, zsh, fish or PowerShell asks `linkctl __complete profiles` (a config of three
// profiles): it must start like Node itself (the completion test checked a time once, and failed
// on a loaded machine; the budget is here).
if (ONLY.includes('complete')) {
  const configDir = join(tmp, 'complete-config');
  mkdirSync(configDir, { recursive: true });
  writeFileSync(join(configDir, 'config.json'), JSON.stringify({ defaultProfile: 'work', profiles: { work: {}, personal: {}, staging: {} } }), { mode: 0o600 });
  const env = clean({ LINKCTL_CONFIG_DIR: configDir });
  const names = timed([BIN, '__complete', 'profiles'], env).stdout.split('\n').filter(Boolean).sort();
  if (names.join(',') !== 'personal,staging,work') throw new Error(`linkctl __complete profiles printed ${JSON.stringify(names)}`);
  const [a, b] = alternate(nodeE0, () => timed([BIN, '__complete', 'profiles'], env).ms);
  report('linkctl __complete profiles (a TAB)  vs  node -e 0', [['node -e 0', a, 'ms'], ['linkctl __complete profiles', b, 'ms']], median(b) / median(a), 1.35);
}

// On a terminal: both sides run under script(1) in a pseudo-terminal 100 columns wide, so the
// ratio is of linkctl's own cost (help wrapped at the terminal's width) over Node's bare start.
const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
const quote = (s) => `'${s.replace(/'/g, `'\\''`)}'`;
function inTerminal(args) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync('script', ['-qec', `stty cols 100 rows 40 2>/dev/null; exec ${[NODE, ...args].map(quote).join(' ')}`, '/dev/null'], {
    env: clean(),
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`script node ${args.join(' ')} exited ${r.status ?? r.signal}\n${r.stderr}`);
  return { ms, stdout: r.stdout };
}
if (ONLY.includes('help-tty')) {
  if (!hasScript) console.log('\nSKIP  help on a terminal: script(1) is not installed');
  else {
    for (const args of [['--help'], ['qr', 'add', '--help']]) {
      const out = inTerminal([BIN, ...args]).stdout;
      if (!out.includes('Usage: linkctl')) throw new Error(`linkctl ${args.join(' ')} on a terminal printed no usage`);
      const [a, b] = alternate(() => inTerminal(['-e', '0']).ms, () => inTerminal([BIN, ...args]).ms);
      const name = `linkctl ${args.join(' ')} on a terminal`;
      report(`${name}  vs  node -e 0 on a terminal (script(1))`, [['node -e 0 (script)', a, 'ms'], [`${name} (script)`, b, 'ms']], median(b) / median(a), 1.35);
    }
  }
}

if (needsApi) {
  // The bare script fetches exactly the URL `qr list` asked for.
  const out = timed([BIN, 'qr', 'list', '--json'], plain.env).stdout;
  JSON.parse(out);
  const last = (await plain.requests()).at(-1);
  const url = `${plain.url}${last.path}${Object.keys(last.query).length ? `?${new URLSearchParams(last.query)}` : ''}`;
  const bare = () => timed([bareFetch, url], plain.env).ms;
  console.log(`\n(baseline for API rows: node bare-fetch.mjs ${url.replace(plain.url, '<sandbox>')})`);

  if (ONLY.includes('api')) {
    const [a, b] = alternate(bare, () => timed([BIN, 'qr', 'list', '--json'], plain.env).ms);
    report('linkctl qr list --json (local sandbox)  vs  one bare fetch', [['bare fetch', a, 'ms'], ['linkctl qr list --json', b, 'ms']], median(b) / median(a), 1.5);
  }
  if (ONLY.includes('sandbox')) {
    // HOME=<tmp>: the warm-up creates the embedded sandbox's state file; later runs read it, as a user's would.
    const embedded = clean({ LINKCTL_CONFIG_DIR: join(tmp, 'config') });
    JSON.parse(timed([BIN, '--sandbox', 'qr', 'list', '--json'], embedded).stdout);
    const [a, b] = alternate(bare, () => timed([BIN, '--sandbox', 'qr', 'list', '--json'], embedded).ms);
    report('linkctl --sandbox qr list --json (embedded)  vs  one bare fetch', [['bare fetch', a, 'ms'], ['linkctl --sandbox qr list --json', b, 'ms']], median(b) / median(a), 2.5);
  }
}

// ---------------------------------------------------------------- memory
if (ONLY.includes('memory')) {
  const small = await sandbox(sandboxJs, ['--seed-links', String(MEMORY_SMALL - SEEDED_LINKS), '--rate-limit', 'off']);
  const big = await sandbox(sandboxJs, ['--seed-links', String(MEMORY_BIG - SEEDED_LINKS), '--rate-limit', 'off']);
  // As a user types it: --all pages at its own default size (100 records a page).
  const args = [MAXRSS, 'link', 'list', '--all', '-o', 'ndjson'];
  const rssFile = join(tmp, 'maxrss');
  const outFile = join(tmp, 'list.ndjson');
  const times = { [MEMORY_SMALL]: [], [MEMORY_BIG]: [] };
  /** One run; returns peak RSS in MB after checking every record came out. */
  const peak = (sb, records) => () => {
    const fd = openSync(outFile, 'w');
    try {
      times[records].push(timed(args, { ...sb.env, BENCH_MAXRSS_FILE: rssFile }, { stdout: fd }).ms);
    } finally {
      closeSync(fd);
    }
    const out = readFileSync(outFile);
    let lines = 0;
    for (let i = out.indexOf(10); i >= 0; i = out.indexOf(10, i + 1)) lines++;
    if (lines !== records) throw new Error(`link list --all printed ${lines} records, expected ${records}`);
    return Number(readFileSync(rssFile, 'utf8')) / 1024;
  };
  const [a, b] = alternate(peak(small, MEMORY_SMALL), peak(big, MEMORY_BIG));
  const max = Math.max(...b);
  report(
    `link list --all -o ndjson: peak RSS over ${MEMORY_BIG.toLocaleString('en')} vs ${MEMORY_SMALL.toLocaleString('en')} records`,
    [[`${MEMORY_SMALL.toLocaleString('en')} records (MB)`, a, 'MB'], [`${MEMORY_BIG.toLocaleString('en')} records (MB)`, b, 'MB'],
      [`  time, ${MEMORY_SMALL.toLocaleString('en')} records`, times[MEMORY_SMALL].slice(1), 'ms'], [`  time, ${MEMORY_BIG.toLocaleString('en')} records`, times[MEMORY_BIG].slice(1), 'ms']],
    median(b) / median(a),
    1.3,
    [{ ok: max < MEMORY_CAP_MB, text: `largest peak over ${MEMORY_BIG.toLocaleString('en')} records ${max.toFixed(1)} MB (target under ${MEMORY_CAP_MB} MB)` }],
  );
}

// ---------------------------------------------------------------- export
if (ONLY.includes('export')) {
  // Export reads every list (links are nearly all of it) and writes one YAML file; the baseline lists the same links.
  const sb = await sandbox(sandboxJs, ['--seed-links', String(EXPORT_LINKS - SEEDED_LINKS), '--rate-limit', 'off']);
  const file = join(tmp, 'account.yaml');
  const listed = timed([BIN, 'link', 'list', '--all', '-o', 'ndjson'], sb.env).stdout.split('\n').filter(Boolean).length;
  timed([BIN, 'export', '--file', file], sb.env);
  const exported = (readFileSync(file, 'utf8').match(/^ {2}- alias: /gm) ?? []).length;
  if (listed !== EXPORT_LINKS || exported !== EXPORT_LINKS) throw new Error(`listed ${listed} and exported ${exported} links, expected ${EXPORT_LINKS}`);
  const [a, b] = alternate(
    () => timed([BIN, 'link', 'list', '--all', '-o', 'ndjson'], sb.env).ms,
    () => timed([BIN, 'export', '--file', file], sb.env).ms,
  );
  report(
    `export of ${EXPORT_LINKS.toLocaleString('en')} links  vs  link list --all -o ndjson`,
    [['link list --all -o ndjson', a, 'ms'], ['export --file account.yaml', b, 'ms']],
    median(b) / median(a),
    1.3,
  );
}

// ---------------------------------------------------------------- plan memory
/**
 * `plan` of a 200,000-link file that matches the account (the file written by `export`): peak
 * memory against its budget. Plan holds the file's records and the account's links; an unchanged
 * link is held once (see unchangedAsFileRecord in src/ascode/engine.ts).
 */
if (ONLY.includes('plan-memory')) {
  const { links, budgetMb, runs } = PLAN_MEMORY;
  const sb = await sandbox(sandboxJs, ['--seed-links', String(links - SEEDED_LINKS), '--rate-limit', 'off']);
  const file = join(tmp, 'big-account.yaml');
  timed([BIN, 'export', '--file', file], sb.env);
  const rssFile = join(tmp, 'maxrss');
  const peaks = [];
  const times = [];
  for (let i = 0; i < runs; i++) {
    const run = timed([MAXRSS, 'plan', '-f', file], { ...sb.env, BENCH_MAXRSS_FILE: rssFile });
    if (!run.stdout.includes('No changes')) throw new Error(`plan of the exported file found changes:\n${run.stdout.slice(0, 500)}`);
    times.push(run.ms);
    peaks.push(Number(readFileSync(rssFile, 'utf8')) / 1024);
  }
  report(
    `plan of a ${links.toLocaleString('en')}-link file, no change: peak memory  vs  its budget of ${budgetMb} MB`,
    [['peak RSS', peaks, 'MB'], ['time', times, 'ms']],
    Math.max(...peaks) / budgetMb,
    1,
  );
}

// ---------------------------------------------------------------- requests per job
/**
 * Requests each job sends on an account of 10,000 links, 20 campaigns and 20 channels (the
 * sandbox counts them), against the least the job needs: a full read of N records is ⌈N/1000⌉
 * requests, a change one request. Counts, not timings: test/e2e/requests.test.ts asserts the same
 * jobs on a smaller account, so a regression fails `npm test` too.
 */
if (ONLY.includes('requests')) {
  const N = REQUEST_LINKS;
  const sb = await sandbox(sandboxJs, ['--seed-links', String(N - SEEDED_LINKS), '--seed-campaigns', '20', '--seed-channels', '20', '--rate-limit', 'off']);
  const empty = await sandbox(sandboxJs, ['--empty', '--rate-limit', 'off']);
  const pages = (n) => Math.ceil(n / 1000);
  const KINDS_BESIDES_LINKS = 7;
  const reads = pages(N) + KINDS_BESIDES_LINKS;
  const rows = [];
  /** Runs one job from a fresh account and counts the API requests the sandbox saw. */
  const job = async (name, least, run, target = sb) => {
    await target.reset();
    run();
    // The count of every API request (the request log keeps only the last 1,000).
    const count = (await target.requestCount()).api;
    rows.push({ name, count, least, ratio: count / least });
  };
  const file = join(tmp, 'requests.yaml');
  const env = { ...sb.env, LINKCTL_CONFIG_DIR: join(tmp, 'requests-config') };
  await job('link list --all', pages(N), () => timed([BIN, 'link', 'list', '--all', '-o', 'ndjson'], env));
  await job('campaign list --all (every other --all)', 1, () => timed([BIN, 'campaign', 'list', '--all', '-q'], env));
  await job('export', reads, () => timed([BIN, 'export', '--file', file], env));
  await job('plan, no change', reads, () => timed([BIN, 'plan', '-f', file], env));
  const text = readFileSync(file, 'utf8');
  const edit = (n) => {
    let left = n;
    // Each link record starts with its alias; a description line after it is a change plan sees.
    const edited = text.replace(/^( {2}- alias: (bulk\d+))$/gm, (line, _all, alias) => (left-- > 0 ? `${line}\n    description: edited ${alias}` : line));
    const out = join(tmp, `requests-edit-${n}.yaml`);
    writeFileSync(out, edited);
    return out;
  };
  await job('apply after editing one link', reads + 2, () => timed([BIN, 'apply', '-f', edit(1), '--yes'], env));
  await job('apply after editing 100 links', reads + 200, () => timed([BIN, 'apply', '-f', edit(100), '--yes'], env));
  const ids = join(tmp, 'requests-ids.csv');
  writeFileSync(ids, `id\n${Array.from({ length: 1000 }, (_, i) => i + 3).join('\n')}\n`);
  await job('link update --from, 1,000 rows', pages(N) + 2000, () => timed([BIN, 'link', 'update', '--from', ids, '--meta-description', 'bulk', '--yes', '-o', 'ndjson'], { ...env, LINKCTL_CONFIG_DIR: freshConfig() }));
  const exported = timed([BIN, 'export'], env).stdout;
  const account = exported.match(/^ {2}- alias: /gm)?.length ?? 0;
  const creates = account + 20 + 20 + 1 /* the demo domain */ + 1 /* its pixel */ + 1 /* its campaign */ + 1 /* its channel */;
  const extraChannels = (exported.match(/^ {4}channels:\n( {6}- .*\n){2,}/gm) ?? []).length;
  await job(`migration: export | apply to an empty account (${account.toLocaleString('en')} links)`, 8 + creates + extraChannels, () => {
    const r = spawnSync(NODE, [BIN, 'apply', '-f', '-', '--yes'], { env: empty.env, input: exported, encoding: 'utf8', maxBuffer: 64 << 20 });
    if (r.status !== 0) throw new Error(`apply to the empty account exited ${r.status}\n${r.stderr}`);
  }, empty);
  await job('link add https://example.com/ (every link contains it)', 3, () => timed([BIN, 'link', 'add', 'https://example.com/', '--json'], env));
  const importFile = join(tmp, 'requests-import.csv');
  // 1,000 rows: 500 links the account has (bulk<id> from id 3), 500 new ones.
  writeFileSync(importFile, `keyword,url\n${Array.from({ length: 1000 }, (_, i) => (i < 500 ? `bulk${i + 3},https://example.com/bulk/${i + 3}` : `fresh${i},https://example.com/fresh/${i}`)).join('\n')}\n`);
  await job('import, 1,000 rows (the domains, then the links)', 1 + pages(N), () => timed([BIN, 'import', 'yourls', importFile], env));
  await job('export --redirects nginx', pages(N), () => timed([BIN, 'export', '--redirects', 'nginx'], env));
  const details = join(tmp, 'requests-details.yaml');
  await job('export --details', reads + N, () => timed([BIN, 'export', '--details', '--file', details], env));
  const detailed = (readFileSync(details, 'utf8').match(/^ {4}(geo|device|expiry):/gm) ?? []).length;
  await job('plan of a --details file', reads + detailed, () => timed([BIN, 'plan', '-f', details], env));
  console.log(`\nRequests per job, ${N.toLocaleString('en')} links, 20 campaigns, 20 channels (least: a full read of N records is ⌈N/1000⌉ requests)`);
  for (const r of rows) console.log(`  ${r.name.padEnd(70)} ${String(r.count).padStart(6)}  least ${String(r.least).padStart(6)}  ${r.ratio.toFixed(3)} ×`);
  const worst = rows.reduce((a, b) => (b.ratio > a.ratio ? b : a));
  report(
    `requests per job: every job at most 1.05 × the least it needs (worst: ${worst.name})`,
    [['worst ratio', [worst.ratio], 'x']],
    worst.ratio,
    1.05,
  );
}

// ---------------------------------------------------------------- rate limit
/**
 * The least time from a first request at `first` (ms) to the first request of window number
 * `windows`. The sandbox keeps the product's window: it starts at its first request, its
 * X-RateLimit-Reset names its last whole second, and that second is still closed; so each window
 * spans `windowSeconds` + 1 whole seconds, the first counted from the second the run started in.
 */
const leastTime = (first, windows, windowSeconds) => Math.floor(first / 1000) * 1000 + (windows - 1) * (windowSeconds + 1) * 1000 - first;

/**
 * Runs `argv` against a rate-limited sandbox `runs` times and reports its first-to-last request
 * time against the least time the limit allows for `requests` requests; every run must print
 * `expectedLines` lines (those matching `counts`, if given) and send exactly `requests` requests.
 */
async function pacedRow({ title, sb, argv, env, limit, windowSeconds, requests, expectedLines, counts = () => true, what, target }) {
  const windows = Math.ceil(requests / limit);
  const ratios = [];
  const took = [];
  const least = [];
  const problems = [];
  for (let i = 0; i < RATE_RUNS; i++) {
    await sb.reset(); // fresh windows and an empty request log
    // Async spawn: this process must stay free to talk to the sandbox afterwards; timing comes from the sandbox's clock.
    const child = spawn(NODE, [BIN, ...argv], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise((resolve) => child.on('close', resolve));
    const log = await sb.requests();
    const printed = out.split('\n').filter((l) => l && counts(l)).length;
    if (code !== 0 || printed !== expectedLines) problems.push(`run ${i + 1}: exit ${code}, ${printed} ${what} printed\n${err}`);
    const api = log.filter((r) => r.path.startsWith('/api/'));
    if (api.length !== requests) problems.push(`run ${i + 1}: the sandbox saw ${api.length} API requests, not ${requests} (over-limit answers or retries)`);
    const first = api[0].at;
    const last = api.at(-1).at;
    const bound = leastTime(first, windows, windowSeconds);
    took.push(last - first);
    least.push(bound);
    ratios.push((last - first) / bound);
  }
  report(
    `${title}, sandbox limited to ${limit} requests per ${windowSeconds} s  vs  the least time the limit allows`,
    [['least time allowed (first to last request)', least, 'ms'], ['linkctl (first to last request)', took, 'ms'], ['ratio per run', ratios, 'x']],
    median(ratios),
    target,
    [{ ok: problems.length === 0, text: problems.length ? problems.join('\n    ') : `every run: exactly ${requests} requests, no over-limit answer` }],
  );
}

// ---------------------------------------------------------------- rate limit
if (ONLY.includes('rate')) {
  const { limit, windowSeconds, pages, perPage } = RATE;
  const sb = await sandbox(sandboxJs, ['--seed-links', String(pages * perPage - SEEDED_LINKS), '--rate-limit', `${limit}/${windowSeconds}`]);
  await pacedRow({
    title: `link list --all over ${pages} pages`,
    sb,
    argv: ['link', 'list', '--all', '-o', 'ndjson', '--limit', String(perPage)],
    env: () => sb.env,
    limit,
    windowSeconds,
    requests: pages,
    expectedLines: pages * perPage,
    what: 'records',
    target: 1.1,
  });
}

// ---------------------------------------------------------------- bulk (--from)
/** A CSV of `rows` distinct long URLs, written once per size. */
const bulkCsv = (rows, tag) => {
  const file = join(tmp, `bulk-${tag}-${rows}.csv`);
  const lines = ['url,description'];
  for (let i = 0; i < rows; i++) lines.push(`https://example.com/${tag}/${i},row ${i}`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
};

/**
 * A bulk run against the same requests sent bare, one after the other, in one Node process: each
 * from a fresh account, a warm-up first, then BULK_RUNS alternating runs; each must print a line a row.
 */
async function bulkVersusBare({ title, sb, rows, bare, linkctl, what, floor, target }) {
  const xs = [];
  const ys = [];
  const zs = [];
  const check = (out, who) => {
    const n = out.split('\n').filter(Boolean).length;
    if (n !== rows) throw new Error(`${who} printed ${n} lines for ${rows} rows`);
  };
  for (let i = 0; i <= BULK_RUNS; i++) {
    await sb.reset();
    const a = timed(bare, sb.env);
    check(a.stdout, `bare fetch ${what}`);
    await sb.reset();
    const b = timed(linkctl, { ...sb.env, LINKCTL_CONFIG_DIR: freshConfig() });
    check(b.stdout, `linkctl ${linkctl.slice(1, 3).join(' ')} --from`);
    // What the same requests cost bare, as linkctl sends them: the least linkctl could take.
    let c;
    if (floor) {
      await sb.reset();
      c = timed(floor.argv, sb.env);
      check(c.stdout, floor.label);
    }
    if (i === 0) continue; // warm-up
    xs.push(a.ms);
    ys.push(b.ms);
    if (c) zs.push(c.ms);
  }
  const sides = [[`bare fetch ${what}`, xs, 'ms'], [`linkctl ${linkctl.slice(1, 3).join(' ')} --from`, ys, 'ms']];
  if (floor) sides.push([floor.label, zs, 'ms']);
  // With a floor (the same requests linkctl sends, sent bare), the ratio is to the floor: what linkctl adds to its requests.
  const extra = floor ? [{ text: `${floor.label}: ${(median(zs) / median(xs)).toFixed(3)} × the bare ${what}; linkctl: ${(median(ys) / median(xs)).toFixed(3)} × the bare ${what}` }] : [];
  report(title, sides, median(ys) / median(floor ? zs : xs), target, extra);
}

if (ONLY.includes('bulk-rate')) {
  const { limit, windowSeconds, rows } = BULK_RATE;
  const sb = await sandbox(sandboxJs, ['--rate-limit', `${limit}/${windowSeconds}`]);
  await pacedRow({
    title: `link add --from (${rows} rows)`,
    sb,
    argv: ['link', 'add', '--from', bulkCsv(rows, 'rate'), '-o', 'ndjson'],
    env: () => ({ ...sb.env, LINKCTL_CONFIG_DIR: freshConfig() }), // a fresh journal each run
    limit,
    windowSeconds,
    // A POST a row, and the one read of the account's links that finds what exists already.
    requests: rows + 1,
    expectedLines: rows,
    counts: (line) => line.includes('"created"'),
    what: 'rows created',
    target: 1.05,
  });
}

if (ONLY.includes('bulk-speed')) {
  const rows = BULK_SPEED_ROWS;
  const sb = await sandbox(sandboxJs, ['--rate-limit', 'off']);
  const csv = bulkCsv(rows, 'speed');
  // The baseline: the same POSTs, one after the other, with bare fetch in one Node process.
  const bare = join(tmp, 'bare-posts.mjs');
  writeFileSync(
    bare,
    [
      "import { readFileSync } from 'node:fs';",
      "const [base, file] = process.argv.slice(2);",
      "const rows = readFileSync(file, 'utf8').trim().split('\\n').slice(1).map((l) => l.split(','));",
      'for (const [url, description] of rows) {',
      "  const r = await fetch(`${base}/api/url/add`, { method: 'POST', headers: { Authorization: `Bearer ${process.env.LINKCTL_API_KEY}`, 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify({ url, description }) });",
      "  const body = await r.json();",
      "  if (body.error) throw new Error(JSON.stringify(body));",
      "  process.stdout.write(`${body.id}\\n`);",
      '}',
    ].join('\n'),
  );
  await bulkVersusBare({
    title: `link add --from --concurrency 1 (${rows.toLocaleString('en')} rows, no limit, one at a time)  vs  ${rows.toLocaleString('en')} bare fetch POSTs in one process`,
    sb, rows, what: 'POSTs',
    bare: [bare, sb.url, csv],
    linkctl: [BIN, 'link', 'add', '--from', csv, '-o', 'ndjson', '--concurrency', '1'],
    target: 1.5,
  });
}

if (ONLY.includes('bulk-update')) {
  // link update --from: each row is a read of the link and its update (the safe update); the
  // baseline is the updates alone, bare PUTs one after the other in one Node process.
  const rows = 1000;
  const sb = await sandbox(sandboxJs, ['--seed-links', String(rows), '--rate-limit', 'off']);
  const ids = join(tmp, 'update-ids.csv');
  writeFileSync(ids, `id\n${Array.from({ length: rows }, (_, i) => SEEDED_LINKS + 1 + i).join('\n')}\n`);
  const bare = join(tmp, 'bare-puts.mjs');
  writeFileSync(
    bare,
    [
      "import { readFileSync } from 'node:fs';",
      'const [base, file] = process.argv.slice(2);',
      "const ids = readFileSync(file, 'utf8').trim().split('\\n').slice(1);",
      'for (const id of ids) {',
      "  const r = await fetch(`${base}/api/url/${id}/update`, { method: 'PUT', headers: { Authorization: `Bearer ${process.env.LINKCTL_API_KEY}`, 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify({ metadescription: 'bulk' }) });",
      '  const body = await r.json();',
      '  if (body.error) throw new Error(JSON.stringify(body));',
      '  process.stdout.write(`${id}\\n`);',
      '}',
    ].join('\n'),
  );
  // linkctl's own requests, bare: a read of the link and its update a row, the next row's read
  // sent while this row's update is (as linkctl's prefetch does).
  const floor = join(tmp, 'bare-read-and-put.mjs');
  writeFileSync(
    floor,
    [
      "import { readFileSync } from 'node:fs';",
      'const [base, file] = process.argv.slice(2);',
      "const ids = readFileSync(file, 'utf8').trim().split('\\n').slice(1);",
      "const headers = { Authorization: `Bearer ${process.env.LINKCTL_API_KEY}`, Accept: 'application/json' };",
      'const read = (id) => fetch(`${base}/api/url/${id}`, { headers }).then((r) => r.json());',
      'let next = read(ids[0]);',
      'for (let i = 0; i < ids.length; i++) {',
      '  const link = await next;',
      '  if (link.error) throw new Error(JSON.stringify(link));',
      '  if (i + 1 < ids.length) next = read(ids[i + 1]);',
      "  const r = await fetch(`${base}/api/url/${ids[i]}/update`, { method: 'PUT', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ url: link.details.longurl, metadescription: 'bulk' }) });",
      '  const body = await r.json();',
      '  if (body.error) throw new Error(JSON.stringify(body));',
      '  process.stdout.write(`${ids[i]}\\n`);',
      '}',
    ].join('\n'),
  );
  await bulkVersusBare({
    title: `link update --from --concurrency 1 (${rows.toLocaleString('en')} rows, no limit, one at a time)  vs  the same reads and PUTs sent bare (read + PUT a row, overlapped)`,
    sb, rows, what: 'PUTs',
    floor: { label: 'bare fetch read + PUT a row, overlapped', argv: [floor, sb.url, ids] },
    bare: [bare, sb.url, ids],
    // The meta description: the note (--description) is refused by an update (real servers ignore it there).
    linkctl: [BIN, 'link', 'update', '--from', ids, '--meta-description', 'bulk', '--yes', '-o', 'ndjson', '--concurrency', '1'],
    target: 1.5,
  });
}

// ---------------------------------------------------------------- several requests in flight (issue 33)
/** Runs a CLI job to completion without blocking this process (the sandboxes answer through it); resolves to its wall time and output. */
function job(argv, env, input) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(NODE, argv, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (code !== 0) reject(new Error(`node ${argv.join(' ')} exited ${code}\n${err}`));
      else resolve({ ms, stdout: out, stderr: err });
    });
    child.stdin.end(input ?? '');
  });
}
const inFlight = (sb) => control(`${sb.url}/__sandbox/requests/in-flight`, { headers: { Authorization: `Bearer ${sb.key}` } });
/** The time `requests` requests take at `latencyMs` each with `n` in flight: what the pipelined rows are held to. */
const ideal = (requests) => (requests * PIPELINE.latencyMs) / PIPELINE.inFlight;

if (ONLY.includes('pipeline-add')) {
  const rows = PIPELINE.addRows;
  const sb = await sandbox(sandboxJs, ['--rate-limit', 'off', '--latency', String(PIPELINE.latencyMs)]);
  const csv = bulkCsv(rows, 'pipeline');
  // For comparison only (no target): the same POSTs with bare fetch, 8 at a time in one process; on a loaded machine it shows what the machine allows.
  const bare8 = join(tmp, 'bare-posts-8.mjs');
  writeFileSync(
    bare8,
    [
      "import { readFileSync } from 'node:fs';",
      'const [base, file, n] = process.argv.slice(2);',
      "const rows = readFileSync(file, 'utf8').trim().split('\\n').slice(1).map((l) => l.split(','));",
      'let next = 0;',
      'await Promise.all(Array.from({ length: Number(n) }, async () => {',
      '  for (let i = next++; i < rows.length; i = next++) {',
      "    const [url, description] = rows[i];",
      "    const r = await fetch(`${base}/api/url/add`, { method: 'POST', headers: { Authorization: `Bearer ${process.env.LINKCTL_API_KEY}`, 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify({ url, description }) });",
      '    const body = await r.json();',
      '    if (body.error) throw new Error(JSON.stringify(body));',
      "    process.stdout.write(`${body.id}\\n`);",
      '  }',
      '}));',
    ].join('\n'),
  );
  const took = [];
  const bare = [];
  const most = [];
  const problems = [];
  for (let i = 0; i <= PIPELINE_RUNS; i++) {
    await sb.reset();
    const b = await job([bare8, sb.url, csv, String(PIPELINE.inFlight)], sb.env);
    if (b.stdout.split('\n').filter(Boolean).length !== rows) problems.push(`run ${i}: the bare POSTs did not all succeed`);
    await sb.reset();
    const r = await job([BIN, 'link', 'add', '--from', csv, '-o', 'ndjson'], { ...sb.env, LINKCTL_CONFIG_DIR: freshConfig() });
    const created = r.stdout.split('\n').filter((l) => l.includes('"created"')).length;
    const { api } = await sb.requestCount();
    if (created !== rows || api !== rows + 1) problems.push(`run ${i}: ${created} rows created, ${api} API requests (expected ${rows} and ${rows + 1})`);
    if (i === 0) continue; // warm-up
    took.push(r.ms);
    bare.push(b.ms);
    most.push((await inFlight(sb)).max);
  }
  const least = ideal(rows);
  report(
    `link add --from (${rows.toLocaleString('en')} rows, --concurrency auto, sandbox answering after ${PIPELINE.latencyMs} ms, no limit)  vs  ${PIPELINE.inFlight} in flight: ${rows.toLocaleString('en')} × ${PIPELINE.latencyMs} ms / ${PIPELINE.inFlight}`,
    [['the time 8 in flight take', took.map(() => least), 'ms'], ['linkctl link add --from (whole run)', took, 'ms'], ['  most in flight at the sandbox', most, 'x'], [`  for comparison: bare fetch, ${PIPELINE.inFlight} at a time`, bare, 'ms']],
    median(took) / least,
    PIPELINE.addTarget,
    [{ ok: problems.length === 0, text: problems.length ? problems.join('\n    ') : `every run: ${rows} rows created with ${rows + 1} requests (a POST a row and one read of the links)` }],
  );
}

if (ONLY.includes('pipeline-migration')) {
  const links = PIPELINE.migrationLinks;
  const source = await sandbox(sandboxJs, ['--seed-links', String(links - SEEDED_LINKS), '--seed-campaigns', '20', '--seed-channels', '20', '--rate-limit', 'off', '--latency', String(PIPELINE.latencyMs)]);
  const target = await sandbox(sandboxJs, ['--empty', '--rate-limit', 'off', '--latency', String(PIPELINE.latencyMs)]);
  const file = join(tmp, 'migration.yaml');
  const took = [];
  const counted = [];
  const most = [];
  const problems = [];
  for (let i = 0; i <= PIPELINE_RUNS; i++) {
    await source.reset();
    await target.reset();
    const e = await job([BIN, 'export', '--file', file, '--force'], { ...source.env, LINKCTL_CONFIG_DIR: freshConfig() });
    const a = await job([BIN, 'apply', '-f', file, '--yes'], { ...target.env, LINKCTL_CONFIG_DIR: freshConfig() });
    const requests = (await source.requestCount()).api + (await target.requestCount()).api;
    const added = Number(/Applied: (\d+) added/.exec(a.stdout)?.[1]);
    const exported = (readFileSync(file, 'utf8').match(/^ {2}- alias: /gm) ?? []).length;
    if (exported !== links || !(added >= links)) problems.push(`run ${i}: ${exported} links exported, ${added} records added`);
    if (i === 0) continue; // warm-up
    took.push(e.ms + a.ms);
    counted.push(requests);
    most.push((await inFlight(target)).max);
  }
  const least = ideal(median(counted));
  report(
    `migration of ${links.toLocaleString('en')} links (export, then apply to an empty account; both sandboxes answering after ${PIPELINE.latencyMs} ms)  vs  every request of both, ${PIPELINE.inFlight} in flight`,
    [['the time 8 in flight take', took.map(() => least), 'ms'], ['linkctl export + apply (whole runs)', took, 'ms'], ['  requests of both', counted, 'x'], ['  most in flight at the target', most, 'x']],
    median(took) / least,
    PIPELINE.migrationTarget,
    [{ ok: problems.length === 0, text: problems.length ? problems.join('\n    ') : `every run: ${links.toLocaleString('en')} links exported and added` }],
  );
}

if (ONLY.includes('pipeline-limited')) {
  // The same jobs where the server shows its limit (30 a minute): one at a time, as paced as before.
  const { limit, windowSeconds, rows, links, runs } = LIMITED;
  console.log(`\n(rate-limited rows at ${limit}/${windowSeconds}: ${rows} rows and a migration of ${links} links, ${runs} run${runs === 1 ? '' : 's'} each; the full sizes would take an hour)`);
  const sb = await sandbox(sandboxJs, ['--rate-limit', `${limit}/${windowSeconds}`, '--latency', String(PIPELINE.latencyMs)]);
  const limitedRow = async (title, argv, env, expected, target, input) => {
    const ratios = [];
    const spans = [];
    const bounds = [];
    const problems = [];
    for (let i = 0; i < runs; i++) {
      await target.reset();
      const r = await job(argv, env(), input);
      const api = (await target.requests()).filter((q) => q.path.startsWith('/api/'));
      const most = (await inFlight(target)).max;
      if (!expected(r.stdout)) problems.push(`run ${i + 1}: not every record was written\n${r.stderr.slice(0, 500)}`);
      if (most !== 1) problems.push(`run ${i + 1}: ${most} requests in flight at once`);
      const windows = Math.ceil(api.length / limit);
      const bound = leastTime(api[0].at, windows, windowSeconds);
      spans.push(api.at(-1).at - api[0].at);
      bounds.push(bound);
      ratios.push((api.at(-1).at - api[0].at) / bound);
    }
    report(title, [['least time allowed (first to last request)', bounds, 'ms'], ['linkctl (first to last request)', spans, 'ms'], ['ratio per run', ratios, 'x']], median(ratios), LIMITED.target,
      [{ ok: problems.length === 0, text: problems.length ? problems.join('\n    ') : 'every run: every record written, one request in flight at a time' }]);
  };
  await limitedRow(
    `link add --from (${rows} rows, --concurrency auto), sandbox limited to ${limit} per ${windowSeconds} s  vs  the least time the limit allows`,
    [BIN, 'link', 'add', '--from', bulkCsv(rows, 'limited'), '-o', 'ndjson'],
    () => ({ ...sb.env, LINKCTL_CONFIG_DIR: freshConfig() }),
    (out) => out.split('\n').filter((l) => l.includes('"created"')).length === rows,
    sb,
  );
  // The migration's apply (the export of a small account is a few reads, within one window of its own server).
  const source = await sandbox(sandboxJs, ['--seed-links', String(links - SEEDED_LINKS), '--seed-campaigns', '2', '--seed-channels', '2', '--rate-limit', 'off']);
  const exported = (await job([BIN, 'export'], { ...source.env, LINKCTL_CONFIG_DIR: freshConfig() })).stdout;
  const target = await sandbox(sandboxJs, ['--empty', '--rate-limit', `${limit}/${windowSeconds}`, '--latency', String(PIPELINE.latencyMs)]);
  await limitedRow(
    `migration of ${links} links: apply to an empty account (--concurrency auto), sandbox limited to ${limit} per ${windowSeconds} s  vs  the least time the limit allows`,
    [BIN, 'apply', '-f', '-', '--yes'],
    () => ({ ...target.env, LINKCTL_CONFIG_DIR: freshConfig() }),
    (out) => Number(/Applied: (\d+) added/.exec(out)?.[1]) >= links,
    target,
    exported,
  );
}

if (ONLY.includes('bulk-memory')) {
  const small = bulkCsv(BULK_MEMORY_SMALL, 'memory');
  const big = bulkCsv(BULK_MEMORY_BIG, 'memory');
  const rssFile = join(tmp, 'maxrss-bulk');
  // --dry-run needs no server, but a base URL and key so that nothing asks for a login.
  const env = clean({ LINKCTL_BASE_URL: 'http://127.0.0.1:9', LINKCTL_API_KEY: 'bench-key', LINKCTL_CONFIG_DIR: join(tmp, 'bulk-dry'), BENCH_MAXRSS_FILE: rssFile });
  const peak = (file, rows) => () => {
    const out = timed([MAXRSS, 'link', 'add', '--from', file, '--dry-run', '--json'], env).stdout;
    if (JSON.parse(out).rows !== rows) throw new Error(`link add --from --dry-run counted ${out.trim()} for ${rows} rows`);
    return Number(readFileSync(rssFile, 'utf8')) / 1024;
  };
  const [a, b] = alternate(peak(small, BULK_MEMORY_SMALL), peak(big, BULK_MEMORY_BIG), BULK_RUNS);
  const max = Math.max(...b);
  report(
    `link add --from --dry-run: peak RSS over ${BULK_MEMORY_BIG.toLocaleString('en')} vs ${BULK_MEMORY_SMALL.toLocaleString('en')} rows`,
    [[`${BULK_MEMORY_SMALL.toLocaleString('en')} rows (MB)`, a, 'MB'], [`${BULK_MEMORY_BIG.toLocaleString('en')} rows (MB)`, b, 'MB']],
    median(b) / median(a),
    1.3,
    [{ ok: max < MEMORY_CAP_MB, text: `largest peak over ${BULK_MEMORY_BIG.toLocaleString('en')} rows ${max.toFixed(1)} MB (target under ${MEMORY_CAP_MB} MB)` }],
  );
}

// ---------------------------------------------------------------- import
if (ONLY.includes('import')) {
  // A Bitly export (its documented link fields), every row a link with a title, tags and a custom back-half.
  const bitlyCsv = (rows) => {
    const file = join(tmp, `import-bitly-${rows}.csv`);
    const lines = ['id,link,long_url,title,created_at,tags,custom_bitlinks,archived'];
    for (let i = 0; i < rows; i++) lines.push(`bit.ly/h${i},https://bit.ly/h${i},https://example.com/landing/${i}?utm_source=bitly,"Landing page ${i}, spring",2024-03-01T10:00:00+0000,"spring,tag-${i % 50}",https://bit.ly/promo-${i},false`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  };
  const small = bitlyCsv(IMPORT_SMALL);
  const big = bitlyCsv(IMPORT_BIG);
  const rssFile = join(tmp, 'maxrss-import');
  const out = join(tmp, 'import-out.yaml');
  // Import compares the export with the target account (one read of its domains and links): a sandbox of the seed here.
  const sb = await sandbox(sandboxJs, ['--rate-limit', 'off']);
  const env = clean({ LINKCTL_BASE_URL: sb.url, LINKCTL_API_KEY: sb.key, LINKCTL_CONFIG_DIR: join(tmp, 'import-config'), BENCH_MAXRSS_FILE: rssFile });
  const times = { [IMPORT_SMALL]: [], [IMPORT_BIG]: [] };
  const peak = (file, rows) => () => {
    // The file streams to stdout, as `linkctl import bitly FILE > account.yaml` does.
    const fd = openSync(out, 'w');
    try {
      times[rows].push(timed([MAXRSS, 'import', 'bitly', file, '--tags-to', 'campaign'], env, { stdout: fd }).ms);
    } finally {
      closeSync(fd);
    }
    const text = readFileSync(out, 'utf8');
    const count = text.split('\n  - alias: ').length - 1;
    if (count !== rows) throw new Error(`import wrote ${count} links for ${rows} rows`);
    return Number(readFileSync(rssFile, 'utf8')) / 1024;
  };
  const [a, b] = alternate(peak(small, IMPORT_SMALL), peak(big, IMPORT_BIG), BULK_RUNS);
  const max = Math.max(...b);
  report(
    `import bitly (to stdout): peak RSS over ${IMPORT_BIG.toLocaleString('en')} vs ${IMPORT_SMALL.toLocaleString('en')} rows`,
    [[`${IMPORT_SMALL.toLocaleString('en')} rows (MB)`, a, 'MB'], [`${IMPORT_BIG.toLocaleString('en')} rows (MB)`, b, 'MB']],
    median(b) / median(a),
    // Looser than the bulk rows' 1.3: to find collisions the import keeps every alias of the
    // input (about 10 MB for 100,000); the file itself is streamed, and the cap is the target.
    1.8,
    [
      { ok: max < MEMORY_CAP_MB, text: `largest peak over ${IMPORT_BIG.toLocaleString('en')} rows ${max.toFixed(1)} MB (target under ${MEMORY_CAP_MB} MB)` },
      { text: `time: ${IMPORT_SMALL.toLocaleString('en')} rows median ${median(times[IMPORT_SMALL]).toFixed(0)} ms, ${IMPORT_BIG.toLocaleString('en')} rows median ${median(times[IMPORT_BIG]).toFixed(0)} ms` },
    ],
  );
}

// ---------------------------------------------------------------- stats export (scripts/bench/warehouse.mjs)
if (ONLY.includes('warehouse')) {
  const { benchWarehouse } = await import('./bench/warehouse.mjs');
  await benchWarehouse({ ROOT, MAXRSS, NODE, tmp, timed, report, median, clean });
}

// ---------------------------------------------------------------- linkctl listen (scripts/bench/listen.mjs)
if (ONLY.includes('listen')) {
  const { benchListen } = await import('./bench/listen.mjs');
  await benchListen({ MAXRSS, NODE, tmp, report, sandbox, sandboxJs, clean });
}

// ---------------------------------------------------------------- the ledger (scripts/bench/ledger.ts)
// What recording one write adds to a command that writes, apart from the network: a server's
// answer to a write takes tens of milliseconds; the ledger's entry must cost a small part of that.
if (ONLY.includes('ledger')) {
  const out = join(ROOT, 'node_modules/.cache/linkctl-bench');
  await build({
    entryPoints: [join(ROOT, 'scripts/bench/ledger.ts')], outfile: join(out, 'ledger.mjs'), bundle: true, format: 'esm', platform: 'node', target: 'node20',
    external: ['libsql', 'pg', '@napi-rs/keyring'], define: { __LINKCTL_VERSION__: JSON.stringify('bench') },
    banner: { js: "import { createRequire as __benchCreateRequire } from 'node:module'; const require = __benchCreateRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  const runs = Array.from({ length: Math.max(3, Math.min(RUNS, 5)) }, () => JSON.parse(timed([join(out, 'ledger.mjs'), tmp, '500'], clean()).stdout));
  const LEDGER_MS = 5;
  report(
    'the ledger: one write recorded (chained, committed) in an SQLite history, 500 in a row  vs  5 ms',
    [['per write (mean)', runs.map((r) => r.perWrite), 'ms'], ['  median', runs.map((r) => r.p50), 'ms'], ['  p99', runs.map((r) => r.p99), 'ms'], ['  CPU per write', runs.map((r) => r.cpuPerWrite), 'ms']],
    median(runs.map((r) => r.perWrite)) / LEDGER_MS,
    1,
    [{ ok: true, text: `peak RSS ${Math.max(...runs.map((r) => r.maxRssMb)).toFixed(0)} MB` }],
  );
}

// ---------------------------------------------------------------- click history (scripts/bench/stats.mjs)
if (ONLY.includes('stats') || ONLY.includes('stats-year')) {
  const { benchStats } = await import('./bench/stats.mjs');
  await benchStats({ ROOT, BIN, MAXRSS, NODE, tmp, RUNS, timed, alternate, report, median, sandbox, sandboxJs, clean, memoryCapMb: MEMORY_CAP_MB, snapshot: ONLY.includes('stats') });
}

// ---------------------------------------------------------------- check
// How the QR decoder was chosen: rates and times only, no target (README, Install). Not in the default rows.
if (ONLY.includes('qr-decoders')) {
  const out = join(ROOT, 'node_modules/.cache/linkctl-bench');
  await build({
    entryPoints: [join(ROOT, 'scripts/bench/qr-decoders.ts')], outfile: join(out, 'qr-decoders.mjs'), bundle: true, format: 'esm', platform: 'node', target: 'node20',
    external: ['@resvg/resvg-js', 'zxing-wasm', 'jsqr'],
    banner: { js: "import { createRequire as __benchCreateRequire } from 'node:module'; const require = __benchCreateRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  console.log('\nQR decoders on 420 styled codes like the product\'s (scripts/bench/qr-decoders.ts):');
  process.stdout.write(timed([join(out, 'qr-decoders.mjs')], clean()).stdout);
}

if (ONLY.includes('qr-read') || ONLY.includes('qr-export')) {
  // Bundled beside node_modules: the QR readers (resvg, zxing-wasm) stay outside the bundle and are found there.
  const out = join(ROOT, 'node_modules/.cache/linkctl-bench');
  for (const name of ['qr-server', 'qr-read']) {
    await build({
      entryPoints: [join(ROOT, `scripts/bench/${name}.ts`)], outfile: join(out, `${name}.mjs`), bundle: true, format: 'esm', platform: 'node', target: 'node20',
      external: ['@resvg/resvg-js', 'zxing-wasm'],
      banner: { js: "import { createRequire as __benchCreateRequire } from 'node:module'; const require = __benchCreateRequire(import.meta.url);" },
      logLevel: 'warning',
    });
  }
  const server = spawn(NODE, [join(out, 'qr-server.mjs'), String(QR.codes)], { env: clean(), stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(server);
  const { url, key } = JSON.parse(await new Promise((resolve, reject) => {
    server.on('exit', (code) => reject(new Error(`bench QR server exited ${code}`)));
    createInterface({ input: server.stdout }).once('line', resolve);
  }));
  const count = (method = 'GET') => control(`${url}/__count`, { method });
  const env = (extra = {}) => clean({ LINKCTL_BASE_URL: url, LINKCTL_API_KEY: key, LINKCTL_CONFIG_DIR: join(tmp, 'qr-config'), ...extra });
  const rssFile = join(tmp, 'maxrss-qr');
  const reads = [];
  const readCpu = [];
  const readPeaks = [];
  const exports = [];
  const exportPeaks = [];
  const problems = [];
  await count('POST');
  timed([MAXRSS, 'export', '--no-qr-content', '--file', join(tmp, 'qr-bare.yaml'), '--force'], env({ BENCH_MAXRSS_FILE: rssFile }));
  const bareApi = (await count('POST')).api;
  for (let i = 0; i <= QR_RUNS; i++) {
    const r = JSON.parse(timed([join(out, 'qr-read.mjs'), url, key], clean()).stdout);
    if (r.read !== QR.codes) problems.push(`image reads, run ${i}: ${r.read} of ${QR.codes} read (${r.reasons.join('; ')})`);
    await count('POST');
    // --include-secrets: every code is written with its content (a wifi code's password is a secret, written by name only without it)
    const e = timed([MAXRSS, 'export', '--include-secrets', '--file', join(tmp, 'qr.yaml'), '--force'], env({ BENCH_MAXRSS_FILE: rssFile }));
    const seen = await count('POST');
    const file = readFileSync(join(tmp, 'qr.yaml'), 'utf8');
    const withContent = (file.match(/^ {4}type: /gm) ?? []).length;
    if (withContent !== QR.codes) problems.push(`export, run ${i}: ${withContent} of ${QR.codes} codes with their content`);
    if (seen.api !== bareApi) problems.push(`export, run ${i}: ${seen.api} API requests, ${bareApi} without reading images`);
    if (i === 0) continue; // warm-up
    reads.push(r.ms);
    readCpu.push(r.cpuMs);
    readPeaks.push(r.maxRssMb);
    exports.push(e.ms);
    exportPeaks.push(Number(readFileSync(rssFile, 'utf8')) / 1024);
  }
  if (ONLY.includes('qr-read')) {
    report(
      `read the content of ${QR.codes.toLocaleString('en')} QR images (half styled SVG behind a 302, half PNG, every type) from a local server  vs  its budget`,
      [['budget', reads.map(() => QR.budgetMs), 'ms'], ['image reads (src/qr/read.ts, one process)', reads, 'ms'], ['  its CPU time (user + system)', readCpu, 'ms'], ['  peak RSS (MB)', readPeaks, 'MB']],
      median(reads) / QR.budgetMs,
      1,
      [
        { ok: Math.max(...readPeaks) <= QR.budgetMb, text: `largest peak ${Math.max(...readPeaks).toFixed(1)} MB (target at most ${QR.budgetMb} MB)` },
        { ok: problems.length === 0, text: problems.length ? problems.join('\n    ') : `every run read all ${QR.codes} codes` },
      ],
    );
  }
  if (ONLY.includes('qr-export')) {
    report(
      `export of an account with ${QR.codes.toLocaleString('en')} QR codes (their content read)  vs  the image reads alone`,
      [['image reads alone', reads, 'ms'], ['linkctl export --file', exports, 'ms'], ['  peak RSS (MB)', exportPeaks, 'MB']],
      median(exports) / median(reads),
      QR.exportRatio,
      [{ ok: problems.length === 0, text: problems.length ? problems.join('\n    ') : `API requests: ${bareApi}, as with --no-qr-content (images are not API requests)` }],
    );
  }
}

if (ONLY.includes('check')) {
  const { destinations, hosts, delayMs, concurrency, perHost } = CHECK;
  const sb = await sandbox(sandboxJs, ['--rate-limit', 'off']);
  // The destinations, in a process of their own (scripts/bench/destinations.mjs).
  const server = spawn(NODE, [join(ROOT, 'scripts/bench/destinations.mjs'), String(delayMs), String(hosts)], { env: clean(), stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(server);
  const { port } = JSON.parse(await new Promise((resolve, reject) => {
    server.on('exit', (code) => reject(new Error(`bench destinations exited ${code}`)));
    createInterface({ input: server.stdout }).once('line', resolve);
  }));
  const stats = (method = 'GET') => control(`http://127.0.0.1:${port}/__stats`, { method });
  // The account: the seeded links (on example.com) deleted, then one link a destination, host by host in turn.
  // The hosts are addresses of this machine (127.0.0.1 to .50): the per-host limit counts addresses.
  const api = (method, path, body) => control(`${sb.url}/api/${path}`, { method, headers: { Authorization: `Bearer ${sb.key}`, 'Content-Type': 'application/json' }, body: body && JSON.stringify(body) });
  for (const id of [1, 2]) await api('DELETE', `url/${id}/delete`);
  for (let i = 0; i < destinations; i++) {
    const r = await api('POST', 'url/add', { url: `http://127.0.0.${(i % hosts) + 1}:${port}/d/${i}`, custom: `check${i}` });
    if (r.error) throw new Error(`url/add: ${JSON.stringify(r)}`);
  }
  // The least time the limits allow: rounds of min(concurrency, hosts × per host) destinations, each a HEAD
  // and then a GET (a 200 to HEAD is confirmed by GET), each request taking the delay.
  const parallel = Math.min(concurrency, hosts * perHost);
  const least = Math.ceil(destinations / parallel) * 2 * delayMs;
  const rssFile = join(tmp, 'maxrss-check');
  // The destinations are on this machine: --allow-private lets linkctl request them.
  const env = { ...sb.env, LINKCTL_CONFIG_DIR: join(tmp, 'check-config'), BENCH_MAXRSS_FILE: rssFile, LINKCTL_CHECK_ALLOW_PRIVATE: '127.0.0.0/8' };
  // For comparison only (no target): the same requests with bare undici, `concurrency` at a time, in one
  // process; on a loaded machine it shows how far the delay itself stretches.
  const bareChecks = join(tmp, 'bare-checks.mjs');
  writeFileSync(
    bareChecks,
    [
      `import { request, Agent } from ${JSON.stringify(join(ROOT, 'node_modules/undici/index.js'))};`,
      'const [port, n, hosts, parallel] = process.argv.slice(2).map(Number);',
      'const agent = new Agent();',
      'let next = 0;',
      'await Promise.all(Array.from({ length: parallel }, async () => {',
      '  for (let i = next++; i < n; i = next++) {',
      '    const url = `http://127.0.0.${(i % hosts) + 1}:${port}/d/${i}`;',
      "    for (const method of ['HEAD', 'GET']) await (await request(url, { method, dispatcher: agent })).body.dump();",
      '  }',
      '}));',
      'await agent.close();',
    ].join('\n'),
  );
  const bare = [];
  const took = [];
  const peaks = [];
  const problems = [];
  let seen;
  for (let i = 0; i <= CHECK_RUNS; i++) {
    const b = timed([bareChecks, String(port), String(destinations), String(hosts), String(parallel)], clean());
    await stats('POST');
    const r = timed([MAXRSS, 'check', '-o', 'ndjson'], env);
    const records = r.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    seen = await stats();
    const wrong = records.filter((x) => x.status !== 'ok' || x.code !== 200 || x.flags.join() !== 'insecure').length; // http:// destinations answering 200
    if (records.length !== destinations || wrong || seen.heads !== destinations || seen.gets !== destinations) problems.push(`run ${i}: ${records.length} records, ${wrong} not answered 200, ${seen.heads} HEAD and ${seen.gets} GET requests at the destinations`);
    if (seen.maxInFlight > concurrency || seen.maxPerHost > perHost) problems.push(`run ${i}: ${seen.maxInFlight} requests at a time (limit ${concurrency}), ${seen.maxPerHost} to one host (limit ${perHost})`);
    if (i === 0) continue; // warm-up
    bare.push(b.ms);
    took.push(r.ms);
    peaks.push(Number(readFileSync(rssFile, 'utf8')) / 1024);
  }
  const max = Math.max(...peaks);
  report(
    `check of ${destinations.toLocaleString('en')} destinations on ${hosts} hosts answering after ${delayMs} ms  vs  the least time ${concurrency} at a time (${perHost} per host) allow`,
    [['least time the limits allow', took.map(() => least), 'ms'], ['linkctl check -o ndjson (whole run)', took, 'ms'], ['  peak RSS (MB)', peaks, 'MB'],
      [`  for comparison: bare undici, ${parallel} at a time`, bare, 'ms']],
    median(took) / least,
    1.2,
    [
      { ok: max < MEMORY_CAP_MB, text: `largest peak ${max.toFixed(1)} MB (target under ${MEMORY_CAP_MB} MB)` },
      { ok: problems.length === 0, text: problems.length ? problems.join('\n    ') : `every run: ${destinations} records, one HEAD and one GET a destination, at most ${seen.maxInFlight} at a time and ${seen.maxPerHost} per address` },
    ],
  );
}

// ---------------------------------------------------------------- verdict
const failed = results.filter((r) => !r.ok);
console.log(`\n${results.length - failed.length}/${results.length} targets met in ${((Date.now() - started) / 1000).toFixed(0)} s${failed.length ? `; missed: ${failed.map((r) => r.title).join('; ')}` : ''}`);
process.exitCode = failed.length ? 1 : 0;
for (const child of children) child.kill(); // the sandboxes would keep this process alive
