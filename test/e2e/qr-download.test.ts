// `qr download`: the image behind a QR code's link, saved only when it is one.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, runMain, tempDir, useSandbox } from '../helpers.js';
import { decodePng } from '../qr-decode.js';

// These tests save the image as served and name the file after it: they are about the plain PNG
// form (--qr-images png). The product's SVG form, the sandbox's default, is downloaded in
// sandbox-product-images.test.ts and qr-content.test.ts.
const fx = useSandbox({ qrImages: 'png' });

describe('qr download against the sandbox', () => {
  it('saves the PNG under qr-ID-NAME.png, and it scans as the code\'s data', async () => {
    const dir = tempDir();
    const r = await runCli(['qr', 'download', '1'], { env: fx.env, cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Saved qr-1-restaurant-menu\.png \(PNG, \d+ bytes\)\n$/);
    expect(readdirSync(dir)).toEqual(['qr-1-restaurant-menu.png']);
    // A link code's image holds the code's own short link (as on the product), which leads to its data.
    expect(decodePng(readFileSync(join(dir, 'qr-1-restaurant-menu.png')))).toMatch(new RegExp(`^${fx.sandbox.url}/q\\w+$`));
  });

  it('saves to --file atomically, leaving nothing else', async () => {
    const dir = tempDir();
    const file = join(dir, 'menu.png');
    const r = await runCli(['qr', 'download', '1', '--file', file, '--json'], { env: fx.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 1, file, type: 'png' });
    expect(decodePng(readFileSync(file))).toMatch(new RegExp(`^${fx.sandbox.url}/q\\w+$`));
    expect(readdirSync(dir)).toEqual(['menu.png']);
  });

  it('downloads many ids from a pipe into --dir', async () => {
    const dir = tempDir();
    const r = await runCli(['qr', 'download', '--from', '-', '--dir', dir], { env: fx.env, stdin: '1\n2\n' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['qr-1-restaurant-menu.png', 'qr-2-greeting.png']);
    expect(decodePng(readFileSync(join(dir, 'qr-2-greeting.png')))).toBe('Hello from the sandbox');
  });

  it('--dry-run with --from - saves nothing and says so: no file, no "saved" in --json', async () => {
    const dir = tempDir();
    const r = await runCli(['qr', 'download', '--from', '-', '--dir', dir, '--dry-run', '--json'], { env: fx.env, stdin: '1\n2\n' });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out.dryRun).toBe(true);
    expect(out.saved).toEqual([]);
    expect((out.wouldSave as Array<{ file: string }>).map((f) => f.file)).toEqual([join(dir, 'qr-1-restaurant-menu.png'), join(dir, 'qr-2-greeting.png')]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('says which ids failed in a batch, keeps the others, and exits with the failure\'s code', async () => {
    const dir = tempDir();
    const r = await runCli(['qr', 'download', '--from', '-', '--dir', dir], { env: fx.env, stdin: '1\n99\n' });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^linkctl: QR code 99: QR does not exist\.$/m);
    expect(r.stderr).toMatch(/saved 1 of 2 QR codes; failed: 99/);
    expect(readdirSync(dir)).toEqual(['qr-1-restaurant-menu.png']);
  });

  it.each([
    [['qr', 'download'], /give a QR code id, or --from -/],
    [['qr', 'download', '--from', 'ids.txt'], /--from must be "-"/],
    [['qr', 'download', '1', '--dir', '.'], /--dir is for --from -/],
  ])('refuses %j with exit 2', async (args, message) => {
    const r = await runMain(args, { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(fx.sandbox.requests).toHaveLength(0);
  });

  it('refuses a stdin line that is not an id, naming the line', async () => {
    const r = await runMain(['qr', 'download', '--from', '-', '--dir', tempDir()], { env: fx.env, stdin: '1\nabc\n' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/line 2 of stdin is not a QR code id/);
  });
});

/** A server whose QR link answers what a test wants; records who got the key. */
let server: Server | undefined;
let other: Server | undefined;
afterEach(async () => {
  await Promise.all([server, other].map((s) => s && new Promise((r) => s.close(r))));
  server = other = undefined;
});
const listen = async (handler: (req: IncomingMessage, res: ServerResponse) => void) => {
  const s = createServer(handler);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return { s, url: `http://127.0.0.1:${(s.address() as AddressInfo).port}` };
};
const KEY = 'hostile-test-key-123456';

async function hostile(image: (req: IncomingMessage, res: ServerResponse, base: string) => void) {
  const seen: { path: string; auth?: string }[] = [];
  const { s, url } = await listen((req, res) => {
    seen.push({ path: req.url ?? '', auth: req.headers.authorization });
    if (req.url === '/api/qr/7') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return res.end(JSON.stringify({ error: 0, details: { id: 7, link: `${url}/qr/abc`, scans: 0, name: 'Menu' }, data: {} }));
    }
    image(req, res, url);
  });
  server = s;
  return { url, seen, env: { LINKCTL_BASE_URL: url, LINKCTL_API_KEY: KEY, LINKCTL_CONFIG_DIR: tempDir() } };
}

describe('qr download against servers that answer something else', () => {
  it('an HTML page: exit 6 with a hint, no file', async () => {
    const h = await hostile((_req, res) => { res.writeHead(200, { 'Content-Type': 'text/html' }); res.end('<!DOCTYPE html><html><body>QR</body></html>'); });
    const dir = tempDir();
    const r = await runMain(['qr', 'download', '7', '--file', join(dir, 'x.png')], { env: h.env });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/answered an HTML page \(text\/html\); nothing was saved/);
    expect(r.stderr).toMatch(/linkctl link qr/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('HTML labelled image/png: the bytes decide, exit 6', async () => {
    const h = await hostile((_req, res) => { res.writeHead(200, { 'Content-Type': 'image/png' }); res.end('<html>not really</html>'); });
    const dir = tempDir();
    const r = await runMain(['qr', 'download', '7', '--file', join(dir, 'x.png')], { env: h.env });
    expect(r.code).toBe(6);
    expect(existsSync(join(dir, 'x.png'))).toBe(false);
  });

  it('a file over the size cap (10 MiB) is not read to the end or saved: exit 6', async () => {
    const h = await hostile((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'image/png' }); // chunked: no length to judge by in advance
      res.write(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      for (let i = 0; i < 11; i++) res.write(Buffer.alloc(1024 * 1024));
      res.end();
    });
    const dir = tempDir();
    const r = await runMain(['qr', 'download', '7', '--file', join(dir, 'x.png')], { env: h.env });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/larger than 10 MiB/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('an SVG is saved as .svg; the key went only to the configured origin', async () => {
    const h = await hostile((_req, res) => { res.writeHead(200, { 'Content-Type': 'image/svg+xml' }); res.end('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"></svg>'); });
    const dir = tempDir();
    const r = await runMain(['qr', 'download', '--from', '-', '--dir', dir], { env: h.env, stdin: '7\n' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(readdirSync(dir)).toEqual(['qr-7-menu.svg']);
    expect(h.seen.map((s) => s.auth)).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`]);
  });

  it('a redirect to another origin is not followed and gets no key: exit 6', async () => {
    const elsewhere: { auth?: string }[] = [];
    const o = await listen((req, res) => { elsewhere.push({ auth: req.headers.authorization }); res.writeHead(200, { 'Content-Type': 'image/png' }); res.end(); });
    other = o.s;
    const h = await hostile((_req, res) => { res.writeHead(302, { Location: `${o.url}/steal.png` }); res.end(); });
    const r = await runMain(['qr', 'download', '7', '--file', join(tempDir(), 'x.png'), '--debug'], { env: h.env });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/redirects to http:\/\/127\.0\.0\.1:\d+\/steal\.png/);
    expect(r.stderr).toMatch(/does not follow a redirect to another site/);
    expect(elsewhere).toEqual([]);
    expect(r.stderr).not.toContain(KEY);
  });

  it('a link on another origin is fetched without the key (its private address allowed as for check: LINKCTL_CHECK_ALLOW_PRIVATE)', async () => {
    const elsewhere: { auth?: string }[] = [];
    const o = await listen((req, res) => { elsewhere.push({ auth: req.headers.authorization }); res.writeHead(200, { 'Content-Type': 'image/jpeg' }); res.end(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10])); });
    other = o.s;
    const { s, url } = await listen((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: 0, details: { id: 7, link: `${o.url}/qr/abc`, scans: 0, name: 'Cdn' } }));
    });
    server = s;
    const dir = tempDir();
    const r = await runMain(['qr', 'download', '7', '--file', join(dir, 'cdn.jpg')], { env: { LINKCTL_BASE_URL: url, LINKCTL_API_KEY: KEY, LINKCTL_CONFIG_DIR: tempDir(), LINKCTL_CHECK_ALLOW_PRIVATE: '127.0.0.1' } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(elsewhere).toEqual([{ auth: undefined }]);
    expect(readdirSync(dir)).toEqual(['cdn.jpg']);
  });
});
