/**
 * Issue 38, items 1-3, end to end: the built CLI against a server of this test's own that serves
 * the product 7.7's recorded images (test/fixtures/product-7.7/qr/*.svg: transparent SVG paths,
 * no quiet zone) and answers a colour update on a code made without colours as the product does
 * (an empty HTTP 500, nothing changed).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers.js';
import { readImage, svgPixels } from '../../src/qr/image.js';

const FIXTURES = new URL('../fixtures/product-7.7/qr/', import.meta.url);
/** Code id -> the recorded image it serves; 5 answers every update with an empty 500. */
const IMAGES: Record<number, string> = { 1: 'text.svg', 2: 'wifi.svg', 3: 'link-colours.svg', 4: 'link.svg', 5: 'link-colours.svg' };
const KEY = 'test-key-qr-product-images';

let server: Server;
let base = '';
const requests: string[] = [];
const env = () => ({ LINKCTL_BASE_URL: base, LINKCTL_API_KEY: KEY, LINKCTL_CONFIG_DIR: tempDir() });
const sentSince = (from: number) => requests.slice(from);

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      requests.push(`${req.method} ${req.url}`);
      const json = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      let m = /^\/api\/qr\/(\d+)$/.exec(req.url ?? '');
      if (req.method === 'GET' && m && IMAGES[Number(m[1])]) {
        return json(200, { error: 0, details: { id: Number(m[1]), name: `Q ${m[1]}`, link: `${base}/qr/h${m[1]}`, scans: 0, data: '2026-11-28 15:02:19' }, data: { clicks: 0, uniqueClicks: 0, topCountries: [], topReferrers: [], topBrowsers: [], topOs: [], socialCount: {} } });
      }
      m = /^\/qr\/h(\d+)$/.exec(req.url ?? '');
      if (req.method === 'GET' && m && IMAGES[Number(m[1])]) return res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(readFileSync(new URL(IMAGES[Number(m[1])]!, FIXTURES)));
      m = /^\/api\/qr\/(\d+)\/update$/.exec(req.url ?? '');
      if (req.method === 'PUT' && m) {
        const sent = JSON.parse(body || '{}') as Record<string, unknown>;
        const withoutColours = IMAGES[Number(m[1])] !== 'link-colours.svg';
        // the product: colours on a code made without them is an empty 500, nothing changed
        if (Number(m[1]) === 5 || (withoutColours && (sent.foreground !== undefined || sent.background !== undefined))) return res.writeHead(500, { 'content-type': 'text/html; charset=UTF-8' }).end();
        return json(200, { error: 0, message: 'QR has been updated successfully.' });
      }
      json(404, { error: 1, message: 'Not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Every pixel opaque, and a band `px` wide all round of the one colour `rgb`. */
function expectOpaqueWithBand(p: { data: Uint8Array | Uint8ClampedArray; width: number; height: number }, px: number, rgb: [number, number, number]) {
  for (let i = 3; i < p.data.length; i += 4) if (p.data[i] !== 255) throw new Error(`pixel ${(i - 3) / 4} is not opaque (alpha ${p.data[i]})`);
  for (let y = 0; y < p.height; y++) {
    for (let x = 0; x < p.width; x++) {
      if (x >= px && y >= px && x < p.width - px && y < p.height - px) continue;
      const i = (y * p.width + x) * 4;
      expect([p.data[i], p.data[i + 1], p.data[i + 2]], `pixel ${x},${y}`).toEqual(rgb);
    }
  }
}

describe('the product\'s QR images through the built CLI', () => {
  it('qr get reads a transparent image\'s content; its background is none; the creation date is `date`', async () => {
    const r = await runCli(['qr', 'get', '1', '--json'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.content).toMatchObject({ type: 'text', data: 'Hello again', foreground: 'rgb(0,0,0)', background: 'none', unreadable: null });
    expect(out.details.date).toBe('2026-11-28 15:02:19');
    expect(out.details).not.toHaveProperty('data');
  });

  it('qr download --format png is opaque, has a 4-module quiet zone, and decodes', async () => {
    const dir = tempDir();
    const file = join(dir, 'code.png');
    const r = await runCli(['qr', 'download', '1', '--format', 'png', '--size', '660', '--file', file], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    const png = PNG.sync.read(readFileSync(file));
    expect(png.width).toBe(660);
    const read = await readImage(readFileSync(file));
    expect(read.text).toBe('Hello again');
    expect(read.margin).toBeGreaterThanOrEqual(4);
    // 4 modules of a 660 px side with the code's modules and 8 of quiet zone
    expectOpaqueWithBand(png, Math.floor((660 * 4) / (read.modules + 8)) - 1, [255, 255, 255]);
  });

  it('qr download --format svg lays the SVG on the code\'s own background with the quiet zone', async () => {
    const dir = tempDir();
    for (const [id, rgb] of [[1, [255, 255, 255]], [3, [255, 250, 230]]] as const) {
      const file = join(dir, `code-${id}.svg`);
      const r = await runCli(['qr', 'download', String(id), '--format', 'svg', '--file', file], { env: env() });
      expect(r.code, r.stderr).toBe(0);
      const drawn = svgPixels(readFileSync(file), 370);
      const read = await readImage(readFileSync(file));
      expect(read.margin).toBeGreaterThanOrEqual(4);
      expect(read.background).not.toBe('none');
      expectOpaqueWithBand(drawn, Math.floor((370 * 4) / (read.modules + 8)) - 1, [...rgb]);
    }
  });

  it('--no-quiet-zone leaves the margin out but keeps the background opaque', async () => {
    const file = join(tempDir(), 'code.png');
    const r = await runCli(['qr', 'download', '1', '--format', 'png', '--size', '400', '--no-quiet-zone', '--file', file], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    const png = PNG.sync.read(readFileSync(file));
    expectOpaqueWithBand(png, 0, [0, 0, 0]);
    expect(png.data[3]).toBe(255);
    expect([png.data[0], png.data[1], png.data[2]]).toEqual([0, 0, 0]); // the finder pattern touches the corner
  });

  it('colours on a code made without them are refused before sending, saying what re-creating breaks', async () => {
    for (const [id, breaks] of [[4, /short link.*every printed copy/s], [2, /scans the same/]] as const) {
      const from = requests.length;
      const r = await runCli(['qr', 'update', String(id), '--foreground', '#ff0000'], { env: env() });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`QR code ${id} was made without colours`));
      expect(r.stderr).toMatch(breaks);
      expect(sentSince(from).filter((s) => s.startsWith('PUT'))).toEqual([]);
    }
  });

  it('a code made with colours keeps the one-request update', async () => {
    const from = requests.length;
    const r = await runCli(['qr', 'update', '3', '--foreground', '#ff0000'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(sentSince(from).filter((s) => s.startsWith('PUT'))).toEqual(['PUT /api/qr/3/update']);
  });

  it('an empty HTTP 500 from a QR update gets a true message', async () => {
    const r = await runCli(['qr', 'update', '5', '--background', '#ffffff'], { env: env() });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/HTTP 500/);
    expect(r.stderr).not.toMatch(/may not exist/);
    expect(r.stderr).toMatch(/failed without saying why/);
  });
});
