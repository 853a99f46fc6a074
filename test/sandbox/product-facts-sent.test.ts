// The sandbox's default mode against real-servers.md, "What the product does with what it is sent":
// the parts of each fact that scenarios.json does not record (scenarios.test.ts replays those), the
// two users of one installation, the seed and the control routes that set a replay's start.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { keyOfHeader, type Sandbox } from '../../src/sandbox/server.js';
import { SANDBOX_USER_KEY } from '../../src/sandbox/state.js';
import { call, useSandbox } from './helpers.js';

const start = useSandbox();
const as = (key: string) => `Bearer ${key}`;
const post = (sb: Sandbox, path: string, body?: unknown, key = sb.key) => call(sb, 'POST', path, body, as(key));
const put = (sb: Sandbox, path: string, body?: unknown, key = sb.key) => call(sb, 'PUT', path, body, as(key));
const del = (sb: Sandbox, path: string, key = sb.key) => call(sb, 'DELETE', path, undefined, as(key));
const read = (sb: Sandbox, path: string, key = sb.key) => call(sb, 'GET', path, undefined, as(key));
const dir = mkdtempSync(join(tmpdir(), 'linkctl-facts-sent-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** A sandbox of two users and nothing else, as a scenario starts. */
async function empty() {
  const seed = join(dir, `seed-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(seed, JSON.stringify({ users: [
    { id: 1, email: 'admin@example.com', username: 'admin', key: 'admin-key-1234', plan: 'free' },
    { id: 2, email: 'user2@example.com', username: 'user2', key: 'user-key-5678' },
  ] }));
  return start({ seedFile: seed });
}
const urls = async (sb: Sandbox, query = '', key = sb.key) => (await read(sb, `/api/urls${query}`, key)).json.data.urls as Array<Record<string, unknown>>;

describe('two users of one installation (fact 39)', () => {
  it('the demo installation has the demo account (an administrator) and a plain user; each key sees only its own records', async () => {
    const sb = await start();
    expect(sb.userKey).toBe(SANDBOX_USER_KEY);
    expect((await read(sb, '/api/account', sb.userKey)).json.data).toMatchObject({ id: 2, email: 'user@sandbox.localhost', username: 'user', status: 'free' });
    for (const [path, key] of [['/api/urls', 'urls'], ['/api/qr', 'qrs'], ['/api/campaigns', 'campaigns'], ['/api/channels', 'channels'], ['/api/pixels', 'pixels'], ['/api/domains', 'domains'], ['/api/overlay', 'overlay'], ['/api/splash', 'splash']]) {
      expect((await read(sb, path, sb.userKey)).json.data[key], path).toEqual([]);
      expect((await read(sb, path)).json.data[key].length, path).toBeGreaterThan(0);
    }
    expect((await read(sb, '/api/url/1', sb.userKey)).json).toEqual({ error: 1, message: 'Link does not exist.' });
    expect((await del(sb, '/api/campaign/1/delete', sb.userKey)).json).toEqual({ error: 1, message: 'Campaign not found. Please try again.' });
    expect((await post(sb, '/api/channel/1/assign/links/1', undefined, sb.userKey)).json).toEqual({ error: 1, message: 'Channel not found. Please try again.' });
  });

  it('ids are one sequence per table across users; aliases, domains, campaign slugs and emails are unique across them', async () => {
    const sb = await empty();
    const u = sb.userKey;
    expect((await post(sb, '/api/url/add', { url: 'https://dest.invalid/1', custom: 'shared-alias' })).json.id).toBe(1);
    expect((await post(sb, '/api/url/add', { url: 'https://dest.invalid/2' }, u)).json.id).toBe(2);
    expect((await post(sb, '/api/url/add', { url: 'https://dest.invalid/3', custom: 'SHARED-alias' }, u)).json).toEqual({ error: 1, message: 'That alias is taken. Please choose another one.' });
    expect((await post(sb, '/api/domain/add', { domain: 'https://Go.Brand.Invalid' })).json).toEqual({ error: 0, id: '1' });
    expect((await post(sb, '/api/domain/add', { domain: 'http://go.brand.invalid' }, u)).json).toEqual({ error: 1, message: 'The domain has been already used.' });
    await post(sb, '/api/campaign/add', { name: 'Admin', slug: 'spring' });
    expect((await post(sb, '/api/campaign/add', { name: 'Mine', slug: 'Spring' }, u)).json).toEqual({ error: 1, message: 'This slug is currently not available. Please choose another one.' });
    // a name is the user's own: the other user may have it too
    expect((await post(sb, '/api/campaign/add', { name: 'Admin', slug: 'other' }, u)).json).toMatchObject({ error: 0, id: 2, list: `${sb.url}/u/user2/other-2` });
    expect((await put(sb, '/api/account/update', { email: 'ADMIN@example.com' }, u)).json).toEqual({ error: 1, message: 'An account is already associated with this email.' });
  });

  it('the product\'s pixel of another user is an empty HTTP 200 on update, like an unknown one', async () => {
    const sb = await empty();
    await post(sb, '/api/pixel/add', { type: 'bing', name: 'Mine', tag: '7770001' });
    const r = await put(sb, '/api/pixel/1/update', { tag: '7770002' }, sb.userKey);
    expect([r.status, r.text]).toEqual([200, '']);
  });
});

describe('the Authorization header, read as the product reads it (fact 40)', () => {
  it('removes every "Token ", needs "Bearer " (capital B, a space), and compares the rest ignoring letter case', () => {
    expect(keyOfHeader('Bearer abc')).toBe('abc');
    expect(keyOfHeader('Token Bearer abc')).toBe('abc');
    for (const refused of ['bearer abc', 'Token abc', 'Bearer', 'Basic YWRtaW46YWJj', 'abc', undefined]) expect(keyOfHeader(refused), String(refused)).toBeUndefined();
  });

  it('a well-formed header with an unknown key gets the limit\'s headers on its 403, even with no limit; other refusals get none', async () => {
    const sb = await start({ rateLimit: null });
    const wrong = await call(sb, 'GET', '/api/qr', undefined, 'Bearer xxxxxxxxxxxxxxxxxxxx');
    expect(wrong.status).toBe(403);
    expect([wrong.headers.get('x-ratelimit-limit'), wrong.headers.get('x-ratelimit-remaining')]).toEqual(['30', '29']);
    const none = await call(sb, 'GET', '/api/qr', undefined, `bearer ${sb.key}`);
    expect([none.status, none.headers.get('x-ratelimit-limit')]).toEqual([403, null]);
    expect((await call(sb, 'GET', '/api/account', undefined, `Bearer ${sb.key.toUpperCase()}`)).json.data.id).toBe(1);
  });
});

describe('a seed, and the control routes that bring a replay back to it', () => {
  it('sandbox serve --seed: both users with their keys, overlays and splash pages of the setup, ids from 1; reset goes back to it', async () => {
    const seed = join(dir, 'seed.json');
    writeFileSync(seed, JSON.stringify({
      users: [{ id: 1, email: 'admin@example.com', username: 'admin', key: 'K1-admin', plan: 'free' }, { id: 2, email: 'u@example.com', username: 'u2', key: 'K2-user' }],
      records: [
        { resource: 'overlay', owner: 'K1-admin', id: 1, type: 'message', name: 'Spring banner', date: '2026-01-05 10:00:00' },
        { resource: 'splash', owner: 1, id: 3, name: 'Holiday', date: '2026-01-10 10:30:00' },
      ],
    }));
    const sb = await start({ seedFile: seed });
    expect([sb.key, sb.userKey]).toEqual(['K1-admin', 'K2-user']);
    expect((await read(sb, '/api/account')).json.data).toMatchObject({ id: 1, email: 'admin@example.com', status: 'free', planid: 0,
      avatar: 'https://www.gravatar.com/avatar/e64c7d89f26bd1972efa854d13d7dd61?s=200&d=identicon' });
    expect((await read(sb, '/api/overlay')).json.data.overlay).toEqual([{ id: 1, type: 'message', name: 'Spring banner', date: '2026-01-05 10:00:00' }]);
    expect((await read(sb, '/api/splash')).json.data.splash).toEqual([{ id: 3, name: 'Holiday', date: '2026-01-10 10:30:00' }]);
    expect((await read(sb, '/api/urls')).json.data.result).toBe(0);
    expect((await post(sb, '/api/url/add', { url: 'https://dest.invalid/x' })).json.id).toBe(1);
    // the control routes need an administrator's key
    const reset = (key: string) => fetch(`${sb.url}/__sandbox/reset`, { method: 'POST', headers: { Authorization: `Bearer ${key}` } });
    expect((await reset('K2-user')).status).toBe(401);
    expect((await reset('K1-admin')).status).toBe(200);
    expect((await read(sb, '/api/urls')).json.data.result).toBe(0);
    expect((await post(sb, '/api/url/add', { url: 'https://dest.invalid/y' })).json.id).toBe(1);
  });

  it('a seed that is not of the format is refused, naming the file and the field', async () => {
    const seed = join(dir, 'bad-seed.json');
    writeFileSync(seed, JSON.stringify({ users: [{ id: 1, email: 'a@b.invalid', username: 'a', key: '' }] }));
    await expect(start({ seedFile: seed })).rejects.toThrow(`${seed}: users[0].key must be a non-empty string`);
    writeFileSync(seed, JSON.stringify({ users: [{ id: 1, email: 'a@b.invalid', username: 'a', key: 'k' }], records: [{ resource: 'link', owner: 1, id: 1, name: 'x', date: '2026-01-01 00:00:00' }] }));
    await expect(start({ seedFile: seed })).rejects.toThrow('records[0].resource must be "overlay" or "splash"');
  });

  it('POST /__sandbox/clock stops the clock at an instant (dates of new records, "later than today") and moves it on', async () => {
    const sb = await empty();
    const clock = async (body: unknown) => (await fetch(`${sb.url}/__sandbox/clock`, { method: 'POST', headers: { Authorization: `Bearer ${sb.key}` }, body: JSON.stringify(body) })).json();
    expect(await clock({ at: '2020-05-01 10:00:00' })).toEqual({ ok: true, now: '2020-05-01 10:00:00', frozen: true });
    expect((await post(sb, '/api/url/add', { url: 'https://dest.invalid/x', expiry: '2021-01-01' })).json.error).toBe(0);
    expect((await read(sb, '/api/url/1')).json.details).toMatchObject({ date: '2020-05-01 10:00:00', expiry: '2021-01-01 00:00:00' });
    expect(await clock({ advanceMs: 1100 })).toMatchObject({ now: '2020-05-01 10:00:01' });
    expect((await clock({ at: 'yesterday' }) as { ok: boolean }).ok).toBe(false);
  });
});

describe('lists and their order (facts 1-4)', () => {
  it('paging numbers: a limit is truncated (1.5 is 1), a negative one is an SQL error page; on every list', async () => {
    const sb = await start();
    expect((await read(sb, '/api/urls?limit=1.5')).json.data).toMatchObject({ perpage: 1, maxpage: 2 });
    expect((await read(sb, '/api/qr?limit=%201e1')).json.data.perpage).toBe(10);
    for (const path of ['/api/urls', '/api/qr', '/api/channels', '/api/channel/1', '/api/pixels', '/api/domains', '/api/overlay', '/api/splash', '/api/campaigns']) {
      const r = await read(sb, `${path}?limit=-1`);
      expect([r.status, r.headers.get('content-type')], path).toEqual([500, 'text/html; charset=UTF-8']);
    }
  });

  it('links of the same second in the order they were made, after newer seconds; by clicks, ties in that order', async () => {
    const sb = await empty();
    await fetch(`${sb.url}/__sandbox/clock`, { method: 'POST', headers: { Authorization: `Bearer ${sb.key}` }, body: JSON.stringify({ at: '2026-12-07 15:00:00' }) });
    for (const n of [1, 2, 3]) await post(sb, '/api/url/add', { url: `https://dest.invalid/${n}` });
    await fetch(`${sb.url}/__sandbox/clock`, { method: 'POST', headers: { Authorization: `Bearer ${sb.key}` }, body: JSON.stringify({ advanceMs: 1000 }) });
    await post(sb, '/api/url/add', { url: 'https://dest.invalid/4' });
    expect((await urls(sb)).map((l) => l.id)).toEqual([4, 1, 2, 3]);
    expect((await urls(sb, '?order=click')).map((l) => l.id)).toEqual([1, 2, 3, 4]);
  });
});

describe('links (facts 5-18)', () => {
  it('every update adds a channel entry, null without a channel; a channel the link is in is not added twice; an unknown one is', async () => {
    const sb = await empty();
    await post(sb, '/api/channel/add', { name: 'One', color: '#111111' });
    await post(sb, '/api/url/add', { url: 'https://dest.invalid/x', channel: 1 });
    const u = (body: object) => put(sb, '/api/url/1/update', { url: 'https://dest.invalid/x', ...body });
    await u({});
    await u({});
    await u({ channel: 1 });
    await u({ channel: 99 });
    expect((await urls(sb))[0]!.channel).toEqual([1, null, null, 99]);
    await del(sb, '/api/channel/1/delete');
    expect((await urls(sb))[0]!.channel).toEqual([null, null, 99]);
  });

  it('an unknown pixel is dropped, an update with a deleted campaign leaves none; a deleted campaign stays on its links', async () => {
    const sb = await empty();
    await post(sb, '/api/campaign/add', { name: 'Gone', slug: 'gone' });
    await post(sb, '/api/pixel/add', { type: 'bing', name: 'B', tag: '12345678' });
    expect((await post(sb, '/api/url/add', { url: 'https://dest.invalid/x', campaign: 1, pixels: [1, 999] })).json.error).toBe(0);
    await del(sb, '/api/campaign/1/delete');
    expect((await urls(sb))[0]!.campaign).toBe(1);
    expect((await put(sb, '/api/url/1/update', { url: 'https://dest.invalid/x', campaign: 1 })).json.error).toBe(0);
    expect((await urls(sb))[0]!.campaign).toBeNull();
  });

  it('a geo target whose link is not a URL is dropped, the others kept, keyed in lower case (fact 12)', async () => {
    const sb = await empty();
    await post(sb, '/api/url/add', { url: 'https://dest.invalid/x', geotarget: [{ location: 'Germany', link: 'https://dest.invalid/de' }, { location: 'France', link: 'not a url' }] });
    expect((await read(sb, '/api/url/1')).json.details.location).toEqual({ germany: { all: 'https://dest.invalid/de' } });
  });

  it('titles: a too long one is an SQL error, a downloadable file is named so, the sandbox\'s own pages have theirs (fact 16)', async () => {
    const sb = await empty();
    expect((await post(sb, '/api/url/add', { url: 'https://dest.invalid/x', metatitle: `<b>${'t'.repeat(191)}</b>` })).json.error).toBe(0);
    expect((await post(sb, '/api/url/add', { url: 'https://dest.invalid/y', metatitle: 't'.repeat(192) })).json.message)
      .toBe("SQLSTATE[22001]: String data, right truncated: 1406 Data too long for column 'meta_title' at row 1");
    await post(sb, '/api/url/add', { url: 'https://dest.invalid/files/archive.zip' });
    await post(sb, '/api/url/add', { url: 'https://sandbox.localhost/guide' });
    expect((await urls(sb)).map((l) => l.title)).toEqual(['t'.repeat(191), 'This is a downloadable file.', 'Sandbox page guide']);
  });

  it('ids that look numeric are ids (not found); beyond 64 bits an HTML 500 (fact 41)', async () => {
    const sb = await start();
    for (const id of ['-1', '1e3']) expect((await read(sb, `/api/url/${id}`)).json, id).toEqual({ error: 1, message: 'Link does not exist.' });
    expect((await read(sb, '/api/url/12345678901234567890')).status).toBe(500);
  });
});

describe('QR codes (facts 14, 18, 20-23)', () => {
  it('a name: absent "Via API", "" kept, a number as text, cleaned; over 191 characters an HTML 500 and nothing made', async () => {
    const sb = await empty();
    for (const name of [undefined, '', 42, '<b>Bold</b> "q"']) await post(sb, '/api/qr/add', { type: 'text', data: 'x', name });
    expect((await read(sb, '/api/qr')).json.data.qrs.map((q: { name: string }) => q.name)).toEqual(['Via API', '', '42', 'Bold &quot;q&quot;']);
    expect((await post(sb, '/api/qr/add', { type: 'text', data: 'x', name: 'n'.repeat(192) })).status).toBe(500);
    expect((await read(sb, '/api/qr')).json.data.result).toBe(4);
  });

  it('a logo that is not .png or .jpg is refused on update too, and nothing changes', async () => {
    const sb = await empty();
    await post(sb, '/api/qr/add', { type: 'text', data: 'x' });
    expect((await put(sb, '/api/qr/1/update', { logo: 'https://dest.invalid/logo.jpeg' })).json).toEqual({ error: 1, message: 'Logo must be either a PNG or a JPEG (Max 500kb).' });
  });

  it('the hidden link: a gap in the link ids, its alias the code\'s slug, read and updated by id, deleted with the code and the other way round', async () => {
    const sb = await empty();
    const code = (await post(sb, '/api/qr/add', { type: 'phone', data: '+15550001' })).json;
    const slug = code.link.split('/').pop();
    expect(slug).toMatch(/^[0-9a-f]{6}$/);
    expect((await read(sb, '/api/url/1')).json.details).toMatchObject({ alias: slug, longurl: 'tel:+15550001', title: null });
    expect((await urls(sb))).toEqual([]);
    await put(sb, '/api/qr/1/update', { data: '+15550002' });
    expect((await read(sb, '/api/url/1')).json.details.longurl).toBe('tel:+15550002');
    expect((await del(sb, '/api/url/1/delete')).json.error).toBe(0);
    expect((await read(sb, '/api/qr/1')).json).toEqual({ error: 1, message: 'QR does not exist.' });
    // the types without a hidden link, in this exact letter case
    await post(sb, '/api/qr/add', { type: 'TEXT', data: 'upper' });
    await post(sb, '/api/qr/add', { type: 'staticvcard', data: { fname: 'S' } });
    expect((await post(sb, '/api/url/add', { url: 'https://dest.invalid/next' })).json.id).toBe(3);
  });
});

describe('channels, campaigns and pixels (facts 24-36)', () => {
  it('a channel keeps counting the row of a deleted code; deleting a link removes assignments of its id of any type (a QR code with that id too)', async () => {
    const sb = await empty();
    await post(sb, '/api/channel/add', { name: 'Mixed', color: '#222222' });
    await post(sb, '/api/url/add', { url: 'https://dest.invalid/x' });
    await post(sb, '/api/qr/add', { type: 'text', data: 'one' });
    await post(sb, '/api/channel/1/assign/links/1');
    await post(sb, '/api/channel/1/assign/qr/1');
    await del(sb, '/api/url/1/delete');
    expect((await read(sb, '/api/channel/1')).json.data).toMatchObject({ result: 0, items: [] });
  });

  it('item titles are cut to 30 bytes at a space, with ...; a title of exactly 30 is kept', async () => {
    const sb = await empty();
    await post(sb, '/api/channel/add', { name: 'Titles', color: '#222222' });
    await post(sb, '/api/url/add', { url: 'https://dest.invalid/a', metatitle: 'A title that is clearly longer than thirty bytes', channel: 1 });
    await post(sb, '/api/url/add', { url: 'https://dest.invalid/a/very/long/path/indeed', channel: 1 });
    await post(sb, '/api/url/add', { url: 'https://dest.invalid/c', metatitle: 'exactly thirty bytes long text', channel: 1 });
    expect((await read(sb, '/api/channel/1')).json.data.items.map((i: { title: string }) => i.title))
      .toEqual(['A title that is clearly longer...', 'https://dest.invalid/a/very/lo...', 'exactly thirty bytes long text']);
  });

  it('string booleans and colours on update; a short name or description is ignored; a campaign\'s empty slug on update is kept', async () => {
    const sb = await empty();
    await post(sb, '/api/channel/add', { name: 'News', color: '#000000', starred: true });
    expect((await put(sb, '/api/channel/1/update', { starred: 'no', color: 'light blue', name: 'ab', description: 'xy' })).json)
      .toEqual({ error: 0, id: 1, name: 'News', description: '', color: 'light', starred: true });
    expect((await put(sb, '/api/channel/1/update', { starred: '0' })).json.starred).toBe(false);
    await post(sb, '/api/campaign/add', { name: 'Drive', slug: 'drive', public: 'yes' });
    expect((await put(sb, '/api/campaign/1/update', { slug: '', name: 'ab', public: 'no' })).json)
      .toMatchObject({ campaign: 'Drive', public: true, rotator: `${sb.url}/r/drive` });
  });

  it('pixels: a duplicate of the user\'s provider and tag is refused; an update follows the stored provider\'s rules and needs a tag', async () => {
    const sb = await empty();
    await post(sb, '/api/pixel/add', { type: 'fbpixel', name: 'Meta', tag: '123456789' });
    expect((await post(sb, '/api/pixel/add', { type: 'fbpixel', name: 'Again', tag: '123456789' })).json).toEqual({ error: 1, message: 'A pixel with this provider and tag already exists.' });
    expect((await post(sb, '/api/pixel/add', { type: 'fbpixel', name: 'Theirs', tag: '123456789' }, sb.userKey)).json.error).toBe(0);
    expect((await put(sb, '/api/pixel/1/update', { type: 'gapixel', tag: 'G-ABCDE' })).json).toEqual({ error: 1, message: 'Facebook pixel ID is not correct. Please double check.' });
    expect((await put(sb, '/api/pixel/1/update', { name: 'x' })).json).toEqual({ error: 1, message: 'Missing tag parameter. Pixel tag is required.' });
    expect((await put(sb, '/api/pixel/1/update', { tag: '987654321', name: '' })).json.error).toBe(0);
    expect((await read(sb, '/api/pixels')).json.data.pixels[0]).toMatchObject({ name: 'Meta', tag: '987654321' });
  });
});

describe('visits (fact 42)', () => {
  const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
  it('crawlers are redirected and not counted; a visitor is its address; the product\'s names of systems and browsers', async () => {
    const sb = await empty();
    await post(sb, '/api/url/add', { url: 'https://dest.invalid/x', custom: 'visited' });
    for (const ua of ['curl/8.5.0', 'python-requests/2.31', 'MyUptimeMonitor/1.0', 'Googlebot/2.1', 'axios/1.6', 'Go-http-client/1.1', 'HeadlessChrome/120', '', 'node', 'linkctl/1.0', CHROME,
      'Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/120 Mobile Safari/537.36', 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0',
      'Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 Chrome/120 Safari/537.36 Edg/120', 'Mozilla/5.0 (Macintosh) AppleWebKit/537.36 Chrome/120 Safari/537.36 OPR/105']) {
      const r = await fetch(`${sb.url}/visited`, { redirect: 'manual', headers: { 'User-Agent': ua } });
      expect(r.status, ua).toBe(301);
    }
    const data = (await read(sb, '/api/url/1')).json.data;
    expect([data.clicks, data.uniqueClicks]).toEqual([8, 1]);
    expect(data.topOs).toEqual({ 'Unknown OS': 3, 'Windows 10/11': 2, Android: 1, Ubuntu: 1, 'Mac OS X': 1 });
    expect(data.topBrowsers).toEqual({ 'Unknown Browser': 3, Chrome: 2, Firefox: 1, Edge: 1, Opera: 1 });
    expect(data.topReferrers).toEqual({ 'Direct, email and other': 8 });
  });
});
