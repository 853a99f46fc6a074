/**
 * The bulk progress line's ETA (src/output/progress.ts) with the traffic a Context would have
 * recorded: it counts the waits the rate limit will impose, not only the pace so far.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Context, Traffic } from '../../src/context.js';
import { duration, Progress } from '../../src/output/progress.js';

afterEach(() => vi.useRealTimers());

/** A Context with a terminal (a lasting line), and the traffic the test sets. */
function fakeContext(traffic: Traffic) {
  const shown: string[] = [];
  const ctx = {
    traffic,
    lastingStatus: (text?: () => string) => (text && shown.push(text()), true),
    waitNote: () => undefined,
    warn: (line: string) => shown.push(line),
  } as unknown as Context;
  return { ctx, shown };
}

describe('the ETA of a bulk run', () => {
  it('counts the windows still to come at the announced limit', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const traffic: Traffic = { requests: 0, waits: 0, waitedMs: 0 };
    const { ctx } = fakeContext(traffic);
    const progress = new Progress(ctx, 100);
    // 30 rows in 3 s, one request each; 30 a minute announced, the window used up, 57 s to go.
    vi.setSystemTime(1_003_000);
    traffic.requests = 30;
    traffic.rate = { limit: 30, remaining: 0, resetAtMs: 1_060_000 };
    traffic.windowMs = 60_000;
    progress.tick(30);
    // 70 rows left: 30 once this window opens again (57 s, and the reset's own second: 58.03 s), 30 a
    // window later, the last 10 (0.1 s each) a window after that. A window's cycle is at most 60 s,
    // a second of the reset's rounding and the second past it: 62.03 s.
    expect(progress.eta()).toBe(Math.ceil(58.03 + 62.03 + 62.03 + 1));
    // The pace so far alone would say 7 s.
    expect(progress.text()).toBe('30 of 100 rows, 10.0/s, ETA 3 min 4 s');
  });

  it('uses what is left of the window first, and a row\'s own requests', () => {
    vi.useFakeTimers({ now: 0 });
    const traffic: Traffic = { requests: 0, waits: 0, waitedMs: 0 };
    const { ctx } = fakeContext(traffic);
    const progress = new Progress(ctx, 12);
    vi.setSystemTime(2_000);
    traffic.requests = 4; // two requests a row
    traffic.rate = { limit: 10, remaining: 6, resetAtMs: 8_000 };
    traffic.windowMs = 10_000;
    progress.tick(2);
    // 10 rows, 20 requests: 6 now (0.5 s each), then 14: the window opens again in 7.03 s (6 s and the
    // reset's second), one window of 10 (a cycle of 10 s and two seconds at most), 4 more.
    expect(progress.eta()).toBe(Math.ceil(7.03 + 12.03 + 2));
  });

  it('without an announced limit, goes by the pace so far, its waits included', () => {
    vi.useFakeTimers({ now: 0 });
    const traffic: Traffic = { requests: 0, waits: 0, waitedMs: 0 };
    const { ctx } = fakeContext(traffic);
    const progress = new Progress(ctx, 40);
    vi.setSystemTime(20_000);
    traffic.requests = 12;
    traffic.waits = 1;
    traffic.waitedMs = 15_000;
    progress.tick(10);
    expect(progress.eta()).toBe(60);
    expect(progress.text()).toBe('10 of 40 rows, 0.5/s, ETA 1 min 0 s, 1 rate-limit wait');
  });

  it('on a rate-limited server, as the run goes: never under the time left, and never jumping back up', () => {
    // A server that allows 5 requests per 2 s window (the sandbox's --rate-limit 5/2), whose
    // X-RateLimit-Reset is a whole second, and linkctl's one policy: a used-up window is waited for
    // until a second past its reset (windowOpensAt). 26 rows of one request, 50 ms each.
    const LIMIT = 5;
    const WINDOW_MS = 2_000;
    const REQUEST_MS = 50;
    const ROWS = 26;
    vi.useFakeTimers({ now: 0 });
    const traffic: Traffic = { requests: 0, waits: 0, waitedMs: 0 };
    const { ctx } = fakeContext(traffic);
    const progress = new Progress(ctx, ROWS);
    // Run the whole thing first, recording when each row ends and what the client saw after it.
    let now = 0;
    let window: { resetAtMs: number; used: number } | undefined;
    const after: Array<{ at: number; rate: NonNullable<Traffic['rate']>; waits: number; waitedMs: number; windowMs?: number; cycleMs?: number }> = [];
    let waits = 0;
    let waitedMs = 0;
    let windowMs: number | undefined;
    let windowStartedAt: number | undefined;
    let cycleMs: number | undefined;
    for (let row = 0; row < ROWS; row++) {
      if (window && window.used === LIMIT) {
        const opens = window.resetAtMs + 1_030; // windowOpensAt
        waits++;
        waitedMs += opens - now;
        now = opens;
        window = undefined;
      }
      const first = !window || now >= window.resetAtMs;
      if (first) window = { resetAtMs: Math.ceil((now + WINDOW_MS) / 1000) * 1000, used: 0 };
      now += REQUEST_MS;
      window!.used++;
      if (first) {
        // What the context records at a window's first answer (noteRate).
        windowMs = window!.resetAtMs - now;
        if (windowStartedAt !== undefined) cycleMs = now - windowStartedAt;
        windowStartedAt = now;
      }
      after.push({ at: now, rate: { limit: LIMIT, remaining: LIMIT - window!.used, resetAtMs: window!.resetAtMs }, waits, waitedMs, windowMs, cycleMs });
    }
    const end = after.at(-1)!.at;
    let previous = Infinity;
    for (const [i, seen] of after.entries()) {
      vi.setSystemTime(seen.at);
      Object.assign(traffic, { requests: i + 1, waits: seen.waits, waitedMs: seen.waitedMs, rate: seen.rate, windowMs: seen.windowMs, cycleMs: seen.cycleMs });
      progress.tick(i + 1);
      const eta = progress.eta()!;
      const left = (end - seen.at) / 1000;
      expect(eta, `after row ${i + 1}: ${left} s left`).toBeGreaterThanOrEqual(Math.floor(left));
      // Counts down with time (a second of rounding aside), never back up.
      expect(eta, `after row ${i + 1}`).toBeLessThanOrEqual(previous + 1);
      previous = eta;
    }
  });

  it('says nothing of an ETA before the first row', () => {
    const { ctx } = fakeContext({ requests: 0, waits: 0, waitedMs: 0 });
    expect(new Progress(ctx, 5).eta()).toBeUndefined();
  });

  it('writes durations as people read them', () => {
    expect([duration(0), duration(59.2), duration(61), duration(3600 + 600)]).toEqual(['0 s', '1 min 0 s', '1 min 1 s', '1 h 10 min']);
  });
});
