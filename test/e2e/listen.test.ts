/**
 * `linkctl listen` as a user meets it: the built CLI receiving the webhooks the sandbox posts
 * as the product 7.7 does (test/fixtures/product-7.7/webhooks.json), the door's refusals, a
 * `kill -9` in a burst, signed forwarding to a target that fails, and `stats` counting the
 * events with and without snapshots, never twice.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, tempDir, useSandbox } from '../helpers.js';
import { openHistory } from '../../src/history/store.js';
import { pgSkipReason, sql, startCluster, type Cluster } from '../postgres.js';

const dir = tempDir('linkctl-listen-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let dbs = 0;
const freshDb = () => join(dir, `history-${++dbs}.db`);
const fixture = JSON.parse(readFileSync(new URL('../fixtures/product-7.7/webhooks.json', import.meta.url), 'utf8')) as { received: Array<{ path: string; headers: Record<string, string>; body: string }> };

interface Listening {
  child: ChildProcess;
  created: string;
  visits: string;
  port: number;
  stdout: () => string;
  stderr: () => string;
  lines: () => Array<Record<string, unknown>>;
  stop: () => Promise<void>;
}

const running: Listening[] = [];
afterEach(async () => {
  for (const l of running.splice(0)) await l.stop();
});

/** Starts the built `linkctl listen` and waits for the two URLs it prints. */
function listen(args: string[], env: Record<string, string>): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'listen', ...args], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`listen did not start: ${err}`)), 30_000);
    child.stdout!.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr!.setEncoding('utf8').on('data', (d) => {
      err += d;
      // each URL alone on an indented line (the first for new links, the second for visits)
      const created = /^ {2}(http\S+\/created)$/m.exec(err)?.[1];
      const visits = /^ {2}(http\S+\/visits)$/m.exec(err)?.[1];
      if (created && visits) {
        clearTimeout(timer);
        const l: Listening = {
          child, created, visits, port: Number(new URL(created).port),
          stdout: () => out, stderr: () => err,
          lines: () => out.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>),
          stop: () => new Promise((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
        };
        running.push(l);
        resolve(l);
      }
    });
    child.once('exit', (code) => reject(new Error(`listen exited ${code}: ${err}`)));
  });
}

const until = async (what: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
};

/** A raw POST (fetch would add a User-Agent and refuse some bodies); the status, or undefined when the connection died. */
function post(url: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
      res.on('error', () => resolve(undefined));
    });
    req.on('error', () => resolve(undefined));
    req.end(body);
  });
}

async function eventRows(db: string): Promise<Array<{ id: string; kind: string; alias: string }>> {
  const history = await openHistory({ env: {} }, { db });
  try {
    return (await history.db.all('SELECT event_id, kind, alias FROM events ORDER BY id')).map((r) => ({ id: String(r[0]), kind: String(r[1]), alias: String(r[2]) }));
  } finally {
    await history.close();
  }
}

describe('linkctl listen', () => {
  const fx = useSandbox();
  const setHooks = (l: Listening | { created: string | null; visits: string | null }) =>
    fetch(`${fx.sandbox.url}/__sandbox/webhooks`, { method: 'POST', headers: { Authorization: `Bearer ${fx.sandbox.key}` }, body: JSON.stringify({ created: l.created, visits: l.visits }) });

  it('the sandbox posts the product 7.7\'s exact webhooks: headers, keys, both date formats, no User-Agent, none for a crawler', async () => {
    const got: Array<{ path: string; headers: IncomingHttpHeaders; body: string }> = [];
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d)).on('end', () => {
        got.push({ path: req.url!, headers: req.headers, body });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect((await setHooks({ created: `${base}/created`, visits: `${base}/clicked` })).status).toBe(200);
      const add = await runCli(['link', 'add', 'http://127.0.0.1:8091/index.html', '--alias', 'hooked'], { env: fx.env });
      expect(add.code, add.stderr).toBe(0);
      const r = await fetch(`${fx.sandbox.url}/hooked`, { redirect: 'manual', headers: { 'User-Agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:120.0) Gecko/20100101 Firefox/120.0', Referer: 'https://news.invalid/post' } });
      expect(r.status).toBe(301);
      const bot = await fetch(`${fx.sandbox.url}/hooked`, { redirect: 'manual', headers: { 'User-Agent': 'Mozilla/5.0 (compatible; Googlebot/2.1)' } });
      expect(bot.status).toBe(301);
      expect(got.map((g) => g.path)).toEqual(['/created', '/clicked']);
      for (const [i, g] of got.entries()) {
        const want = fixture.received[i]!;
        expect(g.headers['user-agent']).toBeUndefined();
        expect(g.headers['content-type']).toBe(want.headers['content-type']);
        expect(g.headers.accept).toBe(want.headers.accept);
        const body = JSON.parse(g.body) as Record<string, unknown>;
        const wanted = JSON.parse(want.body) as Record<string, unknown>;
        expect(Object.keys(body)).toEqual(Object.keys(wanted));
        expect(g.body).toContain('\\/'); // slashes escaped as PHP writes them
        expect(body.shorturl).toBe(`${fx.sandbox.url}/hooked`);
      }
      expect(JSON.parse(got[0]!.body).date).toMatch(/^\d\d-\d\d-\d{4} \d\d:\d\d:\d\d$/);
      const visit = JSON.parse(got[1]!.body) as Record<string, unknown>;
      expect(visit).toMatchObject({ type: 'view', referer: 'https://news.invalid/post', browser: 'Firefox', os: 'Windows 10/11', city: null });
      expect(visit.date).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    } finally {
      server.close();
    }
  });

  it('a create and visits are events (--json), a crawler none; stats counts them with no snapshot; the same URLs after a restart', async () => {
    const db = freshDb();
    const env = { ...fx.env, LINKCTL_DB: db };
    const l = await listen(['--port', '0', '--json'], env);
    expect(l.stderr()).toContain('Tools, Integrations');
    expect(l.stderr()).not.toContain(fx.sandbox.key);
    expect(l.created).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[A-Za-z0-9_-]{43}\/created$/);
    await setHooks(l);
    expect((await runCli(['link', 'add', 'https://example.com/a', '--alias', 'live'], { env })).code).toBe(0);
    for (const [ua, referer] of [['Mozilla/5.0 (Windows NT 10.0) Firefox/120.0', 'https://news.invalid/a'], ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Safari/604.1', ''], ['Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0 Safari/537.36', 'https://social.invalid/']]) {
      const r = await fetch(`${fx.sandbox.url}/live?country=CA`, { redirect: 'manual', headers: { 'User-Agent': ua!, ...(referer ? { Referer: referer } : {}) } });
      expect(r.status).toBe(301);
    }
    await fetch(`${fx.sandbox.url}/live`, { redirect: 'manual', headers: { 'User-Agent': 'Googlebot/2.1 (+http://www.google.com/bot.html)' } });
    await until(() => l.lines().length >= 4);
    const lines = l.lines();
    expect(lines.map((e) => e.type)).toEqual(['link.created', 'link.clicked', 'link.clicked', 'link.clicked']);
    expect(new Set(lines.map((e) => e.id)).size).toBe(4);
    expect(lines[0]).toMatchObject({ alias: 'live', shortUrl: `${fx.sandbox.url}/live`, longUrl: 'https://example.com/a' });
    expect(lines.slice(1).map((e) => [e.country, e.referrer, e.os, e.browser])).toEqual([
      ['Canada', 'https://news.invalid/a', 'Windows 10/11', 'Firefox'],
      ['Canada', null, 'IPhone', 'Safari'],
      ['Canada', 'https://social.invalid/', 'Linux', 'Chrome'],
    ]);
    for (const e of lines) {
      expect(String(e.at)).toMatch(/Z$/);
      expect(Math.abs(Date.parse(String(e.at)) - Date.now())).toBeLessThan(60_000); // the server's time zone taken off
    }

    // no snapshot at all: stats counts the three visits, exactly, and says they are events
    const top = await runCli(['stats', 'top', '--since', '1d', '--json'], { env });
    expect(top.code, top.stderr).toBe(0);
    const ranking = JSON.parse(top.stdout);
    expect(ranking.snapshots).toBe(0);
    expect(ranking.links.map((r: { alias: string; clicks: number }) => [r.alias, r.clicks])).toEqual([['live', 3]]);
    expect(ranking.note).toContain('live events');
    const hours = await runCli(['stats', 'show', '--link', 'live', '--since', '3h', '--by', 'hour', '--breakdown', 'browsers', '--json'], { env });
    expect(hours.code, hours.stderr).toBe(0);
    const names = JSON.parse(hours.stdout).series.map((s: { label: string; clicks: number }) => [s.label, s.clicks]).sort();
    expect(names).toEqual([['Chrome', 1], ['Firefox', 1], ['Safari', 1]]);
    // the export of a history of events only starts at its first day ("more than 10,000 periods" before), and counts them (issue 50)
    const out = join(dir, `export-${dbs}`);
    const exported = await runCli(['stats', 'export', '--out', out, '--format', 'csv', '--no-channels', '--json'], { env });
    expect(exported.code, exported.stderr).toBe(0);
    expect(Object.fromEntries(JSON.parse(exported.stdout).tables.map((t: { table: string; total: number }) => [t.table, t.total]))).toEqual({ link_clicks: 3, qr_scans: 0, visits: 3 });

    // a first snapshot now adopts the link listen met first (by alias): still 3, not 3 + its total
    expect((await runCli(['stats', 'snapshot', '-q'], { env })).code).toBe(0);
    const after = JSON.parse((await runCli(['stats', 'top', '--since', '1d', '--json'], { env })).stdout);
    expect(after.links.map((r: { alias: string; clicks: number }) => [r.alias, r.clicks])).toEqual([['live', 3]]);
    const history = await openHistory({ env: {} }, { db });
    expect(await history.db.all("SELECT count(*) FROM items WHERE alias = 'live'")).toEqual([[1]]);
    await history.close();

    // a restart on the same state: the same URLs
    await l.stop();
    const again = await listen(['--port', String(l.port), '--json'], env);
    expect([again.created, again.visits]).toEqual([l.created, l.visits]);
  });

  it('at the door: a forged secret 404, a body over 64 KB 413, broken JSON or the wrong shape 400, GET 405; none is an event; control characters are shown escaped', async () => {
    const db = freshDb();
    const l = await listen(['--port', '0'], { ...fx.env, LINKCTL_DB: db });
    const good = fixture.received[1]!.body.replace('{BASE}', 'https:\\/\\/s.invalid');
    const forged = l.visits.replace(/\/[^/]+\/visits$/, `/${'A'.repeat(43)}/visits`);
    expect(await post(forged, good)).toBe(404);
    expect(await post(l.visits.replace(/\/visits$/, ''), good)).toBe(404);
    expect(await post(l.visits, Buffer.alloc(65 * 1024, 'a'))).toBe(413);
    expect(await post(l.visits, '{"type":"view",')).toBe(400);
    expect(await post(l.visits, JSON.stringify({ type: 'url', shorturl: 'https://s.invalid/x', date: '2026-11-28 15:03:20' }))).toBe(400); // a create's shape at the visits URL
    expect(await post(l.visits, JSON.stringify({ type: 'view', shorturl: 42, date: '2026-11-28 15:03:20' }))).toBe(400);
    expect(await post(l.visits, JSON.stringify({ type: 'view', shorturl: 'https://s.invalid/x', date: 'yesterday' }))).toBe(400);
    expect((await fetch(l.visits)).status).toBe(405);
    expect(await eventRows(db)).toEqual([]);

    const hostile = JSON.stringify({ type: 'view', shorturl: 'https://s.invalid/x', country: null, city: null, referer: null, os: null, browser: 'F\u001b]0;x\u0007\u202e', date: '2026-11-28 15:03:20' });
    expect(await post(l.visits, hostile)).toBe(200);
    await until(() => l.stdout().includes('direct'));
    expect(l.stdout()).toContain('F\\x1b]0;x\\x07\\u202e');
    expect(l.stdout()).not.toMatch(/[\u001b\u0007\u202e]/);
    expect((await eventRows(db)).length).toBe(1);
  });

  it('kill -9 in a burst: every event answered 2xx is stored exactly once after a restart', async () => {
    const db = freshDb();
    const env = { ...fx.env, LINKCTL_DB: db };
    const l = await listen(['--port', '0'], env);
    const acknowledged: string[] = [];
    const body = (i: number) => JSON.stringify({ type: 'view', shorturl: `https://s.invalid/k${i % 7}`, country: null, city: null, referer: null, os: 'Linux', browser: `b${i}`, date: new Date().toISOString().slice(0, 19).replace('T', ' ') });
    let next = 0;
    let refused = 0;
    const sender = async () => {
      while (next < 400) {
        const i = next++;
        const status = await post(l.visits, body(i));
        if (status === 200) acknowledged.push(`b${i}`);
        else refused++;
      }
    };
    const senders = Array.from({ length: 10 }, sender);
    await until(() => acknowledged.length >= 60);
    l.child.kill('SIGKILL');
    await Promise.all(senders);
    expect(acknowledged.length).toBeGreaterThanOrEqual(60);
    expect(refused).toBeGreaterThan(0); // the kill came mid-burst

    const again = await listen(['--port', String(l.port)], env);
    expect(again.visits).toBe(l.visits);
    const history = await openHistory({ env: {} }, { db });
    const rows = (await history.db.all("SELECT browser, event_id FROM events WHERE kind = 'link.clicked'")).map((r) => String(r[0]));
    const ids = (await history.db.all('SELECT event_id FROM events')).map((r) => String(r[0]));
    await history.close();
    for (const b of acknowledged) expect(rows.filter((r) => r === b)).toHaveLength(1);
    expect(new Set(rows).size).toBe(rows.length); // none twice
    expect(new Set(ids).size).toBe(ids.length);
  });

  // Issue 52: the 2xx waits for the journal's sync (src/listen/journal.ts), the history's insert
  // comes after. A listen killed between the two leaves its journal: the next start stores it.
  it('the journal a killed listen left is stored at the next start, before the door opens, and removed', async () => {
    const db = freshDb();
    const env = { ...fx.env, LINKCTL_DB: db };
    const journal = join(`${db}-listen`, '1'); // the account's folder: the first source of a new history
    mkdirSync(journal, { recursive: true });
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.once('exit', r));
    const event = (i: number) => ({ type: 'link.clicked', id: `evt_left${i}`, at: new Date().toISOString(), receivedAt: new Date().toISOString(), shortUrl: 'https://s.invalid/left', alias: 'left', longUrl: null, country: null, city: null, referrer: null, os: null, browser: `left${i}` });
    const name = `${hostname().replace(/[^A-Za-z0-9.-]/g, '_')}~${dead.pid}~abcdef~0.jsonl`;
    // the last line cut off by the crash: its sync never returned, so it was never answered
    writeFileSync(join(journal, name), `${JSON.stringify(event(1))}\n${JSON.stringify(event(2))}\n{"type":"link.cli`);
    const l = await listen(['--port', '0'], env);
    expect(l.stderr()).toContain('stored 2 events that a listen which stopped had answered');
    expect((await eventRows(db)).map((e) => e.id)).toEqual(['evt_left1', 'evt_left2']);
    expect(readdirSync(journal)).not.toContain(name);
    await l.stop();
    expect(readdirSync(journal)).toEqual([]); // a clean stop leaves no journal
  });

  // Issue 50, item 1: the door warmed up on the real port with the real secret, and answered the
  // product's posts that came in that window 200 without storing them (730 answered, 722 stored).
  it('restarted under load (senders posting to the same URLs across two restarts): every post answered 200 is stored', async () => {
    const db = freshDb();
    const env = { ...fx.env, LINKCTL_DB: db };
    let l = await listen(['--port', '0'], env);
    const port = l.port;
    const acknowledged: string[] = [];
    let stop = false;
    let n = 0;
    const body = (mark: string) => JSON.stringify({ type: 'view', shorturl: 'https://s.invalid/r', country: null, city: null, referer: null, os: 'Linux', browser: mark, date: new Date().toISOString().slice(0, 19).replace('T', ' ') });
    const sender = async (s: number) => {
      while (!stop) {
        const mark = `s${s}-${n++}`;
        const status = await post(l.visits, body(mark));
        if (status === 200) acknowledged.push(mark);
        else await new Promise((r) => setTimeout(r, 2)); // the port is closed between the two processes
      }
    };
    const senders = Array.from({ length: 8 }, (_, s) => sender(s));
    for (let restart = 0; restart < 2; restart++) {
      const before = acknowledged.length;
      await until(() => acknowledged.length >= before + 40);
      await l.stop();
      l = await listen(['--port', String(port)], env);
    }
    const before = acknowledged.length;
    await until(() => acknowledged.length >= before + 40);
    stop = true;
    await Promise.all(senders);
    await l.stop();
    const history = await openHistory({ env: {} }, { db });
    const stored = new Set((await history.db.all('SELECT browser FROM events')).map((r) => String(r[0])));
    await history.close();
    const lost = acknowledged.filter((mark) => !stored.has(mark));
    expect(lost, `${lost.length} of ${acknowledged.length} answered 200 were not stored`).toEqual([]);
  }, 60_000);

  it('--forward-to: each event POSTed in order, signed, retried after a failure until taken, carrying its id', async () => {
    const secret = 'whsec-test-0123456789abcdef';
    const got: Array<{ signature: string; body: string; status: number }> = [];
    let fail = 1;
    const target = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d)).on('end', () => {
        const status = fail-- > 0 ? 500 : 200;
        got.push({ signature: String(req.headers['linkctl-signature']), body, status });
        res.statusCode = status;
        res.end();
      });
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/hook`;
    try {
      const l = await listen(['--port', '0', '--json', '--forward-to', url], { ...fx.env, LINKCTL_DB: freshDb(), LINKCTL_LISTEN_SECRET: secret });
      expect(l.stderr()).not.toContain(secret);
      await setHooks(l);
      for (let i = 0; i < 3; i++) await fetch(`${fx.sandbox.url}/docs`, { redirect: 'manual', headers: { 'User-Agent': `Mozilla/5.0 Firefox/${i}` } });
      await until(() => got.filter((g) => g.status === 200).length >= 3, 15_000);
      const ids = l.lines().map((e) => e.id);
      expect(ids).toHaveLength(3);
      expect(got[0]!.status).toBe(500);
      expect(JSON.parse(got[1]!.body).id).toBe(JSON.parse(got[0]!.body).id); // the failed one again, first
      const taken = got.filter((g) => g.status === 200);
      expect(taken.map((g) => JSON.parse(g.body).id)).toEqual(ids);
      for (const g of got) {
        const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(g.signature);
        expect(m).not.toBeNull();
        expect(Math.abs(Number(m![1]) - Date.now() / 1000)).toBeLessThan(60);
        expect(m![2]).toBe(createHmac('sha256', secret).update(`${m![1]}.${g.body}`).digest('hex'));
      }
    } finally {
      target.close();
    }
  });

  // Issue 50, low: `listen --json | head -1` ended on EPIPE without a word (exit 0), and the product's posts met a closed port.
  it('its reader gone (`listen --json | head -1`): listen stops, says why, exits 1; what it answered 2xx is stored', async () => {
    const db = freshDb();
    const l = await listen(['--port', '0', '--json'], { ...fx.env, LINKCTL_DB: db });
    const body = (i: number) => JSON.stringify({ type: 'view', shorturl: 'https://s.invalid/h', country: null, city: null, referer: null, os: 'Linux', browser: `h${i}`, date: new Date().toISOString().slice(0, 19).replace('T', ' ') });
    expect(await post(l.visits, body(0))).toBe(200);
    await until(() => l.lines().length >= 1);
    const exited = new Promise<number | null>((resolve) => l.child.once('exit', (code) => resolve(code)));
    l.child.stdout!.destroy(); // what head does after its first line
    let answered = 1;
    for (let i = 1; i < 40 && l.child.exitCode === null; i++) {
      if ((await post(l.visits, body(i))) === 200) answered++;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await exited).toBe(1);
    expect(l.stderr()).toMatch(/listen stopped: its output was closed \(EPIPE/);
    expect(l.stderr()).toContain('every post it answered 2xx is stored');
    expect((await eventRows(db)).length).toBeGreaterThanOrEqual(answered);
  });

  // Issue 53, items 5 and 6: the start-up lines ran to 118-156 characters, --help said each
  // default twice, and a stop left events unforwarded without a word (a start with some waiting, too).
  it('--forward-to: a stop says how many events wait and that the next start delivers them; that start says so and sends them; its lines fit 80 columns', async () => {
    let taking = false;
    const got: string[] = [];
    const target = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d)).on('end', () => {
        if (taking) got.push(JSON.parse(body).id);
        res.statusCode = taking ? 200 : 500;
        res.end();
      });
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/hook`;
    const env = { ...fx.env, LINKCTL_DB: freshDb(), LINKCTL_LISTEN_SECRET: 'whsec-test-0123456789abcdef' };
    try {
      const first = await listen(['--port', '0', '--json', '--forward-to', url], env);
      const body = (i: number) => JSON.stringify({ type: 'view', shorturl: 'https://s.invalid/w', country: null, city: null, referer: null, os: 'Linux', browser: `w${i}`, date: new Date().toISOString().slice(0, 19).replace('T', ' ') });
      for (let i = 0; i < 3; i++) expect(await post(first.visits, body(i))).toBe(200);
      await until(() => first.stderr().includes('not taken'));
      await first.stop();
      expect(first.stderr()).toContain(`listen: 3 events not yet forwarded to ${url} wait in the history; the next \`linkctl listen --forward-to ${url}\` delivers them first, in order`);

      taking = true;
      const second = await listen(['--port', '0', '--json', '--forward-to', url], env);
      expect(second.stderr()).toContain(`Forwarding each event, signed (Linkctl-Signature), to:\n  ${url}\n    first the 3 events stored while it did not take them\n`);
      await until(() => got.length >= 3);
      expect(got).toEqual(first.lines().map((e) => e.id));
      const startUp = second.stderr().slice(0, second.stderr().indexOf('Press Ctrl-C to stop.') + 21).split('\n');
      expect(startUp.filter((line) => line.length > 80), second.stderr()).toEqual([]);
      expect(startUp).toContain(`  ${second.created}`);
    } finally {
      target.close();
    }
    const help = await runCli(['listen', '--help'], { env: { ...fx.env, COLUMNS: '80' } });
    expect(help.stdout.match(/127\.0\.0\.1/g)).toHaveLength(1);
    expect(help.stdout.match(/8790/g)).toHaveLength(1);
  });

  // Issue 50, lows: an endless 200 body was read whole (listen reached 3.4 GB, each event waited
  // for the 10 s timeout), and a URL with a password was taken, retried forever, the password printed.
  it('--forward-to: a target\'s endless answer is not read past 64 KB; a URL with a user or password is refused (exit 2, no secret shown)', async () => {
    const ids: string[] = [];
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const target = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d)).on('end', () => {
        ids.push(JSON.parse(body).id);
        res.writeHead(200, { 'content-type': 'text/plain' });
        const more = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', more);
        };
        more();
        res.on('close', () => res.removeAllListeners('drain'));
      });
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/hook`;
    try {
      const l = await listen(['--port', '0', '--json', '--forward-to', url], { ...fx.env, LINKCTL_DB: freshDb(), LINKCTL_LISTEN_SECRET: 'whsec-test-0123456789abcdef' });
      const started = Date.now();
      const body = (i: number) => JSON.stringify({ type: 'view', shorturl: 'https://s.invalid/e', country: null, city: null, referer: null, os: 'Linux', browser: `e${i}`, date: new Date().toISOString().slice(0, 19).replace('T', ' ') });
      for (let i = 0; i < 2; i++) expect(await post(l.visits, body(i))).toBe(200);
      // the second is sent only once the first was taken (in order): at once, not after the 10 s timeout
      await until(() => new Set(ids).size >= 2, 8_000);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect([...new Set(ids)]).toEqual(l.lines().map((e) => e.id));
    } finally {
      target.closeAllConnections();
      target.close();
    }

    fx.sandbox.requests.length = 0;
    for (const bad of ['http://hooks:s3cr3t-pw@127.0.0.1:9/hook', 'https://:s3cr3t-pw@hooks.invalid/', 'http://s3cr3t-pw@/']) {
      const r = await runCli(['listen', '--port', '0', '--forward-to', bad], { env: { ...fx.env, LINKCTL_DB: freshDb() } });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('--forward-to');
      expect(r.stderr).toContain('user name or password');
      expect(r.stderr).not.toContain('s3cr3t');
    }
    expect(fx.sandbox.requests).toEqual([]);
  });

  // It once got 10 in a full run under load (issue 40): a link's events were taken off only the
  // difference of their own span, and a total that showed up a snapshot later held them again.
  // test/unit/events-overlap.test.ts has that case and the others, each a history of its own.
  it('events and snapshots overlap: no click counted twice', async () => {
    const db = freshDb();
    const env = { ...fx.env, LINKCTL_DB: db };
    const snap = await runCli(['stats', 'snapshot', '-q'], { env });
    expect(snap.code, snap.stderr).toBe(0);
    const l = await listen(['--port', '0', '--json'], env);
    await setHooks(l);
    for (let i = 0; i < 4; i++) await fetch(`${fx.sandbox.url}/docs`, { redirect: 'manual', headers: { 'User-Agent': `Mozilla/5.0 Chrome/${i}` } });
    await until(() => l.lines().length >= 4);
    expect((await runCli(['stats', 'snapshot', '-q'], { env })).code).toBe(0); // its difference holds the same 4 clicks
    await setHooks({ created: null, visits: null });
    for (let i = 0; i < 2; i++) await fetch(`${fx.sandbox.url}/docs`, { redirect: 'manual', headers: { 'User-Agent': `Mozilla/5.0 Chrome/x${i}` } }); // not sent as events
    expect((await runCli(['stats', 'snapshot', '-q'], { env })).code).toBe(0);
    const top = await runCli(['stats', 'top', '--since', '1d', '--json'], { env });
    expect(top.code, top.stderr).toBe(0);
    const docs = JSON.parse(top.stdout).links.find((r: { alias: string }) => r.alias === 'docs');
    // on a failure, what the history holds (it once failed under load, and only there)
    const held = async () => {
      const history = await openHistory({ env: {} }, { db });
      try {
        const rows = async (q: string) => (await history.db.all(q)).map((r) => r.join(' '));
        return JSON.stringify({ top: top.stdout, snapshots: await rows('SELECT id, taken_at FROM snapshots'), counts: await rows('SELECT * FROM counts'), events: await rows('SELECT item_id, at, received_at FROM events'), runs: await rows('SELECT * FROM listen_runs') });
      } finally {
        await history.close();
      }
    };
    expect(docs.clicks, docs.clicks === 6 ? '' : await held()).toBe(6); // 4 events + 2 seen only by snapshots; 10 if the events were counted again
    const show = await runCli(['stats', 'show', '--link', 'docs', '--since', '1d', '--json'], { env });
    expect(JSON.parse(show.stdout).series[0].clicks).toBe(6);
    expect(JSON.parse(show.stdout).counted).toContain('live events');
  });

  it('rollups count events exactly: by browser, referrer, country and campaign; visits seen only by snapshots counted apart (issue 43)', async () => {
    const db = freshDb();
    const env = { ...fx.env, LINKCTL_DB: db };
    expect((await runCli(['stats', 'snapshot', '-q'], { env })).code).toBe(0);
    const l = await listen(['--port', '0', '--json'], env);
    await setHooks(l);
    const visit = (alias: string, agent: string, extra: Record<string, string> = {}, query = '') =>
      fetch(`${fx.sandbox.url}/${alias}${query}`, { redirect: 'manual', headers: { 'User-Agent': agent, ...extra } });
    for (let i = 0; i < 3; i++) await visit('docs', `Mozilla/5.0 (X11; Linux x86_64) Firefox/12${i}.0`, { Referer: 'https://news.example.invalid/story' }, '?country=ca');
    await visit('docs', 'Mozilla/5.0 (Windows NT 10.0) Chrome/120.0 Safari/537.36');
    for (let i = 0; i < 2; i++) await visit('spring-sale', `Mozilla/5.0 (Windows NT 10.0) Chrome/11${i}.0 Safari/537.36`, { Referer: 'https://mail.example.invalid/inbox' }, '?country=de');
    await until(() => l.lines().length >= 6);
    await setHooks({ created: null, visits: null });
    for (let i = 0; i < 2; i++) await visit('docs', `Mozilla/5.0 (X11; Linux x86_64) Firefox/13${i}.0`); // no events: the snapshot's difference only
    expect((await runCli(['stats', 'snapshot', '-q'], { env })).code).toBe(0);
    const top = async (group: string) => {
      const r = await runCli(['stats', 'top', '--group', group, '--since', '1d', '--json'], { env });
      expect(r.code, r.stderr).toBe(0);
      const g = JSON.parse(r.stdout);
      return { total: g.clicks, rows: Object.fromEntries(g.groups.map((row: { group: string; clicks: number; links: number }) => [row.group, [row.clicks, row.links]])), apart: g.ungrouped };
    };
    const browser = await top('browser');
    expect(browser.total).toBe(8);
    expect(browser.rows).toEqual({ Firefox: [3, 1], Chrome: [3, 2] });
    expect(browser.apart).toMatchObject({ clicks: 2, links: 1 });
    const referrer = await top('referrer');
    expect(referrer.rows).toEqual({ 'https://news.example.invalid': [3, 1], 'https://mail.example.invalid': [2, 1], 'Direct, email and other': [1, 1] });
    const country = await top('country');
    expect(country.rows).toEqual({ Canada: [3, 1], Germany: [2, 1], Unknown: [1, 1] });
    expect(country.apart.clicks).toBe(2);
    // by what a link belongs to, the events count too: docs (Spring launch) 6, spring-sale (none) 2
    const campaign = await top('campaign');
    expect(campaign.total).toBe(8);
    expect(campaign.rows).toEqual({ 'Spring launch': [6, 1] });
    expect(campaign.apart).toMatchObject({ links: 1, clicks: 2 });
  });
});

describe.skipIf(pgSkipReason)(`linkctl listen into PostgreSQL${pgSkipReason ? ` (skipped: ${pgSkipReason})` : ''}`, () => {
  const fx = useSandbox();
  let cluster: Cluster | undefined;
  beforeAll(async () => {
    cluster = await startCluster();
  }, 120_000);
  afterAll(() => cluster?.stop());

  it('events are stored in PostgreSQL before their 2xx and counted by stats top from there, with no snapshot', async () => {
    const url = cluster!.url;
    const env = { ...fx.env, LINKCTL_DB: url };
    const l = await listen(['--port', '0', '--json'], env);
    expect(l.stderr()).toContain('storing in postgres://');
    await fetch(`${fx.sandbox.url}/__sandbox/webhooks`, { method: 'POST', headers: { Authorization: `Bearer ${fx.sandbox.key}` }, body: JSON.stringify({ created: l.created, visits: l.visits }) });
    for (let i = 0; i < 3; i++) await fetch(`${fx.sandbox.url}/spring-sale`, { redirect: 'manual', headers: { 'User-Agent': `Mozilla/5.0 Firefox/${i}`, Referer: 'https://news.invalid/' } });
    await until(() => l.lines().length >= 3);
    const rows = await sql<{ alias: string; referrer: string; n: string }>(url, "SELECT alias, referrer, count(*) AS n FROM linkctl.events GROUP BY alias, referrer");
    expect(rows).toEqual([{ alias: 'spring-sale', referrer: 'https://news.invalid/', n: '3' }]);
    const top = await runCli(['stats', 'top', '--since', '1d', '--json'], { env, timeoutMs: 90_000 });
    expect(top.code, top.stderr).toBe(0);
    expect(JSON.parse(top.stdout).links.map((r: { alias: string; clicks: number }) => [r.alias, r.clicks])).toEqual([['spring-sale', 3]]);
  });

  // Issue 50, item 10: a shorturl holding %00 (an alias with NUL, which PostgreSQL text refuses)
  // failed the transaction of every post stored with it: 16 of 200 good posts got 503 (here 205 of 220).
  it('one bad post cannot fail the others stored with it: %00 in a shorturl, and a post the database itself refuses', async () => {
    const url = cluster!.url;
    const l = await listen(['--port', '0'], { ...fx.env, LINKCTL_DB: url });
    // a post the database refuses whatever linkctl checks first (a trigger of the database's owner)
    await sql(url, "CREATE FUNCTION linkctl.refuse_poison() RETURNS trigger AS $$ BEGIN IF NEW.browser = 'poison' THEN RAISE EXCEPTION 'poison'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql");
    await sql(url, 'CREATE TRIGGER refuse_poison BEFORE INSERT ON linkctl.events FOR EACH ROW EXECUTE FUNCTION linkctl.refuse_poison()');
    try {
      const date = () => new Date().toISOString().slice(0, 19).replace('T', ' ');
      const visit = (shorturl: string, browser: string) => JSON.stringify({ type: 'view', shorturl, country: null, city: null, referer: null, os: 'Linux', browser, date: date() });
      const bodies = Array.from({ length: 240 }, (_, i) => i % 12 === 0 ? { good: false, body: visit(i % 24 === 0 ? 'https://s.invalid/a%00b' : 'https://s.invalid/p', i % 24 === 0 ? `nul${i}` : 'poison') } : { good: true, body: visit(`https://s.invalid/g${i % 5}`, `good${i}`) });
      let next = 0;
      const answers: Array<{ good: boolean; status: number | undefined; body: string }> = [];
      await Promise.all(Array.from({ length: 40 }, async () => {
        while (next < bodies.length) {
          const b = bodies[next++]!;
          answers.push({ ...b, status: await post(l.visits, b.body) });
        }
      }));
      const good = answers.filter((a) => a.good);
      expect(good.filter((a) => a.status !== 200).length, 'good posts refused').toBe(0);
      expect(answers.filter((a) => a.body.includes('poison')).map((a) => a.status)).toEqual(Array(10).fill(503));
      // %00 is kept as U+FFFD (what text that cannot be stored becomes everywhere in the history)
      expect(answers.filter((a) => a.body.includes('%00')).map((a) => a.status)).toEqual(Array(10).fill(200));
      const rows = await sql<{ browser: string; alias: string }>(url, 'SELECT browser, alias FROM linkctl.events');
      expect(rows.filter((r) => r.browser.startsWith('good'))).toHaveLength(220);
      expect(rows.filter((r) => r.browser.startsWith('nul')).map((r) => r.alias)).toEqual(Array(10).fill('a\ufffdb'));
    } finally {
      await sql(url, 'DROP TRIGGER refuse_poison ON linkctl.events');
    }
  }, 60_000);
});

describe('linkctl listen --poll', () => {
  const fx = useSandbox();

  it('link.created, link.updated and link.deleted from the link list, within the rate limit; says it sees no clicks; bad intervals exit 2', async () => {
    const bad = await runCli(['listen', '--poll', '2s'], { env: fx.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--poll');
    const mixed = await runCli(['listen', '--poll', '60s', '--forward-to', 'http://127.0.0.1:9/'], { env: fx.env });
    expect(mixed.code).toBe(2);
    expect(fx.sandbox.requests.filter((r) => r.path.startsWith('/api/'))).toEqual([]); // refused before any request

    const child = spawn(process.execPath, [BIN, 'listen', '--poll', '5s', '--json'], { env: cleanEnv(fx.env), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr!.setEncoding('utf8').on('data', (d) => (err += d));
    try {
      await until(() => err.includes('starting point'), 30_000);
      expect(err).toContain('sees no clicks');
      expect((await runCli(['link', 'add', 'https://example.com/polled', '--alias', 'polled'], { env: fx.env })).code).toBe(0);
      expect((await runCli(['link', 'update', '1', '--url', 'https://sandbox.localhost/docs-v2', '--yes'], { env: fx.env })).code).toBe(0);
      expect((await runCli(['link', 'delete', '2', '--yes'], { env: fx.env })).code).toBe(0);
      await fetch(`${fx.sandbox.url}/polled`, { redirect: 'manual' }); // a click: no event
      await until(() => out.split('\n').filter(Boolean).length >= 3, 30_000);
      const events = out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; alias: string });
      expect(events.map((e) => [e.type, e.alias]).sort()).toEqual([['link.created', 'polled'], ['link.deleted', 'spring-sale'], ['link.updated', 'docs']]);
    } finally {
      child.kill('SIGTERM');
    }
  }, 120_000);
});

describe('linkctl --sandbox listen (the tour)', () => {
  it('points the sandbox\'s webhooks at itself: `sandbox visits` shows up as events, and stats counts them', async () => {
    const config = tempDir('linkctl-listen-tour-');
    try {
      const env = { LINKCTL_SANDBOX: '1', LINKCTL_CONFIG_DIR: config, LINKCTL_DB: freshDb() };
      const l = await listen(['--port', '0', '--json'], env);
      expect(l.stderr()).toContain('The sandbox posts its webhooks here now');
      const visits = await runCli(['sandbox', 'visits', '--link', 'docs', '--count', '2', '--country', 'CA', '--referrer', 'https://news.invalid/'], { env });
      expect(visits.code, visits.stderr).toBe(0);
      await until(() => l.lines().length >= 2);
      expect(l.lines().map((e) => [e.type, e.alias, e.country, e.referrer])).toEqual([['link.clicked', 'docs', 'Canada', 'https://news.invalid/'], ['link.clicked', 'docs', 'Canada', 'https://news.invalid/']]);
      const top = await runCli(['stats', 'top', '--since', '1d', '--json'], { env });
      expect(top.code, top.stderr).toBe(0);
      expect(JSON.parse(top.stdout).links.map((r: { alias: string; clicks: number }) => [r.alias, r.clicks])).toEqual([['docs', 2]]);
    } finally {
      rmSync(config, { recursive: true, force: true });
    }
  });
});
