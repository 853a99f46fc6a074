/**
 * Which item of the history listen ties an event to (src/listen/store.ts): the short URL's item,
 * else the alias's; of several, one the server knows (a remote id), then the oldest; else a new
 * item. A real SQLite history, items stored as `stats snapshot` (and an import) store them.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openHistory, type History } from '../../src/history/store.js';
import { EventStore, ITEM_LOOKUP } from '../../src/listen/store.js';
import type { ListenEvent } from '../../src/listen/payload.js';
import { tempDir } from '../helpers.js';

const source = { baseUrl: 'http://sandbox.localhost', account: '1', name: 'demo' };
const AT = Date.parse('2026-11-20T10:00:00Z');
let n = 0;

const visit = (shortUrl: string, alias: string | null): ListenEvent => ({
  type: 'link.clicked', id: `evt_${++n}`, at: new Date(AT).toISOString(), receivedAt: new Date(AT).toISOString(),
  shortUrl, alias, longUrl: null, country: null, city: null, referrer: null, os: null, browser: null,
});

async function withHistory(fn: (history: History, store: EventStore, sourceId: number) => Promise<void>): Promise<void> {
  const history = await openHistory({ env: {} }, { db: join(tempDir('linkctl-listen-items-'), 'h.db'), create: true });
  try {
    const store = await EventStore.open(history, source, () => AT);
    await fn(history, store, store.sourceId);
  } finally {
    await history.close();
  }
}

/** The account's links, stored as `stats snapshot` stores them (each an item with a remote id). */
const snapshotOf = (history: History, records: Array<{ id: number; alias: string; url: string }>) =>
  history.snapshot({ source, records: records.map((r) => ({ kind: 'link' as const, clicks: 0, ...r })), at: AT - 60_000, kinds: ['link'], notAfter: AT + 3600_000 });
const itemOf = async (history: History, eventId: string) => Number((await history.db.all('SELECT item_id FROM events WHERE event_id = ?', [eventId]))[0]![0]);
/** Stores a visit to `shortUrl` as listen does; the item it was tied to. */
const tiedTo = async (history: History, store: EventStore, shortUrl: string, alias: string) => {
  const e = visit(shortUrl, alias);
  await store.add(e);
  return itemOf(history, e.id);
};
const itemId = async (history: History, sourceId: number, remoteId: number) => Number((await history.db.all("SELECT id FROM items WHERE source_id = ? AND kind = 'link' AND remote_id = ?", [sourceId, remoteId]))[0]![0]);

describe('listen: the item an event is tied to', () => {
  it("is the short URL's item, before another whose alias is the URL's path", async () => {
    await withHistory(async (history, store, sourceId) => {
      await snapshotOf(history, [{ id: 1, alias: 'docs', url: 'http://sandbox.localhost/elsewhere' }, { id: 2, alias: 'renamed', url: 'http://sandbox.localhost/docs' }]);
      expect(await tiedTo(history, store, 'http://sandbox.localhost/docs', 'docs')).toBe(await itemId(history, sourceId, 2));
    });
  });

  it("is the alias's item when no item has the short URL: one the server knows before one it does not, then the oldest", async () => {
    await withHistory(async (history, store, sourceId) => {
      // an item with no remote id (as an import or an earlier listen makes), older than the server's
      await history.db.write(() => history.db.run("INSERT INTO items (source_id, kind, remote_id, alias, label, url, campaign) VALUES (?, 'link', NULL, 'promo', NULL, NULL, NULL)", [sourceId]));
      await snapshotOf(history, [{ id: 7, alias: 'promo', url: 'https://brand.invalid/promo' }, { id: 8, alias: 'promo', url: 'https://other.invalid/promo' }]);
      expect(await tiedTo(history, store, 'http://sandbox.localhost/promo', 'promo')).toBe(await itemId(history, sourceId, 7));
    });
  });

  it('is a new item (no remote id) for a link the history has not seen, and the same one for its next visit', async () => {
    await withHistory(async (history, store, sourceId) => {
      await snapshotOf(history, [{ id: 1, alias: 'docs', url: 'http://sandbox.localhost/docs' }]);
      const made = await tiedTo(history, store, 'http://sandbox.localhost/fresh', 'fresh');
      expect(made).not.toBe(await itemId(history, sourceId, 1));
      expect(await tiedTo(history, store, 'http://sandbox.localhost/fresh', 'fresh')).toBe(made);
      expect(await history.db.all('SELECT remote_id, alias, url FROM items WHERE id = ?', [made])).toEqual([[null, 'fresh', 'http://sandbox.localhost/fresh']]);
    });
  });

  it('is found by index, not by reading every link item of the account (schema version 25)', async () => {
    await withHistory(async (history, _store, sourceId) => {
      const plan = await history.db.all(`EXPLAIN QUERY PLAN ${ITEM_LOOKUP}`, [sourceId, 'http://sandbox.localhost/docs', sourceId, 'docs']);
      const steps = plan.map((row) => String(row[3]));
      // each lookup by its whole key (a search on (source_id, kind) alone reads every link item)
      expect(steps.filter((s) => /^SEARCH items USING INDEX \w+ \(source_id=\? AND kind=\? AND url=\?\)$/.test(s))).toHaveLength(1);
      expect(steps.filter((s) => /^SEARCH items USING INDEX \w+ \(source_id=\? AND kind=\? AND alias=\?\)$/.test(s))).toHaveLength(1);
      expect(steps.some((s) => /^SCAN items/.test(s))).toBe(false);
    });
  });
});
