/**
 * When the bulk journal flushes to the disk: each "sending" line before its request by default,
 * at most once a second for commands that find a row's work before doing it again (link add,
 * link update: `flushEachSend: false`). fsync is counted through a mock of node:fs.
 */
import * as fs from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { Journal } from '../../src/bulk/journal.js';
import { tempDir } from '../helpers.js';

vi.mock('node:fs', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:fs')>();
  return { ...original, fsyncSync: vi.fn(original.fsyncSync) };
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
});
