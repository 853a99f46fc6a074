/**
 * listen's journal (src/listen/journal.ts): what the door syncs before a 2xx. Files move on when
 * the history says their events are durable, and a write that failed never leaves a cut line for
 * the next batch to be joined to.
 */
import { closeSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JournalWriter, journalEvents, journalLine, leftFiles } from '../../src/listen/journal.js';
import type { ListenEvent } from '../../src/listen/payload.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const folder = () => {
  const d = mkdtempSync(join(tmpdir(), 'linkctl-journal-'));
  dirs.push(d);
  return d;
};
const event = (i: number): ListenEvent => ({ type: 'link.clicked', id: `evt_${i}`, at: '2026-12-07T10:00:00.000Z', receivedAt: '2026-12-07T10:00:00.100Z', shortUrl: 'https://s.invalid/j', alias: 'j', longUrl: null, country: null, city: null, referrer: null, os: null, browser: `b${i}` });
const ids = (dir: string) => leftFiles(dir, true).flatMap((f) => f.events.map((e) => e.id));

describe('listen journal', () => {
  it('gives back the events of its lines as they were, text with newlines, quotes and NULs included', () => {
    const odd = { ...event(7), city: 'São\nPaulo "x" \u0000 \u2028', referrer: 'a\\b' };
    const lines = [event(1), odd, event(2)].map(journalLine);
    expect(lines.every((l) => l.indexOf('\n') === l.length - 1)).toBe(true);
    expect(journalEvents(lines.join(''))).toEqual([event(1), odd, event(2)]);
  });

  it('moves on to a new file when told the events so far are durable, and removes a file once all of its events are', async () => {
    const dir = folder();
    const journal = new JournalWriter(dir);
    await journal.append(journalLine(event(0)), 0);
    await journal.append(journalLine(event(1)), 1);
    journal.durable(1); // a new file is made, and the appends after it is ready go there
    await new Promise((r) => setTimeout(r, 100));
    await journal.append(journalLine(event(2)), 2);
    expect(readdirSync(dir)).toHaveLength(2);
    expect(ids(dir)).toEqual(['evt_0', 'evt_1', 'evt_2']);
    journal.durable(1); // the first file's events are durable: it goes
    await new Promise((r) => setTimeout(r, 50));
    expect(ids(dir)).toEqual(['evt_2']);
    await journal.close();
  });

  it('after a failed write, the next batch goes to a new file: an answered event is never joined to a cut line', async () => {
    const dir = folder();
    const journal = new JournalWriter(dir);
    await journal.append(journalLine(event(0)), 0);
    // the open file fails from now on (as a full disk would)
    closeSync((journal as unknown as { fd: number }).fd);
    await expect(journal.append(journalLine(event(1)), 1)).rejects.toThrow();
    await journal.append(journalLine(event(2)), 2);
    expect(readdirSync(dir)).toHaveLength(2);
    expect(ids(dir)).toEqual(['evt_0', 'evt_2']);
    await journal.close().catch(() => undefined);
  });
});
