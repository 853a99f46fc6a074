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
import { closeSync, existsSync, mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { openTempFile } from '../files/access.js';
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

type Value = string | number | boolean | null;
type Rows = Value[][];

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

/** A host of a URL, or null. */
export function hostOf(url: string | null): string | null {
  if (!url) return null;
  try {
    return new URL(url).host.toLowerCase() || null;
  } catch {
    return null;
  }
}

export async function exportHistory(input: ExportInput): Promise<ExportSummary> {
  const { history, sourceId, since, until } = input;
  const t = timeline(await history.snapshots(sourceId), { by: 'day', since, until });
  const writer = input.format === 'parquet' ? await parquetWriter() : csvWriter;
  const campaigns = new Map(input.items.filter((i) => i.kind === 'campaign' && i.remoteId !== null).map((i) => [i.remoteId!, i.label ?? i.alias]));
  const byId = new Map(input.items.map((i) => [i.id, i]));
  const base = { server: input.server, account: input.account };

  // a link's own columns, made once per link (not once per day: a year is hundreds of rows each)
  const linkColumns = new Map<number, Value[]>();
  const linkRow = (day: number, item: number, clicks: number, unique: number | null, estimated: boolean): Value[] => {
    let own = linkColumns.get(item);
    if (!own) {
      const link = byId.get(item);
      const names = input.channels?.get(item);
      own = [link?.remoteId ?? null, link?.alias ?? null, link?.url ?? null, link?.campaign ?? null, link?.campaign != null ? (campaigns.get(link.campaign) ?? null) : null,
        names && names.length ? names.join(', ') : null, hostOf(link?.url ?? null)];
      linkColumns.set(item, own);
    }
    return [day, ...own, clicks, unique, estimated, base.server, base.account];
  };
  const qrRow = (day: number, item: number, clicks: number, _unique: number | null, estimated: boolean): Value[] => {
    const qr = byId.get(item);
    return [day, qr?.remoteId ?? null, qr?.label ?? qr?.alias ?? null, clicks, estimated, base.server, base.account];
  };

  const tables: TableSummary[] = [];
  // the visits listen stored, counted on their own day (the deltas have them taken off: events.ts)
  const counted = await eventClicks(history, sourceId, until);
  const events = counted && ((w: number) => counted(t.starts[w]!, t.starts[w]! + DAY));
  tables.push(await writeTable(input, t, 'link_clicks', writer, await dailyRows(input.cache, t, 'link', linkRow, events), 8));
  tables.push(await writeTable(input, t, 'qr_scans', writer, await dailyRows(input.cache, t, 'qr', qrRow), 3));
  // a history without events has no visits: no query a day for none
  tables.push(await writeTable(input, t, 'visits', writer, counted ? visitRows(input, t) : () => [], -1));
  return { format: input.format, out: input.out, from: t.startIso[0]!, to: iso(t.starts.at(-1)! + DAY), days: t.starts.length, tables };
}

/** Epoch days (what a Parquet DATE holds) of a period start. */
const epochDay = (ms: number) => Math.floor(ms / DAY);

/**
 * Rows of one kind's daily changes, a day at a time: the deltas of the snapshots whose spread
 * covers that day, each share as the series counts it (`share` of the same period index, turned
 * by the item's id, as `spread` and `computeSeries` do).
 */
async function dailyRows(cache: DeltaCache, t: Timeline, kind: ItemKind, row: (day: number, item: number, clicks: number, unique: number | null, estimated: boolean) => Value[], events?: (w: number) => Promise<Map<number, number>>): Promise<(w: number) => Promise<Rows>> {
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
  return async (w: number) => {
    const sums = new Map<number, { clicks: number; unique: number | null }>();
    for (const k of byDay[w]!) {
      for (let o = start[k]!; o < start[k + 1]!; o++) {
        const i = order[o]!;
        const uniqueRaw = deltas.unique[i]!;
        // most links are not clicked on most days: their zero differences make no row (issue 52's profile)
        if (deltas.clicks[i] === 0 && !(uniqueRaw > 0)) continue;
        const item = deltas.item[i]!;
        // the one share of this difference that falls on day w, as `spread` gives it to that day
        const s = t.spreads[k]!;
        const j = s.skip + (w - s.first);
        let sum = sums.get(item);
        if (!sum) sums.set(item, (sum = { clicks: 0, unique: null }));
        sum.clicks += share(deltas.clicks[i]!, s.n, j, item);
        if (!Number.isNaN(uniqueRaw)) sum.unique = (sum.unique ?? 0) + share(uniqueRaw, s.n, j, item);
      }
    }
    for (const [item, clicks] of (await events?.(w)) ?? []) {
      let sum = sums.get(item);
      if (!sum) sums.set(item, (sum = { clicks: 0, unique: null }));
      sum.clicks += clicks;
    }
    const rows: Rows = [];
    const day = epochDay(t.starts[w]!);
    for (const [item, sum] of [...sums.entries()].sort((a, b) => a[0] - b[0])) {
      if (sum.clicks === 0) continue; // (and so no unique clicks: cut to the clicks)
      rows.push(row(day, item, sum.clicks, kind === 'link' ? Math.min(sum.unique ?? 0, sum.clicks) : null, t.estimated[w] === 1));
    }
    return rows;
  };
}

/** The visits `linkctl listen` stored (events of kind link.clicked), read a day at a time. */
function visitRows(input: ExportInput, t: Timeline): (w: number) => Promise<Rows> {
  const linkIds = new Map(input.items.filter((i) => i.kind === 'link').map((i) => [i.id, i.remoteId]));
  return async (w) => {
    const from = iso(t.starts[w]!);
    const to = iso(t.starts[w]! + DAY);
    const rows = await input.history.db.all(
      "SELECT event_id, at, received_at, item_id, short_url, alias, long_url, country, city, referrer, os, browser FROM events WHERE source_id = ? AND kind = 'link.clicked' AND at >= ? AND at < ? ORDER BY at, event_id",
      [input.sourceId, from, to],
    );
    const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
    const time = (v: unknown) => {
      const ms = v === null || v === undefined ? NaN : Date.parse(String(v));
      return Number.isNaN(ms) ? null : ms;
    };
    return rows.map((r) => [epochDay(t.starts[w]!), text(r[0]), time(r[1]), time(r[2]), r[3] === null || r[3] === undefined ? null : (linkIds.get(Number(r[3])) ?? null),
      text(r[4]), text(r[5]), text(r[6]), text(r[7]), text(r[8]), text(r[9]), text(r[10]), text(r[11]), input.server, input.account]);
  };
}

interface Writer {
  extension: string;
  /** Writes the rows to `fd`, a temporary file's (the caller closes it). */
  write(fd: number, columns: readonly ColumnDef[], rows: Rows): void;
}

/** Writes a table's partitions, a day at a time; `countColumn`: the column summed (-1: rows). */
async function writeTable(input: ExportInput, t: Timeline, table: TableName, writer: Writer, rowsOf: (w: number) => Rows | Promise<Rows>, countColumn: number): Promise<TableSummary> {
  const columns = TABLES[table];
  const folder = join(input.out, table);
  const summary: TableSummary = { table, partitions: 0, rows: 0, removed: 0, total: 0 };
  const name = `part-0.${writer.extension}`;
  let made = false;
  for (let w = 0; w < t.starts.length; w++) {
    input.status?.(`${table}: ${dayText(t.starts[w]!)}`);
    const partition = join(folder, `day=${dayText(t.starts[w]!)}`);
    const rows = await rowsOf(w);
    if (rows.length === 0) {
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
    const temporary = openTempFile(partition, `.${name}`, 0o644);
    try {
      try {
        writer.write(temporary.fd, columns, rows);
      } finally {
        closeSync(temporary.fd);
      }
      renameSync(temporary.path, join(partition, name));
    } catch (error) {
      rmSync(temporary.path, { force: true });
      throw error;
    }
    summary.partitions++;
    summary.rows += rows.length;
    summary.total += countColumn < 0 ? rows.length : rows.reduce((a, r) => a + (r[countColumn] as number), 0);
  }
  return summary;
}

// ---------------------------------------------------------------- writers

/**
 * Parquet by hyparquet-writer (pure JavaScript, no binary to install): typed columns, Snappy
 * compression, one row group per day. See docs/warehouse.md for why this writer.
 */
async function parquetWriter(): Promise<Writer> {
  const { parquetWriteBuffer } = await import('hyparquet-writer');
  const schemaOf = (c: ColumnDef) => {
    if (c.type === 'DATE') return { name: c.name, type: 'INT32', converted_type: 'DATE', repetition_type: 'OPTIONAL' };
    if (c.type === 'INT64') return { name: c.name, type: 'INT64', repetition_type: 'OPTIONAL' };
    if (c.type === 'BOOLEAN') return { name: c.name, type: 'BOOLEAN', repetition_type: 'OPTIONAL' };
    if (c.type === 'TIMESTAMP') return { name: c.name, type: 'INT64', converted_type: 'TIMESTAMP_MILLIS', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' }, repetition_type: 'OPTIONAL' };
    return { name: c.name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' };
  };
  // Min and max of text columns cost a fifth of the encoding (each value compared as text) and
  // serve little: readers prune days by the partition, and dates, ids and counts by their
  // statistics, kept. A text column is a dictionary (a few names: a campaign, a domain, the
  // server) or unique in its day (an alias, a short URL: plain), said here instead of sampled
  // for each file (the writer's sampling and its dictionary of unique values were a fifth more).
  const UNIQUE_TEXT = new Set(['alias', 'short_url', 'event_id', 'long_url', 'referrer']);
  const statistics = (c: ColumnDef) => (c.type === 'STRING' ? { statistics: false, encoding: UNIQUE_TEXT.has(c.name) ? 'PLAIN' : 'RLE_DICTIONARY' } : {});
  return {
    extension: 'parquet',
    write(fd, columns, rows) {
      const columnData = columns.map((c, j) => ({
        name: c.name,
        ...statistics(c),
        data: rows.map((r) => {
          const v = r[j] ?? null;
          if (v === null) return null;
          return c.type === 'INT64' || c.type === 'TIMESTAMP' ? BigInt(v as number) : v;
        }),
      }));
      const bytes = parquetWriteBuffer({
        columnData,
        schema: [{ name: 'root', num_children: columns.length }, ...columns.map(schemaOf)],
        rowGroupSize: Math.max(1, rows.length),
        createdBy: 'linkctl stats export',
      } as never);
      writeFileSync(fd, new Uint8Array(bytes)); // all of it (a writeSync may write part)
    },
  };
}

/** RFC 4180 CSV with a header row; dates as YYYY-MM-DD, times as ISO 8601 UTC, booleans as true/false, null as an empty field. */
const csvWriter: Writer = {
  extension: 'csv',
  write(fd, columns, rows) {
    const cell = (v: Value, type: ColumnType): string => {
      if (v === null) return '';
      if (type === 'DATE') return iso((v as number) * DAY).slice(0, 10);
      if (type === 'TIMESTAMP') return iso(v as number);
      const text = String(v);
      return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
    };
    writeFileSync(fd, `${columns.map((c) => c.name).join(',')}\r\n`);
    let chunk = '';
    for (const r of rows) {
      chunk += `${r.map((v, j) => cell(v, columns[j]!.type)).join(',')}\r\n`;
      if (chunk.length > 1 << 20) {
        writeFileSync(fd, chunk);
        chunk = '';
      }
    }
    if (chunk) writeFileSync(fd, chunk);
  },
};
