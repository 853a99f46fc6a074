/**
 * `stats top`, the report's tables and the MCP tool: links (or QR codes) ranked by their clicks
 * in a window, each compared with the window of the same length before it, and what the history
 * covers said plainly. One function, so that they all give the same answer.
 *
 * - The window is whole periods (days; hours for a window under a day) ending with the one that
 *   holds `until`: `--since 7d` is today and the six days before.
 * - Its clicks are the series' clicks (series.ts): spread evenly over a missed snapshot's span,
 *   so that a ranking adds up to the chart beside it.
 * - The history may cover only part of the window (it started later, or its newest snapshot is
 *   older): the ranking is by the covered part's clicks, and says so.
 * - The comparison is with the periods just before the covered part, as many as it has, and
 *   only when the history covers every one of them; else there is none, and the note says why.
 */
import { liveNote, liveTimeline } from './events.js';
import { itemTotals, type DeltaCache, type Timeline, type Window } from './series.js';
import type { History, Item, ItemKind, SnapshotRow } from './store.js';
import { HOUR, DAY, iso, nextPeriod, periodStart, type Period } from './time.js';
import { thousands } from '../numbers.js';

export interface Ranked {
  rank: number;
  kind: ItemKind;
  id: number | null;
  alias: string | null;
  label: string | null;
  clicks: number;
  previous: number | null;
  change: number | null;
  changePercent: number | null;
  /** up, down or same against the comparison; null without one. */
  direction: 'up' | 'down' | 'same' | null;
  reset: boolean;
  /** Its clicks hold a share of a difference spread over a missed snapshot (an estimate). */
  estimated: boolean;
}

export interface Span {
  from: string;
  to: string;
  periods: number;
}

export interface Ranking {
  by: Period;
  /** What was asked: whole periods ending with the one that holds `until`. */
  window: Span;
  /** The part of it the history covers; null: none. */
  covered: Span | null;
  /** The periods compared with; null: no comparison. */
  comparison: Span | null;
  /** Clicks (scans) of every item in the covered part, and in the comparison: the series' totals. */
  clicks: number;
  previous: number | null;
  rows: Ranked[];
  /** What the ranking covers and compares, for people (stderr, the report, the MCP result). */
  note: string;
  /** Snapshots from the server so far (up to `until`). */
  snapshots: number;
}

const UNIT: Record<Period, string> = { hour: 'hour', day: 'day', week: 'week', month: 'month' };
const count = (n: number, unit: string) => `${thousands(n)} ${unit}${n === 1 ? '' : 's'}`;

/** A time for people in notes: `2025-06-04 06:00 UTC`, or the date alone at midnight. */
export function when(ms: number): string {
  const text = iso(ms);
  return text.endsWith('T00:00:00.000Z') ? text.slice(0, 10) : `${text.slice(0, 10)} ${text.slice(11, 16)} UTC`;
}

/** The period length a ranking over [since, until] uses: hours under a day, else days. */
export const rankPeriod = (since: number, until: number): Period => (until - since < DAY ? 'hour' : 'day');

/** `n` period starts ending with the one that holds `until`, then `n` more before them. */
function periods(by: Period, since: number, until: number): { previousFirst: number; n: number } {
  const last = periodStart(by, until);
  let n = 0;
  let first = last;
  // the whole periods at or after `since`, the one holding `until` included
  for (let start = last; start >= periodStart(by, since); start = stepBack(by, start)) {
    if (start < since && n > 0) break;
    first = start;
    n++;
    if (n > 10_000) break;
  }
  let previousFirst = first;
  for (let i = 0; i < n; i++) previousFirst = stepBack(by, previousFirst);
  return { previousFirst, n };
}

function stepBack(by: Period, start: number): number {
  if (by === 'hour') return start - HOUR;
  if (by === 'day') return start - DAY;
  if (by === 'week') return start - 7 * DAY;
  const d = new Date(start);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1);
}

const spanOf = (t: Timeline, from: number, to: number): Span => ({ from: iso(t.starts[from]!), to: iso(nextPeriod(t.window.by, t.starts[to]!)), periods: to - from + 1 });

/**
 * The ranking of `kind` over [since, until] (periods of `by`, default by the window's length),
 * the top `n` (every item with clicks when n is Infinity).
 */
export async function rank(history: History, sourceId: number, items: readonly Item[], kind: ItemKind, since: number, until: number, n: number, by: Period = rankPeriod(since, until), cache?: DeltaCache): Promise<Ranking> {
  const { previousFirst, n: length } = periods(by, since, until);
  const window: Window = { by, since: previousFirst, until };
  const t = await liveTimeline(history, sourceId, window);
  const asked: Span = spanOf(t, length, 2 * length - 1);
  const api = t.snapshots.filter((s) => s.origin === 'api');
  const noun = kind === 'qr' ? 'scans' : 'clicks';
  const unit = UNIT[by];
  const base: Omit<Ranking, 'note'> = { by, window: asked, covered: null, comparison: null, clicks: 0, previous: null, rows: [], snapshots: api.length };

  let fc = -1;
  let lc = -1;
  for (let w = length; w < 2 * length; w++) {
    if (!t.covered[w]) continue;
    if (fc < 0) fc = w;
    lc = w;
  }
  if (fc < 0) return { ...base, note: uncovered(api, asked, noun, by) };
  const L = lc - fc + 1;
  let comparable = fc - L >= 0;
  for (let w = fc - L; comparable && w < fc; w++) if (!t.covered[w]) comparable = false;
  const bucketOf = new Int32Array(t.starts.length).fill(-1);
  for (let w = fc; w <= lc; w++) bucketOf[w] = 1;
  if (comparable) for (let w = fc - L; w < fc; w++) bucketOf[w] = 0;

  const totals = await itemTotals(history, sourceId, kind, t, bucketOf, 2, cache);
  const byId = new Map(items.map((i) => [i.id, i]));
  let clicks = 0;
  let previous = 0;
  const rows = [...totals.entries()].map(([id, row]) => {
    clicks += row.clicks[1]!;
    previous += row.clicks[0]!;
    const item = byId.get(id);
    const now = row.clicks[1]!;
    const before = comparable ? row.clicks[0]! : null;
    const change = before === null ? null : now - before;
    return {
      item: id, kind, id: item?.remoteId ?? null, alias: item?.alias ?? null, label: item?.label ?? null, clicks: now, previous: before, change,
      changePercent: change === null || !before ? null : Math.round((change / before) * 1000) / 10,
      direction: change === null ? null : change > 0 ? 'up' as const : change < 0 ? 'down' as const : 'same' as const,
      reset: row.reset, estimated: row.estimated,
    };
  });
  const ranked = rows.filter((r) => r.clicks > 0).sort((a, b) => b.clicks - a.clicks || a.item - b.item).slice(0, n).map(({ item: _item, ...r }, i): Ranked => ({ rank: i + 1, ...r }));
  const covered = spanOf(t, fc, lc);
  const comparison = comparable ? spanOf(t, fc - L, fc - 1) : null;
  const estimated = Array.from({ length: L }, (_, i) => t.estimated[fc + i]).filter(Boolean).length;
  const parts: string[] = [];
  const range = (s: Span) => spanText(s, by);
  const the = (periods: number) => (periods === 1 ? `the ${unit}` : `the ${count(periods, unit)}`);
  if (L === length) parts.push(`${noun} in ${the(length)} ${range(covered)}`);
  else {
    // the history's start and end: its first snapshot or listen's first run, its newest snapshot or listen's last moment alive
    const starts = Math.min(api[0]?.at ?? Infinity, t.live?.runs[0]?.[0] ?? Infinity);
    const ends = Math.max(api.at(-1)?.at ?? -Infinity, t.live?.runs.at(-1)?.[1] ?? -Infinity);
    const endText = t.live ? `the history ends ${when(ends)}` : `the newest snapshot is from ${when(ends)}`;
    const why = [fc > length ? `the history starts ${when(starts)}` : '', lc < 2 * length - 1 ? endText : ''].filter(Boolean).join('; ');
    parts.push(`the history covers ${count(L, unit)} of the ${count(length, unit)} asked (${range(covered)}; ${why}): ranked by ${L === 1 ? `that ${unit}'s` : `those ${count(L, unit)}'`} ${noun}`);
  }
  parts.push(comparison ? `compared with ${the(L)} before (${range(comparison)})` : `no comparison: the history does not cover ${the(L)} before`);
  if (estimated) parts.push(`${count(estimated, unit)} spread evenly over a missed snapshot (estimates)`);
  const live = liveNote(t);
  if (live) parts.push(live);
  return { ...base, covered, comparison, clicks, previous: comparable ? previous : null, rows: ranked, note: parts.join('; ') };
}

/** A span for people: days as the first and the last day inside it (`2025-06-09 to 2025-06-15`), hours from one time to the next. */
export function spanText(s: Span, by: Period): string {
  const from = Date.parse(s.from);
  if (by === 'hour') return `${when(from)} to ${when(Date.parse(s.to))}`;
  const last = Date.parse(s.to) - 1;
  const a = iso(from).slice(0, 10);
  const b = iso(last).slice(0, 10);
  return a === b ? a : `${a} to ${b}`;
}

function uncovered(api: readonly SnapshotRow[], asked: Span, noun: string, by: Period): string {
  if (api.length === 0) return `no ${noun} to rank: the history has no snapshot up to the window's end`;
  if (api.length === 1) return `no ${noun} to rank yet: one snapshot so far (${when(api[0]!.at)}); the next one starts the first comparison`;
  const newest = api[api.length - 1]!.at;
  return newest < Date.parse(asked.from)
    ? `no ${noun} to rank: the newest snapshot (${when(newest)}) is older than the window (${spanText(asked, by)})`
    : `no ${noun} to rank: no two snapshots span the window (${spanText(asked, by)})`;
}
