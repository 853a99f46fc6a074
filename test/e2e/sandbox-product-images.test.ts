/**
 * Issue 38, item 4: the sandbox serves QR images as the product 7.7 does, by default (no
 * --qr-images): SVG paths on a transparent canvas with no quiet zone, which the code's link
 * answers itself the first time it is asked and redirects to (302) after. So everything linkctl
 * does with QR images is tested against the form real servers send: the built CLI reads every
 * type's content, makes print-ready PNGs and checks codes, against the sandbox in its default mode.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, tempDir, useSandbox } from '../helpers.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { readImage } from '../../src/qr/image.js';

const fx = useSandbox(); // the default mode: no qrImages given

/** A server of this test's own that the link code points at (no real domain, nothing leaves the machine). */
let destination: Server;
let dest = '';
const destinationHits: string[] = [];
beforeAll(async () => {
  destination = createServer((req, res) => {
    destinationHits.push(req.url ?? '');
    res.writeHead(200, { 'Content-Type': 'text/html' }).end('<p>menu</p>');
  });
  await new Promise<void>((resolve) => destination.listen(0, '127.0.0.1', resolve));
  dest = `http://127.0.0.1:${(destination.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => destination.close(() => resolve())));

/** One code of each type, without colours (the product then draws on a transparent canvas). */
const codes = (): Array<{ type: string; data: unknown; name: string }> => [
  { type: 'link', data: `${dest}/menu`, name: 'Menu' },
  { type: 'text', data: 'Hello; "world"', name: 'Greeting' },
  { type: 'email', data: { email: 'ada@mail.invalid', subject: 'Hi there', body: 'See you' }, name: 'Mail' },
  { type: 'phone', data: '+15551234567', name: 'Call' },
  { type: 'sms', data: { phone: '+15551234', message: 'Table 4: ready?' }, name: 'Text us' },
  { type: 'wifi', data: { ssid: 'Cafe', pass: 'secret1', encryption: 'WPA' }, name: 'Wifi' },
  { type: 'vcard', data: { fname: 'Ada', lname: 'Lovelace', org: 'Engines', phone: '+1555', email: 'ada@mail.invalid' }, name: 'Card' },
];
const SHORT_LINK_TYPES = ['link', 'email', 'phone', 'vcard'];

async function api(sandbox: { url: string; key: string }, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${sandbox.url}/api/${path}`, { method, headers: { Authorization: `Bearer ${sandbox.key}`, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return response.json();
}
/** Paths as the sandbox saw them, image and short-link paths made comparable. */
const paths = (sandbox: Sandbox, from = 0) => sandbox.requests.slice(from).map((r) => `${r.method} ${r.path.replace(/^\/qr\/\w+$/, '/qr/IMAGE').replace(/^\/content\/qr\/\w+\.svg$/, '/content/qr/IMAGE.svg').replace(/^\/q\w+$/, '/SHORT')}`);
const scans = async (sandbox: { url: string; key: string }, id: number) => Number((await api(sandbox, 'GET', `qr/${id}`)).details.scans);

describe('the built CLI against the sandbox\'s default QR images (the product\'s form)', () => {
  it('the sandbox\'s image is the product\'s: an SVG on a transparent canvas with the symbol at its edge', async () => {
    const { link } = await api(fx.sandbox, 'POST', 'qr/add', { type: 'text', data: 'plain', name: 'Plain' });
    const r = await fetch(link, { redirect: 'manual' });
    expect({ status: r.status, type: r.headers.get('content-type') }).toEqual({ status: 200, type: 'image/svg+xml' });
    const read = await readImage(Buffer.from(await r.arrayBuffer()));
    expect(read).toMatchObject({ text: 'plain', kind: 'svg', margin: 0, background: 'none', foreground: 'rgb(0,0,0)' });
  });

  for (const code of codes()) {
    it(`qr get reads a ${code.type} code's content from its transparent SVG, counting no scan`, async () => {
      const data = code.type === 'link' ? `${dest}/menu` : code.data; // the destination server's port is known only now
      const added = await api(fx.sandbox, 'POST', 'qr/add', { ...code, data });
      const before = fx.sandbox.requests.length;
      const r = await runCli(['qr', 'get', String(added.id), '--json'], { env: fx.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const content = JSON.parse(r.stdout).content;
      const behindShortLink = SHORT_LINK_TYPES.includes(code.type);
      expect(content).toEqual({ type: code.type, data: expect.anything(), foreground: 'rgb(0,0,0)', background: 'none', readFrom: behindShortLink ? 'short link' : 'image', unreadable: null, notes: [] });
      expect(content.data).toEqual(typeof data === 'string' ? data : expect.objectContaining(data as object));
      // one API request; the image, answered by the code's link itself (its first ask); the short link for the types whose image holds it
      expect(paths(fx.sandbox, before)).toEqual([`GET /api/qr/${added.id}`, 'GET /qr/IMAGE', ...(behindShortLink ? ['GET /SHORT'] : [])]);
      expect(await scans(fx.sandbox, added.id)).toBe(0);
    });
  }

  it('qr get a second time follows the 302 to the stored image and reads the same', async () => {
    const added = await api(fx.sandbox, 'POST', 'qr/add', { type: 'sms', data: { phone: '+1555', message: 'again' }, name: 'Again' });
    const first = await runCli(['qr', 'get', String(added.id), '--json'], { env: fx.env });
    const before = fx.sandbox.requests.length;
    const second = await runCli(['qr', 'get', String(added.id), '--json'], { env: fx.env });
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout).content).toEqual(JSON.parse(first.stdout).content);
    expect(JSON.parse(second.stdout).content.data).toEqual({ phone: '+1555', message: 'again' });
    expect(paths(fx.sandbox, before)).toEqual([`GET /api/qr/${added.id}`, 'GET /qr/IMAGE', 'GET /content/qr/IMAGE.svg']);
  });

  it('qr download --format png: opaque, with the 4-module quiet zone the served image lacks, and it decodes', async () => {
    const added = await api(fx.sandbox, 'POST', 'qr/add', { type: 'link', data: `${dest}/flyer`, name: 'Flyer' });
    const file = join(tempDir(), 'flyer.png');
    const before = fx.sandbox.requests.length;
    const r = await runCli(['qr', 'download', String(added.id), '--format', 'png', '--file', file, '--json'], { env: fx.env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: added.id, file, type: 'png' });
    expect(paths(fx.sandbox, before)).toEqual([`GET /api/qr/${added.id}`, 'GET /qr/IMAGE']);
    const bytes = readFileSync(file);
    const png = PNG.sync.read(bytes);
    for (let i = 3; i < png.data.length; i += 4) if (png.data[i] !== 255) throw new Error(`pixel ${(i - 3) / 4} is not opaque`);
    expect([...png.data.subarray(0, 3)]).toEqual([255, 255, 255]); // white paper at the corner
    const read = await readImage(bytes);
    expect(read.text).toMatch(new RegExp(`^${fx.sandbox.url}/q\\w+$`)); // a link code's image holds its own short link
    expect(read.margin).toBeGreaterThanOrEqual(4);
    expect(read.background).toBe('rgb(255,255,255)');
    expect(await scans(fx.sandbox, added.id)).toBe(0);
  });

  it('check --qr reads every code: nothing unreadable, the link code\'s destination checked, no scan counted', async () => {
    for (const id of [1, 2]) await api(fx.sandbox, 'DELETE', `url/${id}/delete`); // the seeded links are not this test's
    for (const q of (await api(fx.sandbox, 'GET', 'qr')).data.qrs) await api(fx.sandbox, 'DELETE', `qr/${q.id}/delete`);
    const ids: Record<string, number> = {};
    for (const code of codes()) ids[code.type] = (await api(fx.sandbox, 'POST', 'qr/add', code)).id;
    const before = fx.sandbox.requests.length;
    const hitsBefore = destinationHits.length;
    // the destination is this test's server on loopback, which check refuses unless allowed
    const r = await runCli(['check', '--qr', '--json'], { env: { ...fx.env, LINKCTL_CHECK_ALLOW_PRIVATE: '127.0.0.1' } });
    expect(r.code, r.stderr).toBe(0);
    const records = JSON.parse(r.stdout) as Array<{ qr: number | null; destination: string; status: string; findings?: Array<{ kind: string }> }>;
    expect(records.flatMap((x) => x.findings ?? []).filter((f) => f.kind === 'qr-unreadable')).toEqual([]);
    expect(records.find((x) => x.qr === ids.link)).toMatchObject({ destination: `${dest}/menu`, status: 'ok' });
    expect(destinationHits.length - hitsBefore).toBeGreaterThanOrEqual(1);
    expect(r.stderr).toMatch(/of 0 links and 7 QR codes/);
    // the lists once, each code's image once (its first ask: the SVG itself), and the short link of each code whose image holds one
    const seen = paths(fx.sandbox, before);
    expect(seen.filter((p) => p.startsWith('GET /api/'))).toEqual(['GET /api/account', 'GET /api/urls', 'GET /api/domains', 'GET /api/qr']);
    expect(seen.filter((p) => !p.startsWith('GET /api/')).sort()).toEqual([...Array(7).fill('GET /qr/IMAGE'), ...Array(4).fill('GET /SHORT')].sort());
    for (const id of Object.values(ids)) expect(await scans(fx.sandbox, id)).toBe(0);
  });
});

/** Starts `linkctl sandbox serve ...` and resolves with its announced address once it listens. */
function serve(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, 'sandbox', 'serve', '--port', '0', '--quiet', '--state', join(tempDir(), 'state.json'), ...args], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const ready = new Promise<{ baseUrl: string; key: string; qrImages: string }>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (d) => {
      stdout += d;
      if (stdout.includes('\n')) resolve(JSON.parse(stdout.split('\n')[0]!));
    });
    child.on('close', () => reject(new Error(`sandbox serve exited: ${stderr}`)));
  });
  return { child, ready };
}

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0';

describe('sandbox serve in its default mode', () => {
  it('a code\'s link answers its SVG the first time (200) and a 302 to the stored file after; its short link counts a browser\'s scan, not a crawler\'s', async ({ onTestFinished }) => {
    const server = serve([]);
    onTestFinished(() => void server.child.kill('SIGKILL'));
    const { baseUrl, key, qrImages } = await server.ready;
    expect(qrImages).toBe('svg');
    const sandbox = { url: baseUrl, key };
    const { id, link } = await api(sandbox, 'POST', 'qr/add', { type: 'link', data: `${dest}/poster`, name: 'Poster' });

    const first = await fetch(link, { redirect: 'manual', headers: { 'user-agent': BROWSER } });
    expect({ status: first.status, type: first.headers.get('content-type') }).toEqual({ status: 200, type: 'image/svg+xml' });
    const svg = await first.text();
    expect(svg).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" version="1\.1" width="1000" height="1000" viewBox="0 0 1000 1000"><g transform="scale\(/);
    for (let i = 0; i < 2; i++) {
      const after = await fetch(link, { redirect: 'manual', headers: { 'user-agent': BROWSER } });
      expect(after.status).toBe(302);
      const stored = new URL(after.headers.get('location')!, link);
      expect(stored.href).toMatch(new RegExp(`^${baseUrl}/content/qr/\\w+\\.svg$`));
      expect(await (await fetch(stored)).text()).toBe(svg);
    }

    const short = (await readImage(Buffer.from(svg))).text;
    expect(short).toMatch(new RegExp(`^${baseUrl}/q\\w+$`));
    for (const crawler of ['curl/8.5.0', 'Googlebot/2.1 (+http://www.google.com/bot.html)']) {
      const r = await fetch(short, { redirect: 'manual', headers: { 'user-agent': crawler } });
      expect({ status: r.status, location: r.headers.get('location') }).toEqual({ status: 301, location: `${dest}/poster` });
    }
    expect(await scans(sandbox, id)).toBe(0);
    const visit = await fetch(short, { redirect: 'manual', headers: { 'user-agent': BROWSER } });
    expect({ status: visit.status, location: visit.headers.get('location') }).toEqual({ status: 301, location: `${dest}/poster` });
    expect(await scans(sandbox, id)).toBe(1);
  });

  for (const [how, args, env] of [['--qr-images png', ['--qr-images', 'png'], {}], ['LINKCTL_SANDBOX_QR_IMAGES=png', [], { LINKCTL_SANDBOX_QR_IMAGES: 'png' }]] as const) {
    it(`${how} keeps the older form: a plain PNG on white at the code's link, every time`, async ({ onTestFinished }) => {
      const server = serve([...args], env);
      onTestFinished(() => void server.child.kill('SIGKILL'));
      const { baseUrl, key, qrImages } = await server.ready;
      expect(qrImages).toBe('png');
      const { link } = await api({ url: baseUrl, key }, 'POST', 'qr/add', { type: 'text', data: 'older form', name: 'Old' });
      for (let i = 0; i < 2; i++) {
        const r = await fetch(link, { redirect: 'manual' });
        expect({ status: r.status, type: r.headers.get('content-type') }).toEqual({ status: 200, type: 'image/png' });
        const read = await readImage(Buffer.from(await r.arrayBuffer()));
        expect(read).toMatchObject({ text: 'older form', kind: 'png', background: 'rgb(255,255,255)' });
        expect(read.margin).toBeGreaterThanOrEqual(4);
      }
    });
  }
});
