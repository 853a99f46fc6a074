/**
 * The product's two webhook posts (real-servers.md, "Webhooks"; test/fixtures/product-7.7/
 * webhooks.json), read into linkctl's events. The posts are untrusted: a body that is not the
 * shape below is refused (400) and never becomes an event.
 *
 * - created: `{"type":"url","longurl":"…","shorturl":"…","date":"28-11-2026 15:03:20"}`
 * - visit:   `{"type":"view","shorturl":"…","country":null,"city":null,"referer":"…","os":"…","browser":"…","date":"2026-11-28 15:03:20"}`
 *
 * Both dates are in the product server's time zone, which no post names. The product sends
 * while it answers the visit, so the post's date is "now" on the server's wall clock: the
 * server's offset is the difference between that date read as UTC and the moment the post
 * arrived, rounded to the quarter hour (every time zone's offset is a multiple of 15 minutes).
 * A date more than 14 hours from the arrival (no time zone is further) is not trusted: the
 * event is dated when it arrived.
 */
import { randomBytes } from 'node:crypto';
import { storableText } from '../history/values.js';

export type EventKind = 'link.created' | 'link.clicked';
export const EVENT_KINDS: readonly EventKind[] = ['link.created', 'link.clicked'];

/** Which of the two URLs a post came to. */
export type Hook = 'created' | 'visits';

/** One event, as stored (events table) and as printed (`--json`) and forwarded. */
export interface ListenEvent {
  type: EventKind;
  /** Unique, made when the post arrived: `evt_` + time + randomness (sorts by arrival). */
  id: string;
  /** When it happened, UTC ISO. */
  at: string;
  receivedAt: string;
  shortUrl: string;
  alias: string | null;
  longUrl: string | null;
  country: string | null;
  city: string | null;
  referrer: string | null;
  os: string | null;
  browser: string | null;
}

export class PayloadError extends Error {}

/** Longest text kept from a field: a post is at most 64 KB, but a row need not hold a page of text. */
const MAX_FIELD = 2048;
const QUARTER_HOUR = 15 * 60_000;
const MAX_OFFSET = 14 * 3_600_000;

/** `2026-11-28 15:03:20` or `28-11-2026 15:03:20`, read as if UTC; undefined when neither. */
export function wallClock(date: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})$/.exec(date) ?? /^(\d{2})-(\d{2})-(\d{4}) (\d{2}):(\d{2}):(\d{2})$/.exec(date);
  if (!m) return undefined;
  const [y, mo, d] = m[1]!.length === 4 ? [m[1], m[2], m[3]] : [m[3], m[2], m[1]];
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(m[4]), Number(m[5]), Number(m[6]));
  const back = new Date(ms);
  // 31-02-2026 is no date (Date.UTC would roll it into March)
  if (back.getUTCDate() !== Number(d) || back.getUTCMonth() !== Number(mo) - 1) return undefined;
  return ms;
}

/** The event's time in UTC: the server's wall-clock date less its offset, learnt from the arrival (see above). */
export function utcOf(date: string, receivedMs: number): number {
  const wall = wallClock(date);
  if (wall === undefined) throw new PayloadError('"date" is neither YYYY-MM-DD HH:MM:SS nor DD-MM-YYYY HH:MM:SS');
  const offset = Math.round((wall - receivedMs) / QUARTER_HOUR) * QUARTER_HOUR;
  if (Math.abs(offset) > MAX_OFFSET) return receivedMs;
  return wall - offset;
}

/**
 * Randomness for event ids, drawn from the system a pool at a time: a draw per event took a
 * twentieth of the door's time in a burst (issue 52's profile).
 */
const POOL = 10 * 256;
let pool = Buffer.alloc(0);
let drawn = POOL;

export function eventId(receivedMs: number): string {
  if (drawn + 10 > pool.length) {
    pool = randomBytes(POOL);
    drawn = 0;
  }
  const random = pool.toString('hex', drawn, drawn + 10);
  drawn += 10;
  return `evt_${receivedMs.toString(36).padStart(9, '0')}${random}`;
}

/**
 * Aliases of the short URLs seen lately: a link's visits come again and again, and a URL parsed
 * per post was a tenth of the door's own work in a burst (issue 52). Emptied when full.
 */
const aliases = new Map<string, string | null>();
const ALIASES = 1_000;

/** The alias a short URL names: its path without the leading slash (the product's link id is not in the post). */
export function aliasOf(shortUrl: string): string | null {
  let alias = aliases.get(shortUrl);
  if (alias !== undefined) return alias;
  alias = parseAlias(shortUrl);
  if (aliases.size >= ALIASES) aliases.clear();
  aliases.set(shortUrl, alias);
  return alias;
}

function parseAlias(shortUrl: string): string | null {
  try {
    const path = new URL(shortUrl).pathname.replace(/^\/+|\/+$/g, '');
    // %00 decodes to NUL, which PostgreSQL text cannot hold: kept as the history keeps any such text
    return path ? storableText(decodeURIComponent(path)).text : null;
  } catch {
    return null;
  }
}

function text(body: Record<string, unknown>, key: string, required: boolean): string | null {
  const v = body[key];
  if (v === undefined || v === null || v === '') {
    if (required) throw new PayloadError(`"${key}" is missing`);
    return null;
  }
  if (typeof v !== 'string') throw new PayloadError(`"${key}" is not text`);
  // NUL and broken surrogates cannot be stored in PostgreSQL text: replaced, as every text of the history is
  return storableText(v.slice(0, MAX_FIELD)).text;
}

/** A post's body read into an event, or a PayloadError saying what is wrong with it. */
export function parsePayload(hook: Hook, raw: string, receivedMs: number): ListenEvent {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw new PayloadError('the body is not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new PayloadError('the body is not a JSON object');
  const b = body as Record<string, unknown>;
  const expected = hook === 'created' ? 'url' : 'view';
  if (b.type !== expected) throw new PayloadError(`"type" is not "${expected}" (the ${hook} URL takes the product's ${hook === 'created' ? 'link created' : 'visit'} posts)`);
  const shortUrl = text(b, 'shorturl', true)!;
  if (!/^https?:\/\//i.test(shortUrl)) throw new PayloadError('"shorturl" is not an http(s) URL');
  const at = utcOf(text(b, 'date', true)!, receivedMs);
  const common = { id: eventId(receivedMs), at: new Date(at).toISOString(), receivedAt: new Date(receivedMs).toISOString(), shortUrl, alias: aliasOf(shortUrl) };
  if (hook === 'created') {
    return { type: 'link.created', ...common, longUrl: text(b, 'longurl', false), country: null, city: null, referrer: null, os: null, browser: null };
  }
  return {
    type: 'link.clicked', ...common, longUrl: null,
    country: text(b, 'country', false), city: text(b, 'city', false), referrer: text(b, 'referer', false), os: text(b, 'os', false), browser: text(b, 'browser', false),
  };
}

/** The `--json` line and the forwarded body: one stable shape, every key always present. */
export function eventJson(e: ListenEvent): Record<string, unknown> {
  return {
    type: e.type, id: e.id, at: e.at, receivedAt: e.receivedAt, shortUrl: e.shortUrl, alias: e.alias,
    ...(e.type === 'link.created' ? { longUrl: e.longUrl } : { country: e.country, city: e.city, referrer: e.referrer, os: e.os, browser: e.browser }),
  };
}
