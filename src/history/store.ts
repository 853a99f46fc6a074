/**
 * Click history: the one owner of the history database. `openHistory()` opens (and migrates)
 * it; `snapshot()` records the totals of an account's records at a time, storing for each
 * record only what changed since its previous snapshot; the read functions hand the rows to
 * series.ts, which turns them into differences per period.
 *
 * Used by `linkctl stats` and, through the same API, by other features: link health adds its
 * tables to MIGRATIONS (schema.ts) and uses `history.db`; `import --with-clicks` records another
 * tool's totals with `snapshot({ origin: 'import:<tool>', complete: false, records })`, its
 * records keyed by alias (a later snapshot from the server adopts them by alias).
 */
import { join } from 'node:path';
import { stateDir } from '../config/paths.js';
import { ConfigError, UsageError } from '../errors.js';
import { describeTarget, isPostgres, type Db } from './db.js';
import { migrate, MIGRATIONS } from './schema.js';
import { iso, now } from './time.js';

import { DIMENSIONS, ITEM_KINDS, type Dimension, type ItemKind } from './kinds.js';

export { DIMENSIONS, ITEM_KINDS, type Dimension, type ItemKind };
export type Details = Partial<Record<Dimension, Record<string, number>>>;

/** One record's totals, as a snapshot stores them. */
export interface HistoryRecord {
  kind: ItemKind;
  /** The server's id; absent for a record imported from another tool (matched by alias later). */
  id?: number;
  /** A link's alias (back-half); for QR codes and campaigns their name. */
  alias?: string;
  /** A link's title, a QR code's or campaign's name. */
  label?: string;
  /** A link's short URL, a QR code's image URL. */
  url?: string;
  /** A link's campaign id. */
  campaign?: number | null;
  /** Clicks (links), scans (QR codes), views (campaigns). */
  clicks: number;
  /** The server's unique-visitor count (links only). */
  uniqueClicks?: number | null;
  details?: Details;
}

/** One account on one server; snapshots of the same account from different machines share it. */
export interface SourceRef {
  baseUrl: string;
  /** The account's id on that server (its username when there is no id). */
  account: string;
  /** For people: the account's username or email. */
  name?: string;
}

export interface SnapshotInput {
  source: SourceRef;
  records: readonly HistoryRecord[];
  /** Epoch ms; default: the clock (LINKCTL_NOW, else now), read once the writers' lock is held. */
  at?: number;
  /** 'api' (the default) or `import:<tool>`. */
  origin?: string;
  /** The records are every record of `kinds` in the account (default: true for 'api'): an item missing from them is gone. */
  complete?: boolean;
  /** What the snapshot read in full (default: all three). */
  kinds?: readonly ItemKind[];
  profile?: string;
  /** Work out what would be stored, and roll it back (`--dry-run`). */
  dryRun?: boolean;
}

/** Carries a dry run's result out of its transaction, which it rolls back. */
class RolledBack extends Error {
  constructor(readonly result: SnapshotResult) {
    super('dry run');
  }
}

export interface SnapshotResult {
  snapshot: number;
  takenAt: string;
  links: number;
  qrs: number;
  campaigns: number;
  /** Rows written: records new or changed since their previous snapshot, and records gone. */
  changed: number;
  gone: number;
  details: number;
  /** The source's first snapshot: nothing to compare with yet. */
  first: boolean;
}

export interface Source {
  id: number;
  baseUrl: string;
  account: string;
  name: string | null;
  snapshots: number;
  newest: string | null;
  profiles: string[];
}

export interface SnapshotRow {
  id: number;
  at: number;
  origin: string;
  complete: boolean;
}

export interface Item {
  id: number;
  kind: ItemKind;
  remoteId: number | null;
  alias: string | null;
  label: string | null;
  url: string | null;
  campaign: number | null;
}

/** Told each stored change: item, snapshot, totals (clicks null: the item was gone). */
export type CountVisitor = (itemId: number, snapshotId: number, clicks: number | null, uniqueClicks: number | null) => void;

/** Rows per multi-row INSERT, and items per read of their counts: well inside both databases' parameter limits. */
const BATCH = 500;
const ITEMS_PER_READ = 500;

export const DB_ENV = 'LINKCTL_DB';

/** The history database: `--db`, else LINKCTL_DB, else history.db in linkctl's state folder. */
export function historyTarget(env: Record<string, string | undefined>, given?: string): string {
  if (given !== undefined && given.trim() === '') throw new UsageError('--db must name a file or a postgres:// URL', 'e.g. --db history.db, or --db postgres://linkctl@db.example.com/marketing; leave it out for history.db in the state folder');
  return given ?? (env[DB_ENV] || join(stateDir(env), 'history.db'));
}

export interface OpenOptions {
  /** `--db`: a file or a postgres:// URL. */
  db?: string;
  /** Create the database when it does not exist (writers); readers say there is no history yet. */
  create?: boolean;
}

export async function openHistory(ctx: { env: Record<string, string | undefined> }, options: OpenOptions = {}): Promise<History> {
  const target = historyTarget(ctx.env, options.db);
  const where = describeTarget(target);
  let db: Db;
  if (isPostgres(target)) {
    db = await (await import('./postgres.js')).openPostgres(target, where, Boolean(options.create));
  } else {
    const { existsSync } = await import('node:fs');
    if (!options.create && !existsSync(target)) {
      throw new ConfigError(`no click history yet: ${where} does not exist`, 'run `linkctl stats snapshot` first (and again later: history is the differences between snapshots)');
    }
    db = await (await import('./sqlite.js')).openSqlite(target, Boolean(options.create));
  }
  const history = new History(db, () => now(ctx.env));
  try {
    await history.migrate();
  } catch (error) {
    await db.close();
    throw error;
  }
  return history;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const sameNumber = (a: number | null | undefined, b: number | null | undefined) => (a ?? null) === (b ?? null);
const placeholders = (rows: number, columns: number) => Array.from({ length: rows }, () => `(${Array(columns).fill('?').join(', ')})`).join(', ');

export class History {
  constructor(
    readonly db: Db,
    private readonly clock: () => number,
  ) {}

  /** Applies the migrations this linkctl knows (schema.ts); returns the versions applied now. */
  migrate(): Promise<number[]> {
    return migrate(this.db, MIGRATIONS);
  }

  close(): Promise<void> {
    return this.db.close();
  }

  /** The source's row id, created on first use. Inside a write transaction (link health keys its runs on it too). */
  async sourceId(source: SourceRef): Promise<number> {
    await this.db.run('INSERT INTO sources (base_url, account, name) VALUES (?, ?, ?) ON CONFLICT (base_url, account) DO NOTHING', [source.baseUrl, source.account, source.name ?? null]);
    const [row] = await this.db.all('SELECT id, name FROM sources WHERE base_url = ? AND account = ?', [source.baseUrl, source.account]);
    if (source.name !== undefined && row![1] !== source.name) await this.db.run('UPDATE sources SET name = ? WHERE id = ?', [source.name, row![0]]);
    return Number(row![0]);
  }

  /**
   * Records one snapshot, in one write transaction (another snapshot at the same time waits for
   * it, then compares against it). Snapshots of a source are kept in time order: one dated
   * before the source's newest is refused.
   */
  async snapshot(input: SnapshotInput): Promise<SnapshotResult> {
    try {
      return await this.write(input);
    } catch (error) {
      if (error instanceof RolledBack) return error.result;
      throw error;
    }
  }

  private write(input: SnapshotInput): Promise<SnapshotResult> {
    const origin = input.origin ?? 'api';
    if (origin !== 'api' && !/^import:[a-z0-9-]+$/.test(origin)) throw new Error(`internal: snapshot origin "${origin}" is neither api nor import:<tool>`);
    const complete = input.complete ?? origin === 'api';
    const kinds = new Set(input.kinds ?? ITEM_KINDS);
    return this.db.write(async () => {
      const sourceId = await this.sourceId(input.source);
      const at = input.at ?? this.clock();
      const [[newest]] = (await this.db.all('SELECT max(taken_at) FROM snapshots WHERE source_id = ?', [sourceId])) as [[string | null]];
      if (newest && iso(at) < newest) {
        throw new UsageError(`a snapshot at ${iso(at)} would come before the newest one of this account (${newest}): snapshots are recorded in time order`, 'check the clock (and LINKCTL_NOW, which tests and demos set)');
      }

      const items = await this.items(sourceId);
      const byRemote = new Map<string, Item>();
      const byAlias = new Map<string, Item[]>();
      for (const item of items) {
        if (item.remoteId !== null) byRemote.set(`${item.kind}:${item.remoteId}`, item);
        if (item.alias !== null) byAlias.set(`${item.kind}:${item.alias}`, [...(byAlias.get(`${item.kind}:${item.alias}`) ?? []), item]);
      }
      const latest = await this.latestCounts(sourceId);

      const [[snapshotId]] = (await this.db.all(
        'INSERT INTO snapshots (source_id, taken_at, profile, origin, complete, links, qrs, campaigns, changed) VALUES (?, ?, ?, ?, ?, 0, 0, 0, 0) RETURNING id',
        [sourceId, iso(at), input.profile ?? null, origin, complete ? 1 : 0],
      )) as [[number]];

      // Each record matched to its item: by the server's id; an imported item (no id yet) by alias.
      const seen = new Set<number>();
      const fresh: HistoryRecord[] = [];
      const matched: Array<[Item, HistoryRecord]> = [];
      const counted = { link: 0, qr: 0, campaign: 0 };
      const keys = new Set<string>();
      for (const record of input.records) {
        const key = record.id !== undefined ? `${record.kind}:${record.id}` : `${record.kind}:alias:${record.alias}`;
        if (keys.has(key)) continue; // a server that lists a record twice (pages shifting under a reader) counts it once
        keys.add(key);
        counted[record.kind]++;
        let item = record.id !== undefined ? byRemote.get(`${record.kind}:${record.id}`) : undefined;
        if (!item && record.alias !== undefined) {
          const candidates = byAlias.get(`${record.kind}:${record.alias}`) ?? [];
          item = record.id !== undefined ? candidates.find((c) => c.remoteId === null) : candidates.find((c) => latest.get(c.id)?.clicks !== null);
          if (item && record.id !== undefined) {
            await this.db.run('UPDATE items SET remote_id = ? WHERE id = ?', [record.id, item.id]);
            item.remoteId = record.id;
          }
        }
        if (item) matched.push([item, record]);
        else fresh.push(record);
      }

      for (let i = 0; i < fresh.length; i += BATCH) {
        const batch = fresh.slice(i, i + BATCH);
        const rows = await this.db.all(
          `INSERT INTO items (source_id, kind, remote_id, alias, label, url, campaign) VALUES ${placeholders(batch.length, 7)} RETURNING id, kind, remote_id, alias`,
          batch.flatMap((r) => [sourceId, r.kind, r.id ?? null, r.alias ?? null, r.label ?? null, r.url ?? null, r.campaign ?? null]),
        );
        // RETURNING's order is not promised: matched back by the key each record is unique by.
        const ids = new Map(rows.map((r) => [r[2] === null ? `${r[1]}:alias:${r[3]}` : `${r[1]}:${Number(r[2])}`, Number(r[0])]));
        for (const record of batch) {
          const id = ids.get(record.id !== undefined ? `${record.kind}:${record.id}` : `${record.kind}:alias:${record.alias}`)!;
          matched.push([{ id, kind: record.kind, remoteId: record.id ?? null, alias: record.alias ?? null, label: record.label ?? null, url: record.url ?? null, campaign: record.campaign ?? null }, record]);
        }
      }

      const changes: Array<[number, number | null, number | null]> = [];
      for (const [item, record] of matched) {
        seen.add(item.id);
        const renamed = (record.alias !== undefined && record.alias !== item.alias) || (record.label !== undefined && record.label !== item.label)
          || (record.url !== undefined && record.url !== item.url) || (record.campaign !== undefined && !sameNumber(record.campaign, item.campaign));
        if (renamed) {
          await this.db.run('UPDATE items SET alias = ?, label = ?, url = ?, campaign = ? WHERE id = ?', [
            record.alias ?? item.alias, record.label ?? item.label, record.url ?? item.url, record.campaign === undefined ? item.campaign : record.campaign, item.id]);
        }
        const before = latest.get(item.id);
        const unique = record.uniqueClicks ?? null;
        if (!before || before.clicks !== record.clicks || before.unique !== unique || before.origin !== origin) changes.push([item.id, record.clicks, unique]);
      }
      let gone = 0;
      if (complete) {
        for (const item of items) {
          if (!kinds.has(item.kind) || seen.has(item.id)) continue;
          const before = latest.get(item.id);
          if (before && before.clicks !== null) {
            changes.push([item.id, null, null]);
            gone++;
          }
        }
      }
      for (let i = 0; i < changes.length; i += BATCH) {
        const batch = changes.slice(i, i + BATCH);
        await this.db.run(`INSERT INTO counts (item_id, snapshot_id, clicks, unique_clicks) VALUES ${placeholders(batch.length, 4)}`, batch.flatMap(([item, clicks, unique]) => [item, snapshotId, clicks, unique]));
      }

      let details = 0;
      for (const [item, record] of matched) {
        if (!record.details) continue;
        details++;
        await this.recordDetails(item.id, snapshotId, record.details);
      }

      await this.db.run('UPDATE snapshots SET links = ?, qrs = ?, campaigns = ?, changed = ? WHERE id = ?', [counted.link, counted.qr, counted.campaign, changes.length, snapshotId]);
      const result = { snapshot: snapshotId, takenAt: iso(at), links: counted.link, qrs: counted.qr, campaigns: counted.campaign, changed: changes.length, gone, details, first: newest === null };
      if (input.dryRun) throw new RolledBack(result);
      return result;
    });
  }

  /** Every item's latest stored totals, with the origin of the snapshot that stored them. */
  private async latestCounts(sourceId: number): Promise<Map<number, { clicks: number | null; unique: number | null; origin: string }>> {
    // One index seek per item (the last row of its primary-key range): the cost does not grow with the history.
    const rows = await this.db.all(
      `SELECT i.id, c.clicks, c.unique_clicks, s.origin FROM items i
       JOIN counts c ON c.item_id = i.id AND c.snapshot_id = (SELECT max(c2.snapshot_id) FROM counts c2 WHERE c2.item_id = i.id)
       JOIN snapshots s ON s.id = c.snapshot_id
       WHERE i.source_id = ?`,
      [sourceId],
    );
    return new Map(rows.map((r) => [Number(r[0]), { clicks: num(r[1]), unique: num(r[2]), origin: String(r[3]) }]));
  }

  /** A link's top-* statistics at a snapshot: stored when they differ from its previous read. */
  private async recordDetails(itemId: number, snapshotId: number, details: Details): Promise<void> {
    const flat = DIMENSIONS.flatMap((d) => Object.entries(details[d] ?? {}).map(([name, count]): [Dimension, string, number] => [d, name, count]));
    const previous = await this.detailsAt(itemId, snapshotId);
    const same = previous !== undefined && previous.length === flat.length && flat.every(([d, name, count]) => previous.some((p) => p[0] === d && p[1] === name && p[2] === count));
    await this.db.run('INSERT INTO detail_reads (item_id, snapshot_id, changed) VALUES (?, ?, ?)', [itemId, snapshotId, same ? 0 : 1]);
    if (same) return;
    for (let i = 0; i < flat.length; i += BATCH) {
      const batch = flat.slice(i, i + BATCH);
      await this.db.run(`INSERT INTO detail_counts (item_id, snapshot_id, dimension, name, count) VALUES ${placeholders(batch.length, 5)}`, batch.flatMap(([d, name, count]) => [itemId, snapshotId, d, name, count]));
    }
  }

  /** An item's details as of its latest changed read before `beforeSnapshot`; undefined when never read. */
  private async detailsAt(itemId: number, beforeSnapshot: number): Promise<Array<[Dimension, string, number]> | undefined> {
    const [[last]] = (await this.db.all('SELECT max(snapshot_id) FROM detail_reads WHERE item_id = ? AND changed = 1 AND snapshot_id < ?', [itemId, beforeSnapshot])) as [[number | null]];
    if (last === null) return undefined;
    return (await this.db.all('SELECT dimension, name, count FROM detail_counts WHERE item_id = ? AND snapshot_id = ?', [itemId, last])).map((r) => [r[0] as Dimension, String(r[1]), Number(r[2])]);
  }

  /** For each snapshot that read an item's details: its counts of one dimension at that snapshot, by name. */
  async detailHistory(itemId: number, dimension: Dimension): Promise<Map<number, Map<string, number>>> {
    const reads = await this.db.all('SELECT snapshot_id, changed FROM detail_reads WHERE item_id = ? ORDER BY snapshot_id', [itemId]);
    const rows = await this.db.all('SELECT snapshot_id, name, count FROM detail_counts WHERE item_id = ? AND dimension = ?', [itemId, dimension]);
    const stored = new Map<number, Map<string, number>>();
    for (const [snapshot, name, count] of rows) {
      const at = Number(snapshot);
      if (!stored.has(at)) stored.set(at, new Map());
      stored.get(at)!.set(String(name), Number(count));
    }
    const out = new Map<number, Map<string, number>>();
    let current = new Map<string, number>();
    for (const [snapshot, changed] of reads) {
      if (Number(changed) === 1) current = stored.get(Number(snapshot)) ?? new Map();
      out.set(Number(snapshot), current);
    }
    return out;
  }

  async sources(): Promise<Source[]> {
    const rows = await this.db.all(
      `SELECT src.id, src.base_url, src.account, src.name, count(s.id), max(s.taken_at)
       FROM sources src LEFT JOIN snapshots s ON s.source_id = src.id GROUP BY src.id, src.base_url, src.account, src.name ORDER BY src.id`,
    );
    const profiles = await this.db.all('SELECT DISTINCT source_id, profile FROM snapshots WHERE profile IS NOT NULL ORDER BY source_id, profile');
    return rows.map((r) => ({
      id: Number(r[0]),
      baseUrl: String(r[1]),
      account: String(r[2]),
      name: str(r[3]),
      snapshots: Number(r[4]),
      newest: str(r[5]),
      profiles: profiles.filter((p) => Number(p[0]) === Number(r[0])).map((p) => String(p[1])),
    }));
  }

  /** A source's snapshots in time order (ids grow with time within a source). */
  async snapshots(sourceId: number): Promise<SnapshotRow[]> {
    const rows = await this.db.all('SELECT id, taken_at, origin, complete FROM snapshots WHERE source_id = ? ORDER BY id', [sourceId]);
    return rows.map((r) => ({ id: Number(r[0]), at: Date.parse(String(r[1])), origin: String(r[2]), complete: Number(r[3]) === 1 }));
  }

  async items(sourceId: number, kind?: ItemKind): Promise<Item[]> {
    const rows = await this.db.all(`SELECT id, kind, remote_id, alias, label, url, campaign FROM items WHERE source_id = ?${kind ? ' AND kind = ?' : ''} ORDER BY id`, kind ? [sourceId, kind] : [sourceId]);
    return rows.map((r) => ({ id: Number(r[0]), kind: r[1] as ItemKind, remoteId: num(r[2]), alias: str(r[3]), label: str(r[4]), url: str(r[5]), campaign: num(r[6]) }));
  }

  /**
   * Every stored change of `itemIds`, in item and snapshot order, handed to `each` one by one.
   * A query reads ITEMS_PER_READ items (primary-key seeks: the work is the rows read), their
   * changes packed into one text per item: a year of a big account is hundreds of thousands of
   * changes, and one row per item is a third of the cost of one row per change.
   */
  async forEachCount(itemIds: readonly number[], each: CountVisitor): Promise<void> {
    const sorted = [...itemIds].sort((a, b) => a - b);
    const concat = this.db.dialect === 'sqlite' ? 'group_concat' : 'string_agg';
    const change = "CAST(snapshot_id AS TEXT) || ',' || coalesce(CAST(clicks AS TEXT), '') || ',' || coalesce(CAST(unique_clicks AS TEXT), '')";
    for (let i = 0; i < sorted.length; i += ITEMS_PER_READ) {
      const chunk = sorted.slice(i, i + ITEMS_PER_READ);
      const rows = await this.db.all(
        `SELECT item_id, ${concat}(${change}, ';' ORDER BY snapshot_id) FROM counts WHERE item_id IN (${chunk.map(() => '?').join(', ')}) GROUP BY item_id ORDER BY item_id`,
        chunk,
      );
      for (const [item, packed] of rows) unpack(Number(item), String(packed), each);
    }
  }
}

/**
 * `snapshot,clicks,unique;snapshot,clicks,unique;...` (an empty field is null) to `each`, read
 * character by character: no strings made for hundreds of thousands of numbers.
 */
function unpack(item: number, packed: string, each: CountVisitor): void {
  const fields: Array<number | null> = [null, null, null];
  let field = 0;
  let value = 0;
  let digits = false;
  for (let i = 0; i <= packed.length; i++) {
    const c = i < packed.length ? packed.charCodeAt(i) : 59; // the end closes the last change
    if (c >= 48 && c <= 57) {
      value = value * 10 + (c - 48);
      digits = true;
      continue;
    }
    fields[field] = digits ? value : null;
    value = 0;
    digits = false;
    if (c === 44) field++; // ','
    else if (c === 59) { // ';'
      each(item, fields[0]!, fields[1]!, fields[2]!);
      field = 0;
    } else throw new Error(`internal: unexpected character in packed counts of item ${item}`);
  }
}
