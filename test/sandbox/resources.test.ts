// The API itself: pagination, documented shapes vs real-server (quirks) shapes, validation.
import { describe, expect, it } from 'vitest';
import type { Sandbox, SandboxOptions } from '../../src/sandbox/server.js';
import { call, get, useSandbox } from './helpers.js';

const startSandbox = useSandbox();
// Real-server shapes here are those of servers on PHP before 8.1 (ids and counts as strings), as
// third-party clients met them; PHP 8's integers are in product-facts-7.7.test.ts.
const start = (options: SandboxOptions = {}) => startSandbox({ stringIds: true, ...options });
const post = (sb: Sandbox, path: string, body?: unknown) => call(sb, 'POST', path, body);
const put = (sb: Sandbox, path: string, body?: unknown) => call(sb, 'PUT', path, body);
const del = (sb: Sandbox, path: string) => call(sb, 'DELETE', path);
/** A documented-mode and a quirks-mode (the default) sandbox. */
const pair = async () => ({ doc: await start({ quirks: false }), real: await start({ quirks: true }) });

describe('pagination', () => {
  it('defaults to 15 per page; one exact page has no next page', async () => {
    const sb = await start({ quirks: false });
    expect((await get(sb, '/api/qr')).json).toMatchObject({
      error: '0', data: { result: 3, perpage: 15, currentpage: 1, nextpage: null, maxpage: 1 },
    });
    const exact = (await get(sb, '/api/qr?limit=3')).json.data;
    expect([exact.maxpage, exact.nextpage, exact.qrs.length]).toEqual([1, null, 3]);
  });

  it('pages, treats bad page numbers as 1, and counts on past the end', async () => {
    const sb = await start({ quirks: false });
    const p1 = (await get(sb, '/api/qr?limit=2&page=1')).json.data;
    const p2 = (await get(sb, '/api/qr?limit=2&page=2')).json.data;
    expect([p1.nextpage, p1.maxpage, p1.qrs.length]).toEqual([2, 2, 2]);
    expect([p2.currentpage, p2.nextpage, p2.qrs.length]).toEqual([2, null, 1]);
    expect([...p1.qrs, ...p2.qrs].map((q: { id: number }) => q.id).sort()).toEqual([1, 2, 3]);
    for (const page of ['0', '-3', 'abc']) expect((await get(sb, `/api/qr?limit=2&page=${page}`)).json.data.currentpage).toBe(1);
    expect((await get(sb, '/api/qr?limit=2&page=7')).json.data).toEqual({
      result: 3, perpage: 2, currentpage: 7, nextpage: 8, maxpage: 2, qrs: [],
    });
  });

  it('describes an empty list with maxpage 0 and nextpage null', async () => {
    const sb = await start({ quirks: false });
    expect((await del(sb, '/api/pixel/1/delete')).json).toEqual({ error: 0, message: 'Pixel has been deleted successfully.' });
    expect((await get(sb, '/api/pixels')).json.data).toEqual({ result: 0, perpage: 15, currentpage: 1, nextpage: null, maxpage: 0, pixels: [] });
    expect((await get(sb, '/api/pixels?page=3')).json.data.nextpage).toBeNull();
  });

  // How fast (a 100,000-link seed, a deep page) is the benchmark's to say, not a test's: timings
  // fail on a loaded machine. Here: every record once, and the deep page's content.
  it('pages through a big seed, every record exactly once', async () => {
    const sb = await start({ quirks: false, seed: { links: 100_000, qrs: 40 } });
    const seen = new Set<number>();
    for (let page = 1; ; page++) {
      const data = (await get(sb, `/api/qr?limit=7&page=${page}`)).json.data;
      for (const q of data.qrs) seen.add(q.id);
      if (data.currentpage >= data.maxpage) break;
    }
    expect(seen.size).toBe(43);
    const deep = (await get(sb, '/api/urls?limit=100&page=900')).json.data;
    expect([deep.result, deep.maxpage, deep.urls.length, deep.urls[0].id]).toEqual([100_002, 1001, 100, 100_002 - 89_900]);
    expect(deep.urls[0]).toMatchObject({ alias: `bulk${100_002 - 89_900}`, shorturl: `${sb.url}/bulk${100_002 - 89_900}` });
  });
});

describe('documented vs real-server shapes', () => {
  it('account, overlays, list envelope', async () => {
    const { doc, real } = await pair();
    expect((await get(doc, '/api/account')).json).toEqual({
      error: 0,
      data: {
        id: 1, email: 'demo@sandbox.localhost', username: 'demo', avatar: expect.stringMatching(/^https?:\/\//), status: 'pro',
        expires: '2027-12-31 23:59:59', registered: '2024-01-15 09:30:00',
      },
    });
    expect((await get(real, '/api/account')).json.data).toMatchObject({ planid: 2, expires: null });
    const docOverlays = (await get(doc, '/api/overlay')).json;
    const realOverlays = (await get(real, '/api/overlay')).json;
    expect(docOverlays.error).toBe('0');
    expect(realOverlays.error).toBe(0);
    expect(docOverlays.data.cta.map((o: { type: string }) => o.type).sort()).toEqual(['contact', 'message', 'message']);
    // real servers send the list ids as strings, and list oldest first (7.7, fact 2)
    expect(realOverlays.data.overlay).toEqual(docOverlays.data.cta.map((o: { id: number }) => ({ ...o, id: String(o.id) })).reverse());
    expect((await get(real, '/api/splash')).json.data.splash).toHaveLength(2);
  });

  it('QR codes: list ids, detail date key, statistics, delete message', async () => {
    const { doc, real } = await pair();
    expect((await get(doc, '/api/qr')).json.data.qrs[2]).toEqual({ id: 1, link: expect.stringMatching(`^${doc.url}/qr/`), scans: 128, name: 'Restaurant menu', date: '2025-01-10 12:00:00' });
    expect((await get(real, '/api/qr')).json.data.qrs[0]).toMatchObject({ id: '1', scans: '128' });

    const d = (await get(doc, '/api/qr/1')).json;
    expect(d.details.date).toBe('2025-01-10 12:00:00');
    expect(d.data).toMatchObject({ clicks: 128, uniqueClicks: 97, socialCount: { facebook: 21, twitter: 8, instagram: 14 } });
    expect(Object.keys(d.data.topCountries).length).toBeGreaterThanOrEqual(3);
    expect(d.data.topCountries['United States']).toBe('54');
    expect(d.data.socialCount.linkedin).toBeUndefined();
    const r = (await get(real, '/api/qr/1')).json;
    // 7.6: details.id and scans as stored (strings), data.clicks and uniqueClicks integers
    expect(r.details).toMatchObject({ id: '1', scans: '128', data: '2025-01-10 12:00:00' });
    expect(r.details.date).toBeUndefined();
    expect(r.data).toMatchObject({ clicks: 128, uniqueClicks: 97, socialCount: { linkedin: 3 } });

    for (const id of [2, 3]) { // text and wifi codes
      expect((await get(doc, `/api/qr/${id}`)).json.data).toBeDefined();
      expect((await get(real, `/api/qr/${id}`)).json).not.toHaveProperty('data');
    }
    const created = (await post(doc, '/api/qr/add', { type: 'link', data: 'https://example.com/x', name: 'New' })).json;
    expect(created).toEqual({ error: 0, id: 4, link: expect.stringMatching(`^${doc.url}/qr/`) });
    expect((await get(doc, '/api/qr/4')).json).toMatchObject({
      details: { id: 4, scans: 0, name: 'New' },
      data: { clicks: 0, uniqueClicks: 0, topCountries: {}, topReferrers: {}, topBrowsers: {}, topOs: {} },
    });
    await post(real, '/api/qr/add', { type: 'link', data: 'https://example.com/x' });
    expect((await get(real, '/api/qr/4')).json.data).toMatchObject({ clicks: 0, topCountries: [], topOs: [] });

    expect((await del(doc, '/api/qr/4/delete')).json).toEqual({ error: 0, message: 'QR Code has been deleted successfully.' });
    expect((await del(real, '/api/qr/4/delete')).json).toEqual({ error: 0, message: 'QR has been deleted successfully.' });
    expect((await get(doc, '/api/qr/4')).json).toEqual({ error: 1, message: 'QR does not exist.' });
    // real-servers.md, 19: in the list, a code without a short link answers the clicks of the
    // installation's first link (docs, 57) as its scans, and follows them
    const listed = async (sb: Sandbox) => Object.fromEntries(((await get(sb, '/api/qr')).json.data.qrs as Array<{ id: unknown; scans: unknown }>).map((q) => [String(q.id), Number(q.scans)]));
    expect(await listed(real)).toEqual({ 1: 128, 2: 57, 3: 57 });
    expect(await listed(doc)).toEqual({ 1: 128, 2: 7, 3: 0 });
    await post(real, '/api/qr/add', { type: 'sms', data: { phone: '+15551234', message: 'hi' } });
    await fetch(`${real.url}/docs`, { redirect: 'manual', headers: { 'User-Agent': 'Mozilla/5.0 Firefox/120.0' } });
    expect(await listed(real)).toEqual({ 1: 128, 2: 58, 3: 58, 5: 58 });
  });

  it('QR validation; invalid data crashes real servers', async () => {
    const { doc, real } = await pair();
    expect((await post(doc, '/api/qr/add', { type: 'barcode', data: 'x' })).json.error).toBe(1);
    expect((await post(doc, '/api/qr/add', { type: 'text' })).json).toEqual({ error: 1, message: 'Invalid QR format or missing data.' });
    for (const body of [{ type: 'link', data: 'not a url' }, { type: 'phone', data: '+1 555 CALL' }, { type: 'wifi', data: 'Guest:secret' }]) {
      const r = await post(real, '/api/qr/add', body);
      expect([r.status, /<html/.test(r.text)]).toEqual([500, true]);
      expect((await post(doc, '/api/qr/add', body)).json.error).toBe(1);
    }
    expect((await put(doc, '/api/qr/1/update', { data: 'https://example.com/new' })).json).toEqual({ error: 0, message: 'QR has been updated successfully.' });
    expect((await put(doc, '/api/qr/99/update', { data: 'x' })).json).toEqual({ error: 1, message: 'QR does not exist.' });
    expect((await get(doc, '/api/qr')).json.data.result).toBe(3);
  });

  it('campaigns: name key, views, rotator/list without slug, assign', async () => {
    const { doc, real } = await pair();
    // without a slug, 7.6 makes a random one
    const d = (await post(doc, '/api/campaign/add', { name: 'Autumn', public: true })).json;
    expect(d).toEqual({ error: 0, id: 2, domain: 'Autumn', public: true, rotator: expect.stringMatching(`^${doc.url}/r/[A-Za-z]+$`), list: expect.stringMatching(`^${doc.url}/u/demo/[A-Za-z]+-2$`) });
    const r = (await post(real, '/api/campaign/add', { name: 'Autumn', slug: 'autumn sale!' })).json;
    expect(r).toEqual({ error: 0, id: 2, campaign: 'Autumn', public: false, rotator: `${real.url}/r/autumn-sale`, list: `${real.url}/u/demo/autumn-sale-2` });
    expect((await put(real, '/api/campaign/2/update', { name: 'Fall' })).json.campaign).toBe('Fall');
    expect((await put(doc, '/api/campaign/2/update', { name: 'Fall', slug: 'fall' })).json).toMatchObject({ domain: 'Fall', rotator: `${doc.url}/r/fall` });

    // an empty slug on update is ignored; one that becomes empty leaves no rotator and no list page (7.7, fact 30)
    await put(real, '/api/campaign/2/update', { slug: '' });
    expect((await get(real, '/api/campaigns')).json.data.campaigns.find((c: { id: number }) => c.id === 2).rotator).toBe(`${real.url}/r/autumn-sale`);
    await put(real, '/api/campaign/2/update', { slug: '___' });
    const items = (await get(real, '/api/campaigns')).json.data.campaigns;
    expect(items.find((c: { id: number }) => c.id === 2)).toEqual({ id: 2, name: 'Fall', public: false, rotator: false, list: false, views: 0 });
    expect((await get(doc, '/api/campaigns')).json.data.campaigns[0]).not.toHaveProperty('views');

    expect((await post(doc, '/api/campaign/add', { name: 'A' })).json.error).toBe(1);
    expect((await post(doc, '/api/campaign/9/assign/2')).json).toEqual({ error: 1, message: 'Campaign not found. Please try again.' });
    expect((await post(doc, '/api/campaign/2/assign/99')).json).toEqual({ error: 1, message: 'Link not found. Please try again.' });
    expect((await post(doc, '/api/campaign/2/assign/2')).json).toEqual({ error: 0, message: 'Link successfully added to the campaign.' });
    expect((await get(doc, '/api/urls')).json.data.urls[0]).toMatchObject({ id: 2, campaign: 2 });
    expect((await del(doc, '/api/campaign/2/delete')).json.message).toBe('Campaign has been deleted successfully.');
    expect((await get(doc, '/api/urls')).json.data.urls[0].campaign).toBeNull();
  });

  it('channels: update answer, assign message, unknown item type, delete unassigns', async () => {
    const { doc, real } = await pair();
    const created = (await post(doc, '/api/channel/add', { name: 'Sales', color: '#ff0000' })).json;
    expect(created).toEqual({ error: 0, id: 2, name: 'Sales', description: '', color: '#ff0000', starred: false });
    expect((await put(doc, '/api/channel/2/update', { starred: true })).json).toEqual({ error: 0, message: 'Channel has been updated successfully.' });
    await post(real, '/api/channel/add', { name: 'Sales' });
    // 7.7 gives a channel made without a colour a random one (fact 33)
    expect((await put(real, '/api/channel/2/update', { description: 'B2B' })).json).toEqual({
      error: 0, id: 2, name: 'Sales', description: 'B2B', color: expect.stringMatching(/^#[0-9a-f]{6}$/), starred: false,
    });

    expect((await post(doc, '/api/channel/2/assign/qr/1')).json).toEqual({ error: 0, message: 'Item successfully added to the channel.' });
    expect((await post(real, '/api/channel/2/assign/qr/1')).json).toEqual({ error: 0, message: 'Link successfully added to the channel.' });
    expect((await post(doc, '/api/channel/2/assign/link/2')).json.error).toBe(1);
    expect((await post(real, '/api/channel/2/assign/link/2')).json.error).toBe(0);
    const items = (await get(real, '/api/channel/2')).json.data.items;
    // in the order they were assigned (7.7, fact 2)
    expect(items.map((i: { type: string; id: number }) => `${i.type}:${i.id}`)).toEqual(['qr:1', 'links:2']);
    expect(items[1]).toMatchObject({ title: 'Spring sale', link: `${real.url}/spring-sale`, date: expect.stringMatching(/^\d{4}-\d\d-\d\d$/) });
    expect((await get(real, '/api/urls?q=spring-sale')).json.data.urls[0].channel).toEqual(['2']);

    expect((await post(doc, '/api/channel/add', { name: 'x' })).json.error).toBe(1);
    expect((await get(doc, '/api/channel/9')).json).toEqual({ error: 1, message: 'Channel not found. Please try again.' });
    expect((await del(real, '/api/channel/2/delete')).json.message).toBe('Channel has been deleted successfully.');
    // the channel is gone, and so are its entries in the links: no null left behind (7.7, fact 5)
    expect((await get(real, '/api/urls?q=spring-sale')).json.data.urls[0].channel).toEqual([]);
  });

  it('domains: string ids, system domain, empty answers of real servers', async () => {
    const { doc, real } = await pair();
    expect((await post(doc, '/api/domain/add', { domain: 'https://b.example.com' })).json).toEqual({ error: 0, id: 2 });
    expect((await post(real, '/api/domain/add', { domain: 'https://b.example.com' })).json).toEqual({ error: 0, id: '2' });
    expect((await post(doc, '/api/domain/add', { domain: 'c.example.com' })).json.error).toBe(1);

    // 7.7 with multiple domains off lists the user's domains only (fact 3); with them on, the site's own comes last
    const realList = (await get(real, '/api/domains')).json.data;
    expect(realList.result).toBe(2);
    expect(realList.domains.map((d: { id: string }) => d.id)).toEqual(['1', '2']);
    const several = await start({ systemDomains: true, stringIds: true });
    expect((await get(several, '/api/domains')).json.data.domains.map((d: { id: string | null }) => d.id)).toEqual(['1', null]);
    expect((await get(doc, '/api/domains')).json.data.domains.map((d: { id: number }) => d.id)).toEqual([2, 1]);

    for (const [path, body] of [
      ['/api/domain/add', { domain: 'https://d.example.com', redirectroot: 'ftp://x' }],
      ['/api/domain/1/update', { redirect404: 'nope' }],
      ['/api/domain/99/update', { redirectroot: 'https://example.com' }],
      ['/api/pixel/99/update', { tag: 'ABC-1' }],
    ] as const) {
      const method = path.endsWith('add') ? 'POST' : 'PUT';
      const r = await call(real, method, path, body);
      expect([r.status, r.text]).toEqual([200, '']);
      expect((await call(doc, method, path, body)).json.error).toBe(1);
    }
    expect((await put(doc, '/api/domain/99/update', {})).json.message).toBe('Domain not found. Please try again.');
    expect((await put(doc, '/api/domain/1/update', { redirectroot: 'https://new.example.com' })).json.message).toBe('Domain has been updated successfully.');
    expect((await del(doc, '/api/domain/1/delete')).json.message).toBe('Domain has been deleted successfully.');
    expect((await del(doc, '/api/domain/1/delete')).json).toEqual({ error: 1, message: 'Domain not found. Please try again.' });
  });

  it('pixels: types, tag length, string id', async () => {
    const { doc, real } = await pair();
    expect((await post(doc, '/api/pixel/add', { type: 'myspace', name: 'x', tag: 'abc' })).json.error).toBe(1);
    expect((await post(doc, '/api/pixel/add', { type: 'tiktok', name: 'TT', tag: 'ab' })).json.error).toBe(1);
    expect((await post(doc, '/api/pixel/add', { type: 'tiktok', name: 'TT', tag: 'abc' })).json).toEqual({ error: 0, id: 2 });
    // 7.7: a TikTok tag has 5 bytes at least (fact 35)
    expect((await post(real, '/api/pixel/add', { type: 'tiktok', name: 'TT', tag: 'abc' })).json).toEqual({ error: 1, message: 'TikTok ID is not correct. Please double check.' });
    expect((await post(real, '/api/pixel/add', { type: 'tiktok', name: 'TT', tag: 'abcde' })).json).toEqual({ error: 0, id: '2' });
    expect((await put(doc, '/api/pixel/2/update', { tag: 'abcd', name: 'TikTok' })).json.error).toBe(0);
    expect((await get(doc, '/api/pixels')).json.data.pixels[0]).toMatchObject({ id: 2, type: 'tiktok', name: 'TikTok', tag: 'abcd' });
    expect((await put(doc, '/api/pixel/99/update', { tag: 'abcd' })).json).toEqual({ error: 1, message: 'Pixel not found. Please try again.' });
  });

  it('account update', async () => {
    const sb = await start({ quirks: false });
    expect((await put(sb, '/api/account/update', { email: 'new@example.com' })).json).toEqual({ error: 0, message: 'Account has been successfully updated.' });
    expect((await get(sb, '/api/account')).json.data.email).toBe('new@example.com');
    expect((await put(sb, '/api/account/update', { email: 'nope' })).json.error).toBe(1);
  });
});

describe('short links', () => {
  it('adds, reads back targeting, and answers per mode', async () => {
    const { doc, real } = await pair();
    const body = {
      url: 'https://example.org/page', custom: 'bad alias!', password: 'pw',
      geotarget: [{ location: 'Canada', link: 'https://example.ca' }], devicetarget: [{ device: 'iPhone', link: 'https://apple.example' }],
    };
    for (const sb of [doc, real]) {
      expect((await post(sb, '/api/url/add', body)).json).toEqual({ error: 0, id: 3, shorturl: `${sb.url}/bad-alias` });
      expect((await post(sb, '/api/url/add', { url: 'https://example.org/other', custom: 'bad-alias' })).json)
        .toEqual({ error: 1, message: 'That alias is taken. Please choose another one.' });
      expect((await post(sb, '/api/url/add', {})).json.error).toBe(1);
    }
    expect((await get(doc, '/api/url/3')).json.details).toMatchObject({ location: { Canada: 'https://example.ca' }, device: { iPhone: 'https://apple.example' } });
    expect((await get(real, '/api/url/3')).json.details).toMatchObject({ location: { canada: { all: 'https://example.ca' } }, device: null });

    // an already shortened long URL with the same options: real servers hand back the existing link
    const same = { url: 'https://example.org/page', password: 'pw', geotarget: body.geotarget, devicetarget: body.devicetarget };
    expect((await post(real, '/api/url/add', same)).json).toEqual({ error: 0, id: 3, shorturl: `${real.url}/bad-alias` });
    expect((await post(doc, '/api/url/add', same)).json.id).toBe(4);
  });

  it('update patches (documented) or replaces (real servers)', async () => {
    const { doc, real } = await pair();
    expect((await put(doc, '/api/url/2/update', { metatitle: 'Renamed' })).json).toEqual({ error: 0, id: 2, short: `${doc.url}/spring-sale` });
    expect((await get(doc, '/api/url/2')).json.details).toMatchObject({ title: 'Renamed', location: { Canada: expect.any(String) } });
    expect((await put(real, '/api/url/2/update', { metatitle: 'Renamed' })).json).toEqual({ error: 0, id: 2, shorturl: `${real.url}/spring-sale` });
    expect((await get(real, '/api/url/2')).json.details).toMatchObject({ title: 'Renamed', location: null });
    expect((await put(doc, '/api/url/99/update', {})).json).toEqual({ error: 1, message: 'Link does not exist.' });
  });

  it('lists with search, click order and lookup by short URL; deletes', async () => {
    const sb = await start({ quirks: true });
    expect((await get(sb, '/api/urls?q=DOCS')).json.data.urls.map((u: { alias: string }) => u.alias)).toEqual(['docs']);
    expect((await get(sb, '/api/urls?order=click')).json.data.urls.map((u: { id: number }) => u.id)).toEqual([1, 2]);
    expect((await get(sb, '/api/urls')).json.data.urls.map((u: { id: number }) => u.id)).toEqual([2, 1]);
    expect((await get(sb, '/api/urls?q=docs')).json.data.urls[0]).toEqual({
      id: 1, alias: 'docs', shorturl: `${sb.url}/docs`, longurl: 'https://sandbox.localhost/docs', title: 'Example Docs',
      description: 'Product documentation', clicks: '57', uniqueclicks: '40', domain: sb.url, campaign: 1, channel: ['1'], date: '2025-01-11 12:00:00',
    });
    expect((await get(sb, `/api/urls?short=${encodeURIComponent(`${sb.url}/docs`)}`)).json).toEqual((await get(sb, '/api/url/1')).json);
    expect((await get(sb, '/api/urls?short=https://nowhere.example/docs')).json).toEqual({ error: 1, message: 'You do not have the permission to access this short url.' });
    expect((await del(sb, '/api/url/1/delete')).json).toEqual({ error: 0, message: 'Link has been successfully deleted.' });
    expect((await get(sb, '/api/channel/1')).json.data.result).toBe(0);
    expect((await get(sb, '/api/url/1')).json).toEqual({ error: 1, message: 'Link does not exist.' });
  });
});

describe('fidelity to real servers, found by running third-party clients against the sandbox', () => {
  it('refuses duplicate campaign and channel names with the real messages', async () => {
    const sb = await start();
    expect((await post(sb, '/api/campaign/add', { name: 'spring LAUNCH' })).json).toEqual({ error: 1, message: 'You already have a campaign with that name.' });
    // 7.7 names the channel that has it (fact 34)
    expect((await post(sb, '/api/channel/add', { name: 'Marketing' })).json).toEqual({ error: 1, message: 'You already have a channel with this name.', id: 1 });
    expect((await post(sb, '/api/channel/add', { name: 'Sales' })).json.error).toBe(0);
  });

  it('takes "domain": false or "" in url/add as the default domain', async () => {
    const sb = await start();
    for (const [i, domain] of [false, ''].entries()) {
      const r = await post(sb, '/api/url/add', { url: `https://example.com/d${i}`, domain });
      expect(r.json.error).toBe(0);
      expect(r.json.shorturl.startsWith(`${sb.url}/`)).toBe(true);
    }
  });

  it('finds a link by its short URL without the scheme', async () => {
    const sb = await start();
    await post(sb, '/api/url/add', { url: 'https://example.com/branded', custom: 'brand', domain: 'https://go.sandbox.localhost' });
    const bare = (await get(sb, '/api/urls?short=go.sandbox.localhost/brand')).json;
    expect(bare.details).toMatchObject({ alias: 'brand', shorturl: 'https://go.sandbox.localhost/brand' });
    const local = (await get(sb, `/api/urls?short=${encodeURIComponent(`${sb.url.replace(/^http:\/\//, '')}/docs`)}`)).json;
    expect(local.details).toMatchObject({ alias: 'docs' });
  });

  it('sends pixel, domain, overlay and QR list ids as strings', async () => {
    const sb = await start();
    const ids = async (path: string, key: string) => (await get(sb, path)).json.data[key].map((r: { id: unknown }) => r.id);
    expect(await ids('/api/pixels', 'pixels')).toEqual(['1']);
    expect(await ids('/api/domains', 'domains')).toEqual(['1']);
    expect(await ids('/api/overlay', 'overlay')).toEqual(['1', '2', '3']);
    expect(await ids('/api/qr', 'qrs')).toEqual(['1', '2', '3']);
  });

  it('seeds records whose statistics add up to their counts', async () => {
    const sb = await start({ quirks: false }); // real servers keep no statistics for text codes
    const sum = (o: Record<string, string>) => Object.values(o).reduce((a, v) => a + Number(v), 0);
    for (const [kind, n, count] of [['url', 2, 'clicks'], ['qr', 2, 'scans']] as const) {
      for (let id = 1; id <= n; id++) {
        const { json } = await get(sb, `/api/${kind}/${id}`);
        const total = Number(kind === 'url' ? json.data.clicks : json.details[count]);
        expect(Number(json.data.clicks)).toBe(total);
        for (const table of ['topCountries', 'topBrowsers', 'topOs']) expect(sum(json.data[table]), `${kind} ${id} ${table}`).toBe(total);
        // Facebook, Twitter and Instagram visits are in socialCount, not in topReferrers (7.6)
        const { facebook, twitter, instagram } = json.data.socialCount;
        expect(sum(json.data.topReferrers) + facebook + twitter + instagram, `${kind} ${id} referrers`).toBe(total);
      }
    }
    const listed = (await get(sb, '/api/urls')).json.data.urls;
    for (const l of listed) expect(Number((await get(sb, `/api/url/${l.id}`)).json.data.clicks)).toBe(Number(l.clicks));
  });
});
