// The sandbox's rate limit, as the product 7.7 keeps it (real-servers.md, "What the product 7.7
// does when run"): a fixed window per key that starts at the first request, X-RateLimit-Reset
// naming its last second, and that WHOLE second still closed (the product compares whole
// seconds), answered with `"Retry-After": 0` and the old reset. Requests it refuses are not
// processed and use up nothing. Expiry is judged on the monotonic clock; Date.now() only names
// the reset in headers.
import { performance } from 'node:perf_hooks';

export interface Limits { limit: number; windowSeconds: number }
interface Window { end: number; opensMono: number; used: number; attempts: number }
export interface RateVerdict { allowed: boolean; retryAfter: number; headers: Record<string, string> }

/** `clock` (ms since the epoch) is for tests that own their time; by default windows end by the monotonic clock. */
export function rateLimiter(limits: Limits | null, options: { headers: boolean; negativeRemaining: boolean; clock?: () => number }) {
  const windows = new Map<string, Window>();
  return {
    check(who: string): RateVerdict {
      if (!limits) return { allowed: true, retryAfter: 0, headers: {} };
      const mono = options.clock ? options.clock() : performance.now();
      let w = windows.get(who);
      if (!w || mono >= w.opensMono) {
        // aligned to whole seconds so X-RateLimit-Reset is exact; the window reopens when its reset second is over
        const nowMs = options.clock ? mono : Date.now();
        const end = Math.floor(nowMs / 1000) + limits.windowSeconds;
        w = { end, opensMono: mono + ((end + 1) * 1000 - nowMs), used: 0, attempts: 0 };
        windows.set(who, w);
      }
      w.attempts++;
      const allowed = w.used < limits.limit;
      if (allowed) w.used++;
      const remaining = limits.limit - w.attempts; // 6.x servers let this go negative; 7.x stop at 0
      return {
        allowed,
        // whole seconds to the reset: 0 during the reset second itself, which is still closed
        retryAfter: Math.max(0, Math.ceil((w.opensMono - mono) / 1000) - 1),
        headers: options.headers ? {
          'X-RateLimit-Limit': String(limits.limit),
          'X-RateLimit-Remaining': String(options.negativeRemaining ? remaining : Math.max(0, remaining)),
          'X-RateLimit-Reset': String(w.end),
        } : {},
      };
    },
    clear: () => windows.clear(),
  };
}
