/**
 * Click history's rules on a real SQLite file, through the API that `stats` and other features
 * use (src/history/store.ts, series.ts): only changes stored, differences per period with gaps,
 * resets, new and gone records, imported totals (issue 23), migrations added by others (issue 22).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openHistory, unpack, type HistoryRecord, type History, type SourceRef } from '../../src/history/store.js';
import { computeSeries, sparkline, type SeriesSpec } from '../../src/history/series.js';
import { DAY, parseSince, periodLabel, periodStart, periodsBetween } from '../../src/history/time.js';
import { MIGRATIONS, migrate } from '../../src/history/schema.js';
import { iso } from '../../src/history/time.js';
import { CheckStore, KEEP_RUNS, type StoredResult } from '../../src/check/store.js';
import type { Status } from '../../src/check/statuses.js';
import { tempDir } from '../helpers.js';

const dir = tempDir('linkctl-history-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const fresh = () => openHistory({ env: { LINKCTL_DB: join(dir, `h${++files}.db`) } }, { create: true });

const SOURCE: SourceRef = { baseUrl: 'https://links.example.com', account: '7', name: 'demo' };
const T0 = Date.UTC(2025, 5, 1, 6); // 2025-06-01 06:00 UTC
const link = (id: number, clicks: number, unique = clicks, extra: Partial<HistoryRecord> = {}): HistoryRecord => ({ kind: 'link', id, alias: `l${id}`, clicks, uniqueClicks: unique, ...extra });
const ALL: SeriesSpec = { key: 'links', label: 'All links', kind: 'link', link: null, qr: null, campaign: null };
const days = (n: number) => ({ by: 'day' as const, since: T0, until: T0 + n * DAY });

async function countRows(history: History): Promise<number> {
  return Number((await history.db.all('SELECT count(*) FROM counts'))[0]![0]);
}

describe('snapshots store only what changed', () => {
  it('a record is written when it is new, when its totals change, and once when it is gone', async () => {
    const h = await fresh();
    try {
      const first = await h.snapshot({ source: SOURCE, at: T0, records: [link(1, 10), link(2, 5), { kind: 'qr', id: 1, alias: 'Menu', clicks: 3 }] });
      expect(first).toMatchObject({ links: 2, qrs: 1, changed: 3, first: true });
      const same = await h.snapshot({ source: SOURCE, at: T0 + DAY, records: [link(1, 10), link(2, 5), { kind: 'qr', id: 1, alias: 'Menu', clicks: 3 }] });
      expect(same).toMatchObject({ changed: 0, gone: 0, first: false });
      const moved = await h.snapshot({ source: SOURCE, at: T0 + 2 * DAY, records: [link(1, 12), link(2, 5)] });
      expect(moved).toMatchObject({ changed: 2, gone: 1 }); // link 1 changed; the QR code is gone
      const still = await h.snapshot({ source: SOURCE, at: T0 + 3 * DAY, records: [link(1, 12), link(2, 5)] });
      expect(still.changed).toBe(0); // gone is written once
      expect(await countRows(h)).toBe(5);
      const sources = await h.sources();
      expect(sources).toEqual([{ id: 1, baseUrl: SOURCE.baseUrl, account: '7', name: 'demo', snapshots: 4, newest: '2025-06-04T06:00:00.000Z', profiles: [] }]);
    } finally {
      await h.close();
    }
  });

  it('a snapshot dated before the newest one of its account is refused; another account is independent', async () => {
    const h = await fresh();
    try {
      await h.snapshot({ source: SOURCE, at: T0 + DAY, records: [link(1, 1)] });
      await expect(h.snapshot({ source: SOURCE, at: T0, records: [link(1, 1)] })).rejects.toThrow(/this snapshot's reads finished at 2025-06-01T06:00:00.000Z, before those of snapshot 1 \(2025-06-02T06:00:00.000Z\), stored meanwhile/);
      await expect(h.snapshot({ source: { ...SOURCE, account: '8' }, at: T0, records: [link(1, 1)] })).resolves.toMatchObject({ first: true });
    } finally {
      await h.close();
    }
  });
});

describe('series are differences between snapshots', () => {
  it('per day: the first snapshot is a baseline; a missed day shares the difference evenly with the day after it, both estimated, never a spike', async () => {
    const h = await fresh();
    try {
      await h.snapshot({ source: SOURCE, at: T0, records: [link(1, 100, 80)] });
      await h.snapshot({ source: SOURCE, at: T0 + DAY, records: [link(1, 110, 85)] });
      // no snapshot on day 2
      await h.snapshot({ source: SOURCE, at: T0 + 3 * DAY, records: [link(1, 130, 90)] });
      const { series } = await computeSeries(h, 1, [ALL], days(3));
      expect(series[0]!.points.map((p) => [p.period, p.clicks, p.uniqueClicks, p.gap, p.estimated, p.from?.slice(0, 10) ?? null])).toEqual([
        ['2025-06-01', null, null, true, false, null],
        ['2025-06-02', 10, 5, false, false, '2025-06-01'],
        ['2025-06-03', 10, 2, false, true, '2025-06-02'],
        ['2025-06-04', 10, 3, false, true, '2025-06-02'],
      ]);
      expect(series[0]).toMatchObject({ clicks: 30, uniqueClicks: 10, gaps: 1, resets: 0, estimated: 2, total: 130 });
    } finally {
      await h.close();
    }
  });

  it('spread in whole clicks: the shares add up to the difference, the odd ones turn with the link (no pile on the last day)', async () => {
    const h = await fresh();
    try {
      const all = (clicks: number) => Array.from({ length: 1000 }, (_, i) => link(i + 1, clicks));
      await h.snapshot({ source: SOURCE, at: T0, records: all(0) });
      await h.snapshot({ source: SOURCE, at: T0 + 3 * DAY, records: all(1) }); // one click each, over three days
      const { series } = await computeSeries(h, 1, [ALL, { ...ALL, key: 'link:1', items: new Set([1]) }], days(3));
      expect(series[0]!.points.slice(1).map((p) => p.clicks)).toEqual([333, 333, 334]);
      expect(series[1]!.points.slice(1).map((p) => p.clicks)).toEqual([0, 0, 1]);
      expect(series[0]!.clicks).toBe(1000);
    } finally {
      await h.close();
    }
  });

  it('a total that went down is flagged as a reset and counted from zero, never subtracted', async () => {
    const h = await fresh();
    try {
      await h.snapshot({ source: SOURCE, at: T0, records: [link(1, 100), link(2, 50)] });
      await h.snapshot({ source: SOURCE, at: T0 + DAY, records: [link(1, 4), link(2, 60)] }); // link 1's statistics were reset
      const { series } = await computeSeries(h, 1, [ALL, { ...ALL, key: 'link:1', items: new Set([1]) }], days(1));
      expect(series[0]!.points[1]).toMatchObject({ clicks: 14, reset: true, gap: false });
      expect(series[1]!.points[1]).toMatchObject({ clicks: 4, reset: true });
      expect(series[0]!.resets).toBe(1);
    } finally {
      await h.close();
    }
  });

  it('a new link counts all its clicks; a gone link adds nothing, and counts from its last total when it comes back', async () => {
    const h = await fresh();
    try {
      await h.snapshot({ source: SOURCE, at: T0, records: [link(1, 10)] });
      await h.snapshot({ source: SOURCE, at: T0 + DAY, records: [link(1, 10), link(2, 7)] });
      await h.snapshot({ source: SOURCE, at: T0 + 2 * DAY, records: [link(2, 9)] });
      await h.snapshot({ source: SOURCE, at: T0 + 3 * DAY, records: [link(1, 15), link(2, 9)] });
      const { series } = await computeSeries(h, 1, [ALL], days(3));
      expect(series[0]!.points.map((p) => p.clicks)).toEqual([null, 7, 2, 5]);
      expect(series[0]!.resets).toBe(0);
    } finally {
      await h.close();
    }
  });

  it('by week (ISO, from Monday) and by hour: the same differences, other periods', async () => {
    const h = await fresh();
    try {
      for (let d = 0; d <= 14; d++) await h.snapshot({ source: SOURCE, at: T0 + d * DAY, records: [link(1, d * 10)] });
      const weeks = await computeSeries(h, 1, [ALL], { by: 'week', since: T0, until: T0 + 14 * DAY });
      // 2025-06-01 is a Sunday: week 22 holds only the baseline, week 23 Monday 2nd to Sunday 8th
      expect(weeks.series[0]!.points.map((p) => [p.period, p.clicks])).toEqual([['2025-W22', null], ['2025-W23', 70], ['2025-W24', 70]]);
      // by hour, a day between snapshots is spread over its 24 hours: 10 clicks, one in each of ten hours
      const hours = await computeSeries(h, 1, [ALL], { by: 'hour', since: T0 + DAY - 2 * 3_600_000, until: T0 + DAY + 3_600_000 });
      expect(hours.series[0]!.points.map((p) => [p.period, p.clicks, p.estimated])).toEqual([['2025-06-02T04', 0, true], ['2025-06-02T05', 0, true], ['2025-06-02T06', 1, true], ['2025-06-02T07', null, false]]);
      // a weekend without snapshots, by week: every week has its snapshots, nothing is estimated
      const weekdays = await fresh();
      try {
        let total = 0;
        for (let d = 1; d <= 19; d++) {
          const weekday = new Date(T0 + d * DAY).getUTCDay();
          total += 10;
          if (weekday !== 0 && weekday !== 6) await weekdays.snapshot({ source: SOURCE, at: T0 + d * DAY, records: [link(1, total)] });
        }
        const byWeek = await computeSeries(weekdays, 1, [ALL], { by: 'week', since: T0 + DAY, until: T0 + 19 * DAY });
        expect(byWeek.series[0]!.points.map((p) => [p.period, p.clicks, p.estimated])).toEqual([['2025-W23', 40, false], ['2025-W24', 70, false], ['2025-W25', 70, false]]);
        const byDay = await computeSeries(weekdays, 1, [ALL], { by: 'day', since: T0 + 6 * DAY, until: T0 + 8 * DAY });
        // Friday 6 June to Monday 9 June: 30 clicks over Saturday, Sunday and Monday, 10 each, estimated
        expect(byDay.series[0]!.points.map((p) => [p.period, p.clicks, p.estimated])).toEqual([['2025-06-07', 10, true], ['2025-06-08', 10, true], ['2025-06-09', 10, true]]);
      } finally {
        await weekdays.close();
      }
    } finally {
      await h.close();
    }
  });
});

describe('the API for other features', () => {
  it('import --with-clicks (issue 23): totals from another tool, keyed by alias, are adopted by the first snapshot from the server', async () => {
    const h = await fresh();
    try {
      const imported = await h.snapshot({ source: SOURCE, at: T0, origin: 'import:bitly', records: [{ kind: 'link', alias: 'spring', clicks: 5000 }, { kind: 'link', alias: 'autumn', clicks: 40 }] });
      expect(imported).toMatchObject({ links: 2, changed: 2 });
      // the server counts from zero; the link now has an id, and keeps its history
      await h.snapshot({ source: SOURCE, at: T0 + DAY, records: [link(31, 3, 3, { alias: 'spring' }), link(32, 0, 0, { alias: 'autumn' })] });
      await h.snapshot({ source: SOURCE, at: T0 + 2 * DAY, records: [link(31, 10, 8, { alias: 'spring' }), link(32, 1, 1, { alias: 'autumn' })] });
      const items = await h.items(1, 'link');
      expect(items.map((i) => [i.alias, i.remoteId])).toEqual([['spring', 31], ['autumn', 32]]);
      const { series } = await computeSeries(h, 1, [ALL], days(2));
      expect(series[0]!.points.map((p) => [p.clicks, p.reset, p.estimated])).toEqual([[null, false, false], [3, false, false], [8, false, false]]);
      // an import into an account with a history: a link that has one keeps it (no clicks invented), a new one takes the totals as its start
      const more = await h.snapshot({ source: SOURCE, at: T0 + 3 * DAY, origin: 'import:bitly', records: [{ kind: 'link', alias: 'spring', clicks: 161 }, { kind: 'link', alias: 'winter', clicks: 70 }] });
      expect(more).toMatchObject({ changed: 1, kept: 1 });
      await h.snapshot({ source: SOURCE, at: T0 + 4 * DAY, records: [link(31, 12, 9, { alias: 'spring' }), link(32, 1, 1, { alias: 'autumn' }), link(33, 2, 2, { alias: 'winter' })] });
      const after = await computeSeries(h, 1, [ALL], days(4));
      // the import is no snapshot of the server: day 3 and 4 share spring's 2 new clicks and winter's first 2, estimated
      expect(after.series[0]!.points.map((p) => [p.clicks, p.reset, p.estimated])).toEqual([[null, false, false], [3, false, false], [8, false, false], [2, false, true], [2, false, true]]);
    } finally {
      await h.close();
    }
  });

  it('link health (issue 22) is migration 20: a history file of a linkctl before it gains its tables, and a linkctl without it refuses the file', async () => {
    const file = join(dir, `h${++files}.db`);
    const clickHistoryOnly = MIGRATIONS.filter((m) => m.version < 20);
    const older = await openHistory({ env: { LINKCTL_DB: file } }, { create: true });
    try {
      // the file as the linkctl before link health left it: a snapshot, no check tables
      await older.db.run('DELETE FROM schema_migrations WHERE version >= 20');
      await older.db.exec('DROP TABLE check_results; DROP TABLE check_runs; DROP TABLE events; DROP TABLE listen_runs; DROP TABLE event_forwards; DROP TABLE ledger; DROP INDEX items_by_url;');
      await older.snapshot({ source: SOURCE, at: T0, records: [link(1, 10)] });
    } finally {
      await older.close();
    }
    const h = await openHistory({ env: { LINKCTL_DB: file } }, { create: true });
    try {
      expect((await h.db.all('SELECT version FROM schema_migrations ORDER BY version')).map((r) => r[0])).toEqual([1, 20, 21, 22, 23, 24, 25]);
      expect(await h.db.all("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'check_%' ORDER BY name")).toEqual([['check_results'], ['check_runs']]);
      expect(await h.db.all('SELECT count(*) FROM snapshots')).toEqual([[1]]); // nothing of the history lost
      await expect(migrate(h.db, clickHistoryOnly)).rejects.toThrow(/schema versions this linkctl does not know \(20, 21, 22, 23, 24, 25\): it was written by a newer linkctl/);
    } finally {
      await h.close();
    }
  });

  it('flags beside a result\'s status are migration 21: runs stored before it read back with no flags, their status as stored', async () => {
    const file = join(dir, `h${++files}.db`);
    const older = await openHistory({ env: { LINKCTL_DB: file } }, { create: true });
    try {
      // the file as the linkctl before flags left it: a run whose plain-http destination was the status `insecure`
      await older.db.run('DELETE FROM schema_migrations WHERE version = 21');
      await older.db.exec('ALTER TABLE check_results DROP COLUMN flags');
      const runId = Number((await older.db.all("INSERT INTO check_runs (source_id, started_at, finished_at, options) VALUES (?, ?, ?, '{}') RETURNING id", [await older.sourceId(SOURCE), iso(T0), iso(T0)]))[0]![0]);
      await older.db.run("INSERT INTO check_results (run_id, seq, subject, link, destination, status, code, chain, error, findings, checked_at) VALUES (?, 0, 'link:1', 1, 'http://example.com/1', 'insecure', 200, '[]', NULL, '[]', ?)", [runId, iso(T0)]);
    } finally {
      await older.close();
    }
    const store = new CheckStore(await openHistory({ env: { LINKCTL_DB: file } }, { create: true }));
    try {
      expect((await store.history.db.all('SELECT version FROM schema_migrations ORDER BY version')).map((r) => r[0])).toEqual([1, 20, 21, 22, 23, 24, 25]);
      const previous = await store.previousRun(SOURCE);
      expect([...previous!.results.values()].map((r) => [r.subject, r.status, r.flags])).toEqual([['link:1', 'insecure', []]]);
    } finally {
      await store.close();
    }
  });

  it('link health runs: kept per source, the latest 30 of each; the previous run read back by source with its results in order', async () => {
    const h = await fresh();
    const store = new CheckStore(h);
    try {
      const result = (n: number, status: Status): StoredResult => ({
        subject: `link:${n}`, link: n, qr: null, target: null, destination: `https://example.com/${n}`, status, flags: n === 2 ? ['insecure'] : [], code: status === 'ok' ? 200 : 404,
        chain: [{ url: `https://example.com/${n}`, code: status === 'ok' ? 200 : 404 }], error: status === 'ok' ? null : 'HTTP 404', findings: [], checkedAt: iso(T0),
      });
      const other = { ...SOURCE, account: '8' };
      await store.saveRun(other, { startedAt: iso(T0), finishedAt: iso(T0), options: {} }, [result(1, 'ok')]);
      const runs: number[] = [];
      for (let i = 0; i < KEEP_RUNS + 2; i++) {
        runs.push(await store.saveRun(SOURCE, { startedAt: iso(T0 + i), finishedAt: iso(T0 + i), profile: 'work', options: { qr: false } }, [result(1, i % 2 ? 'client-error' : 'ok'), result(2, 'ok')]));
      }
      const kept = (await h.db.all('SELECT r.id FROM check_runs r JOIN sources s ON s.id = r.source_id WHERE s.account = ? ORDER BY r.id', ['7'])).map((r) => r[0]);
      expect(kept).toEqual(runs.slice(2)); // the two oldest are gone
      expect(await h.db.all('SELECT count(*) FROM check_results WHERE run_id IN (?, ?)', [runs[0], runs[1]])).toEqual([[0]]);
      expect((await store.previousRun(other))?.results.size).toBe(1); // the other account's run is untouched
      const previous = await store.previousRun(SOURCE);
      expect(previous?.finishedAt).toBe(iso(T0 + KEEP_RUNS + 1));
      expect([...previous!.results.values()]).toEqual([result(1, 'client-error'), result(2, 'ok')]);
      expect(await store.previousRun({ ...SOURCE, baseUrl: 'https://elsewhere.example.com' })).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});

describe('time', () => {
  it('--since takes durations before now and dates; anything else names the flag', () => {
    const now = Date.UTC(2025, 5, 10, 12);
    expect(parseSince('--since', '48h', now)).toBe(now - 2 * DAY);
    expect(parseSince('--since', '2w', now)).toBe(now - 14 * DAY);
    expect(parseSince('--since', '2025-06-01', now)).toBe(Date.UTC(2025, 5, 1));
    expect(parseSince('--since', '2025-06-01T06:30+02:00', now)).toBe(Date.UTC(2025, 5, 1, 4, 30));
    expect(() => parseSince('--since', '30 days', now)).toThrow(/--since must be a duration before now \(48h, 30d, 12w\) or a date/);
  });

  it('periods: ISO weeks across a year end, months, and a bound on their number', () => {
    expect(periodLabel('week', periodStart('week', Date.UTC(2026, 0, 1)))).toBe('2026-W01'); // Thursday 1 January
    expect(periodLabel('week', periodStart('week', Date.UTC(2027, 0, 1)))).toBe('2026-W53');
    expect(periodLabel('month', periodStart('month', Date.UTC(2025, 11, 31, 23)))).toBe('2025-12');
    expect(periodsBetween('month', Date.UTC(2025, 0, 15), Date.UTC(2025, 2, 1))).toEqual([Date.UTC(2025, 0, 1), Date.UTC(2025, 1, 1), Date.UTC(2025, 2, 1)]);
    expect(() => periodsBetween('hour', 0, 2 * 365 * DAY)).toThrow(/more than 10,000 periods/);
  });

  it('sparklines scale to the largest value and show gaps as spaces', () => {
    expect(sparkline([0, 1, 2, 3, 4, 5, 6, 7])).toBe('▁▂▃▄▅▆▇█');
    expect(sparkline([null, 5, 10, null])).toBe(' ▄█ ');
    expect(sparkline([0, 0])).toBe('▁▁');
  });
});

describe("an item's stored changes reach the reader in snapshot order (store.ts unpack)", () => {
  // SQLite's read asks for no order (it walks the key's order); the reader sorts what comes out of order
  const read = (packed: string) => {
    const seen: Array<[number, number | null, number | null]> = [];
    const bad = { values: 0 };
    unpack(7, packed, (item, snapshot, clicks, unique) => {
      expect(item).toBe(7);
      seen.push([snapshot, clicks, unique]);
    }, bad);
    return { seen, bad: bad.values };
  };

  it('in order, as given; out of order, sorted by snapshot with each change whole', () => {
    expect(read('1,10,8;2,12,;5,,')).toEqual({ seen: [[1, 10, 8], [2, 12, null], [5, null, null]], bad: 0 });
    expect(read('5,30,20;1,10,8;3,12,9')).toEqual({ seen: [[1, 10, 8], [3, 12, 9], [5, 30, 20]], bad: 0 });
  });

  it('a change whose clicks are no count is left out before sorting; a bad unique count becomes unknown', () => {
    expect(read('4,-1,2;2,7,1.5;1,3,1')).toEqual({ seen: [[1, 3, 1], [2, 7, null]], bad: 2 });
  });

  it('a long item after a short one: nothing of the earlier item is handed on again', () => {
    read('9,1,1;3,2,2;6,3,3;1,4,4');
    expect(read('2,5,5;1,6,6').seen).toEqual([[1, 6, 6], [2, 5, 5]]);
  });
});
