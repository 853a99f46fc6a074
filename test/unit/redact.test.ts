/** The one redaction function, used by --debug, error messages and crash output. */
import { describe, expect, it } from 'vitest';
import { maskKey, redact, REDACTED } from '../../src/redact.js';

const KEY = 'sk_live_SECRETKEY_1234567890';

describe('redact', () => {
  it('removes the key wherever it appears', () => {
    const text = `GET /api/qr?key=${KEY} failed: ${KEY}${KEY} (key ${KEY}.)`;
    expect(redact(text, [KEY])).toBe(`GET /api/qr?key=${REDACTED} failed: ${REDACTED}${REDACTED} (key ${REDACTED}.)`);
  });

  it('redacts with the secrets of each call, whatever sets came before (the patterns are kept between calls)', () => {
    const keys = Array.from({ length: 7 }, (_, i) => `key-number-${i}-${'x'.repeat(i)}`);
    const text = keys.join(' ');
    for (const round of [1, 2]) {
      keys.forEach((key, i) => {
        const out = redact(text, [key]);
        expect(out.split(' ')[i], `round ${round}`).toBe(REDACTED);
        expect(out.split(' ').filter((word) => word === REDACTED), `round ${round}`).toHaveLength(1);
      });
      expect(redact(text, [keys[0], keys[6]]).split(' ').filter((word) => word === REDACTED)).toHaveLength(2);
    }
  });

  it('removes the key URL-encoded and JSON-escaped too', () => {
    const key = 'ab/c+d"e\\f 12';
    const text = `url ?k=${encodeURIComponent(key)} json ${JSON.stringify({ k: key })}`;
    const out = redact(text, [key]);
    expect(out).toBe(`url ?k=${REDACTED} json {"k":"${REDACTED}"}`);
  });

  it('ignores missing and very short secrets (they would redact ordinary words)', () => {
    expect(redact('the cat sat', [undefined, '', 'at'])).toBe('the cat sat');
  });

  it.each([
    ['> Authorization: Bearer abc.def-123', `> Authorization: Bearer ${REDACTED}`],
    ['authorization: basic dXNlcjpwYXNz', `authorization: basic ${REDACTED}`],
    ['Proxy-Authorization: Basic dXNlcjpwYXNz', `Proxy-Authorization: Basic ${REDACTED}`],
    ['{"authorization":"Bearer abcdef123456"}', `{"authorization":"${REDACTED}"}`],
    ['token in prose: Bearer abcdef123456 was refused', `token in prose: Bearer ${REDACTED} was refused`],
  ])('authorization: %s', (text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it('keeps the scheme word when the key itself was already removed', () => {
    expect(redact(`Authorization: Bearer ${KEY}`, [KEY])).toBe(`Authorization: Bearer ${REDACTED}`);
  });

  it.each([
    ['HTTPS_PROXY=http://alice:s3cret@proxy.example:3128 failed', `HTTPS_PROXY=http://${REDACTED}@proxy.example:3128 failed`],
    ['connect to https://bob@proxy:8080/', `connect to https://${REDACTED}@proxy:8080/`],
    ['socks5://u:p%40ss@10.0.0.1:1080', `socks5://${REDACTED}@10.0.0.1:1080`],
  ])('credentials in URLs: %s', (text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it('leaves URLs without credentials alone', () => {
    const text = 'GET https://example.com/api/url/3?email=a@b.c';
    expect(redact(text)).toBe(text);
  });

  it.each([
    ['{"password":"hunter2"}', `{"password":"${REDACTED}"}`],
    ['{"type":"wifi","data":{"ssid":"Office","pass":"pw12345","encryption":"WPA"}}', `{"type":"wifi","data":{"ssid":"Office","pass":"${REDACTED}","encryption":"WPA"}}`],
    ['{"newPassword" : "a\\"b"}', `{"newPassword" : "${REDACTED}"}`],
    ['{"api_key":"k","access_token":"t","client_secret":"s","x-api-key":"x"}', `{"api_key":"${REDACTED}","access_token":"${REDACTED}","client_secret":"${REDACTED}","x-api-key":"${REDACTED}"}`],
    ['{"password":12345}', `{"password":"${REDACTED}"}`],
    ['"{\\"password\\":\\"hunter2\\"}"', `"{\\"password\\":\\"${REDACTED}\\"}"`],
  ])('JSON fields named like a password: %s', (text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it('leaves other fields alone', () => {
    const text = '{"name":"pass the salt","passwordHint":"no","data":"password: 1","email":"a@b.c","message":"A valid API key is required to use this service."}';
    expect(redact(text)).toBe(text);
  });

  it('is idempotent', () => {
    const text = `Authorization: Bearer ${KEY} {"password":"x"} http://u:p@h/`;
    const once = redact(text, [KEY]);
    expect(redact(once, [KEY])).toBe(once);
  });
});

describe('maskKey', () => {
  it.each([
    [undefined, '(none)'],
    ['', '(none)'],
    ['short', '****'],
    ['12345678', '****'],
    [KEY, '****7890'],
  ])('%j -> %s', (key, shown) => expect(maskKey(key)).toBe(shown));
});
