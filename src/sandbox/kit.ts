// What every sandbox route shares: the request context, replies (JSON, HTML pages, raw text), the
// product's messages, small parsers of request fields, the list envelope and the routing helpers.
// Each resource's routes are in a file of their own beside its model (links.ts is the twin of
// src/model/links.ts); routes.ts only dispatches.
import type { Plan } from './types.js';
import { indexOfId, zeroStats, type ChannelItem, type Collection, type State, type Stats } from './state.js';

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
  /** false: the key is a plain (non-admin) user's, who may not shorten a URL on the site's own host (real-servers.md, 39). */
  admin?: boolean;
}
export interface Ctx extends Env {
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

export function must<T extends { id: number }>(ctx: Ctx, list: readonly T[], notFound: string, id = ctx.id, emptyInQuirks = false): T {
  const i = indexOfId(list, id);
  if (i < 0) return emptyInQuirks ? failEmptyInQuirks(ctx, notFound) : fail(notFound);
  return list[i]!;
}

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

export function paging(query: Record<string, string>) {
  const int = (s: string | undefined) => (s !== undefined && /^\d+$/.test(s.trim()) ? Number(s) : 0);
  return { limit: int(query.limit) || 15, page: int(query.page) || 1 };
}

/** The one list envelope. `newestFirst` walks the array backwards instead of copying it (cheap on 100k records). */
export function list<T>(ctx: Ctx, key: string, items: readonly T[], render: (item: T) => unknown, newestFirst = true): Json {
  const { limit, page } = paging(ctx.query);
  const result = items.length;
  const maxpage = Math.ceil(result / limit);
  const out: unknown[] = [];
  const end = Math.min(result, page * limit);
  for (let i = (page - 1) * limit; i < end; i++) out.push(render(items[newestFirst ? result - 1 - i : i]!));
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
  const tops = s.clicks > 0 ? { topCountries: s.topCountries, topReferrers: s.topReferrers, topBrowsers: s.topBrowsers, topOs: s.topOs } : {};
  return { clicks: s.clicks, uniqueClicks: s.uniqueClicks, ...tops, socialCount: { ...s.socialCount } };
}

// ---------------------------------------------------------------- routing

export type Handler = (ctx: Ctx) => Reply;
export interface Route { method: string; segments: string[]; handler: Handler }
export const route = (spec: string, handler: Handler): Route => {
  const [method, path] = spec.split(' ') as [string, string];
  return { method, segments: path.split('/'), handler };
};

/** Deletion with reference cleanup, shared by every resource. */
export const deleteRoute = (spec: string, coll: Collection, notFound: string, message: (ctx: Ctx) => string,
  cleanup: (state: State, id: number) => void = () => {}, before?: (ctx: Ctx, record: { id: number }) => void): Route =>
  route(spec, (ctx) => {
    const items = ctx.state[coll] as { id: number }[];
    const record = must(ctx, items, notFound);
    before?.(ctx, record);
    items.splice(indexOfId(items, ctx.id), 1);
    cleanup(ctx.state, ctx.id);
    return ok(message(ctx));
  });
export const unassign = (type: ChannelItem['type']) => (state: State, id: number) => {
  for (const ch of state.channels) ch.items = ch.items.filter((it) => !(it.type === type && it.id === id));
};

