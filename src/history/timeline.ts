/**
 * A window's periods and how each snapshot's difference spreads over them: the skeleton every
 * series, ranking and breakdown shares (series.ts), and that live events (events.ts) lay their
 * exact periods on. Its own file so that both build on it without importing each other.
 */
import type { SnapshotRow } from './store.js';
import { iso, nextPeriod, periodLabel, periodsBetween, periodStart, type Period } from './time.js';

export interface Window {
  by: Period;
  since: number;
  until: number;
}

/** Live events over a window, when listen ran (events.ts fills it). */
export interface Live {
  /** Run spans [start, end] in ms, in time order, clipped to the window's end. */
  runs: Array<[number, number]>;
  /** Each item's click times (ms), ascending. */
  clicks: Map<number, number[]>;
  /** Window periods that a run overlaps. */
  exact: Uint8Array;
  /** Each click event's window period index and item, and its details, for breakdowns. */
  events: Array<{ item: number; w: number; country: string | null; referrer: string | null; os: string | null; browser: string | null }>;
}

/** A snapshot's difference, as spread over the window: `count` of its `n` periods fall in the window, from window period `first` (its `skip` before the window). */
interface Spread {
  n: number;
  skip: number;
  count: number;
  first: number;
}

/**
 * The periods of a window and, for each snapshot from the server after the first, the periods
 * its difference covers: the skeleton every series, ranking and breakdown of the window shares.
 */
export interface Timeline {
  window: Window;
  starts: number[];
  labels: string[];
  /** The starts and the snapshots' times as ISO text, made once (a year of points asks for them thousands of times). */
  startIso: string[];
  snapshotIso: string[];
  /** The source's snapshots up to the window's end, every origin, in time order. */
  snapshots: SnapshotRow[];
  /** By snapshot index: how its difference spreads (undefined: the first snapshot, an import, or a span that ends before the window). */
  spreads: Array<Spread | undefined>;
  /** By window period: spanned by a difference; spread over several periods; the earliest and latest snapshot compared (indices, -1: none). */
  covered: Uint8Array;
  estimated: Uint8Array;
  from: Int32Array;
  to: Int32Array;
  /** Live events over the window (events.ts), when listen ran: the periods they count exactly. */
  live?: Live;
}

export function timeline(snapshots: readonly SnapshotRow[], window: Window): Timeline {
  const starts = periodsBetween(window.by, window.since, window.until);
  const at = new Map(starts.map((start, i) => [start, i]));
  const W = starts.length;
  const t: Timeline = {
    window, starts, labels: starts.map((s) => periodLabel(window.by, s)), startIso: starts.map(iso), snapshots: snapshots.filter((s) => s.at <= window.until), snapshotIso: [],
    spreads: [], covered: new Uint8Array(W), estimated: new Uint8Array(W), from: new Int32Array(W).fill(-1), to: new Int32Array(W).fill(-1),
  };
  t.snapshotIso = t.snapshots.map((s) => iso(s.at));
  const windowStart = starts[0]!;
  // A difference spans from the server's previous snapshot; the server's first one spans from
  // an import before it, if any (a link made after an import counts from there), else nothing.
  let previous = -1;
  let imported = -1;
  t.snapshots.forEach((snapshot, k) => {
    if (snapshot.origin !== 'api') {
      if (previous < 0) imported = k;
      return;
    }
    const p = previous >= 0 ? previous : imported;
    previous = k;
    if (p < 0 || snapshot.at < windowStart) return;
    const last = periodStart(window.by, snapshot.at);
    const begin = periodStart(window.by, t.snapshots[p]!.at);
    const firstStart = begin === last ? last : nextPeriod(window.by, begin);
    let n = 0;
    let skip = 0;
    let count = 0;
    let first = -1;
    for (let start = firstStart; start <= last; start = nextPeriod(window.by, start)) {
      const w = at.get(start);
      if (w === undefined) {
        if (first < 0) skip++;
      } else {
        if (first < 0) first = w;
        count++;
      }
      n++;
    }
    if (count === 0) return;
    t.spreads[k] = { n, skip, count, first };
    for (let w = first; w < first + count; w++) {
      t.covered[w] = 1;
      if (n > 1) t.estimated[w] = 1;
      if (t.from[w]! < 0) t.from[w] = p;
      t.to[w] = k;
    }
  });
  return t;
}
