/**
 * `stats export`: the click history as files a warehouse loads, one folder per table, one
 * partition per UTC day, in the Hive layout every engine reads (BigQuery, Snowflake, Redshift,
 * DuckDB, ClickHouse, Spark, pandas, polars):
 *
 *   DIR/link_clicks/day=2025-06-01/part-0.parquet
 *   DIR/qr_scans/day=2025-06-01/part-0.parquet
 *   DIR/visits/day=2025-06-01/part-0.parquet
 *
 * - Daily clicks are the series' own numbers (series.ts: the same deltas, the same even spread
 *   over a missed snapshot with the same `share`, and each visit event `linkctl listen` stored
 *   on its own day, as events.ts counts them), so a link's rows add up to `stats show`.
 * - A day's unique clicks never exceed its clicks: events carry no visitor, so where events took
 *   a snapshot difference's clicks, its unique growth (spread evenly) can land on a day that
 *   kept fewer clicks; it is cut to the day's clicks, as the series' points are.
 * - Written a day at a time: one day's rows are in memory, never the year's.
 * - Each partition is written under a hidden temporary name beside it and renamed over the old
 *   one: a reader sees the old file or the new one, never half of one. A day of the range that
 *   now has no rows loses its old partition: exporting again replaces, never adds.
 */
import { existsSync, mkdirSync, readdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import type { ColumnValues, FileSchema, SchemaColumn, TextColumn, Texts } from './parquet.js';
import { replaceFile } from '../files/temp.js';
import { PART_FILE } from './export-folder.js';
import { join } from 'node:path';
import { share, timeline, type DeltaCache, type Timeline } from './series.js';
import { eventClicks } from './events.js';
import type { History, Item, ItemKind } from './store.js';
import { DAY, iso } from './time.js';

import { EXPORT_FORMATS, type ExportFormat } from './kinds.js';
export { EXPORT_FORMATS, type ExportFormat };

/** The column types of the files, as a warehouse names them (Parquet: INT32 DATE, INT64, BOOLEAN, UTF8 BYTE_ARRAY, INT64 TIMESTAMP_MILLIS). */
export type ColumnType = 'DATE' | 'INT64' | 'BOOLEAN' | 'STRING' | 'TIMESTAMP';
export interface ColumnDef {
  name: string;
  type: ColumnType;
  /** For the documentation and `--json`. */
  about: string;
}

const col = (name: string, type: ColumnType, about: string): ColumnDef => ({ name, type, about });

/** The tables, their columns and what each means: the one place the schema is written (docs/warehouse.md repeats it, a test compares). */
export const TABLES = {
  link_clicks: [
    col('date', 'DATE', 'the UTC day (also the partition: day=YYYY-MM-DD)'),
    col('link_id', 'INT64', "the link's id on the server"),
    col('alias', 'STRING', "the link's alias (back-half)"),
    col('short_url', 'STRING', 'the short URL'),
    col('campaign_id', 'INT64', "the link's campaign id (null: none)"),
    col('campaign', 'STRING', "the campaign's name (null: none)"),
    col('channel', 'STRING', "the link's channels as the server lists them at export time, names joined by ', ' (null: none)"),
    col('domain', 'STRING', "the short URL's host"),
    col('clicks', 'INT64', "the day's clicks"),
    col('unique_clicks', 'INT64', 'visitors first counted that day (growth of the unique count; does not add up across days)'),
    col('estimated', 'BOOLEAN', 'the day holds a share of clicks spread evenly over a missed snapshot'),
    col('server', 'STRING', "the server (base URL, or 'sandbox')"),
    col('account', 'STRING', 'the account on that server'),
  ],
  qr_scans: [
    col('date', 'DATE', 'the UTC day'),
    col('qr_id', 'INT64', "the QR code's id on the server"),
    col('name', 'STRING', "the QR code's name"),
    col('scans', 'INT64', "the day's scans"),
    col('estimated', 'BOOLEAN', 'spread evenly over a missed snapshot'),
    col('server', 'STRING', 'the server'),
    col('account', 'STRING', 'the account'),
  ],
  visits: [
    col('date', 'DATE', "the UTC day of the visit"),
    col('event_id', 'STRING', "the event's id (unique)"),
    col('at', 'TIMESTAMP', 'when the visit happened (UTC, milliseconds)'),
    col('received_at', 'TIMESTAMP', 'when `linkctl listen` stored it'),
    col('link_id', 'INT64', "the link's id when the history knows it (else null)"),
    col('short_url', 'STRING', 'the short URL visited'),
    col('alias', 'STRING', "the link's alias"),
    col('long_url', 'STRING', 'the destination'),
    col('country', 'STRING', 'country'),
    col('city', 'STRING', 'city'),
    col('referrer', 'STRING', 'referrer'),
    col('os', 'STRING', 'operating system'),
    col('browser', 'STRING', 'browser'),
    col('server', 'STRING', 'the server'),
    col('account', 'STRING', 'the account'),
  ],
} as const satisfies Record<string, readonly ColumnDef[]>;
export type TableName = keyof typeof TABLES;

/**
 * One day's rows of a table, a column at a time, in the order of its TABLES entry (no object per
 * row: a year is hundreds of thousands of rows). Values as parquet.ts takes them: numbers (dates
 * as days, times as milliseconds) in a Float64Array with NaN for null, booleans 0/1 (NULL_BOOLEAN),
 * text as UTF-8 bytes or null.
 */
interface DayRows {
  length: number;
  columns: ColumnValues[];
}

const NO_ROWS: DayRows = { length: 0, columns: [] };

/** parquet.ts's null of a boolean column, tied to it by type (that module, and hyparquet-writer, load only for Parquet). */
const NULL_BOOLEAN: typeof import('./parquet.js').NULL_BOOLEAN = 2;

/**
 * Texts as UTF-8 in one growing buffer (parquet.ts's `Texts`), each distinct text stored once and
 * known by its number: a link's alias and URL are encoded once for the year, not once a day, and a
 * dictionary column finds equal names as one entry. Holds what it was given: one per export for
 * the items' texts (bounded by the account), one per file for visits' texts.
 */
class TextStore implements Texts {
  bytes = Buffer.alloc(1 << 16);
  start = new Int32Array(1 << 10);
  length = new Int32Array(1 << 10);
  /** Each number's text (the CSV writer's cells). */
  readonly text: string[] = [];
  private used = 0;
  private readonly known = new Map<string, number>();

  /** The number of `text` (-1: null). */
  id(text: string | null | undefined): number {
    if (text === null || text === undefined) return -1;
    let id = this.known.get(text);
    if (id !== undefined) return id;
    id = this.text.length;
    if (this.used + 3 * text.length > this.bytes.length) {
      // UTF-8: at most 3 bytes a UTF-16 unit
      const bytes = Buffer.alloc(Math.max(this.used + 3 * text.length, 2 * this.bytes.length));
      this.bytes.copy(bytes, 0, 0, this.used);
      this.bytes = bytes;
    }
    if (id === this.start.length) {
      this.start = grown(this.start, id + 1, 0);
      this.length = grown(this.length, id + 1, 0);
    }
    const written = this.bytes.write(text, this.used); // UTF-8, a lone surrogate as U+FFFD (as TextEncoder)
    this.start[id] = this.used;
    this.length[id] = written;
    this.used += written;
    this.text.push(text);
    this.known.set(text, id);
    return id;
  }
}

/**
 * A typed array of `n` elements from a buffer kept for it from day to day (valid until the next
 * call): a day's columns are written before the next day's are made, and new arrays every day are
 * memory outside V8's heap that it collects late (a year's export peaked tens of MB higher).
 */
function reused<T extends Float64Array | Int32Array | Uint8Array>(type: new (n: number) => T): (n: number) => T {
  let buffer = new type(0);
  return (n) => {
    if (n > buffer.length) buffer = new type(Math.max(n, 2 * buffer.length));
    return buffer.subarray(0, n) as T;
  };
}

/** A column of `n` rows, each the text numbered `id` in `texts`, in a reused buffer. */
const sameText = (take: (n: number) => Int32Array, texts: TextStore, id: number, n: number): TextColumn => ({ texts, ids: take(n).fill(id) });

export interface ExportInput {
  history: History;
  sourceId: number;
  server: string;
  account: string;
  items: readonly Item[];
  /** Link item id -> its channels' names (read from the server); undefined: not read. */
  channels?: ReadonlyMap<number, readonly string[]>;
  cache: DeltaCache;
  since: number;
  until: number;
  format: ExportFormat;
  out: string;
  status?: (text: string) => void;
}

export interface TableSummary {
  table: TableName;
  partitions: number;
  rows: number;
  /** Old partitions of days in the range that now have no rows, removed. */
  removed: number;
  /** Sum of the count column (clicks, scans; visits: rows). */
  total: number;
}

export interface ExportSummary {
  format: ExportFormat;
  out: string;
  from: string;
  to: string;
  days: number;
  tables: TableSummary[];
}

const dayText = (ms: number) => iso(ms).slice(0, 10);

/**
 * Hosts by the start of a URL up to its path: a host depends on nothing after it, and an
 * account's links share a few (a URL parsed per link was 10-25 ms of a year's export, issue 52).
 * Emptied when it holds HOSTS_KEPT, so that it stays small whatever it is given.
 */
const hosts = new Map<string, string | null>();
const HOSTS_KEPT = 10_000;

/** A host of a URL, or null. */
export function hostOf(url: string | null): string | null {
  if (!url) return null;
  const scheme = url.indexOf('://');
  const path = scheme < 0 ? -1 : url.slice(scheme + 3).search(/[/?#\\]/);
  // an empty authority (`http:///x`) is one the parser looks past: the whole URL is the key
  const start = path <= 0 ? url : url.slice(0, scheme + 3 + path);
  let host = hosts.get(start);
  if (host === undefined) {
    try {
      host = new URL(start).host.toLowerCase() || null;
    } catch {
      host = null;
    }
    if (hosts.size >= HOSTS_KEPT) hosts.clear();
    hosts.set(start, host);
  }
  return host;
}

/** A value of a column of numbers: NaN for none. */
const num = (v: number | null | undefined) => (v === null || v === undefined ? NaN : v);

export async function exportHistory(input: ExportInput): Promise<ExportSummary> {
  const { history, sourceId, since, until } = input;
  const t = timeline(await history.snapshots(sourceId), { by: 'day', since, until });
  const writer = input.format === 'parquet' ? await parquetWriter() : csvWriter;
  const campaigns = new Map(input.items.filter((i) => i.kind === 'campaign' && i.remoteId !== null).map((i) => [i.remoteId!, i.label ?? i.alias]));
  const byId = new Map(input.items.map((i) => [i.id, i]));
  const texts = new TextStore();
  const server = texts.id(input.server);
  const account = texts.id(input.account);

  // a link's own columns, found once per link (not once per day: a year is hundreds of rows each),
  // kept in typed arrays by the link's slot in the daily counts (contiguous, no object per link)
  const link = { known: new Uint8Array(0), id: new Float64Array(0), alias: new Int32Array(0), url: new Int32Array(0), campaignId: new Float64Array(0), campaign: new Int32Array(0), channel: new Int32Array(0), domain: new Int32Array(0) };
  const learnLink = (slot: number, item: number) => {
    if (slot >= link.known.length) {
      const n = slot + 1;
      Object.assign(link, { known: grown(link.known, n, 0), id: grown(link.id, n, NaN), alias: grown(link.alias, n, -1), url: grown(link.url, n, -1), campaignId: grown(link.campaignId, n, NaN), campaign: grown(link.campaign, n, -1), channel: grown(link.channel, n, -1), domain: grown(link.domain, n, -1) });
    }
    const it = byId.get(item);
    const names = input.channels?.get(item);
    link.id[slot] = num(it?.remoteId);
    link.alias[slot] = texts.id(it?.alias);
    link.url[slot] = texts.id(it?.url);
    link.campaignId[slot] = num(it?.campaign);
    link.campaign[slot] = texts.id(it?.campaign != null ? campaigns.get(it.campaign) : null);
    link.channel[slot] = texts.id(names && names.length ? names.join(', ') : null);
    link.domain[slot] = texts.id(hostOf(it?.url ?? null));
    link.known[slot] = 1;
  };
  const linkBuffers = {
    id: reused(Float64Array), alias: reused(Int32Array), url: reused(Int32Array), campaignId: reused(Float64Array), campaign: reused(Int32Array), channel: reused(Int32Array), domain: reused(Int32Array), unique: reused(Float64Array),
    date: reused(Float64Array), estimated: reused(Uint8Array), server: reused(Int32Array), account: reused(Int32Array),
  };
  const linkDay = (w: number, c: DayCounts): DayRows => {
    const n = c.slots.length;
    const [id, alias, url, campaignId, campaign, channel, domain, unique] = [linkBuffers.id(n), linkBuffers.alias(n), linkBuffers.url(n), linkBuffers.campaignId(n), linkBuffers.campaign(n), linkBuffers.channel(n), linkBuffers.domain(n), linkBuffers.unique(n)];
    for (let i = 0; i < n; i++) {
      const slot = c.slots[i]!;
      if (!(link.known[slot] === 1)) learnLink(slot, c.items[i]!);
      id[i] = link.id[slot]!;
      alias[i] = link.alias[slot]!;
      url[i] = link.url[slot]!;
      campaignId[i] = link.campaignId[slot]!;
      campaign[i] = link.campaign[slot]!;
      channel[i] = link.channel[slot]!;
      domain[i] = link.domain[slot]!;
      // unknown unique growth counts as none; never more than the day's clicks (see the top of this file)
      unique[i] = Math.min(Number.isNaN(c.unique[i]!) ? 0 : c.unique[i]!, c.clicks[i]!);
    }
    return {
      length: n,
      columns: [dayColumn(linkBuffers.date, t, w, n), id, { texts, ids: alias }, { texts, ids: url }, campaignId, { texts, ids: campaign }, { texts, ids: channel }, { texts, ids: domain }, c.clicks, unique, estimatedColumn(linkBuffers.estimated, t, w, n), sameText(linkBuffers.server, texts, server, n), sameText(linkBuffers.account, texts, account, n)],
    };
  };
  const qrBuffers = { id: reused(Float64Array), name: reused(Int32Array), date: reused(Float64Array), estimated: reused(Uint8Array), server: reused(Int32Array), account: reused(Int32Array) };
  const qrDay = (w: number, c: DayCounts): DayRows => {
    const n = c.items.length;
    const id = qrBuffers.id(n);
    const name = qrBuffers.name(n);
    for (let i = 0; i < n; i++) {
      const qr = byId.get(c.items[i]!);
      id[i] = num(qr?.remoteId);
      name[i] = texts.id(qr?.label ?? qr?.alias);
    }
    return { length: n, columns: [dayColumn(qrBuffers.date, t, w, n), id, { texts, ids: name }, c.clicks, estimatedColumn(qrBuffers.estimated, t, w, n), sameText(qrBuffers.server, texts, server, n), sameText(qrBuffers.account, texts, account, n)] };
  };

  const tables: TableSummary[] = [];
  // the visits listen stored, counted on their own day (the deltas have them taken off: events.ts)
  const counted = await eventClicks(history, sourceId, until);
  const events = counted && ((w: number) => counted(t.starts[w]!, t.starts[w]! + DAY));
  const links = await dailyCounts(input.cache, t, 'link', events);
  tables.push(await writeTable(input, t, 'link_clicks', writer, async (w) => linkDay(w, await links(w)), 8));
  const qrs = await dailyCounts(input.cache, t, 'qr');
  tables.push(await writeTable(input, t, 'qr_scans', writer, async (w) => qrDay(w, await qrs(w)), 3));
  // a history without events has no visits: no query a day for none
  tables.push(await writeTable(input, t, 'visits', writer, counted ? visitRows(input, t) : () => NO_ROWS, -1));
  return { format: input.format, out: input.out, from: t.startIso[0]!, to: iso(t.starts.at(-1)! + DAY), days: t.starts.length, tables };
}

/** Epoch days (what a Parquet DATE holds) of a period start. */
const epochDay = (ms: number) => Math.floor(ms / DAY);
const dayColumn = (take: (n: number) => Float64Array, t: Timeline, w: number, n: number) => take(n).fill(epochDay(t.starts[w]!));
const estimatedColumn = (take: (n: number) => Uint8Array, t: Timeline, w: number, n: number) => take(n).fill(t.estimated[w] === 1 ? 1 : 0);

/**
 * One day's counts of a kind's items, in item id order: each item's slot (a small number for the
 * item, the same every day: the caller keeps what it knows of an item by it), its id, its clicks
 * (never 0) and its unique growth (NaN: unknown).
 */
interface DayCounts {
  slots: Int32Array;
  items: Int32Array;
  clicks: Float64Array;
  unique: Float64Array;
}

/**
 * A kind's daily counts, a day at a time: the deltas of the snapshots whose spread covers that
 * day, each share as the series counts it (`share` of the same period index, turned by the item's
 * id, as `spread` and `computeSeries` do), plus the day's events.
 */
async function dailyCounts(cache: DeltaCache, t: Timeline, kind: ItemKind, events?: (w: number) => Promise<Map<number, number>>): Promise<(w: number) => Promise<DayCounts>> {
  const deltas = await cache.get(kind);
  // the deltas in snapshot order (a counting sort of their indices): each day reads only its snapshots'
  const K = deltas.snapshots.length;
  const start = new Int32Array(K + 1);
  for (let i = 0; i < deltas.length; i++) start[deltas.at[i]! + 1]!++;
  for (let k = 0; k < K; k++) start[k + 1]! += start[k]!;
  const order = new Int32Array(deltas.length);
  const next = start.slice(0, K);
  for (let i = 0; i < deltas.length; i++) order[next[deltas.at[i]!]!++] = i;
  // window day -> the snapshots whose difference is spread over it
  const byDay: number[][] = t.starts.map(() => []);
  t.spreads.forEach((s, k) => {
    if (s) for (let w = s.first; w < s.first + s.count; w++) byDay[w]!.push(k);
  });
  // A slot per item, in item id order for every item with a difference (so a day's slots sort as
  // its items do); an item only events name gets the next free one.
  const items = deltas.item.subarray(0, deltas.length);
  const runs: number[] = []; // the differences come item by item (forEachCount's order): an item a run
  for (let i = 0, last = -1; i < items.length; i++) if (items[i] !== last) runs.push((last = items[i]!));
  const sorted = Int32Array.from(runs).sort();
  const itemOf = Array.from(sorted.filter((item, k) => k === 0 || item !== sorted[k - 1]));
  const ordered = itemOf.length;
  const slotOf = new Map(itemOf.map((item, s) => [item, s]));
  const slotAt = new Int32Array(items.length);
  for (let i = 0, last = -1, at = -1; i < items.length; i++) {
    if (items[i] !== last) at = slotOf.get((last = items[i]!))!;
    slotAt[i] = at;
  }
  let clicks = new Float64Array(ordered);
  let unique = new Float64Array(ordered).fill(NaN);
  let touched = new Uint8Array(ordered);
  const { clicks: deltaClicks, unique: deltaUnique, item: deltaItem } = deltas;
  const buffers = { slots: reused(Int32Array), items: reused(Int32Array), clicks: reused(Float64Array), unique: reused(Float64Array) };
  return async (w: number) => {
    const day: number[] = [];
    const touch = (s: number) => {
      if (!touched[s]) {
        touched[s] = 1;
        day.push(s);
      }
    };
    for (const k of byDay[w]!) {
      const { n, skip, first } = t.spreads[k]!;
      const j = skip + (w - first);
      for (let o = start[k]!; o < start[k + 1]!; o++) {
        const i = order[o]!;
        const c = deltaClicks[i]!;
        const u = deltaUnique[i]!;
        // most links are not clicked on most days: their zero differences make no row (issue 52's profile)
        if (c === 0 && !(u > 0)) continue;
        const at = slotAt[i]!;
        if (!touched[at]) {
          touched[at] = 1;
          day.push(at);
        }
        // the one share of this difference that falls on day w, as `spread` gives it to that day
        // (a snapshot a day: all of it)
        const item = deltaItem[i]!;
        clicks[at] = clicks[at]! + (n === 1 ? c : share(c, n, j, item));
        if (!Number.isNaN(u)) unique[at] = (Number.isNaN(unique[at]!) ? 0 : unique[at]!) + (n === 1 ? u : share(u, n, j, item));
      }
    }
    let late = false;
    for (const [item, n] of (await events?.(w)) ?? []) {
      let at = slotOf.get(item);
      if (at === undefined) {
        // an item only events name: the next slot, and room for it
        slotOf.set(item, (at = itemOf.length));
        itemOf.push(item);
        clicks = grown(clicks, itemOf.length, 0);
        unique = grown(unique, itemOf.length, NaN);
        touched = grown(touched, itemOf.length, 0);
      }
      if (at >= ordered) late = true;
      touch(at);
      clicks[at] = clicks[at]! + n;
    }
    // the day's items in id order (slots sort as items do, but for those only events named)
    const slots = buffers.slots(day.length);
    slots.set(day);
    if (late) slots.sort((a, b) => itemOf[a]! - itemOf[b]!);
    else slots.sort();
    // those with clicks (and so with unique clicks: cut to the clicks); the sums start again at zero
    const rows: DayCounts = { slots, items: buffers.items(slots.length), clicks: buffers.clicks(slots.length), unique: buffers.unique(slots.length) };
    let n = 0;
    for (const s of slots) {
      if (clicks[s]! !== 0) {
        rows.slots[n] = s;
        rows.items[n] = itemOf[s]!;
        rows.clicks[n] = clicks[s]!;
        rows.unique[n] = unique[s]!;
        n++;
      }
      clicks[s] = 0;
      unique[s] = NaN;
      touched[s] = 0;
    }
    return { slots: rows.slots.subarray(0, n), items: rows.items.subarray(0, n), clicks: rows.clicks.subarray(0, n), unique: rows.unique.subarray(0, n) };
  };
}

/** A typed array of at least `length`, with `fill` after the old values. */
function grown<T extends Float64Array | Int32Array | Uint8Array>(a: T, length: number, fill: number): T {
  const b = new (a.constructor as new (n: number) => T)(Math.max(length, a.length * 2));
  b.fill(fill);
  b.set(a);
  return b;
}

/** The visits `linkctl listen` stored (events of kind link.clicked), read a day at a time. */
function visitRows(input: ExportInput, t: Timeline): (w: number) => Promise<DayRows> {
  const linkIds = new Map(input.items.filter((i) => i.kind === 'link').map((i) => [i.id, i.remoteId]));
  return async (w) => {
    const from = iso(t.starts[w]!);
    const to = iso(t.starts[w]! + DAY);
    const rows = await input.history.db.all(
      "SELECT event_id, at, received_at, item_id, short_url, alias, long_url, country, city, referrer, os, browser FROM events WHERE source_id = ? AND kind = 'link.clicked' AND at >= ? AND at < ? ORDER BY at, event_id",
      [input.sourceId, from, to],
    );
    const n = rows.length;
    const texts = new TextStore(); // the day's texts: a country or a browser once a file
    const text = (j: number): TextColumn => ({ texts, ids: Int32Array.from(rows, (r) => texts.id(r[j] === null || r[j] === undefined ? null : String(r[j]))) });
    const same = (id: number): TextColumn => ({ texts, ids: new Int32Array(n).fill(id) });
    const time = (j: number) => Float64Array.from(rows, (r) => (r[j] === null || r[j] === undefined ? NaN : Date.parse(String(r[j]))));
    const linkId = Float64Array.from(rows, (r) => (r[3] === null || r[3] === undefined ? NaN : num(linkIds.get(Number(r[3])))));
    return {
      length: n,
      columns: [new Float64Array(n).fill(epochDay(t.starts[w]!)), text(0), time(1), time(2), linkId, text(4), text(5), text(6), text(7), text(8), text(9), text(10), text(11), same(texts.id(input.server)), same(texts.id(input.account))],
    };
  };
}

interface Writer {
  extension: string;
  /** Writes the day's rows to `fd`, a temporary file's (the caller closes it). */
  write(fd: number, table: TableName, columns: readonly ColumnDef[], day: DayRows): void;
}

/** Writes a table's partitions, a day at a time; `countColumn`: the column summed (-1: rows). */
async function writeTable(input: ExportInput, t: Timeline, table: TableName, writer: Writer, rowsOf: (w: number) => DayRows | Promise<DayRows>, countColumn: number): Promise<TableSummary> {
  const columns = TABLES[table];
  const folder = join(input.out, table);
  const summary: TableSummary = { table, partitions: 0, rows: 0, removed: 0, total: 0 };
  const name = `part-0.${writer.extension}`;
  let made = false;
  for (let w = 0; w < t.starts.length; w++) {
    input.status?.(`${table}: ${dayText(t.starts[w]!)}`);
    const partition = join(folder, `day=${dayText(t.starts[w]!)}`);
    const day = await rowsOf(w);
    if (day.length === 0) {
      // a day of the range without rows now: an earlier export's partition would add old rows.
      // Only the export's own file goes (./export-folder.ts), and the folder if nothing else is left.
      if (existsSync(partition)) {
        const own = readdirSync(partition).filter((f) => PART_FILE.test(f));
        for (const file of own) rmSync(join(partition, file), { force: true });
        if (own.length) summary.removed++;
        if (readdirSync(partition).length === 0) rmdirSync(partition);
      }
      continue;
    }
    // the table's folder once, then each day's (a recursive mkdir a day walked the path each time)
    if (!made) mkdirSync(folder, { recursive: true });
    made = true;
    try {
      mkdirSync(partition);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    // a random name, created exclusively: a symlink planted beside the partition is never written through
    replaceFile(join(partition, name), (fd) => writer.write(fd, table, columns, day), 0o644);
    summary.partitions++;
    summary.rows += day.length;
    if (countColumn < 0) summary.total += day.length;
    else for (const v of day.columns[countColumn] as Float64Array) summary.total += v;
  }
  return summary;
}

// ---------------------------------------------------------------- writers

/**
 * Parquet (./parquet.ts, on hyparquet-writer's framing: pure JavaScript, no binary to install):
 * typed columns, Snappy compression, one row group per day. See docs/warehouse.md for why this writer.
 */
async function parquetWriter(): Promise<Writer> {
  const { parquetFile, FileSchema } = await import('./parquet.js');
  const columnOf = (c: ColumnDef): SchemaColumn => {
    if (c.type === 'DATE') return { name: c.name, type: 'INT32', converted_type: 'DATE' };
    if (c.type === 'INT64') return { name: c.name, type: 'INT64' };
    if (c.type === 'BOOLEAN') return { name: c.name, type: 'BOOLEAN' };
    if (c.type === 'TIMESTAMP') return { name: c.name, type: 'INT64', converted_type: 'TIMESTAMP_MILLIS', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' } };
    return { name: c.name, type: 'BYTE_ARRAY', converted_type: 'UTF8' };
  };
  // Columns unique in their day (ids, an alias, a URL, a time) are plain; the others hold a few
  // values a day (the day, counts, a campaign, a domain, the server) and are a dictionary. Min and
  // max are written for dates, times, ids, counts and booleans: text columns have none (they serve
  // little: readers prune days by the partition; see docs/warehouse.md).
  const PLAIN = new Set(['link_id', 'qr_id', 'alias', 'short_url', 'event_id', 'at', 'received_at', 'long_url', 'referrer']);
  const schemas = new Map<TableName, FileSchema>();
  return {
    extension: 'parquet',
    write(fd, table, columns, day) {
      let schema = schemas.get(table);
      if (!schema) schemas.set(table, (schema = new FileSchema(columns.map(columnOf), 'linkctl stats export')));
      const bytes = parquetFile(schema, columns.map((c, j) => ({
        values: day.columns[j]!,
        dictionary: c.type !== 'BOOLEAN' && !PLAIN.has(c.name),
        statistics: c.type !== 'STRING',
      })), day.length);
      writeFileSync(fd, bytes); // all of it (a writeSync may write part)
    },
  };
}

/** RFC 4180 CSV with a header row; dates as YYYY-MM-DD, times as ISO 8601 UTC, booleans as true/false, null as an empty field. */
const csvWriter: Writer = (() => {
  const cell = (values: ColumnValues, i: number, type: ColumnType): string => {
    if (type === 'STRING') {
      const { texts, ids } = values as TextColumn;
      if (ids[i]! < 0) return '';
      const text = (texts as TextStore).text[ids[i]!]!;
      return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
    }
    const v = (values as Float64Array | Uint8Array)[i]!;
    if (type === 'BOOLEAN') return v === NULL_BOOLEAN ? '' : v === 1 ? 'true' : 'false';
    if (Number.isNaN(v)) return '';
    if (type === 'DATE') return iso(v * DAY).slice(0, 10);
    if (type === 'TIMESTAMP') return iso(v);
    return String(v);
  };
  return {
    extension: 'csv',
    write(fd, _table, columns, day) {
      writeFileSync(fd, `${columns.map((c) => c.name).join(',')}\r\n`);
      let chunk = '';
      for (let i = 0; i < day.length; i++) {
        chunk += `${columns.map((c, j) => cell(day.columns[j]!, i, c.type)).join(',')}\r\n`;
        if (chunk.length > 1 << 20) {
          writeFileSync(fd, chunk);
          chunk = '';
        }
      }
      if (chunk) writeFileSync(fd, chunk);
    },
  };
})();
