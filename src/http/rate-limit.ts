/**
 * The rate-limit policy, in one place: when to wait before sending, how long to wait after an
 * over-limit answer, and when to give up. Every API request goes through ApiClient.send, which
 * asks this file; nothing else decides a wait.
 *
 * What real servers do (real-servers.md, "What the product 7.7 does when run"):
 * - a fixed window per key; `X-RateLimit-Reset` names its last second in Unix seconds;
 * - the window stays closed for the WHOLE second the reset names (the product compares whole
 *   seconds): with reset …106, requests at …106.6 and …106.9 are refused, one at …107.3 passes;
 * - at the reset second and just after it the product still refuses, with `"Retry-After": 0` and
 *   the old, already passed reset. A client that reads 0 or a passed reset as "send now" spends
 *   every retry within milliseconds and gives up though the window is about to open.
 *
 * So: a wait for a window always lasts until one second past its reset; an over-limit answer
 * that says "0", says nothing or names a passed reset means "not yet": wait at least a second,
 * twice as long on each repeat; and the whole of one request's waiting is bounded by time
 * (--max-wait), never by a count of attempts that zero waits could use up.
 */
import { RateLimitError } from '../errors.js';
import { toInt } from './envelope.js';

/** What the server said of its window, kept between requests (and shared by the clients of one MCP session). */
export interface RateState {
  remaining?: number;
  resetAtMs?: number;
  /** Whether this server has shown a rate limit at all (headers or an over-limit answer). */
  limited?: boolean;
}

/** A window's reset second is closed as a whole: the window opens this long after the reset's start. */
export const RESET_SECOND_MS = 1000;
/** Clock skew allowance on top of a wait for a window. */
export const RESET_MARGIN_MS = 30;
/** The least wait after an over-limit answer; it doubles on each repeat for the same request. */
export const MIN_OVER_LIMIT_WAIT_MS = 1000;
/** The longest a repeated wait grows to when the server names none. */
const MAX_GROWN_WAIT_MS = 60_000;

/** The headers of one answer, read; undefined when they are missing or make no sense (never fatal). */
export interface RateHeaders {
  limit?: number;
  remaining: number;
  resetAtMs: number;
}

export function readRateHeaders(headers: Headers, nowMs: number): RateHeaders | undefined {
  const remaining = toInt(headers.get('x-ratelimit-remaining'));
  let reset = toInt(headers.get('x-ratelimit-reset'));
  // A Unix time in seconds is documented; a small number is read as seconds from now (some proxies send that).
  if (reset !== undefined && reset >= 0 && reset <= 86_400) reset = Math.ceil(nowMs / 1000) + reset;
  // A reset more than a day away is not a window end.
  if (remaining === undefined || reset === undefined || Math.abs(reset * 1000 - nowMs) > 86_400_000) return undefined;
  const limit = toInt(headers.get('x-ratelimit-limit'));
  return { limit: limit !== undefined && limit > 0 ? limit : undefined, remaining, resetAtMs: reset * 1000 };
}

/** When a window whose reset is `resetAtMs` lets requests through again. */
export const windowOpensAt = (resetAtMs: number): number => resetAtMs + RESET_SECOND_MS + RESET_MARGIN_MS;

/** One request's waiting so far: what the bound on --max-wait counts. */
export interface WaitBudget {
  overLimitAnswers: number;
  waitedMs: number;
}
export const newBudget = (): WaitBudget => ({ overLimitAnswers: 0, waitedMs: 0 });

export class RateLimitPolicy {
  constructor(
    private readonly state: RateState,
    private readonly maxWaitMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Remembers what an answer's X-RateLimit-* headers say; returns them when usable. */
  noteHeaders(headers: Headers): RateHeaders | undefined {
    const read = readRateHeaders(headers, this.now());
    delete this.state.remaining;
    delete this.state.resetAtMs;
    if (!read) return undefined;
    this.state.remaining = read.remaining;
    this.state.resetAtMs = read.resetAtMs;
    this.state.limited = true;
    return read;
  }

  /** Whether this server has shown a rate limit (headers, or an over-limit answer). */
  get limited(): boolean {
    return Boolean(this.state.limited);
  }

  /**
   * How long to wait before sending, when the last answer said the window is used up: until one
   * second past its reset. The state is spent either way (the wait covers the window).
   */
  waitBeforeSending(): number {
    const { remaining, resetAtMs } = this.state;
    if (remaining === undefined || resetAtMs === undefined || remaining > 0) return 0;
    this.forget();
    return Math.max(0, windowOpensAt(resetAtMs) - this.now());
  }

  /**
   * How long to wait after an over-limit answer before sending the request again.
   * `retryAfterSeconds` is what the answer said (header or body); the answer's headers were noted
   * first, so a reset they name is known. `what` names the request, `reason` the answer. Throws
   * RateLimitError when the server's wait is longer than --max-wait, or when this wait would take
   * the request's waiting in all past it.
   */
  waitAfterOverLimit(retryAfterSeconds: number | undefined, budget: WaitBudget, what: string, reason = 'the server says the rate limit is exceeded'): number {
    this.state.limited = true;
    const now = this.now();
    const said = retryAfterSeconds !== undefined && retryAfterSeconds > 0 ? retryAfterSeconds * 1000 : 0;
    const untilOpen = this.state.resetAtMs !== undefined ? windowOpensAt(this.state.resetAtMs) - now : 0;
    // "0", nothing, or a passed reset: not yet. At least a second, doubling on each repeat.
    const floor = Math.min(MAX_GROWN_WAIT_MS, MIN_OVER_LIMIT_WAIT_MS * 2 ** budget.overLimitAnswers);
    const serverWait = Math.max(said, untilOpen);
    const waitMs = Math.max(serverWait, floor);
    budget.overLimitAnswers++;
    this.forget(); // this wait covers the window: no second wait for it before the retry
    this.checkWait(serverWait, reason);
    if (budget.waitedMs + waitMs > this.maxWaitMs) {
      throw new RateLimitError(
        `still over the rate limit after ${budget.overLimitAnswers} over-limit ${budget.overLimitAnswers === 1 ? 'answer' : 'answers'} and ${seconds(budget.waitedMs)} s of waiting for ${what} (--max-wait ${seconds(this.maxWaitMs)} s in all)`,
        'try again later, or raise --max-wait',
      );
    }
    budget.waitedMs += waitMs;
    return waitMs;
  }

  /** A wait before sending that is longer than --max-wait allows is refused at once, naming when the window opens. */
  checkWait(waitMs: number, reason: string): void {
    if (waitMs <= this.maxWaitMs) return;
    throw new RateLimitError(
      `rate limited: ${reason}; the window resets at ${iso(this.now() + Math.min(waitMs, 10 * 365 * 86_400_000))} (in ${Math.ceil(waitMs / 1000)} s), longer than --max-wait ${seconds(this.maxWaitMs)} s`,
      'try again after that time, or raise --max-wait',
    );
  }

  private forget(): void {
    delete this.state.remaining;
    delete this.state.resetAtMs;
  }
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
const seconds = (ms: number) => +(ms / 1000).toFixed(1);

/** What the API client reported during this run: the requests, the waits, the rate limit as announced. */
export interface Traffic {
  /** Requests started (attempts: a retry counts again). */
  requests: number;
  /** Rate-limit waits so far, and their time in all. */
  waits: number;
  waitedMs: number;
  /** The wait under way: when it ends and why. */
  wait?: { endsAtMs: number; reason: string };
  /** The X-RateLimit-* headers of the last answer that had them (`limit` when announced). */
  rate?: { limit?: number; remaining: number; resetAtMs: number };
  /** The window's length, measured at the first answer of a window (remaining = limit - 1). */
  windowMs?: number;
  /** When the current window's first answer came, and the time between two windows' first answers (progress.ts's ETA). */
  windowStartedAt?: number;
  cycleMs?: number;
}
