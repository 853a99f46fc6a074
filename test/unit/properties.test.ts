/**
 * Property tests: whatever a user types or a server sends, validators and the response parser
 * give a value or a typed error (UsageError / CliError), never a TypeError or a RangeError.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as validate from '../../src/validate.js';
import { interpretBody, retryAfterSeconds, toInt, toSeconds } from '../../src/http/envelope.js';
import { pageFromBody } from '../../src/http/pages.js';
import { CliError, UsageError } from '../../src/errors.js';
import { redact, REDACTED } from '../../src/redact.js';

const RUNS = { numRuns: 300 };

/** Anything a user could type: any unicode, numbers, sizes up to huge, with surrounding space. */
const userInput = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 50 }),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.string({ unit: fc.constantFrom(...'0123456789.-+eE #xXrgb(),=:/ '.split('')), maxLength: 30 }),
  fc.oneof(fc.integer(), fc.double(), fc.bigInt()).map(String),
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.string({ minLength: 10_000, maxLength: 200_000, unit: fc.constantFrom('1', 'a', '#', ' ', '\u00e9') }),
  fc.constantFrom('', ' ', '0', '-1', '1e3', '1'.repeat(400), 'NaN', 'Infinity', '0x10', '#FFFFFF', 'rgb(256,0,0)', 'http://', 'https://[::1', 'a=', '=b'),
);

/** Calls `f`; a thrown error must be a UsageError (exit 2) with a message naming the flag. */
function valueOrUsageError<T>(f: () => T, check: (value: T) => void) {
  let value: T;
  try {
    value = f();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as UsageError).message).toContain('--flag');
    return;
  }
  check(value);
}

/** Each validator with what a valid result looks like. A validator missing here fails the test below. */
const validators: Record<string, (raw: string) => void> = {
  positiveInt: (raw) => valueOrUsageError(() => validate.positiveInt('--flag', raw), (n) => expect(Number.isSafeInteger(n) && n >= 1).toBe(true)),
  email: (raw) => valueOrUsageError(() => validate.email('--flag', raw), (v) => expect(v).toMatch(/^[^\s@]+@[^\s@]+\.[^\s@]+$/)),
  phone: (raw) => valueOrUsageError(() => validate.phone('--flag', raw), (v) => expect(v).toMatch(/^\+?\d{3,20}$/)),
  oneOf: (raw) => valueOrUsageError(() => validate.oneOf('--flag', raw, ['link', 'text', 'WPA'] as const), (v) => expect(['link', 'text', 'WPA']).toContain(v)),
  httpUrl: (raw) => valueOrUsageError(() => validate.httpUrl('--flag', raw), (v) => expect(new URL(v).protocol).toMatch(/^https?:$/)),
  rgbColor: (raw) => valueOrUsageError(() => validate.rgbColor('--flag', raw), (v) => {
    const parts = /^rgb\((\d+),(\d+),(\d+)\)$/.exec(v);
    expect(parts).not.toBeNull();
    for (const p of parts!.slice(1)) expect(Number(p)).toBeLessThanOrEqual(255);
  }),
  domainUrl: (raw) => valueOrUsageError(() => validate.domainUrl('--flag', raw), (v) => {
    const url = new URL(v);
    expect(url.protocol).toMatch(/^https?:$/);
    expect(url.pathname === '/' && !url.search && !url.hash && !v.endsWith('/')).toBe(true);
  }),
  futureDateTime: (raw) => valueOrUsageError(() => validate.futureDateTime('--flag', raw), (v) => {
    expect(v).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    expect(Date.parse(`${v.replace(' ', 'T')}Z`)).toBeGreaterThan(Date.now() - 1000);
  }),
  hexColor: (raw) => valueOrUsageError(() => validate.hexColor('--flag', raw), (v) => expect(v).toMatch(/^#[0-9a-f]{6}$/i)),
  nonEmpty: (raw) => valueOrUsageError(() => validate.nonEmpty('--flag', raw, 2), (v) => expect(v.trim().length).toBeGreaterThanOrEqual(2)),
  keyValue: (raw) => valueOrUsageError(() => validate.keyValue('--flag', raw), (v) => {
    expect(v.key.length).toBeGreaterThan(0);
    expect(`${v.key}=${v.value}`).toBe(raw);
  }),
  idOrName: (raw) => valueOrUsageError(() => validate.idOrName('--flag', raw), (v) => {
    if (typeof v === 'number') expect(Number.isSafeInteger(v) && v >= 1 && /^\s*\d+\s*$/.test(raw)).toBe(true);
    else expect(v.length > 0 && v === v.trim() && !/^\d+$/.test(v)).toBe(true);
  }),
  milliseconds: (raw) => valueOrUsageError(() => validate.milliseconds('--flag', raw), (ms) => expect(Number.isSafeInteger(ms) && ms >= 0 && ms <= 60_000).toBe(true)),
  concurrencySetting: (raw) => valueOrUsageError(() => validate.concurrencySetting('--flag', raw), (v) => {
    if (v === 'auto') expect(raw.trim().toLowerCase()).toBe('auto');
    else expect(Number.isSafeInteger(v) && v >= 1 && v <= validate.MAX_IN_FLIGHT).toBe(true);
  }),
  overrideReason: (raw) => valueOrUsageError(() => validate.overrideReason('--flag', raw), (v) => expect(v.length >= 1 && v.length <= 500 && v === v.trim() && !/[\x00-\x1f\x7f]/.test(v)).toBe(true)),
  seconds: (raw) => valueOrUsageError(() => validate.seconds('--flag', raw), (n) => expect(n > 0 && n <= 86_400).toBe(true)),
  duration: (raw) => valueOrUsageError(() => validate.duration('--flag', raw, 'smd'), (ms) => {
    expect(Number.isSafeInteger(ms) && ms >= 1000).toBe(true);
    expect(raw.trim()).toMatch(/^\d{1,6}[smd]$/i);
  }),
};

describe('validators', () => {
  it('every exported validator is covered here', () => {
    const exported = Object.entries(validate).filter(([, v]) => typeof v === 'function').map(([name]) => name);
    expect(exported.sort()).toEqual(Object.keys(validators).sort());
  });

  for (const [name, check] of Object.entries(validators)) {
    it(`${name}: any input gives a valid value or a UsageError naming the flag`, () => {
      fc.assert(fc.property(userInput, (raw) => check(raw)), RUNS);
    });
  }

  it('duration accepts a whole number with a unit, in milliseconds', () => {
    expect(validate.duration('--flag', '14d')).toBe(14 * 86_400_000);
    expect(validate.duration('--flag', '90s', 'smh')).toBe(90_000);
    expect(validate.duration('--flag', '2W')).toBe(14 * 86_400_000);
    expect(() => validate.duration('--flag', '2w', 'smh')).toThrow(/--flag must be a positive whole number with a unit, one of s \(seconds\), m \(minutes\), h \(hours\), such as 10h; got "2w"/);
    expect(() => validate.duration('--flag', '0d')).toThrow(UsageError);
  });

  it('positiveInt accepts what it should', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 999_999_999_999_999 }) /* positiveInt takes up to 15 digits */, (n) => {
      expect(validate.positiveInt('--flag', String(n))).toBe(n);
    }), RUNS);
  });

  it('rgbColor accepts every #RRGGBB and rgb() within range', () => {
    const byte = fc.integer({ min: 0, max: 255 });
    fc.assert(fc.property(byte, byte, byte, (r, g, b) => {
      const hex = `#${[r, g, b].map((n) => n.toString(16).padStart(2, '0')).join('')}`;
      expect(validate.rgbColor('--flag', hex)).toBe(`rgb(${r},${g},${b})`);
      expect(validate.rgbColor('--flag', `rgb( ${r}, ${g},${b} )`)).toBe(`rgb(${r},${g},${b})`);
    }), RUNS);
  });
});

/** Anything a server could send, as parsed JSON, plus values JSON cannot produce. */
const serverValue = fc.oneof(
  fc.jsonValue(),
  fc.anything(),
  fc.record({
    error: fc.oneof(fc.constantFrom(0, '0', false, 1, '1', true, 429, '429', null, 2, '', 'maybe'), fc.jsonValue()),
    message: fc.oneof(fc.string(), fc.jsonValue()),
    'Retry-After': fc.oneof(fc.string(), fc.double(), fc.integer(), fc.jsonValue()),
    id: fc.jsonValue(),
    data: fc.jsonValue(),
  }, { requiredKeys: ['error'] }),
);

describe('the response parser', () => {
  it('interpretBody: any value gives a verdict; failures carry a CliError', () => {
    fc.assert(fc.property(serverValue, fc.array(fc.string(), { maxLength: 3 }), (body, fields) => {
      const verdict = interpretBody(body, fields);
      expect(['success', 'failure', 'over-limit']).toContain(verdict.kind);
      if (verdict.kind === 'failure') {
        expect(verdict.error).toBeInstanceOf(CliError);
        expect(verdict.error.message.length).toBeGreaterThan(0);
        expect(verdict.error.message.length).toBeLessThan(300);
      }
      if (verdict.kind === 'success') for (const field of fields) expect(verdict.body[field] ?? null).not.toBeNull();
      if (verdict.kind === 'over-limit' && verdict.retryAfterSeconds !== undefined) expect(verdict.retryAfterSeconds).toBeGreaterThanOrEqual(0);
    }), { numRuns: 1000 });
  });

  it('toSeconds, retryAfterSeconds and toInt: a sane number or undefined, never a throw', () => {
    const input = fc.oneof(fc.anything(), userInput, fc.double(), fc.integer());
    fc.assert(fc.property(input, (value) => {
      const seconds = toSeconds(value);
      if (seconds !== undefined) expect(Number.isFinite(seconds) && seconds >= 0).toBe(true);
      const n = toInt(value);
      if (n !== undefined) expect(Number.isSafeInteger(n)).toBe(true);
      if (typeof value === 'string') {
        const after = retryAfterSeconds(value);
        if (after !== undefined) expect(Number.isFinite(after) && after >= 0).toBe(true);
      }
    }), { numRuns: 1000 });
  });

  it('pageFromBody: any object gives a page or a CliError', () => {
    const body = fc.oneof(
      fc.dictionary(fc.string(), fc.jsonValue()),
      fc.record({
        error: fc.constant(0),
        data: fc.oneof(
          fc.jsonValue(),
          fc.record({
            result: fc.jsonValue(), perpage: fc.jsonValue(), currentpage: fc.jsonValue(), maxpage: fc.jsonValue(),
            qrs: fc.oneof(fc.array(fc.dictionary(fc.string(), fc.jsonValue())), fc.jsonValue()),
            overlay: fc.jsonValue(),
          }),
        ),
      }),
    );
    fc.assert(fc.property(body, (b) => {
      let page;
      try {
        page = pageFromBody(b as Record<string, unknown>, ['qrs', 'overlay']);
      } catch (error) {
        expect(error).toBeInstanceOf(CliError);
        return;
      }
      expect(Array.isArray(page.records)).toBe(true);
      for (const n of [page.result, page.perpage, page.currentpage, page.maxpage]) if (n !== undefined) expect(Number.isSafeInteger(n)).toBe(true);
    }), { numRuns: 1000 });
  });
});

describe('redact', () => {
  // Keys as issued: letters, digits, _ and -, at least 8 long. (A key that is a piece of the
  // marker itself, such as "REDACTED", cannot be told apart from it.)
  const key = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-'.split('')), minLength: 8, maxLength: 64 })
    .filter((k) => !REDACTED.includes(k));
  const noise = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.constantFrom('Bearer ', 'Authorization: ', '{"password":"', 'http://u:', '@', '"', '\\', ' '));

  it('redact(text containing the key, [key]) never contains the key', () => {
    fc.assert(fc.property(key, fc.array(noise, { maxLength: 8 }), fc.array(fc.nat(8), { minLength: 1, maxLength: 4 }), (k, parts, at) => {
      const pieces = [...parts];
      for (const i of at) pieces.splice(Math.min(i, pieces.length), 0, k);
      const text = pieces.join('');
      expect(text).toContain(k);
      expect(redact(text, [k])).not.toContain(k);
    }), { numRuns: 2000 });
  });

  it('any unicode key without the marker\'s brackets is removed too', () => {
    const anyKey = fc.string({ unit: 'grapheme', minLength: 8, maxLength: 40 }).filter((k) => !/[[\]]/.test(k) && !REDACTED.includes(k));
    fc.assert(fc.property(anyKey, fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (k, before, after) => {
      expect(redact(`${before}${k}${after}`, [k])).not.toContain(k);
    }), { numRuns: 1000 });
  });
});
