/**
 * listen's journal, for a history in an SQLite file: what makes a post's 2xx durable. The door's
 * thread appends each event (one JSON line) to a file beside the database and syncs it before it
 * answers; posts that arrive during a sync wait for the next one (a group commit). That is the
 * least a durable receiver does, and the product's visitor waits for nothing more. The events are
 * then inserted into the history on the main thread, and printed and forwarded from there.
 *
 * Why: an SQLite commit writes a page of each B-tree it touches (the events table, its
 * indexes, the run) and, now and then, a checkpoint, on the thread that commits: a burst's commits
 * took about 1.3 times an append and a sync, with a longer tail (issue 52's profile). The journal
 * sits on the same disk as the database, so nothing is less durable: an event answered 2xx is in a
 * synced file either way.
 *
 * - Files: `<database>-listen/<source>/<host>~<pid>~<token>~<n>.jsonl`, one set per process. The door
 *   starts a new file when the main thread says the events so far are durable in the history
 *   (`durable`, about once a second), and removes the files all of whose events are.
 * - The history's inserts need no sync of their own (synchronous=NORMAL): the journal holds each
 *   event until a commit with a sync (about once a second, and at the end) covers it.
 * - At start, the files of processes of this host that are no longer running (a `kill -9`, a power
 *   cut) are stored in the history first, before the door opens, then removed (event ids are
 *   unique: an event stored already is not stored twice).
 *
 * For PostgreSQL there is no journal: the door's 2xx waits for PostgreSQL's own commit, on the
 * server that holds the history (a journal on this machine would not be as durable as that).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsync, mkdirSync, open, readdirSync, readFileSync, unlink, unlinkSync, write } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { ListenEvent } from './payload.js';

/**
 * The journal's folder for an SQLite history file and the history's source (the account): one
 * folder per account, so that a start stores what was left only into the account it came from
 * (two listens may share a history, each for its own account).
 */
export const journalDir = (dbFile: string, sourceId: number) => join(`${dbFile}-listen`, String(sourceId));

/** An event as one line of a journal file: JSON, then a newline (JSON text holds no raw newline). */
export const journalLine = (event: ListenEvent): string => `${JSON.stringify(event)}\n`;

/** The events of journal lines (`journalLine`'s, joined), in order. */
export const journalEvents = (lines: string): ListenEvent[] => lines.split('\n').filter(Boolean).map((line) => JSON.parse(line) as ListenEvent);

const host = () => hostname().replace(/[^A-Za-z0-9.-]/g, '_') || 'host';
const NAME = /^([^~]+)~(\d+)~([0-9a-f]+)~(\d+)\.jsonl$/;

/** The door thread's writer. */
export class JournalWriter {
  private readonly token = randomBytes(6).toString('hex');
  private segment = 0;
  /** The open file; undefined until the first is made. */
  private fd: number | undefined;
  /** The file being made: the first, or the next one (made ahead, so that no post waits for it). */
  private making: Promise<void> | undefined;
  private ready: number | undefined;
  /** The newest event (by the door's sequence) in the open file; -1: none yet. */
  private last = -1;
  private rotate = false;
  /** A write or sync of the open file failed: it may end in part of a line, so the next batch goes to a new file. */
  private torn = false;
  private readonly closed: Array<{ path: string; last: number }> = [];
  private waiting: Array<{ line: string; seq: number; done: (error?: Error) => void }> = [];
  private syncing = false;

  constructor(private readonly dir: string) {
    this.make(0);
  }

  private path(n: number): string {
    return join(this.dir, `${host()}~${process.pid}~${this.token}~${n}.jsonl`);
  }

  /** Makes file `n` (exclusively, and its folder synced so that its name survives a crash); `ready` holds it then. */
  private make(n: number): void {
    this.making = new Promise<void>((resolve) => {
      open(this.path(n), 'wx', 0o600, (error, fd) => {
        if (error) {
          this.making = undefined;
          return resolve(); // the next commit tries again, and fails its posts if it cannot
        }
        open(this.dir, 'r', (e, dirFd) => {
          const done = () => {
            this.ready = fd;
            resolve();
          };
          if (e) return done();
          fsync(dirFd, () => {
            closeSync(dirFd);
            done();
          });
        });
      });
    });
  }

  /**
   * Resolves once `line` (the door's `seq`-th event, as `journalLine` writes it) is in the file
   * and synced: then, and only then, may its post be answered 2xx.
   */
  append(line: string, seq: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ line, seq, done: (error) => (error ? reject(error) : resolve()) });
      this.commit();
    });
  }

  /** The file to write to now: the next one once it is ready and asked for, else the open one (the first: once made). */
  private async file(): Promise<number> {
    if (this.torn && this.fd !== undefined) {
      // its complete lines are read at a start as any file's; a line cut off there is never joined to the next batch's first
      try {
        closeSync(this.fd);
      } catch {
        // the file is gone with its failure: what it holds is read all the same
      }
      this.closed.push({ path: this.path(this.segment), last: this.last });
      this.fd = undefined;
      this.segment++; // the file made ahead, if one is, is this one
      this.last = -1;
      this.rotate = false;
    }
    this.torn = false;
    if (this.fd === undefined) {
      if (!this.making) this.make(this.segment);
      await this.making;
      if (this.ready === undefined) throw new Error(`cannot create a journal file in ${this.dir}`);
      this.fd = this.ready;
      this.ready = undefined;
      this.making = undefined;
    } else if (this.rotate && this.ready !== undefined) {
      closeSync(this.fd);
      this.closed.push({ path: this.path(this.segment), last: this.last });
      this.fd = this.ready;
      this.ready = undefined;
      this.making = undefined;
      this.segment++;
      this.last = -1;
      this.rotate = false;
    }
    return this.fd;
  }

  private commit(): void {
    if (this.syncing || !this.waiting.length) return;
    this.syncing = true;
    const batch = this.waiting;
    this.waiting = [];
    const finish = (error?: Error | null) => {
      if (!error) for (const b of batch) this.last = Math.max(this.last, b.seq);
      else this.torn = true;
      this.syncing = false;
      for (const b of batch) b.done(error ?? undefined);
      this.commit();
    };
    this.file().then(
      (fd) => write(fd, batch.map((b) => b.line).join(''), null, 'utf8', (error) => (error ? finish(error) : fsync(fd, finish))),
      (error: Error) => finish(error),
    );
  }

  /**
   * The events up to `upTo` are durable in the history: the files all of whose events are go,
   * and writing moves on to a new file (made now) so that this one can go next time.
   */
  durable(upTo: number): void {
    for (let i = this.closed.length - 1; i >= 0; i--) {
      const c = this.closed[i]!;
      if (c.last > upTo) continue;
      this.closed.splice(i, 1);
      unlink(c.path, () => {});
    }
    if (this.last >= 0 && this.fd !== undefined && !this.making) {
      this.rotate = true;
      this.make(this.segment + 1);
    }
  }

  /** Resolves once nothing waits to be written (every append answered). */
  async idle(): Promise<void> {
    while (this.syncing || this.waiting.length) await new Promise((r) => setTimeout(r, 5));
  }

  /** Stops: the files closed (the main thread removes them once their events are durable; a file made ahead and never written, now). */
  async close(): Promise<void> {
    await this.making;
    const spare = this.ready === undefined ? undefined : this.path(this.fd === undefined ? this.segment : this.segment + 1);
    if (this.ready !== undefined) closeSync(this.ready);
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = this.ready = undefined;
    if (spare) unlink(spare, () => {});
  }
}

/** Whether process `pid` of this host is running (a pid reused by another process counts as running: its files are kept, never lost). */
function running(pid: number): boolean {
  if (pid === process.pid) return false; // not ours yet (we have written none): an earlier process's that had this pid
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface JournalFile {
  path: string;
  events: ListenEvent[];
}

/**
 * The journal files left by processes of this host that no longer run (their events acknowledged
 * and perhaps not yet in the history), read; a last line cut off by a crash was never answered
 * 2xx (its sync had not returned) and is left out. `mine`: this process's own files instead.
 */
export function leftFiles(dir: string, mine = false): JournalFile[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: JournalFile[] = [];
  for (const name of names.sort((a, b) => order(a) - order(b) || a.localeCompare(b))) {
    const m = NAME.exec(name);
    if (!m || m[1] !== host()) continue;
    const pid = Number(m[2]);
    if (mine ? pid !== process.pid : running(pid)) continue;
    const path = join(dir, name);
    const events: ListenEvent[] = [];
    for (const line of readFileSync(path, 'utf8').split('\n')) {
      if (!line) continue;
      try {
        const e = JSON.parse(line) as ListenEvent;
        if (typeof e?.id === 'string' && typeof e.shortUrl === 'string') events.push(e);
      } catch {
        // a line cut off: never acknowledged
      }
    }
    out.push({ path, events });
  }
  return out;
}

const order = (name: string) => Number(NAME.exec(name)?.[4] ?? 0);

/** The journal's folder, made when missing (private: it names the account's links). */
export function makeJournalDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** Removes journal files whose events are durable in the history. */
export function removeFiles(files: readonly JournalFile[]): void {
  for (const f of files) {
    try {
      unlinkSync(f.path);
    } catch {
      // gone already
    }
  }
}
