/** `log` and `log verify`: read the ledger (src/history/ledger.ts); they never write. */
import type { Context } from '../../context.js';
import { NoHistoryError } from '../../errors.js';
import type { Column, Rec, Result } from '../../output/types.js';
import type { Db } from '../../history/db.js';
import type { Entry, Fields } from '../../history/ledger.js';

interface Input {
  args: unknown[];
  opts: { db?: string; since?: string; resource?: string; link?: string };
}

/** The ledger's database, read-only; undefined when there is none yet, or no ledger in it. */
async function withLedger<T>(ctx: Context, db: string | undefined, fn: (db: Db) => Promise<T>, none: T): Promise<T> {
  const [{ openHistory }, { appliedVersions }] = await Promise.all([import('../../history/store.js'), import('../../history/schema.js')]);
  let history;
  try {
    history = await openHistory(ctx, { db, inspect: true });
  } catch (error) {
    if (error instanceof NoHistoryError) return none;
    throw error;
  }
  try {
    if (!(await appliedVersions(history.db)).includes(23)) return none;
    return await history.db.read(() => fn(history.db));
  } finally {
    await history.db.close();
  }
}

const text = (v: unknown) => (v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** What changed, for people: the fields whose values differ, `field: before -> after`. */
export function changeOf(entry: Pick<Entry, 'method' | 'before' | 'after' | 'outcome'>): string {
  if (entry.method === 'DELETE') return entry.outcome === 'failed' ? 'delete refused' : 'deleted';
  const before = entry.before ?? {};
  const after = entry.after ?? {};
  if (!entry.before) return Object.keys(after).filter((k) => k !== 'shorturl').sort().map((k) => `${k}=${text(after[k])}`).join(' ');
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return keys.filter((k) => text(before[k]) !== text(after[k])).map((k) => `${k}: ${text(before[k]) || '-'} -> ${text(after[k]) || '-'}`).join('; ') || 'no change';
}

const recordOf = (e: Entry) => `${e.resource}${e.resourceId ? ` ${e.resourceId}` : ''}${e.name ? ` (${e.name})` : ''}`;
/** `2026-06-01 06:00`: minutes are enough to read a ledger; --json keeps the full time. */
const minute = (iso: unknown) => String(iso).replace('T', ' ').slice(0, 16);

const COLUMNS: Column[] = [
  { key: 'seq', header: '#' },
  { key: 'at', header: 'TIME (UTC)', show: (r) => minute(r.at) },
  { key: 'command' },
  { key: 'record', value: (r) => recordOf(r as unknown as Entry) },
  { key: 'outcome' },
  { key: 'change', value: (r) => changeOf(r as unknown as Entry) },
  { key: 'override', optional: true },
  // --as-user: the user a write was made as (the profile is the admin's).
  { key: 'asUser', header: 'as user', optional: true },
  { key: 'profile', optional: true },
  { key: 'server', optional: true },
  { key: 'via', optional: true },
];

const LINK_COLUMNS: Column[] = [
  { key: 'seq', header: '#' },
  { key: 'at', header: 'TIME (UTC)', show: (r) => minute(r.at) },
  { key: 'command' },
  { key: 'outcome' },
  { key: 'destination' },
];

async function* one(records: Rec[]): AsyncGenerator<Rec[]> {
  yield records;
}

export async function list(ctx: Context, { opts }: Input): Promise<Result> {
  const [{ list: entries, ofLink }, { now, parseSince }] = await Promise.all([import('../../history/ledger.js'), import('../../history/time.js')]);
  const sinceIso = opts.since === undefined ? undefined : new Date(parseSince('--since', opts.since, now(ctx.env))).toISOString();
  if (opts.link !== undefined) {
    const key = opts.link.trim();
    const found = await withLedger(ctx, opts.db, (db) => ofLink(db, key), [] as Entry[]);
    const records = found
      .filter((e) => !sinceIso || e.at >= sinceIso)
      .map((e) => ({ ...e, destination: e.method === 'DELETE' && e.outcome !== 'failed' ? '(deleted)' : text((e.after as Fields | null)?.url) }));
    const note = found.length ? undefined : `the ledger has no write to a link "${key}"`;
    return { kind: 'list', pages: one(records as unknown as Rec[]), columns: LINK_COLUMNS, note };
  }
  const found = await withLedger(ctx, opts.db, (db) => entries(db, { sinceIso, resource: opts.resource }), [] as Entry[]);
  const records = found.map((e) => ({ ...e, record: recordOf(e), change: changeOf(e) }));
  return { kind: 'list', pages: one(records as unknown as Rec[]), columns: COLUMNS, note: found.length ? undefined : 'the ledger has no writes yet' + (opts.since || opts.resource ? ' that match' : '') };
}

export async function verify(ctx: Context, { opts }: Input): Promise<Result> {
  const { verify: check } = await import('../../history/ledger.js');
  const verdict = await withLedger(ctx, opts.db, check, { whole: true as const, entries: 0 });
  if (verdict.whole) return { kind: 'message', message: `the ledger is whole: ${verdict.entries} entr${verdict.entries === 1 ? 'y' : 'ies'}, each holding the hash of the one before`, json: verdict };
  return {
    kind: 'message',
    message: `the ledger is broken at entry ${verdict.seq}: ${verdict.problem} (${verdict.entries} entries)`,
    json: verdict,
    exitCode: 1,
  };
}
