/**
 * The default history database: one SQLite file, through libsql (a better-sqlite3-compatible
 * API with prebuilt binaries from the npm registry; see the README's dependency notes). The
 * file is in WAL mode, so a reader (`stats show`) never waits for a writer, and writers take
 * the lock with BEGIN IMMEDIATE and wait for each other up to BUSY_TIMEOUT_MS.
 *
 * A file that is not SQLite, or an SQLite database of something else, is refused before
 * anything is written to it (not even the journal mode, which SQLite keeps in the file).
 */
import { closeSync, mkdirSync, openSync, readSync, statfsSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import { APPLICATION, foreign, type Db, type Row } from './db.js';

/** How long a writer waits for another one (a snapshot writes for a fraction of a second). */
const BUSY_TIMEOUT_MS = 30_000;
const HEADER = 'SQLite format 3\0';

interface Statement {
  raw(on?: boolean): Statement;
  all(...params: unknown[]): Row[];
  run(...params: unknown[]): { changes: number };
  reader: boolean;
}
interface Database {
  prepare(sql: string): Statement;
  exec(sql: string): void;
  close(): void;
}
type DatabaseClass = new (file: string) => Database;

/**
 * File systems that hold no files of their own (the kernel's /proc and /sys, devices, control
 * files): a history there is a mistake, and Node's recursive mkdir spins forever under /proc.
 */
const PSEUDO_FILE_SYSTEMS = new Map<number, string>([
  [0x9fa0, 'proc'], [0x62656572, 'sysfs'], [0x1373, 'devtmpfs'], [0x27e0eb, 'cgroup'], [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'], [0x73636673, 'securityfs'], [0x74726163, 'tracefs'], [0xcafe4a11, 'bpf'], [0x62656570, 'configfs'],
  [0x6165676c, 'pstore'], [0xde5e81e4, 'efivarfs'], [0x65735543, 'fusectl'], [0x42494e4d, 'binfmt_misc'],
]);

const statOrUndefined = (path: string): Stats | undefined => {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
};

/** The kind of pseudo file system `path` is on, if it is on one. */
function pseudoFileSystem(path: string): string | undefined {
  try {
    return PSEUDO_FILE_SYSTEMS.get(Number(statfsSync(path).type));
  } catch {
    return undefined; // no statfs here (not Linux): nothing to tell
  }
}

/**
 * Where the file goes must be a regular file (or nothing yet) on a real file system: a folder,
 * a device, a pipe or a file under /proc is refused at once, naming it.
 */
function checkPlace(file: string, create: boolean): Stats | undefined {
  const found = statOrUndefined(file);
  if (found) {
    if (!found.isFile()) throw new ConfigError(`the click-history database ${file} is not a regular file (${found.isDirectory() ? 'a folder' : 'a device, pipe or socket'})`, 'give a file with --db (or LINKCTL_DB)');
    const pseudo = pseudoFileSystem(file);
    if (pseudo) throw new ConfigError(`the click-history database ${file} is on the kernel's ${pseudo} file system, which holds no databases`, 'give a file in a folder of yours with --db (or LINKCTL_DB)');
    return found;
  }
  if (!create) return undefined;
  // The nearest folder that exists: where the missing ones would be made.
  let parent = dirname(resolve(file));
  while (!statOrUndefined(parent) && dirname(parent) !== parent) parent = dirname(parent);
  const pseudo = pseudoFileSystem(parent);
  if (pseudo) throw new ConfigError(`cannot create the click-history database ${file}: ${parent} is on the kernel's ${pseudo} file system, which holds no databases`, 'give a file in a folder of yours with --db (or LINKCTL_DB)');
  if (!statOrUndefined(parent)?.isDirectory()) throw new ConfigError(`cannot create the click-history database ${file}: ${parent} is not a folder`, 'give a file in a folder of yours with --db (or LINKCTL_DB)');
  return undefined;
}

/** The missing folders above `file`, made one level at a time (mode 0700): a loop that cannot spin. */
function makeFolders(file: string): void {
  const missing: string[] = [];
  for (let dir = dirname(resolve(file)); !statOrUndefined(dir) && dirname(dir) !== dir; dir = dirname(dir)) missing.unshift(dir);
  for (const dir of missing) {
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (error) {
      if (code(error) !== 'EEXIST') throw new ConfigError(`cannot create the click-history database ${file}: cannot make the folder ${dir} (${code(error) || (error as Error).message})`);
    }
  }
}

/** An SQLite URI for `file` with `query` (mode=ro, immutable=1): every path character escaped. */
const uri = (file: string, query: string) => `file:${resolve(file).split('/').map(encodeURIComponent).join('/')}?${query}`;

/** The open failed for want of write access (a read-only file or folder, which WAL's shared-memory file needs). */
const readOnlyFailure = (error: unknown) => /READONLY|CANTOPEN|_1544$/.test(code(error)) || /readonly|read-only|unable to open/i.test((error as Error).message ?? '');

/** SQLite's own error codes, as libsql reports them. */
const code = (error: unknown) => String((error as { code?: unknown }).code ?? '');

/** Errors that mean the file is not a (whole) database: a clear message naming it, exit 7. */
function fileError(file: string, error: unknown): Error {
  const c = code(error);
  if (c === 'SQLITE_NOTADB') return foreign(file, 'not an SQLite file');
  if (c.startsWith('SQLITE_CORRUPT')) return new ConfigError(`the click-history database ${file} is corrupt (${(error as Error).message}); nothing was written to it`, 'restore it from a backup, or move it away to start a new history');
  if (c.startsWith('SQLITE_BUSY') || c.startsWith('SQLITE_LOCKED')) return new ConfigError(`the click-history database ${file} stayed locked by another process for ${BUSY_TIMEOUT_MS / 1000} s`, 'try again when the other linkctl has finished');
  if (c.startsWith('SQLITE_CANTOPEN') || c.startsWith('SQLITE_READONLY') || c.startsWith('SQLITE_PERM') || c.startsWith('SQLITE_IOERR') || c === 'SQLITE_FULL') {
    return new ConfigError(`cannot use the click-history database ${file} (${c}: ${(error as Error).message})`, 'check that its folder exists and is writable, and that the disk is not full');
  }
  return error as Error;
}

/** The first bytes of `file`: a non-empty file that does not start with SQLite's header is not a database. */
function header(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(HEADER.length);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, read).toString('latin1');
  } finally {
    closeSync(fd);
  }
}

/**
 * `readOnly`: a reader (`stats show`, `top`, `report`): the file is opened read-only (SQLite's
 * `mode=ro`: no write is possible, not even a checkpoint), and where even that needs a write
 * (a WAL database in a read-only folder, whose shared-memory file cannot be made) as an
 * immutable file. Nothing is created and nothing migrated.
 */
export async function openSqlite(file: string, create: boolean, readOnly = false): Promise<Db> {
  const found = checkPlace(file, create && !readOnly);
  if (found) {
    let head: string;
    try {
      head = header(file);
    } catch (error) {
      throw new ConfigError(`cannot read the click-history database ${file} (${code(error) || (error as Error).message})`);
    }
    if (head.length > 0 && head !== HEADER) throw foreign(file, 'not an SQLite file');
  } else if (create && !readOnly) {
    makeFolders(file);
    // The history names the account's links: the file is the user's alone. 'wx': another
    // process creating it at the same moment wins, and its file is used.
    try {
      writeFileSync(file, '', { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if (code(error) !== 'EEXIST') throw new ConfigError(`cannot create the click-history database ${file} (${code(error) || (error as Error).message})`);
    }
  }

  const Database = createRequire(import.meta.url)('libsql') as DatabaseClass;
  let db: Database;
  const open = (path: string, check: boolean) => {
    const opened = new Database(path);
    if (check) {
      try {
        opened.prepare("SELECT count(*) FROM sqlite_master").raw(true).all();
      } catch (error) {
        opened.close();
        throw error;
      }
    }
    return opened;
  };
  try {
    if (!readOnly) db = open(file, false);
    else {
      try {
        db = open(uri(file, 'mode=ro'), true);
      } catch (error) {
        if (!readOnlyFailure(error)) throw error;
        db = open(uri(file, 'immutable=1'), true);
      }
    }
  } catch (error) {
    throw fileError(file, error);
  }
  const cache = new Map<string, Statement>();
  const prepare = (sql: string) => {
    let statement = cache.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      if (statement.reader) statement.raw(true);
      cache.set(sql, statement);
    }
    return statement;
  };
  const guard = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (error) {
      throw fileError(file, error);
    }
  };
  let depth = 0;
  const transaction = async <T>(begin: string, fn: () => Promise<T>): Promise<T> => {
    if (depth > 0) return fn(); // already inside one (a snapshot's migrate-then-write)
    guard(() => db.exec(begin));
    depth++;
    try {
      const result = await fn();
      guard(() => db.exec('COMMIT'));
      return result;
    } catch (error) {
      try {
        db.exec('ROLLBACK');
      } catch {
        // the transaction is already gone (SQLite rolls back on some errors itself)
      }
      throw error;
    } finally {
      depth--;
    }
  };

  const sqlite: Db = {
    dialect: 'sqlite',
    where: file,
    all: async (sql, params = []) => guard(() => prepare(sql).all(...params)),
    run: async (sql, params = []) => guard(() => prepare(sql).run(...params).changes),
    exec: async (sql) => guard(() => db.exec(sql)),
    write: (fn) => transaction('BEGIN IMMEDIATE', fn),
    read: (fn) => transaction('BEGIN', fn),
    close: async () => {
      if (readOnly) {
        cache.clear();
        db.close();
        return;
      }
      // Copy the log into the file itself, so that history.db alone is the whole history (a
      // backup, a CI artefact). libsql closes a connection only once its statements are
      // collected, which would leave the log to the next opener. Briefly: another process may
      // be reading, and the next one to close will do it.
      try {
        db.exec('PRAGMA busy_timeout = 1000');
        db.prepare('PRAGMA wal_checkpoint(TRUNCATE)').all();
      } catch {
        // busy or read-only: the log stays valid, SQLite reads it
      }
      cache.clear();
      db.close();
    },
  };

  try {
    guard(() => db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`));
    // Reading the schema reads the header: a damaged file fails here, before any write.
    const tables = (await sqlite.all("SELECT name FROM sqlite_master WHERE type = 'table'")).map((r) => String(r[0]));
    if (tables.length > 0) {
      if (!tables.includes('meta')) throw foreign(file, `an SQLite database with other tables: ${tables.slice(0, 5).join(', ')}${tables.length > 5 ? ', ...' : ''}`);
      const app = await sqlite.all("SELECT value FROM meta WHERE key = 'application'");
      if (app[0]?.[0] !== APPLICATION) throw foreign(file, 'an SQLite database with a table "meta" of something else');
    }
    if (create && !readOnly) {
      // WAL: readers see the last committed snapshot while a writer writes. Kept in the file, so
      // only set on linkctl's own databases (checked above). A busy file is already in WAL mode.
      try {
        db.exec('PRAGMA journal_mode = WAL');
      } catch (error) {
        if (!code(error).startsWith('SQLITE_BUSY')) throw error;
      }
    }
  } catch (error) {
    db.close();
    throw fileError(file, error);
  }
  return sqlite;
}
