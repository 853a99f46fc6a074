/**
 * The ledger (issue 41, items 4 and 5): every write the built CLI sends to the sandbox is in
 * `log --json` with its fields before and after, `log --link` gives a link's destinations in
 * order even after its deletion, and `log verify` finds one stored value edited in the database.
 * The same tests on the default SQLite file and on a real PostgreSQL cluster (test/postgres.ts;
 * skipped, saying why, where PostgreSQL is not installed).
 */
import { spawn } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, runMain, tempDir, useSandbox, type SandboxFixture } from '../helpers.js';
import { pgSkipReason, sql, startCluster, type Cluster } from '../postgres.js';

interface Entry {
  seq: number;
  command: string;
  method: string;
  resource: string;
  resourceId: string | null;
  name: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  outcome: string;
  prevHash: string;
  hash: string;
}

const PASSWORD = 'ledger-pw-3f9c1';

/** The tests, against the history database `target` gives (a fresh one per test). */
function ledgerTests(fx: SandboxFixture, target: () => { env: Record<string, string>; edit(sql: string): Promise<void>; raw(): Promise<string> }) {
  const writes = () => fx.sandbox.requests.filter((r) => r.method !== 'GET');

  it('log --json has every write with before and after; log --link the destinations in order, after deletion too; no secret stored', async () => {
    const { env, raw } = target();
    const cli = (args: string[], stdin?: string) => runCli(args, { env: { ...fx.env, ...env }, stdin });
    const add = await cli(['link', 'add', 'https://example.com/first', '--alias', 'ledger-one', '--param', 'utm_source=qr', '--password-stdin', '-q'], PASSWORD);
    expect(add.code, add.stderr).toBe(0);
    const id = add.stdout.trim();
    for (const url of ['https://example.com/second', 'https://example.com/third']) {
      const r = await cli(['link', 'update', id, '--url', url, '--param', 'utm_source=qr', '-y', '-q']);
      expect(r.code, r.stderr).toBe(0);
    }
    const del = await cli(['link', 'delete', id, '-y', '-q']);
    expect(del.code, del.stderr).toBe(0);
    const refused = await cli(['link', 'delete', '99999', '-y', '-q']);
    expect(refused.code).not.toBe(0);
    expect(writes()).toHaveLength(5);

    const log = await cli(['log', '--json']);
    expect(log.code, log.stderr).toBe(0);
    const entries = JSON.parse(log.stdout) as Entry[];
    expect(entries.map((e) => [e.seq, e.command, e.method, e.resource, e.resourceId, e.outcome])).toEqual([
      [1, 'link add', 'POST', 'link', id, 'done'],
      [2, 'link update', 'PUT', 'link', id, 'done'],
      [3, 'link update', 'PUT', 'link', id, 'done'],
      [4, 'link delete', 'DELETE', 'link', id, 'done'],
      [5, 'link delete', 'DELETE', 'link', '99999', 'failed'],
    ]);
    expect(entries[0]!.before).toBeNull();
    expect(entries[0]!.after).toMatchObject({ url: 'https://example.com/first', custom: 'ledger-one', parameters: [{ name: 'utm_source', value: 'qr' }], password: '(secret, not recorded)' });
    expect(entries[1]!.before).toMatchObject({ url: 'https://example.com/first' });
    expect(entries[1]!.after).toMatchObject({ url: 'https://example.com/second', custom: 'ledger-one' });
    expect(entries[2]!.before).toMatchObject({ url: 'https://example.com/second' });
    expect(entries[3]!.before).toMatchObject({ url: 'https://example.com/third' });
    expect(entries[3]!.after).toBeNull();
    // Each holds the hash of the one before.
    for (let i = 1; i < entries.length; i++) expect(entries[i]!.prevHash).toBe(entries[i - 1]!.hash);
    expect(await raw()).not.toContain(PASSWORD);

    const byLink = await cli(['log', '--link', 'ledger-one', '--json']);
    expect(byLink.code, byLink.stderr).toBe(0);
    expect((JSON.parse(byLink.stdout) as Array<{ destination: string }>).map((e) => e.destination)).toEqual([
      'https://example.com/first', 'https://example.com/second', 'https://example.com/third', '(deleted)',
    ]);
    const byId = await cli(['log', '--link', id, '--json']);
    expect(JSON.parse(byId.stdout)).toEqual(JSON.parse(byLink.stdout));

    const table = await runCli(['log', '--resource', 'link'], { env: { ...fx.env, ...env, COLUMNS: '80' } });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.split('\n').filter(Boolean)).toHaveLength(5);
  });

  it('log verify: exit 0 when whole; exit 1 naming the entry after one stored value is edited in the database', async () => {
    const { env, edit } = target();
    const cli = (args: string[]) => runCli(args, { env: { ...fx.env, ...env } });
    for (const alias of ['chain-a', 'chain-b', 'chain-c']) expect((await cli(['link', 'add', `https://example.com/${alias}`, '--alias', alias, '-q'])).code).toBe(0);
    const whole = await cli(['log', 'verify', '--json']);
    expect(whole.code, whole.stderr).toBe(0);
    expect(JSON.parse(whole.stdout)).toMatchObject({ whole: true, entries: 3 });
    await edit("UPDATE ledger SET after_json = replace(after_json, 'example.com/chain-b', 'evil.example/chain-b') WHERE seq = 2");
    const broken = await cli(['log', 'verify']);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain('broken at entry 2');
    const json = await cli(['log', 'verify', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ whole: false, seq: 2 });
  });

  it('two processes writing at once make one chain', async () => {
    const { env } = target();
    const runs = await Promise.all(['twin-a', 'twin-b', 'twin-c'].map((alias) => runCli(['link', 'add', `https://example.com/${alias}`, '--alias', alias, '-q'], { env: { ...fx.env, ...env }, timeoutMs: 90_000 })));
    for (const r of runs) expect(r.code, r.stderr).toBe(0);
    const verify = await runCli(['log', 'verify', '--json'], { env: { ...fx.env, ...env } });
    expect(JSON.parse(verify.stdout)).toMatchObject({ whole: true, entries: 3 });
  });
}

describe('the ledger in the default SQLite file', () => {
  const fx = useSandbox();
  let n = 0;
  const target = () => {
    const file = join(tempDir('linkctl-ledger-'), `ledger-${++n}.db`);
    return {
      env: { LINKCTL_DB: file },
      raw: async () => readFileSync(file, 'latin1'),
      edit: async (statement: string, other?: string) => {
        const Database = createRequire(import.meta.url)('libsql') as new (file: string) => { exec(sql: string): void; close(): void };
        const db = new Database(other ?? file);
        db.exec(statement);
        db.close();
      },
    };
  };
  ledgerTests(fx, target);

  it('with no LINKCTL_DB the ledger is history.db in the state folder, made at the first write', async () => {
    const configDir = tempDir();
    const env = { ...fx.env, LINKCTL_CONFIG_DIR: configDir };
    expect((await runCli(['link', 'add', 'https://example.com/default', '-q'], { env })).code).toBe(0);
    const log = await runCli(['log', '--json'], { env });
    expect((JSON.parse(log.stdout) as Entry[]).map((e) => e.command)).toEqual(['link add']);
    expect(readFileSync(join(configDir, 'state', 'history.db')).subarray(0, 15).toString()).toBe('SQLite format 3');
  });

  it('a ledger that cannot be written: the write is done and says so on stderr, exit 0', async () => {
    const folder = tempDir();
    const r = await runCli(['link', 'add', 'https://example.com/unrecorded', '--alias', 'unrecorded', '-q'], { env: { ...fx.env, LINKCTL_DB: folder } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+$/);
    expect(r.stderr).toMatch(/the POST was done, but the ledger could not record it/);
    expect(writes(fx)).toHaveLength(1);
  });

  it('log verify --db FILE and log --db FILE verify check FILE, not LINKCTL_DB; a missing database or one with no ledger is an error', async () => {
    const { env, edit } = target();
    const cli = (args: string[], extra: Record<string, string> = {}) => runCli(args, { env: { ...fx.env, ...env, ...extra } });
    for (const alias of ['db-a', 'db-b']) expect((await cli(['link', 'add', `https://example.com/${alias}`, '--alias', alias, '-q'])).code).toBe(0);
    // A copy of the ledger, then an edit of the copy only: LINKCTL_DB's stays whole.
    const copy = join(tempDir('linkctl-ledger-copy-'), 'copy.db');
    copyFileSync(env.LINKCTL_DB, copy);
    await edit("UPDATE ledger SET after_json = replace(after_json, 'example.com/db-b', 'evil.example/db-b') WHERE seq = 2", copy);
    expect((await cli(['log', 'verify'])).code).toBe(0);
    for (const args of [['log', 'verify', '--db', copy], ['log', '--db', copy, 'verify']]) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stdout).toContain('broken at entry 2');
    }
    // A database that does not exist, named by --db (either place) or LINKCTL_DB: an error, exit 8, for log and log verify alike.
    const missing = join(tempDir('linkctl-ledger-missing-'), 'nothing.db');
    for (const [args, extra] of [[['log', 'verify', '--db', missing], {}], [['log', '--db', missing, 'verify'], {}], [['log', 'verify'], { LINKCTL_DB: missing }], [['log', '--db', missing], {}]] as const) {
      const r = await cli([...args], extra);
      expect(r.code, args.join(' ')).toBe(8);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(`${missing} does not exist`);
    }
    // A database that is no linkctl database: an error naming it, never "whole: 0 entries".
    const other = join(tempDir('linkctl-ledger-other-'), 'other.db');
    const Database = createRequire(import.meta.url)('libsql') as new (file: string) => { exec(sql: string): void; close(): void };
    const db = new Database(other);
    db.exec('CREATE TABLE t (x INTEGER)');
    db.close();
    const foreign = await cli(['log', 'verify', '--db', other]);
    expect(foreign.code).toBe(7);
    expect(foreign.stdout).toBe('');
    // A ledger with no entries (every one removed): nothing to verify, exit 8, never "whole".
    await edit('DELETE FROM ledger', copy);
    const empty = await cli(['log', 'verify', '--db', copy]);
    expect(empty.code).toBe(8);
    expect(empty.stderr).toMatch(/has no entries: nothing to verify/);
    expect(empty.stdout).toBe('');
  });

  it('log verify shows the head (count and hash); --expect-head finds the last entries removed, or the whole ledger emptied', async () => {
    const { env, edit } = target();
    const cli = (args: string[]) => runCli(args, { env: { ...fx.env, ...env } });
    for (const alias of ['head-a', 'head-b', 'head-c']) expect((await cli(['link', 'add', `https://example.com/${alias}`, '--alias', alias, '-q'])).code).toBe(0);
    const first = await cli(['log', 'verify', '--json']);
    const verdict = JSON.parse(first.stdout) as { whole: boolean; entries: number; head: { seq: number; hash: string } };
    expect(verdict).toMatchObject({ whole: true, entries: 3, head: { seq: 3 } });
    expect(verdict.head.hash).toMatch(/^[0-9a-f]{64}$/);
    const text = await cli(['log', 'verify']);
    expect(text.stdout).toContain(`head: entry 3, ${verdict.head.hash}`);
    // The ledger grows: the kept head is still in the chain.
    expect((await cli(['link', 'add', 'https://example.com/head-d', '--alias', 'head-d', '-q'])).code).toBe(0);
    const grown = await cli(['log', 'verify', '--expect-head', verdict.head.hash]);
    expect(grown.code, grown.stderr).toBe(0);
    expect(grown.stdout).toMatch(/1 entry since/);
    // The last two entries removed: the chain left is whole, but the kept head is gone.
    await edit('DELETE FROM ledger WHERE seq >= 3');
    const cut = await cli(['log', 'verify', '--expect-head', verdict.head.hash]);
    expect(cut.code).toBe(1);
    expect(cut.stdout).toMatch(/no longer holds the head you kept/);
    await edit('DELETE FROM ledger');
    const emptied = await cli(['log', 'verify', '--expect-head', verdict.head.hash, '--json']);
    expect(emptied.code).toBe(1);
    expect(JSON.parse(emptied.stdout)).toMatchObject({ whole: false, entries: 0 });
    const bad = await cli(['log', 'verify', '--expect-head', 'abc']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--expect-head/);
  });

  it('a clear 404 is recorded as failed, not unknown; a path that names no record is recorded as such, never as a link', async () => {
    const { env } = target();
    const cli = (args: string[]) => runCli(args, { env: { ...fx.env, ...env } });
    const upper = await cli(['api', 'POST', 'api/URL/add', '-f', 'url=https://example.com/upper']);
    expect(upper.code).toBe(6);
    expect(upper.stderr).toMatch(/HTTP 404/);
    fx.sandbox.injectFault({ kind: 'html', status: 404 });
    const gone = await cli(['api', 'PUT', 'url/1/update', '-f', 'url=https://example.com/gone']);
    expect(gone.code).toBe(6);
    const entries = JSON.parse((await cli(['log', '--json'])).stdout) as Array<Entry & { path: string; record: string }>;
    expect(entries.map((e) => [e.method, e.path, e.resource, e.resourceId, e.outcome, e.record])).toEqual([
      ['POST', 'api/URL/add', 'none', null, 'failed', 'no record: api/URL/add'],
      ['PUT', 'api/url/1/update', 'link', '1', 'failed', 'link 1'],
    ]);
    expect((await cli(['log', '--link', 'upper', '--json'])).stdout.trim()).toBe('[]');
  });

  it('a PUT or DELETE interrupted after it was sent is recorded as unknown, with a warning that it may have been done', async () => {
    const { env } = target();
    const add = await runCli(['link', 'add', 'https://example.com/interrupted', '--alias', 'interrupted', '-q'], { env: { ...fx.env, ...env } });
    const id = add.stdout.trim();
    for (const args of [['link', 'update', id, '--url', 'https://example.com/changed', '--yes'], ['link', 'delete', id, '--yes']]) {
      fx.sandbox.injectFault({ kind: 'hang', method: args[1] === 'update' ? 'PUT' : 'DELETE' });
      const before = writes(fx).length;
      const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv({ ...fx.env, ...env }), stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      while (writes(fx).length === before) await new Promise((r) => setTimeout(r, 25));
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(stderr).toMatch(new RegExp(`interrupted during ${args[1] === 'update' ? 'PUT' : 'DELETE'} .*: the request was sent and its answer not read: it may or may not have been ${args[1] === 'update' ? 'carried out' : 'deleted'}`));
    }
    const entries = JSON.parse((await runCli(['log', '--json'], { env: { ...fx.env, ...env } })).stdout) as Entry[];
    expect(entries.map((e) => [e.method, e.resourceId, e.outcome])).toEqual([['POST', id, 'done'], ['PUT', id, 'unknown'], ['DELETE', id, 'unknown']]);
  });

  it('log --fields ...,override on a terminal keeps every column asked for by name (the widest cut to fit, and said so)', async () => {
    const { env } = target();
    const override = 'approved by Dana for the spring launch';
    const add = await runCli(['--override', override, 'link', 'add', 'https://example.com/a/rather/long/path/for/the/change/column?utm_source=newsletter&utm_medium=email', '--alias', 'fields-one', '--param', 'utm_campaign=spring', '-q'], { env: { ...fx.env, ...env } });
    expect(add.code, add.stderr).toBe(0);
    const r = await runMain(['log', '--fields', 'seq,at,command,record,outcome,change,override'], { env: { ...fx.env, ...env, NO_COLOR: '1' }, tty: true });
    expect(r.code, r.stderr).toBe(0);
    const [header, row] = r.stdout.split('\n');
    expect(header).toMatch(/^#\s+TIME \(UTC\)\s+command\s+record\s+outcome\s+change\s+override$/);
    expect(row).toContain(override.slice(0, 8));
    for (const line of r.stdout.trimEnd().split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
    expect(r.stderr).toMatch(/cut to fit 100 columns: change/);
    expect(r.stderr).not.toMatch(/not shown/);
  });

  it('a --dry-run records nothing; reads record nothing', async () => {
    const { env } = target();
    expect((await runCli(['link', 'add', 'https://example.com/dry', '--dry-run'], { env: { ...fx.env, ...env } })).code).toBe(0);
    expect((await runCli(['link', 'list', '-q'], { env: { ...fx.env, ...env } })).code).toBe(0);
    // Nothing made the database: log says so (exit 8), rather than listing an empty ledger of a file that is not there.
    const log = await runCli(['log', '--json'], { env: { ...fx.env, ...env } });
    expect(log.code).toBe(8);
    expect(log.stderr).toMatch(/no ledger: .* does not exist/);
  });
});

const writes = (fx: SandboxFixture) => fx.sandbox.requests.filter((r) => r.method !== 'GET');

describe.skipIf(pgSkipReason)(`the ledger in PostgreSQL${pgSkipReason ? ` (skipped: ${pgSkipReason})` : ''}`, () => {
  const fx = useSandbox();
  let cluster: Cluster | undefined;
  let n = 0;
  const databases: string[] = [];
  beforeAll(async () => {
    cluster = await startCluster();
    for (let i = 1; i <= 3; i++) {
      await sql(cluster.url, `CREATE DATABASE ledger${i}`);
      databases.push(cluster.url.replace(/\/postgres$/, `/ledger${i}`));
    }
  }, 120_000);
  afterAll(() => cluster?.stop());

  ledgerTests(fx, () => {
    const url = databases[n++]!;
    return {
      env: { LINKCTL_DB: url },
      raw: async () => JSON.stringify(await sql(url, 'SELECT * FROM linkctl.ledger')),
      edit: async (statement: string) => void (await sql(url, statement.replace("UPDATE ledger", "UPDATE linkctl.ledger"))),
    };
  });
});
