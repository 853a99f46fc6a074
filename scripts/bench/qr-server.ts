/**
 * A server of the API for the QR rows of the benchmark, in its own process: an account of N QR
 * codes (no other records) whose images are half the product 7.7's (a 302 to a styled 1000×1000
 * SVG) and half plain PNGs, of every type; link, email, phone and vcard images hold the code's
 * own short link, which answers as the product's does. scripts/bench.mjs bundles and runs it as:
 *
 *   node qr-server.mjs N
 *
 * It prints `{"url","key"}` and serves until stdin closes. GET /__count gives the API requests
 * and the other requests since the last POST /__count.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { contentText, vcardText } from '../../src/qr/content.js';
import { BLACK, WHITE, qrMatrix, qrPng } from '../../src/qr/render.js';
import { PRODUCT_STYLE, styledSvg } from '../../src/qr/styled.js';

const n = Number(process.argv[2] ?? 1000);
const SAMPLES: Array<{ type: string; data: unknown }> = [
  { type: 'link', data: 'https://example.com/menu' },
  { type: 'text', data: 'Table 4 of the garden room' },
  { type: 'email', data: { email: 'ada@example.com', subject: 'Booking', body: 'A table for two' } },
  { type: 'phone', data: '+15551234567' },
  { type: 'sms', data: { phone: '+15551234', message: 'Ready' } },
  { type: 'wifi', data: { ssid: 'Cafe', pass: 'welcome123', encryption: 'WPA' } },
  { type: 'vcard', data: { fname: 'Ada', lname: 'Lovelace', org: 'Engines', email: 'ada@example.com' } },
];
const SHORT = new Set(['link', 'email', 'phone', 'vcard']);
let origin = '';
const counts = { api: 0, other: 0 };
const sample = (id: number) => SAMPLES[id % SAMPLES.length]!;
const imageText = (id: number) => (SHORT.has(sample(id).type) ? `${origin}/s${id}` : contentText(sample(id).type, sample(id).data));

const server = createServer((req, res) => {
  const path = (req.url ?? '').split('?')[0]!;
  if (path === '/__count') {
    const body = JSON.stringify(counts);
    if (req.method === 'POST') Object.assign(counts, { api: 0, other: 0 });
    return void res.end(body);
  }
  if (path.startsWith('/api/')) counts.api++;
  else counts.other++;
  const list = /^\/api\/(\w+)$/.exec(path)?.[1];
  if (list) {
    const items = list === 'qr' ? Array.from({ length: n }, (_, i) => ({ id: i + 1, link: `${origin}/qr/${i + 1}`, scans: 0, name: `QR ${i + 1}`, date: '2026-01-01 00:00:00' })) : [];
    const key = { qr: 'qrs', overlay: 'cta' }[list] ?? list;
    return void res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: 0, data: { result: items.length, perpage: 100_000, currentpage: 1, nextpage: null, maxpage: 1, [key]: items } }));
  }
  const image = /^\/qr\/(\d+)$/.exec(path);
  if (image) {
    const id = Number(image[1]);
    if (id % 2 === 0) return void res.writeHead(302, { Location: `/content/qr/${id}.svg` }).end();
    return void res.writeHead(200, { 'Content-Type': 'image/png' }).end(qrPng(qrMatrix(imageText(id)), { scale: 8, margin: 4, foreground: BLACK, background: WHITE }));
  }
  const svg = /^\/content\/qr\/(\d+)\.svg$/.exec(path);
  if (svg) return void res.writeHead(200, { 'Content-Type': 'image/svg+xml' }).end(styledSvg(imageText(Number(svg[1])), PRODUCT_STYLE));
  const short = /^\/s(\d+)$/.exec(path);
  if (short) {
    const { type, data } = sample(Number(short[1]));
    if (type === 'vcard') return void res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(vcardText(data as Record<string, unknown>, true));
    return void res.writeHead(301, { Location: contentText(type, data) }).end();
  }
  res.writeHead(404).end();
});
server.listen(0, '127.0.0.1', () => {
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.stdout.write(`${JSON.stringify({ url: origin, key: 'bench-key-123456' })}\n`);
});
process.stdin.on('end', () => process.exit(0)).resume();
