// One state file shared by several sandboxes (as `--sandbox` commands and `sandbox serve` share
// the config folder's): no lost writes, readers see other writers, corruption is a ConfigError.
import { existsSync, mkdtempSync, readdirSync, rmSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { StateLockedError, withStateLock } from '../../src/sandbox/state.js';
import { call, get, useSandbox } from './helpers.js';

const start = useSandbox();
const dirs: string[] = [];
const made = (dir: string) => (dirs.push(dir), dir);
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
const tempFile = () => join(made(mkdtempSync(join(tmpdir(), 'linkctl-sandbox-'))), 'state.json');
const longurls = async (sb: Parameters<typeof get>[0]) =>
  ((await get(sb, '/api/urls?limit=100')).json.data.urls as { longurl: string }[]).map((l) => l.longurl).sort();

describe('a state file shared by two sandboxes', () => {
  it('keeps every write of interleaved POSTs to both, with distinct ids', async () => {
    const file = tempFile();
    const [a, b] = await Promise.all([start({ stateFile: file }), start({ stateFile: file })]);
    const urls = Array.from({ length: 12 }, (_, i) => `https://example.com/par/${i}`);
    const added = await Promise.all(urls.map((url, i) => call(i % 2 ? b : a, 'POST', '/api/url/add', { url })));
    expect(added.map((r) => [r.status, r.json.error])).toEqual(urls.map(() => [200, 0]));
    expect(added.map((r) => r.json.id).sort((x, y) => x - y)).toEqual(urls.map((_, i) => i + 3)); // seed has ids 1, 2

    const all = ['https://sandbox.localhost/docs', 'https://sandbox.localhost/sale', ...urls].sort();
    expect(await longurls(a)).toEqual(all);
    expect(await longurls(b)).toEqual(all);
    expect(JSON.parse(readFileSync(file, 'utf8')).links).toHaveLength(14);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(file, '..'))).toEqual(['state.json']); // no lock or temp file left
  });

  it('lets a reader see another sandbox\'s write without writing itself', async () => {
    const file = tempFile();
    const writer = await start({ stateFile: file });
    const reader = await start({ stateFile: file });
    expect((await get(reader, '/api/pixels')).json.data.result).toBe(1);
    await call(writer, 'POST', '/api/pixel/add', { type: 'bing', name: 'Bing', tag: 'bing-1' });
    expect((await get(reader, '/api/pixels')).json.data.pixels.map((p: { name: string }) => p.name)).toEqual(['Main analytics', 'Bing']); // oldest first, as 7.7 lists them
    await call(reader, 'DELETE', '/api/pixel/1/delete');
    expect((await get(writer, '/api/pixels')).json.data.pixels.map((p: { name: string }) => p.name)).toEqual(['Bing']);
  });

  it('agrees on one initial state when both start on a missing file', async () => {
    const file = tempFile();
    const [a, b] = await Promise.all([start({ stateFile: file }), start({ stateFile: file })]);
    await call(a, 'POST', '/api/channel/add', { name: 'From A' });
    await call(b, 'POST', '/api/channel/add', { name: 'From B' });
    expect((await get(a, '/api/channels')).json.data.channels.map((c: { name: string }) => c.name)).toEqual(['Marketing', 'From A', 'From B']); // oldest first, as 7.7 lists them
  });
});

describe('the state file lock', () => {
  it('answers a mutation with HTTP 500 "sandbox state is locked" when another holds it ~5 s, and changes nothing', async () => {
    const file = tempFile();
    const sb = await start({ stateFile: file });
    const before = readFileSync(file, 'utf8');
    writeFileSync(`${file}.lock`, 'someone else');
    const t0 = Date.now();
    const r = await call(sb, 'POST', '/api/channel/add', { name: 'Blocked' });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(4900);
    expect(r.status).toBe(500);
    expect(r.json).toEqual({ error: 1, message: 'sandbox state is locked' });
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(readFileSync(`${file}.lock`, 'utf8')).toBe('someone else'); // not ours to remove
    // reads do not wait for the lock
    expect((await get(sb, '/api/channels')).json.data.result).toBe(1);
  });

  it('removes a lock older than 10 s (left by a crashed process)', async () => {
    const file = tempFile();
    const sb = await start({ stateFile: file });
    writeFileSync(`${file}.lock`, 'crashed');
    const old = (Date.now() - 11_000) / 1000;
    utimesSync(`${file}.lock`, old, old);
    const r = await call(sb, 'POST', '/api/channel/add', { name: 'After crash' });
    expect(r.json).toMatchObject({ error: 0, id: 2 });
    expect(existsSync(`${file}.lock`)).toBe(false);
  });

  it('withStateLock runs one holder at a time and times out with a StateLockedError (exit 7)', async () => {
    const file = tempFile();
    const order: string[] = [];
    let inside = 0;
    await Promise.all(['a', 'b', 'c'].map((name) => withStateLock(file, () => {
      order.push(name);
      expect(++inside).toBe(1);
      inside--;
    })));
    expect(order.sort()).toEqual(['a', 'b', 'c']);

    writeFileSync(`${file}.lock`, 'held');
    const err = await withStateLock(file, () => 'never', 100).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StateLockedError);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).exitCode).toBe(7);
    expect((err as Error).message).toContain(file);
  });
});

describe('a corrupt state file', () => {
  it('makes startSandbox reject with a ConfigError naming the path, not the content, and leaves the file alone', async () => {
    const file = tempFile();
    const text = '{"account": {"email": "private-words-here"';
    writeFileSync(file, text);
    const err = await startSandbox({ stateFile: file }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    const { message, hint, exitCode } = err as ConfigError;
    expect(exitCode).toBe(7);
    expect(message).toContain(file);
    expect(message).toMatch(/corrupt/);
    expect(`${message} ${hint}`).not.toMatch(/private-words-here|"account"/);
    expect(hint).toMatch(/linkctl sandbox reset/);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('rejects `{` and a wrongly shaped file the same way', async () => {
    const file = tempFile();
    writeFileSync(file, '{');
    await expect(startSandbox({ stateFile: file })).rejects.toBeInstanceOf(ConfigError);
    writeFileSync(file, JSON.stringify({ version: 1, links: 'nope' }));
    await expect(startSandbox({ stateFile: file })).rejects.toThrow(`${file} is not a sandbox state file`);
  });

  it('broken while a sandbox runs: requests get a JSON error naming it, and admin reset mends it', async () => {
    const file = tempFile();
    const sb = await start({ stateFile: file });
    writeFileSync(file, '{');
    const r = await get(sb, '/api/qr');
    expect(r.status).toBe(500);
    expect(r.json.error).toBe(1);
    expect(r.json.message).toContain(file);
    expect(r.json.message).toMatch(/sandbox reset/);
    expect((await call(sb, 'POST', '/__sandbox/reset')).json).toEqual({ ok: true });
    expect((await get(sb, '/api/qr')).json.data.result).toBe(3);
    expect(JSON.parse(readFileSync(file, 'utf8')).qrs).toHaveLength(3);
  });
});
