/**
 * Where `check` keeps its results between runs, so that `--since-last` can say what broke and
 * what was fixed: an SQLite file (`check.db` in linkctl's state folder) through libsql, whose
 * prebuilt binaries install from the npm registry alone. Two tables, a schema version in
 * `PRAGMA user_version`, and the latest KEEP_RUNS runs of each account.
 *
 * When the click-history database of issue 21 lands, these tables move into its migrations and
 * this file keeps only `saveRun` / `previousRun` on top of it.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError } from '../errors.js';
import type { Hop } from './probe.js';
import type { Status } from './statuses.js';

export const SCHEMA_VERSION = 1;
/** Runs kept per account: enough history to look back on, small enough that a daily cron stays small. */
export const KEEP_RUNS = 30;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS check_runs (
  id INTEGER PRIMARY KEY,
  account TEXT NOT NULL,          -- base URL and profile: whose links these are
  started_at TEXT NOT NULL,       -- ISO 8601, UTC
  finished_at TEXT NOT NULL,
  options TEXT NOT NULL           -- JSON: qr, details, expiring
);
CREATE INDEX IF NOT EXISTS check_runs_account ON check_runs (account, id);
CREATE TABLE IF NOT EXISTS check_results (
  run_id INTEGER NOT NULL REFERENCES check_runs (id) ON DELETE CASCADE,
  subject TEXT NOT NULL,          -- link:12, link:12 geo:canada, qr:3
  link INTEGER,
  qr INTEGER,
  target TEXT,
  destination TEXT NOT NULL,
  status TEXT NOT NULL,
  code INTEGER,
  chain TEXT NOT NULL,            -- JSON [{url, code}]
  error TEXT,
  findings TEXT NOT NULL,         -- JSON [{kind, detail}]
  checked_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS check_results_run ON check_results (run_id);
`;

export interface StoredResult {
  subject: string;
  link: number | null;
  qr: number | null;
  target: string | null;
  destination: string;
  status: Status;
  code: number | null;
  chain: Hop[];
  error: string | null;
  findings: Array<{ kind: string; detail: string }>;
  checkedAt: string;
}

export interface RunInfo {
  account: string;
  startedAt: string;
  finishedAt: string;
  options: Record<string, unknown>;
}

type Database = import('libsql').Database;

export class CheckStore {
  private constructor(private readonly db: Database, readonly file: string) {}

  /** Opens (or creates) the database file; a file that is not one of ours is an error naming it, and is left alone. */
  static async open(file: string): Promise<CheckStore> {
    const { default: Database } = await import('libsql');
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    let db: Database | undefined;
    try {
      db = new Database(file, { timeout: 5000 }); // another check writing: wait for it rather than fail
      db.exec('PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;');
      const version = Number((db.prepare('PRAGMA user_version').get() as { user_version?: unknown }).user_version ?? 0);
      if (version > SCHEMA_VERSION) throw new ConfigError(`${file} was written by a newer linkctl (schema ${version}; this one knows ${SCHEMA_VERSION})`, 'upgrade linkctl, or give this run another state folder');
      if (version === 0) {
        const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as Array<{ name: string }>;
        if (tables.some((t) => !t.name.startsWith('check_'))) throw new ConfigError(`${file} is another program's SQLite database; linkctl leaves it alone`, 'move it away, or give linkctl another state folder (LINKCTL_CONFIG_DIR)');
        db.exec(`BEGIN; ${SCHEMA} PRAGMA user_version = ${SCHEMA_VERSION}; COMMIT;`);
      }
      return new CheckStore(db, file);
    } catch (error) {
      db?.close();
      if (error instanceof ConfigError) throw error;
      const code = (error as { code?: string }).code;
      if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') throw new ConfigError(`${file} is not a linkctl check database (${code}); nothing was written to it`, 'move the file away and run the check again to start a new history');
      throw new ConfigError(`cannot open the check history ${file}: ${(error as Error).message}`);
    }
  }

  /** The results of the latest run for `account`, by subject; undefined when it has none. */
  previousRun(account: string): { finishedAt: string; results: Map<string, StoredResult> } | undefined {
    const run = this.db.prepare('SELECT id, finished_at FROM check_runs WHERE account = ? ORDER BY id DESC LIMIT 1').get(account) as { id: number; finished_at: string } | undefined;
    if (!run) return undefined;
    const rows = this.db.prepare('SELECT * FROM check_results WHERE run_id = ?').all(run.id) as Array<Record<string, unknown>>;
    const results = new Map<string, StoredResult>();
    for (const row of rows) {
      results.set(String(row.subject), {
        subject: String(row.subject),
        link: row.link === null ? null : Number(row.link),
        qr: row.qr === null ? null : Number(row.qr),
        target: row.target === null ? null : String(row.target),
        destination: String(row.destination),
        status: String(row.status) as Status,
        code: row.code === null ? null : Number(row.code),
        chain: parseJson(row.chain, []),
        error: row.error === null ? null : String(row.error),
        findings: parseJson(row.findings, []),
        checkedAt: String(row.checked_at),
      });
    }
    return { finishedAt: run.finished_at, results };
  }

  /** Saves one run in one transaction, and forgets runs of the account beyond the latest KEEP_RUNS. */
  saveRun(run: RunInfo, results: readonly StoredResult[]): void {
    const insertRun = this.db.prepare('INSERT INTO check_runs (account, started_at, finished_at, options) VALUES (?, ?, ?, ?)');
    const insertResult = this.db.prepare(
      'INSERT INTO check_results (run_id, subject, link, qr, target, destination, status, code, chain, error, findings, checked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const prune = this.db.prepare('DELETE FROM check_runs WHERE account = ? AND id NOT IN (SELECT id FROM check_runs WHERE account = ? ORDER BY id DESC LIMIT ?)');
    this.db.transaction(() => {
      const runId = insertRun.run(run.account, run.startedAt, run.finishedAt, JSON.stringify(run.options)).lastInsertRowid;
      for (const r of results) {
        insertResult.run(runId, r.subject, r.link, r.qr, r.target, r.destination, r.status, r.code, JSON.stringify(r.chain), r.error, JSON.stringify(r.findings), r.checkedAt);
      }
      prune.run(run.account, run.account, KEEP_RUNS);
    }).immediate();
  }

  close(): void {
    this.db.close();
  }
}

function parseJson<T>(value: unknown, fallback: T): T {
  try {
    return typeof value === 'string' ? (JSON.parse(value) as T) : fallback;
  } catch {
    return fallback;
  }
}
