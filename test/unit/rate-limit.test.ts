/** The rate-limit policy (src/http/rate-limit.ts) on a clock of its own: waits and the bound on them. */
import { describe, expect, it } from 'vitest';
import { newBudget, RateLimitPolicy, type RateState } from '../../src/http/rate-limit.js';
import { RateLimitError } from '../../src/errors.js';

const T0 = 1_800_000_000_000; // a whole second
function policy(maxWaitMs = 120_000) {
  let now = T0;
  const state: RateState = {};
  const p = new RateLimitPolicy(state, maxWaitMs, () => now);
  const headers = (remaining: number, resetS: number) => new Headers({ 'X-RateLimit-Limit': '30', 'X-RateLimit-Remaining': String(remaining), 'X-RateLimit-Reset': String(resetS) });
  return { p, state, headers, advance: (ms: number) => (now += ms), now: () => now };
}

describe('rate-limit policy', () => {
  it('a used-up window is waited for until one second past its reset', () => {
    const { p, headers } = policy();
    p.noteHeaders(headers(0, T0 / 1000 + 10));
    expect(p.waitBeforeSending()).toBe(11_030);
    expect(p.waitBeforeSending()).toBe(0); // spent: the wait covers the window
  });

  it('a window with requests left is not waited for', () => {
    const { p, headers } = policy();
    p.noteHeaders(headers(3, T0 / 1000 + 10));
    expect(p.waitBeforeSending()).toBe(0);
    expect(p.limited).toBe(true);
  });

  it('Retry-After 0 with a reset already past: at least a second, doubling on each repeat', () => {
    const { p, headers, advance } = policy();
    const budget = newBudget();
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      p.noteHeaders(headers(0, T0 / 1000 - 1)); // the old reset, already passed
      waits.push(p.waitAfterOverLimit(0, budget, 'GET x'));
      advance(waits[i]!);
    }
    expect(waits).toEqual([1000, 2000, 4000, 8000]);
  });

  it('Retry-After N and a reset N seconds away: until the reset second is over', () => {
    const { p, headers } = policy();
    p.noteHeaders(headers(0, T0 / 1000 + 59));
    expect(p.waitAfterOverLimit(59, newBudget(), 'GET x')).toBe(60_030);
  });

  it('the whole of one request\'s waiting is bounded by --max-wait, not by a count of answers', () => {
    const { p, advance } = policy(10_000);
    const budget = newBudget();
    let answers = 0;
    let error: unknown;
    try {
      for (;;) {
        advance(p.waitAfterOverLimit(undefined, budget, 'GET api/account'));
        answers++;
      }
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RateLimitError);
    expect(answers).toBe(3); // 1 + 2 + 4 s waited; 8 more would pass 10 s
    expect(budget.waitedMs).toBe(7000);
    expect((error as Error).message).toMatch(/after 4 over-limit answers and 7 s of waiting for GET api\/account \(--max-wait 10 s in all\)/);
  });

  it('a wait longer than --max-wait is refused at once, naming when the window opens', () => {
    const { p } = policy(30_000);
    expect(() => p.waitAfterOverLimit(3600, newBudget(), 'GET x')).toThrow(/the window resets at .* \(in 3600 s\), longer than --max-wait 30 s/);
  });

  it('headers that make no sense are ignored', () => {
    const { p } = policy();
    expect(p.noteHeaders(new Headers({ 'X-RateLimit-Remaining': 'banana', 'X-RateLimit-Reset': 'soon' }))).toBeUndefined();
    expect(p.waitBeforeSending()).toBe(0);
    expect(p.limited).toBe(false);
  });
});
