// Short links and QR images served by the sandbox: what a browser, curl or a phone gets.
import { describe, expect, it } from 'vitest';
import { PNG } from 'pngjs';
import { call, get, useSandbox } from './helpers.js';
import { decodePng } from '../qr-decode.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { seedState } from '../../src/sandbox/state.js';
import { publicPage } from '../../src/sandbox/visits.js';

const start = useSandbox();

const visit = (sb: Sandbox, path: string, headers: Record<string, string> = {}, init: RequestInit = {}) =>
  fetch(sb.url + path, { redirect: 'manual', ...init, headers });
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0';


for (const quirks of [false, true]) {
  describe(`short links (${quirks ? 'real-server shapes' : 'documented shapes'})`, () => {
    it('redirect with 301 (as the product 7.7) and count clicks, unique visitors, country, referrer, browser and system', async () => {
      const sb = await start({ quirks });
      const add = await call(sb, 'POST', '/api/url/add', { url: 'https://example.com/target', custom: 'demo' });
      const id = add.json.id;
      const first = await visit(sb, '/demo', { 'User-Agent': FIREFOX_LINUX, 'Accept-Language': 'de-DE,de;q=0.9', Referer: 'https://news.example.org/post/1' });
      expect(first.status).toBe(301);
      expect(first.headers.get('location')).toBe('https://example.com/target');
      await visit(sb, '/demo?country=JP', { 'User-Agent': FIREFOX_LINUX }); // same visitor
      await visit(sb, '/demo', { 'User-Agent': IPHONE }); // another browser, from the same address
      const { json } = await get(sb, `/api/url/${id}`);
      const n = (v: unknown) => Number(v);
      expect(n(json.data.clicks)).toBe(3);
      // unique visitors are client addresses (7.7, fact 42): the test's three visits come from one
      expect(n(json.data.uniqueClicks)).toBe(1);
      // real servers send a link's counts as integers; the documented mode writes them as the QR code's strings
      const count = (k: number) => (quirks ? k : String(k));
      expect(json.data.topCountries).toEqual({ Germany: count(1), Japan: count(1), Unknown: count(1) });
      expect(json.data.topReferrers).toEqual({ 'https://news.example.org': count(1), 'Direct, email and other': count(2) });
      expect(json.data.topBrowsers).toEqual({ Firefox: count(2), Safari: count(1) });
      // the product's names of systems (fact 42)
      expect(json.data.topOs).toEqual({ Linux: count(2), IPhone: count(1) });
      const listed = (await get(sb, '/api/urls')).json.data.urls.find((l: { alias: string }) => l.alias === 'demo');
      expect([n(listed.clicks), n(listed.uniqueclicks)]).toEqual([3, 1]);
    });

    it('apply geo and device targeting (the seeded spring-sale link)', async () => {
      const sb = await start({ quirks });
      const where = async (path: string, headers: Record<string, string>) => (await visit(sb, path, headers)).headers.get('location');
      // a visitor is sent to the sandbox's own pages at its current address
      expect(await where('/spring-sale', { 'User-Agent': FIREFOX_LINUX })).toBe(`${sb.url}/pages/sale`);
      expect(await where('/spring-sale', { 'User-Agent': FIREFOX_LINUX, 'Accept-Language': 'en-CA' })).toBe(`${sb.url}/pages/sale-ca`);
      expect(await where('/spring-sale?country=Canada', {})).toBe(`${sb.url}/pages/sale-ca`);
      expect(await where('/spring-sale', { 'User-Agent': IPHONE })).toBe(`${sb.url}/pages/app`);
    });
  });
}

describe('short links with a password or an expiry, and unknown paths', () => {
  it('ask for the password with a small form, and redirect once it is right', async () => {
    const sb = await start();
    await call(sb, 'POST', '/api/url/add', { url: 'https://example.com/secret', custom: 'locked', password: 'opensesame' });
    const form = await visit(sb, '/locked');
    expect(form.status).toBe(200);
    expect(form.headers.get('content-type')).toMatch(/text\/html/);
    expect(await form.text()).toMatch(/<form method="post" action="\/locked">.*name="password"/s);
    const post = (password: string) => visit(sb, '/locked', { 'Content-Type': 'application/x-www-form-urlencoded' },
      { method: 'POST', body: new URLSearchParams({ password }).toString() });
    const wrong = await post('guess');
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toMatch(/Wrong password/);
    const right = await post('opensesame');
    expect(right.status).toBe(301);
    expect(right.headers.get('location')).toBe('https://example.com/secret');
    const id = (await get(sb, '/api/urls?short=' + encodeURIComponent(`${sb.url}/locked`))).json.id;
    expect(Number((await get(sb, `/api/url/${id}`)).json.data.clicks)).toBe(1); // only the visit that got through
  });

  it('answer 410 once expired (the API takes only future dates, so the record is aged directly), and 404 for an unknown alias', async () => {
    const state = seedState();
    const docs = state.links.find((l) => l.alias === 'docs')!;
    const v = { method: 'GET', path: '/docs', query: {}, headers: {}, remote: '127.0.0.1', body: '' };
    docs.expiry = '2999-01-01 00:00:00';
    expect(publicPage(state, v)?.status).toBe(301);
    docs.expiry = '2020-01-01 00:00:00';
    const expired = publicPage(state, v)!;
    expect(expired.status).toBe(410);
    expect(expired.body).toMatch(/expired/);
    expect(docs.clicks).toBe(58); // the visit before expiry counted, the one after did not
    expect(publicPage(state, { ...v, path: '/no-such-alias' })).toBeUndefined();
    const sb = await start();
    expect((await visit(sb, '/no-such-alias')).status).toBe(404);
  });
});

// The sandbox's older form (`--qr-images png`); its default, the product's form, is tested in
// test/sandbox/qr-images.test.ts and test/e2e/sandbox-product-images.test.ts.
describe('QR code images, the PNG form', () => {
  it('serve a PNG at the code\'s link, and an SVG at link + .svg, that scan as the code\'s data, in its colours', async () => {
    const sb = await start({ qrImages: 'png' });
    const add = await call(sb, 'POST', '/api/qr/add', { type: 'link', data: 'https://example.com/poster', foreground: 'rgb(10,20,120)', background: 'rgb(255,250,230)' });
    const link: string = add.json.link;
    expect(link.startsWith(`${sb.url}/qr/`)).toBe(true);
    const png = await fetch(link);
    expect(png.status).toBe(200);
    expect(png.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await png.arrayBuffer());
    // A link code's image holds the code's own short link, which answers 301 to the data (real-servers.md).
    const short = decodePng(bytes)!;
    expect(short).toMatch(new RegExp(`^${sb.url}/q\\w+$`));
    const answer = await fetch(short, { redirect: 'manual', headers: { 'user-agent': 'curl/8.5.0' } });
    expect([answer.status, answer.headers.get('location')]).toEqual([301, 'https://example.com/poster']);
    const pixels = PNG.sync.read(bytes);
    expect([...pixels.data.subarray(0, 3)]).toEqual([255, 250, 230]); // the quiet zone is the background
    const svg = await fetch(`${link}.svg`);
    expect(svg.headers.get('content-type')).toBe('image/svg+xml');
    const text = await svg.text();
    expect(text).toMatch(/^<\?xml[^>]*>\n<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(text).toContain('fill="#0a1478"');
    expect(text).toContain('fill="#fffae6"');
  });

  it('encode wifi codes in the format phones join networks with', async () => {
    const sb = await start({ qrImages: 'png' });
    const list = (await get(sb, '/api/qr')).json.data.qrs;
    const wifi = list.find((q: { name: string }) => q.name === 'Office wifi');
    expect(decodePng(Buffer.from(await (await fetch(wifi.link)).arrayBuffer()))).toBe('WIFI:S:Guest;T:WPA;P:welcome123;;'); // as the product writes it (real-servers.md, 23b)
  });
});
