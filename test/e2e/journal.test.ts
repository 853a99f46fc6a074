/**
 * The bulk journal under attack and carelessness (issue 19, "never twice"): two runs of the same
 * file at once, a full disk, a torn or corrupt journal, changed flags, a symlink or an unwritable
 * file where the journal goes. Two real processes for the lock (the built CLI), main() in-process
 * for the rest, against a sandbox whose request log is the proof that nothing was sent twice.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, runMain, spawnCli, tempDir, useSandbox } from '../helpers.js';

const fx = useSandbox();
const files = tempDir('linkctl-journal-');
afterAll(() => rmSync(files, { recursive: true, force: true }));

let n = 0;
/** A folder of the test's own: its input file and its config folder (so its journals are its own). */
function setup(name: string, text: string) {
  const dir = join(files, String(++n));
  mkdirSync(dir);
  const path = join(dir, name);
  writeFileSync(path, text);
  const configDir = join(dir, 'config');
  const bulk = join(configDir, 'state', 'bulk');
  const journals = () => (existsSync(bulk) ? readdirSync(bulk).filter((f) => f.endsWith('.jsonl')).map((f) => join(bulk, f)) : []);
  return { path, dir, bulk, env: { ...fx.env, LINKCTL_CONFIG_DIR: configDir }, journals };
}

const requests = (method: string, path: string) => fx.sandbox.requests.filter((r) => r.method === method && r.path === path);
/** The names of the QR codes POSTed (a POST the sandbox failed on purpose is in here too: see `onServer`). */
const qrNames = (prefix = '') => requests('POST', '/api/qr/add').map((r) => (r.body as { name: string }).name).filter((name) => name.startsWith(prefix));
/** The names of the QR codes that exist on the sandbox: what was created, each as often as it was. */
async function onServer(prefix: string): Promise<string[]> {
  const answer = await fetch(`${fx.sandbox.url}/api/qr?limit=1000`, { headers: { Authorization: `Bearer ${fx.sandbox.key}` } });
  const body = (await answer.json()) as { data: { qrs: Array<{ name: string }> } };
  return body.data.qrs.map((q) => q.name).filter((name) => name.startsWith(prefix)).sort();
}
const qrCsv = (names: string[]) => `type,data,name\n${names.map((name) => `link,https://example.com/${name},${name}`).join('\n')}\n`;

describe('two runs of the same file at once', () => {
  it('the second refuses, naming the first (pid, start); nothing is created twice', async () => {
    // A proxy of the test's own in front of the sandbox holds the first run's first POST until the second run has ended.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const firstPost = new Promise<void>((resolve) => (arrived = resolve));
    let holding = true;
    const proxy = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      if (req.method === 'POST' && holding) {
        holding = false;
        arrived();
        await held;
      }
      const answer = await fetch(`${fx.sandbox.url}${req.url}`, { method: req.method, headers: { authorization: String(req.headers.authorization), 'content-type': 'application/json' }, body: chunks.length ? Buffer.concat(chunks) : undefined });
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const { path, env: own, journals } = setup('q.csv', qrCsv(Array.from({ length: 15 }, (_, i) => `twice-${i}`)));
    const env = { ...own, LINKCTL_BASE_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` };
    try {
      const first = spawn(process.execPath, [BIN, 'qr', 'add', '--from', path, '--json'], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      first.stdout.setEncoding('utf8').on('data', (d) => (out += d));
      const exited = new Promise<number | null>((resolve) => first.on('close', resolve));
      await firstPost;

      const second = await runCli(['qr', 'add', '--from', path, '--json'], { env, timeoutMs: 60_000 });
      release();
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(`another linkctl is running the same file (pid ${first.pid}, started 20`);
      expect(second.stderr).toContain('qr add --from');
      expect(second.stderr).toMatch(/hint: wait for it to finish.*If that process is gone.*remove .*\.lock/);
      expect(second.stdout).toBe('');

      expect(await exited).toBe(0);
      expect((JSON.parse(out) as unknown[]).length).toBe(15);
      // The sandbox got one POST a row and nothing else; each code exists once.
      expect(fx.sandbox.requests.map((q) => q.method)).toEqual(Array(15).fill('POST'));
      expect(new Set(qrNames('twice-')).size).toBe(15);
      expect(await onServer('twice-')).toHaveLength(15);
      expect(journals()).toEqual([]);
    } finally {
      release();
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('a lock whose process is gone (a dead pid, or a live pid that started at another time) is taken over at once', async () => {
    const { path, env, bulk, journals } = setup('q.csv', qrCsv(['stale-1', 'stale-2']));
    // A first run that keeps its journal (the second row fails on the server), so the lock's name is known.
    fx.sandbox.injectFault({ kind: 'html', status: 500, method: 'POST' });
    fx.sandbox.injectFault({ kind: 'html', status: 500, method: 'POST' });
    expect((await runMain(['qr', 'add', '--from', path], { env })).code).toBe(1);
    const [journal] = journals();
    const lock = journal!.replace(/\.jsonl$/, '.lock');
    expect(existsSync(lock)).toBe(false); // released at the end of the run

    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((resolve) => dead.on('close', resolve));
    writeFileSync(lock, JSON.stringify({ pid: dead.pid, host: (await import('node:os')).hostname(), started: '2020-01-01T00:00:00.000Z', what: 'qr add --from q.csv', token: 'x' }));
    const r = await runMain(['qr', 'add', '--from', path, '--json'], { env });
    expect(r.code).toBe(0);
    expect(await onServer('stale-')).toEqual(['stale-1', 'stale-2']);
    expect(readdirSync(bulk)).toEqual([]);

    // This test's own process is alive; a lock naming it with another start time is from a reused pid (seen by another process: the CLI).
    const again = setup('q.csv', qrCsv(['reused']));
    fx.sandbox.injectFault({ kind: 'html', status: 500, method: 'POST' });
    expect((await runMain(['qr', 'add', '--from', again.path], { env: again.env })).code).toBe(1);
    const reusedLock = again.journals()[0]!.replace(/\.jsonl$/, '.lock');
    const host = (await import('node:os')).hostname();
    writeFileSync(reusedLock, JSON.stringify({ pid: process.pid, host, started: '2020-01-01T00:00:00.000Z', procStart: '1', what: 'qr add', token: 'y' }));
    expect((await spawnCli(['qr', 'add', '--from', again.path], { env: again.env })).code).toBe(0);
    expect(await onServer('reused')).toEqual(['reused']);

    // A lock naming a live process (this test's own, with its true start time) is respected: nothing is sent.
    const live = setup('q.csv', qrCsv(['live']));
    fx.sandbox.injectFault({ kind: 'html', status: 500, method: 'POST' });
    expect((await runMain(['qr', 'add', '--from', live.path], { env: live.env })).code).toBe(1);
    const liveLock = live.journals()[0]!.replace(/\.jsonl$/, '.lock');
    const stat = readFileSync(`/proc/${process.pid}/stat`, 'utf8');
    writeFileSync(liveLock, JSON.stringify({ pid: process.pid, host, started: '2020-01-01T00:00:00.000Z', procStart: stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19], what: 'qr add --from q.csv', token: 'z' }));
    const before = fx.sandbox.requests.length;
    const refused = await spawnCli(['qr', 'add', '--from', live.path], { env: live.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`(pid ${process.pid}, started 2020-01-01T00:00:00.000Z: qr add --from q.csv)`);
    expect(fx.sandbox.requests.length).toBe(before);
  }, 120_000);
});

describe('a full disk', () => {
  it('stops with exit 1 naming the folder before a row whose "sending" could not be written whole; the next run sends each row once', async () => {
    const names = Array.from({ length: 6 }, (_, i) => `full-${i}`);
    const { path, env, bulk, journals } = setup('q.csv', qrCsv(names));
    // For tests only: the journal's writer fails (ENOSPC) after 700 bytes, in the middle of a line.
    // One row at a time, so that rows after the failure are not attempted (rows already in flight would finish and be listed).
    const r = await runMain(['qr', 'add', '--from', path, '--json', '--concurrency', '1'], { env: { ...env, LINKCTL_TEST_JOURNAL_FAIL_AFTER: '700' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`linkctl: cannot write the journal in ${bulk} (ENOSPC: no space left on device)`);
    const stopped = /row (\d+) was (not sent|\w+ but the journal could not record it)/.exec(r.stderr);
    expect(stopped).not.toBeNull();
    expect(r.stderr).toMatch(/q\.csv: \d of 6 rows done \(\d created\); \d not attempted/);
    expect(r.stderr).toContain('hint: free some space there');
    expect(r.stderr).not.toContain('unexpected error');
    const sentFirst = await onServer('full-');
    expect(sentFirst.length).toBeGreaterThan(0);
    expect(sentFirst.length).toBeLessThan(6);
    // The injected failure tore the last line, and the journal cut it off again: only whole lines stay.
    const [journal] = journals();
    const written = readFileSync(journal!, 'utf8');
    expect(written.endsWith('\n')).toBe(true);
    for (const line of written.trim().split('\n')) expect(() => JSON.parse(line), line).not.toThrow();

    const again = await runMain(['qr', 'add', '--from', path, '--json'], { env });
    expect(again.code, `${r.stderr}\n${written}\n${again.stderr}`).toBe(0);
    expect((JSON.parse(again.stdout) as Array<{ status: string }>).map((x) => x.status)).toEqual(names.map(() => 'created'));
    expect(qrNames('full-').sort(), `${r.stderr}\n${written}\n${again.stderr}`).toEqual([...names].sort()); // each sent exactly once
    expect(await onServer('full-')).toEqual([...names].sort());
    expect(journals()).toEqual([]);
  });

  it('a full disk while the journal\'s first line is written leaves no unreadable journal: the next run goes ahead (no --restart)', async () => {
    const names = ['hdr-1', 'hdr-2'];
    const { path, env, journals } = setup('q.csv', qrCsv(names));
    const r = await runMain(['qr', 'add', '--from', path], { env: { ...env, LINKCTL_TEST_JOURNAL_FAIL_AFTER: '20' } });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('ENOSPC');
    expect(await onServer('hdr-')).toEqual([]);
    expect(journals().map((j) => readFileSync(j, 'utf8'))).toEqual(journals().map(() => ''));
    const again = await runMain(['qr', 'add', '--from', path, '--json'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(await onServer('hdr-')).toEqual(names);
  });

  it('a journal whose only line is a header cut short holds nothing: the next run starts it again and sends each row once', async () => {
    const names = ['cut-hdr-1', 'cut-hdr-2'];
    const { path, env, journals } = setup('q.csv', qrCsv(names));
    // A run that keeps its journal (its rows fail on the server); then its header, cut short, is all that is left.
    fx.sandbox.injectFault({ kind: 'html', status: 500, method: 'POST' }, 2);
    await runMain(['qr', 'add', '--from', path], { env });
    expect(await onServer('cut-hdr-')).toEqual([]);
    const [journal] = journals();
    const [header] = readFileSync(journal!, 'utf8').split('\n');
    writeFileSync(journal!, header!.slice(0, 30));
    const posts = qrNames('cut-hdr-').length;
    const r = await runMain(['qr', 'add', '--from', path, '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/corrupt/);
    expect((JSON.parse(r.stdout) as Array<{ status: string }>).map((x) => x.status)).toEqual(['created', 'created']);
    expect(qrNames('cut-hdr-').slice(posts)).toEqual(names);
    expect(await onServer('cut-hdr-')).toEqual(names);
    // The run finished: its journal (started again with a whole header) is retired.
    expect(journals()).toEqual([]);
  });

  it('a torn last line is an unknown outcome: looked up, not sent again; a new line never continues it', async () => {
    const { path, env, journals } = setup('q.csv', qrCsv(['torn-1', 'torn-2', 'torn-3']));
    // A run that keeps its journal: row 3 fails on the server.
    fx.sandbox.injectFault({ kind: 'html', status: 500, method: 'POST' }, 1);
    fx.sandbox.injectFault({ kind: 'html', status: 500, method: 'POST' }, 1);
    const first = await runMain(['qr', 'add', '--from', path, '--json'], { env });
    expect((JSON.parse(first.stdout) as Array<{ status: string }>).map((x) => x.status)).toEqual(['failed', 'failed', 'created']);
    const [journal] = journals();
    const [header] = readFileSync(journal!, 'utf8').split('\n');
    // Rows are the file's lines (2, 3, 4). As if torn-2 (line 3) had been created by a run whose outcome line was cut short.
    await runMain(['qr', 'add', '--type', 'link', '--data', 'https://example.com/torn-2', '--name', 'torn-2'], { env });
    writeFileSync(journal!, `${header}\n{"row":4,"state":"sending"}\n{"row":4,"state":"created","id":1}\n{"row":3,"state":"sending"}\n{"row":3,"state":"crea`);
    const postsBefore = qrNames('torn-').length;
    const getsBefore = requests('GET', '/api/qr').length;
    const r = await runMain(['qr', 'add', '--from', path, '--json'], { env });
    expect(r.code).toBe(0);
    expect(requests('GET', '/api/qr').length).toBeGreaterThan(getsBefore); // the lookup of torn-2, by this run
    const rows = JSON.parse(r.stdout) as Array<{ row: number; status: string }>;
    expect(rows.map((x) => x.status)).toEqual(['created', 'created', 'created']);
    // torn-2 was found by its name (a GET), not posted again; torn-1 was never sent, so it is.
    expect(qrNames('torn-').slice(postsBefore)).toEqual(['torn-1']);
    expect(await onServer('torn-')).toEqual(['torn-1', 'torn-2', 'torn-3']);

    // A line torn before it named its row: the next unfinished row after the last whole entry is the unknown one.
    const second = setup('q.csv', qrCsv(['cut-1', 'cut-2']));
    fx.sandbox.injectFault({ kind: 'html', status: 500, method: 'POST' }, 1);
    fx.sandbox.injectFault({ kind: 'html', status: 500, method: 'POST' }, 1);
    await runMain(['qr', 'add', '--from', second.path], { env: second.env });
    const [journal2] = second.journals();
    const [header2] = readFileSync(journal2!, 'utf8').split('\n');
    await runMain(['qr', 'add', '--type', 'link', '--data', 'https://example.com/cut-1', '--name', 'cut-1'], { env });
    writeFileSync(journal2!, `${header2}\n{"ro`);
    const before2 = qrNames('cut-').length;
    const r2 = await runMain(['qr', 'add', '--from', second.path, '--json'], { env: second.env });
    expect(r2.code).toBe(0);
    expect(qrNames('cut-').slice(before2)).toEqual(['cut-2']); // cut-1 was looked up and found
    expect(await onServer('cut-')).toEqual(['cut-1', 'cut-2']);
  });

  it('a run that resumes after a torn line starts a new line, and its journal reads back', async () => {
    const { path, env, journals } = setup('q.csv', qrCsv(['nl-1', 'nl-2']));
    fx.sandbox.injectFault({ kind: 'html', status: 500, method: 'POST' }, 1);
    fx.sandbox.injectFault({ kind: 'html', status: 500, method: 'POST' }, 1);
    await runMain(['qr', 'add', '--from', path], { env });
    const [journal] = journals();
    const [header] = readFileSync(journal!, 'utf8').split('\n');
    writeFileSync(journal!, `${header}\n{"row":2,"state":"sen`);
    // This run fails row 2 again (so the journal stays) after resuming: its lines start on a new line.
    fx.sandbox.injectFault({ kind: 'html', status: 500, method: 'POST' }, 1);
    fx.sandbox.injectFault({ kind: 'html', status: 500, method: 'POST' }, 1);
    const r = await runMain(['qr', 'add', '--from', path, '--json'], { env });
    expect(r.code).toBe(1);
    const lines = readFileSync(journal!, 'utf8').split('\n');
    expect(lines[1]).toBe('{"row":2,"state":"sen');
    expect(lines[2]).toMatch(/^\{"run":"/);
    // The next run reads it (the torn line is followed by a run line: not corruption) and finishes.
    const last = await runMain(['qr', 'add', '--from', path, '--json'], { env });
    expect(last.code).toBe(0);
    expect(await onServer('nl-')).toEqual(['nl-1', 'nl-2']);
  });
});

describe('a corrupt journal', () => {
  it('is refused, naming the file and --restart; nothing is sent', async () => {
    const { path, env, journals } = setup('q.csv', qrCsv(['bad-1', 'bad-2', 'bad-3']));
    fx.sandbox.injectFault({ kind: 'html', status: 500, method: 'POST' }, 1);
    fx.sandbox.injectFault({ kind: 'html', status: 500, method: 'POST' }, 1);
    const first = await runMain(['qr', 'add', '--from', path], { env });
    expect(first.code).toBe(1);
    const [journal] = journals();
    const lines = readFileSync(journal!, 'utf8').split('\n');
    lines.splice(2, 0, 'garbage that is not a journal line');
    writeFileSync(journal!, lines.join('\n'));
    const before = fx.sandbox.requests.length;
    const r = await runMain(['qr', 'add', '--from', path], { env });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(`linkctl: the bulk journal ${journal} is corrupt (line 3: not a journal entry), so it cannot tell which rows were sent`);
    expect(r.stderr).toContain('run with --restart to start over');
    expect(fx.sandbox.requests.length).toBe(before);
    // A header that is not a journal's, and an empty line in the middle, are corruption too.
    writeFileSync(journal!, '{"row":1,"state":"created"}\n');
    expect((await runMain(['qr', 'add', '--from', path], { env })).stderr).toContain('(line 1: not the header of a linkctl journal)');
    writeFileSync(journal!, `${lines[0]}\n\n{"row":1,"state":"created"}\n`);
    expect((await runMain(['qr', 'add', '--from', path], { env })).stderr).toContain('(line 2: an empty line)');
    expect(fx.sandbox.requests.length).toBe(before);
    const restart = await runMain(['qr', 'add', '--from', path, '--restart', '--json'], { env });
    expect(restart.code).toBe(0);
  });
});

describe('flags that change what is sent', () => {
  it('link update --meta-description first, then second: the finished first run does not stop the second from sending', async () => {
    const created = JSON.parse((await runMain(['link', 'add', 'https://example.com/flags', '--json'], { env: fx.env })).stdout) as { id: number };
    const { path, env } = setup('ids.csv', `id\n${created.id}\n`);
    expect((await runMain(['link', 'update', '--from', path, '--meta-description', 'first', '--yes'], { env })).code).toBe(0);
    const second = await runMain(['link', 'update', '--from', path, '--meta-description', 'second', '--yes', '--json'], { env });
    expect(second.code).toBe(0);
    expect(second.stderr).not.toContain('finished in an earlier run');
    const puts = requests('PUT', `/api/url/${created.id}/update`).map((r) => (r.body as { metadescription: string }).metadescription);
    expect(puts).toEqual(['first', 'second']);
    const link = JSON.parse((await runMain(['link', 'get', String(created.id), '--json'], { env: fx.env })).stdout) as { details: { description: string } };
    expect(link.details.description).toBe('second');
  });

  it('an unfinished run is resumed only with the same flags: other flags are refused, naming them, and nothing is sent', async () => {
    const created = JSON.parse((await runMain(['link', 'add', 'https://example.com/flags-2', '--json'], { env: fx.env })).stdout) as { id: number };
    const { path, env } = setup('ids.csv', `id\n${created.id}\n999999\n`);
    const first = await runMain(['link', 'update', '--from', path, '--meta-description', 'first', '--yes'], { env });
    expect(first.code).toBe(1); // 999999 does not exist: the journal stays
    const before = fx.sandbox.requests.length;
    const r = await runMain(['link', 'update', '--from', path, '--meta-description', 'second', '--yes'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('was made with other flags: --meta-description "first" (now "second")');
    expect(r.stderr).toContain('hint: run it again with the same flags to finish it, or add --restart');
    expect(fx.sandbox.requests.length).toBe(before);
    // A journal of the version before (its header has no flags) is resumed as it is.
    const { journals } = { journals: () => readdirSync(join(env.LINKCTL_CONFIG_DIR, 'state', 'bulk')).filter((f) => f.endsWith('.jsonl')) };
    const journal = join(env.LINKCTL_CONFIG_DIR, 'state', 'bulk', journals()[0]!);
    const [header, ...rest] = readFileSync(journal, 'utf8').split('\n');
    const { settings: _settings, ...old } = JSON.parse(header!) as Record<string, unknown>;
    writeFileSync(journal, [JSON.stringify(old), ...rest].join('\n'));
    const resumed = await runMain(['link', 'update', '--from', path, '--meta-description', 'other', '--yes'], { env });
    expect(resumed.code).toBe(1); // 999999 fails again; the finished row is not sent again
    expect(resumed.stderr).toContain('1 finished in an earlier run, not sent again');
    const restart = await runMain(['link', 'update', '--from', path, '--meta-description', 'second', '--yes', '--restart', '--json'], { env });
    expect(restart.code).toBe(1);
    expect(requests('PUT', `/api/url/${created.id}/update`).map((q) => (q.body as { metadescription: string }).metadescription)).toEqual(['first', 'second']);
  });
});

describe('where the journal goes', () => {
  it('a symlink there is refused, not followed; what it points to is untouched', async () => {
    const { path, env, dir, journals } = setup('q.csv', qrCsv(['link-1', 'link-2']));
    fx.sandbox.injectFault({ kind: 'html', status: 500, method: 'POST' }, 1);
    fx.sandbox.injectFault({ kind: 'html', status: 500, method: 'POST' }, 1);
    await runMain(['qr', 'add', '--from', path], { env });
    const [journal] = journals();
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious\n');
    rmSync(journal!);
    symlinkSync(victim, journal!);
    const before = fx.sandbox.requests.length;
    const r = await runMain(['qr', 'add', '--from', path], { env });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(`linkctl: the bulk journal ${journal} is a symbolic link; linkctl does not follow links where it keeps its state`);
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(fx.sandbox.requests.length).toBe(before);
  });

  it('a journal that cannot be opened (a folder in its place) is named with the cause, not "unexpected error"', async () => {
    const { path, env, journals } = setup('q.csv', qrCsv(['dir-1', 'dir-2']));
    fx.sandbox.injectFault({ kind: 'html', status: 500, method: 'POST' }, 1);
    fx.sandbox.injectFault({ kind: 'html', status: 500, method: 'POST' }, 1);
    await runMain(['qr', 'add', '--from', path], { env });
    const [journal] = journals();
    rmSync(journal!);
    mkdirSync(journal!);
    const before = fx.sandbox.requests.length;
    const r = await runMain(['qr', 'add', '--from', path], { env });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(`linkctl: cannot use the bulk journal ${journal} (EISDIR`);
    expect(r.stderr).not.toContain('unexpected error');
    expect(fx.sandbox.requests.length).toBe(before);
  });

  it.skipIf(process.getuid?.() === 0)('a read-only journal is named with EACCES (skipped as root, who can write any file)', async () => {
    const { path, env, journals } = setup('q.csv', qrCsv(['ro-1', 'ro-2']));
    fx.sandbox.injectFault({ kind: 'html', status: 500, method: 'POST' }, 1);
    fx.sandbox.injectFault({ kind: 'html', status: 500, method: 'POST' }, 1);
    await runMain(['qr', 'add', '--from', path], { env });
    const [journal] = journals();
    chmodSync(journal!, 0o400);
    const r = await runMain(['qr', 'add', '--from', path], { env });
    expect(r.code).toBe(7);
    expect(r.stderr).toContain(`linkctl: cannot use the bulk journal ${journal} (EACCES: permission denied)`);
  });
});
