/**
 * The journal of a bulk run: append-only JSON lines in the config folder's state, one file per
 * profile, base URL, command and input (its content hash). "sending" is written, and flushed to
 * disk, before a request goes out, and the row's outcome after; so after a crash, a kill or
 * Ctrl-C, a re-run knows which rows are finished and which may or may not have been carried out.
 * One flush a row: a row's outcome reaches the disk with the next row's "sending", before that
 * row's request (fsync takes as long as a request to a local server), and the last at close.
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export type RowStatus = 'created' | 'updated' | 'deleted' | 'exists' | 'skipped' | 'failed';
export const FINISHED: ReadonlySet<string> = new Set<RowStatus>(['created', 'updated', 'deleted', 'exists', 'skipped']);

export interface Entry {
  row: number;
  /** `sending`: the request may have gone out; a status: the row's outcome. */
  state: 'sending' | RowStatus;
  id?: unknown;
  shorturl?: unknown;
  link?: unknown;
  error?: string;
}

export interface JournalKey {
  profile: string;
  baseUrl: string;
  command: string;
  inputHash: string;
}

export class Journal {
  private fd: number;
  /** The last entry of each row from earlier runs. */
  readonly previous = new Map<number, Entry>();

  constructor(
    dir: string,
    key: JournalKey,
    restart: boolean,
  ) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const name = createHash('sha256').update(JSON.stringify([key.profile, key.baseUrl, key.command, key.inputHash])).digest('hex').slice(0, 32);
    const path = join(dir, `${name}.jsonl`);
    if (restart) rmSync(path, { force: true });
    if (existsSync(path)) {
      for (const line of readFileSync(path, 'utf8').split('\n')) {
        if (!line.trim()) continue;
        try {
          const entry = JSON.parse(line) as Entry;
          if (typeof entry.row === 'number') this.previous.set(entry.row, entry);
        } catch {
          // A line cut short by a crash: the row's "sending" before it still stands.
        }
      }
    }
    this.fd = openSync(path, 'a', 0o600);
    if (!this.previous.size) this.append({ journal: 1, profile: key.profile, baseUrl: key.baseUrl, command: key.command, input: key.inputHash, started: new Date().toISOString() });
  }

  /** "sending" is flushed at once (with the outcome before it); an outcome with the next flush. */
  record(entry: Entry): void {
    this.append(entry, entry.state === 'sending');
  }

  private append(value: unknown, flush = true): void {
    writeSync(this.fd, `${JSON.stringify(value)}\n`);
    if (flush) fsyncSync(this.fd);
  }

  close(): void {
    fsyncSync(this.fd);
    closeSync(this.fd);
  }
}
