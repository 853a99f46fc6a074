/**
 * Issue 9, "change nothing the user did not ask to change", end to end against the sandbox in
 * real-server mode: whole lists or a note, one JSON shape, data kept off a terminal, updates that
 * read what the API needs, many ids at once, errors that name what was asked.
 */
import { describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { main } from '../../src/cli.js';
import type { IO } from '../../src/io.js';
import { cleanEnv, runCli, runMain, sent, useSandbox } from '../helpers.js';

describe('against a real-server sandbox with 50 links', () => {
  const fx = useSandbox({ quirks: true, seed: { links: 48 } });

  it('says on stderr, in a pipe, that a list is one page of several (the README bulk delete)', async () => {
    const r = await runCli(['link', 'list', '-q'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(15);
    expect(r.stderr).toBe('page 1 of 4 (15 of 50 records); --all for every record\n');
    const all = await runCli(['link', 'list', '--all', '-q'], { env: fx.env });
    expect(all.stdout.trim().split('\n')).toHaveLength(50);
    expect(all.stderr).toBe('');
  });

  it('prints documented integers as numbers whatever the server sends (json, ndjson, csv)', async () => {
    const r = await runCli(['link', 'list', '--json', '--limit', '3'], { env: fx.env });
    const records = JSON.parse(r.stdout);
    for (const l of records) {
      expect(typeof l.id).toBe('number');
      expect(typeof l.clicks).toBe('number'); // the server sent a string
      expect(typeof l.uniqueclicks).toBe('number');
    }
    const nd = await runCli(['qr', 'list', '--output', 'ndjson'], { env: fx.env });
    // a number, or null for a code that counts no scans (text, sms, wifi: issue 55, 4), never a string
    for (const line of nd.stdout.trim().split('\n')) {
      const code = JSON.parse(line);
      expect(code).toMatchObject({ id: expect.any(Number) });
      expect(code.scans === null || typeof code.scans === 'number', line).toBe(true);
    }
    const csv = await runCli(['campaign', 'list', '--output', 'csv', '--fields', 'id,public'], { env: fx.env });
    expect(csv.stdout).toBe('id,public\n1,true\n');
    const pixel = await runCli(['pixel', 'add', '--type', 'gapixel', '--name', 'Second', '--tag', 'G-XYZ987', '--json'], { env: fx.env });
    expect(JSON.parse(pixel.stdout).id).toEqual(expect.any(Number)); // the server answers "2"
    const qr = await runCli(['qr', 'get', '1', '--json'], { env: fx.env });
    for (const n of Object.values(JSON.parse(qr.stdout).data.topCountries)) expect(typeof n).toBe('number');
  });
});

describe('against a real-server sandbox', () => {
  const fx = useSandbox({ quirks: true });

  it('keeps the statistics of a single record in a pipe', async () => {
    const r = await runCli(['qr', 'get', '1'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\ntopCountries\.\S[^\t]*\t\d+\n/);
    expect(r.stdout).toMatch(/\ntopReferrers\./);
    expect(r.stdout).toMatch(/\ntopBrowsers\./);
    expect(r.stdout).toMatch(/\ntopOs\./);
  });

  it('reads the tag a pixel update needs, and the name a campaign update needs', async () => {
    const p = await runCli(['pixel', 'update', '1', '--name', 'Renamed'], { env: fx.env });
    expect(p.stderr).toBe('');
    expect(p.code).toBe(0);
    expect(sent(fx.sandbox).at(-1)).toMatchObject({ method: 'PUT', path: '/api/pixel/1/update', body: { tag: 'G-ABC123XYZ', name: 'Renamed' } });
    const c = await runCli(['campaign', 'update', '1', '--private'], { env: fx.env });
    expect(c.stderr).toBe('');
    expect(c.code).toBe(0);
    expect(sent(fx.sandbox).at(-1)).toMatchObject({ method: 'PUT', path: '/api/campaign/1/update', body: { name: 'Spring launch', public: false } });
    const none = await runCli(['pixel', 'update', '9', '--name', 'X'], { env: fx.env });
    expect(none.code).toBe(4);
    expect(none.stderr).toMatch(/^linkctl: pixel 9 is not in the list of pixels\n/);
  });

  it('deletes many ids with one confirmation, reports each, and exits non-zero when one failed', async () => {
    const refused = await runCli(['link', 'delete', '1', '2'], { env: fx.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^linkctl: Delete 2 links: 1, 2: refusing without a terminal to confirm; pass --yes\n/);
    const r = await runCli(['link', 'delete', '1', '99', '2', '--yes'], { env: fx.env });
    expect(r.stdout).toBe('Link 1: Link has been successfully deleted.\nLink 2: Link has been successfully deleted.\n');
    expect(r.stderr).toBe('linkctl: Link 99: Link does not exist.\nlinkctl: 1 of 3 links not deleted\n');
    expect(r.code).toBe(4);
    expect(sent(fx.sandbox).filter((q) => q.method === 'DELETE').map((q) => q.path)).toEqual(['/api/url/1/delete', '/api/url/99/delete', '/api/url/2/delete']);
    const q = await runCli(['qr', 'delete', '1', '2', '--yes', '--json'], { env: fx.env });
    expect(q.code).toBe(0);
    expect(JSON.parse(q.stdout)).toEqual([
      { id: 1, deleted: true, message: 'QR has been deleted successfully.' },
      { id: 2, deleted: true, message: 'QR has been deleted successfully.' },
    ]);
  });

  it('assigns many links to a campaign and many items to a channel, each reported, non-zero when one failed', async () => {
    const [a, b] = (await runCli(['link', 'list', '--limit', '2', '-q'], { env: fx.env })).stdout.trim().split('\n').map(Number) as [number, number];
    const c = await runCli(['campaign', 'assign', '1', String(a), '999999', String(b)], { env: fx.env });
    expect(c.stdout, c.stderr).toBe(`Link ${a}: Link successfully added to the campaign.\nLink ${b}: Link successfully added to the campaign.\n`);
    expect(c.stderr).toMatch(/^linkctl: campaign 1, link 999999: .+\nlinkctl: 1 of 3 links not added to campaign 1\n$/);
    expect(c.code).toBe(4);
    expect(sent(fx.sandbox).filter((q) => q.method === 'POST').map((q) => q.path)).toEqual([`/api/campaign/1/assign/${a}`, '/api/campaign/1/assign/999999', `/api/campaign/1/assign/${b}`]);
    const ch = await runCli(['channel', 'assign', '1', 'link', String(a), String(b), '--json'], { env: fx.env });
    expect(ch.code, ch.stderr).toBe(0);
    expect(JSON.parse(ch.stdout)).toEqual([
      { id: a, assigned: true, message: 'Link successfully added to the channel.' },
      // the seed has link 1 in channel 1 already: real servers refuse it, and the wanted state holds
      { id: b, assigned: true, status: 'exists', message: `link ${b} was already in channel 1.` },
    ]);
    const items = await runCli(['channel', 'items', '1', '--all', '--json'], { env: fx.env });
    expect(JSON.parse(items.stdout).map((i: { id: number }) => i.id)).toEqual(expect.arrayContaining([a, b]));
  });

  it('names what was asked in API errors', async () => {
    const r = await runCli(['qr', 'get', '12'], { env: fx.env });
    expect(r.code).toBe(4);
    expect(r.stderr).toBe('linkctl: QR code 12: QR does not exist.\n');
    const d = await runCli(['qr', 'delete', '12', '--yes'], { env: fx.env });
    expect(d.stderr).toBe('linkctl: QR code 12: QR does not exist.\n');
  });
});

describe('an unknown pixel, whether the server would refuse it (7.6 as read) or drop it in silence (7.7: real-servers.md, fact 7)', () => {
  const fx = useSandbox({ quirks: false });

  it('is refused before anything is sent, naming it', async () => {
    const p = await runCli(['link', 'add', 'https://example.org/px', '--pixel', '1', '--pixel', '4'], { env: fx.env });
    // Refused before sending: the product would drop the unknown id and answer success (issue 54).
    expect(p.code).toBe(2);
    expect(p.stderr).toMatch(/^linkctl: --pixel 4: the account has no pixel with this id; the product drops a pixel id that is not the account's and answers success, so nothing was sent\n/);
    expect(fx.sandbox.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /api/pixels']);
  });
});

describe('narrow terminals', () => {
  const fx = useSandbox({ quirks: true });
  async function at(columns: number, args: string[], env: Record<string, string> = {}) {
    let stdout = '';
    const stdin = Readable.from([]) as unknown as IO['stdin'];
    stdin.isTTY = true;
    const io: IO = {
      stdout: { write: (s: string) => ((stdout += s), true), isTTY: true, columns },
      stderr: { write: () => true, isTTY: false, columns },
      stdin,
      env: cleanEnv({ ...fx.env, NO_COLOR: '1', ...env }),
    };
    const code = await main(args, io);
    return { code, stdout };
  }

  it('drops the date column first and keeps the host of every URL', async () => {
    const wide = await at(140, ['link', 'list']);
    expect(wide.stdout).toMatch(/Created/);
    const r = await at(70, ['link', 'list']);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/Created|2025-01/);
    const host = new URL(fx.sandbox.url).host;
    expect(r.stdout).toContain(host);
    expect(r.stdout).toMatch(/sandbox\.localhost/);
    expect(r.stdout).not.toMatch(/https?:\/\/…|https?:\/\/[es]…/);
  });

  it('takes the width from COLUMNS when the terminal says 0 columns (issue 53)', async () => {
    const r = await at(0, ['link', 'list'], { COLUMNS: '70' });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('sandbox.localhost');
    expect(r.stdout).not.toMatch(/Created/);
    for (const line of r.stdout.trimEnd().split('\n')) expect(line.length).toBeLessThanOrEqual(70);
    const help = await at(0, ['link', 'add', '--help'], { COLUMNS: '60' });
    for (const line of help.stdout.split('\n')) if (!/\$ linkctl/.test(line)) expect(line.length).toBeLessThanOrEqual(60);
  });

  it('wraps help to the terminal width', async () => {
    const r = await at(60, ['link', 'add', '--help']);
    const options = r.stdout.slice(r.stdout.indexOf('Options:'), r.stdout.indexOf('\n\n', r.stdout.indexOf('Options:')));
    expect(options).toContain('--alias');
    for (const line of options.split('\n')) expect(line.length).toBeLessThanOrEqual(60);
  });
});

describe('a server that answers a short URL lookup with a list envelope (as 6.x servers do)', () => {
  it('fails (exit 1) saying it cannot look up by short URL, instead of printing an empty record', async () => {
    const server = createServer((req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ error: 0, data: { result: 1, perpage: 15, currentpage: 1, maxpage: 1, urls: [{ id: 1, alias: 'docs' }] } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const r = await runMain(['link', 'get', '--short', 'go.example.com/docs'], { env: { LINKCTL_BASE_URL: `http://127.0.0.1:${port}`, LINKCTL_API_KEY: 'k-0123456789', LINKCTL_CONFIG_DIR: '/nonexistent-linkctl' } });
      expect(r.stdout).toBe('');
      // the items carry no short URL to match, so nothing on the page is the link
      expect(r.stderr).toMatch(/^linkctl: short URL go\.example\.com\/docs: this server cannot look up a link by short URL \(it answered the list of links instead, as 6\.x servers do, and the link is not on its first page\)\nhint: use the link's id/);
      expect(r.code).toBe(1);
    } finally {
      server.close();
    }
  });
});
