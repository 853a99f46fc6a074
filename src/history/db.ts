/**
 * The database under click history, whichever it is: an SQLite file (libsql, the default) or
 * PostgreSQL (`--db postgres://...`). Everything above this file writes one SQL, with `?`
 * placeholders, and reads rows as arrays; the two drivers (sqlite.ts, postgres.ts) differ
 * only in how they connect, lock and report errors.
 */
import { ConfigError } from '../errors.js';

export type Dialect = 'sqlite' | 'postgres';
export type Row = unknown[];

export interface Db {
  readonly dialect: Dialect;
  /** The file, or the URL without its password: what messages name. */
  readonly where: string;
  /** Rows of a query, each an array of its columns in order. */
  all(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** A statement without rows; returns the number of rows it changed. */
  run(sql: string, params?: readonly unknown[]): Promise<number>;
  /** Several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
  /**
   * `fn` inside a transaction that holds the database's write lock from its first statement:
   * writers (two snapshots at once, in two processes) go one after the other, each seeing the
   * other's rows. Rolled back when `fn` throws.
   */
  write<T>(fn: () => Promise<T>): Promise<T>;
  /** `fn` inside a read transaction: every query sees the same committed state, whatever a writer does meanwhile. */
  read<T>(fn: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Query parameters of a PostgreSQL URL that carry a secret (`password`, `sslpassword`, ...). */
const SECRET_PARAM = /pass/i;

/**
 * What the database is, named for people: a file path, or a PostgreSQL URL with every password
 * hidden: the user-info form (`user:pw@`) and query parameters (`?password=`, `&sslpassword=`).
 * A URL that does not parse is not shown at all (it may hold a password anywhere).
 */
export function describeTarget(target: string): string {
  if (!isPostgres(target)) return target;
  const url = parsePostgresUrl(target);
  if (!url) return 'postgres://(a URL that does not parse)';
  if (url.password) url.password = '***';
  for (const name of [...url.searchParams.keys()]) if (SECRET_PARAM.test(name)) url.searchParams.set(name, '***');
  return url.toString().replace(`@${NO_HOST}/`, '@/');
}

/** The URL as pg reads it (spaces and stray % encoded first, as pg-connection-string does); undefined when it does not parse. */
export function parsePostgresUrl(target: string): URL | undefined {
  const text = / |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(target) ? encodeURI(target).replace(/%25(\d\d)/g, '%$1') : target;
  for (const candidate of [text, text.replace('@/', `@${NO_HOST}/`)]) {
    try {
      return new URL(candidate);
    } catch {
      // pg reads `user@/db` (a socket, no host) with a stand-in host: so do we, then none
    }
  }
  return undefined;
}

const NO_HOST = '___no_host___';

export const isPostgres = (target: string): boolean => /^postgres(ql)?:\/\//i.test(target);

/** Tables created by migrations carry this: a database without it that holds tables belongs to something else. */
export const APPLICATION = 'linkctl-history';

export const FOREIGN_HINT = 'give another file with --db (or LINKCTL_DB); linkctl never writes into a database it did not create';

/** A database that exists and is not linkctl's: refused, named, never written to. */
export function foreign(where: string, what: string): ConfigError {
  return new ConfigError(`${where} is not a linkctl click-history database (${what}); nothing was written to it`, FOREIGN_HINT);
}

/** Nothing to read yet: no database, or nothing of this account in it (`stats show` before any snapshot): exit 8. */
export { NoHistoryError } from '../errors.js';
