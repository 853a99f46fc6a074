/**
 * Live events (`linkctl listen`) in the click history, beside snapshots. The rules, in one place:
 *
 * - **Covered by events**: the spans `listen` ran for the account (listen_runs: from its start to
 *   the last moment it was known alive: its last stored event or heartbeat, every 30 s). Each
 *   visit the product counted in such a span is one stored event, at its own time.
 * - A period that overlaps such a span counts the events in it exactly: each at its own hour,
 *   never spread, never estimated. A period no snapshot spans but a run does is no gap any more.
 * - Where snapshots also span a period, their difference already holds the clicks that came as
 *   events: the events of each link between two snapshots are taken off that difference (never
 *   below zero), and only the rest (clicks while listen was not running) is spread as before. So
 *   a click is counted once, as its event where there is one, in the snapshot difference
 *   otherwise, wherever events and snapshots overlap.
 * - Events name links by short URL: they count for the history's item of that link (listen
 *   makes one for a link the history has not seen; the next snapshot adopts it by alias).
 *
 * A database from before migration 22 has no events: everything here is then a no-op.
 */
import type { History, ItemKind, SnapshotRow } from './store.js';
import { timeline, type Live, type Timeline, type Window } from './timeline.js';

export type { Live };
import { appliedVersions } from './schema.js';
import { iso } from './time.js';

const EVENTS_VERSION = 22;


async function hasEvents(history: History): Promise<boolean> {
  return (await appliedVersions(history.db)).includes(EVENTS_VERSION);
}

/** Sources that have a run of listen: chosen by `stats` like a source with snapshots. */
export async function sourcesWithEvents(history: History): Promise<Set<number>> {
  if (!(await hasEvents(history))) return new Set();
  return new Set((await history.db.all('SELECT DISTINCT source_id FROM listen_runs')).map((r) => Number(r[0])));
}

async function clicksOf(history: History, sourceId: number, until: number, ids?: readonly number[]): Promise<Array<{ item: number; at: number; latest: number; row: unknown[] }>> {
  const rows = await history.db.all(
    "SELECT item_id, at, country, referrer, os, browser, received_at FROM events WHERE source_id = ? AND kind = 'link.clicked' AND at <= ? AND item_id IS NOT NULL ORDER BY item_id, at",
    [sourceId, iso(until)],
  );
  const wanted = ids ? new Set(ids) : undefined;
  return rows.filter((r) => !wanted || wanted.has(Number(r[0]))).map((r) => {
    const at = Date.parse(String(r[1]));
    return { item: Number(r[0]), at, latest: latestMoment(at, Date.parse(String(r[6]))), row: r };
  });
}

/**
 * The latest moment a visit can have happened: the product dates it to the second (so up to
 * 999 ms after `at`), and it happened before its post arrived. Compared with snapshots' times
 * (to the millisecond), this keeps a visit in the same second as a snapshot from being taken
 * as one the snapshot's total already held.
 */
function latestMoment(at: number, receivedAt: number): number {
  return Number.isNaN(receivedAt) ? at + 999 : Math.max(at, Math.min(at + 999, receivedAt));
}

/** The timeline of `window` (series.ts), with the periods listen covered marked and their events read (`t.live`). */
export async function liveTimeline(history: History, sourceId: number, window: Window): Promise<Timeline> {
  const t = timeline(await history.snapshots(sourceId), window);
  if (!(await hasEvents(history))) return t;
  const runs = (await history.db.all('SELECT started_at, alive_at FROM listen_runs WHERE source_id = ? ORDER BY started_at', [sourceId]))
    .map((r): [number, number] => [Date.parse(String(r[0])), Math.min(Date.parse(String(r[1])), window.until)])
    .filter(([a, b]) => a <= b);
  if (!runs.length) return t;
  const W = t.starts.length;
  const exact = new Uint8Array(W);
  const ends = t.starts.map((_, w) => (w + 1 < W ? t.starts[w + 1]! : window.until + 1));
  for (let w = 0; w < W; w++) if (runs.some(([a, b]) => a < ends[w]! && b >= t.starts[w]!)) exact[w] = 1;
  const live: Live = { runs, clicks: new Map(), exact, events: [] };
  for (const { item, at, row } of await clicksOf(history, sourceId, window.until)) {
    let list = live.clicks.get(item);
    if (!list) live.clicks.set(item, (list = []));
    list.push(at);
    const w = periodOf(t, at);
    if (w >= 0) live.events.push({ item, w, country: s(row[2]), referrer: s(row[3]), os: s(row[4]), browser: s(row[5]) });
  }
  for (let w = 0; w < W; w++) if (exact[w]) t.covered[w] = 1;
  // events outside every run (a run whose end was lost): still counted where they fall
  for (const e of live.events) t.covered[e.w] = 1;
  t.live = live;
  return t;
}

const s = (v: unknown) => (v === null || v === undefined ? null : String(v));

/**
 * Each link's visit events from `from` (inclusive) to `to` (exclusive), and none after `until`:
 * the events a timeline's period counts (liveTimeline: the same kind, items and end), read one
 * period at a time, so a year's export holds one day's counts, not the year's events. Undefined
 * when the source has no events at all (then there is nothing to read, period after period).
 */
export async function eventClicks(history: History, sourceId: number, until: number): Promise<((from: number, to: number) => Promise<Map<number, number>>) | undefined> {
  if ((await firstLiveMoment(history, sourceId)) === undefined) return undefined;
  return async (from, to) => {
    const rows = await history.db.all(
      "SELECT item_id, count(*) FROM events WHERE source_id = ? AND kind = 'link.clicked' AND item_id IS NOT NULL AND at >= ? AND at < ? AND at <= ? GROUP BY item_id",
      [sourceId, iso(from), iso(to), iso(until)],
    );
    return new Map(rows.map((r) => [Number(r[0]), Number(r[1])]));
  };
}

/** The first moment listen covered for the source (its first run or event), or undefined: where a history of events only starts. */
export async function firstLiveMoment(history: History, sourceId: number): Promise<number | undefined> {
  if (!(await hasEvents(history))) return undefined;
  const [row] = await history.db.all('SELECT (SELECT min(started_at) FROM listen_runs WHERE source_id = ?), (SELECT min(at) FROM events WHERE source_id = ?)', [sourceId, sourceId]);
  const times = (row ?? []).filter((v) => v !== null && v !== undefined).map((v) => Date.parse(String(v))).filter((ms) => !Number.isNaN(ms));
  return times.length ? Math.min(...times) : undefined;
}

/** The window period holding `at` (-1: outside the window). */
function periodOf(t: Timeline, at: number): number {
  if (at < t.starts[0]! || at > t.window.until) return -1;
  let lo = 0;
  let hi = t.starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (t.starts[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Takes each link's events off the snapshot differences that hold them (rule 3 above). A
 * difference spans from the server's snapshot before it (or the import before the first), as
 * the timeline's spans do, and holds the events of that span. A difference that holds fewer
 * than that (the server's total caught up one snapshot later, or a read's total was refused
 * and kept) leaves the rest of those events to be taken off the link's next differences: over
 * the link's history, each event is taken off once, so no click counts twice. A reset of the
 * server's count starts again (what it lost is not in any later difference).
 */
export async function subtractEvents(history: History, sourceId: number, kind: ItemKind, snapshots: readonly SnapshotRow[], until: number, deltas: { length: number; item: Int32Array; at: Int32Array; clicks: Float64Array; reset: Uint8Array; firstBase: ReadonlyMap<number, number> }): Promise<void> {
  if (kind !== 'link' || !deltas.length || !(await hasEvents(history))) return;
  const clicks = new Map<number, number[]>();
  for (const { item, latest } of await clicksOf(history, sourceId, until)) {
    let list = clicks.get(item);
    if (!list) clicks.set(item, (list = []));
    list.push(latest);
  }
  if (!clicks.size) return;
  for (const list of clicks.values()) list.sort((a, b) => a - b);
  const from: number[] = [];
  let previous = -1;
  let imported = -1;
  snapshots.forEach((snap, k) => {
    if (snap.origin !== 'api') {
      if (previous < 0) imported = k;
      from[k] = -1;
      return;
    }
    const p = previous >= 0 ? previous : imported;
    from[k] = p >= 0 ? snapshots[p]!.at : -Infinity;
    previous = k;
  });
  // each link's differences, in snapshot order
  const byItem = new Map<number, number[]>();
  for (let i = 0; i < deltas.length; i++) {
    const item = deltas.item[i]!;
    if (!clicks.has(item)) continue;
    let list = byItem.get(item);
    if (!list) byItem.set(item, (list = []));
    list.push(i);
  }
  for (const [item, indices] of byItem) {
    indices.sort((a, b) => deltas.at[a]! - deltas.at[b]!);
    const times = clicks.get(item)!;
    // events up to the snapshot the link's differences start from are in its total there; a
    // link new since then counts its whole total, from the span before its first difference
    let next = 0;
    const base = deltas.firstBase.get(item) ?? -1;
    const start = base >= 0 ? snapshots[base]!.at : from[deltas.at[indices[0]!]!]!;
    while (next < times.length && times[next]! <= start) next++;
    let pending = 0;
    for (const i of indices) {
      const k = deltas.at[i]!;
      const upTo = snapshots[k]!.at;
      if (deltas.reset[i]) {
        // the count restarted after the snapshot before: what came before that is lost with it
        pending = 0;
        while (next < times.length && times[next]! <= from[k]!) next++;
      }
      while (next < times.length && times[next]! <= upTo) {
        pending++;
        next++;
      }
      const taken = Math.min(pending, deltas.clicks[i]!);
      deltas.clicks[i] = deltas.clicks[i]! - taken;
      pending -= taken;
    }
  }
}

/** For people and --json: which periods of a timeline events counted, and which snapshots. */
export function liveNote(t: Timeline): string | undefined {
  const live = t.live;
  if (!live) return undefined;
  const periods = Array.from(live.exact).filter(Boolean).length;
  const first = iso(live.runs[0]![0]).slice(0, 16).replace('T', ' ');
  const last = iso(live.runs[live.runs.length - 1]![1]).slice(0, 16).replace('T', ' ');
  return `live events (linkctl listen, ${live.runs.length} run${live.runs.length === 1 ? '' : 's'} from ${first} to ${last} UTC) counted exactly in ${periods} period${periods === 1 ? '' : 's'}; snapshot differences elsewhere, less the clicks events already counted`;
}
