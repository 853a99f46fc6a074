/**
 * Series are differences between snapshots. The rules, in one place:
 *
 * - The clicks between two snapshots belong to the period of the later one. A period without a
 *   snapshot is a gap (null), not a zero; the period after a gap holds everything since the
 *   snapshot before the gap (its `from` says since when).
 * - The first snapshot of an account has nothing before it: its period is a gap too. A record
 *   first seen in a later snapshot is new: all its clicks count.
 * - A total that went down (a link recreated, statistics reset) is flagged `reset` and counted
 *   as a counter that restarted from zero (its new total), never subtracted.
 * - A record gone from the account adds nothing; one that comes back counts from its last total.
 * - Totals imported from another tool (`import:<tool>` snapshots) are the start: the first
 *   totals from the server after them count from zero on the new server, not as a reset.
 * - `uniqueClicks` of a period is the growth of the server's unique-visitor count: visitors
 *   first counted in that period. They do not add up to the unique visitors of a longer
 *   period, nor across links (one person visiting two links is two), and are labelled so.
 */
import type { CountVisitor, Dimension, History, ItemKind, SnapshotRow } from './store.js';
import { iso, nextPeriod, periodLabel, periodsBetween, type Period } from './time.js';

/** What one series sums: every item of a kind, or a set of items. Ids are the server's, for output. */
export interface SeriesSpec {
  /** `links`, `qrs`, `link:12`, `qr:3`, `campaign:1`. */
  key: string;
  label: string;
  kind: ItemKind;
  link: number | null;
  qr: number | null;
  campaign: number | null;
  /** The items (history ids) summed; undefined: every item of `kind`. */
  items?: ReadonlySet<number>;
}

export interface Point {
  period: string;
  start: string;
  clicks: number | null;
  uniqueClicks: number | null;
  gap: boolean;
  reset: boolean;
  /** The snapshots compared: the difference is from `from` to `to` (null in a gap). */
  from: string | null;
  to: string | null;
}

export interface Series {
  spec: SeriesSpec;
  points: Point[];
  clicks: number;
  uniqueClicks: number | null;
  gaps: number;
  resets: number;
}

export interface Window {
  by: Period;
  since: number;
  until: number;
}

/** One difference of one item at one snapshot (by index in the source's snapshots). */
type Delta = (item: number, index: number, clicks: number, unique: number | null, reset: boolean) => void;

/**
 * Turns an item's stored changes (in item, snapshot order) into differences per snapshot,
 * following the rules above. Snapshots not in `index` (after the window) are skipped.
 */
export function differ(snapshots: readonly SnapshotRow[], emit: Delta): CountVisitor {
  // snapshot id -> its index in `snapshots` (-1: not in the window); ids are small integers
  const index = new Int32Array((snapshots.length ? Math.max(...snapshots.map((s) => s.id)) : 0) + 1).fill(-1);
  snapshots.forEach((s, i) => (index[s.id] = i));
  const imported = snapshots.map((s) => s.origin !== 'api');
  // The item's previous row (seen: there is one), and its last totals while present. Scalars,
  // not objects: this runs once per stored change, hundreds of thousands of times for a year.
  let item = -1;
  let seen = false;
  let lastImported = false;
  let present = false;
  let baseClicks = 0;
  let baseUnique: number | null = null;
  return (itemId, snapshotId, clicks, unique) => {
    if (itemId !== item) {
      item = itemId;
      seen = false;
      present = false;
    }
    const k = snapshotId < index.length ? index[snapshotId]! : -1;
    if (k < 0) return;
    const fromImport = imported[k]!;
    if (clicks !== null) {
      if (!seen) {
        // first seen: the account's first snapshot is only a baseline; later, a new record's clicks all count
        if (k > 0 && !fromImport) emit(itemId, k, clicks, unique, false);
      } else if (lastImported && !fromImport) {
        emit(itemId, k, clicks, unique, false); // the new server counts from zero
      } else if (!fromImport) {
        const from = present ? baseClicks : 0;
        const fromUnique = present ? baseUnique : null;
        const reset = clicks < from;
        const uniqueDelta = unique === null || fromUnique === null ? (reset ? unique : null) : unique < fromUnique ? unique : unique - fromUnique;
        emit(itemId, k, reset ? clicks : clicks - from, uniqueDelta, reset);
      }
      present = true;
      baseClicks = clicks;
      baseUnique = unique;
    }
    seen = true;
    lastImported = fromImport;
  };
}

interface Accumulator {
  clicks: Float64Array;
  unique: Float64Array;
  uniqueKnown: Uint8Array;
  reset: Uint8Array;
}
const accumulator = (n: number): Accumulator => ({ clicks: new Float64Array(n), unique: new Float64Array(n), uniqueKnown: new Uint8Array(n), reset: new Uint8Array(n) });

/** The series of `specs` over `window`, from the source's stored changes (one pass per kind). */
export async function computeSeries(history: History, sourceId: number, specs: readonly SeriesSpec[], window: Window): Promise<{ series: Series[]; snapshots: SnapshotRow[] }> {
  const snapshots = (await history.snapshots(sourceId)).filter((s) => s.at <= window.until);
  const sums = specs.map(() => accumulator(snapshots.length));
  for (const kind of new Set(specs.map((s) => s.kind))) {
    const mine = specs.map((spec, i) => [spec, sums[i]!] as const).filter(([spec]) => spec.kind === kind);
    const everything = mine.filter(([spec]) => !spec.items).map(([, acc]) => acc);
    const byItem = new Map<number, Accumulator[]>();
    for (const [spec, acc] of mine) for (const id of spec.items ?? []) byItem.set(id, [...(byItem.get(id) ?? []), acc]);
    const add = (acc: Accumulator, k: number, clicks: number, unique: number | null, reset: boolean) => {
      acc.clicks[k]! += clicks;
      if (unique !== null) {
        acc.unique[k]! += unique;
        acc.uniqueKnown[k] = 1;
      }
      if (reset) acc.reset[k] = 1;
    };
    const feed = differ(snapshots, (item, k, clicks, unique, reset) => {
      for (const acc of everything) add(acc, k, clicks, unique, reset);
      for (const acc of byItem.get(item) ?? []) add(acc, k, clicks, unique, reset);
    });
    const ids = everything.length ? (await history.items(sourceId, kind)).map((i) => i.id) : [...byItem.keys()];
    await history.forEachCount(ids, feed);
  }
  return { series: specs.map((spec, i) => toSeries(spec, sums[i]!, snapshots, window)), snapshots };
}

/** A period of a window and the snapshots it compares: [from, to] indices, or none (a gap). */
interface Span {
  start: number;
  label: string;
  /** Index of the snapshot the difference starts from, and of the last one in the period. */
  from?: number;
  to?: number;
}

/** The window's periods, each with the snapshots it compares (the account's first snapshot only starts the count). */
export function spans(snapshots: readonly SnapshotRow[], window: Window): Span[] {
  const out: Span[] = [];
  let k = 0;
  for (const start of periodsBetween(window.by, window.since, window.until)) {
    const end = nextPeriod(window.by, start);
    while (k < snapshots.length && snapshots[k]!.at < start) k++;
    const first = Math.max(k, 1);
    while (k < snapshots.length && snapshots[k]!.at < end) k++;
    out.push(first < k ? { start, label: periodLabel(window.by, start), from: first - 1, to: k - 1 } : { start, label: periodLabel(window.by, start) });
  }
  return out;
}

const gapPoint = (span: Span): Point => ({ period: span.label, start: iso(span.start), clicks: null, uniqueClicks: null, gap: true, reset: false, from: null, to: null });

function toSeries(spec: SeriesSpec, acc: Accumulator, snapshots: readonly SnapshotRow[], window: Window): Series {
  const points: Point[] = [];
  let clicksTotal = 0;
  let uniqueTotal: number | null = null;
  let gaps = 0;
  let resets = 0;
  for (const span of spans(snapshots, window)) {
    if (span.from === undefined) {
      gaps++;
      points.push(gapPoint(span));
      continue;
    }
    let clicks = 0;
    let unique = 0;
    let uniqueKnown = false;
    let reset = false;
    for (let j = span.from + 1; j <= span.to!; j++) {
      clicks += acc.clicks[j]!;
      unique += acc.unique[j]!;
      uniqueKnown ||= acc.uniqueKnown[j] === 1;
      reset ||= acc.reset[j] === 1;
    }
    // links always have a unique count (a period where nothing changed added 0); QR codes and campaigns have none
    const uniqueValue = spec.kind === 'link' || uniqueKnown ? unique : null;
    points.push({ period: span.label, start: iso(span.start), clicks, uniqueClicks: uniqueValue, gap: false, reset, from: iso(snapshots[span.from]!.at), to: iso(snapshots[span.to!]!.at) });
    clicksTotal += clicks;
    if (uniqueValue !== null) uniqueTotal = (uniqueTotal ?? 0) + uniqueValue;
    if (reset) resets++;
  }
  return { spec, points, clicks: clicksTotal, uniqueClicks: uniqueTotal, gaps, resets };
}

/**
 * `--breakdown`: for the links of `spec`, the change of each country (referrer, browser,
 * system) per period, one series per name. A change is given only when both snapshots of the
 * period read the link's details (`snapshot --details`) and both list that name (the server
 * lists its top names only: a name missing from one list is unknown there, not zero).
 */
export async function computeBreakdown(history: History, snapshots: readonly SnapshotRow[], spec: SeriesSpec, dimension: Dimension, window: Window): Promise<Series[]> {
  const periods = spans(snapshots, window);
  const byName = new Map<string, Array<{ clicks: number; reset: boolean } | undefined>>();
  for (const item of spec.items ?? []) {
    const reads = await history.detailHistory(item, dimension);
    periods.forEach((span, p) => {
      if (span.from === undefined) return;
      const before = reads.get(snapshots[span.from]!.id);
      const after = reads.get(snapshots[span.to!]!.id);
      if (!before || !after) return;
      for (const [name, count] of after) {
        const was = before.get(name);
        if (was === undefined) continue;
        let row = byName.get(name);
        if (!row) byName.set(name, (row = periods.map(() => undefined)));
        const cell = (row[p] ??= { clicks: 0, reset: false });
        if (count < was) cell.reset = true;
        cell.clicks += count < was ? count : count - was;
      }
    });
  }
  return [...byName.entries()].map(([name, cells]) => {
    const points = periods.map((span, p): Point => {
      const cell = cells[p];
      if (!cell || span.from === undefined) return gapPoint(span);
      return { period: span.label, start: iso(span.start), clicks: cell.clicks, uniqueClicks: null, gap: false, reset: cell.reset, from: iso(snapshots[span.from]!.at), to: iso(snapshots[span.to!]!.at) };
    });
    const present = points.filter((p) => !p.gap);
    return {
      spec: { ...spec, key: `${spec.key}:${dimension}:${name}`, label: name },
      points,
      clicks: present.reduce((a, p) => a + p.clicks!, 0),
      uniqueClicks: null,
      gaps: points.length - present.length,
      resets: present.filter((p) => p.reset).length,
    };
  }).sort((a, b) => b.clicks - a.clicks || a.spec.label.localeCompare(b.spec.label));
}

/** Per-item clicks in each of `buckets` ([start, end) by snapshot time), for ranking (top N, movers). */
export async function bucketTotals(history: History, sourceId: number, kind: ItemKind, buckets: ReadonlyArray<readonly [number, number]>, until: number): Promise<Map<number, Array<{ clicks: number; unique: number | null; reset: boolean }>>> {
  const snapshots = (await history.snapshots(sourceId)).filter((s) => s.at <= until);
  const bucketOf = snapshots.map((s) => buckets.findIndex(([start, end]) => s.at >= start && s.at < end));
  const totals = new Map<number, Array<{ clicks: number; unique: number | null; reset: boolean }>>();
  const feed = differ(snapshots, (item, k, clicks, unique, reset) => {
    const b = bucketOf[k]!;
    if (b < 0) return;
    let row = totals.get(item);
    if (!row) totals.set(item, (row = buckets.map(() => ({ clicks: 0, unique: null, reset: false }))));
    const cell = row[b]!;
    cell.clicks += clicks;
    if (unique !== null) cell.unique = (cell.unique ?? 0) + unique;
    cell.reset ||= reset;
  });
  await history.forEachCount((await history.items(sourceId, kind)).map((i) => i.id), feed);
  return totals;
}

/** Whether a difference over [start, end) can be taken: a snapshot at or before `start` to start from, and one inside. */
export function covered(snapshots: readonly SnapshotRow[], start: number, end: number): boolean {
  return snapshots.some((s) => s.at <= start) && snapshots.some((s) => s.at > start && s.at < end);
}

const BARS = '▁▂▃▄▅▆▇█';

/** `▁▂▃▄▅▆▇█` scaled to the largest value; a gap is a space, a zero the lowest bar. */
export function sparkline(values: ReadonlyArray<number | null>): string {
  const max = Math.max(0, ...values.map((v) => v ?? 0));
  return values.map((v) => (v === null ? ' ' : max === 0 ? BARS[0] : BARS[Math.min(7, Math.floor((v / max) * 7.999))])).join('');
}
