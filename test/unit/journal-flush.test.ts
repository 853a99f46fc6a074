/**
 * When the bulk journal flushes to the disk: each "sending" line before its request by default,
 * at most once a second for commands that find a row's work before doing it again (link add,
 * link update: `flushEachSend: false`). fsync is counted through a mock of node:fs.
 */
import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { Journal } from '../../src/journal/journal.js';
import { tempDir } from '../helpers.js';

vi.mock('node:fs', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:fs')>();
  return { ...original, fsyncSync: vi.fn(original.fsyncSync), fsync: vi.fn(original.fsync) };
});

function open(flushEachSend: boolean | undefined) {
  return Journal.open({ dir: join(tempDir(), 'bulk'), key: { command: 'test' }, settings: {}, restart: false, label: 'test', ...(flushEachSend === undefined ? {} : { flushEachSend }) });
}

function flushesFor(journal: Journal, rows: number): number {
  const fsync = vi.mocked(fs.fsyncSync);
  fsync.mockClear();
  for (let row = 1; row <= rows; row++) {
    journal.record({ row, state: 'sending' });
    journal.record({ row, state: 'created', id: row });
  }
  return fsync.mock.calls.length;
}

describe('journal flushes', () => {
  it('flush each "sending" line by default', () => {
    const journal = open(undefined);
    expect(flushesFor(journal, 50)).toBe(50);
    journal.retire();
  });

  it('with flushEachSend false: the first line, then at most once a second; close flushes what is left', () => {
    // The clock is the test's: a slow disk cannot make "within a second" false.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-11-24T12:00:00Z') });
    try {
      const journal = open(false);
      expect(flushesFor(journal, 50)).toBe(1); // 50 rows within the same second
      vi.setSystemTime(Date.now() + 999);
      expect(flushesFor(journal, 10)).toBe(0);
      vi.setSystemTime(Date.now() + 1);
      expect(flushesFor(journal, 10)).toBe(1); // a second after the last flush: one more, then none again
      const fsync = vi.mocked(fs.fsyncSync);
      fsync.mockClear();
      journal.close();
      expect(fsync).toHaveBeenCalledTimes(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('rows in flight together: each "sending" is written at once and resolves after a flush that began after it; flushes are shared', async () => {
    const journal = open(undefined);
    const fsync = vi.mocked(fs.fsync);
    fsync.mockClear();
    vi.mocked(fs.fsyncSync).mockClear();
    // What each flush covers: the file's size when it starts.
    const covered: number[] = [];
    fsync.mockImplementation(((fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
      covered.push(fs.fstatSync(fd).size);
      setTimeout(() => callback(null), 20); // a slow disk: rows arrive while it flushes
    }) as typeof fs.fsync);
    const sizeAfter: number[] = [];
    const resolvedAt: number[] = [];
    const rows = Array.from({ length: 8 }, (_, i) => {
      const sent = journal.sending(i + 1);
      sizeAfter.push(fs.statSync(journal.path).size); // written whole before sending() returned
      return sent.then(() => resolvedAt.push(covered.length));
    });
    await Promise.all(rows);
    // Eight rows, two flushes: the first row's, and one for the seven written while it ran.
    expect(fsync).toHaveBeenCalledTimes(2);
    expect(vi.mocked(fs.fsyncSync)).not.toHaveBeenCalled(); // the event loop never waited on the disk
    // Each row resolved after a flush that covered its line.
    sizeAfter.forEach((size, i) => expect(covered[resolvedAt[i]! - 1]).toBeGreaterThanOrEqual(size));
    const lines = fs.readFileSync(journal.path, 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l) as { row: number; state: string });
    expect(lines).toEqual(Array.from({ length: 8 }, (_, i) => ({ row: i + 1, state: 'sending' })));
    fsync.mockRestore?.();
    journal.retire();
  });

  it('a flush that fails stops the journal: the rows waiting on it and every later line are refused, naming the folder', async () => {
    const journal = open(undefined);
    const fsync = vi.mocked(fs.fsync);
    fsync.mockImplementationOnce(((_fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
      setTimeout(() => callback(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' })), 5);
    }) as typeof fs.fsync);
    await expect(journal.sending(1)).rejects.toThrow(/cannot write the journal in .*\(EIO/);
    expect(() => journal.record({ row: 1, state: 'created', id: 1 })).toThrow(/cannot write the journal/);
    journal.close();
  });
});
