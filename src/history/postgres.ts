/**
 * Click history in PostgreSQL (`--db postgres://user@host/db`), through `pg`: the same tables
 * as the SQLite file, in a schema of their own (`linkctl`), so that the database can be shared
 * with other applications and with BI tools. Writers serialise on a transaction-level advisory
 * lock, the equivalent of SQLite's BEGIN IMMEDIATE; readers use a repeatable-read snapshot.
 */
import { createRequire } from 'node:module';
import { ConfigError, NetworkError } from '../errors.js';
import { APPLICATION, foreign, NoHistoryError, type Db, type Row } from './db.js';

export const SCHEMA = 'linkctl';
/** One lock for every linkctl writer of this database (an arbitrary constant). */
const WRITE_LOCK = 72_671_021;
const CONNECT_TIMEOUT_MS = 10_000;

interface PgClient {
  connect(): Promise<void>;
  query(config: { text: string; values?: readonly unknown[]; rowMode?: 'array' }): Promise<{ rows: Row[]; rowCount: number | null }>;
  query(text: string): Promise<unknown>;
  setTypeParser(oid: number, parse: (value: string) => unknown): void;
  on(event: 'error', listener: (error: Error) => void): void;
  end(): Promise<void>;
  connection?: { stream?: { destroy(): void } };
}
type PgModule = { Client: new (config: object) => PgClient };

/** `?` placeholders (what the rest of linkctl writes) as PostgreSQL's `$1, $2, ...`. */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** pg's words when the server asked for a password and none was given (URL, PGPASSWORD or ~/.pgpass). */
const NO_PASSWORD = /client password must be a string|Password must be a string|no password was given/i;

function connectError(where: string, error: unknown): Error {
  const e = error as { code?: string; message?: string };
  const code = e.code ?? '';
  if (['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'ECONNRESET', 'EAI_AGAIN'].includes(code) || /timeout/i.test(e.message ?? '')) {
    return new NetworkError(`cannot reach the click-history database ${where} (${code || e.message})`, 'is the server running, and are host and port right?');
  }
  if (NO_PASSWORD.test(e.message ?? '')) {
    return new ConfigError(`cannot use the click-history database ${where}: the server asks for a password and none was given`, 'put it in PGPASSWORD (or ~/.pgpass, or in the URL as user:password@host)');
  }
  // 28P01 bad password, 28000 no such role / not allowed, 3D000 no such database, 42501 no privilege
  return new ConfigError(`cannot use the click-history database ${where}: ${e.message ?? code}`, 'check the user, password and database name in the URL (or PGPASSWORD), and the user\'s rights');
}

/**
 * `readOnly`: the session refuses every write (`default_transaction_read_only`), so a reader
 * (`stats show`) cannot change the database even by mistake.
 */
export async function openPostgres(url: string, where: string, create: boolean, readOnly = false): Promise<Db> {
  const { Client } = createRequire(import.meta.url)('pg') as PgModule;
  const client = new Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, application_name: 'linkctl', ...(readOnly ? { options: '-c default_transaction_read_only=on' } : {}) });
  // BIGINT and NUMERIC (sums) as numbers: clicks stay far below 2^53.
  client.setTypeParser(20, Number);
  client.setTypeParser(1700, Number);
  let broken: Error | undefined;
  client.on('error', (error) => (broken = error)); // a dropped connection: reported by the next query
  try {
    await client.connect();
  } catch (error) {
    // The socket may still be open (a server waiting for a password answers nothing for a
    // minute): closed now, so the process exits with the error at once.
    client.connection?.stream?.destroy();
    await client.end().catch(() => undefined);
    throw connectError(where, error);
  }
  const query = async (text: string, values: readonly unknown[] = []): Promise<{ rows: Row[]; rowCount: number | null }> => {
    if (broken) throw connectError(where, broken);
    try {
      return await client.query({ text: numbered(text), values, rowMode: 'array' });
    } catch (error) {
      if ((error as { code?: string }).code === undefined || broken) throw connectError(where, broken ?? error);
      throw error;
    }
  };
  let depth = 0;
  const transaction = async <T>(begin: string[], fn: () => Promise<T>): Promise<T> => {
    if (depth > 0) return fn();
    for (const statement of begin) await query(statement);
    depth++;
    try {
      const result = await fn();
      await query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      depth--;
    }
  };
  const db: Db = {
    dialect: 'postgres',
    where,
    all: async (sql, params) => (await query(sql, params)).rows,
    run: async (sql, params) => (await query(sql, params)).rowCount ?? 0,
    exec: async (sql) => {
      if (broken) throw connectError(where, broken);
      await client.query(sql);
    },
    write: (fn) => transaction(['BEGIN', `SELECT pg_advisory_xact_lock(${WRITE_LOCK})`], fn),
    read: (fn) => transaction(['BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'], fn),
    close: () => client.end().catch(() => undefined),
  };

  try {
    const [exists] = await db.all('SELECT count(*) FROM information_schema.schemata WHERE schema_name = ?', [SCHEMA]);
    if (Number(exists?.[0]) > 0) {
      const tables = (await db.all('SELECT table_name FROM information_schema.tables WHERE table_schema = ?', [SCHEMA])).map((r) => String(r[0]));
      if (tables.length > 0) {
        if (!tables.includes('meta')) throw foreign(where, `its schema "${SCHEMA}" holds other tables: ${tables.slice(0, 5).join(', ')}`);
        const app = await db.all(`SELECT value FROM ${SCHEMA}.meta WHERE key = 'application'`);
        if (app[0]?.[0] !== APPLICATION) throw foreign(where, `its table ${SCHEMA}.meta is of something else`);
      }
    } else if (!create) {
      throw new NoHistoryError(`no click history in ${where} yet (no schema "${SCHEMA}")`, 'run `linkctl stats snapshot --db <the same URL>` first');
    } else {
      // Two first snapshots at once may both get here: IF NOT EXISTS, under the writers' lock.
      await db.write(() => db.exec(`CREATE SCHEMA IF NOT EXISTS ${SCHEMA}`));
    }
    await db.exec(`SET search_path TO ${SCHEMA}`);
  } catch (error) {
    await db.close();
    throw error instanceof ConfigError || error instanceof NetworkError ? error : connectError(where, error);
  }
  return db;
}
