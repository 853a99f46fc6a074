/** The product's webhook bodies read into events (src/listen/payload.ts): shapes, both date formats, the server's time zone. */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { aliasOf, parsePayload, PayloadError, utcOf, wallClock } from '../../src/listen/payload.js';
import { sign } from '../../src/listen/forward.js';
import { createHmac } from 'node:crypto';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/product-7.7/webhooks.json', import.meta.url), 'utf8')) as { received: Array<{ path: string; body: string }> };
const body = (path: string) => fixture.received.find((r) => r.path === path)!.body.replace('{BASE}', 'https:\\/\\/go.invalid');

describe('listen payloads', () => {
  it('reads both of the recorded 7.7 posts; their dates, in the server\'s time zone, become UTC by the offset the arrival shows', () => {
    // the server is on UTC+1: its 15:03:20 arrived at 14:03:20.4 UTC
    const arrived = Date.parse('2026-11-28T14:03:20.400Z');
    const created = parsePayload('created', body('/created'), arrived);
    expect(created).toMatchObject({ type: 'link.created', at: '2026-11-28T14:03:20.000Z', shortUrl: 'https://go.invalid/hooked', alias: 'hooked', longUrl: 'http://127.0.0.1:8091/index.html' });
    const visit = parsePayload('visits', body('/clicked'), arrived);
    expect(visit).toMatchObject({ type: 'link.clicked', at: '2026-11-28T14:03:20.000Z', referrer: 'https://news.invalid/post', os: 'Windows 10/11', browser: 'Firefox', country: null, city: null });
    expect(created.id).not.toBe(visit.id);
    expect(created.id).toMatch(/^evt_[0-9a-z]{9}[0-9a-f]{20}$/);
  });

  it('time zones: half-hour offsets, a late post within the quarter hour, a date from no time zone is the arrival', () => {
    const at = Date.parse('2026-11-28T10:00:10Z');
    expect(new Date(utcOf('2026-11-28 15:30:05', at)).toISOString()).toBe('2026-11-28T10:00:05.000Z'); // UTC+5:30
    expect(new Date(utcOf('28-11-2026 05:00:05', at)).toISOString()).toBe('2026-11-28T10:00:05.000Z'); // UTC-5
    expect(utcOf('2026-11-30 10:00:00', at)).toBe(at); // two days off: not trusted
    expect(wallClock('31-02-2026 10:00:00')).toBeUndefined();
    expect(wallClock('2026-11-28T10:00:00')).toBe(Date.parse('2026-11-28T10:00:00Z'));
  });

  it('refuses what is not the product\'s shape, saying what', () => {
    const now = Date.now();
    const bad: Array<[string, 'created' | 'visits', RegExp]> = [
      ['{', 'visits', /not JSON/],
      ['[]', 'visits', /not a JSON object/],
      [body('/created'), 'visits', /"type" is not "view"/],
      [JSON.stringify({ type: 'view', date: '2026-11-28 10:00:00' }), 'visits', /"shorturl" is missing/],
      [JSON.stringify({ type: 'view', shorturl: 'javascript:alert(1)', date: '2026-11-28 10:00:00' }), 'visits', /not an http/],
      [JSON.stringify({ type: 'view', shorturl: 'https://go.invalid/a', browser: 7, date: '2026-11-28 10:00:00' }), 'visits', /"browser" is not text/],
      [JSON.stringify({ type: 'url', shorturl: 'https://go.invalid/a', date: 'soon' }), 'created', /"date"/],
    ];
    for (const [text, hook, why] of bad) expect(() => parsePayload(hook, text, now), text).toThrow(why);
    expect(() => parsePayload('visits', '{', now)).toThrow(PayloadError);
  });

  it('aliases from short URLs, and the signature is Stripe\'s scheme', () => {
    expect(aliasOf('https://go.invalid/caf%C3%A9-au-lait')).toBe('café-au-lait');
    expect(aliasOf('https://go.invalid/')).toBeNull();
    expect(aliasOf('https://go.invalid/a%00b')).toBe('a\ufffdb'); // NUL cannot be stored in PostgreSQL text (issue 50)
    expect(sign('s3cret', '{"a":1}', 1700000000)).toBe(`t=1700000000,v1=${createHmac('sha256', 's3cret').update('1700000000.{"a":1}').digest('hex')}`);
  });
});
