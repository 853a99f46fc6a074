/** The sandbox's QR images and QR codes' own short links, as the product 7.7 serves them (real-servers.md). */
import { describe, expect, it } from 'vitest';
import { call, get, useSandbox } from './helpers.js';
import { isCrawler } from '../../src/sandbox/qr-images.js';
import { PNG } from 'pngjs';
import { readImage } from '../../src/qr/image.js';

const start = useSandbox();
const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const visit = (url: string, ua: string, method = 'GET') => fetch(url, { method, redirect: 'manual', headers: { 'user-agent': ua } });

describe('QR images as the product 7.7 serves them (the default, --qr-images svg)', () => {
  const svgOf = async (r: Response) => ({ status: r.status, type: r.headers.get('content-type'), text: await r.text() });

  it('the code\'s link answers its 1000×1000 SVG (transparent, no quiet zone) the first time, a 302 to the stored file on the same site after', async () => {
    const sb = await start();
    const link: string = (await get(sb, '/api/qr/2')).json.details.link;
    const first = await svgOf(await visit(link, BROWSER));
    expect(first.status).toBe(200);
    expect(first.type).toBe('image/svg+xml');
    expect(first.text).toMatch(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" version="1\.1" width="1000" height="1000" viewBox="0 0 1000 1000"><g transform="scale\([\d.]+\)"><g transform="translate\(0,0\)">/);
    expect(first.text).not.toMatch(/<rect/); // no background: the canvas is transparent
    expect((await readImage(Buffer.from(first.text))).text).toBe('Hello from the sandbox'); // a text code holds its content
    for (let i = 0; i < 2; i++) {
      const again = await visit(link, BROWSER);
      expect(again.status).toBe(302);
      const location = new URL(again.headers.get('location')!, link);
      expect(location.origin).toBe(sb.url);
      expect(location.pathname).toMatch(/^\/content\/qr\/\w+\.svg$/);
      expect(await svgOf(await visit(location.href, BROWSER))).toEqual(first);
    }
  });

  it('a code with a background colour has it as a rectangle under its paths', async () => {
    const sb = await start();
    const { link } = (await call(sb, 'POST', '/api/qr/add', { type: 'text', data: 'tinted', foreground: 'rgb(20,40,160)', background: 'rgb(255,250,230)' })).json;
    const svg = await (await visit(link, BROWSER)).text();
    expect(svg).toMatch(/viewBox="0 0 1000 1000"><rect x="0" y="0" width="1000" height="1000" fill="#fffae6"\/>/);
    expect(svg).toMatch(/fill="#1428a0"\/><\/g><\/g><\/svg>\n$/);
    // made with a foreground only (not recorded): on white, so that it does not read as made without colours
    const fg = (await call(sb, 'POST', '/api/qr/add', { type: 'text', data: 'ink', foreground: 'rgb(0,0,0)' })).json;
    expect(await (await visit(fg.link, BROWSER)).text()).toMatch(/viewBox="0 0 1000 1000"><rect x="0" y="0" width="1000" height="1000" fill="#ffffff"\/>/);
  });

  it('a code with a logo has it over the centre (the product\'s placing is not recorded) and still reads, at high error correction', async () => {
    const sb = await start();
    const { link } = (await call(sb, 'POST', '/api/qr/add', { type: 'text', data: 'with a logo', logo: 'https://logo.invalid/l.png' })).json;
    const svg = await (await visit(link, BROWSER)).text();
    expect(svg).toMatch(/<image x="[\d.]+" y="[\d.]+" width="\d+" height="\d+" href="data:image\/png;base64,[A-Za-z0-9+/=]+"\/><\/g><\/g><\/svg>\n$/);
    const read = await readImage(Buffer.from(svg));
    expect([read.text, read.ecc]).toEqual(['with a logo', 'H']);
    expect(read.notes).toContain('a logo is drawn over the code; its image cannot be read back');
  });

  it('an update that changes the image draws it again at the next ask; one that changes nothing drawn keeps the 302; a HEAD stores nothing', async () => {
    const sb = await start();
    const text = (await call(sb, 'POST', '/api/qr/add', { type: 'text', data: 'before', foreground: 'rgb(0,0,0)', background: 'rgb(255,255,255)' })).json;
    expect((await visit(text.link, BROWSER, 'HEAD')).status).toBe(200);
    expect((await visit(text.link, BROWSER)).status).toBe(200); // the HEAD drew nothing
    expect((await visit(text.link, BROWSER)).status).toBe(302);
    await call(sb, 'PUT', `/api/qr/${text.id}/update`, { data: 'after' });
    const redrawn = await visit(text.link, BROWSER);
    expect(redrawn.status).toBe(200);
    expect((await readImage(Buffer.from(await redrawn.arrayBuffer()))).text).toBe('after');
    await call(sb, 'PUT', `/api/qr/${text.id}/update`, { foreground: 'rgb(120,0,0)' });
    expect((await visit(text.link, BROWSER)).status).toBe(200);
    expect((await visit(text.link, BROWSER)).status).toBe(302);

    // a link code's image holds its own short link: a new destination changes nothing drawn
    const code = (await call(sb, 'POST', '/api/qr/add', { type: 'link', data: 'https://dest.invalid/a' })).json;
    expect((await visit(code.link, BROWSER)).status).toBe(200);
    await call(sb, 'PUT', `/api/qr/${code.id}/update`, { data: 'https://dest.invalid/b' });
    expect((await visit(code.link, BROWSER)).status).toBe(302);
  });

  it('--qr-images png keeps the older form: a plain PNG on white with a quiet zone at the code\'s link, every time', async () => {
    const sb = await start({ qrImages: 'png' });
    const link: string = (await get(sb, '/api/qr/2')).json.details.link;
    for (let i = 0; i < 2; i++) {
      const r = await visit(link, BROWSER);
      expect({ status: r.status, type: r.headers.get('content-type') }).toEqual({ status: 200, type: 'image/png' });
      const png = PNG.sync.read(Buffer.from(await r.arrayBuffer()));
      expect([...png.data.subarray(0, 4)]).toEqual([255, 255, 255, 255]); // the quiet zone's corner: opaque white
      expect((await readImage(PNG.sync.write(png))).text).toBe('Hello from the sandbox');
    }
  });
});

describe('QR codes\' contents and short links', () => {
  it('text, sms and wifi images hold their content; link, email, phone and vcard images hold the code\'s own short link', async () => {
    const sb = await start();
    const add = async (type: string, data: unknown) => (await call(sb, 'POST', '/api/qr/add', { type, data })).json.link as string;
    const read = async (link: string) => (await readImage(Buffer.from(await (await fetch(link)).arrayBuffer()))).text;
    expect(await read(await add('sms', { phone: '+1555', message: 'hi' }))).toBe('smsto:+1555:hi'); // as the product writes them (recorded)
    expect(await read(await add('wifi', { ssid: 'Cafe', pass: '', encryption: 'nopass' }))).toBe('WIFI:S:Cafe;T:nopass;P:;;');
    for (const [type, data, answer] of [
      ['link', 'https://example.com/x', { status: 301, location: 'https://example.com/x' }],
      ['email', { email: 'a@example.com', subject: 'Hi there' }, { status: 301, location: 'mailto:a@example.com?subject=Hi%20there' }],
      ['phone', '+15551234567', { status: 301, location: 'tel:+15551234567' }],
      ['vcard', { fname: 'Ada', lname: 'Lovelace' }, { status: 200, location: null }],
    ] as const) {
      const short = await read(await add(type, data));
      expect(short).toMatch(new RegExp(`^${sb.url}/q\\w+$`));
      const r = await visit(short, 'curl/8.5.0');
      expect({ status: r.status, location: r.headers.get('location') }).toEqual(answer);
      if (type === 'vcard') {
        expect(r.headers.get('content-type')).toBe('application/octet-stream');
        expect(await r.text()).toBe('BEGIN:VCARD\r\nVERSION:3.0\r\nN:Lovelace;Ada;;;\r\nFN:Ada Lovelace\r\nEND:VCARD\r\n');
      }
    }
  });

  it('a short link counts a scan for any client the crawler rule does not recognise, and for none it does; HEAD counts none', async () => {
    const sb = await start();
    const { id } = (await call(sb, 'POST', '/api/qr/add', { type: 'phone', data: '+15551234567' })).json;
    const link: string = (await get(sb, `/api/qr/${id}`)).json.details.link;
    const short = (await readImage(Buffer.from(await (await fetch(link)).arrayBuffer()))).text;
    const scans = async () => Number((await get(sb, `/api/qr/${id}`)).json.details.scans);
    for (const ua of ['curl/8.5.0', 'Googlebot/2.1 (+http://www.google.com/bot.html)', 'linkctl-qr-reader/1.0 (bot)', 'Some-Link-Checker/2']) await visit(short, ua);
    await visit(short, BROWSER, 'HEAD');
    expect(await scans()).toBe(0);
    await visit(short, BROWSER);
    await visit(short, 'linkctl/0.1');
    await visit(short, '');
    expect(await scans()).toBe(3);
  });

  it('a link whose alias is a code\'s short link\'s wins, as a link of the site', async () => {
    const sb = await start();
    const { id } = (await call(sb, 'POST', '/api/qr/add', { type: 'link', data: 'https://example.com/code' })).json;
    const link: string = (await get(sb, `/api/qr/${id}`)).json.details.link;
    const alias = new URL((await readImage(Buffer.from(await (await fetch(link)).arrayBuffer()))).text).pathname.slice(1);
    await call(sb, 'POST', '/api/url/add', { url: 'https://example.com/link', custom: alias });
    expect((await visit(`${sb.url}/${alias}`, 'curl/8')).headers.get('location')).toBe('https://example.com/link');
  });
});

describe('the crawler rule (CrawlerDetect\'s generic words and tools)', () => {
  it.each([
    ['curl/8.5.0', true], ['Wget/1.21', true], ['Mozilla/5.0 (compatible; bingbot/2.0)', true], ['Uptime-Monitor/1', true],
    ['linkctl-qr-reader/0.1.0 (bot; reads QR content, counts no scan)', true], [BROWSER, false], ['linkctl/0.1', false], ['', false],
  ])('%j: %s', (ua, crawler) => expect(isCrawler(ua)).toBe(crawler));
});
