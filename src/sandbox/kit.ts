// What every sandbox route shares: the request context, replies (JSON, HTML pages, raw text), the
// product's messages, small parsers of request fields, the list envelope and the routing helpers.
// Each resource's routes are in a file of their own beside its model (links.ts is the twin of
// src/model/links.ts); routes.ts only dispatches.
import type { Plan } from './types.js';
import { indexOfId, ownerOf, timestamp, zeroStats, type Collection, type Owned, type State, type Stats, type User } from './state.js';

/** A non-JSON answer (HTML page, empty body), or JSON text that JSON.stringify cannot write (`1.0`). */
export class Raw {
  constructor(readonly status: number, readonly body: string, readonly contentType = 'text/html; charset=UTF-8') {}
}
export type Json = Record<string, unknown>;
export type Reply = Json | Raw;

/** Thrown by helpers to end a handler early with a reply (keeps handlers linear). */
export class Halt {
  constructor(readonly reply: Reply) {}
}

export const STATUS_TEXT: Record<number, string> = { 404: 'Not Found', 405: 'Method Not Allowed', 500: 'Internal Server Error' };
export function htmlPage(status: number): Raw {
  const title = `${status} ${STATUS_TEXT[status] ?? 'Error'}`;
  return new Raw(status, `<!DOCTYPE html>\n<html><head><title>${title}</title></head><body><h1>${title}</h1><p>The server could not handle this request.</p></body></html>\n`);
}
export const emptyBody = () => new Raw(200, '');
export const JSON_TYPE = 'application/json';

export type { Plan };
/** `7.6` is the product's current code; `6` a 6.x server (no lookup by short URL, negative X-RateLimit-Remaining). */
export type ServerVersion = '7' | '6';
/**
 * `quirks`: real-server shapes (else the documented ones); `stringIds`: ids and counts as strings
 * and `maxpage` as `1.0`, as servers on PHP before 8.1 send them (PHP 8.1+ sends integers).
 */
export interface Env {
  state: State; quirks: boolean; stringIds: boolean; base: string; plan: Plan; version: ServerVersion;
  /** The sandbox's clock (ms since the epoch): dates of new records and expiry checks. */
  now: () => number;
  /** Branded domains as an installation with multiple domains on lists them: the site's own after the user's (`id: null`). */
  systemDomains: boolean;
}
export interface Ctx extends Env {
  /** Whose key the request carries: everything it reads or changes is that user's. */
  user: User;
  params: Record<string, string>;
  ids: Record<string, number>;
  id: number;
  query: Record<string, string>;
  body: Json;
}

// ---------------------------------------------------------------- messages

/** The product's 7.6 messages (real-servers.md, last section); the document has no catalogue of errors. */
export const MESSAGES = {
  channelNotFound: 'Channel not found. Please try again.',
  domainNotFound: 'Domain not found. Please try again.',
  pixelNotFound: 'Pixel not found. Please try again.',
  campaignNotFound: 'Campaign not found. Please try again.',
  campaignAssignLinkNotFound: 'Link not found. Please try again.',
  channelAssignLinkNotFound: 'Link does not exist. Please try again.',
  channelAssignQrNotFound: 'QR Code does not exist. Please try again.',
  alreadyInChannel: 'This item is already added to the selected channel.',
  slugTaken: 'This slug is currently not available. Please choose another one.',
  pixelType: 'Pixel provider is currently not supported.',
  pixelTag: 'Please enter valid id.',
  domainInvalid: 'A valid domain name is required.',
  domainUsed: 'The domain has been already used.',
  campaignName: 'Campaign name cannot be empty and must have at least 2 characters.',
  channelName: 'Channel name cannot be empty and must have at least 2 characters.',
  missingUrl: 'Missing required parameter: url',
  invalidUrl: 'Please enter a valid URL.',
  aliasShort: 'Custom alias must be at least 3 characters.',
  // the product 7.7's words for an expiry in the past, or one it cannot read (the recording)
  expiryPast: 'The expiry date must be later than today.',
  pixelGtm: 'GTM container ID is not correct. Please double check.',
  aliasTaken: 'That alias is taken. Please choose another one.',
  aliasInappropriate: 'Inappropriate aliases are not allowed.',
  aliasReserved: 'That alias is reserved. Please choose another one.',
  ownSite: 'You cannot shorten URLs of this website.',
  qrInvalid: 'Invalid QR format or missing data.',
  qrUnnamed: 'Via API',
  shortInvalid: 'Invalid short url. Please try again.',
  shortUnknown: 'You do not have the permission to access this short url.',
  accountUnchanged: 'No changes were done to the account.',
  linkNotFound: 'Link does not exist.',
  qrNotFound: 'QR does not exist.',
} as const;

// ---------------------------------------------------------------- helpers

export const fail = (message: string): never => { throw new Halt({ error: 1, message }); };
/** Real servers answer some failures with an empty HTTP 200 body. */
export const failEmptyInQuirks = (ctx: Ctx, message: string): never => { throw new Halt(ctx.quirks ? emptyBody() : { error: 1, message }); };
export const ok = (message: string): Json => ({ error: 0, message });
/** Servers on PHP before 8.1 send ids and counts as strings; PHP 8.1+ integers (real-servers.md, "Types on PHP 8.x"). */
export const num = (ctx: Ctx, n: number): number | string => (ctx.quirks && ctx.stringIds ? String(n) : n);

/** The requesting user's record `id` of `list`; another user's is as unknown as one that does not exist. */
export function must<T extends { id: number } & Owned>(ctx: Ctx, list: readonly T[], notFound: string, id = ctx.id, emptyInQuirks = false): T {
  const i = indexOfId(list, id);
  if (i < 0 || ownerOf(list[i]!) !== ctx.user.id) return emptyInQuirks ? failEmptyInQuirks(ctx, notFound) : fail(notFound);
  return list[i]!;
}
/** The requesting user's records of `list`, in the order they were made (each user sees only its own, fact 39). */
export const mine = <T extends Owned>(ctx: Ctx, list: readonly T[]): T[] => list.filter((r) => ownerOf(r) === ctx.user.id);
/** A new record of the requesting user, with the next id of its table (one sequence across users, as in the product). */
export function add<K extends Collection>(ctx: Ctx, coll: K, make: (id: number) => State[K][number]): State[K][number] {
  const record = make(ctx.state.next[coll]++);
  record.owner = ctx.user.id;
  (ctx.state[coll] as State[K][number][]).push(record);
  return record;
}
/** `YYYY-MM-DD HH:MM:SS` of the sandbox's clock. */
export const nowStamp = (ctx: Pick<Env, 'now'>) => timestamp(ctx.now());

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null;
export function isHttpUrl(v: unknown): v is string {
  if (typeof v !== 'string' || !/^https?:\/\//i.test(v)) return false;
  try { return new URL(v).hostname !== ''; } catch { return false; }
}
export const optString = (v: unknown, field: string): string | undefined =>
  v === undefined || v === null ? undefined : typeof v === 'string' || typeof v === 'number' ? String(v) : fail(`${field} must be a string.`);
export const optBool = (v: unknown): boolean | undefined =>
  v === undefined || v === null ? undefined : v === true || v === 1 || v === '1' || v === 'true';
export const minLength = (v: unknown, n: number, message: string): string =>
  typeof v === 'string' && v.trim().length >= n ? v.trim() : fail(message);
/** How the sandbox rewrites campaign slugs: `my slug!` becomes `my-slug` (aliases: src/model/aliases.ts). */
export const slugify = (s: string) => s.trim().replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '');
/** A host as links and domains are compared: no scheme, no trailing slash, lower case. */
export const bareHost = (u: string) => u.trim().replace(/^https?:\/\//i, '').replace(/\/+$/, '').toLowerCase();

/** A number in PHP's sense (is_numeric): leading and trailing spaces, a sign, digits, a decimal point, an exponent. */
export const phpNumeric = (s: string): boolean => /^[ \t\n\r\v\f]*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?[ \t\n\r\v\f]*$/.test(s);

/**
 * `limit` and `page` as the product reads them (fact 4): a number in PHP's sense, truncated to an
 * integer (`2.9` is 2); a `limit` of 0, empty or not a number is 15, a negative one an SQL error (an
 * HTTP 500 page); a `page` that is not a number above 0 is 1.
 */
export function paging(query: Record<string, string>, quirks = true) {
  if (!quirks) {
    const int = (s: string | undefined) => (s !== undefined && /^\d+$/.test(s.trim()) ? Number(s) : 0);
    return { limit: int(query.limit) || 15, page: int(query.page) || 1 };
  }
  const read = (s: string | undefined) => (s !== undefined && phpNumeric(s) ? Math.trunc(Number(s)) : 0);
  const limit = read(query.limit);
  if (limit < 0) throw new Halt(htmlPage(500));
  const page = read(query.page);
  return { limit: limit || 15, page: page > 0 ? page : 1 };
}

/**
 * A list other than links in the order it is answered: oldest first on the product 7.7 (fact 2),
 * newest first in the documented mode (as the sandbox always answered it).
 */
export const listed = <T>(ctx: Ctx, items: readonly T[]): readonly T[] => (ctx.quirks ? items : [...items].reverse());

/**
 * The one list envelope, over `items` in the order they are listed. `render` may answer undefined for
 * a row it leaves out (a channel's item whose link or code is gone): the row still counts in `result`.
 */
export function list<T>(ctx: Ctx, key: string, items: readonly T[], render: (item: T) => unknown): Json {
  const { limit, page } = paging(ctx.query, ctx.quirks);
  const result = items.length;
  const maxpage = Math.ceil(result / limit);
  const out: unknown[] = [];
  const end = Math.min(result, page * limit);
  for (let i = (page - 1) * limit; i < end; i++) {
    const item = render(items[i]!);
    if (item !== undefined) out.push(item);
  }
  return {
    error: ctx.quirks ? 0 : '0',
    data: {
      result, perpage: limit, currentpage: page,
      // past the end real servers keep counting up; only the last page (or an empty list) says null
      nextpage: result === 0 || page === maxpage ? null : page + 1,
      maxpage, [key]: out,
    },
  };
}
/**
 * The product computes the link list's `maxpage` as a float, which PHP writes `1.0`; JSON.stringify
 * cannot, so the text is written here (keys cannot occur unescaped inside JSON strings).
 */
export const withFloatMaxpage = (reply: Json): Raw =>
  new Raw(200, JSON.stringify(reply).replace(/"maxpage":(\d+),/, '"maxpage":$1.0,'), JSON_TYPE);

/** Statistics of a QR code on real servers: counts of the top tables as strings, `[]` when empty. */
export function qrStats(ctx: Ctx, s: Stats = zeroStats()): Json {
  const top = (o: Record<string, number>) => {
    const entries = Object.entries(o);
    return ctx.quirks && entries.length === 0 ? [] : Object.fromEntries(entries.map(([k, v]) => [k, ctx.quirks ? num(ctx, v) : String(v)]));
  };
  const { linkedin, ...social } = s.socialCount;
  return {
    // 7.6 sends data.clicks and data.uniqueClicks as integers
    clicks: s.clicks, uniqueClicks: s.uniqueClicks,
    topCountries: top(s.topCountries), topReferrers: top(s.topReferrers), topBrowsers: top(s.topBrowsers), topOs: top(s.topOs),
    socialCount: ctx.quirks ? { ...social, linkedin } : social,
  };
}
/**
 * Statistics of a link as 7.6 sends them (`GET /api/url/:id`, `?short=`): every count an
 * integer, and the `top*` tables absent when the link has no visits. (The referrer rules are
 * applied when a visit is counted: visits.ts.) Documented mode keeps the QR code's shape.
 */
export function linkStats(ctx: Ctx, s: Stats = zeroStats()): Json {
  if (!ctx.quirks) return qrStats(ctx, s);
  // in the product's order; `topReferrers` is absent too when every referrer was a social one (fact 42)
  const referrers = Object.keys(s.topReferrers).length ? { topReferrers: s.topReferrers } : {};
  const tops = s.clicks > 0 ? { topCountries: s.topCountries, topBrowsers: s.topBrowsers, topOs: s.topOs, ...referrers } : {};
  return { clicks: s.clicks, uniqueClicks: s.uniqueClicks, ...tops, socialCount: { ...s.socialCount } };
}

// ---------------------------------------------------------------- routing

export type Handler = (ctx: Ctx) => Reply;
export interface Route { method: string; segments: string[]; handler: Handler }
export const route = (spec: string, handler: Handler): Route => {
  const [method, path] = spec.split(' ') as [string, string];
  return { method, segments: path.split('/'), handler };
};

/** Deletion with reference cleanup, shared by every resource: the requesting user's record only. */
export const deleteRoute = (spec: string, coll: Collection, notFound: string, message: (ctx: Ctx) => string,
  cleanup: (ctx: Ctx, record: { id: number }) => void = () => {}): Route =>
  route(spec, (ctx) => {
    const items = ctx.state[coll] as Array<{ id: number } & Owned>;
    const record = must(ctx, items, notFound);
    items.splice(indexOfId(items, ctx.id), 1);
    cleanup(ctx, record);
    return ok(message(ctx));
  });
