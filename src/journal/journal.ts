/**
 * The journal of a run that must not send anything twice (a bulk `--from` run): append-only JSON
 * lines in the config folder's state, one file per key (profile, base URL, command, input hash,
 * or whatever named parts a caller gives). "sending" is on disk, whole and flushed, before a
 * request goes out, and the row's outcome after; so after a crash, a kill, Ctrl-C or a full
 * disk, a re-run knows which rows are finished and which may or may not have been carried out.
 * One flush a row: a row's outcome reaches the disk with the next row's "sending", before that
 * row's request (fsync takes as long as a request to a local server), and the last at close.
 * With rows in flight together (--concurrency), nothing changes for a row: its "sending" line is
 * written whole (and flushed, as `flushEachSend` says) by a synchronous write just before its own
 * request, never batched with other rows' or left for later; outcomes are written as rows finish,
 * in any order.
 *
 * The file's lines: a header (`journal: 1`, the key, the settings, when it started), a `run`
 * line for each later run that resumes it, and the entries. A line cut short (a crash or a full
 * disk in the middle of a write) is "torn": at the end of the file, or followed by the `run` line
 * of the run after it (which starts a new line, never continuing a torn one). Any other line that
 * is not one of these is corruption: the journal is refused, not read as empty.
 *
 * A journal exists to finish an interrupted run: once every row has finished, `retire()` removes
 * it, and the same input run again is a new run.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, fsync, fsyncSync, ftruncateSync, lstatSync, mkdirSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { CliError, ConfigError, UsageError } from '../errors.js';
import { NOFOLLOW, codeOf, causeOf, readAll, isObject, unwritable, JournalWriteError } from './journal-io.js';
import { acquireLock, releaseLock } from './lock.js';

export { JournalWriteError };

export type RowStatus = 'created' | 'updated' | 'deleted' | 'exists' | 'skipped' | 'failed';
export const FINISHED: ReadonlySet<string> = new Set<RowStatus>(['created', 'updated', 'deleted', 'exists', 'skipped']);
const STATES: ReadonlySet<string> = new Set(['sending', ...FINISHED, 'failed']);

/**
 * Whose account a journal is about (its key's first parts, before the command): the profile and
 * server, or the sandbox (whose address changes from run to run). Keys list them in this order.
 */
export function journalAccount(ctx: { sandboxMode: boolean; settings(): { profile: { value: string } } }, client: { base: URL }): { profile: string; baseUrl: string } {
  return ctx.sandboxMode ? { profile: 'sandbox', baseUrl: 'sandbox' } : { profile: ctx.settings().profile.value, baseUrl: client.base.href };
}

export interface Entry {
  row: number;
  /** `sending`: the request may have gone out; a status: the row's outcome. */
  state: 'sending' | RowStatus;
  id?: unknown;
  shorturl?: unknown;
  link?: unknown;
  error?: string;
}

export interface JournalOptions {
  /** The folder of journals. */
  dir: string;
  /** What names the journal: the same parts (values, in this order), the same file (e.g. profile, baseUrl, command, inputHash). */
  key: Record<string, string>;
  /**
   * What the run sends besides its input, by the names people give them (`--description`): an
   * unfinished journal is resumed only with the same settings, else the run is refused.
   */
  settings: Record<string, string>;
  /**
   * Whether each "sending" line is flushed to the disk (fsync) before its request: needed where a
   * row sent again after a power failure (which loses what the system had not written yet; a
   * killed process loses nothing) would do the work twice. Commands that find what a row would
   * create before creating it (`link add`: its alias or destination) or whose row sent again does
   * the same thing (`link update`) flush at most once a second instead.
   */
  flushEachSend?: boolean;
  /** Start over: an earlier journal of this key is discarded (once the lock is held). */
  restart: boolean;
  /** What the run is, for the lock and messages: `link add --from q.csv`. */
  label: string;
  /** What a second run at once would share with this one, for its refusal (default: the same file). */
  subject?: string;
  /**
   * For tests only (LINKCTL_TEST_JOURNAL_FAIL_AFTER): the writer fails with ENOSPC once this many
   * bytes have been written in this run, after writing the part of the line that still fits.
   */
  failAfterBytes?: number;
}




export class Journal {
  /** The last entry of each row from earlier runs. */
  readonly previous = new Map<number, Entry>();
  /**
   * A torn line whose row cannot be read: the first row after this one (0: any) that the earlier
   * run had not finished may or may not have been sent. The caller records that row as "sending"
   * before it does anything else with it, so that the next run does not have to guess again.
   */
  readonly tornAfter?: number;
  readonly path: string;
  private readonly lockPath: string;
  private fd: number;
  /** The file does not end with a newline (a torn line): the next write starts a new line. */
  private needsNewline = false;
  /** The file's size after this process's last whole line; undefined: unknown (ask the system). */
  private size: number | undefined;
  private written = 0;
  /** When a "sending" line was last flushed to the disk (ms). */
  private flushedAt = 0;
  /** Lines written by this run, and how many of them a finished flush covers. */
  private linesWritten = 0;
  private linesFlushed = 0;
  /** The flush under way (`sending`), which lines written before it started share. */
  private flushing?: Promise<void>;
  private broken?: JournalWriteError;
  private closed = false;

  private constructor(
    private readonly options: JournalOptions,
    path: string,
    lockPath: string,
    fd: number,
    read: { previous: Map<number, Entry>; tornAfter?: number; needsNewline: boolean },
  ) {
    this.path = path;
    this.lockPath = lockPath;
    this.fd = fd;
    this.previous = read.previous;
    this.tornAfter = read.tornAfter;
    this.needsNewline = read.needsNewline;
  }

  /**
   * Takes the lock (a second run on the same journal is refused, naming the first), reads what
   * earlier runs recorded, and opens the file to append. Nothing is sent before this returns.
   */
  static open(options: JournalOptions): Journal {
    const { dir } = options;
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw unwritable(dir, error);
    }
    // The parts' values in the caller's order (for --from: the same names as the journals of earlier versions, which are resumed).
    const name = createHash('sha256').update(JSON.stringify(Object.values(options.key))).digest('hex').slice(0, 32);
    const path = join(dir, `${name}.jsonl`);
    const lockPath = join(dir, `${name}.lock`);
    acquireLock(lockPath, options.label, options.subject ?? 'the same file');
    let fd: number | undefined;
    try {
      // O_NOFOLLOW: a symlink planted where the journal goes is refused, never followed (lstat where the flag does not exist).
      if (!NOFOLLOW) refuseSymlink(path);
      try {
        fd = openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_APPEND | NOFOLLOW, 0o600);
      } catch (error) {
        if (codeOf(error) === 'ELOOP') refuseSymlink(path, true);
        throw unwritable(path, error);
      }
      if (!fstatSync(fd).isFile()) throw new ConfigError(`the bulk journal ${path} is not a regular file`, `remove it, or set LINKCTL_CONFIG_DIR to another folder`);
      if (options.restart) ftruncateSync(fd, 0);
      const read = readJournal(fd, path, options);
      if (read.mismatch) {
        if (read.previous.size || read.tornAfter !== undefined) throw read.mismatch;
        ftruncateSync(fd, 0); // a journal with no rows: nothing to resume, so it starts over with these settings
        read.empty = true;
        read.needsNewline = false;
      }
      // An empty journal may still hold bytes (white space, a torn header): its header starts the file.
      if (read.empty && fstatSync(fd).size > 0) ftruncateSync(fd, 0);
      const journal = new Journal(options, path, lockPath, fd, read);
      const now = new Date().toISOString();
      if (read.empty) journal.append({ journal: 1, ...options.key, settings: options.settings, started: now });
      else journal.append({ run: now, pid: process.pid });
      return journal;
    } catch (error) {
      if (fd !== undefined) closeSync(fd);
      releaseLock(lockPath);
      throw error;
    }
  }

  /** "sending" is on disk, whole, when this returns (with the outcome before it); an outcome with the next flush. */
  record(entry: Entry): void {
    const flush = entry.state === 'sending' && this.flushDue();
    this.append(entry, flush);
  }

  /**
   * A row's "sending", for work in flight together (--concurrency): the line is written whole
   * before this returns, and flushed to the disk (when `record` would flush it) before the promise
   * resolves; the caller sends its request after that. Rows share flushes: a line written while a
   * flush runs is covered by the next one, and the flush runs beside the event loop (fs.fsync), so
   * eight rows in flight wait for the disk together instead of one after the other.
   */
  async sending(row: number): Promise<void> {
    const flush = this.flushDue();
    this.append({ row, state: 'sending' }, false);
    if (flush) await this.flushWritten();
  }

  /** Whether a "sending" line is flushed now: each one (flushEachSend), or the first in a second. */
  private flushDue(): boolean {
    const now = Date.now();
    if (!(this.options.flushEachSend ?? true) && now - this.flushedAt < 1000) return false;
    this.flushedAt = now;
    return true;
  }

  /** Every line written so far is on the disk when this resolves: a flush that started after the last of them. */
  private async flushWritten(): Promise<void> {
    const wanted = this.linesWritten;
    while (this.linesFlushed < wanted) {
      if (!this.flushing) {
        const upTo = this.linesWritten;
        this.flushing = new Promise<void>((resolve, reject) => fsync(this.fd, (error) => (error ? reject(error) : resolve())))
          .then(
            () => void (this.linesFlushed = Math.max(this.linesFlushed, upTo)),
            (error: unknown) => {
              throw this.fail(error);
            },
          )
          .finally(() => (this.flushing = undefined));
      }
      await this.flushing;
    }
  }

  private append(value: unknown, flush = true): void {
    if (this.broken) throw this.broken;
    const line = Buffer.from(`${this.needsNewline ? '\n' : ''}${JSON.stringify(value)}\n`);
    // where a failed line is cut off again: the size this process left (it alone writes, under
    // the lock), asked of the system only at first and after a failure (a call a row saved)
    const before = this.size ?? fstatSync(this.fd).size;
    this.size = undefined;
    try {
      let done = 0;
      while (done < line.length) done += this.write(line.subarray(done));
      this.size = before + done;
      this.needsNewline = false;
      this.linesWritten++;
      if (flush) {
        fsyncSync(this.fd);
        this.linesFlushed = this.linesWritten;
      }
    } catch (error) {
      // Part of the line may be on disk: it is cut off again (truncating works on a full disk too),
      // so that a header or two torn lines in a row never make the journal unreadable. Where even
      // that fails, whatever comes next (this run's or the next) starts a new line.
      try {
        ftruncateSync(this.fd, before);
      } catch {
        this.needsNewline = true;
      }
      throw this.fail(error);
    }
  }

  /** The journal cannot take more: every later write is refused with the same error. */
  private fail(error: unknown): JournalWriteError {
    this.broken ??= new JournalWriteError(
      `cannot write the journal in ${this.options.dir} (${causeOf(error)})`,
      codeOf(error) === 'ENOSPC' ? `free some space there (or set LINKCTL_CONFIG_DIR), then run the same command again: it goes on where this run stopped` : `check the folder, then run the same command again: it goes on where this run stopped`,
      error as NodeJS.ErrnoException,
    );
    return this.broken;
  }

  /** One write, checked: the count of bytes the system took is what moves on. */
  private write(bytes: Buffer): number {
    const limit = this.options.failAfterBytes;
    if (limit !== undefined && this.written + bytes.length > limit) {
      const fits = Math.max(0, limit - this.written);
      if (fits) this.written += writeSync(this.fd, bytes, 0, fits);
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    }
    const n = writeSync(this.fd, bytes);
    if (n <= 0) throw Object.assign(new Error('EIO: the system took no bytes of the journal line, write'), { code: 'EIO' });
    this.written += n;
    return n;
  }

  /** Flushes and closes; the journal stays for the next run to go on from. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      if (!this.broken) fsyncSync(this.fd);
    } catch {
      // The last outcome may not be on disk: the next run finds its row "sending" and looks it up.
    }
    closeSync(this.fd);
    releaseLock(this.lockPath);
  }

  /** Every row has finished: the journal has done its work and is removed; the input run again is a new run. */
  retire(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
    try {
      unlinkSync(this.path);
    } catch {
      // Already gone; nothing to resume either way.
    }
    releaseLock(this.lockPath);
  }
}

// ---------------------------------------------------------------- reading

interface Read {
  previous: Map<number, Entry>;
  tornAfter?: number;
  needsNewline: boolean;
  empty: boolean;
  mismatch?: CliError;
}


const parses = (line: string): boolean => {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
};


function readJournal(fd: number, path: string, options: JournalOptions): Read {
  const text = readAll(fd).toString('utf8');
  const read: Read = { previous: new Map(), needsNewline: text !== '' && !text.endsWith('\n'), empty: text.trim() === '' };
  if (read.empty) return read;
  const lines = text.split('\n');
  if (!read.needsNewline) lines.pop(); // the empty string after the last newline
  // Only a header cut short (a crash while the first line was written): a line torn at the end, as
  // the README allows, and one before any row, since a run writes its header whole before it sends
  // anything. The journal holds nothing: it is started again, as if it were not there.
  if (lines.length === 1 && read.needsNewline && /^\{"journal":/.test(lines[0]!) && !parses(lines[0]!)) return { previous: new Map(), needsNewline: false, empty: true };
  const corrupt = (index: number, what: string) =>
    new ConfigError(
      `the bulk journal ${path} is corrupt (line ${index + 1}: ${what}), so it cannot tell which rows were sent`,
      `check what the earlier run did on the server, then run with --restart to start over (rows it finished are then sent again; --if-exists decides what happens to those that exist)`,
    );
  let lastRow = 0;
  let headerSeen = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      const last = i === lines.length - 1 && read.needsNewline;
      const beforeRun = !last && i + 1 < lines.length && /^\{"run":/.test(lines[i + 1]!);
      if (!last && !beforeRun) throw corrupt(i, line.trim() ? 'not a journal entry' : 'an empty line');
      // Torn: its row, when the line got that far, may or may not have been sent; else the next one after the last whole entry.
      const row = /^\{"row":(\d+),/.exec(line);
      if (row) read.previous.set(Number(row[1]), { row: Number(row[1]), state: 'sending' });
      else (read as { tornAfter?: number }).tornAfter = lastRow;
      continue;
    }
    if (!isObject(value)) throw corrupt(i, 'not a journal entry');
    if (i === 0) {
      if (value.journal !== 1) throw corrupt(i, 'not the header of a linkctl journal');
      headerSeen = true;
      // A journal of an earlier version has no settings: it is resumed as it is.
      const changed = isObject(value.settings) ? changedSettings(value.settings as Record<string, string>, options.settings) : undefined;
      if (changed) {
        read.mismatch = new UsageError(
          `an unfinished run of ${options.label} (started ${String(value.started)}) was made with other flags: ${changed}; going on with different flags would send its rows differently`,
          `run it again with the same flags to finish it, or add --restart to start over with these (rows it finished are then sent again; --if-exists decides what happens to those that exist)`,
        );
      }
      continue;
    }
    if (typeof value.run === 'string') continue;
    if (typeof value.row !== 'number' || !Number.isInteger(value.row) || value.row < 1 || typeof value.state !== 'string' || !STATES.has(value.state)) throw corrupt(i, 'not a journal entry');
    read.previous.set(value.row, value as unknown as Entry);
    // The highest row named so far: with rows in flight together, outcomes come in any order, but
    // rows are sent in the file's order, so a torn line's row comes after every row named before it.
    lastRow = Math.max(lastRow, value.row);
    // The run after a torn line whose row could not be read recorded that row first: it is no longer a guess.
    if (read.tornAfter !== undefined && value.row > read.tornAfter) delete (read as { tornAfter?: number }).tornAfter;
  }
  if (!headerSeen) throw corrupt(0, 'not the header of a linkctl journal');
  return read;
}

/** The settings that differ, as people give them (`--description "first" (now "second")`); undefined when none. */
function changedSettings(before: Record<string, string>, now: Record<string, string>): string | undefined {
  const names = [...new Set([...Object.keys(before), ...Object.keys(now)])].sort();
  const show = (v: string | undefined) => (v === undefined ? 'not given' : JSON.stringify(v));
  const changed = names.filter((n) => before[n] !== now[n]).map((n) => `${n} ${show(before[n])} (now ${show(now[n])})`);
  return changed.length ? changed.join(', ') : undefined;
}

function refuseSymlink(path: string, known = false): void {
  let link = known;
  if (!link) {
    try {
      link = lstatSync(path).isSymbolicLink();
    } catch {
      return; // absent: created below
    }
  }
  if (link) throw new ConfigError(`the bulk journal ${path} is a symbolic link; linkctl does not follow links where it keeps its state`, `remove the link, then run again`);
}
