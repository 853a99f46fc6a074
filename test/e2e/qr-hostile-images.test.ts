/**
 * Issue 39, the image findings: hostile QR images served by a server of this test's own, read by
 * the built CLI in bounded time or refused with a clear reason, and no local file drawn into a
 * code. Each of these took minutes (or read a local file) before the fix.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, tempDir } from '../helpers.js';
import { qrMatrix, qrPng } from '../../src/qr/render.js';

const LOCAL_TEXT = 'a local file drawn into the code';
const localDir = tempDir();
const localPng = join(localDir, 'local.png');
writeFileSync(localPng, qrPng(qrMatrix(LOCAL_TEXT, 'M'), { scale: 10, margin: 4, foreground: { r: 0, g: 0, b: 0 }, background: { r: 255, g: 255, b: 255 } }));

/** Finding 2: 95 KB, a 3.5 KB entity referenced 30,000 times, the DOCTYPE ending inside an entity value so that it passes the SVG sniff. */
const ENTITY_SVG = `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY p "><svg a='1'>"><!ENTITY e "${'<rect width=\'1\' height=\'1\'/>'.repeat(120)}">]>`
  + `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="300">${'&e;'.repeat(30_000)}</svg>`;
/** Finding 3: 1.4 KB, one feMorphology of radius 1000. */
const FILTER_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="300"><filter id="f"><feMorphology operator="dilate" radius="1000"/></filter><rect width="300" height="300" fill="#000" filter="url(#f)"/>${'<!-- padding -->'.repeat(60)}</svg>`;
/** Finding 6: an image reference under another prefix bound to XLink, to a local file. */
const NAMESPACED_SVG = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:q="http://www.w3.org/1999/xlink" width="370" height="370"><image x="0" y="0" width="370" height="370" q:href="${localPng}"/></svg>`;
/** The low finding: a PNG of 10 bytes. */
const TEN_BYTE_PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);

const IMAGES: Record<number, { type: string; body: string | Buffer }> = {
  1: { type: 'image/svg+xml', body: ENTITY_SVG },
  2: { type: 'image/svg+xml', body: FILTER_SVG },
  3: { type: 'image/svg+xml', body: NAMESPACED_SVG },
  4: { type: 'image/png', body: TEN_BYTE_PNG },
};

let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((req, res) => {
    let m = /^\/api\/qr\/(\d+)$/.exec(req.url ?? '');
    if (m) return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 0, details: { id: Number(m[1]), name: 'Q', link: `${base}/qr/h${m[1]}`, scans: 0, data: '2026-11-28 15:02:19' }, data: { clicks: 0 } }));
    m = /^\/qr\/h(\d+)$/.exec(req.url ?? '');
    if (m && IMAGES[Number(m[1])]) return res.writeHead(200, { 'content-type': IMAGES[Number(m[1])]!.type }).end(IMAGES[Number(m[1])]!.body);
    // 9: an image that never comes (for SIGINT)
    if (m && m[1] === '9') return void res.writeHead(200, { 'content-type': 'image/svg+xml' }).write('<svg');
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});
const env = () => ({ LINKCTL_BASE_URL: base, LINKCTL_API_KEY: 'test-key-hostile', LINKCTL_CONFIG_DIR: tempDir() });

async function readWithin20s(id: number) {
  const started = Date.now();
  const r = await runCli(['qr', 'get', String(id), '--json', '--timeout', '3'], { env: env(), timeoutMs: 25_000 });
  const seconds = (Date.now() - started) / 1000;
  expect(seconds).toBeLessThan(20);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout).content as { type: string | null; data: unknown; unreadable: string | null };
}

describe('hostile QR images', () => {
  expect(ENTITY_SVG.length).toBeGreaterThan(90_000);
  expect(ENTITY_SVG.length).toBeLessThan(100_000);

  it('an SVG whose entities expand 30,000 times is refused within 20 s, naming the DOCTYPE', async () => {
    const content = await readWithin20s(1);
    expect(content.unreadable).toMatch(/DOCTYPE or entities/);
  });

  it('an SVG with a feMorphology filter of radius 1000 is refused within 20 s, naming the filter', async () => {
    const content = await readWithin20s(2);
    expect(content.unreadable).toMatch(/uses filters/);
  });

  it('an image under a namespace prefix bound to XLink never draws a local file', async () => {
    const content = await readWithin20s(3);
    expect(JSON.stringify(content)).not.toContain(LOCAL_TEXT);
    expect(content.unreadable).toMatch(/no QR code was found/);
    const file = join(tempDir(), 'out.png');
    const r = await runCli(['qr', 'download', '3', '--format', 'png', '--file', file], { env: env(), timeoutMs: 25_000 });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/nothing was saved/);
  });

  it('a 10-byte PNG gives a clear reason, not Node\'s "offset is out of range"', async () => {
    const content = await readWithin20s(4);
    expect(content.unreadable).toMatch(/the PNG is cut off: 10 bytes/);
    expect(content.unreadable).not.toMatch(/offset/);
  });

  it('SIGINT stops qr get within 3 s while it waits for an image', async () => {
    const child = spawn(process.execPath, [BIN, 'qr', 'get', '9'], { env: cleanEnv(env()), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    await new Promise((resolve) => setTimeout(resolve, 2500)); // started and waiting for the image
    const sent = Date.now();
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => {
      const guard = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.on('close', (c) => {
        clearTimeout(guard);
        resolve(c);
      });
    });
    expect((Date.now() - sent) / 1000, stderr).toBeLessThan(3);
    expect(code).toBe(130);
  });
});
