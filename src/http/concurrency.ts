/**
 * How many requests a job keeps in flight (`--concurrency N|auto`). `N` is N. `auto` is decided
 * here, from what the client sees of the server, beside the rate-limit policy it asks:
 *
 * - one at a time while the server shows a rate limit (X-RateLimit-* headers, or an over-limit
 *   answer: the policy's `limited`, which stays true for the run), and before any answer at all;
 * - otherwise AUTO_START from the first answer that shows no limit (as TCP starts from an initial
 *   window of several segments), then more as answers come back no slower than twice their kind's
 *   usual time (the median of its first answers: what it takes when the server is not queueing,
 *   whatever its jitter): until the first sign of load, one more for each such answer (the median
 *   of the latest 4), so that what is allowed doubles each round trip, as in TCP's slow start; after
 *   it, one more after each round of answers (as many answers as are allowed in flight, at least 4)
 *   whose median was no slower; up to AUTO_MAX_IN_FLIGHT;
 * - one fewer after a round that came back slower than that (the server is queueing: latency rising
 *   under load); a server that got slower for good is followed at one in flight, whose latest
 *   answers become the usual times;
 * - half as many after a failure (5xx, a reset connection, a timeout), and one at the first
 *   over-limit answer.
 *
 * Jobs ask `limit()` each time a request (or row) finishes, so a change applies at once. The
 * state is the client's: one run, one server.
 */
import type { RateLimitPolicy } from './rate-limit.js';

export type ConcurrencySetting = number | 'auto';

/** The most `auto` keeps in flight: a few PHP workers' worth, never a load test. */
export const AUTO_MAX_IN_FLIGHT = 8;
/** What `auto` starts from once an answer showed no rate limit (half the most: a round trip from it). */
export const AUTO_START = 4;
/** A round whose answers took (their median) this many times their kind's usual time is "slower". */
const SLOWER = 2;
/** The fewest answers a round has, and a kind's usual time is made of: a median of a few, so one slow or fast answer (jitter) decides nothing. */
const ROUND_ANSWERS = 4;
/** The answers a kind's usual time is the median of (its first, or at one in flight its latest). */
const USUAL_ANSWERS = 16;
/** Latencies under this are not told apart: a server on this machine answers in a millisecond or two, and the noise is as large. */
const LATENCY_FLOOR_MS = 5;

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1]!;

export class InFlightControl {
  /** What `auto` allows now, when the server shows no rate limit. */
  private current = 1;
  private answered = false;
  /**
   * Each kind of request's usual time (method and path shape): the median of its first answers,
   * at the level it was first seen at (one in flight for most jobs), what it takes when the server
   * is not queueing our requests, whatever its jitter. At one in flight, the latest answers: they
   * follow the server's own pace (a server that got slower for good).
   */
  private readonly usual = new Map<string, { level: number; times: number[] }>();
  /** This round's answers, each as a multiple of its kind's usual time. */
  private round: number[] = [];
  /** Until the first sign of load (slower answers, a failure, an over-limit answer), each quick answer allows one more: twice as many each round trip. */
  private rising = true;

  constructor(private readonly policy: Pick<RateLimitPolicy, 'limited'>) {}

  /** The most requests (or rows) to have in flight now, for this setting. */
  limit(setting: ConcurrencySetting): number {
    if (setting !== 'auto') return setting;
    if (this.policy.limited || !this.answered) return 1;
    return this.current;
  }

  /** An answer (not over the limit, not a server failure) to a request of `kind`, after `ms`. */
  answer(kind: string, ms: number): void {
    const first = !this.answered;
    this.answered = true;
    const time = Math.max(ms, LATENCY_FLOOR_MS);
    let usual = this.usual.get(kind);
    // Learned where first seen, and again at one in flight (nothing of ours queues there).
    if (!usual || (this.current === 1 && usual.level > 1)) this.usual.set(kind, (usual = { level: this.current, times: [time] }));
    else if (usual.times.length < ROUND_ANSWERS || (this.current === usual.level && (usual.level === 1 || usual.times.length < USUAL_ANSWERS))) {
      // Its first few answers wherever they come; then, one at a time, the latest follow the server's
      // own pace, and a kind first seen with more in flight (apply's links, after its campaigns) keeps
      // its first answers, so that queueing later is seen.
      usual.times.push(time);
      if (usual.times.length > USUAL_ANSWERS) usual.times.shift();
    }
    // Against the kind's usual time (while it is being learned, what was learned so far, this answer included).
    this.round.push(time / median(usual.times));
    if (this.rising) {
      // Slow start: one more for each quick answer, judged with the latest few (one slow answer
      // decides nothing; slower ones end the climb once there are enough of them to tell).
      const latest = this.round.slice(-ROUND_ANSWERS);
      this.round = latest;
      if (first) this.current = AUTO_START;
      else if (median(latest) <= SLOWER) this.current = Math.min(AUTO_MAX_IN_FLIGHT, this.current + 1);
      else if (latest.length === ROUND_ANSWERS) this.slowed();
      return;
    }
    if (this.round.length < Math.max(this.current, ROUND_ANSWERS)) return;
    const slower = median(this.round) > SLOWER;
    this.round = [];
    if (slower) this.slowed();
    else this.current = Math.min(AUTO_MAX_IN_FLIGHT, this.current + 1);
  }

  /** Answers slower than usual: the server queues ours. One fewer, and from now on one more at a time. */
  private slowed(): void {
    this.rising = false;
    this.round = [];
    if (this.current > 1) this.current--;
  }

  /** A 5xx answer, a reset connection or a timeout: half as many in flight. */
  failure(): void {
    this.answered = true;
    this.rising = false;
    this.current = Math.max(1, Math.floor(this.current / 2));
    this.round = [];
  }

  /** An over-limit answer: one at a time (the policy now says the server is limited, for the rest of the run). */
  overLimit(): void {
    this.answered = true;
    this.rising = false;
    this.current = 1;
    this.round = [];
  }
}

/** A request's kind for its latency: the method and the path with ids taken out, and the page size asked. */
export function requestKind(method: string, path: string, limit?: unknown): string {
  return `${method} ${path.replace(/\/\d+(?=\/|$)/g, '/:id')}${limit === undefined ? '' : ` limit=${String(limit)}`}`;
}

/**
 * Runs `work` for each item, at most `limit()` at a time (asked again whenever one finishes),
 * started in the items' order; resolves to the results in that order. After the first failure no
 * more are started, those in flight are waited for (their work is done and recorded), and then the
 * failure is thrown. Items for which `keyOf` gives the same key run one after another in the
 * items' order (two QR codes of one name are created in the file's order, so their ids keep it).
 */
export async function inOrder<T, R>(items: readonly T[], limit: () => number, work: (item: T, index: number) => Promise<R>, keyOf?: (item: T) => string): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let running = 0;
  let failed: { error: unknown } | undefined;
  /** The latest started item of each key: the next of that key waits for it (and does nothing once one failed). */
  const lastOfKey = new Map<string, Promise<unknown>>();
  const run = (item: T, index: number): Promise<R> => {
    if (!keyOf) return work(item, index);
    const key = keyOf(item);
    const before = lastOfKey.get(key);
    const turn = () => (failed ? Promise.reject(failed.error) : work(item, index));
    const mine = before ? before.then(turn, turn) : work(item, index);
    lastOfKey.set(key, mine);
    return mine;
  };
  await new Promise<void>((resolve) => {
    const pump = () => {
      while (!failed && next < items.length && running < Math.max(1, limit())) {
        const index = next++;
        running++;
        void run(items[index]!, index)
          .then((result) => void (results[index] = result), (error: unknown) => void (failed ??= { error }))
          .finally(() => {
            running--;
            pump();
          });
      }
      if (running === 0 && (failed || next >= items.length)) resolve();
    };
    pump();
  });
  if (failed) throw failed.error;
  return results;
}
