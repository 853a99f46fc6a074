/**
 * Where `check` keeps its results between runs, so that `--since-last` can say what broke and
 * what was fixed: two tables of the click-history database (migrations 20 and 21 in
 * src/history/schema.ts), so the same SQLite file or PostgreSQL database (`--db`, LINKCTL_DB)
 * holds both, and CI keeps one. Runs are kept per source (server and account, as snapshots
 * are), the latest KEEP_RUNS of each.
 */
import type { History, SourceRef } from '../history/store.js';
import { storableText } from '../history/values.js';
import type { CheckRecord } from './record.js';
import type { Status } from './statuses.js';

/** Runs kept per account: enough history to look back on, small enough that a daily cron stays small. */
export const KEEP_RUNS = 30;
/** Result rows per INSERT: 14 parameters each, well inside both databases' limits. */
const BATCH = 200;

/** A result as kept: what the run printed of it, by its subject (the link or QR code and target it is about). */
export type StoredResult = Pick<CheckRecord, 'link' | 'qr' | 'target' | 'destination' | 'status' | 'flags' | 'code' | 'chain' | 'error' | 'findings' | 'checkedAt'> & { subject: string };

export interface RunInfo {
  startedAt: string;
  finishedAt: string;
  profile?: string;
  options: Record<string, unknown>;
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
/** Text a server or a destination page gave (a destination, a target, an error) as both databases store it: NUL and lone surrogates as U+FFFD. */
const storable = (v: string | null): string | null => (v === null ? null : storableText(v).text);

export class CheckStore {
  constructor(readonly history: History) {}

  /**
   * Opens (or creates) the history database and brings it to this linkctl's schema. A file or
   * database that is not linkctl's, or a damaged one, is an error naming it (exit 7), nothing
   * written: `check` opens it before sending anything.
   */
  static async open(ctx: { env: Record<string, string | undefined> }, db?: string): Promise<CheckStore> {
    const { openHistory } = await import('../history/store.js');
    return new CheckStore(await openHistory(ctx, { db, create: true }));
  }

  /** The database, as messages name it. */
  get where(): string {
    return this.history.db.where;
  }

  /** The results of the latest run for the source, by subject; undefined when it has none. */
  previousRun(source: SourceRef): Promise<{ finishedAt: string; results: Map<string, StoredResult> } | undefined> {
    const { db } = this.history;
    return db.read(async () => {
      const [run] = await db.all(
        `SELECT r.id, r.finished_at FROM check_runs r JOIN sources s ON s.id = r.source_id
         WHERE s.base_url = ? AND s.account = ? ORDER BY r.id DESC LIMIT 1`,
        [source.baseUrl, source.account],
      );
      if (!run) return undefined;
      const rows = await db.all('SELECT subject, link, qr, target, destination, status, flags, code, chain, error, findings, checked_at FROM check_results WHERE run_id = ? ORDER BY seq', [run[0]]);
      const results = new Map<string, StoredResult>();
      for (const [subject, link, qr, target, destination, status, flags, code, chain, error, findings, checkedAt] of rows) {
        results.set(String(subject), {
          subject: String(subject),
          link: num(link),
          qr: num(qr),
          target: str(target),
          destination: String(destination),
          status: String(status) as Status,
          flags: parseJson(flags, []),
          code: num(code),
          chain: parseJson(chain, []),
          error: str(error),
          findings: parseJson(findings, []),
          checkedAt: String(checkedAt),
        });
      }
      return { finishedAt: String(run[1]), results };
    });
  }

  /** Saves one run in one write transaction, and forgets the source's runs beyond the latest KEEP_RUNS. Returns the run's id. */
  saveRun(source: SourceRef, run: RunInfo, results: readonly StoredResult[]): Promise<number> {
    const { db } = this.history;
    return db.write(async () => {
      const sourceId = await this.history.sourceId(source);
      const [[runId]] = (await db.all(
        'INSERT INTO check_runs (source_id, started_at, finished_at, profile, options) VALUES (?, ?, ?, ?, ?) RETURNING id',
        [sourceId, run.startedAt, run.finishedAt, run.profile ?? null, JSON.stringify(run.options)],
      )) as [[number]];
      for (let i = 0; i < results.length; i += BATCH) {
        const batch = results.slice(i, i + BATCH);
        await db.run(
          `INSERT INTO check_results (run_id, seq, subject, link, qr, target, destination, status, flags, code, chain, error, findings, checked_at) VALUES ${batch.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
          batch.flatMap((r, j) => [runId, i + j, storable(r.subject), r.link, r.qr, storable(r.target), storable(r.destination), r.status, JSON.stringify(r.flags), r.code, JSON.stringify(r.chain), storable(r.error), JSON.stringify(r.findings), r.checkedAt]),
        );
      }
      // The oldest run kept; everything of this source before it goes (results first: they point at their run).
      const [oldest] = await db.all('SELECT id FROM check_runs WHERE source_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?', [sourceId, KEEP_RUNS - 1]);
      if (oldest) {
        await db.run('DELETE FROM check_results WHERE run_id IN (SELECT id FROM check_runs WHERE source_id = ? AND id < ?)', [sourceId, oldest[0]]);
        await db.run('DELETE FROM check_runs WHERE source_id = ? AND id < ?', [sourceId, oldest[0]]);
      }
      return Number(runId);
    });
  }

  close(): Promise<void> {
    return this.history.close();
  }
}

function parseJson<T>(value: unknown, fallback: T): T {
  try {
    return typeof value === 'string' ? (JSON.parse(value) as T) : fallback;
  } catch {
    return fallback;
  }
}
