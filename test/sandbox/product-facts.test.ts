// The sandbox's default mode against each fact of real-servers.md, "What the product's own 7.6
// code does": one test per fact, so that a change of the sandbox cannot drift from the product
// unnoticed. The facts are quoted (shortened) in the test names, in the section's order. The 7.6
// code ran on PHP before 8.1, which sends ids and counts as strings: the sandbox's `stringIds`.
// What the product 7.7 adds (integers on PHP 8, meta fields, the reset second...) is in
// product-facts-7.7.test.ts.
import { describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { hostAllowed, type Sandbox, type SandboxOptions } from '../../src/sandbox/server.js';
import { call, get, useSandbox } from './helpers.js';

const startOnPhp7 = useSandbox();
const start = (options: SandboxOptions = {}) => startOnPhp7({ stringIds: true, ...options });
const post = (sb: Sandbox, path: string, body?: unknown) => call(sb, 'POST', path, body);
const put = (sb: Sandbox, path: string, body?: unknown) => call(sb, 'PUT', path, body);
const short = (sb: Sandbox, url: string) => get(sb, `/api/urls?short=${encodeURIComponent(url)}`);
const visit = (sb: Sandbox, path: string, headers: Record<string, string> = {}) => fetch(sb.url + path, { redirect: 'manual', headers });
const FUTURE = '2035-01-01 00:00:00';

describe('lookups and reads', () => {
  it('?short= answers exactly what GET /api/url/:id answers: no domain, campaign or channel', async () => {
    const sb = await start();
    const byShort = (await short(sb, `${sb.url}/docs`)).json;
    expect(byShort).toEqual((await get(sb, '/api/url/1')).json);
    expect(Object.keys(byShort)).toEqual(['error', 'id', 'details', 'data']);
    expect(Object.keys(byShort.details).sort()).toEqual(['alias', 'date', 'description', 'device', 'expiry', 'id', 'location', 'longurl', 'shorturl', 'title']);
    expect(byShort.data.clicks).toBe(57);
    for (const listOnly of ['domain', 'campaign', 'channel']) expect(byShort.details).not.toHaveProperty(listOnly);
  });

  it('`short` must look like a URL ("Invalid short url. Please try again."); an unknown one is "You do not have the permission to access this short url."', async () => {
    const sb = await start();
    for (const bad of ['docs', 'not a url/docs', 'https://go.sandbox.localhost/']) {
      expect((await short(sb, bad)).json, bad).toEqual({ error: 1, message: 'Invalid short url. Please try again.' });
    }
    expect((await short(sb, 'https://go.sandbox.localhost/nothing')).json).toEqual({ error: 1, message: 'You do not have the permission to access this short url.' });
  });

  it('6.x servers ignore `short` and answer the first page of the list', async () => {
    const sb = await start({ version: '6' });
    const answer = (await short(sb, `${sb.url}/docs`)).json;
    expect(answer).toEqual((await get(sb, '/api/urls')).json);
    expect(answer.data).toMatchObject({ currentpage: 1, result: 2 });
    expect(answer.data.urls.map((u: { alias: string }) => u.alias)).toEqual(['spring-sale', 'docs']);
  });

  it('q is a substring search over the destination, the custom alias, the generated alias and the title together', async () => {
    const sb = await start();
    const generated = (await post(sb, '/api/url/add', { url: 'https://example.net/plain' })).json.shorturl.split('/').pop();
    await put(sb, '/api/url/1/update', { url: 'https://sandbox.localhost/docs', metatitle: 'Handbook', description: 'findme' });
    const aliases = async (q: string) => (await get(sb, `/api/urls?q=${encodeURIComponent(q)}`)).json.data.urls.map((u: { alias: string }) => u.alias);
    expect(await aliases('example.net')).toEqual([generated]); // destination
    expect(await aliases(generated.slice(1, -1))).toEqual([generated]); // generated alias, a part of it
    expect(await aliases('ring-sa')).toEqual(['spring-sale']); // custom alias, a part of it
    expect(await aliases('handb')).toEqual(['docs']); // title
    expect(await aliases('findme')).toEqual([]); // not the description
    expect(await aliases('a')).toHaveLength(3); // a short q matches many links
  });

  it('link list items: id an integer, clicks and uniqueclicks strings, campaign the id or null, channel an array of string ids', async () => {
    const sb = await start();
    const [spring, docs] = (await get(sb, '/api/urls')).json.data.urls;
    expect(docs).toMatchObject({ id: 1, clicks: '57', uniqueclicks: '40', campaign: 1, channel: ['1'] });
    expect(spring).toMatchObject({ id: 2, clicks: '12', uniqueclicks: '11', campaign: null, channel: [] });
  });

  it('lists are newest first; order=click is most clicked first', async () => {
    const sb = await start();
    await post(sb, '/api/url/add', { url: 'https://example.org/new' });
    const ids = async (q: string) => (await get(sb, `/api/urls${q}`)).json.data.urls.map((u: { id: number }) => u.id);
    expect(await ids('')).toEqual([3, 2, 1]);
    expect(await ids('?order=click')).toEqual([1, 2, 3]);
  });

  it('maxpage is computed as a float and written 1.0 (JSON reads it as 1)', async () => {
    const sb = await start();
    const answer = await get(sb, '/api/urls');
    expect(answer.text).toContain('"maxpage":1.0,');
    expect(answer.json.data.maxpage).toBe(1);
  });

  it('link statistics: clicks, uniqueClicks and every top* count are integers; a top* key is absent when the link has no visits', async () => {
    const sb = await start();
    const seen = (await get(sb, '/api/url/1')).json.data;
    expect(seen).toMatchObject({ clicks: 57, uniqueClicks: 40, topCountries: { 'United States': 30, India: 27 }, topBrowsers: { Chrome: 40, Firefox: 17 } });
    for (const table of ['topCountries', 'topReferrers', 'topBrowsers', 'topOs']) {
      for (const n of Object.values(seen[table])) expect(Number.isInteger(n), table).toBe(true);
    }
    await post(sb, '/api/url/add', { url: 'https://example.org/unseen' });
    const unseen = (await get(sb, '/api/url/3')).json.data;
    expect(unseen).toEqual({ clicks: 0, uniqueClicks: 0, socialCount: { facebook: 0, twitter: 0, instagram: 0, linkedin: 0 } });
  });

  it('topReferrers leaves out Facebook, Twitter/t.co and Instagram (they are in socialCount) and names the empty referrer "Direct, email and other"', async () => {
    const sb = await start();
    await post(sb, '/api/url/add', { url: 'https://example.org/shared', custom: 'shared' });
    for (const referer of ['https://www.facebook.com/story', 'https://t.co/abc', 'https://twitter.com/x', 'https://www.instagram.com/p/1', 'https://news.example.org/a']) {
      await visit(sb, '/shared', { Referer: referer });
    }
    await visit(sb, '/shared');
    const stats = (await get(sb, '/api/url/3')).json.data;
    expect(stats.topReferrers).toEqual({ 'https://news.example.org': 1, 'Direct, email and other': 1 });
    expect(stats.socialCount).toEqual({ facebook: 1, twitter: 2, instagram: 1, linkedin: 0 });
    expect(stats.clicks).toBe(6);
  });

  it('country names are capitalised words ("United States")', async () => {
    const sb = await start();
    await post(sb, '/api/url/add', { url: 'https://example.org/world', custom: 'world' });
    await visit(sb, '/world', { 'Accept-Language': 'en-US' });
    await visit(sb, '/world?country=united%20states');
    await visit(sb, '/world?country=new%20zealand');
    expect((await get(sb, '/api/url/3')).json.data.topCountries).toEqual({ 'United States': 2, 'New Zealand': 1 });
  });

  it('QR detail: details.id and details.scans as stored (strings); data.clicks and data.uniqueClicks integers', async () => {
    const sb = await start();
    const { details, data } = (await get(sb, '/api/qr/1')).json;
    expect([details.id, details.scans]).toEqual(['1', '128']);
    expect([data.clicks, data.uniqueClicks]).toEqual([128, 97]);
  });
});

describe('creating and updating links', () => {
  it('checks run in this order: URL, expiry in the future, domain, custom alias, then the duplicate check', async () => {
    const sb = await start();
    const bad = { url: 'not a url', expiry: '2001-01-01 00:00:00', domain: 'https://elsewhere.example', custom: 'docs' };
    expect((await post(sb, '/api/url/add', bad)).json.message).toBe('Please enter a valid URL.');
    expect((await post(sb, '/api/url/add', { ...bad, url: 'https://sandbox.localhost/docs' })).json.message).toBe('The expiry date must be later than today.');
    // the domain is not an error: it becomes the default one, where `docs` is taken
    expect((await post(sb, '/api/url/add', { ...bad, url: 'https://sandbox.localhost/docs', expiry: FUTURE })).json.message).toBe('That alias is taken. Please choose another one.');
    // on a domain of the user's, the alias is free: the duplicate check comes last, and finds no twin
    const onBranded = (await post(sb, '/api/url/add', { ...bad, url: 'https://sandbox.localhost/docs', expiry: FUTURE, domain: 'https://go.sandbox.localhost' })).json;
    expect(onBranded).toEqual({ error: 0, id: 3, shorturl: 'https://go.sandbox.localhost/docs' });
  });

  it('a domain that is not one of the user\'s is silently replaced by the default domain', async () => {
    const sb = await start();
    const typo = (await post(sb, '/api/url/add', { url: 'https://example.org/a', domain: 'https://go.exmaple.com' })).json;
    expect(typo.error).toBe(0);
    expect(typo.shorturl.startsWith(`${sb.url}/`)).toBe(true);
    // 7.7 takes the domain only as stored, scheme included (fact 10): without its scheme it is not the user's either
    expect((await post(sb, '/api/url/add', { url: 'https://example.org/b', domain: 'go.sandbox.localhost' })).json.shorturl.startsWith(`${sb.url}/`)).toBe(true);
    expect((await post(sb, '/api/url/add', { url: 'https://example.org/c', domain: 'https://go.sandbox.localhost' })).json.shorturl).toMatch(/^https:\/\/go\.sandbox\.localhost\//);
    expect((await put(sb, '/api/url/2/update', { url: 'https://sandbox.localhost/sale', domain: 'https://nobody.example' })).json.shorturl).toBe(`${sb.url}/spring-sale`);
  });

  it('an alias under 3 characters is refused; one used on that domain is taken, before the duplicate check (same URL and alias again: an error, never the link)', async () => {
    const sb = await start();
    expect((await post(sb, '/api/url/add', { url: 'https://example.org/x', custom: 'ab' })).json).toEqual({ error: 1, message: 'Custom alias must be at least 3 characters.' });
    expect((await post(sb, '/api/url/add', { url: 'https://example.org/x', custom: 'abc' })).json.error).toBe(0);
    expect((await post(sb, '/api/url/add', { url: 'https://example.org/x', custom: 'abc' })).json).toEqual({ error: 1, message: 'That alias is taken. Please choose another one.' });
    // taken is per domain
    expect((await post(sb, '/api/url/add', { url: 'https://example.org/x', custom: 'abc', domain: 'https://go.sandbox.localhost' })).json).toMatchObject({ error: 0, shorturl: 'https://go.sandbox.localhost/abc' });
    expect((await put(sb, '/api/url/2/update', { url: 'https://sandbox.localhost/sale', custom: 'docs' })).json.message).toBe('That alias is taken. Please choose another one.');
  });

  it('an invalid custom alias is rewritten as the product\'s slug() does: space to . and / _ | + become -, \' " ? go; accents and other scripts stay; 3 bytes as sent; one the rewrite empties is stored empty', async () => {
    const sb = await start();
    const stored = async (custom: string) => {
      const answer = (await post(sb, '/api/url/add', { url: `https://example.org/${encodeURIComponent(custom)}`, custom })).json;
      return answer.error ? answer.message : answer.shorturl.slice(sb.url.length + 1);
    };
    expect(await stored('café')).toBe('café');
    expect(await stored('日本語')).toBe('日本語');
    expect(await stored('with space')).toBe('with-space');
    expect(await stored('bad alias!')).toBe('bad-alias');
    expect(await stored('under_score')).toBe('under-score');
    expect(await stored('what?now')).toBe('whatnow');
    expect(await stored('a+b|c/d')).toBe('a-b-c-d');
    expect(await stored('keep:@~me')).toBe('keep:@~me');
    expect(await stored('é!')).toBe('é'); // 3 bytes as sent: accepted, and 1 character once rewritten
    expect(await stored('é')).toBe('Custom alias must be at least 3 characters.');
    expect(await stored('???')).toBe(''); // the product stores no alias: the short URL is the domain's root
  });

  it('the existing link is returned only when destination, domain, targeting, options, pixels, parameters, password and redirect type all match', async () => {
    const sb = await start();
    const base = {
      url: 'https://example.org/twin', domain: 'https://go.sandbox.localhost', geotarget: [{ location: 'Canada', link: 'https://example.ca' }],
      devicetarget: [{ device: 'iPhone', link: 'https://apple.example' }], languagetarget: [{ language: 'fr', link: 'https://example.fr' }],
      deeplink: { apple: 'https://apps.apple.com/app/x' }, pixels: [1], parameters: [{ name: 'utm', value: 'a' }], password: 'pw', type: 'frame',
    };
    const first = (await post(sb, '/api/url/add', base)).json;
    // what the rule does not name (title, description, expiry, status) does not matter
    expect((await post(sb, '/api/url/add', { ...base, metatitle: 'Other', description: 'other', status: 'public', expiry: FUTURE })).json).toEqual(first);
    const differences: Record<string, unknown> = {
      url: 'https://example.org/twin2', domain: false, geotarget: [{ location: 'France', link: 'https://example.fr' }],
      devicetarget: [], languagetarget: [{ language: 'de', link: 'https://example.de' }], deeplink: { google: 'https://play.example' },
      pixels: [], parameters: [{ name: 'utm', value: 'b' }], password: 'other', type: 'direct',
    };
    for (const [key, value] of Object.entries(differences)) {
      const answer = (await post(sb, '/api/url/add', { ...base, [key]: value })).json;
      expect(answer.error, key).toBe(0);
      expect(answer.id, key).not.toBe(first.id);
    }
  });

  it('options the plan does not include (targeting, expiry, parameters, pixels, deep links, custom alias, splash/overlay/frame) are dropped silently', async () => {
    const sb = await start({ plan: 'basic' });
    expect((await get(sb, '/api/account')).json.data).toMatchObject({ status: 'free', planid: 1 });
    const everything = {
      url: 'https://example.org/basic', custom: 'mine', expiry: FUTURE, geotarget: [{ location: 'Canada', link: 'https://example.ca' }],
      devicetarget: [{ device: 'iPhone', link: 'https://apple.example' }], languagetarget: [{ language: 'fr', link: 'https://example.fr' }],
      parameters: [{ name: 'utm', value: 'a' }], pixels: [1], deeplink: { auto: true, apple: 'https://apps.apple.com/app/x' },
      type: 'overlay-1', metadescription: 'kept', metatitle: 'Kept too',
    };
    const created = (await post(sb, '/api/url/add', everything)).json;
    expect(created.error).toBe(0);
    expect(created.shorturl).not.toMatch(/\/mine$/);
    const { details } = (await get(sb, `/api/url/${created.id}`)).json;
    expect(details).toMatchObject({ location: null, expiry: null, description: 'kept', title: 'Kept too' });
    for (const type of ['frame', '2', 'splash']) {
      expect((await post(sb, '/api/url/add', { url: `https://example.org/${type}`, type })).json.error).toBe(0);
    }
    const updated = (await put(sb, `/api/url/${created.id}/update`, { ...everything, custom: 'again' })).json;
    expect(updated).toEqual({ error: 0, id: created.id, shorturl: created.shorturl });
    expect((await get(sb, `/api/url/${created.id}`)).json.details).toMatchObject({ location: null, expiry: null });
  });

  it('campaign and channel given to url/add are honoured: no separate assign needed', async () => {
    const sb = await start();
    const created = (await post(sb, '/api/url/add', { url: 'https://example.org/grouped', campaign: 1, channel: 1 })).json;
    const item = (await get(sb, '/api/urls')).json.data.urls[0];
    expect(item).toMatchObject({ id: created.id, campaign: 1, channel: ['1'] });
    expect((await get(sb, '/api/channel/1')).json.data.items.map((i: { id: number }) => i.id)).toContain(created.id);
  });

  it('update replaces every option; `channel` adds the link to that channel without removing it from others', async () => {
    const sb = await start();
    await post(sb, '/api/channel/add', { name: 'Second' });
    expect((await put(sb, '/api/url/1/update', { url: 'https://sandbox.localhost/docs', channel: 2 })).json.error).toBe(0);
    const item = (await get(sb, '/api/urls?q=docs')).json.data.urls[0];
    // no meta description: null, as 7.7 answers it (the recording)
    expect(item).toMatchObject({ channel: ['1', '2'], campaign: null, description: null });
    const title = (await get(sb, '/api/url/2')).json.details.title;
    expect((await put(sb, '/api/url/2/update', { url: 'https://sandbox.localhost/sale' })).json.error).toBe(0);
    // the meta title is kept by an update that does not send one (the recording of 7.7)
    expect((await get(sb, '/api/url/2')).json.details).toMatchObject({ location: null, title });
  });
});

describe('other resources', () => {
  it('channel assign of an item already in that channel: error 1 "This item is already added to the selected channel.", and it stays assigned', async () => {
    const sb = await start();
    expect((await post(sb, '/api/channel/1/assign/links/1')).json).toEqual({ error: 1, message: 'This item is already added to the selected channel.' });
    expect((await post(sb, '/api/channel/1/assign/qr/1')).json.error).toBe(0);
    expect((await post(sb, '/api/channel/1/assign/qr/1')).json.message).toBe('This item is already added to the selected channel.');
    expect((await get(sb, '/api/channel/1')).json.data.items.map((i: { type: string; id: number }) => `${i.type}:${i.id}`).sort()).toEqual(['links:1', 'qr:1']);
  });

  it('QR update: data is optional; type and name are ignored', async () => {
    const sb = await start();
    expect((await put(sb, '/api/qr/2/update', { type: 'link', name: 'Renamed' })).json).toEqual({ error: 0, message: 'QR has been updated successfully.' });
    // a colour on a code created without colours: an empty HTTP 500 (7.7); with colours (code 1), success without data
    const colour = await put(sb, '/api/qr/2/update', { foreground: 'rgb(1,2,3)' });
    expect([colour.status, colour.text]).toEqual([500, '']);
    expect((await put(sb, '/api/qr/1/update', { foreground: 'rgb(1,2,3)' })).json).toEqual({ error: 0, message: 'QR has been updated successfully.' });
    expect((await get(sb, '/api/qr/2')).json).not.toHaveProperty('data'); // still a text code: no statistics
    expect((await get(sb, '/api/qr/2')).json.details.name).toBe('Greeting');
    expect((await put(sb, '/api/qr/2/update', { type: 'link', data: 'Plain words again' })).json.error).toBe(0);
    const image = await fetch(`${(await get(sb, '/api/qr/2')).json.details.link}.svg`);
    expect(image.status).toBe(200);
  });

  it('QR create without a valid type or data: "Invalid QR format or missing data."; a code created without a name is named "Via API"', async () => {
    const sb = await start();
    for (const body of [{ type: 'barcode', data: 'x' }, { type: 'text' }, { data: 'x' }, { type: 'text', data: null }]) {
      expect((await post(sb, '/api/qr/add', body)).json, JSON.stringify(body)).toEqual({ error: 1, message: 'Invalid QR format or missing data.' });
    }
    // 7.7: empty text is data, which it fails on (fact 20)
    expect((await post(sb, '/api/qr/add', { type: 'text', data: '' })).status).toBe(500);
    const { id } = (await post(sb, '/api/qr/add', { type: 'text', data: 'hello' })).json;
    expect((await get(sb, `/api/qr/${id}`)).json.details.name).toBe('Via API');
  });

  it('campaign update: name is optional', async () => {
    const sb = await start();
    expect((await put(sb, '/api/campaign/1/update', { public: false })).json).toMatchObject({ error: 0, campaign: 'Spring launch', public: false });
  });

  it('campaign create without a slug gets a random one, so rotator and list are URLs; list is <site>/u/<username>/<slug>-<id>', async () => {
    const sb = await start();
    const a = (await post(sb, '/api/campaign/add', { name: 'First' })).json;
    const b = (await post(sb, '/api/campaign/add', { name: 'Second' })).json;
    const slug = /\/r\/([A-Za-z0-9]+)$/.exec(a.rotator)?.[1];
    expect(slug).toBeDefined();
    expect(a.list).toBe(`${sb.url}/u/demo/${slug}-${a.id}`);
    expect(b.rotator).not.toBe(a.rotator);
    // 7.7 lists campaigns oldest first (fact 2)
    expect((await get(sb, '/api/campaigns')).json.data.campaigns.at(-1)).toMatchObject({ id: b.id, rotator: b.rotator, list: b.list });
  });

  it('PUT /api/account/update with nothing to change: "No changes were done to the account." (a success on 7.7: fact 37)', async () => {
    const sb = await start();
    for (const body of [{}, { username: 'renamed' }]) {
      expect((await put(sb, '/api/account/update', body)).json).toEqual({ error: 0, message: 'No changes were done to the account.' });
    }
    // the email it already has is a change that changes nothing (the recording)
    expect((await put(sb, '/api/account/update', { email: 'demo@sandbox.localhost' })).json).toEqual({ error: 0, message: 'Account has been successfully updated.' });
    expect((await put(sb, '/api/account/update', { email: 'new@example.com' })).json.error).toBe(0);
  });

  it('messages, as the product words them', async () => {
    const sb = await start();
    const message = async (method: string, path: string, body?: unknown) => (await call(sb, method, path, body)).json;
    const cases: Array<[string, string, unknown, string]> = [
      ['GET', '/api/channel/9', undefined, 'Channel not found. Please try again.'],
      ['POST', '/api/channel/9/assign/links/1', undefined, 'Channel not found. Please try again.'],
      ['DELETE', '/api/domain/9/delete', undefined, 'Domain not found. Please try again.'],
      ['DELETE', '/api/pixel/9/delete', undefined, 'Pixel not found. Please try again.'],
      ['POST', '/api/campaign/1/assign/99', undefined, 'Link not found. Please try again.'],
      ['POST', '/api/channel/1/assign/links/99', undefined, 'Link does not exist. Please try again.'],
      ['POST', '/api/channel/1/assign/qr/99', undefined, 'QR Code does not exist. Please try again.'],
      ['POST', '/api/campaign/add', { name: 'Taken slug', slug: 'spring-launch' }, 'This slug is currently not available. Please choose another one.'],
      ['POST', '/api/pixel/add', { type: 'myspace', name: 'x', tag: 'abcd' }, 'Pixel provider is currently not supported.'],
      ['POST', '/api/pixel/add', { type: 'tiktok', name: 'x', tag: 'ab' }, 'Please enter valid id.'],
      ['POST', '/api/domain/add', { domain: 'not a domain' }, 'A valid domain name is required.'],
      ['POST', '/api/domain/add', { domain: 'https://go.sandbox.localhost' }, 'The domain has been already used.'],
      ['POST', '/api/campaign/add', { name: 'x' }, 'Campaign name cannot be empty and must have at least 2 characters.'],
      ['POST', '/api/channel/add', { name: ' ' }, 'Channel name cannot be empty and must have at least 2 characters.'],
      ['POST', '/api/url/add', { custom: 'abc' }, 'Missing required parameter: url'],
    ];
    for (const [method, path, body, expected] of cases) expect(await message(method, path, body), `${method} ${path}`).toEqual({ error: 1, message: expected });
  });

  it('Authorization must be `Bearer KEY`: a bare key is 403 "A valid API key is required to use this service."', async () => {
    const sb = await start();
    const bare = await call(sb, 'GET', '/api/account', undefined, sb.key);
    expect([bare.status, bare.json]).toEqual([403, { error: 1, message: 'A valid API key is required to use this service.' }]);
    expect((await call(sb, 'GET', '/api/account', undefined, `Bearer ${sb.key}`)).status).toBe(200);
  });

  it('X-RateLimit-Remaining never goes below 0 on 7.6', async () => {
    const sb = await start({ rateLimit: { limit: 2, windowSeconds: 60 } });
    const remaining: Array<string | null> = [];
    for (let i = 0; i < 5; i++) remaining.push((await get(sb, '/api/account')).headers.get('x-ratelimit-remaining'));
    expect(remaining).toEqual(['1', '0', '0', '0', '0']);
  });

  it('content type application/json', async () => {
    const sb = await start();
    for (const [method, path] of [['GET', '/api/urls'], ['GET', '/api/qr/1'], ['POST', '/api/channel/1/assign/links/1'], ['GET', '/api/url/99']]) {
      expect((await call(sb, method!, path!)).headers.get('content-type'), path).toBe('application/json');
    }
  });
});

/** A request with a Host header of our choosing (fetch sets its own). */
function withHost(sb: Sandbox, path: string, host: string, auth = `Bearer ${sb.key}`): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: sb.port, path, headers: { Host: host, Authorization: auth } }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d) => (body += d)).on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject).end();
  });
}

describe('DNS rebinding: the sandbox answers only requests addressed to a loopback name (issue 19)', () => {
  it('refuses other host names with 403 and a message, on the API, the control routes and the short links', async () => {
    const sb = await start();
    for (const path of ['/api/account', '/__sandbox/requests', '/docs']) {
      const r = await withHost(sb, path, `rebind.example:${sb.port}`);
      expect(r.status, path).toBe(403);
      expect(JSON.parse(r.body).message).toMatch(/^The sandbox answers only requests addressed to localhost, 127\.0\.0\.1 or \[::1\], not to "rebind\.example:\d+": its key is published/);
    }
    expect(sb.requests).toHaveLength(0);
  });

  it('answers localhost, *.localhost, 127.x and [::1], with or without a port', async () => {
    const sb = await start();
    for (const host of [`localhost:${sb.port}`, 'app.localhost', `127.0.0.1:${sb.port}`, '127.1.2.3', `[::1]:${sb.port}`, 'LOCALHOST']) {
      expect((await withHost(sb, '/api/account', host)).status, host).toBe(200);
    }
    for (const host of ['localhost.example', '128.0.0.1', '10.0.0.1', 'example.localhost.evil']) {
      expect((await withHost(sb, '/api/account', host)).status, host).toBe(403);
    }
  });

  it('answers the address given with --host too, but no name when it listens on every address', () => {
    expect(hostAllowed('192.168.1.5:8787', '192.168.1.5')).toBe(true);
    expect(hostAllowed('[fd00::5]:8787', 'fd00::5')).toBe(true);
    expect(hostAllowed('192.168.1.5:8787', '0.0.0.0')).toBe(false);
    expect(hostAllowed('rebind.example', '::')).toBe(false);
    expect(hostAllowed('sandbox.test:80', '127.0.0.1', ['sandbox.test'])).toBe(true);
    expect(hostAllowed(undefined, '127.0.0.1')).toBe(true); // HTTP/1.0 without Host: no browser sends that
  });
});
