/**
 * Click history under attack (issue 29): values, clocks, titles and files that a server, a
 * second machine or a careless path control. Each case runs the built CLI against a server of
 * the test's own (test/history-server.ts: it answers whatever values the test sets), on SQLite
 * and, where the finding is about PostgreSQL, on a real PostgreSQL server (test/postgres.ts).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { History, openHistory } from '../../src/history/store.js';
import { openSqlite } from '../../src/history/sqlite.js';
import { MIGRATIONS, migrate } from '../../src/history/schema.js';
import { BIN, cleanEnv, runCli, spawnCli, tempDir, type RunResult } from '../helpers.js';
import { copyForAnotherUser } from '../other-user.js';
import { plainState, startHistoryServer, type HistoryServer } from '../history-server.js';
import { freePort, pgSkipReason, sql, startCluster, type Cluster } from '../postgres.js';
import { browser, layout, noBrowser } from '../browser.js';

const dir = tempDir('linkctl-attacks-');
chmodSync(dir, 0o755); // the read-only test runs the CLI as another user, who must reach its files
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = (ext = 'db') => join(dir, `h${++n}.${ext}`);
const day = (d: number, hour = 6) => `2025-06-${String(d).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00Z`;
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const Database = createRequire(import.meta.url)('libsql');

/** Runs one SQL statement on an SQLite file, as another tool (or an older linkctl) would. */
function sqlite(file: string, statement: string): unknown[][] {
  const db = new Database(file);
  try {
    const prepared = db.prepare(statement);
    return prepared.reader ? prepared.raw(true).all() : (prepared.run(), []);
  } finally {
    db.close();
  }
}

const servers: HistoryServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});
async function server(): Promise<HistoryServer> {
  const configDir = join(dir, `config-${++n}`);
  mkdirSync(configDir, { mode: 0o755 });
  const s = await startHistoryServer(plainState(), configDir);
  servers.push(s);
  return s;
}

function stats(s: HistoryServer, db: string) {
  // pg reads PGPASSWORD from the process's own environment: a run that gives one is a process of its own.
  return (args: string[], now?: string, env: Record<string, string> = {}) =>
    (env.PGPASSWORD ? spawnCli : runCli)(['stats', ...args], { env: { ...s.env, LINKCTL_DB: db, ...(now ? { LINKCTL_NOW: now } : {}), ...env }, timeoutMs: 60_000 });
}

const ok = (r: RunResult) => {
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).not.toMatch(/unexpected|internal|\n\s+at /);
  return r;
};

async function mcpCall(env: Record<string, string>, tool: string, args: Record<string, unknown>) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: cleanEnv(env), stderr: 'pipe' });
  const client = new Client({ name: 'linkctl-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    return (await client.callTool({ name: tool, arguments: args })) as { isError?: boolean; content: Array<{ text: string }>; structuredContent?: Record<string, any> };
  } finally {
    await client.close();
  }
}

describe('values are data, checked at the door', () => {
  it('a negative, a "-20" and a fractional total are refused for their records and said; the history stays readable, also where an older linkctl stored -1', async () => {
    const s = await server();
    const db = fresh();
    const run = stats(s, db);
    ok(await run(['snapshot', '-q'], day(1)));
    s.state.links[0]!.clicks = -1;
    s.state.links[1]!.clicks = '-20';
    s.state.qrs[0]!.scans = 1.5;
    const bad = ok(await run(['snapshot'], day(2)));
    expect(bad.stdout).toMatch(/^Snapshot 2 at 2025-06-02T06:00:00\.000Z: 2 links, 1 QR code, 1 campaign; 0 records changed since the previous snapshot; 3 records refused \(totals not counts\) \(/);
    expect(bad.stderr).toContain('warning: the server sent values that are not counts (negative, fractional, huge or not a number): the totals of 3 records (kept as they were) not stored, e.g. link 1 clicks -1; link 2 clicks "-20"; QR code 1 scans 1.5');
    // the server counts normally again
    s.state.links[0]!.clicks = '13';
    s.state.links[1]!.clicks = '7';
    s.state.qrs[0]!.scans = '4';
    ok(await run(['snapshot', '-q'], day(3)));
    const show = JSON.parse(ok(await run(['show', '--since', '2d', '--json'], day(3, 7))).stdout);
    expect(show.series.map((x: { series: string; clicks: number; resets: number }) => [x.series, x.clicks, x.resets])).toEqual([['links', 5, 0], ['qrs', 1, 0]]);
    ok(await run(['top', '--since', '2d', '--json'], day(3, 7)));
    ok(await run(['report', '--since', '2d', '--html', fresh('html')], day(3, 7)));

    // A value an older linkctl stored raw (it kept "-20" as -20): left out, said, never a crash.
    sqlite(db, "UPDATE counts SET clicks = -20 WHERE snapshot_id = 3 AND item_id = (SELECT id FROM items WHERE alias = 'spring')");
    const old = ok(await run(['show', '--since', '2d', '--json'], day(3, 7)));
    expect(JSON.parse(old.stdout).series[0]).toMatchObject({ series: 'links', clicks: 3, resets: 0 }); // docs' 3; spring's change left out
    expect(old.stderr).toContain('note: the history holds 1 stored value that is not a count (negative or fractional, stored by an older linkctl): left out');
    for (const args of [['top', '--since', '2d'], ['report', '--since', '2d', '--html', '-']]) ok(await run(args, day(3, 7)));
    const mcp = await mcpCall({ ...s.env, LINKCTL_DB: db, LINKCTL_NOW: day(3, 7) }, 'stats_show', { since: '2d' });
    expect(mcp.isError, mcp.content[0]?.text).toBeFalsy();
    expect(JSON.parse(mcp.content[0]!.text).series[0].clicks).toBe(3); // the tool's one payload: the --json output as text
  }, 120_000);
});

describe('time is the read\'s time', () => {
  it('a snapshot whose reads finished before another one stored meanwhile is refused, never stored as a reset', async () => {
    const s = await server();
    const db = fresh();
    const env = { ...s.env, LINKCTL_DB: db }; // the real clock: the order is the processes' own
    ok(await runCli(['stats', 'snapshot', '-q'], { env }));
    s.state.links[0]!.clicks = '11'; // what process A reads
    const writer = await openHistory({ env: {} }, { db, write: true }); // process B, in this test
    const reads = () => s.requests.filter((r) => r === 'GET /api/campaigns').length;
    let a: Promise<RunResult> | undefined;
    try {
      await writer.db.write(async () => {
        // B holds the writers' lock: A reads the server, then waits for the lock
        a = spawnCli(['stats', 'snapshot', '--json'], { env, timeoutMs: 90_000 }); // process A: another process than this test's writer B
        while (reads() < 2) await sleep(20);
        await sleep(3000); // A's reads are done: its snapshot's time is before B's
        // B read later (the link has 12 by then) and writes first
        const records = [
          { kind: 'link' as const, id: 1, alias: 'docs', label: 'Docs', clicks: 12, uniqueClicks: 8, campaign: 1 },
          { kind: 'link' as const, id: 2, alias: 'spring', label: 'Spring sale', clicks: 5, uniqueClicks: 5 },
          { kind: 'qr' as const, id: 1, alias: 'Menu', label: 'Menu', clicks: 3 },
          { kind: 'campaign' as const, id: 1, alias: 'Launch', label: 'Launch', clicks: 4 },
        ];
        await writer.snapshot({ source: { baseUrl: s.url, account: '7', name: 'team' }, records, at: Date.now() });
        await sleep(1000); // and lets go of the lock only after A has been waiting for it
      });
    } finally {
      await writer.close();
    }
    const late = await a!;
    expect(late.code).toBe(2);
    expect(late.stderr).toMatch(/^linkctl: this snapshot's reads finished at \S+, before those of snapshot 2 \(\S+\), stored meanwhile: snapshots are kept in the order their reads finished, so this one was not stored/);
    s.state.links[0]!.clicks = '13';
    ok(await runCli(['stats', 'snapshot', '-q'], { env }));
    const show = JSON.parse(ok(await runCli(['stats', 'show', '--since', '2d', '--link', 'docs', '--json'], { env })).stdout);
    expect(show.series[0]).toMatchObject({ clicks: 3, resets: 0 }); // 10 -> 12 -> 13: no reset invented
    expect(show.snapshots).toBe(3);
  }, 120_000);

  it('a snapshot dated ahead of the server\'s clock is refused; one stored in the future by an older linkctl blocks with a hint, and `stats forget` removes it', async () => {
    const s = await server();
    const db = fresh();
    const run = stats(s, db);
    const ahead = await run(['snapshot'], new Date(Date.now() + 86_400_000).toISOString());
    expect(ahead.code).toBe(2);
    expect(ahead.stderr).toMatch(/^linkctl: this snapshot would be dated \S+, 24 hours ahead of the server's clock \(its answers are dated \S+\) \(more than the 5 minutes of skew allowed\); nothing was stored\nhint: set this machine's clock right/);
    expect(sqlite(db, 'SELECT count(*) FROM snapshots')).toEqual([[0]]);

    ok(await run(['snapshot', '-q']));
    sqlite(db, "UPDATE snapshots SET taken_at = '2099-01-01T00:00:00.000Z' WHERE id = 1"); // a machine whose clock was wrong
    const blocked = await run(['snapshot']);
    expect(blocked.code).toBe(2);
    expect(blocked.stderr).toMatch(/^linkctl: snapshot 1 of this account is dated 2099-01-01T00:00:00\.000Z, in the future: .*nothing was stored\nhint: if its date is wrong, `linkctl stats forget --snapshot 1` removes it\n$/);
    const unasked = await run(['forget', '--snapshot', '1']);
    expect(unasked.code).toBe(2);
    expect(unasked.stderr).toMatch(/refusing without a terminal to confirm; pass --yes/);
    const forgot = ok(await run(['forget', '--snapshot', '1', '--yes']));
    expect(forgot.stdout).toMatch(/^Forgot snapshot 1 of http:\/\/127\.0\.0\.1:\d+ \(account team\), dated 2099-01-01T00:00:00\.000Z: 4 stored totals \(0 of them kept for the next snapshot/);
    expect(JSON.parse(ok(await run(['snapshot', '--json'])).stdout)).toMatchObject({ first: true, changed: 4 });
    expect((await run(['forget', '--snapshot', '99', '--yes'])).code).toBe(4);
  }, 120_000);

  it('forgetting a snapshot keeps the totals the next one did not store again', async () => {
    const s = await server();
    const db = fresh();
    const run = stats(s, db);
    ok(await run(['snapshot', '-q'], day(1))); // docs 10
    s.state.links[0]!.clicks = '12';
    ok(await run(['snapshot', '-q'], day(2))); // docs 12: stored
    ok(await run(['snapshot', '-q'], day(3))); // docs 12: nothing stored, it has not changed
    s.state.links[0]!.clicks = '15';
    ok(await run(['snapshot', '-q'], day(4)));
    expect(ok(await run(['forget', '--snapshot', '2', '--yes'])).stdout).toMatch(/: 1 stored total \(1 of them kept for the next snapshot/);
    const show = JSON.parse(ok(await run(['show', '--since', '3d', '--link', 'docs', '--json'], day(4, 7))).stdout);
    expect(show.series[0].clicks).toBe(5);
    expect(show.points.at(-1)).toMatchObject({ period: '2025-06-04', clicks: 3 }); // 12 -> 15, not 10 -> 15
  }, 60_000);
});

describe('readers only read', () => {
  it('show, top, report and the MCP tools read an older database as it is, never migrating it; `stats migrate` does; a read-only file in a read-only folder is readable', async () => {
    const s = await server();
    const db = fresh();
    // a history written by the linkctl before link health (schema version 1 only)
    const older = new History(await openSqlite(db, true), () => 0);
    try {
      await migrate(older.db, MIGRATIONS.filter((m) => m.version < 20));
      const source = { baseUrl: s.url, account: '7', name: 'team' };
      const record = (clicks: number) => [{ kind: 'link' as const, id: 1, alias: 'docs', clicks, uniqueClicks: clicks }];
      await older.snapshot({ source, records: record(10), at: Date.parse(day(1)) });
      await older.snapshot({ source, records: record(14), at: Date.parse(day(2)) });
    } finally {
      await older.close();
    }
    const before = sha(db);
    const run = stats(s, db);
    expect(JSON.parse(ok(await run(['show', '--since', '1d', '--json'], day(2, 7))).stdout).series[0].clicks).toBe(4);
    ok(await run(['top', '--since', '1d'], day(2, 7)));
    ok(await run(['report', '--since', '1d', '--html', fresh('html')], day(2, 7)));
    for (const tool of ['stats_show', 'stats_top']) {
      const r = await mcpCall({ ...s.env, LINKCTL_DB: db, LINKCTL_NOW: day(2, 7) }, tool, { since: '1d' });
      expect(r.isError, r.content[0]?.text).toBeFalsy();
    }
    expect(sha(db)).toBe(before);
    expect(sqlite(db, 'SELECT version FROM schema_migrations')).toEqual([[1]]);

    // a copy, read-only, in a read-only folder (as another user when the tests run as root, who may
    // write anyway). That user may not enter this checkout or the test's own temporary folder: it
    // runs a copy of the CLI from a folder it can enter, and the database is there too.
    const other = copyForAnotherUser();
    const folder = join(other.dir, `readonly-${++n}`);
    mkdirSync(folder);
    copyFileSync(db, join(folder, 'history.db'));
    chmodSync(join(folder, 'history.db'), 0o444);
    chmodSync(folder, 0o555);
    try {
      const asUser = process.getuid?.() === 0 ? ['runuser', '-u', 'nobody', '--'] : [];
      const r = await new Promise<RunResult>((resolve, reject) => {
        const argv = [...asUser, process.execPath, other.bin, 'stats', 'show', '--since', '1d', '--json'];
        const child = spawn(argv[0]!, argv.slice(1), { env: cleanEnv({ ...s.env, LINKCTL_CONFIG_DIR: join(folder, 'no-config'), LINKCTL_DB: join(folder, 'history.db'), LINKCTL_NOW: day(2, 7) }) });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
        child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
      expect(JSON.parse(ok(r).stdout).series[0].clicks).toBe(4);
    } finally {
      chmodSync(folder, 0o755);
      rmSync(other.dir, { recursive: true, force: true });
    }

    const migrated = ok(await run(['migrate']));
    expect(migrated.stdout).toBe(`Migrated ${db}: applied schema versions 20, 21, 22, 23, 24, 25.\n`);
    expect(ok(await run(['migrate'])).stdout).toBe(`${db} is up to date.\n`);
    expect(sqlite(db, 'SELECT version FROM schema_migrations ORDER BY version')).toEqual([[1], [20], [21], [22], [23], [24], [25]]);
  }, 120_000);
});

describe('files and pages', () => {
  it('a --db under /proc fails at once, naming it; nothing is sent', async () => {
    const s = await server();
    for (const [args, message] of [
      [['snapshot', '--db', '/proc/self/linkctl/history.db'], /^linkctl: cannot create the click-history database \/proc\/self\/linkctl\/history\.db: \/proc\/self is on the kernel's proc file system, which holds no databases\n/],
      [['show', '--db', '/proc/self/status'], /^linkctl: the click-history database \/proc\/self\/status is on the kernel's proc file system, which holds no databases\n/],
      [['show', '--db', '/dev/null'], /^linkctl: the click-history database \/dev\/null is not a regular file \(a device, pipe or socket\)\n/],
    ] as const) {
      const r = await runCli(['stats', ...args], { env: s.env, timeoutMs: 30_000 });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(7);
      expect(r.stderr).toMatch(message);
    }
    expect(s.requests).toEqual([]);
  }, 60_000);

  it.skipIf(!browser)(`the report isolates bidi controls and cuts a 200,000-character alias, which no longer widens the page${browser ? '' : ` (skipped: ${noBrowser})`}`, async () => {
    const s = await server();
    s.state.links[0]!.title = '\u202eevil title, reversed';
    s.state.links[1]!.alias = 'a'.repeat(200_000);
    const db = fresh();
    const run = stats(s, db);
    ok(await run(['snapshot', '-q'], day(1)));
    s.state.links[0]!.clicks = '20';
    s.state.links[1]!.clicks = '9';
    ok(await run(['snapshot', '-q'], day(2)));
    const file = fresh('html');
    ok(await run(['report', '--since', '1d', '--top', '2', '--html', file], day(2, 7)));
    const html = readFileSync(file, 'utf8');
    // every bidi override sits inside its own isolate; the long alias is cut, whole in its tooltip
    const outside = html.replace(/<bdi\b[^>]*>[^<]*<\/bdi>/g, '');
    expect(html).toContain('\u202e');
    expect(outside).not.toContain('\u202e');
    expect(html).toMatch(/<bdi class="name" title="a{2000}…">a{79}…<\/bdi>/);
    const phone = await layout(file, 390, 'h2');
    expect(phone.scrollWidth).toBeLessThanOrEqual(phone.clientWidth);
    const desk = await layout(file, 1280, 'h2');
    expect(desk.scrollWidth).toBeLessThanOrEqual(desk.clientWidth);
  }, 120_000);
});

describe.skipIf(pgSkipReason)(`PostgreSQL${pgSkipReason ? ` (skipped: ${pgSkipReason})` : ''}`, () => {
  let cluster: Cluster | undefined;
  let scram: Cluster | undefined;
  beforeAll(async () => {
    cluster = await startCluster();
    scram = await startCluster({ password: 'team-pw-0123' });
  }, 180_000);
  afterAll(() => {
    cluster?.stop();
    scram?.stop();
  });
  let databases = 0;
  const database = async () => {
    const name = `attacks${++databases}`;
    await sql(cluster!.url, `CREATE DATABASE ${name}`);
    return cluster!.url.replace(/\/postgres$/, `/${name}`);
  };

  it('NUL in a title, alias or name and non-integer --details counts: stored, made safe and said, in PostgreSQL as in SQLite', async () => {
    const s = await server();
    s.state.account.username = 'team\u0000';
    s.state.links[0]!.title = 'Docs\u0000 from the destination page';
    s.state.links[1]!.alias = 'spring\ud800';
    s.state.qrs[0]!.name = 'Menu\u0000';
    s.state.campaigns[0]!.name = 'Launch\u0000';
    s.state.stats[1] = { clicks: 10, topCountries: { Canada: 1.5, Germany: '1e300', France: 3 }, topReferrers: { 'https://news.example.invalid/\u0000': 2 }, topBrowsers: {}, topOs: {} };
    for (const db of [await database(), fresh()]) {
      const run = stats(s, db);
      const r = ok(await run(['snapshot', '--details', '2'], day(1)));
      expect(r.stderr).toMatch(/warning: the server sent values that are not counts .*: 2 names of --details lists not stored, e\.g\. link 1 countries "Canada" 1\.5; link 1 countries "Germany" "1e300"/);
      expect(r.stderr).toMatch(/note: 8 texts from the server held NUL or broken characters, stored with \ufffd in their place/);
      s.state.links[0]!.clicks = '12';
      ok(await run(['snapshot', '-q', '--details', '2'], day(2)));
      const show = JSON.parse(ok(await run(['show', '--since', '1d', '--json'], day(2, 7))).stdout);
      expect(show.series[0].clicks).toBe(2);
      expect(show.account.name).toBe('team\ufffd');
      s.state.links[0]!.clicks = '10';
    }
  }, 120_000);

  it('two snapshots at once in PostgreSQL: the one whose reads finished first and that writes last is refused, never a reset', async () => {
    const s = await server();
    const db = await database();
    const env = { ...s.env, LINKCTL_DB: db };
    ok(await runCli(['stats', 'snapshot', '-q'], { env }));
    s.state.links[0]!.clicks = '11';
    const writer = await openHistory({ env: {} }, { db, write: true });
    let a: Promise<RunResult> | undefined;
    try {
      await writer.db.write(async () => {
        a = runCli(['stats', 'snapshot'], { env, timeoutMs: 90_000 });
        while (s.requests.filter((r) => r === 'GET /api/campaigns').length < 2) await sleep(20);
        await sleep(3000);
        await writer.snapshot({ source: { baseUrl: s.url, account: '7', name: 'team' }, records: [{ kind: 'link', id: 1, alias: 'docs', clicks: 12, uniqueClicks: 8 }], complete: false, at: Date.now() });
        await sleep(1000);
      });
    } finally {
      await writer.close();
    }
    const late = await a!;
    expect(late.code).toBe(2);
    expect(late.stderr).toMatch(/before those of snapshot 2 .* so this one was not stored/);
  }, 120_000);

  it('a password in ?password= is never shown: not in the success line, --json\'s db or an error', async () => {
    const s = await server();
    const url = `${await database()}?password=s3cret-pw-4242&application_name=x`;
    const r = ok(await stats(s, url)(['snapshot']));
    expect(r.stdout).toMatch(/\(postgres:\/\/linkctl@127\.0\.0\.1:\d+\/attacks\d+\?password=\*\*\*&application_name=x\)\n$/);
    const json = ok(await stats(s, url)(['snapshot', '--json']));
    expect(JSON.parse(json.stdout).db).toMatch(/\?password=\*\*\*&/);
    const closed = await freePort();
    const away = await stats(s, `postgres://linkctl:other-pw-777@127.0.0.1:${closed}/x?sslpassword=s3cret-pw-4242`)(['show']);
    expect(away.code).toBe(6);
    expect(away.stderr).toMatch(/sslpassword=\*\*\*/);
    for (const out of [r, json, away]) expect(out.stdout + out.stderr).not.toMatch(/s3cret-pw-4242|other-pw-777/);
  }, 60_000);

  it('no password for a server that asks for one: exit 7 at once, saying so; a malformed URL is exit 2 naming --db', async () => {
    const s = await server();
    const url = scram!.url;
    const started = Date.now();
    const none = await stats(s, url)(['show']);
    expect(none.code).toBe(7);
    expect(none.stderr).toMatch(/^linkctl: cannot use the click-history database postgres:\/\/\S+@127\.0\.0\.1:\d+\/postgres: the server asks for a password and none was given\nhint: put it in PGPASSWORD \(or ~\/\.pgpass, or in the URL as user:password@host\)\n$/);
    // the server would wait a minute (authentication_timeout) for an answer that never comes
    expect(Date.now() - started).toBeLessThan(45_000);
    const wrong = await stats(s, url)(['show'], undefined, { PGPASSWORD: 'not-it' });
    expect(wrong.code).toBe(7);
    expect(wrong.stderr).toMatch(/password authentication failed for user "linkctl"/);
    ok(await stats(s, url)(['snapshot', '-q'], undefined, { PGPASSWORD: 'team-pw-0123' }));

    const bad = await runCli(['stats', 'show', '--db', 'postgres://linkctl:pw@[oops/db'], { env: s.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('linkctl: --db is not a PostgreSQL URL that can be read (postgres://(a URL that does not parse))\nhint: e.g. postgres://db.example.com:5432/marketing, with the user and password in PGUSER and PGPASSWORD (or in the URL as user:password@host)\n');
    const fromEnv = await runCli(['stats', 'show'], { env: { ...s.env, LINKCTL_DB: 'postgres://linkctl:pw@[oops/db' } });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toMatch(/^linkctl: LINKCTL_DB is not a PostgreSQL URL/);
  }, 120_000);
});
