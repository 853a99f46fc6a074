/** `log` and `log verify`: read the ledger (src/history/ledger.ts); they never write. */
import type { Context } from '../../context.js';
import { NoHistoryError } from '../../errors.js';
import type { Column, Rec, Result } from '../../output/types.js';
import type { Db } from '../../history/db.js';
import { NO_RECORD, type Entry, type Fields } from '../../history/ledger.js';

interface Input {
  args: unknown[];
  opts: { db?: string; since?: string; resource?: string; link?: string; expectHead?: string };
}

/**
 * The ledger's database, read-only. A database that was named (`--db`, `LINKCTL_DB`) and does not
 * exist, or holds no ledger, is an error: reading it as an empty ledger would say "whole" of a file
 * that is not the one meant. Only the default database, not yet made by a first write, is an empty
 * ledger for `log` (`none`); `log verify` gives no `none`, since there is nothing it can prove.
 */
async function withLedger<T>(ctx: Context, db: string | undefined, fn: (db: Db) => Promise<T>, none?: T): Promise<T> {
  const [{ openHistory, historyTarget, DB_ENV }, { appliedVersions }, { describeTarget }] = await Promise.all([
    import('../../history/store.js'), import('../../history/schema.js'), import('../../history/db.js'),
  ]);
  const named = db !== undefined || Boolean(ctx.env[DB_ENV]);
  const where = describeTarget(historyTarget(ctx.env, db));
  const hint = named
    ? `check ${db !== undefined ? '--db' : DB_ENV}: the ledger is the history database linkctl's writes went to (e.g. --db history.db, or LINKCTL_DB)`
    : 'linkctl makes it at its first write (a link add, an update, an apply): there is nothing to read before';
  let history;
  try {
    history = await openHistory(ctx, { db, inspect: true });
  } catch (error) {
    if (!(error instanceof NoHistoryError)) throw error;
    if (!named && none !== undefined) return none;
    throw new NoHistoryError(`no ledger: ${where} does not exist`, hint);
  }
  try {
    if (!(await appliedVersions(history.db)).includes(23)) {
      if (!named && none !== undefined) return none;
      throw new NoHistoryError(`${where} holds no ledger: linkctl has recorded no write in it`, hint);
    }
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

/** `link 3 (spring)`; a path the server routes to no record (`none`, from `linkctl api`) shows the path instead. */
const recordOf = (e: Entry) => (e.resource === NO_RECORD ? `no record: ${e.path}` : `${e.resource}${e.resourceId ? ` ${e.resourceId}` : ''}${e.name ? ` (${e.name})` : ''}`);
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
  const expectHead = opts.expectHead;
  const verdict = await withLedger(ctx, opts.db, (db) => check(db, expectHead));
  // An empty ledger proves nothing: one never written and one whose every entry was removed look alike.
  if (verdict.entries === 0 && expectHead === undefined) {
    const [{ historyTarget }, { describeTarget }] = await Promise.all([import('../../history/store.js'), import('../../history/db.js')]);
    throw new NoHistoryError(
      `the ledger in ${describeTarget(historyTarget(ctx.env, opts.db))} has no entries: nothing to verify`,
      'an emptied ledger looks the same as one never written: `log verify --expect-head HASH`, with a head kept from an earlier verify, tells them apart',
    );
  }
  const count = (n: number) => `${n} entr${n === 1 ? 'y' : 'ies'}`;
  const head = verdict.head ? `head: entry ${verdict.head.seq}, ${verdict.head.hash}` : 'no entries';
  if (verdict.whole) {
    const kept = verdict.expected
      ? `; it still holds the head you kept (entry ${verdict.expected.seq}), with ${count(verdict.expected.since)} since`
      : '';
    return {
      kind: 'message',
      message: `the ledger is whole: ${count(verdict.entries)}, each holding the hash of the one before${kept}\n${head}`,
      json: verdict,
    };
  }
  return {
    kind: 'message',
    message: `the ledger is broken${verdict.seq === null ? '' : ` at entry ${verdict.seq}`}: ${verdict.problem} (${count(verdict.entries)})\n${head}`,
    json: verdict,
    exitCode: 1,
  };
}
