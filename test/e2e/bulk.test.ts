/**
 * Bulk work from a file (`--from`): the built CLI against the sandbox. What is checked is what a
 * user relies on: a result per row, nothing sent when a row is bad, and no record created twice
 * whatever happens to the process or the connection (the sandbox records every request).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { BIN, cleanEnv, expectSameMembers, runCli, runMain, tempDir, testFiles, useSandbox } from '../helpers.js';

const fx = useSandbox();
const { root: files, file } = testFiles('linkctl-bulk-');
let n = 0;

/** A config folder of the test's own, and the journals (and locks) left in its state. */
function ownState() {
  const configDir = join(files, `config-${++n}`);
  mkdirSync(configDir);
  const dir = join(configDir, 'state', 'bulk');
  return { env: { ...fx.env, LINKCTL_CONFIG_DIR: configDir }, dir, journals: () => (existsSync(dir) ? readdirSync(dir) : []) };
}
const posts = (path: string) => fx.sandbox.requests.filter((r) => r.method === 'POST' && r.path === path);
const parseCsv = (text: string) => {
  const [head, ...rows] = text.trimEnd().split('\n');
  const keys = head!.split(',');
  return rows.map((row) => Object.fromEntries(row.split(',').map((v, i) => [keys[i], v])));
};

describe('link add --from', () => {
  it('turns a CSV into one short link per row, with results as CSV', async () => {
    const csv = file('links.csv', 'url,alias,description,pixel\nhttps://example.com/a,bulk-a,"first, with a comma",\nhttps://example.com/b,bulk-b,second,\n');
    const r = await runCli(['link', 'add', '--from', csv, '-o', 'csv'], { env: fx.env });
    expect(r.stderr).toContain('2 of 2 rows done (2 created)');
    expect(r.code).toBe(0);
    const rows = parseCsv(r.stdout);
    expect(rows.map((x) => [x.row, x.status])).toEqual([['2', 'created'], ['3', 'created']]);
    expect(rows[0]!.shorturl).toMatch(/\/bulk-a$/);
    expect(Number(rows[1]!.id)).toBeGreaterThan(0);
    // Rows may be sent together (--concurrency auto against a server without a limit): the output keeps the file's order, the server sees them in any.
    expectSameMembers(posts('/api/url/add').map((p) => p.body), [
      expect.objectContaining({ url: 'https://example.com/a', custom: 'bulk-a', description: 'first, with a comma' }),
      expect.objectContaining({ url: 'https://example.com/b', custom: 'bulk-b', description: 'second' }),
    ]);
  });

  it('names every bad line, exits 2 and sends nothing', async () => {
    const csv = file('bad.csv', 'url,alias,pixel,public\nhttps://example.com/ok,,1;2,true\nftp://example.com,,,\nhttps://example.com/x,,0,\nhttps://example.com/y,,,maybe\n');
    const r = await runCli(['link', 'add', '--from', csv], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('bad.csv:3: --url must start with http:// or https://');
    expect(r.stderr).toContain('bad.csv:4: --pixel must be a positive integer');
    expect(r.stderr).toContain('bad.csv:5: --public is true or false');
    expect(r.stderr).not.toContain('bad.csv:2');
    expect(r.stderr).toContain('3 of 4 rows are not valid; nothing was sent');
    expect(fx.sandbox.requests).toEqual([]);
  });

  it('a campaign or pixel by name: each name looked up once for every row; one that names nothing stops the file before any row is sent', async () => {
    const good = file('named.csv', 'url,campaign,pixel\nhttps://example.com/n1,Spring launch,Main analytics\nhttps://example.com/n2,spring launch,1\n');
    const r = await runCli(['link', 'add', '--from', good, '-o', 'csv'], { env: fx.env });
    expect(r.code, r.stderr).toBe(0);
    const posts = fx.sandbox.requests.filter((q) => q.method === 'POST');
    expect(posts.map((q) => q.body)).toEqual([expect.objectContaining({ campaign: 1, pixels: [1] }), expect.objectContaining({ campaign: 1, pixels: [1] })]);
    expect(fx.sandbox.requests.filter((q) => q.path === '/api/campaigns')).toHaveLength(1);
    fx.sandbox.requests.length = 0;
    const bad = file('unnamed.csv', 'url,campaign\nhttps://example.com/n3,Spring launch\nhttps://example.com/n4,Black Friday\n');
    const refused = await runCli(['link', 'add', '--from', bad], { env: fx.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('unnamed.csv:3: --campaign "Black Friday": no campaign has this name ("Spring launch")');
    expect(fx.sandbox.requests.filter((q) => q.method !== 'GET')).toEqual([]);
  });

  it('a header naming a column twice is refused, naming it: exit 2, nothing sent', async () => {
    const twice = file('twice.csv', 'url,alias,description,alias\nhttps://example.com/t,one,text,two\n');
    const r = await runMain(['link', 'add', '--from', twice], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('twice.csv:1: the header names "alias" more than once; each column once');
    expect(fx.sandbox.requests).toEqual([]);
  });

  it('names the physical line a row starts on when a quoted cell holds line breaks (CRLF or LF)', async () => {
    for (const eol of ['\r\n', '\n']) {
      // Line 2-4: a description over three lines; line 5 blank; line 6 bad; line 7 a quoted break again; line 9 bad.
      const text = ['url,description', 'https://example.com/a,"one', 'two', 'three"', '', 'ftp://bad-6,x', 'https://example.com/b,"x', 'y"', 'ftp://bad-9,z', ''].join(eol);
      const csv = file('breaks.csv', text);
      const r = await runMain(['link', 'add', '--from', csv], { env: fx.env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('breaks.csv:6: --url must start with http:// or https://');
      expect(r.stderr).toContain('breaks.csv:9: --url must start with http:// or https://');
      expect(r.stderr).toContain('2 of 4 rows are not valid');
    }
    expect(fx.sandbox.requests).toEqual([]);
  });

  it('checks combinations of flags on every row too, and an unknown column', async () => {
    const both = file('both.ndjson', '{"url":"https://example.com/p","public":true,"private":true}\n');
    const r = await runCli(['link', 'add', '--from', both], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('both.ndjson:1: --public and --private contradict each other');
    const unknown = file('unknown.csv', 'url,colour\nhttps://example.com,red\n');
    const u = await runCli(['link', 'add', '--from', unknown], { env: fx.env });
    expect(u.code).toBe(2);
    expect(u.stderr).toMatch(/unknown\.csv:1: unknown column "colour"; the columns are url, alias/);
    expect(fx.sandbox.requests).toEqual([]);
  });

  it('reads NDJSON from stdin (recognised by its first character), and --fields chooses the result columns', async () => {
    const stdin = '{"url":"https://example.com/in-1","param":["utm_source=mail","utm_medium=bulk"]}\n{"url":"https://example.com/in-2"}\n';
    const r = await runMain(['link', 'add', '--from', '-', '-o', 'csv', '--fields', 'row,status'], { env: fx.env, stdin });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('row,status\n1,created\n2,created\n');
    expectSameMembers(posts('/api/url/add').map((p) => p.body), [expect.objectContaining({ url: 'https://example.com/in-1', parameters: [{ name: 'utm_source', value: 'mail' }, { name: 'utm_medium', value: 'bulk' }] }), { url: 'https://example.com/in-2' }]);
    const bad = await runMain(['link', 'add', '--from', '-', '--fields', 'nope'], { env: fx.env, stdin });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--fields: unknown field "nope"; known fields: row, status, id, shorturl, error');
  });

  it('--dry-run validates and counts the requests, sending nothing', async () => {
    const csv = file('dry.csv', 'url\nhttps://example.com/1\nhttps://example.com/2\nhttps://example.com/3\n');
    const r = await runCli(['link', 'add', '--from', csv, '--dry-run', '--json'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ dryRun: true, rows: 3, requests: 3 });
    expect(fx.sandbox.requests).toEqual([]);
  });

  it('reads the account\'s links once for the whole file instead of searching once a row, and still finds what exists', async () => {
    const csv = file('index.csv', 'url\nhttps://sandbox.localhost/docs\nhttps://example.com/idx-1\nhttps://example.com/idx-2\nhttps://example.com/idx-1\n');
    const searchesBefore = fx.sandbox.requests.filter((r) => r.method === 'GET' && r.path === '/api/urls').length;
    const postsBefore = posts('/api/url/add').length;
    const r = await runCli(['link', 'add', '--from', csv, '--if-exists', 'return', '--json'], { env: fx.env });
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as Array<{ status: string; id: number }>;
    // The seeded link and the file's own repeat are found as existing; the others are created.
    expect(rows.map((x) => x.status)).toEqual(['exists', 'created', 'created', 'exists']);
    expect(rows[3]!.id).toBe(rows[1]!.id);
    expect(fx.sandbox.requests.filter((r) => r.method === 'GET' && r.path === '/api/urls').length - searchesBefore).toBe(1);
    // What the read found (the seeded link, and the repeat once created) is answered without a request.
    expect(posts('/api/url/add').length - postsBefore).toBe(2);
  });

  it('the read of the links failing stops the run before any row is sent, though the rows were being read meanwhile', async () => {
    const csv = file('read-fails.csv', 'url\nhttps://example.com/rf-1\nhttps://example.com/rf-2\nhttps://example.com/rf-3\n');
    const postsBefore = posts('/api/url/add').length;
    fx.sandbox.injectFault({ kind: 'error', message: 'The database is down.', method: 'GET' });
    const r = await runCli(['link', 'add', '--from', csv, '--json'], { env: ownState().env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('The database is down.');
    expect(r.stderr).not.toMatch(/\n\s+at /); // one message, no stack trace (nor an unhandled rejection's)
    expect(posts('/api/url/add').length - postsBefore).toBe(0);
    // The next run sends each row once.
    const again = await runCli(['link', 'add', '--from', csv, '--json'], { env: fx.env });
    expect(again.code, again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as Array<{ status: string }>).map((x) => x.status)).toEqual(['created', 'created', 'created']);
    expect(posts('/api/url/add').length - postsBefore).toBe(3);
  });

  it('a finished run retires its journal: the file run again is a new run, where --if-exists decides', async () => {
    const { env, journals } = ownState();
    const csv = file('again.csv', 'url,description\nhttps://example.com/r1,again 1\nhttps://example.com/r2,again 2\n');
    const first = await runCli(['link', 'add', '--from', csv, '--json'], { env });
    expect(first.code).toBe(0);
    expect(journals()).toEqual([]); // retired: nothing left to resume
    const created = JSON.parse(first.stdout) as Array<{ status: string; id: number }>;
    // A new run: each row is looked at again; the one read of the account's links finds both, so no POST is sent.
    const again = await runCli(['link', 'add', '--from', csv, '--if-exists', 'return', '--json'], { env });
    expect(again.code).toBe(0);
    expect(again.stderr).not.toContain('finished in an earlier run');
    expect((JSON.parse(again.stdout) as Array<{ status: string; id: number }>).map((x) => [x.status, x.id])).toEqual(created.map((x) => ['exists', x.id]));
    expect(posts('/api/url/add')).toHaveLength(2);
    expect(journals()).toEqual([]);
  });

  it('a run with a failed row keeps its journal: the next run sends only that row; --restart starts over', async () => {
    const { env, journals } = ownState();
    const csv = file('resume.csv', 'url,alias\nhttps://example.com/res-1,res-taken\nhttps://example.com/res-2,res-new\n');
    await runCli(['link', 'add', 'https://example.com/holder', '--alias', 'res-taken'], { env });
    const first = await runCli(['link', 'add', '--from', csv, '--json'], { env });
    expect(first.code).toBe(1);
    expect((JSON.parse(first.stdout) as Array<{ status: string }>).map((x) => x.status)).toEqual(['failed', 'created']);
    expect(journals()).toHaveLength(1);
    await runCli(['link', 'delete', String((JSON.parse((await runCli(['link', 'list', '--search', 'holder', '--json'], { env })).stdout) as Array<{ id: number }>)[0]!.id), '--yes'], { env });
    const before = posts('/api/url/add').length;
    const again = await runCli(['link', 'add', '--from', csv, '--json'], { env });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('1 finished in an earlier run, not sent again');
    expect(posts('/api/url/add').slice(before).map((p) => (p.body as { url: string }).url)).toEqual(['https://example.com/res-1']);
    expect(journals()).toEqual([]);
    // --restart ignores a kept journal: every row is sent.
    await runCli(['link', 'add', 'https://example.com/holder-2', '--alias', 'res-taken'], { env });
    const csv2 = file('restart.csv', 'url,alias\nhttps://example.com/rs-1,res-taken\nhttps://example.com/rs-2,rs-new\n');
    const kept = await runCli(['link', 'add', '--from', csv2, '--json'], { env });
    expect(kept.code).toBe(1);
    // The row that was created is deleted: only a run that ignores the journal creates it again.
    const createdId = (JSON.parse(kept.stdout) as Array<{ status: string; id: number }>).find((x) => x.status === 'created')!.id;
    expect((await runCli(['link', 'delete', String(createdId), '--yes'], { env })).code).toBe(0);
    const sentBefore = posts('/api/url/add').length;
    const restart = await runCli(['link', 'add', '--from', csv2, '--restart', '--if-exists', 'return', '--json'], { env });
    expect((JSON.parse(restart.stdout) as Array<{ status: string }>).map((x) => x.status)).toEqual(['failed', 'created']);
    expect(posts('/api/url/add').slice(sentBefore).map((p) => (p.body as { url: string }).url)).toContain('https://example.com/rs-2');
    expect(restart.stderr).not.toContain('finished in an earlier run');
  });

  it('--if-exists skip on a finished file sends no POST, even ignoring the journal', async () => {
    const csv = file('skip.csv', 'url,description\nhttps://example.com/skip-1,one\nhttps://example.com/skip-2,two\n');
    const first = await runCli(['link', 'add', '--from', csv, '--if-exists', 'skip', '--json'], { env: fx.env });
    expect(first.code).toBe(0);
    const created = JSON.parse(first.stdout) as Array<{ status: string; id: number }>;
    expect(created.map((x) => x.status)).toEqual(['created', 'created']);
    const again = await runCli(['link', 'add', '--from', csv, '--if-exists', 'skip', '--restart', '--json'], { env: fx.env });
    expect(again.code).toBe(0);
    const skipped = JSON.parse(again.stdout) as Array<{ status: string; id: number }>;
    expect(skipped.map((x) => [x.status, x.id])).toEqual(created.map((x) => ['skipped', x.id]));
    expect(posts('/api/url/add')).toHaveLength(2);
    expect(again.stderr).toContain('skip.csv:2: note: https://example.com/skip-1 is already shortened as link');
  });

  it('a lost answer (the connection drops after the server created the link) is looked up, not sent twice', async () => {
    const csv = file('lost.csv', 'url,alias\nhttps://example.com/lost,lost-one\nhttps://example.com/kept,kept-one\n');
    fx.sandbox.injectFault({ kind: 'reset-after-body', method: 'POST' }); // link add looks the URL up first (GET)
    // One row at a time, so that the fault meets the first row's POST.
    const r = await runCli(['link', 'add', '--from', csv, '--json', '--concurrency', '1'], { env: fx.env });
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(rows.map((x) => x.status)).toEqual(['created', 'created']);
    expect(rows[0]!.shorturl).toMatch(/\/lost-one$/);
    expect(posts('/api/url/add').map((p) => (p.body as { url: string }).url)).toEqual(['https://example.com/lost', 'https://example.com/kept']);
    expect(fx.sandbox.requests.some((q) => q.method === 'GET' && q.path === '/api/urls')).toBe(true);
  });

  it('an outcome still unknown at the end of a run is looked up by the next run before anything is sent again', async () => {
    const csv = file('unknown.csv', 'url,alias\nhttps://example.com/u1,unknown-one\nhttps://example.com/u2,unknown-two\n');
    // The POST is carried out but its answer lost, and the look-up fails too (three dropped GETs).
    fx.sandbox.injectFault({ kind: 'reset-after-body', method: 'POST' });
    fx.sandbox.injectFault({ kind: 'reset-before-body' }, 3);
    // One row at a time, so that the faults meet the requests they are meant for (the first row's POST, then its look-up).
    const first = await runCli(['link', 'add', '--from', csv, '--json', '--concurrency', '1'], { env: fx.env });
    expect(first.code).toBe(1);
    const rows = JSON.parse(first.stdout) as Array<Record<string, unknown>>;
    expect(rows.map((x) => x.status)).toEqual(['failed', 'created']);
    expect(rows[0]!.error).toMatch(/may or may not have been created/);
    const again = await runCli(['link', 'add', '--from', csv, '--json'], { env: fx.env });
    expect(again.code).toBe(0);
    const resolved = JSON.parse(again.stdout) as Array<Record<string, unknown>>;
    expect(resolved.map((x) => x.status)).toEqual(['created', 'created']);
    expect(resolved[0]!.shorturl).toMatch(/\/unknown-one$/);
    expect(posts('/api/url/add').map((p) => (p.body as { url: string }).url)).toEqual(['https://example.com/u1', 'https://example.com/u2']);
  });

  it('a failing row does not stop the run, but the exit code says so; --stop-on-error stops', async () => {
    // The sandbox refuses an alias that is taken: row 3 fails on the server.
    const csv = file('fail.csv', 'url,alias\nhttps://example.com/f1,dup-alias\nhttps://example.com/f2,dup-alias\nhttps://example.com/f3,\n');
    const r = await runCli(['link', 'add', '--from', csv, '--json'], { env: fx.env });
    const rows = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(rows.map((x) => x.status)).toEqual(['created', 'failed', 'created']);
    expect(rows[1]!.error).toEqual(expect.any(String));
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('1 failed');
    const stop = file('stop.csv', 'url,alias\nhttps://example.com/s1,dup-alias\nhttps://example.com/s2,\n');
    // One row at a time: no row is started after a failure, but rows already in flight would finish (and be listed).
    const s = await runCli(['link', 'add', '--from', stop, '--json', '--stop-on-error', '--concurrency', '1'], { env: fx.env });
    expect(s.code).toBe(1);
    expect((JSON.parse(s.stdout) as unknown[]).length).toBe(1);
    expect(s.stderr).toContain('stopped at row 2 (--stop-on-error), 1 not attempted');
  });
});

describe('other commands', () => {
  it('qr add from NDJSON: structured data as a JSON object or typed columns', async () => {
    const nd = file(
      'codes.ndjson',
      [
        '{"type":"wifi","name":"Office","data":{"ssid":"Office","pass":"s3cret","encryption":"WPA"}}',
        '{"type":"wifi","name":"Guest","ssid":"Guest","wifi-password":"guest-pass"}',
        '',
        '{"type":"link","name":"Home","data":"https://example.com"}',
      ].join('\n'),
    );
    const r = await runCli(['qr', 'add', '--from', nd, '-o', 'ndjson'], { env: fx.env });
    expect(r.code).toBe(0);
    const rows = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows.map((x) => [x.row, x.status])).toEqual([[1, 'created'], [2, 'created'], [4, 'created']]);
    expect(rows[0]!.link).toEqual(expect.any(String));
    expectSameMembers(posts('/api/qr/add').map((p) => p.body), [
      expect.objectContaining({ type: 'wifi', name: 'Office', data: { ssid: 'Office', pass: 's3cret', encryption: 'WPA' } }),
      expect.objectContaining({ type: 'wifi', name: 'Guest', data: { ssid: 'Guest', pass: 'guest-pass', encryption: 'WPA' } }),
      expect.objectContaining({ type: 'link', name: 'Home', data: 'https://example.com' }),
    ]);
  });

  it('pixel add from a JSON array, command-line flags applying to every row', async () => {
    const json = file('pixels.json', JSON.stringify([{ name: 'Analytics', tag: 'G-ABC123' }, { name: 'Second', tag: 'G-DEF456' }]));
    const r = await runCli(['pixel', 'add', '--type', 'gapixel', '--from', json, '--json'], { env: fx.env });
    expect(r.stderr).toContain('2 of 2 rows done (2 created)');
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as Array<{ row: number }>).map((x) => x.row)).toEqual([1, 2]);
    expectSameMembers(posts('/api/pixel/add').map((p) => p.body), [
      { type: 'gapixel', name: 'Analytics', tag: 'G-ABC123' },
      { type: 'gapixel', name: 'Second', tag: 'G-DEF456' },
    ]);
  });

  it('link delete --from - takes the ids that `link list --all -q` prints, and confirms once', async () => {
    for (const url of ['https://example.com/d1', 'https://example.com/d2']) expect((await runCli(['link', 'add', url], { env: fx.env })).code).toBe(0);
    const ids = (await runCli(['link', 'list', '--all', '-q'], { env: fx.env })).stdout;
    const count = ids.trim().split('\n').length;
    expect(count).toBeGreaterThanOrEqual(2);
    const refused = await runCli(['link', 'delete', '--from', '-'], { env: fx.env, stdin: ids });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('pass --yes');
    expect(fx.sandbox.requests.filter((q) => q.method === 'DELETE')).toEqual([]);
    const r = await runCli(['link', 'delete', '--from', '-', '--yes', '-o', 'csv'], { env: fx.env, stdin: ids });
    expect(r.code).toBe(0);
    expect(parseCsv(r.stdout).map((x) => [x.id, x.status])).toEqual(ids.trim().split('\n').map((id) => [id, 'deleted']));
    expect((await runCli(['link', 'list', '--all', '-q'], { env: fx.env })).stdout).toBe('');
  });

  it('link update --from: one read and one update per row, confirmed once', async () => {
    const ids = (await runCli(['link', 'list', '--all', '-q'], { env: fx.env })).stdout.trim().split('\n');
    const csv = file('changes.csv', `id,meta-description,private\n${ids[0]},changed once,true\n${ids[1]},changed twice,\n`);
    const refused = await runCli(['link', 'update', '--from', csv], { env: fx.env });
    expect(refused.code).toBe(2);
    expect(fx.sandbox.requests.filter((q) => q.method === 'PUT')).toEqual([]);
    const r = await runCli(['link', 'update', '--from', csv, '--yes', '--json'], { env: fx.env });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as Array<{ status: string; id: number }>).map((x) => [x.status, String(x.id)])).toEqual([['updated', ids[0]], ['updated', ids[1]]]);
    const puts = fx.sandbox.requests.filter((q) => q.method === 'PUT');
    expectSameMembers(puts.map((q) => [q.path, q.body]), [
      [`/api/url/${ids[0]}/update`, expect.objectContaining({ metadescription: 'changed once', status: 'private' })],
      [`/api/url/${ids[1]}/update`, expect.objectContaining({ metadescription: 'changed twice' })],
    ]);
    expect(r.stderr).toContain('changes.csv: 2 of 2 rows done (2 updated)');
  });

  it('campaign add and domain add from CSV', async () => {
    const campaigns = file('campaigns.csv', 'name,slug,public\nWinter launch,winter,true\nSummer,,false\n');
    const c = await runCli(['campaign', 'add', '--from', campaigns, '--json'], { env: fx.env });
    expect(c.code).toBe(0);
    expectSameMembers(posts('/api/campaign/add').map((p) => p.body), [{ name: 'Winter launch', slug: 'winter', public: true }, { name: 'Summer' }]);
    const domains = file('domains.csv', 'url,redirect-root\nhttps://go.bulk.example,https://example.com\n');
    const d = await runCli(['domain', 'add', '--from', domains, '--json'], { env: fx.env });
    expect(d.code).toBe(0);
    expect(posts('/api/domain/add').map((p) => p.body)).toEqual([{ domain: 'https://go.bulk.example', redirectroot: 'https://example.com' }]);
  });

  it('--from and a positional argument together is a usage error', async () => {
    const csv = file('x.csv', 'url\nhttps://example.com\n');
    const r = await runCli(['link', 'add', 'https://example.com', '--from', csv], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--from replaces the URL argument');
    expect(fx.sandbox.requests).toEqual([]);
  });
});

describe('killed half-way', () => {
  it('a run killed with SIGKILL and run again creates each row exactly once', async () => {
    // A slow sandbox (5 requests a second) so that the kill lands in the middle of the run.
    const sandbox = await startSandbox({ port: 0, rateLimit: { limit: 5, windowSeconds: 1 } });
    const configDir = tempDir();
    const env = { LINKCTL_BASE_URL: sandbox.url, LINKCTL_API_KEY: sandbox.key, LINKCTL_CONFIG_DIR: configDir };
    try {
      const urls = Array.from({ length: 20 }, (_, i) => `https://example.com/kill-${i}`);
      const csv = file('kill.csv', `url\n${urls.join('\n')}\n`);
      const child = spawn(process.execPath, [BIN, 'link', 'add', '--from', csv], { env: cleanEnv(env), stdio: 'ignore' });
      const exited = new Promise((resolve) => child.on('exit', resolve));
      const postsSoFar = () => sandbox.requests.filter((q) => q.method === 'POST').length;
      // Until 8 rows were sent, however slowly the machine runs it (the test's timeout guards a hang).
      while (postsSoFar() < 8) await new Promise((r) => setTimeout(r, 20));
      child.kill('SIGKILL');
      await exited;
      expect(postsSoFar()).toBeGreaterThanOrEqual(8);
      expect(postsSoFar()).toBeLessThan(20);

      const r = await runCli(['link', 'add', '--from', csv, '--json'], { env, timeoutMs: 40_000 });
      expect(r.code).toBe(0);
      const rows = JSON.parse(r.stdout) as Array<{ row: number; status: string; id: number }>;
      expect(rows).toHaveLength(20);
      expect(rows.every((x) => x.status === 'created' && x.id > 0)).toBe(true);
      expect(new Set(rows.map((x) => x.id)).size).toBe(20);
      const posted = sandbox.requests.filter((q) => q.method === 'POST').map((q) => (q.body as { url: string }).url);
      expect([...posted].sort()).toEqual([...urls].sort());
      expect(r.stderr).toMatch(/\d+ finished in an earlier run, not sent again/);
    } finally {
      await sandbox.close();
      rmSync(configDir, { recursive: true, force: true });
    }
  });
});
