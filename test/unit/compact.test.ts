/** compact() (src/model/values.ts), the loop that drops a body's undefined fields, against what it replaced. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compact } from '../../src/model/values.js';

const before = (body: Record<string, unknown>) => Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));

describe('compact', () => {
  it('keeps what Object.fromEntries(entries.filter) kept, in the same order', () => {
    const value = fc.oneof(fc.constant(undefined), fc.constant(null), fc.string(), fc.integer(), fc.boolean(), fc.array(fc.string()));
    fc.assert(
      fc.property(fc.dictionary(fc.string(), value), (body) => {
        const got = compact(body);
        expect(Object.keys(got)).toEqual(Object.keys(before(body)));
        expect(got).toEqual(before(body));
      }),
      { numRuns: 1000 },
    );
  });
  it('drops undefined, keeps null, empty text and false', () => {
    expect(compact({ a: undefined, b: null, c: '', d: false, e: 0 })).toEqual({ b: null, c: '', d: false, e: 0 });
  });
  it('keeps an own __proto__ key as a key, not as the prototype', () => {
    const body = JSON.parse('{"__proto__": {"polluted": true}, "url": "https://a.invalid"}') as Record<string, unknown>;
    const got = compact(body) as Record<string, unknown>;
    expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
    expect(Object.keys(got)).toEqual(['__proto__', 'url']);
    expect((got as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
