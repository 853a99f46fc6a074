/** The sanitiser: what a terminal may act on becomes a visible escape; JSON stays lossless. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { safeStringify, safeText, safeTruncate } from '../../src/output/safe-text.js';

const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

describe('safeText', () => {
  it('shows C0, DEL, C1 and bidi overrides as escapes; keeps tab, and newline when asked', () => {
    expect(safeText('a\x1b]0;t\x07b')).toBe('a\\x1b]0;t\\x07b');
    expect(safeText('x\ry')).toBe('x\\x0dy');
    expect(safeText('\x7f\x9b\x85')).toBe('\\x7f\\x9b\\x85');
    expect(safeText('\u202eabc\u202c\u2066\u2069')).toBe('\\u202eabc\\u202c\\u2066\\u2069');
    expect(safeText('a\tb\nc')).toBe('a\tb\\x0ac');
    expect(safeText('a\tb\nc', true)).toBe('a\tb\nc');
    expect(safeText('plain ünïcödé ✓ 日本')).toBe('plain ünïcödé ✓ 日本');
  });

  it('leaves nothing raw, for any string', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (s) => !RAW_CONTROL.test(safeText(s)) && !RAW_CONTROL.test(safeText(s, true))));
  });
});

describe('safeStringify', () => {
  it('escapes DEL, C1 and bidi as \\uXXXX, and parses back to the same value', () => {
    const value = { name: 'a\x1b\x9b\u202e\x7fz', list: ['\u2066'] };
    const text = safeStringify(value, 2);
    expect(text).toContain('\\u009b');
    expect(text).toContain('\\u202e');
    expect(text).not.toMatch(RAW_CONTROL);
    expect(JSON.parse(text)).toEqual(value);
  });

  it('round-trips any JSON value, with nothing raw', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'binary' }), (value, s) => {
        const v = { value, s };
        const text = safeStringify(v);
        return !RAW_CONTROL.test(text.replace(/\n/g, '')) && JSON.stringify(JSON.parse(text)) === JSON.stringify(v);
      }),
    );
  });
});

describe('safeTruncate', () => {
  it('never cuts an escape in half', () => {
    expect(safeTruncate('ab\x1bcdef', 4)).toBe('ab…');
    expect(safeTruncate('ab\x1bcdef', 7)).toBe('ab\\x1b…');
    expect(safeTruncate('short', 10)).toBe('short');
  });

  it('fits the width and ends after whole escapes, for any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.integer({ min: 2, max: 40 }), (s, width) => {
        const cut = safeTruncate(s, width);
        if (cut.length > width) return false;
        if (cut === safeText(s)) return true;
        // What is kept is the escaped form of a whole prefix of the string: no escape was cut.
        const points = [...s];
        const kept = cut.slice(0, -1);
        return cut.endsWith('…') && points.some((_, k) => safeText(points.slice(0, k).join('')) === kept);
      }),
    );
  });
});
