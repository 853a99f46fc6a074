/**
 * Where listen's events and snapshots overlap (src/history/events.ts), each click counts once:
 * as its event where there is one, in a snapshot difference otherwise. Each case is a real
 * history file (SQLite) with snapshots stored as `stats snapshot` stores them and events as
 * `linkctl listen` stores them, ranked as `stats top` ranks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openHistory, type History } from '../../src/history/store.js';
import { rank } from '../../src/history/rank.js';
import { EventStore } from '../../src/listen/store.js';
import type { ListenEvent } from '../../src/listen/payload.js';

const dir = mkdtempSync(join(tmpdir(), 'linkctl-overlap-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const source = { baseUrl: 'http://sandbox.localhost', account: '1', name: 'demo' };
const SHORT = 'http://sandbox.localhost/docs';
const T0 = Date.parse('2026-11-20T10:00:00Z');
const sec = (s: number) => T0 + s * 1000;

interface Case {
  /** Each snapshot: when its reads finished, and the link's total then. */
  snapshots: Array<[at: number, clicks: number]>;
  /** Each event: the second the product dated it, and when listen received it. */
  events: Array<[at: number, receivedAt: number]>;
}

/** The link's clicks over the day, as `stats top --since 1d` ranks them. */
async function clicksOf({ snapshots, events }: Case): Promise<number> {
  const history: History = await openHistory({ env: {} }, { db: join(dir, `h${++n}.db`), create: true });
  try {
    const store = await EventStore.open(history, source, () => T0 - 60_000);
    let stored = 0;
    const record = (clicks: number) => ({ kind: 'link' as const, id: 1, alias: 'docs', url: SHORT, clicks });
    const addEvents = async (upTo: number) => {
      for (; stored < events.length && events[stored]![1] <= upTo; stored++) {
        const [at, receivedAt] = events[stored]!;
        const e: ListenEvent = {
          type: 'link.clicked', id: `evt_${stored}`, at: new Date(at).toISOString(), receivedAt: new Date(receivedAt).toISOString(),
          shortUrl: SHORT, alias: 'docs', longUrl: null, country: null, city: null, referrer: null, os: null, browser: null,
        };
        await store.add(e);
      }
    };
    for (const [at, clicks] of snapshots) {
      await addEvents(at);
      const result = await history.snapshot({ source, records: [record(clicks)], at, kinds: ['link'], notAfter: Date.now() + 3600_000 });
      expect(result.refused ?? 0).toBe(0);
    }
    await addEvents(Infinity);
    const [src] = await history.sources();
    const items = await history.items(src!.id);
    const r = await rank(history, src!.id, items, 'link', sec(-6 * 3600), sec(3600), Infinity);
    return r.rows.reduce((sum, row) => sum + row.clicks, 0);
  } finally {
    await history.close();
  }
}

describe('events and snapshots together: each click once', () => {
  it('events inside a snapshot difference are taken off it', async () => {
    // 10 at the start; 4 visits as events; 16 later: 4 events and 2 clicks seen only by the difference
    expect(await clicksOf({ snapshots: [[sec(0), 10], [sec(20), 14], [sec(40), 16]], events: [[sec(5), sec(5.3)], [sec(6), sec(6.2)], [sec(7), sec(7.1)], [sec(8), sec(8.4)]] })).toBe(6);
  });

  it('a server total that catches up one snapshot later: the events are taken off the difference that holds them', async () => {
    // the second snapshot still reads 10 (the server had not counted yet): the 4 events are in the third's difference
    expect(await clicksOf({ snapshots: [[sec(0), 10], [sec(20), 10], [sec(40), 16]], events: [[sec(5), sec(5.3)], [sec(6), sec(6.2)], [sec(7), sec(7.1)], [sec(8), sec(8.4)]] })).toBe(6);
  });

  it('a visit in the same second as the snapshot before it is not taken as one that snapshot held', async () => {
    // the snapshot's reads finished at .300 of second 0; the visit, dated second 0, arrived at .800: after it
    expect(await clicksOf({ snapshots: [[sec(0.3), 10], [sec(20), 13]], events: [[sec(0), sec(0.8)], [sec(5), sec(5.1)], [sec(6), sec(6.1)]] })).toBe(3);
  });

  it('a visit the first snapshot held counts once, as its event', async () => {
    // received before the first snapshot's reads finished: in its total of 10, so nothing is taken off the next difference for it
    expect(await clicksOf({ snapshots: [[sec(2), 10], [sec(20), 12]], events: [[sec(1), sec(1.1)], [sec(5), sec(5.1)], [sec(6), sec(6.1)]] })).toBe(3);
  });

  it('a reset of the server\'s count: events before it are not carried into later differences', async () => {
    // 4 events the server then lost (its count restarted at 1, one visit with no event); later 3 more clicks without events
    const clicks = await clicksOf({ snapshots: [[sec(0), 10], [sec(20), 10], [sec(40), 1], [sec(60), 4]], events: [[sec(5), sec(5.1)], [sec(6), sec(6.1)], [sec(7), sec(7.1)], [sec(8), sec(8.1)]] });
    expect(clicks).toBe(4 + 1 + 3);
  });
});
