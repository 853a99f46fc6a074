/**
 * Series are differences between snapshots. The rules, in one place:
 *
 * - The clicks between two snapshots of the server (origin `api`) happened between their times.
 *   When both lie in one period, or in neighbouring ones, the difference belongs to the period
 *   of the later snapshot. When it spans several periods (a missed day, a weekend without
 *   snapshots), it is spread evenly over them, from the period after the earlier snapshot's to
 *   the later snapshot's, each marked `estimated`: never a spike on the day after a gap. Spread
 *   in whole clicks: each period gets the even share rounded down, the later periods one more
 *   until the difference is used up, so the periods add up to the difference exactly.
 * - A period no two snapshots span is a gap (null), not a zero: before the first snapshot and
 *   after the newest one. The server's first snapshot spans from an import before it, if any.
 * - The account's first snapshot is only a start. A record first seen in a later snapshot is
 *   new: all its clicks count, over the span since the snapshot before.
 * - A total that went down (a link recreated, statistics reset) is flagged `reset` and counted
 *   as a counter that restarted from zero (its new total), never subtracted.
 * - A record gone from the account adds nothing; one that comes back counts from its last total.
 * - Totals imported from another tool (`import:<tool>` snapshots) are a starting point, never
 *   clicks: no difference is taken across them. A link first seen in an import counts its
 *   server's clicks from zero when the server first lists it; an import that comes after the
 *   server's own history of a link is ignored for it. Imports span no period of their own.
 * - `uniqueClicks` of a period is the growth of the server's unique-visitor count: visitors
 *   first counted in that period. They do not add up to the unique visitors of a longer
 *   period, nor across links (one person visiting two links is two), and are labelled so.
 */
import type { CountVisitor, Dimension, History, ItemKind, SnapshotRow } from './store.js';
import { liveTimeline, subtractEvents } from './events.js';
import { timeline, type Timeline, type Window } from './timeline.js';

export { timeline, type Timeline, type Window };

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
  /** Part of a difference spread evenly over several periods (a missed snapshot): an estimate. */
  estimated: boolean;
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
  /** Periods whose clicks were spread over a missed snapshot's span. */
  estimated: number;
  /** The sum of the items' totals at the newest snapshot of the window (all-time clicks, scans); null before any. */
  total: number | null;
}


/** One difference of one item at one snapshot (by index in the source's snapshots). */
/** `base`: the index of the snapshot whose total this difference is from; -1: none (an item new since then: its whole total). */
type Delta = (item: number, index: number, clicks: number, unique: number | null, reset: boolean, base: number) => void;

/** The first snapshot read from the server: the start of everything (-1: none). */
export const baselineOf = (snapshots: readonly SnapshotRow[]) => snapshots.findIndex((s) => s.origin === 'api');

/**
 * Turns an item's stored changes (in item, snapshot order) into differences per snapshot,
 * following the rules above. Snapshots not in `snapshots` (after the window) are skipped.
 * `total` is told each item's latest total from the server (null: gone).
 */
export function differ(snapshots: readonly SnapshotRow[], emit: Delta, total?: (item: number, clicks: number | null) => void): CountVisitor {
  // snapshot id -> its index in `snapshots` (-1: not in the window); ids are small integers
  const index = new Int32Array((snapshots.length ? Math.max(...snapshots.map((s) => s.id)) : 0) + 1).fill(-1);
  snapshots.forEach((s, i) => (index[s.id] = i));
  const imported = snapshots.map((s) => s.origin !== 'api');
  const baseline = baselineOf(snapshots);
  // Scalars, not objects: this runs once per stored change, hundreds of thousands of times for a year.
  let item = -1;
  let fromServer = false; // the server has listed the item (a row of an api snapshot)
  let importedFirst = false; // an import gave its totals before the server listed it
  let baseClicks = 0;
  let baseUnique: number | null = null;
  let baseK = -1;
  return (itemId, snapshotId, clicks, unique) => {
    if (itemId !== item) {
      item = itemId;
      fromServer = false;
      importedFirst = false;
    }
    const k = snapshotId < index.length ? index[snapshotId]! : -1;
    if (k < 0) return;
    if (imported[k]) {
      if (!fromServer && clicks !== null) importedFirst = true; // a starting point; an import after the server's own history is ignored
      return;
    }
    total?.(itemId, clicks);
    if (clicks === null) return; // gone: adds nothing; back later, it counts from its last total
    if (!fromServer) {
      // new since the first snapshot (or since an import): every click counts; at the first snapshot, a start
      if (k !== baseline || importedFirst) emit(itemId, k, clicks, unique, false, -1);
    } else {
      const reset = clicks < baseClicks;
      const uniqueDelta = unique === null || baseUnique === null ? (reset ? unique : null) : unique < baseUnique ? unique : unique - baseUnique;
      emit(itemId, k, reset ? clicks : clicks - baseClicks, uniqueDelta, reset, baseK);
    }
    fromServer = true;
    baseClicks = clicks;
    baseUnique = unique;
    baseK = k;
  };
}


/**
 * The share of `amount` for period `j` of `n`: the even share rounded down, one more for
 * `amount % n` of the periods. Which ones turns with `turn` (the item's id): a thousand links
 * with a click each over two days are five hundred a day, not a thousand on the second.
 */
export function share(amount: number, n: number, j: number, turn = 0): number {
  if (n === 1) return amount;
  const base = Math.floor(amount / n);
  return base + ((j + turn) % n < amount - base * n ? 1 : 0);
}

interface Accumulator {
  clicks: Float64Array;
  unique: Float64Array;
  uniqueKnown: Uint8Array;
  reset: Uint8Array;
  total: number;
  totalKnown: boolean;
}
const accumulator = (n: number): Accumulator => ({ clicks: new Float64Array(n), unique: new Float64Array(n), uniqueKnown: new Uint8Array(n), reset: new Uint8Array(n), total: 0, totalKnown: false });

/** Spreads one difference of item `turn` at snapshot `k` over the window's periods, handing each share to `add`. */
export function spread(t: Timeline, k: number, clicks: number, unique: number | null, add: (w: number, clicks: number, unique: number | null) => void, turn = 0): void {
  const s = t.spreads[k];
  if (!s) return;
  for (let i = 0; i < s.count; i++) {
    const j = s.skip + i;
    add(s.first + i, share(clicks, s.n, j, turn), unique === null ? null : share(unique, s.n, j, turn));
  }
}

/**
 * Every difference of a kind's items (or of some of them), decoded once from the stored changes
 * and kept in typed arrays: the series, the rankings and the report's tables of one run all read
 * these, so a run reads and decodes the history once per kind however many views it draws.
 * Indices are into `snapshots` (the source's, up to the run's end).
 */
export class Deltas {
  length = 0;
  item = new Int32Array(1024);
  at = new Int32Array(1024);
  clicks = new Float64Array(1024);
  /** NaN: unknown. */
  unique = new Float64Array(1024);
  reset = new Uint8Array(1024);
  /** Each item's latest total from the server (null: gone): the all-time totals. */
  readonly totals = new Map<number, number | null>();
  /** Each item's first difference's `base` (differ): the snapshot whose total its differences start from, -1 for an item new since. */
  readonly firstBase = new Map<number, number>();

  constructor(readonly snapshots: readonly SnapshotRow[]) {}

  push(item: number, k: number, clicks: number, unique: number | null, reset: boolean): void {
    if (this.length === this.item.length) {
      const grow = <T extends Int32Array | Float64Array | Uint8Array>(a: T): T => {
        const b = new (a.constructor as new (n: number) => T)(a.length * 2);
        b.set(a);
        return b;
      };
      this.item = grow(this.item);
      this.at = grow(this.at);
      this.clicks = grow(this.clicks);
      this.unique = grow(this.unique);
      this.reset = grow(this.reset);
    }
    const i = this.length++;
    this.item[i] = item;
    this.at[i] = k;
    this.clicks[i] = clicks;
    this.unique[i] = unique ?? NaN;
    this.reset[i] = reset ? 1 : 0;
  }
}

/** Reads and decodes the differences of `kind` (every item, or `ids`) up to `until`. */
export async function readDeltas(history: History, sourceId: number, kind: ItemKind, until: number, ids?: readonly number[]): Promise<Deltas> {
  const deltas = new Deltas((await history.snapshots(sourceId)).filter((s) => s.at <= until));
  const feed = differ(deltas.snapshots, (item, k, clicks, unique, reset, base) => {
    if (!deltas.firstBase.has(item)) deltas.firstBase.set(item, base);
    deltas.push(item, k, clicks, unique, reset);
  }, (item, clicks) => deltas.totals.set(item, clicks));
  await history.forEachCount(ids ?? (await history.itemIds(sourceId, kind)), feed);
  await subtractEvents(history, sourceId, kind, deltas.snapshots, until, deltas); // counted as events instead (events.ts)
  return deltas;
}

/** Where a run gets its deltas: read each kind once, every item of it (`stats top`, the report). */
export class DeltaCache {
  private readonly kinds = new Map<ItemKind, Promise<Deltas>>();
  constructor(private readonly history: History, private readonly sourceId: number, private readonly until: number) {}
  get(kind: ItemKind): Promise<Deltas> {
    let deltas = this.kinds.get(kind);
    if (!deltas) this.kinds.set(kind, (deltas = readDeltas(this.history, this.sourceId, kind, this.until)));
    return deltas;
  }
}

/** A timeline's view of deltas read for the same snapshots: both index the source's snapshots up to the same end. */
function check(t: Timeline, deltas: Deltas): void {
  if (deltas.snapshots.length !== t.snapshots.length) throw new Error('internal: deltas and timeline read different snapshots');
}

/**
 * The series of `specs` over `window`, from the source's stored changes: one read per kind,
 * from `cache` when given (else only the items the specs need).
 */
export async function computeSeries(history: History, sourceId: number, specs: readonly SeriesSpec[], window: Window, cache?: DeltaCache): Promise<{ series: Series[]; snapshots: SnapshotRow[]; timeline: Timeline }> {
  const t = await liveTimeline(history, sourceId, window);
  const W = t.starts.length;
  const sums = specs.map(() => accumulator(W));
  for (const kind of new Set(specs.map((s) => s.kind))) {
    const mine = specs.map((spec, i) => [spec, sums[i]!] as const).filter(([spec]) => spec.kind === kind);
    const everything = mine.filter(([spec]) => !spec.items).map(([, acc]) => acc);
    const byItem = new Map<number, Accumulator[]>();
    for (const [spec, acc] of mine) for (const id of spec.items ?? []) byItem.set(id, [...(byItem.get(id) ?? []), acc]);
    const deltas = cache ? await cache.get(kind) : await readDeltas(history, sourceId, kind, window.until, everything.length ? undefined : [...byItem.keys()]);
    check(t, deltas);
    const none: Accumulator[] = [];
    for (let i = 0; i < deltas.length; i++) {
      const item = deltas.item[i]!;
      const accs = byItem.get(item) ?? none;
      if (!everything.length && !accs.length) continue;
      const s = t.spreads[deltas.at[i]!];
      if (!s) continue;
      const clicks = deltas.clicks[i]!;
      const uniqueRaw = deltas.unique[i]!;
      const unique = Number.isNaN(uniqueRaw) ? null : uniqueRaw;
      const reset = deltas.reset[i] === 1;
      for (let j = 0; j < s.count; j++) {
        const w = s.first + j;
        const c = share(clicks, s.n, s.skip + j, item);
        const u = unique === null ? null : share(unique, s.n, s.skip + j, item);
        for (const list of [everything, accs]) {
          for (const acc of list) {
            acc.clicks[w]! += c;
            if (u !== null) {
              acc.unique[w]! += u;
              acc.uniqueKnown[w] = 1;
            }
            if (reset) acc.reset[w] = 1;
          }
        }
      }
    }
    if (kind === 'link') {
      for (const e of t.live?.events ?? []) for (const acc of [...everything, ...(byItem.get(e.item) ?? none)]) acc.clicks[e.w]! += 1;
    }
    for (const [item, clicks] of deltas.totals) {
      for (const acc of [...everything, ...(byItem.get(item) ?? none)]) {
        acc.totalKnown = true;
        acc.total += clicks ?? 0;
      }
    }
  }
  return { series: specs.map((spec, i) => toSeries(spec, sums[i]!, t)), snapshots: t.snapshots, timeline: t };
}

const gapPoint = (t: Timeline, w: number): Point => ({ period: t.labels[w]!, start: t.startIso[w]!, clicks: null, uniqueClicks: null, gap: true, reset: false, estimated: false, from: null, to: null });

function toSeries(spec: SeriesSpec, acc: Accumulator, t: Timeline): Series {
  const points: Point[] = [];
  let clicksTotal = 0;
  let uniqueTotal: number | null = null;
  let gaps = 0;
  let resets = 0;
  let estimated = 0;
  for (let w = 0; w < t.starts.length; w++) {
    if (!t.covered[w]) {
      gaps++;
      points.push(gapPoint(t, w));
      continue;
    }
    const clicks = acc.clicks[w]!;
    // links always have a unique count (a period where nothing changed added 0); QR codes and campaigns have none
    // a period only events cover has no unique count (events name no visitor)
    // and never more than the period's clicks: where events took a spread difference's clicks, its
    // unique growth (spread evenly, events name no visitor) can fall on a period left with fewer
    const uniqueValue = t.from[w]! < 0 ? null : spec.kind === 'link' || acc.uniqueKnown[w] ? Math.min(acc.unique[w]!, clicks) : null;
    const reset = acc.reset[w] === 1;
    const guess = t.estimated[w] === 1;
    points.push({ period: t.labels[w]!, start: t.startIso[w]!, clicks, uniqueClicks: uniqueValue, gap: false, reset, estimated: guess, from: t.snapshotIso[t.from[w]!] ?? null, to: t.snapshotIso[t.to[w]!] ?? null });
    clicksTotal += clicks;
    if (uniqueValue !== null) uniqueTotal = (uniqueTotal ?? 0) + uniqueValue;
    if (reset) resets++;
    if (guess) estimated++;
  }
  return { spec, points, clicks: clicksTotal, uniqueClicks: uniqueTotal, gaps, resets, estimated, total: acc.totalKnown ? acc.total : null };
}

/**
 * `--breakdown`: for the links of `spec`, the change of each country (referrer, browser,
 * system) per period, one series per name. A change is taken only between two snapshots that
 * both read the link's details (`snapshot --details`) and both list that name (the server lists
 * its top names only: a name missing from one list is unknown there, not zero); it is spread
 * over the periods it spans, as clicks are.
 */
export async function computeBreakdown(history: History, t: Timeline, spec: SeriesSpec, dimension: Dimension): Promise<Series[]> {
  return (await computeBreakdowns(history, t, spec, [dimension])).get(dimension) ?? [];
}

/**
 * `computeBreakdown` of several dimensions, the items' details read once for all of them.
 * `each`, when given, is told every share as it is counted (which link, which name, which
 * period): the rollups by visit (rollup.ts) count links per name from it.
 */
export async function computeBreakdowns(history: History, t: Timeline, spec: SeriesSpec, dimensions: readonly Dimension[], each?: (dimension: Dimension, name: string, item: number, w: number, clicks: number) => void): Promise<Map<Dimension, Series[]>> {
  const W = t.starts.length;
  const all = await history.detailHistories([...(spec.items ?? [])], dimensions);
  const out = new Map<Dimension, Series[]>();
  for (const dimension of dimensions) {
    const byName = new Map<string, { clicks: Float64Array; known: Uint8Array; reset: Uint8Array }>();
    for (const [item, perDimension] of all) {
      const reads = perDimension.get(dimension)!;
      if (reads.size < 2) continue;
      let previous: Map<string, number> | undefined;
      for (let k = 0; k < t.snapshots.length; k++) {
        if (t.snapshots[k]!.origin !== 'api') continue;
        const after = reads.get(t.snapshots[k]!.id);
        const before = previous;
        previous = after;
        const s = t.spreads[k];
        if (!before || !after || !s) continue;
        // (inline, no closure a name: a year of a hundred links' details is millions of these)
        for (const [name, count] of after) {
          const was = before === after ? count : before.get(name); // a read that changed nothing shares its map
          if (was === undefined) continue;
          let row = byName.get(name);
          if (!row) byName.set(name, (row = { clicks: new Float64Array(W), known: new Uint8Array(W), reset: new Uint8Array(W) }));
          const reset = count < was;
          const change = reset ? count : count - was;
          for (let j = 0; j < s.count; j++) {
            const w = s.first + j;
            if (change) {
              const c = share(change, s.n, s.skip + j, item);
              row.clicks[w]! += c;
              if (each && c) each(dimension, name, item, w, c);
            }
            row.known[w] = 1;
            if (reset) row.reset[w] = 1;
          }
        }
      }
    }
    // events (events.ts): each visit under its own name, in its own period, exactly
    for (const e of t.live?.events ?? []) {
      if (spec.items && !spec.items.has(e.item)) continue;
      const name = eventName(e, dimension);
      let row = byName.get(name);
      if (!row) byName.set(name, (row = { clicks: new Float64Array(W), known: new Uint8Array(W), reset: new Uint8Array(W) }));
      row.clicks[e.w]! += 1;
      row.known[e.w] = 1;
      each?.(dimension, name, e.item, e.w, 1);
    }
    if (t.live) for (const row of byName.values()) for (let w = 0; w < W; w++) if (t.live.exact[w]) row.known[w] = 1;
    out.set(dimension, [...byName.entries()].map(([name, row]): Series => {
      const points = t.starts.map((_, w): Point => {
        if (!row.known[w] || !t.covered[w]) return gapPoint(t, w);
        return { period: t.labels[w]!, start: t.startIso[w]!, clicks: row.clicks[w]!, uniqueClicks: null, gap: false, reset: row.reset[w] === 1, estimated: t.estimated[w] === 1, from: t.snapshotIso[t.from[w]!]!, to: t.snapshotIso[t.to[w]!]! };
      });
      const present = points.filter((p) => !p.gap);
      return {
        spec: { ...spec, key: `${spec.key}:${dimension}:${name}`, label: name },
        points,
        clicks: present.reduce((a, p) => a + p.clicks!, 0),
        uniqueClicks: null,
        gaps: points.length - present.length,
        resets: present.filter((p) => p.reset).length,
        estimated: present.filter((p) => p.estimated).length,
        total: null,
      };
    }).sort((a, b) => b.clicks - a.clicks || a.spec.label.localeCompare(b.spec.label)));
  }
  return out;
}

/** A visit event's name in a breakdown, as the server's top lists name them. */
function eventName(e: NonNullable<Timeline['live']>['events'][number], dimension: Dimension): string {
  if (dimension === 'countries') return e.country ?? 'Unknown';
  if (dimension === 'browsers') return e.browser ?? 'Unknown';
  if (dimension === 'os') return e.os ?? 'Unknown';
  if (!e.referrer) return 'Direct, email and other';
  try {
    return new URL(e.referrer).origin;
  } catch {
    return 'Direct, email and other';
  }
}

/** An item's clicks in each bucket of a timeline's periods, for ranking (`stats top`, `--top N`, the report's tables). */
export interface ItemTotals {
  clicks: number[];
  unique: Array<number | null>;
  reset: boolean;
  estimated: boolean;
}

/**
 * Per-item clicks in each bucket (`bucketOf[w]`: the bucket of window period w, -1 for none),
 * spread as series are: a ranking adds up to the series it ranks.
 */
export async function itemTotals(history: History, sourceId: number, kind: ItemKind, t: Timeline, bucketOf: Int32Array, buckets: number, cache?: DeltaCache): Promise<Map<number, ItemTotals>> {
  const deltas = cache ? await cache.get(kind) : await readDeltas(history, sourceId, kind, t.window.until);
  check(t, deltas);
  const totals = new Map<number, ItemTotals>();
  for (let i = 0; i < deltas.length; i++) {
    const s = t.spreads[deltas.at[i]!];
    if (!s) continue;
    const item = deltas.item[i]!;
    const clicks = deltas.clicks[i]!;
    const uniqueRaw = deltas.unique[i]!;
    for (let j = 0; j < s.count; j++) {
      const w = s.first + j;
      const b = bucketOf[w]!;
      if (b < 0) continue;
      let row = totals.get(item);
      if (!row) totals.set(item, (row = { clicks: new Array(buckets).fill(0), unique: new Array(buckets).fill(null), reset: false, estimated: false }));
      row.clicks[b]! += share(clicks, s.n, s.skip + j, item);
      if (!Number.isNaN(uniqueRaw)) row.unique[b] = (row.unique[b] ?? 0) + share(uniqueRaw, s.n, s.skip + j, item);
      row.reset ||= deltas.reset[i] === 1;
      row.estimated ||= t.estimated[w] === 1;
    }
  }
  if (kind === 'link') {
    for (const e of t.live?.events ?? []) {
      const b = bucketOf[e.w]!;
      if (b < 0) continue;
      let row = totals.get(e.item);
      if (!row) totals.set(e.item, (row = { clicks: new Array(buckets).fill(0), unique: new Array(buckets).fill(null), reset: false, estimated: false }));
      row.clicks[b]! += 1;
    }
  }
  return totals;
}

const BARS = '▁▂▃▄▅▆▇█';
/** Periods spread over a missed snapshot's span: shades (`░▒▓`, low to high) instead of bars, read as "estimated". */
const LIGHT = '░░░▒▒▒▓▓';

/** `▁▂▃▄▅▆▇█` scaled to the largest value; a gap is a space, a zero the lowest bar; an estimated period a shade (`░▒▓`). */
export function sparkline(values: ReadonlyArray<number | null>, estimated: ReadonlyArray<boolean> = []): string {
  const max = Math.max(0, ...values.map((v) => v ?? 0));
  return values.map((v, i) => {
    if (v === null) return ' ';
    const level = max === 0 ? 0 : Math.min(7, Math.floor((v / max) * 7.999));
    return (estimated[i] ? LIGHT : BARS)[level];
  }).join('');
}
