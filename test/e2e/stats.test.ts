/**
 * `linkctl stats` as a user meets it: snapshots of the sandbox (visits made to its short links
 * through HTTP, counted by its own visit code), series with gaps and resets, movers, filters,
 * output shapes, bad input, damaged and foreign databases, snapshots in parallel processes,
 * the sqlite3 shell, `sandbox visits` and the MCP tool. Time is LINKCTL_NOW.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { get as httpGet } from 'node:http';
import { createRequire } from 'node:module';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, runMain, spawnCli, tempDir, useSandbox, type SandboxFixture } from '../helpers.js';
import { loadState, saveState } from '../../src/sandbox/state.js';

const dir = tempDir('linkctl-stats-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let dbs = 0;
const freshDb = () => join(dir, `history-${++dbs}.db`);

const day = (d: number, hour = 6) => `2025-06-0${d}T0${hour}:00:00Z`;
const requests = (fx: SandboxFixture) => fx.sandbox.requests.filter((r) => r.path.startsWith('/api/')).map((r) => `${r.method} ${r.path}${Object.keys(r.query).length ? `?${new URLSearchParams(r.query)}` : ''}`);
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

let visitors = 0;
/**
 * Visits through the short URL, each from another client address (so each is a unique visitor: the
 * product counts addresses, real-servers.md fact 42): 127.0.0.2 and on, all of them this machine.
 */
async function visit(fx: SandboxFixture, alias: string, n: number, country?: string): Promise<void> {
  for (let i = 0; i < n; i++) {
    const localAddress = `127.0.${Math.floor(++visitors / 250)}.${2 + (visitors % 250)}`;
    const status = await new Promise<number | undefined>((resolve, reject) => {
      httpGet(`${fx.sandbox.url}/${alias}${country ? `?country=${country}` : ''}`, { localAddress, headers: { 'User-Agent': 'test-browser/1.0' } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      }).on('error', reject);
    });
    expect(status).toBe(301);
  }
}

function stats(fx: SandboxFixture, db: string, now: string) {
  return (args: string[], options: { tty?: boolean } = {}) => runMain(['stats', ...args], { env: { ...fx.env, LINKCTL_DB: db, LINKCTL_NOW: now }, tty: options.tty });
}

/**
 * Five days: a snapshot on days 1, 2, 4 and 5 (none on day 3). docs gets 3 visits and
 * spring-sale 1 before day 2, spring-sale 5 before day 4, docs 4 before day 5.
 */
async function timeline(fx: SandboxFixture): Promise<string> {
  const db = freshDb();
  const snap = async (d: number) => {
    const r = await stats(fx, db, day(d))(['snapshot', '-q']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
  };
  await snap(1);
  await visit(fx, 'docs', 3);
  await visit(fx, 'spring-sale', 1);
  await snap(2);
  await visit(fx, 'spring-sale', 5, 'CA');
  await snap(4);
  await visit(fx, 'docs', 4);
  await snap(5);
  fx.sandbox.requests.length = 0;
  return db;
}

describe('stats snapshot reads each list once, in pages of 1,000', () => {
  const fx = useSandbox({ seed: { links: 2498 } }); // 2,500 links with the demo account's two

  it('⌈2,500/1,000⌉ + 3 requests, and a read of each QR code the first time; the second snapshot stores only the records that changed', async () => {
    const db = freshDb();
    const first = await stats(fx, db, day(1))(['snapshot', '--json']);
    expect(first.code, first.stderr).toBe(0);
    // 2 links + 2,498, 1 QR code (the text and wifi codes count no scans: no totals), 1 campaign
    expect(JSON.parse(first.stdout)).toMatchObject({ snapshot: 1, takenAt: '2025-06-01T06:00:00.000Z', links: 2500, qrs: 3, campaigns: 1, changed: 2502, first: true, account: { baseUrl: fx.sandbox.url, account: '1', name: 'demo' }, db });
    expect(requests(fx).slice(0, 6)).toEqual([
      'GET /api/account',
      // the run's reader: pages of 1,000, doubled once the first two came quickly (2,000 from record 2,001 on)
      'GET /api/urls?limit=1000&page=1',
      'GET /api/urls?limit=1000&page=2',
      'GET /api/urls?limit=2000&page=2',
      'GET /api/qr?limit=1000&page=1',
      'GET /api/campaigns?limit=1000&page=1',
    ]);
    // Which codes count scans: each code read once, ever (issue 55, 4).
    expect(requests(fx).slice(6).sort()).toEqual(['GET /api/qr/1', 'GET /api/qr/2', 'GET /api/qr/3']);
    fx.sandbox.requests.length = 0;
    await visit(fx, 'docs', 2);
    await visit(fx, 'bulk17', 1);
    const second = await stats(fx, db, day(2))(['snapshot']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe(`Snapshot 2 at 2025-06-02T06:00:00.000Z: 2,500 links, 3 QR codes, 1 campaign; 2 records changed since the previous snapshot (${db})\n`);
    expect(requests(fx)).toHaveLength(Math.ceil(2500 / 1000) + 3);
  });

  it('--details N reads the statistics of the N most clicked links, one request each', async () => {
    const r = await stats(fx, freshDb(), day(1))(['snapshot', '--details', '2', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).details).toBe(2);
    // bulk links have up to 999 clicks: the two most clicked are generated ones, read after the lists
    const reads = requests(fx).filter((q) => q.startsWith('GET /api/url/'));
    expect(reads).toHaveLength(2);
    expect(requests(fx).filter((q) => !/^GET \/api\/qr\/\d+$/.test(q))).toHaveLength(Math.ceil(2500 / 1000) + 3 + 2); // and the QR codes' reads, unless known from the test before
  });
});

describe('stats show, top and report against the sandbox', () => {
  const fx = useSandbox();
  const NOW = '2025-06-05T07:00:00Z';

  it('series per day: the first snapshot is a baseline; the missed day and the day after share the difference, estimated, never a spike; stable csv columns', async () => {
    const db = await timeline(fx);
    const r = await stats(fx, db, NOW)(['show', '--since', '4d', '-o', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    const iso = (d: number) => `2025-06-0${d}T06:00:00.000Z`;
    expect(r.stdout).toBe([
      'series,label,link,qr,campaign,period,start,clicks,uniqueClicks,gap,reset,estimated,from,to',
      'links,All links,,,,2025-06-01,2025-06-01T00:00:00.000Z,,,true,false,false,,',
      `links,All links,,,,2025-06-02,2025-06-02T00:00:00.000Z,4,4,false,false,false,${iso(1)},${iso(2)}`,
      // no snapshot on day 3: spring-sale's 5 clicks between day 2 and day 4 are spread over days 3 and 4
      `links,All links,,,,2025-06-03,2025-06-03T00:00:00.000Z,2,2,false,false,true,${iso(2)},${iso(4)}`,
      `links,All links,,,,2025-06-04,2025-06-04T00:00:00.000Z,3,3,false,false,true,${iso(2)},${iso(4)}`,
      `links,All links,,,,2025-06-05,2025-06-05T00:00:00.000Z,4,4,false,false,false,${iso(4)},${iso(5)}`,
      'qrs,All QR codes,,,,2025-06-01,2025-06-01T00:00:00.000Z,,,true,false,false,,',
      `qrs,All QR codes,,,,2025-06-02,2025-06-02T00:00:00.000Z,0,,false,false,false,${iso(1)},${iso(2)}`,
      `qrs,All QR codes,,,,2025-06-03,2025-06-03T00:00:00.000Z,0,,false,false,true,${iso(2)},${iso(4)}`,
      `qrs,All QR codes,,,,2025-06-04,2025-06-04T00:00:00.000Z,0,,false,false,true,${iso(2)},${iso(4)}`,
      `qrs,All QR codes,,,,2025-06-05,2025-06-05T00:00:00.000Z,0,,false,false,false,${iso(4)},${iso(5)}`,
      '',
    ].join('\n'));
    expect(r.stderr).toMatch(/^4 snapshots of http:\/\/127\.0\.0\.1:\d+ \(account demo\) up to 2025-06-05T07:00:00\.000Z; newest snapshot 2025-06-05T06:00:00\.000Z; periods in UTC\nuniqueClicks: visitors first counted in the period .*they do not add up across periods or links\nestimated: spread evenly over the periods a missed snapshot left between two others: estimates, not counts\n$/);
    expect(fx.sandbox.requests).toEqual([]); // history is read from the database only
  });

  it('--json: the window, the newest snapshot, totals per series and every point; filters by link, campaign and QR code', async () => {
    const db = await timeline(fx);
    const r = await stats(fx, db, NOW)(['show', '--since', '4d', '--link', 'docs', '--campaign', 'Spring launch', '--qr', '1', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ by: 'day', since: '2025-06-01T07:00:00.000Z', until: '2025-06-05T07:00:00.000Z', newestSnapshot: '2025-06-05T06:00:00.000Z', snapshots: 4 });
    expect(out.uniqueClicks).toMatch(/do not add up/);
    expect(out.series).toEqual([
      { series: 'link:1', label: 'docs', link: 1, qr: null, campaign: null, clicks: 7, uniqueClicks: 7, gaps: 1, resets: 0, estimated: 2, total: 64 },
      { series: 'campaign:1', label: 'Spring launch', link: null, qr: null, campaign: 1, clicks: 7, uniqueClicks: 7, gaps: 1, resets: 0, estimated: 2, total: 64 }, // docs is its only link
      { series: 'qr:1', label: 'Restaurant menu', link: null, qr: 1, campaign: null, clicks: 0, uniqueClicks: null, gaps: 1, resets: 0, estimated: 2, total: 128 },
    ]);
    expect(out.points.filter((p: { series: string }) => p.series === 'link:1').map((p: { clicks: number | null }) => p.clicks)).toEqual([null, 3, 0, 0, 4]);
    expect(Object.keys(out.points[0])).toEqual(['series', 'label', 'link', 'qr', 'campaign', 'period', 'start', 'clicks', 'uniqueClicks', 'gap', 'reset', 'estimated', 'from', 'to']);
    // by id, and ndjson: one point a line; its 5 clicks across the missed day are spread over it and the day after
    const nd = await stats(fx, db, NOW)(['show', '--since', '4d', '--link', '2', '-o', 'ndjson']);
    const points = nd.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(points.map((p) => p.clicks)).toEqual([null, 1, 2, 3, 0]);
    expect(points.map((p) => p.estimated)).toEqual([false, false, true, true, false]);
  });

  it('on a terminal: one row per series with a sparkline (estimates as shades, gaps as spaces), the total now, the caveats under it; --top adds the most clicked links', async () => {
    const db = await timeline(fx);
    const r = await stats(fx, db, NOW)(['show', '--since', '4d', '--top', '2', '--no-color'], { tty: true });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^SERIES +CLICKS +NEW UNIQUES\* +PER DAY +LAST +LATEST TOTAL +NOTES$/);
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^All links +13 +13 +\s█▒▒█ +4 +82 +1 gap; 2 estimated$/),
      expect.stringMatching(/^docs +7 +7 +\s▆░░█ +4 +64 +1 gap; 2 estimated$/),
      expect.stringMatching(/^spring-sale +6 +6 +\s▃▒▓▁ +0 +18 +1 gap; 2 estimated$/),
    ]);
    expect(r.stderr).toMatch(/\* NEW UNIQUES: visitors first counted in the period/);
  });

  it('stats top: the links ranked by clicks in the window, each against the window before it, what the history covers said', async () => {
    const db = await timeline(fx);
    const r = await stats(fx, db, NOW)(['top', '--since', '1d', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      kind: 'link', by: 'day', window: { from: '2025-06-05T00:00:00.000Z', to: '2025-06-06T00:00:00.000Z', periods: 1 },
      covered: { periods: 1 }, comparison: { from: '2025-06-04T00:00:00.000Z', to: '2025-06-05T00:00:00.000Z', periods: 1 }, clicks: 4, snapshots: 4,
    });
    expect(out.links).toEqual([
      { rank: 1, kind: 'link', id: 1, alias: 'docs', label: 'Example Docs', clicks: 4, previous: 0, change: 4, changePercent: null, direction: 'up', reset: false, estimated: false },
    ]);
    expect(out.note).toBe('clicks in the day 2025-06-05; compared with the day before (2025-06-04)');
    expect(r.stderr).toBe(`${out.note}\n`);
    // a window with nothing before it to compare with: ranked by its own clicks, and said so
    const early = await stats(fx, db, '2025-06-02T07:00:00Z')(['top', '--since', '1d']);
    expect(early.stdout).toBe('1\t1\tdocs\t3\t-\t-\t-\n2\t2\tspring-sale\t1\t-\t-\t-\n');
    expect(early.stderr).toBe('clicks in the day 2025-06-02; no comparison: the history does not cover the day before\n');
  });

  it('--breakdown countries: a change is given only when both snapshots read the link\'s details and list that country', async () => {
    const db = freshDb();
    const run = (d: number, args: string[]) => stats(fx, db, day(d))(args);
    expect((await run(1, ['snapshot', '--details', '2'])).code).toBe(0);
    await visit(fx, 'spring-sale', 3, 'CA'); // Canada is in its list already
    await visit(fx, 'spring-sale', 2, 'DE'); // Germany is new to it
    expect((await run(2, ['snapshot', '--details', '2'])).code).toBe(0);
    await visit(fx, 'spring-sale', 1, 'DE');
    expect((await run(3, ['snapshot', '--details', '2'])).code).toBe(0);
    const r = await run(4, ['show', '--since', '3d', '--link', 'spring-sale', '--breakdown', 'countries', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const points = JSON.parse(r.stdout).points as Array<{ name: string; period: string; clicks: number | null }>;
    const of = (name: string) => points.filter((p) => p.name === name).map((p) => p.clicks);
    expect(of('Canada')).toEqual([null, 3, 0, null]);
    expect(of('Germany')).toEqual([null, null, 1, null]); // not in the list of day 1: unknown then, not 0
    expect(of('United States')).toEqual([null, 0, 0, null]);
  });

  it('a total that went down is flagged as a reset, counted from zero, in every output', async () => {
    const config = tempDir();
    try {
      const db = freshDb();
      const env = (now: string) => ({ LINKCTL_CONFIG_DIR: config, LINKCTL_DB: db, LINKCTL_NOW: now });
      expect((await runMain(['--sandbox', 'stats', 'snapshot'], { env: env(day(1)) })).code).toBe(0);
      // the server's statistics of link 1 were reset (57 clicks then, 2 now)
      const file = join(config, 'sandbox-state.json');
      const state = loadState(file)!;
      Object.assign(state.links[0]!, { clicks: 2, uniqueclicks: 2 });
      saveState(file, state);
      expect((await runMain(['--sandbox', 'stats', 'snapshot'], { env: env(day(2)) })).code).toBe(0);
      const r = await runMain(['--sandbox', 'stats', 'show', '--since', '1d', '--link', 'docs', '--json'], { env: env(day(2, 7)) });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).points.at(-1)).toMatchObject({ period: '2025-06-02', clicks: 2, uniqueClicks: 2, reset: true });
      const table = await runMain(['--sandbox', 'stats', 'show', '--since', '1d', '--no-color'], { env: env(day(2, 7)), tty: true });
      expect(table.stdout).toMatch(/All links +2 +2 .* 1 gap; 1 reset \(a total went/);
    } finally {
      rmSync(config, { recursive: true, force: true });
    }
  });

  it('--dry-run: a snapshot is worked out and not kept; a report is not written', async () => {
    const db = await timeline(fx);
    await visit(fx, 'docs', 1);
    const dry = await stats(fx, db, day(6))(['snapshot', '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, snapshot: 5, changed: 1, first: false });
    expect(dry.stderr).toBe('dry run: no snapshot was written\n');
    const show = await stats(fx, db, day(6))(['show', '--json']);
    expect(JSON.parse(show.stdout)).toMatchObject({ snapshots: 4, newestSnapshot: '2025-06-05T06:00:00.000Z' });
    const file = join(dir, 'dry.html');
    const report = await stats(fx, db, NOW)(['report', '--html', file, '--dry-run']);
    expect(report.stdout).toMatch(/^Would write .*dry\.html: 4 charts, 2 ranked links, 4 snapshots\.\n$/);
    expect(existsSync(file)).toBe(false);
  });

  it('report --html: one page, no script, every series charted', async () => {
    const db = await timeline(fx);
    const file = join(dir, 'report.html');
    const r = await stats(fx, db, NOW)(['report', '--since', '4d', '--html', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Wrote ${file}: 4 charts, 2 ranked links, 4 snapshots.\n`);
    const html = readFileSync(file, 'utf8');
    expect(html).not.toMatch(/<script|\b(src|href)\s*=|url\(|@import/i); // nothing loaded from anywhere
    expect(html.match(/<div class="chart" role="img"/g)).toHaveLength(4);
    expect(html).toContain('Content-Security-Policy');
  });
});

describe('bad input and the wrong database', () => {
  const fx = useSandbox();

  it('bad flags are exit 2 naming the flag, before the database is opened or a request sent', async () => {
    const db = freshDb();
    for (const [args, message] of [
      [['show', '--since', 'yesterday'], /--since must be a duration before now \(48h, 30d, 12w\) or a date/],
      [['show', '--by', 'fortnight'], /--by must be one of hour, day, week, month/],
      [['show', '--since', '1d', '--until', '2d'], /--since \(.*\) must come before --until/],
      [['show', '--breakdown', 'countries'], /--breakdown needs the links to break down: --link ID\|ALIAS or --top N/],
      [['snapshot', '--details', '0'], /--details must be a positive integer/],
      [['report'], /^linkctl: stats report needs --html FILE or --pdf FILE \(or both\)\n/],
      [['report', '--pdf', '-'], /--pdf needs a file name/],
    ] as const) {
      const r = await stats(fx, db, day(1))([...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect(fx.sandbox.requests).toEqual([]);
    expect(existsSync(db)).toBe(false);
  });

  it('no snapshot yet is its own exit code (8) with the next step; a first snapshot shows the totals now and when trends appear; an unknown link is exit 4', async () => {
    const db = freshDb();
    for (const command of [['show'], ['top'], ['report', '--html', join(dir, 'none.html')]]) {
      const none = await stats(fx, db, day(1))(command);
      expect(none.code, command[0]).toBe(8);
      expect(none.stderr).toBe(`linkctl: no click history yet: ${db} does not exist\nhint: take a snapshot now with \`linkctl stats snapshot\`, and one a day from cron (crontab -e): 15 6 * * *  linkctl stats snapshot -q\n`);
    }
    expect(existsSync(db)).toBe(false);
    expect((await stats(fx, db, day(1))(['snapshot', '-q'])).code).toBe(0);
    const first = await stats(fx, db, day(1, 7))(['show', '--no-color'], { tty: true });
    expect(first.code, first.stderr).toBe(0);
    // the newest snapshot's totals, said so with when it was taken (issue 53, 8: not "TOTAL NOW")
    expect(first.stderr.replace(/\s+/g, ' ')).toContain('LATEST TOTAL: the total the newest snapshot read (2025-06-01 06:00 UTC), not a count of now: `linkctl stats snapshot` reads one');
    expect(first.stdout.trimEnd().split('\n')).toEqual([expect.stringMatching(/^SERIES +LATEST TOTAL$/), expect.stringMatching(/^All links +69$/), expect.stringMatching(/^All QR codes +128$/)]);
    // On a terminal (100 columns here) the note wraps at word boundaries; the cron line stays whole.
    const words = (text: string) => text.replace(/\s+/g, ' ');
    expect(words(first.stderr)).toContain(words('one snapshot so far (2025-06-01 06:00 UTC): these are the totals then. Trends appear after the next snapshot; take one a day with cron (crontab -e):\n  15 6 * * *  linkctl stats snapshot -q\n'));
    expect(first.stderr).toContain('\n  15 6 * * *  linkctl stats snapshot -q\n');
    for (const line of first.stderr.split('\n')) expect(line.length).toBeLessThanOrEqual(100);
    const json = JSON.parse((await stats(fx, db, day(1, 7))(['show', '--json'])).stdout);
    expect(json.series.map((s: { total: number }) => s.total)).toEqual([69, 128]); // the sandbox's seed: 57 + 12 clicks; the menu code's scans (the text and wifi codes count none: issue 55, 4)
    expect(json.next).toMatch(/^one snapshot so far/);
    const top = await stats(fx, db, day(1, 7))(['top']);
    expect(top.code).toBe(0);
    expect(top.stderr).toMatch(/^no clicks to rank yet: one snapshot so far \(2025-06-01 06:00 UTC\); the next one starts the first comparison\n/);
    const unknown = await stats(fx, db, day(1))(['show', '--link', 'nope']);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toMatch(/^linkctl: no link "nope" in the history of http:\/\/127\.0\.0\.1:\d+\n/);
    // a database that holds another server's history only: exit 8, naming what it holds
    const other = await runMain(['stats', 'show'], { env: { LINKCTL_DB: db, LINKCTL_BASE_URL: 'https://links.example.invalid', LINKCTL_API_KEY: 'k'.repeat(20) } });
    expect(other.code).toBe(8);
    expect(other.stderr).toMatch(/^linkctl: no snapshots of https:\/\/links\.example\.invalid in .* yet; it holds http:\/\/127\.0\.0\.1:\d+ \(account demo\)\nhint: choose the profile/);
  });

  it('a file that is not SQLite, or an SQLite database of something else: exit 7 naming the file, nothing written to it, nothing sent', async () => {
    const garbage = join(dir, 'notes.db');
    writeFileSync(garbage, 'my shopping list\neggs\n');
    const foreign = join(dir, 'shop.db');
    const Database = createRequire(import.meta.url)('libsql');
    const other = new Database(foreign);
    other.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers (name) VALUES ('Ada');");
    other.close();
    for (const [file, why] of [[garbage, 'not an SQLite file'], [foreign, 'an SQLite database with other tables: customers']] as const) {
      const before = sha(file);
      for (const command of [['stats', 'snapshot'], ['stats', 'show']]) {
        const r = await runCli([...command, '--db', file], { env: fx.env });
        expect(r.code, r.stderr).toBe(7);
        expect(r.stderr).toBe(`linkctl: ${file} is not a linkctl click-history database (${why}); nothing was written to it\nhint: give another file with --db (or LINKCTL_DB); linkctl never writes into a database it did not create\n`);
        expect(sha(file)).toBe(before);
      }
      expect(existsSync(`${file}-wal`)).toBe(false);
    }
    expect(fx.sandbox.requests).toEqual([]);
  });

  it('a damaged history database: exit 7 naming it, nothing overwritten', async () => {
    const db = freshDb();
    expect((await stats(fx, db, day(1))(['snapshot', '-q'])).code).toBe(0);
    // keep SQLite's header, overwrite the schema page: a file torn by a crash or a disk error
    const bytes = readFileSync(db);
    bytes.fill(0x5a, 100, 4096);
    writeFileSync(db, bytes);
    const before = sha(db);
    const r = await runCli(['stats', 'show', '--db', db], { env: fx.env });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(new RegExp(`^linkctl: the click-history database ${db.replace(/[.]/g, '\\.')} is corrupt \\(.+\\); nothing was written to it\\nhint: restore it from a backup`));
    expect(sha(db)).toBe(before);
  });
});

describe('processes at once', () => {
  const fx = useSandbox({ seed: { links: 3000 } });

  it('snapshots in parallel processes, and `stats show` during a snapshot: every one succeeds, nothing twice, the file intact', async () => {
    const db = freshDb();
    const env = { ...fx.env, LINKCTL_DB: db, LINKCTL_NOW: day(1) };
    // six Node processes on a small machine: a generous bound on each (the lock waits are short)
    const cli = (args: string[]) => spawnCli(args, { env, timeoutMs: 90_000 }); // processes of their own: what is tested
    const parsed = (r: Awaited<ReturnType<typeof cli>>) => {
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout);
    };
    const first = (await Promise.all([1, 2, 3].map(() => cli(['stats', 'snapshot', '--json'])))).map(parsed) as Array<{ snapshot: number; changed: number; first: boolean }>;
    // whoever was first stored every record; the others, at the same time, found nothing changed
    expect(first.map((s) => s.snapshot).sort()).toEqual([1, 2, 3]);
    expect(first.filter((s) => s.first)).toEqual([expect.objectContaining({ changed: 3004 })]); // the text and wifi codes have no totals
    expect(first.filter((s) => !s.first).map((s) => s.changed)).toEqual([0, 0]);
    await visit(fx, 'docs', 2);
    const [snap, ...shows] = await Promise.all([cli(['stats', 'snapshot', '--json']), cli(['stats', 'show', '--json']), cli(['stats', 'show', '--json'])]);
    expect(parsed(snap!)).toMatchObject({ snapshot: 4, changed: 1 });
    for (const show of shows) expect([3, 4]).toContain(parsed(show).snapshots); // before or after it: never half of it
    const Database = createRequire(import.meta.url)('libsql');
    const check = new Database(db);
    try {
      expect(check.prepare('PRAGMA integrity_check').raw().all()).toEqual([['ok']]);
      expect(check.prepare('SELECT count(*) FROM counts').raw().get()).toEqual([3005]);
    } finally {
      check.close();
    }
  }, 120_000);
});

describe('outside linkctl', () => {
  const fx = useSandbox();
  const sqlite3 = spawnSync('sqlite3', ['-version']).status === 0;

  it.skipIf(!sqlite3)('the sqlite3 shell reads the history with the README\'s query (skipped without sqlite3)', async () => {
    const db = await timeline(fx);
    const query = "SELECT taken_at, alias, clicks, clicks_change FROM click_changes WHERE kind = 'link' AND alias = 'docs' ORDER BY taken_at;";
    const r = spawnSync('sqlite3', ['-readonly', db, query], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('2025-06-01T06:00:00.000Z|docs|57|\n2025-06-02T06:00:00.000Z|docs|60|3\n2025-06-05T06:00:00.000Z|docs|64|4\n');
  });

  it('XDG_STATE_HOME: the history lives there, and a state folder kept in the config folder before is moved there whole (issue 53, 8)', async () => {
    const home = tempDir();
    try {
      const env = { HOME: home, LINKCTL_NOW: day(1) };
      expect((await runCli(['--sandbox', 'stats', 'snapshot', '-q'], { env })).code).toBe(0);
      const old = join(home, '.config', 'linkctl', 'state');
      expect(existsSync(join(old, 'history.db'))).toBe(true);
      const xdg = { ...env, XDG_STATE_HOME: join(home, 'xdg-state'), LINKCTL_NOW: day(2) };
      const second = await runCli(['--sandbox', 'stats', 'snapshot', '-q'], { env: xdg });
      expect(second.code, second.stderr).toBe(0);
      expect(existsSync(join(home, 'xdg-state', 'linkctl', 'history.db'))).toBe(true);
      expect(existsSync(old)).toBe(false);
      // Both snapshots are in the one history: the first was moved, not left behind.
      const shown = JSON.parse((await runCli(['--sandbox', 'stats', 'show', '--json'], { env: xdg })).stdout);
      expect(shown).toMatchObject({ snapshots: 2, newestSnapshot: '2025-06-02T06:00:00.000Z' });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('sandbox visits: counted as real visits (clicks, unique visitors, countries) in the state --sandbox uses', async () => {
    const config = tempDir();
    const env = { LINKCTL_CONFIG_DIR: config };
    try {
      const r = await runCli(['sandbox', 'visits', '--link', 'spring-sale', '--count', '5', '--visitors', '2', '--country', 'CA'], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('Link 2 (spring-sale): 5 visits from CA; now 17 clicks, 13 unique.\n');
      // one click is one click (issue 53, 8)
      expect((await runCli(['--sandbox', 'link', 'add', 'https://sandbox.localhost/one', '--alias', 'one-visit', '-q'], { env })).code).toBe(0);
      expect((await runCli(['sandbox', 'visits', '--link', 'one-visit', '--count', '1'], { env })).stdout).toBe('Link 3 (one-visit): 1 visit; now 1 click, 1 unique.\n');
      const link = JSON.parse((await runCli(['--sandbox', 'link', 'get', '2', '--json'], { env })).stdout);
      expect(link.data).toMatchObject({ clicks: 17, uniqueClicks: 13, topCountries: { Canada: 10, 'United States': 7 } });
      const missing = await runCli(['sandbox', 'visits', '--link', 'nope'], { env });
      expect(missing.code).toBe(4);
      expect(missing.stderr).toMatch(/^linkctl: no link "nope" in the sandbox/);
      const bad = await runCli(['sandbox', 'visits', '--link', '1', '--count', '100001'], { env });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--count must be at most 100000/);
    } finally {
      rmSync(config, { recursive: true, force: true });
    }
  });

  it('MCP: stats_show is a read-only tool without --db, and its result says when the newest snapshot was taken', async () => {
    const db = await timeline(fx);
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: cleanEnv({ ...fx.env, LINKCTL_DB: db, LINKCTL_NOW: '2025-06-05T07:00:00Z' }), stderr: 'pipe' });
    const client = new Client({ name: 'linkctl-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      const tool = tools.find((t) => t.name === 'stats_show')!;
      expect(tool.annotations?.readOnlyHint).toBe(true);
      expect(Object.keys(tool.inputSchema.properties ?? {})).not.toContain('db');
      expect(tools.map((t) => t.name)).not.toContain('stats_snapshot'); // it writes: --allow-writes
      const r = (await client.callTool({ name: 'stats_show', arguments: { since: '4d', link: ['docs'] } })) as unknown as { isError?: boolean; content: Array<{ text: string }> };
      expect(r.isError).toBeFalsy();
      const result = JSON.parse(r.content[0]!.text) as { newestSnapshot: string; series: Array<{ clicks: number }> }; // the --json output, once (no structuredContent)
      expect(result.newestSnapshot).toBe('2025-06-05T06:00:00.000Z');
      expect(result.series[0]!.clicks).toBe(7);
    } finally {
      await client.close();
    }
  });
});
