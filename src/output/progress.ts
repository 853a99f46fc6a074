/**
 * The progress of a long job (a bulk run's rows, `--from FILE`; apply's steps): done of all, the
 * pace, an ETA and the rate-limit waits. On a terminal it is the Context's lasting status line:
 * cleared before any other message and drawn again after it, computed again while a rate-limit
 * wait counts down. Elsewhere (a file, CI, --quiet) a bulk run writes a whole line on stderr, at
 * most one every 10 s, written by a timer so that it goes on through long waits; apply, whose
 * plan and result say what it does, writes none.
 *
 * The ETA counts the waits the rate limit will impose: the rows left, times the requests a row
 * has taken, spread over the windows of the announced limit (X-RateLimit-Limit, as the API
 * client reports it), the window's length as measured, else the documented 60 s.
 */
import { safeText } from './safe-text.js';
import { windowOpensAt, type Traffic } from '../http/rate-limit.js';

/**
 * What a progress line reads from the run it reports on (the Context has these): the requests and
 * waits so far, the status line of a terminal, and warnings. Written out here, so that the output
 * layer does not import the context above it.
 */
export interface ProgressHost {
  readonly traffic: Traffic;
  lastingStatus(text: (() => string) | undefined): boolean;
  waitNote(): string | undefined;
  warn(message: string): void;
}

const LINE_EVERY_MS = 10_000;
/** The documented window (30 requests per minute by default), until one has been measured. */
const DEFAULT_WINDOW_MS = 60_000;

export interface ProgressOptions {
  /** What is counted: `rows` (the default), `steps`. */
  noun?: string;
  /** Off a terminal, whole lines on stderr (the default) or nothing. */
  lines?: boolean;
}

export class Progress {
  private readonly started = Date.now();
  private readonly before: { requests: number; waits: number; waitedMs: number };
  private done = 0;
  /** What is under way (`+ link spring`), shown after the counts. */
  private what?: string;
  private readonly live: boolean;
  private readonly timer?: NodeJS.Timeout;
  private readonly line = () => this.text();
  private readonly noun: string;

  constructor(
    private readonly ctx: ProgressHost,
    /** All there is to do; it may grow (apply learns of channel assignments as it goes). */
    public total: number,
    options: ProgressOptions = {},
  ) {
    this.noun = options.noun ?? 'rows';
    const { requests, waits, waitedMs } = ctx.traffic;
    this.before = { requests, waits, waitedMs };
    this.live = ctx.lastingStatus(this.line);
    if (!this.live && options.lines !== false) {
      this.timer = setInterval(() => {
        const wait = ctx.waitNote();
        ctx.warn(`progress: ${this.text()}${wait ? `; ${wait}` : ''}`);
      }, LINE_EVERY_MS);
      this.timer.unref?.();
    }
  }

  /** `done` are finished (and `what` under way). On a terminal the line is drawn again if a write had cleared it. */
  tick(done: number, what?: string): void {
    this.done = done;
    this.what = what;
    if (this.live) this.ctx.lastingStatus(this.line);
  }

  end(): void {
    clearInterval(this.timer);
    if (this.live) this.ctx.lastingStatus(undefined);
  }

  /** `16 of 80 rows, 4.2/s, ETA 1 min 5 s, 2 rate-limit waits`, then what is under way (`: + link spring`). */
  text(): string {
    const seconds = (Date.now() - this.started) / 1000;
    const pace = seconds > 0 ? this.done / seconds : 0;
    const eta = this.eta();
    const waits = this.ctx.traffic.waits - this.before.waits;
    return (
      `${this.done} of ${this.total} ${this.noun}, ${pace.toFixed(1)}/s` +
      `${eta !== undefined ? `, ETA ${duration(eta)}` : ''}` +
      `${waits ? `, ${waits} rate-limit wait${waits === 1 ? '' : 's'}` : ''}` +
      `${this.what ? `: ${safeText(this.what)}` : ''}` // a key may come from a server
    );
  }

  /** Seconds until the last row, or undefined before the first row says how long one takes. */
  eta(now = Date.now()): number | undefined {
    const left = this.total - this.done;
    if (left <= 0) return 0;
    if (this.done === 0) return undefined;
    const traffic = this.ctx.traffic;
    const elapsedMs = Math.max(1, now - this.started);
    const requests = traffic.requests - this.before.requests;
    const rate = traffic.rate;
    if (!rate?.limit || requests === 0) {
      // No announced limit: the pace so far, its waits included, is the best guess.
      return Math.ceil((left * elapsedMs) / this.done / 1000);
    }
    // Time a request takes when nothing waits, and the requests the rows left will make.
    const waitedMs = Math.min(traffic.waitedMs - this.before.waitedMs, elapsedMs - 1);
    const perRequestMs = (elapsedMs - waitedMs) / requests;
    const needed = Math.ceil(left * Math.max(1, requests / this.done));
    const windowMs = Math.max(traffic.windowMs ?? DEFAULT_WINDOW_MS, rate.limit * perRequestMs);
    // A used-up window lets requests through again only a second past its reset (windowOpensAt,
    // the one rate-limit policy): each window costs that second more than its length.
    // The longest a window's cycle can be: the window in whole seconds (X-RateLimit-Reset is a
    // second), a second of its rounding, and the wait past the reset; longer when one was seen so
    // (a cycle that started on a whole second is a second shorter: it does not count for less).
    const cycleMs = Math.max(traffic.cycleMs ?? 0, Math.ceil(windowMs / 1000) * 1000 + 1000 + windowOpensAt(0));
    const opensAt = windowOpensAt(rate.resetAtMs);
    const next =
      now < rate.resetAtMs
        ? { room: Math.max(0, rate.remaining), inMs: opensAt - now } // in the window: what is left of it, then the next
        : now < opensAt
          ? { room: 0, inMs: opensAt - now } // the reset's own second: closed still
          : { room: rate.limit, inMs: cycleMs }; // a new window starts with the next request
    if (needed <= next.room) return Math.ceil((needed * perRequestMs) / 1000);
    const after = needed - next.room;
    const windows = Math.ceil(after / rate.limit);
    const lastWindow = after - (windows - 1) * rate.limit;
    return Math.ceil((Math.max(next.inMs, next.room * perRequestMs) + (windows - 1) * cycleMs + lastWindow * perRequestMs) / 1000);
  }
}

/** `45 s`, `3 min 5 s`, `2 h 10 min`. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}
