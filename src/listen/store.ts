/**
 * Where `linkctl listen` keeps events: the click-history database (the `events`,
 * `listen_runs` and `event_forwards` tables of migration 22), SQLite or PostgreSQL.
 *
 * An event is acknowledged (2xx) only after the transaction that stores it committed: SQLite
 * in WAL mode syncs its log at each commit, PostgreSQL syncs its WAL, so a `kill -9` (or a
 * power cut) after the 2xx keeps it. Posts that arrive together are stored in one transaction
 * (group commit): 50 senders wait for one sync, not 50. A batch the database refuses is stored
 * again one event at a time, so a post that cannot be stored fails alone (503) and no other.
 *
 * Each event names its link by short URL only; it is tied to the history's item for that link
 * (found by short URL, else alias), and an item is made for a link the history has not seen
 * (no server id yet: the next `stats snapshot` adopts it by alias, as it does an import's).
 */
import type { History, SourceRef } from '../history/store.js';
import type { ListenEvent } from './payload.js';

const COLUMNS = ['source_id', 'event_id', 'kind', 'at', 'received_at', 'item_id', 'short_url', 'alias', 'long_url', 'country', 'city', 'referrer', 'os', 'browser'];
/** With the journal: how long the history's inserts wait for others to share a commit. */
const GATHER_MS = 50;
/**
 * A link's item, by (source, short URL, source, alias): the short URL's item first, else the
 * alias's; of several, one the server knows (a remote id), then the oldest. Two lookups, each by
 * its index (items_by_url, items_by_alias): one `url = ? OR alias = ?` read every link item of
 * the account, for each link a run met first.
 */
export const ITEM_LOOKUP = `SELECT id FROM (
  SELECT id, remote_id, 0 AS pref FROM items WHERE source_id = ? AND kind = 'link' AND url = ?
  UNION ALL
  SELECT id, remote_id, 1 AS pref FROM items WHERE source_id = ? AND kind = 'link' AND alias = ?
) found ORDER BY pref, CASE WHEN remote_id IS NULL THEN 1 ELSE 0 END, id LIMIT 1`;
const INSERT = `INSERT INTO events (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')}) ON CONFLICT (event_id) DO NOTHING`;

export class EventStore {
  private readonly items = new Map<string, number>();
  private run = 0;
  private queue: Array<{ event: ListenEvent; done: (error?: unknown) => void }> = [];
  /** How long an event waits for others to be committed with (0: the next turn of the loop). */
  private gatherMs = 0;
  private writing: Promise<void> | undefined;
  /**
   * Every write of this store, one after another: the drivers let a write that starts inside
   * another's transaction join it, and an event that joined another's transaction would be
   * acknowledged before that transaction committed.
   */
  private last: Promise<unknown> = Promise.resolve();
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.last.then(fn);
    this.last = run.catch(() => undefined);
    return run;
  }
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.serial(() => this.history.db.write(fn));
  }

  /**
   * With listen's journal (journal.ts, SQLite only): the history's commits need not sync, since
   * the journal holds each event until `sync` says a synced commit covers it.
   */
  async journaled(): Promise<void> {
    await this.serial(() => this.history.db.exec('PRAGMA synchronous = NORMAL'));
    // no post waits for these commits now: gathered for a moment, a sustained trickle is a few
    // commits a second instead of one a post (fewer pages written, fewer checkpoints)
    this.gatherMs = GATHER_MS;
  }

  /**
   * A commit that syncs (marking the run alive): every commit before it is durable after it
   * (SQLite in WAL mode syncs the one log they all were appended to).
   */
  async sync(): Promise<void> {
    const { db } = this.history;
    const now = new Date(this.clock()).toISOString();
    await this.serial(async () => {
      await db.exec('PRAGMA synchronous = FULL');
      try {
        await db.write(() => db.run('UPDATE listen_runs SET alive_at = ? WHERE id = ?', [now, this.run]));
      } finally {
        await db.exec('PRAGMA synchronous = NORMAL');
      }
    });
  }

  private constructor(readonly history: History, readonly sourceId: number, private readonly clock: () => number) {}

  /** The source's row (made on first use) and a new run, started now. */
  static async open(history: History, source: SourceRef, clock: () => number = Date.now): Promise<EventStore> {
    const sourceId = await history.db.write(() => history.sourceId(source));
    const store = new EventStore(history, sourceId, clock);
    const now = new Date(clock()).toISOString();
    await history.db.write(async () => {
      await history.db.run('INSERT INTO listen_runs (source_id, started_at, alive_at) VALUES (?, ?, ?)', [sourceId, now, now]);
      const [row] = await history.db.all('SELECT max(id) FROM listen_runs WHERE source_id = ?', [sourceId]);
      store.run = Number(row![0]);
    });
    return store;
  }

  /** Resolves once `event` is committed (then, and only then, may the post be answered 2xx). */
  add(event: ListenEvent): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ event, done: (error) => (error ? reject(error) : resolve()) });
      // The drivers write synchronously: a drain started at once would commit each post alone
      // (a sync each). Started after the event loop's poll phase, it takes every post that
      // arrived meanwhile (those read while the last commit held the thread) in one commit.
      this.writing ??= new Promise<void>((next) => (this.gatherMs ? setTimeout(next, this.gatherMs) : setImmediate(next))).then(() => this.drain());
    });
  }

  /** Stores what queued meanwhile, one transaction per batch, until the queue is empty. */
  private async drain(): Promise<void> {
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0, 500);
        try {
          await this.write(batch.map((b) => b.event));
          for (const b of batch) b.done();
        } catch (error) {
          if (batch.length === 1) {
            batch[0]!.done(error);
            continue;
          }
          // Each event on its own terms: one the database refuses must not fail those committed
          // with it (they would get 503, and the product does not post again). The batch is
          // stored again one event a transaction; only the one that fails alone is refused.
          for (const b of batch) {
            try {
              await this.write([b.event]);
              b.done();
            } catch (alone) {
              b.done(alone);
            }
          }
        }
      }
    } finally {
      this.writing = undefined;
    }
  }

  private async write(events: readonly ListenEvent[]): Promise<void> {
    const made = new Map<string, number>();
    const { db } = this.history;
    await this.exclusive(async () => {
      // one prepared statement, run per event (the drivers cache it): cheaper than a statement per batch size
      for (const e of events) {
        const item = made.get(e.shortUrl) ?? this.items.get(e.shortUrl) ?? (await this.itemOf(e));
        made.set(e.shortUrl, item);
        await db.run(INSERT, [this.sourceId, e.id, e.type, e.at, e.receivedAt, item, e.shortUrl, e.alias, e.longUrl, e.country, e.city, e.referrer, e.os, e.browser]);
      }
      await db.run('UPDATE listen_runs SET alive_at = ? WHERE id = ?', [new Date(this.clock()).toISOString(), this.run]);
    });
    // only once committed: a rolled-back item id is no id
    for (const [url, id] of made) this.items.set(url, id);
  }

  private async itemOf(e: ListenEvent): Promise<number> {
    const { db } = this.history;
    const find = async () => {
      const [row] = await db.all(ITEM_LOOKUP, [this.sourceId, e.shortUrl, this.sourceId, e.alias]);
      return row ? Number(row[0]) : undefined;
    };
    const found = await find();
    if (found !== undefined) return found;
    await db.run("INSERT INTO items (source_id, kind, remote_id, alias, label, url, campaign) VALUES (?, 'link', NULL, ?, NULL, ?, NULL)", [this.sourceId, e.alias, e.shortUrl]);
    return (await find())!;
  }

  /** Marks the run alive now (a heartbeat while no post comes): the span stats counts events over. */
  async heartbeat(): Promise<void> {
    await this.exclusive(() => this.history.db.run('UPDATE listen_runs SET alive_at = ? WHERE id = ?', [new Date(this.clock()).toISOString(), this.run]));
  }

  /** How many events the history holds for the source. */
  async count(): Promise<number> {
    const [row] = await this.history.db.all('SELECT count(*) FROM events WHERE source_id = ?', [this.sourceId]);
    return Number(row![0]);
  }

  /** Waits for what is queued to be stored. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  // ---- the outbox of --forward-to: a cursor per target over events in arrival order ----

  /** The target's cursor; a target met for the first time starts after the newest stored event (it is sent what arrives from now on). */
  async cursor(target: string): Promise<number> {
    const { db } = this.history;
    return this.exclusive(async () => {
      const [row] = await db.all('SELECT delivered FROM event_forwards WHERE source_id = ? AND target = ?', [this.sourceId, target]);
      if (row) return Number(row[0]);
      const [max] = await db.all('SELECT coalesce(max(id), 0) FROM events WHERE source_id = ?', [this.sourceId]);
      const start = Number(max![0]);
      await db.run('INSERT INTO event_forwards (source_id, target, delivered) VALUES (?, ?, ?)', [this.sourceId, target, start]);
      return start;
    });
  }

  /** How many stored events `target` has not taken yet (0 for a target this history has not met). */
  async waitingFor(target: string): Promise<number> {
    const [row] = await this.history.db.all(
      'SELECT count(*) FROM events e, event_forwards f WHERE f.source_id = ? AND f.target = ? AND e.source_id = f.source_id AND e.id > f.delivered',
      [this.sourceId, target],
    );
    return Number(row?.[0] ?? 0);
  }

  async delivered(target: string, rowId: number): Promise<void> {
    await this.exclusive(() => this.history.db.run('UPDATE event_forwards SET delivered = ? WHERE source_id = ? AND target = ? AND delivered < ?', [rowId, this.sourceId, target, rowId]));
  }

  /** Events stored after row `after`, in arrival order. */
  async after(after: number, limit = 100): Promise<Array<{ rowId: number; event: ListenEvent }>> {
    const rows = await this.history.db.all(
      `SELECT id, event_id, kind, at, received_at, short_url, alias, long_url, country, city, referrer, os, browser FROM events WHERE source_id = ? AND id > ? ORDER BY id LIMIT ${limit}`,
      [this.sourceId, after],
    );
    const s = (v: unknown) => (v === null || v === undefined ? null : String(v));
    return rows.map((r) => ({
      rowId: Number(r[0]),
      event: { id: String(r[1]), type: String(r[2]) as ListenEvent['type'], at: String(r[3]), receivedAt: String(r[4]), shortUrl: String(r[5]), alias: s(r[6]), longUrl: s(r[7]), country: s(r[8]), city: s(r[9]), referrer: s(r[10]), os: s(r[11]), browser: s(r[12]) },
    }));
  }
}
