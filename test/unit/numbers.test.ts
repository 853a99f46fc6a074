/** thousands() (src/numbers.ts) writes every number as toLocaleString('en') does, without loading ICU's formatting. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { thousands } from '../../src/numbers.js';

describe('thousands', () => {
  it('writes integers, fractions and huge numbers as toLocaleString("en")', () => {
    const anyNumber = fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.integer({ min: -1e6, max: 1e6 }), fc.double({ noNaN: true }), fc.constantFrom(0, -0, 999, 1000, -1000, 2 ** 53, Infinity, -Infinity));
    fc.assert(fc.property(anyNumber, (n) => thousands(n) === n.toLocaleString('en')), { numRuns: 2000 });
  });
  it('writes 12,345,678', () => {
    expect(thousands(12_345_678)).toBe('12,345,678');
    expect(thousands(-1_000)).toBe('-1,000');
    expect(thousands(999)).toBe('999');
  });
});
