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
    // 70 rows left: 30 once this window ends in 57 s, 30 a window later, the last 10 (0.1 s each) a window after that.
    expect(progress.eta()).toBe(57 + 60 + 60 + 1);
    // The pace so far alone would say 7 s.
    expect(progress.text()).toBe('30 of 100 rows, 10.0/s, ETA 2 min 58 s');
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
    // 10 rows, 20 requests: 6 now (0.5 s each), then 14: the window ends in 6 s, one window of 10, 4 more.
    expect(progress.eta()).toBe(18);
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

  it('says nothing of an ETA before the first row', () => {
    const { ctx } = fakeContext({ requests: 0, waits: 0, waitedMs: 0 });
    expect(new Progress(ctx, 5).eta()).toBeUndefined();
  });

  it('writes durations as people read them', () => {
    expect([duration(0), duration(59.2), duration(61), duration(3600 + 600)]).toEqual(['0 s', '1 min 0 s', '1 min 1 s', '1 h 10 min']);
  });
});
