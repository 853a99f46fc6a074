/**
 * The ledger (issue 41): every write linkctl sent, one row each, in the history database's
 * `ledger` table (migration 23). Rows form a hash chain: each holds the hash of the row before,
 * and its own hash is SHA-256 over the canonical JSON of its columns with that previous hash, so
 * an edited, inserted or removed row is found by `verify`. A row is appended inside the writers'
 * lock (SQLite's BEGIN IMMEDIATE, PostgreSQL's advisory lock), so two processes writing at once
 * make one chain, not two branches.
 *
 * The ledger knows the records linkctl wrote: `knownState` gives the fields of its last write of a
 * record (what `plan` names as what a link has, and what `export --state-unreadable` writes).
 */
import { createHash } from 'node:crypto';
import type { Db, Row } from './db.js';

export type Outcome = 'done' | 'failed' | 'unknown';
/** The resource of a write whose path the server routes to no record (an unknown word, an empty segment, upper case). */
export const NO_RECORD = 'none';
export type Fields = Record<string, unknown>;

/** What a write's caller knows; the store adds the sequence number, the hashes and `before`. */
export interface NewEntry {
  at: string;
  profile: string | null;
  server: string;
  command: string;
  /** `cli`, `mcp` (an agent through `linkctl mcp`) or `action` (the GitHub Action, CI). */
  via: string;
  method: string;
  path: string;
  resource: string;
  resourceId: string | null;
  /** The record's natural key when known (a link's alias), carried from earlier entries when a write does not say it. */
  name: string | null;
  /** The body sent (secrets already removed); after = before merged with it, or this alone where a write replaces everything. */
  sent: Fields | null;
  /** A write replaces every field (a link update): after is what was sent, not a merge. */
  replaces: boolean;
  outcome: Outcome;
  detail: string | null;
  override: string | null;
  /** `--as-user`: the user the write was made as (the profile is the admin's); null otherwise. */
  asUser?: string | null;
}

/** A stored entry: what the caller knew (less the body, which becomes before and after), with its place in the chain. */
export interface Entry extends Omit<NewEntry, 'sent' | 'replaces'> {
  seq: number;
  before: Fields | null;
  after: Fields | null;
  prevHash: string;
  hash: string;
}

/** What a replacing write (a link update) leaves as it was unless it sends it: the record's identity. */
const KEPT_BY_REPLACE = ['custom', 'shorturl'];
const pick = (fields: Fields, keys: readonly string[]): Fields => Object.fromEntries(keys.filter((k) => fields[k] !== undefined).map((k) => [k, fields[k]]));

const COLUMNS = 'seq, at, profile, server, command, via, method, path, resource, resource_id, name, before_json, after_json, outcome, detail, override, prev_hash, hash, as_user';

/** JSON with keys sorted at every level: the same entry always hashes the same. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().filter((k) => (value as Fields)[k] !== undefined).map((k) => `${JSON.stringify(k)}:${canonical((value as Fields)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The stored text of the entry's columns, as hashed: what `verify` recomputes from the row. */
interface StoredText {
  seq: number; at: string; profile: string | null; server: string; command: string; via: string; method: string; path: string;
  resource: string; resource_id: string | null; name: string | null; before_json: string | null; after_json: string | null;
  outcome: string; detail: string | null; override: string | null;
  /** Hashed only when set (undefined is left out of the canonical JSON): entries from before the column keep their hashes. */
  as_user?: string;
}

export function hashOf(columns: StoredText, prevHash: string): string {
  return createHash('sha256').update(`${prevHash}\n${canonical(columns)}`).digest('hex');
}

function fromRow(row: Row): Entry & { text: StoredText } {
  const [seq, at, profile, server, command, via, method, path, resource, resourceId, name, before, after, outcome, detail, override, prevHash, hash, asUser] = row as Array<string | number | null | undefined>;
  const text: StoredText = {
    seq: Number(seq), at: String(at), profile: profile === null ? null : String(profile), server: String(server), command: String(command), via: String(via),
    method: String(method), path: String(path), resource: String(resource), resource_id: resourceId === null ? null : String(resourceId), name: name === null ? null : String(name),
    before_json: before === null ? null : String(before), after_json: after === null ? null : String(after), outcome: String(outcome),
    detail: detail === null ? null : String(detail), override: override === null ? null : String(override),
    ...(asUser === null || asUser === undefined ? {} : { as_user: String(asUser) }),
  };
  return {
    seq: text.seq, at: text.at, profile: text.profile, server: text.server, command: text.command, via: text.via, method: text.method, path: text.path,
    resource: text.resource, resourceId: text.resource_id, name: text.name, before: parseFields(text.before_json), after: parseFields(text.after_json),
    outcome: text.outcome as Outcome, detail: text.detail, override: text.override, asUser: text.as_user ?? null, prevHash: String(prevHash), hash: String(hash), text,
  };
}

function parseFields(text: string | null): Fields | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : null;
  } catch {
    return null; // an edited value: verify names the entry
  }
}

/** The last entry that changed this record (a write that was done or may have been). */
async function lastOf(db: Db, server: string, resource: string, id: string): Promise<Entry | undefined> {
  const rows = await db.all(`SELECT ${COLUMNS} FROM ledger WHERE server = ? AND resource = ? AND resource_id = ? AND outcome <> 'failed' ORDER BY seq DESC LIMIT 1`, [server, resource, id]);
  return rows[0] ? fromRow(rows[0]) : undefined;
}

/**
 * Appends one entry under the writers' lock: `before` is what the ledger last knew of the record,
 * `after` that with the write applied (nothing after a delete, the same as before after a failure).
 */
export async function append(db: Db, entry: NewEntry): Promise<Entry> {
  return db.write(async () => {
    const [last] = await db.all('SELECT seq, hash FROM ledger ORDER BY seq DESC LIMIT 1');
    const seq = last ? Number(last[0]) + 1 : 1;
    const prevHash = last ? String(last[1]) : '';
    const previous = entry.resourceId === null ? undefined : await lastOf(db, entry.server, entry.resource, entry.resourceId);
    const before = previous?.after ?? null;
    let after: Fields | null;
    if (entry.outcome === 'failed') after = before;
    else if (entry.method === 'DELETE') after = null;
    else if (!before) after = entry.sent;
    // A link update replaces its options, not its alias or short URL: those stay as they were.
    else if (entry.replaces) after = { ...pick(before, KEPT_BY_REPLACE), ...(entry.sent ?? {}) };
    else after = { ...before, ...(entry.sent ?? {}) };
    const text: StoredText = {
      seq, at: entry.at, profile: entry.profile, server: entry.server, command: entry.command, via: entry.via, method: entry.method, path: entry.path,
      resource: entry.resource, resource_id: entry.resourceId, name: entry.name ?? previous?.name ?? null,
      before_json: before === null ? null : canonical(before), after_json: after === null ? null : canonical(after),
      outcome: entry.outcome, detail: entry.detail, override: entry.override,
      ...(entry.asUser ? { as_user: entry.asUser } : {}),
    };
    const hash = hashOf(text, prevHash);
    await db.run(`INSERT INTO ledger (${COLUMNS}) VALUES (${COLUMNS.split(',').map(() => '?').join(', ')})`, [
      text.seq, text.at, text.profile, text.server, text.command, text.via, text.method, text.path, text.resource, text.resource_id, text.name,
      text.before_json, text.after_json, text.outcome, text.detail, text.override, prevHash, hash, text.as_user ?? null,
    ]);
    return { ...fromRow([seq, text.at, text.profile, text.server, text.command, text.via, text.method, text.path, text.resource, text.resource_id, text.name, text.before_json, text.after_json, text.outcome, text.detail, text.override, prevHash, hash, text.as_user ?? null]) };
  });
}

export interface Filter {
  sinceIso?: string;
  resource?: string;
}

export async function list(db: Db, filter: Filter = {}): Promise<Entry[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (filter.sinceIso) (where.push('at >= ?'), params.push(filter.sinceIso));
  if (filter.resource) (where.push('resource = ?'), params.push(filter.resource));
  const rows = await db.all(`SELECT ${COLUMNS} FROM ledger${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY seq`, params);
  return rows.map((r) => strip(fromRow(r)));
}

const strip = ({ text: _text, ...entry }: Entry & { text: StoredText }): Entry => entry;

/**
 * The entries of one link, named by its id or its alias (any alias it had in the ledger), in
 * order: its destinations even after its deletion. Several links may have had one alias (one
 * deleted, another made with it): all of them, in order.
 */
export async function ofLink(db: Db, key: string): Promise<Entry[]> {
  const ids = /^\d+$/.test(key)
    ? [key]
    : (await db.all("SELECT DISTINCT server, resource_id FROM ledger WHERE resource = 'link' AND lower(name) = lower(?)", [key])).map((r) => String(r[1]));
  if (!ids.length) return [];
  const rows = await db.all(`SELECT ${COLUMNS} FROM ledger WHERE resource = 'link' AND resource_id IN (${ids.map(() => '?').join(', ')}) ORDER BY seq`, ids);
  return rows.map((r) => strip(fromRow(r)));
}

/** What linkctl last wrote to a record of a server (its `after`), or undefined when the ledger has no write of it. */
export async function knownState(db: Db, server: string, resource: string, id: string): Promise<{ fields: Fields | null; entry: Entry } | undefined> {
  const last = await lastOf(db, server, resource, id);
  return last ? { fields: last.after, entry: last } : undefined;
}

/** The last entry of the chain: its number and hash, to be kept elsewhere and compared later (`log verify --expect-head`). */
export interface Head {
  seq: number;
  hash: string;
}

export type Verdict =
  | { whole: true; entries: number; head: Head | null; expected?: { seq: number; since: number } }
  | { whole: false; entries: number; seq: number | null; problem: string; head: Head | null };

/**
 * Walks the chain from the first entry: the first whose sequence, link or hash does not hold.
 * A chain whose last entries were removed is still whole: only a head kept elsewhere shows that.
 * With `expectHead` (such a kept hash) the chain must still hold that entry, at any place: the
 * ledger may have grown since, but nothing up to it can have been removed or rewritten without
 * the rewrite recomputing that very hash.
 */
export async function verify(db: Db, expectHead?: string): Promise<Verdict> {
  const rows = await db.all(`SELECT ${COLUMNS} FROM ledger ORDER BY seq`);
  let prev = '';
  let expected = 1;
  let kept: Head | undefined;
  let head: Head | null = null;
  for (const row of rows) {
    const entry = fromRow(row);
    const broken = (problem: string): Verdict => ({ whole: false, entries: rows.length, seq: entry.seq, problem, head });
    if (entry.seq !== expected) return broken(`entry ${expected}${entry.seq > expected + 1 ? `-${entry.seq - 1}` : ''} is missing before it`);
    if (entry.prevHash !== prev) return broken('it does not hold the hash of the entry before it');
    if (hashOf(entry.text, prev) !== entry.hash) return broken('its stored values do not match its hash: it was edited');
    prev = entry.hash;
    head = { seq: entry.seq, hash: entry.hash };
    if (expectHead !== undefined && entry.hash === expectHead) kept = head;
    expected++;
  }
  if (expectHead !== undefined && !kept) {
    return {
      whole: false,
      entries: rows.length,
      seq: null,
      head,
      problem: rows.length
        ? `it no longer holds the head you kept (${expectHead.slice(0, 12)}…): entries were removed from its end, or it was rewritten`
        : `it is empty: the head you kept (${expectHead.slice(0, 12)}…) and every entry before it were removed`,
    };
  }
  return { whole: true, entries: rows.length, head, ...(kept ? { expected: { seq: kept.seq, since: rows.length - kept.seq } } : {}) };
}
