/**
 * Click history: the one owner of the history database. `openHistory()` opens (and migrates)
 * it; `snapshot()` records the totals of an account's records at a time, storing for each
 * record only what changed since its previous snapshot; the read functions hand the rows to
 * series.ts, which turns them into differences per period.
 *
 * Used by `linkctl stats` and, through the same API, by other features: link health adds its
 * tables to MIGRATIONS (schema.ts) and uses `history.db`; `import --with-clicks` records another
 * tool's totals with `snapshot({ origin: 'import:<tool>', complete: false, records })`, its
 * records keyed by alias (a later snapshot from the server adopts them by alias). Those totals
 * are a starting point for a link without a history; a link that has one from the server keeps
 * it, and the import's total is not stored (`kept` counts them).
 *
 * Writers open it with `create` (or `write`) and migrate it; readers (`stats show`, `top`,
 * `report`, the MCP tools) open it read-only and never migrate: an older database is read as it
 * is when it has the tables they read, else refused with a hint to run `linkctl stats migrate`.
 * Values from the server are checked on their way in (values.ts): a total that is no count is
 * refused for its record and said, a text a database cannot hold is made storable and said.
 */
import { join } from 'node:path';
import { stateDir } from '../config/paths.js';
import { UsageError } from '../errors.js';
import { describeTarget, isPostgres, NoHistoryError, parsePostgresUrl, type Db } from './db.js';
import { appliedVersions, checkReadable, migrate, MIGRATIONS, type Migration } from './schema.js';
import { iso, now } from './time.js';
import { countOf, Door } from './values.js';

export { NoHistoryError };

import { DIMENSIONS, ITEM_KINDS, type Dimension, type ItemKind } from './kinds.js';
import { CLOCK_SKEW_MS, type Details, type HistoryRecord, type SourceRef, type SnapshotInput, type SnapshotResult, type Source, type SnapshotRow, type Item, type CountVisitor } from './records.js';
import { thousands } from '../numbers.js';

export { CLOCK_SKEW_MS, type Details, type HistoryRecord, type SourceRef, type SnapshotInput, type SnapshotResult, type Source, type SnapshotRow, type Item, type CountVisitor };

export { DIMENSIONS, ITEM_KINDS, type Dimension, type ItemKind };

/** A record past the door: totals that are counts (clicks undefined: refused), texts storable. */
type Checked = Omit<HistoryRecord, 'clicks' | 'uniqueClicks' | 'details'> & {
  clicks: number | undefined;
  uniqueClicks: number | null;
  details?: Partial<Record<Dimension, Record<string, number>>>;
};

class RolledBackForget extends Error {
  constructor(readonly result: { moved: number; deleted: number; details: number }) {
    super('dry run');
  }
}

/** Carries a dry run's result out of its transaction, which it rolls back. */
class RolledBack extends Error {
  constructor(readonly result: SnapshotResult) {
    super('dry run');
  }
}

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
  /** Create the database when it does not exist (writers: a snapshot, check); implies `write`. */
  create?: boolean;
  /** Open it to write (and migrate it), without creating it (`stats forget`, `stats migrate`). */
  write?: boolean;
  /** Read-only, and without a reader's check of the schema (`stats migrate --dry-run` says what it lacks). */
  inspect?: boolean;
}

export async function openHistory(ctx: { env: Record<string, string | undefined> }, options: OpenOptions = {}): Promise<History> {
  const target = historyTarget(ctx.env, options.db);
  const where = describeTarget(target);
  const write = Boolean(options.create || options.write);
  let db: Db;
  if (isPostgres(target)) {
    if (!parsePostgresUrl(target)) {
      const named = options.db !== undefined ? '--db' : DB_ENV;
      throw new UsageError(`${named} is not a PostgreSQL URL that can be read (${where})`, 'e.g. postgres://db.example.com:5432/marketing, with the user and password in PGUSER and PGPASSWORD (or in the URL as user:password@host)');
    }
    db = await (await import('./postgres.js')).openPostgres(target, where, Boolean(options.create), !write);
  } else {
    const { existsSync } = await import('node:fs');
    if (!options.create && !existsSync(target)) {
      throw new NoHistoryError(`no click history yet: ${where} does not exist`, 'run `linkctl stats snapshot` first (and again later: history is the differences between snapshots)');
    }
    db = await (await import('./sqlite.js')).openSqlite(target, Boolean(options.create), !write);
  }
  const history = new History(db, () => now(ctx.env));
  try {
    if (write) history.appliedNow = await history.migrate();
    else if (!options.inspect) await checkReadable(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return history;
}

/** A span of time for people: minutes, hours or days, whichever reads best. */
export function duration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 120) return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.round(ms / 3_600_000);
  if (hours < 48) return `${hours} hours`;
  return `${thousands(Math.round(ms / 86_400_000))} days`;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const sameNumber = (a: number | null | undefined, b: number | null | undefined) => (a ?? null) === (b ?? null);
const placeholders = (rows: number, columns: number) => Array.from({ length: rows }, () => `(${Array(columns).fill('?').join(', ')})`).join(', ');

export class History {
  /** Stored values that are no counts, left out while reading (from a linkctl before the door checked them). */
  readonly bad = { values: 0 };

  constructor(
    readonly db: Db,
    private readonly clock: () => number,
  ) {}

  /** The versions the opening writer applied (`stats migrate` says them). */
  appliedNow: number[] = [];

  /** The migrations this linkctl knows that the database lacks. */
  async pendingMigrations(): Promise<Migration[]> {
    const applied = await appliedVersions(this.db);
    return MIGRATIONS.filter((m) => !applied.includes(m.version));
  }

  /** Applies the migrations this linkctl knows (schema.ts); returns the versions applied now. */
  migrate(): Promise<number[]> {
    return migrate(this.db, MIGRATIONS);
  }

  close(): Promise<void> {
    return this.db.close();
  }

  /**
   * The source's row id, created on first use. Inside a write transaction (link health keys its
   * runs on it too). The account's id and name come from the server: made storable (`door`
   * counts what was replaced).
   */
  async sourceId(source: SourceRef, door = new Door()): Promise<number> {
    const account = door.text(source.account);
    const name = door.text(source.name);
    await this.db.run('INSERT INTO sources (base_url, account, name) VALUES (?, ?, ?) ON CONFLICT (base_url, account) DO NOTHING', [source.baseUrl, account, name ?? null]);
    const [row] = await this.db.all('SELECT id, name FROM sources WHERE base_url = ? AND account = ?', [source.baseUrl, account]);
    if (name !== undefined && row![1] !== name) await this.db.run('UPDATE sources SET name = ? WHERE id = ?', [name, row![0]]);
    return Number(row![0]);
  }

  /**
   * Records one snapshot, in one write transaction (another snapshot at the same time waits for
   * it, then compares against it). Snapshots of a source are kept in the order their reads
   * finished: one dated before the source's newest, or later than a trusted clock allows, is
   * refused, and nothing of it is stored.
   */
  async snapshot(input: SnapshotInput): Promise<SnapshotResult> {
    try {
      return await this.write(input);
    } catch (error) {
      if (error instanceof RolledBack) return error.result;
      throw error;
    }
  }

  /** The source's newest snapshot (id and time), if it has one. */
  private async newest(sourceId: number): Promise<{ id: number; takenAt: string } | undefined> {
    const [row] = await this.db.all('SELECT id, taken_at FROM snapshots WHERE source_id = ? ORDER BY taken_at DESC, id DESC LIMIT 1', [sourceId]);
    return row ? { id: Number(row[0]), takenAt: String(row[1]) } : undefined;
  }

  private write(input: SnapshotInput): Promise<SnapshotResult> {
    const origin = input.origin ?? 'api';
    if (origin !== 'api' && !/^import:[a-z0-9-]+$/.test(origin)) throw new Error(`internal: snapshot origin "${origin}" is neither api nor import:<tool>`);
    const complete = input.complete ?? origin === 'api';
    const kinds = new Set(input.kinds ?? ITEM_KINDS);
    const at = input.at ?? this.clock();
    const notAfter = input.notAfter ?? Date.now() + CLOCK_SKEW_MS;
    if (at > notAfter) {
      throw new UsageError(
        `this snapshot would be dated ${iso(at)}, ${duration(at - (notAfter - CLOCK_SKEW_MS))} ahead of ${input.notAfterClock ?? "this machine's real clock"} (more than the ${CLOCK_SKEW_MS / 60_000} minutes of skew allowed); nothing was stored`,
        "set this machine's clock right (and LINKCTL_NOW, which only tests and demos set)",
      );
    }
    const door = new Door();
    return this.db.write(async () => {
      const sourceId = await this.sourceId(input.source, door);
      const newest = await this.newest(sourceId);
      if (newest && iso(at) < newest.takenAt) {
        const future = Date.parse(newest.takenAt) > Date.now() + CLOCK_SKEW_MS;
        throw new UsageError(
          future
            ? `snapshot ${newest.id} of this account is dated ${newest.takenAt}, in the future: snapshots are kept in time order, so this one (${iso(at)}) cannot come after it; nothing was stored`
            : `this snapshot's reads finished at ${iso(at)}, before those of snapshot ${newest.id} (${newest.takenAt}), stored meanwhile: snapshots are kept in the order their reads finished, so this one was not stored (snapshot ${newest.id} holds newer totals; nothing is lost)`,
          future ? `if its date is wrong, \`linkctl stats forget --snapshot ${newest.id}\` removes it` : 'check the clock (and LINKCTL_NOW, which tests and demos set) if no other linkctl was taking a snapshot',
        );
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
        [sourceId, iso(at), door.text(input.profile) ?? null, origin, complete ? 1 : 0],
      )) as [[number]];

      // Each record checked at the door (values.ts), then matched to its item: by the server's
      // id; an imported item (no id yet) by alias.
      const seen = new Set<number>();
      const fresh: Checked[] = [];
      const matched: Array<[Item, Checked]> = [];
      const counted = { link: 0, qr: 0, campaign: 0 };
      const keys = new Set<string>();
      for (const raw of input.records) {
        const record = this.check(raw, door);
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
      let kept = 0;
      for (const [item, record] of matched) {
        seen.add(item.id);
        const renamed = (record.alias !== undefined && record.alias !== item.alias) || (record.label !== undefined && record.label !== item.label)
          || (record.url !== undefined && record.url !== item.url) || (record.campaign !== undefined && !sameNumber(record.campaign, item.campaign));
        if (renamed) {
          await this.db.run('UPDATE items SET alias = ?, label = ?, url = ?, campaign = ? WHERE id = ?', [
            record.alias ?? item.alias, record.label ?? item.label, record.url ?? item.url, record.campaign === undefined ? item.campaign : record.campaign, item.id]);
        }
        if (record.clicks === undefined) continue; // refused at the door: the previous totals stand
        const before = latest.get(item.id);
        if (origin !== 'api' && before && before.origin === 'api') {
          kept++; // another tool's total is a start for a link without a history; one with a history keeps its own
          continue;
        }
        const unique = record.uniqueClicks;
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
      const result: SnapshotResult = {
        snapshot: snapshotId, takenAt: iso(at), links: counted.link, qrs: counted.qr, campaigns: counted.campaign, changed: changes.length, gone, details, first: newest === undefined,
        kept, refused: door.refusedRecords, refusedDetails: door.refusedDetails, cleanedTexts: door.cleanedTexts, refusedExamples: door.examples,
      };
      if (input.dryRun) throw new RolledBack(result);
      return result;
    });
  }

  /**
   * A record as it may be stored: its totals counts (else `clicks` undefined: refused, said in
   * the summary), its texts storable, its details' counts counts (a name whose count is not one
   * is left out, and said).
   */
  private check(record: HistoryRecord, door: Door): Checked {
    const what = `${record.kind === 'qr' ? 'QR code' : record.kind} ${record.id ?? record.alias ?? '?'}`;
    let clicks = countOf(record.clicks);
    const rawUnique = record.uniqueClicks;
    const unique = rawUnique === undefined || rawUnique === null ? null : countOf(rawUnique);
    // A total the server does not send at all (campaign views on servers that keep none) is no
    // total: nothing to store, nothing to say. One it sends that is no count is refused, and said.
    if (record.clicks === undefined) clicks = undefined;
    else if (clicks === undefined) door.refuse(`${what} ${record.kind === 'qr' ? 'scans' : record.kind === 'campaign' ? 'views' : 'clicks'}`, record.clicks);
    else if (unique === undefined) {
      door.refuse(`${what} unique clicks`, rawUnique);
      clicks = undefined;
    }
    let details: Checked['details'];
    if (record.details) {
      details = {};
      for (const dimension of DIMENSIONS) {
        const names = record.details[dimension];
        if (!names) continue;
        const kept: Record<string, number> = {};
        for (const [name, raw] of Object.entries(names)) {
          const count = countOf(raw);
          if (count === undefined) door.refuse(`${what} ${dimension} "${name.slice(0, 30)}"`, raw, true);
          else kept[door.text(name)] = count;
        }
        details[dimension] = kept;
      }
    }
    return {
      kind: record.kind, id: record.id, alias: door.text(record.alias), label: door.text(record.label), url: door.text(record.url), campaign: record.campaign,
      clicks, uniqueClicks: unique ?? null, details,
    };
  }

  /** One snapshot with its source, for `stats forget` to name before removing it. */
  async snapshotInfo(id: number): Promise<{ id: number; sourceId: number; baseUrl: string; account: string; name: string | null; takenAt: string; origin: string; rows: number } | undefined> {
    const [row] = await this.db.all(
      `SELECT s.id, s.source_id, src.base_url, src.account, src.name, s.taken_at, s.origin, (SELECT count(*) FROM counts c WHERE c.snapshot_id = s.id)
       FROM snapshots s JOIN sources src ON src.id = s.source_id WHERE s.id = ?`,
      [id],
    );
    if (!row) return undefined;
    return { id: Number(row[0]), sourceId: Number(row[1]), baseUrl: String(row[2]), account: String(row[3]), name: str(row[4]), takenAt: String(row[5]), origin: String(row[6]), rows: Number(row[7]) };
  }

  /**
   * Removes one snapshot (`stats forget --snapshot ID`): a bad one, dated in the future by a
   * machine whose clock was wrong, say. Its rows are totals kept only where they changed, so
   * the next snapshot of the account, which stored nothing for a record that had not changed
   * since, would read the total of the one before: such a row moves to the next snapshot, and
   * likewise a `--details` read the next one refers to. The rest of it is deleted. Returns what
   * moved and what went.
   */
  async forget(id: number, dryRun = false): Promise<{ moved: number; deleted: number; details: number }> {
    const run = async () => {
      const info = await this.snapshotInfo(id);
      if (!info) throw new Error(`internal: snapshot ${id} vanished`);
      const [next] = await this.db.all('SELECT id FROM snapshots WHERE source_id = ? AND id > ? ORDER BY id LIMIT 1', [info.sourceId, id]);
      const nextId = next ? Number(next[0]) : undefined;
      let moved = 0;
      let deleted = 0;
      if (nextId !== undefined) {
        moved = await this.db.run('UPDATE counts SET snapshot_id = ? WHERE snapshot_id = ? AND item_id NOT IN (SELECT item_id FROM counts WHERE snapshot_id = ?)', [nextId, id, nextId]);
      }
      deleted = await this.db.run('DELETE FROM counts WHERE snapshot_id = ?', [id]);
      // A read of details that changed nothing refers to the item's previous changed read: if that is this one, the next read takes its counts.
      const reads = await this.db.all('SELECT item_id FROM detail_reads WHERE snapshot_id = ? AND changed = 1', [id]);
      for (const [item] of reads) {
        const [after] = await this.db.all('SELECT snapshot_id, changed FROM detail_reads WHERE item_id = ? AND snapshot_id > ? ORDER BY snapshot_id LIMIT 1', [item, id]);
        if (after && Number(after[1]) === 0) {
          await this.db.run('UPDATE detail_counts SET snapshot_id = ? WHERE item_id = ? AND snapshot_id = ?', [after[0], item, id]);
          await this.db.run('UPDATE detail_reads SET changed = 1 WHERE item_id = ? AND snapshot_id = ?', [item, after[0]]);
        }
      }
      await this.db.run('DELETE FROM detail_counts WHERE snapshot_id = ?', [id]);
      const details = await this.db.run('DELETE FROM detail_reads WHERE snapshot_id = ?', [id]);
      await this.db.run('DELETE FROM snapshots WHERE id = ?', [id]);
      return { moved, deleted, details };
    };
    if (!dryRun) return this.db.write(run);
    try {
      return await this.db.write(async () => {
        throw new RolledBackForget(await run());
      });
    } catch (error) {
      if (error instanceof RolledBackForget) return error.result;
      throw error;
    }
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
  private async recordDetails(itemId: number, snapshotId: number, details: NonNullable<Checked['details']>): Promise<void> {
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
    return (await this.detailHistories([itemId], [dimension])).get(itemId)?.get(dimension) ?? new Map();
  }

  /**
   * `detailHistory` of many items and dimensions at once: two queries per ITEMS_PER_READ items
   * (the report reads the details of every link that has them; one query each would be hundreds).
   */
  async detailHistories(itemIds: readonly number[], dimensions: readonly Dimension[]): Promise<Map<number, Map<Dimension, Map<number, Map<string, number>>>>> {
    const out = new Map<number, Map<Dimension, Map<number, Map<string, number>>>>();
    const wanted = new Set<string>(dimensions);
    for (let i = 0; i < itemIds.length; i += ITEMS_PER_READ) {
      const chunk = itemIds.slice(i, i + ITEMS_PER_READ);
      const marks = chunk.map(() => '?').join(', ');
      const stored = new Map<number, Map<number, Map<Dimension, Map<string, number>>>>(); // item -> snapshot -> dimension -> name -> count
      // One row per item and dimension, its counts packed `snapshot US count US name RS ...` (the
      // name last, so that it may hold anything but a record separator): a tenth of the rows.
      // (a character by its code: char() in SQLite, chr() in PostgreSQL, where char(31) is a type)
      const us = this.db.dialect === 'sqlite' ? 'char(31)' : 'chr(31)';
      const packed = `CAST(snapshot_id AS TEXT) || ${us} || CAST(count AS TEXT) || ${us} || name`;
      const concat = this.db.dialect === 'sqlite' ? `group_concat(${packed}, char(30))` : `string_agg(${packed}, chr(30))`;
      for (const [item, dimension, text] of await this.db.all(`SELECT item_id, dimension, ${concat} FROM detail_counts WHERE item_id IN (${marks}) GROUP BY item_id, dimension`, chunk)) {
        if (!wanted.has(String(dimension))) continue;
        const bySnapshot = stored.get(Number(item)) ?? stored.set(Number(item), new Map()).get(Number(item))!;
        for (const record of String(text).split('\x1e')) {
          const a = record.indexOf('\x1f');
          const b = record.indexOf('\x1f', a + 1);
          if (a < 0 || b < 0) continue; // a name that held a record separator: the rest of it is no record
          const snapshot = Number(record.slice(0, a));
          const byDimension = bySnapshot.get(snapshot) ?? bySnapshot.set(snapshot, new Map()).get(snapshot)!;
          const names = byDimension.get(dimension as Dimension) ?? byDimension.set(dimension as Dimension, new Map()).get(dimension as Dimension)!;
          names.set(record.slice(b + 1), Number(record.slice(a + 1, b)));
        }
      }
      let item = -1;
      let current = new Map<Dimension, Map<string, number>>();
      let perDimension = new Map<Dimension, Map<number, Map<string, number>>>();
      for (const [itemId, snapshot, changed] of await this.db.all(`SELECT item_id, snapshot_id, changed FROM detail_reads WHERE item_id IN (${marks}) ORDER BY item_id, snapshot_id`, chunk)) {
        if (Number(itemId) !== item) {
          item = Number(itemId);
          current = new Map();
          perDimension = new Map(dimensions.map((d) => [d, new Map()]));
          out.set(item, perDimension);
        }
        if (Number(changed) === 1) current = stored.get(item)?.get(Number(snapshot)) ?? new Map();
        for (const d of dimensions) perDimension.get(d)!.set(Number(snapshot), current.get(d) ?? new Map());
      }
    }
    return out;
  }

  /** The source's links whose `--details` were read at least twice (a change needs two reads). */
  async detailItems(sourceId: number): Promise<number[]> {
    const rows = await this.db.all('SELECT d.item_id FROM detail_reads d JOIN items i ON i.id = d.item_id WHERE i.source_id = ? GROUP BY d.item_id HAVING count(*) > 1 ORDER BY d.item_id', [sourceId]);
    return rows.map((r) => Number(r[0]));
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

  /** The ids of a source's items of `kind`, in id order: what reading their counts needs (no texts read, no objects made). */
  async itemIds(sourceId: number, kind: ItemKind): Promise<number[]> {
    return (await this.db.all('SELECT id FROM items WHERE source_id = ? AND kind = ? ORDER BY id', [sourceId, kind])).map((r) => Number(r[0]));
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
    const change = "CAST(snapshot_id AS TEXT) || ',' || coalesce(CAST(clicks AS TEXT), '') || ',' || coalesce(CAST(unique_clicks AS TEXT), '')";
    // SQLite walks an item's rows in its key's order (item, snapshot), so they come in snapshot
    // order without being asked; asking makes it sort them again (a third of the read: issue 52).
    // Either way `unpack` puts an item's changes in snapshot order if they are not.
    const aggregate = this.db.dialect === 'sqlite' ? `group_concat(${change}, ';')` : `string_agg(${change}, ';' ORDER BY snapshot_id)`;
    for (let i = 0; i < sorted.length; i += ITEMS_PER_READ) {
      const chunk = sorted.slice(i, i + ITEMS_PER_READ);
      const rows = await this.db.all(`SELECT item_id, ${aggregate} FROM counts WHERE item_id IN (${chunk.map(() => '?').join(', ')}) GROUP BY item_id ORDER BY item_id`, chunk);
      for (const [item, packed] of rows) unpack(Number(item), String(packed), each, this.bad);
    }
  }
}

/** One item's changes as `unpack` reads them, before they are handed on (kept from item to item). */
const changes = { snapshot: [] as number[], clicks: [] as Array<number | null>, unique: [] as Array<number | null> };

/**
 * `snapshot,clicks,unique;snapshot,clicks,unique;...` (an empty field is null) to `each`, in
 * snapshot order, read character by character: no strings made for hundreds of thousands of
 * numbers. A value that is no count (`-1`, `1.5`, `1e+300`: stored raw by a linkctl before values
 * were checked at the door) is left out as if never stored: its change is skipped (a unique count
 * becomes unknown), and counted in `bad`, so that the history stays readable and the reader can
 * say so.
 */
export function unpack(item: number, packed: string, each: CountVisitor, bad: { values: number }): void {
  const fields: Array<number | null> = [null, null, null];
  const { snapshot, clicks, unique } = changes;
  let n = 0;
  let ordered = true;
  let field = 0;
  let value = 0;
  let digits = false;
  let broken = false;
  let brokenClicks = false;
  for (let i = 0; i <= packed.length; i++) {
    const c = i < packed.length ? packed.charCodeAt(i) : 59; // the end closes the last change
    if (c >= 48 && c <= 57) {
      value = value * 10 + (c - 48);
      digits = true;
      continue;
    }
    if (c !== 44 && c !== 59) {
      broken = true; // a sign, a point, an exponent: this field is no count
      continue;
    }
    if (broken) {
      bad.values++;
      if (field <= 1) brokenClicks = true; // the snapshot id or the clicks: the change is unusable
    }
    fields[field] = digits && !broken ? value : null;
    value = 0;
    digits = false;
    broken = false;
    if (c === 44) field = Math.min(field + 1, 2); // ','
    else { // ';'
      if (!brokenClicks) {
        if (n > 0 && fields[0]! <= snapshot[n - 1]!) ordered = false;
        snapshot[n] = fields[0]!;
        clicks[n] = fields[1]!;
        unique[n] = fields[2]!;
        n++;
      }
      brokenClicks = false;
      field = 0;
    }
  }
  if (ordered) for (let k = 0; k < n; k++) each(item, snapshot[k]!, clicks[k]!, unique[k]!);
  else for (const k of Array.from({ length: n }, (_, k) => k).sort((a, b) => snapshot[a]! - snapshot[b]!)) each(item, snapshot[k]!, clicks[k]!, unique[k]!);
}
