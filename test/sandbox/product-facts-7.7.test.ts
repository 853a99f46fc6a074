// The sandbox's default mode against each fact of real-servers.md, "What the product 7.7 does when
// run": one test per fact, in the section's order, quoted (shortened) in the test names. The 7.6
// facts, which 7.7 kept, are in product-facts.test.ts.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { call, get, useSandbox } from './helpers.js';

const start = useSandbox();
const post = (sb: Sandbox, path: string, body?: unknown) => call(sb, 'POST', path, body);
const put = (sb: Sandbox, path: string, body?: unknown) => call(sb, 'PUT', path, body);
const del = (sb: Sandbox, path: string) => call(sb, 'DELETE', path);
const dir = mkdtempSync(join(tmpdir(), 'linkctl-facts-77-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
/** A sandbox with a state file, to see what it stored that no answer shows (the note, public status, deep links). */
async function withState() {
  const stateFile = join(dir, `state-${++files}.json`);
  const sb = await start({ stateFile });
  const stored = (id: number) => (JSON.parse(readFileSync(stateFile, 'utf8')) as { links: Array<Record<string, unknown>> }).links.find((l) => l.id === id)!;
  return { sb, stored };
}

describe('rate limit', () => {
  it('over the limit: HTTP 200 with {"error":429,"message":"Too Many API Requests.","Retry-After":N}, and X-RateLimit-Limit, Remaining 0 and Reset', async () => {
    const sb = await start({ rateLimit: { limit: 2, windowSeconds: 60 } });
    await get(sb, '/api/account');
    await get(sb, '/api/account');
    const over = await get(sb, '/api/account');
    expect(over.status).toBe(200);
    expect(over.json).toEqual({ error: 429, message: 'Too Many API Requests.', 'Retry-After': expect.any(Number) });
    expect(over.json['Retry-After']).toBeGreaterThanOrEqual(58);
    expect(over.headers.get('x-ratelimit-limit')).toBe('2');
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(over.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
  });

  it('at the reset second the server still refuses, with "Retry-After": 0 and the old reset; about a second later it accepts', async () => {
    const sb = await start({ rateLimit: { limit: 1, windowSeconds: 1 } });
    await get(sb, '/api/account');
    const reset = Number((await get(sb, '/api/account')).headers.get('x-ratelimit-reset'));
    await new Promise((r) => setTimeout(r, Math.max(0, reset * 1000 - Date.now()) + 400));
    const atReset = await get(sb, '/api/account');
    expect(atReset.json).toEqual({ error: 429, message: 'Too Many API Requests.', 'Retry-After': 0 });
    expect(atReset.headers.get('x-ratelimit-reset')).toBe(String(reset));
    await new Promise((r) => setTimeout(r, Math.max(0, (reset + 1) * 1000 - Date.now()) + 50));
    expect((await get(sb, '/api/account')).json.error).toBe(0);
  });

  it('with pro mode off (no limit) no rate-limit headers are sent at all', async () => {
    const sb = await start({ rateLimit: null });
    const r = await get(sb, '/api/account');
    expect([...r.headers.keys()].filter((h) => h.startsWith('x-ratelimit'))).toEqual([]);
  });

  it('with pro mode on, a user whose plan does not include the API gets 403 "You do not have the permission to use the API."', async () => {
    const sb = await start({ plan: 'no-api', rateLimit: { limit: 30, windowSeconds: 60 } });
    for (const path of ['/api/account', '/api/urls']) {
      const r = await get(sb, path);
      expect(r.status, path).toBe(403);
      expect(r.json, path).toEqual({ error: 1, message: 'You do not have the permission to use the API.' });
    }
    // A wrong key is still told so first.
    const wrong = await fetch(`${sb.url}/api/account`, { headers: { Authorization: 'Bearer not-the-key' } });
    expect(((await wrong.json()) as { message: string }).message).toBe('A valid API key is required to use this service.');
  });
});

describe('links', () => {
  it('in answers, title and description are the meta title and meta description', async () => {
    const sb = await start();
    const { id } = (await post(sb, '/api/url/add', { url: 'https://example.org/meta', metatitle: 'Preview title', metadescription: 'Preview text' })).json;
    expect((await get(sb, `/api/url/${id}`)).json.details).toMatchObject({ title: 'Preview title', description: 'Preview text' });
    expect((await get(sb, '/api/urls?q=example.org/meta')).json.data.urls[0]).toMatchObject({ title: 'Preview title', description: 'Preview text' });
  });

  it('the description sent to url/add is stored as the private note, which no answer returns', async () => {
    const { sb, stored } = await withState();
    const { id } = (await post(sb, '/api/url/add', { url: 'https://example.org/note', description: 'internal note' })).json;
    expect(stored(id).description).toBe('internal note');
    expect((await get(sb, `/api/url/${id}`)).text).not.toContain('internal note');
    expect((await get(sb, '/api/urls')).text).not.toContain('internal note');
  });

  it('an update never stores the note and always makes the link private, whatever status says', async () => {
    const { sb, stored } = await withState();
    const { id } = (await post(sb, '/api/url/add', { url: 'https://example.org/pub', description: 'first note', status: 'public' })).json;
    expect(stored(id)).toMatchObject({ description: 'first note', status: 'public' });
    expect((await put(sb, `/api/url/${id}/update`, { url: 'https://example.org/pub', description: 'second note', status: 'public' })).json.error).toBe(0);
    expect(stored(id)).toMatchObject({ description: 'first note', status: 'private' });
  });

  it('deeplink with "auto": true answers HTTP 500 with an empty body, and no link is created; without auto the URLs are stored', async () => {
    const { sb, stored } = await withState();
    const before = (await get(sb, '/api/urls')).json.data.result;
    const crash = await post(sb, '/api/url/add', { url: 'https://example.org/app', deeplink: { auto: true, apple: 'https://apps.apple.com/app/x' } });
    expect([crash.status, crash.text]).toEqual([500, '']);
    expect((await get(sb, '/api/urls')).json.data.result).toBe(before);
    const ok = (await post(sb, '/api/url/add', { url: 'https://example.org/app', deeplink: { apple: 'https://apps.apple.com/app/x', google: 'https://play.google.com/x' } })).json;
    expect(ok.error).toBe(0);
    expect(stored(ok.id).deeplink).toEqual({ apple: 'https://apps.apple.com/app/x', google: 'https://play.google.com/x' });
  });

  it('custom aliases are checked against a list of words matched as substrings: "newone" is "Inappropriate aliases are not allowed."', async () => {
    const sb = await start();
    for (const alias of ['newone', 'my-newone-2', 'dickens-books', 'GAY-pride']) {
      expect((await post(sb, '/api/url/add', { url: 'https://example.org/w', custom: alias })).json, alias).toEqual({ error: 1, message: 'Inappropriate aliases are not allowed.' });
    }
    expect((await post(sb, '/api/url/add', { url: 'https://example.org/w', custom: 'fine-alias' })).json.error).toBe(0);
  });

  it('aliases of the product\'s own pages are reserved in any letter case: "That alias is reserved. Please choose another one." (real-servers.md, 9)', async () => {
    const sb = await start();
    for (const alias of ['faq', 'FAQ', 'Pricing', 'contact', 'sitemap.xml', 'qr-codes']) {
      expect((await post(sb, '/api/url/add', { url: 'https://example.org/r', custom: alias })).json, alias).toEqual({ error: 1, message: 'That alias is reserved. Please choose another one.' });
    }
    for (const alias of ['login', 'stats', 'faq-page']) expect((await post(sb, '/api/url/add', { url: `https://example.org/${alias}`, custom: alias })).json.error, alias).toBe(0);
  });

  it('a link list item\'s channel holds a null entry for each update without a channel; deleting a channel leaves none (fact 5, which corrects the earlier reading)', async () => {
    const sb = await start();
    expect((await get(sb, '/api/urls?q=docs')).json.data.urls[0].channel).toEqual([1]);
    await put(sb, '/api/url/1/update', { url: 'https://sandbox.localhost/docs' });
    expect((await get(sb, '/api/urls?q=docs')).json.data.urls[0].channel).toEqual([1, null]);
    await del(sb, '/api/channel/1/delete');
    expect((await get(sb, '/api/urls?q=docs')).json.data.urls[0].channel).toEqual([null]);
  });

  it('QR codes of type link, phone and email create hidden rows in the links table, so link ids have gaps', async () => {
    const sb = await start();
    const first = (await post(sb, '/api/url/add', { url: 'https://example.org/gap-1' })).json.id;
    await post(sb, '/api/qr/add', { type: 'link', data: 'https://example.org/qr', name: 'Q' });
    await post(sb, '/api/qr/add', { type: 'text', data: 'no row', name: 'T' });
    const second = (await post(sb, '/api/url/add', { url: 'https://example.org/gap-2' })).json.id;
    expect(second).toBe(first + 2);
  });

  it('short links redirect with 301', async () => {
    const sb = await start();
    const r = await fetch(`${sb.url}/docs`, { redirect: 'manual' });
    expect(r.status).toBe(301);
    expect(r.headers.get('location')).toBe(`${sb.url}/pages/docs`);
  });

  it('device targeting is stored but never read back: device is always null in answers', async () => {
    const sb = await start();
    const { id } = (await post(sb, '/api/url/add', { url: 'https://example.org/dev', devicetarget: [{ device: 'iPhone', link: 'https://apple.example' }] })).json;
    expect((await get(sb, `/api/url/${id}`)).json.details.device).toBeNull();
  });
});

describe('other resources', () => {
  it('a campaign slug is lowercased on create, while the random slugs the product makes are mixed case', async () => {
    const sb = await start();
    expect((await post(sb, '/api/campaign/add', { name: 'Autumn', slug: 'MvkPaK' })).json.rotator).toBe(`${sb.url}/r/mvkpak`);
    const random = (await post(sb, '/api/campaign/add', { name: 'Winter' })).json.rotator.split('/').pop();
    expect(random).toMatch(/^[A-Za-z]{6}$/);
  });

  it('PUT /api/channel/:id/update ignores a name or description shorter than 3 characters and answers success', async () => {
    const sb = await start();
    for (const body of [{ name: 'AB' }, { description: '' }, { description: 'ab' }]) {
      const r = (await put(sb, '/api/channel/1/update', body)).json;
      expect(r, JSON.stringify(body)).toMatchObject({ error: 0, name: 'Marketing', description: 'Links for the marketing team' });
    }
    expect((await put(sb, '/api/channel/1/update', { name: 'ABC' })).json).toMatchObject({ error: 0, name: 'ABC' });
  });

  it('PUT /api/qr/:id/update checks the data against the code\'s stored type: a phone code with text data is an HTTP 500 page', async () => {
    const sb = await start();
    const { id } = (await post(sb, '/api/qr/add', { type: 'phone', data: '+15551234567', name: 'Call us' })).json;
    const r = await put(sb, `/api/qr/${id}/update`, { type: 'text', data: 'hello' });
    expect(r.status).toBe(500);
    expect(r.text).toMatch(/<html/i);
  });

  it('a QR detail\'s details.data holds the code\'s creation date', async () => {
    const sb = await start();
    expect((await get(sb, '/api/qr/1')).json.details.data).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  });

  it('overlays and splash pages cannot be created through the API', async () => {
    const sb = await start();
    expect((await post(sb, '/api/overlay/add', { name: 'x' })).status).toBe(404);
    expect((await post(sb, '/api/splash', { name: 'x' })).status).toBe(405);
  });
});

describe('types on PHP 8.x', () => {
  it('ids and counts are JSON integers (QR, domain, overlay and pixel list ids, QR scans and details.id, link clicks, channel ids); maxpage is 1', async () => {
    const sb = await start();
    const urls = (await get(sb, '/api/urls')).json.data;
    expect(urls.maxpage).toBe(1);
    expect((await get(sb, '/api/urls')).text).toMatch(/"maxpage":1,/);
    expect(urls.urls.find((u: { alias: string }) => u.alias === 'docs')).toMatchObject({ id: 1, clicks: 57, uniqueclicks: 40, channel: [1] });
    expect((await get(sb, '/api/qr')).json.data.qrs[0]).toMatchObject({ id: expect.any(Number), scans: expect.any(Number) });
    expect((await get(sb, '/api/qr/1')).json.details).toMatchObject({ id: 1, scans: 128 });
    expect((await get(sb, '/api/domains')).json.data.domains.find((d: { id: unknown }) => d.id !== null).id).toEqual(expect.any(Number));
    expect((await get(sb, '/api/overlay')).json.data.overlay[0].id).toEqual(expect.any(Number));
    expect((await get(sb, '/api/pixels')).json.data.pixels[0].id).toEqual(expect.any(Number));
    // the id of a new pixel or domain is a string on 7.7 whatever the PHP (the recording)
    expect((await post(sb, '/api/pixel/add', { type: 'gapixel', name: 'P', tag: 'G-123' })).json.id).toEqual(expect.any(String));
  });

  it('older PHP sends them as strings, and maxpage as 1.0 (the sandbox\'s stringIds, `sandbox serve --string-ids`)', async () => {
    const sb = await start({ stringIds: true });
    expect((await get(sb, '/api/urls')).text).toMatch(/"maxpage":1\.0,/);
    expect((await get(sb, '/api/urls')).json.data.urls.find((u: { alias: string }) => u.alias === 'docs')).toMatchObject({ id: 1, clicks: '57', channel: ['1'] });
    expect((await get(sb, '/api/pixels')).json.data.pixels[0].id).toEqual(expect.any(String));
  });
});
