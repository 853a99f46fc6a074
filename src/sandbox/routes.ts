// API routes of the sandbox. Handlers are plain functions from a request context to a
// reply; server.ts does transport, auth, rate limiting and faults. `quirks` switches
// from the documented shapes (link-api.md) to what real servers send (real-servers.md);
// where the document says nothing (short links, error messages), both modes answer as the
// product's 7.6 code does (real-servers.md, last section). `plan` and `version` emulate an
// account whose plan lacks features and a 6.x server.
import { randomBytes } from 'node:crypto';
import { refusedAsShort, serverAlias } from '../model/aliases.js';
import type { Plan } from '../commands/sandbox/types.js';
import {
  indexOfId, insert, slugFor, timestamp, zeroStats,
  type Campaign, type Channel, type ChannelItem, type Collection, type Link, type LinkOptions, type Qr, type State, type Stats,
} from './state.js';

/** A non-JSON answer (HTML page, empty body), or JSON text that JSON.stringify cannot write (`1.0`). */
export class Raw {
  constructor(readonly status: number, readonly body: string, readonly contentType = 'text/html; charset=UTF-8') {}
}
export type Json = Record<string, unknown>;
export type Reply = Json | Raw;

/** Thrown by helpers to end a handler early with a reply (keeps handlers linear). */
class Halt {
  constructor(readonly reply: Reply) {}
}

const STATUS_TEXT: Record<number, string> = { 404: 'Not Found', 405: 'Method Not Allowed', 500: 'Internal Server Error' };
export function htmlPage(status: number): Raw {
  const title = `${status} ${STATUS_TEXT[status] ?? 'Error'}`;
  return new Raw(status, `<!DOCTYPE html>\n<html><head><title>${title}</title></head><body><h1>${title}</h1><p>The server could not handle this request.</p></body></html>\n`);
}
const emptyBody = () => new Raw(200, '');
export const JSON_TYPE = 'application/json';

export type { Plan };
/** `7.6` is the product's current code; `6` a 6.x server (no lookup by short URL, negative X-RateLimit-Remaining). */
export type ServerVersion = '7.6' | '6';
export interface Env { state: State; quirks: boolean; base: string; plan: Plan; version: ServerVersion }
interface Ctx extends Env {
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
  aliasTaken: 'That alias is taken. Please choose another one.',
  qrInvalid: 'Invalid QR format or missing data.',
  qrUnnamed: 'Via API',
  shortInvalid: 'Invalid short url. Please try again.',
  shortUnknown: 'You do not have the permission to access this short url.',
  accountUnchanged: 'No changes were done to the account.',
  linkNotFound: 'Link does not exist.',
  qrNotFound: 'QR does not exist.',
} as const;

// ---------------------------------------------------------------- helpers

const fail = (message: string): never => { throw new Halt({ error: 1, message }); };
/** Real servers answer some failures with an empty HTTP 200 body. */
const failEmptyInQuirks = (ctx: Ctx, message: string): never => { throw new Halt(ctx.quirks ? emptyBody() : { error: 1, message }); };
const ok = (message: string): Json => ({ error: 0, message });
/** Older PHP servers send ids and counts as strings. */
const num = (ctx: Ctx, n: number): number | string => (ctx.quirks ? String(n) : n);

function must<T extends { id: number }>(ctx: Ctx, list: readonly T[], notFound: string, id = ctx.id, emptyInQuirks = false): T {
  const i = indexOfId(list, id);
  if (i < 0) return emptyInQuirks ? failEmptyInQuirks(ctx, notFound) : fail(notFound);
  return list[i]!;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null;
function isHttpUrl(v: unknown): v is string {
  if (typeof v !== 'string' || !/^https?:\/\//i.test(v)) return false;
  try { return new URL(v).hostname !== ''; } catch { return false; }
}
const optString = (v: unknown, field: string): string | undefined =>
  v === undefined || v === null ? undefined : typeof v === 'string' || typeof v === 'number' ? String(v) : fail(`${field} must be a string.`);
const optBool = (v: unknown): boolean | undefined =>
  v === undefined || v === null ? undefined : v === true || v === 1 || v === '1' || v === 'true';
const minLength = (v: unknown, n: number, message: string): string =>
  typeof v === 'string' && v.trim().length >= n ? v.trim() : fail(message);
/** How the sandbox rewrites campaign slugs: `my slug!` becomes `my-slug` (aliases: src/model/aliases.ts). */
const slugify = (s: string) => s.trim().replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '');
/** A host as links and domains are compared: no scheme, no trailing slash, lower case. */
const bareHost = (u: string) => u.trim().replace(/^https?:\/\//i, '').replace(/\/+$/, '').toLowerCase();

function paging(query: Record<string, string>) {
  const int = (s: string | undefined) => (s !== undefined && /^\d+$/.test(s.trim()) ? Number(s) : 0);
  return { limit: int(query.limit) || 15, page: int(query.page) || 1 };
}

/** The one list envelope. `newestFirst` walks the array backwards instead of copying it (cheap on 100k records). */
function list<T>(ctx: Ctx, key: string, items: readonly T[], render: (item: T) => unknown, newestFirst = true): Json {
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
const withFloatMaxpage = (reply: Json): Raw =>
  new Raw(200, JSON.stringify(reply).replace(/"maxpage":(\d+),/, '"maxpage":$1.0,'), JSON_TYPE);

/** Statistics of a QR code on real servers: counts of the top tables as strings, `[]` when empty. */
function qrStats(ctx: Ctx, s: Stats = zeroStats()): Json {
  const top = (o: Record<string, number>) => {
    const entries = Object.entries(o);
    return ctx.quirks && entries.length === 0 ? [] : Object.fromEntries(entries.map(([k, v]) => [k, String(v)]));
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
function linkStats(ctx: Ctx, s: Stats = zeroStats()): Json {
  if (!ctx.quirks) return qrStats(ctx, s);
  const tops = s.clicks > 0 ? { topCountries: s.topCountries, topReferrers: s.topReferrers, topBrowsers: s.topBrowsers, topOs: s.topOs } : {};
  return { clicks: s.clicks, uniqueClicks: s.uniqueClicks, ...tops, socialCount: { ...s.socialCount } };
}

// ---------------------------------------------------------------- routing

type Handler = (ctx: Ctx) => Reply;
interface Route { method: string; segments: string[]; handler: Handler }
const route = (spec: string, handler: Handler): Route => {
  const [method, path] = spec.split(' ') as [string, string];
  return { method, segments: path.split('/'), handler };
};

/** Deletion with reference cleanup, shared by every resource. */
const deleteRoute = (spec: string, coll: Collection, notFound: string, message: (ctx: Ctx) => string,
  cleanup: (state: State, id: number) => void = () => {}): Route =>
  route(spec, (ctx) => {
    const items = ctx.state[coll] as { id: number }[];
    must(ctx, items, notFound);
    items.splice(indexOfId(items, ctx.id), 1);
    cleanup(ctx.state, ctx.id);
    return ok(message(ctx));
  });
const unassign = (type: ChannelItem['type']) => (state: State, id: number) => {
  for (const ch of state.channels) ch.items = ch.items.filter((it) => !(it.type === type && it.id === id));
};

// ---------------------------------------------------------------- QR codes

const QR_TYPES = ['text', 'vcard', 'link', 'email', 'phone', 'sms', 'wifi'];
const qrUrl = (ctx: Ctx, q: Qr) => `${ctx.base}/qr/${q.slug}`;
const qrType = (v: unknown): string => (typeof v === 'string' && QR_TYPES.includes(v) ? v : fail(MESSAGES.qrInvalid));
const noData = (data: unknown) => data === undefined || data === null || data === '';

function qrData(ctx: Ctx, type: string, data: unknown): unknown {
  if (noData(data)) fail(MESSAGES.qrInvalid);
  const invalid = (type === 'link' && !isHttpUrl(data))
    || (type === 'phone' && !(typeof data === 'string' && /^\+?[\d\s().-]+$/.test(data)))
    || (type === 'wifi' && !isObject(data));
  // real servers crash on these instead of validating
  if (invalid) throw new Halt(ctx.quirks ? htmlPage(500) : { error: 1, message: `Invalid data for a QR code of type ${type}.` });
  return data;
}
function qrStyle(body: Json) {
  const style: Partial<Pick<Qr, 'background' | 'foreground' | 'logo'>> = {};
  for (const key of ['background', 'foreground', 'logo'] as const) {
    const v = optString(body[key], key);
    if (v !== undefined) style[key] = v;
  }
  return style;
}

const qrRoutes = [
  route('GET /api/qr', (ctx) => list(ctx, 'qrs', ctx.state.qrs, (q) =>
    ({ id: num(ctx, q.id), link: qrUrl(ctx, q), scans: num(ctx, q.scans), name: q.name, date: q.date }))),
  route('GET /api/qr/:id', (ctx) => {
    const q = must(ctx, ctx.state.qrs, MESSAGES.qrNotFound);
    // 7.6 sends details.id and details.scans as stored: strings on most databases
    const details = { id: num(ctx, q.id), link: qrUrl(ctx, q), scans: num(ctx, q.scans), name: q.name, [ctx.quirks ? 'data' : 'date']: q.date };
    const noStats = ctx.quirks && ['text', 'sms', 'wifi'].includes(q.type);
    return noStats ? { error: 0, details } : { error: 0, details, data: qrStats(ctx, q.stats) };
  }),
  route('POST /api/qr/add', (ctx) => {
    const type = qrType(ctx.body.type);
    const data = qrData(ctx, type, ctx.body.data);
    const name = optString(ctx.body.name, 'name') || MESSAGES.qrUnnamed;
    const q = insert(ctx.state, 'qrs', (id) => ({ id, type, data, name, slug: slugFor(id), scans: 0, date: timestamp(), ...qrStyle(ctx.body) }));
    return { error: 0, id: q.id, link: qrUrl(ctx, q) };
  }),
  route('PUT /api/qr/:id/update', (ctx) => {
    const q = must(ctx, ctx.state.qrs, MESSAGES.qrNotFound);
    // `type` and `name` are ignored: the API cannot change them. `data` is optional on 7.6
    // (required by the document) and read as data of the code's own type.
    const data = ctx.quirks && noData(ctx.body.data) ? undefined : qrData(ctx, q.type, ctx.body.data);
    Object.assign(q, data === undefined ? {} : { data }, qrStyle(ctx.body));
    return ok('QR has been updated successfully.');
  }),
  deleteRoute('DELETE /api/qr/:id/delete', 'qrs', MESSAGES.qrNotFound,
    (ctx) => (ctx.quirks ? 'QR has been deleted successfully.' : 'QR Code has been deleted successfully.'), unassign('qr')),
];

// ---------------------------------------------------------------- account, domains, overlays, splash, pixels

function redirects(ctx: Ctx) {
  const out: { redirectroot?: string; redirect404?: string } = {};
  for (const key of ['redirectroot', 'redirect404'] as const) {
    const v = ctx.body[key];
    if (v === undefined || v === null || v === '') continue;
    out[key] = isHttpUrl(v) ? v : failEmptyInQuirks(ctx, `${key} must be a URL starting with http:// or https://.`);
  }
  return out;
}

const PIXEL_TYPES = ['gtmpixel', 'gapixel', 'fbpixel', 'adwordspixel', 'linkedinpixel', 'twitterpixel', 'adrollpixel',
  'quorapixel', 'pinterest', 'bing', 'snapchat', 'reddit', 'tiktok'];
const pixelTag = (v: unknown) => minLength(v, 3, MESSAGES.pixelTag);

const miscRoutes = [
  route('GET /api/account', (ctx) => {
    const { planid, ...documented } = ctx.state.account;
    const basic = ctx.plan === 'basic';
    const data = basic ? { ...documented, status: 'free' } : documented;
    return { error: 0, data: ctx.quirks ? { ...data, planid: basic ? 1 : planid, expires: null } : data };
  }),
  route('PUT /api/account/update', (ctx) => {
    const email = optString(ctx.body.email, 'email');
    const password = optString(ctx.body.password, 'password');
    if ((email === undefined || email === ctx.state.account.email) && !password) fail(MESSAGES.accountUnchanged);
    if (email !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) fail('Please enter a valid email.');
    if (password && password.length < 5) fail('Password must be at least 5 characters.');
    if (email !== undefined) ctx.state.account.email = email; // the password is not kept: nothing reads it back
    return ok('Account has been successfully updated.');
  }),

  route('GET /api/domains', (ctx) => {
    // quirks: a system domain (id null) comes after the user's; the list is read backwards, so it goes first here
    const system = { id: null, domain: ctx.base, redirectroot: '', redirect404: '' };
    return list(ctx, 'domains', ctx.quirks ? [system, ...ctx.state.domains] : ctx.state.domains,
      (d) => (d.id === null ? d : { ...d, id: num(ctx, d.id) }));
  }),
  route('POST /api/domain/add', (ctx) => {
    const domain = isHttpUrl(ctx.body.domain) ? ctx.body.domain.replace(/\/+$/, '') : fail(MESSAGES.domainInvalid);
    const extra = redirects(ctx);
    if (ctx.state.domains.some((d) => d.domain.toLowerCase() === domain.toLowerCase())) fail(MESSAGES.domainUsed);
    const d = insert(ctx.state, 'domains', (id) => ({ id, domain, redirectroot: '', redirect404: '', ...extra }));
    return { error: 0, id: ctx.quirks ? String(d.id) : d.id };
  }),
  route('PUT /api/domain/:id/update', (ctx) => {
    const d = must(ctx, ctx.state.domains, MESSAGES.domainNotFound, ctx.id, true);
    Object.assign(d, redirects(ctx));
    return ok('Domain has been updated successfully.');
  }),
  deleteRoute('DELETE /api/domain/:id/delete', 'domains', MESSAGES.domainNotFound, () => 'Domain has been deleted successfully.'),

  route('GET /api/overlay', (ctx) => list(ctx, ctx.quirks ? 'overlay' : 'cta', ctx.state.overlays, (o) => ({ ...o, id: num(ctx, o.id) }))),
  route('GET /api/splash', (ctx) => list(ctx, 'splash', ctx.state.splash, (s) => s)),

  route('GET /api/pixels', (ctx) => list(ctx, 'pixels', ctx.state.pixels, (p) => ({ ...p, id: num(ctx, p.id) }))),
  route('POST /api/pixel/add', (ctx) => {
    const type = typeof ctx.body.type === 'string' && PIXEL_TYPES.includes(ctx.body.type) ? ctx.body.type : fail(MESSAGES.pixelType);
    const name = minLength(ctx.body.name, 1, 'Pixel name is required.');
    const tag = pixelTag(ctx.body.tag);
    const p = insert(ctx.state, 'pixels', (id) => ({ id, type, name, tag, date: timestamp() }));
    return { error: 0, id: ctx.quirks ? String(p.id) : p.id };
  }),
  route('PUT /api/pixel/:id/update', (ctx) => {
    const p = must(ctx, ctx.state.pixels, MESSAGES.pixelNotFound, ctx.id, true);
    const tag = pixelTag(ctx.body.tag);
    const name = optString(ctx.body.name, 'name');
    Object.assign(p, { tag }, name ? { name } : {});
    return ok('Pixel has been updated successfully.');
  }),
  deleteRoute('DELETE /api/pixel/:id/delete', 'pixels', MESSAGES.pixelNotFound, () => 'Pixel has been deleted successfully.',
    (state, id) => { for (const l of state.links) if (l.pixels?.includes(id)) l.pixels = l.pixels.filter((p) => p !== id); }),
];

// ---------------------------------------------------------------- campaigns and channels

const campaignName = (v: unknown) => minLength(v, 2, MESSAGES.campaignName);
function campaignSlug(ctx: Ctx, v: unknown, self?: number): string | null | undefined {
  const raw = optString(v, 'slug');
  if (raw === undefined) return undefined;
  const slug = slugify(raw);
  if (!slug) return null;
  if (ctx.state.campaigns.some((c) => c.id !== self && c.slug === slug)) fail(MESSAGES.slugTaken);
  return slug;
}
/** 7.6 gives a campaign created without a slug a random one. */
function randomSlug(ctx: Ctx): string {
  for (;;) {
    const slug = randomBytes(5).readUInt32BE(0).toString(36);
    if (!ctx.state.campaigns.some((c) => c.slug === slug)) return slug;
  }
}
function campaignView(ctx: Ctx, c: Campaign) {
  const list = `${ctx.base}/u/${ctx.state.account.username}/${c.slug ? `${c.slug}-${c.id}` : c.id}`;
  return {
    id: c.id, name: c.name, public: c.public,
    rotator: c.slug ? `${ctx.base}/r/${c.slug}` : false,
    list: c.slug || !ctx.quirks ? list : false,
  };
}
/** Create and update answer the name under `domain` (documented) or `campaign` (real servers). */
function campaignReply(ctx: Ctx, c: Campaign): Json {
  const { name, ...rest } = campaignView(ctx, c);
  return { error: 0, ...rest, [ctx.quirks ? 'campaign' : 'domain']: name };
}

const ITEM_TYPES = ['links', 'bio', 'qr'];
function channelFields(ctx: Ctx, requireName: boolean) {
  const b = ctx.body;
  const fields: Partial<Omit<Channel, 'id' | 'items'>> = {};
  if (requireName || b.name !== undefined) fields.name = minLength(b.name, 2, MESSAGES.channelName);
  const description = optString(b.description, 'description');
  if (description !== undefined) fields.description = description;
  const color = optString(b.color, 'color');
  if (color !== undefined) fields.color = /^#[0-9a-f]{3}([0-9a-f]{3})?$/i.test(color) ? color : fail('Color must be a HEX color such as #1e88e5.');
  const starred = optBool(b.starred);
  if (starred !== undefined) fields.starred = starred;
  return fields;
}
const channelView = ({ id, name, description, color, starred }: Channel) => ({ id, name, description, color, starred });
const inChannel = (ch: Channel, type: ChannelItem['type'], id: number) => ch.items.some((it) => it.type === type && it.id === id);
function addToChannel(ch: Channel, type: ChannelItem['type'], id: number) {
  if (!inChannel(ch, type, id)) ch.items.push({ type, id, date: timestamp().slice(0, 10) });
}
function itemView(ctx: Ctx, it: ChannelItem) {
  const base = { type: it.type, id: it.id };
  if (it.type === 'qr') {
    const q = ctx.state.qrs[indexOfId(ctx.state.qrs, it.id)];
    return { ...base, title: q?.name ?? '', preview: q ? qrUrl(ctx, q) : '', link: q ? qrUrl(ctx, q) : '', date: it.date };
  }
  if (it.type === 'bio') {
    const url = `${ctx.base}/bio/${it.id}`; // no bio-page API exists, so there is nothing to read
    return { ...base, title: `Bio page ${it.id}`, preview: url, link: url, date: it.date };
  }
  const l = ctx.state.links[indexOfId(ctx.state.links, it.id)];
  return { ...base, title: l ? l.title || l.longurl : '', preview: l?.longurl ?? '', link: l ? shortUrl(ctx, l) : '', date: it.date };
}

const groupRoutes = [
  route('GET /api/campaigns', (ctx) => list(ctx, 'campaigns', ctx.state.campaigns, (c) =>
    (ctx.quirks ? { ...campaignView(ctx, c), views: c.views } : campaignView(ctx, c)))),
  route('POST /api/campaign/add', (ctx) => {
    const name = campaignName(ctx.body.name);
    if (ctx.state.campaigns.some((c) => c.name.toLowerCase() === name.toLowerCase())) fail('You already have a campaign with that name.');
    const slug = campaignSlug(ctx, ctx.body.slug) ?? randomSlug(ctx);
    const c = insert(ctx.state, 'campaigns', (id) => ({ id, name, slug, public: optBool(ctx.body.public) ?? false, views: 0 }));
    return campaignReply(ctx, c);
  }),
  route('PUT /api/campaign/:id/update', (ctx) => {
    const c = must(ctx, ctx.state.campaigns, MESSAGES.campaignNotFound);
    // the document requires the name; 7.6 keeps the old one when none is sent
    const name = ctx.quirks && ctx.body.name === undefined ? c.name : campaignName(ctx.body.name);
    const slug = campaignSlug(ctx, ctx.body.slug, c.id);
    const pub = optBool(ctx.body.public);
    Object.assign(c, { name }, slug === undefined ? {} : { slug }, pub === undefined ? {} : { public: pub });
    return campaignReply(ctx, c);
  }),
  route('POST /api/campaign/:campaignid/assign/:linkid', (ctx) => {
    const c = must(ctx, ctx.state.campaigns, MESSAGES.campaignNotFound, ctx.ids.campaignid);
    must(ctx, ctx.state.links, MESSAGES.campaignAssignLinkNotFound, ctx.ids.linkid).campaign = c.id;
    return ok('Link successfully added to the campaign.');
  }),
  deleteRoute('DELETE /api/campaign/:id/delete', 'campaigns', MESSAGES.campaignNotFound, () => 'Campaign has been deleted successfully.',
    (state, id) => { for (const l of state.links) if (l.campaign === id) delete l.campaign; }),

  route('GET /api/channels', (ctx) => list(ctx, 'channels', ctx.state.channels, channelView)),
  route('GET /api/channel/:id', (ctx) =>
    list(ctx, 'items', must(ctx, ctx.state.channels, MESSAGES.channelNotFound).items, (it) => itemView(ctx, it))),
  route('POST /api/channel/add', (ctx) => {
    const fields = { description: '', color: '#000000', starred: false, ...channelFields(ctx, true) } as Omit<Channel, 'id' | 'items'>;
    if (ctx.state.channels.some((ch) => ch.name.toLowerCase() === fields.name.toLowerCase())) fail('You already have a channel with this name.');
    const ch = insert(ctx.state, 'channels', (id) => ({ id, ...fields, items: [] }));
    return { error: 0, ...channelView(ch) };
  }),
  route('PUT /api/channel/:id/update', (ctx) => {
    const ch = must(ctx, ctx.state.channels, MESSAGES.channelNotFound);
    Object.assign(ch, channelFields(ctx, false));
    return ctx.quirks ? { error: 0, ...channelView(ch) } : ok('Channel has been updated successfully.');
  }),
  route('POST /api/channel/:channelid/assign/:type/:itemid', (ctx) => {
    const ch = must(ctx, ctx.state.channels, MESSAGES.channelNotFound, ctx.ids.channelid);
    let type = ctx.params.type!;
    if (!ITEM_TYPES.includes(type)) {
      if (!ctx.quirks) fail('Invalid item type. Allowed types: links, bio, qr.');
      type = 'links'; // real servers do not check the type and store the item as a link
    }
    const itemId = ctx.ids.itemid!;
    if (type === 'links') must(ctx, ctx.state.links, MESSAGES.channelAssignLinkNotFound, itemId);
    if (type === 'qr') must(ctx, ctx.state.qrs, MESSAGES.channelAssignQrNotFound, itemId);
    // an error, though the wanted state holds
    if (inChannel(ch, type as ChannelItem['type'], itemId)) fail(MESSAGES.alreadyInChannel);
    addToChannel(ch, type as ChannelItem['type'], itemId);
    return ok(ctx.quirks ? 'Link successfully added to the channel.' : 'Item successfully added to the channel.');
  }),
  // the items live inside the channel, so deleting it unassigns them
  deleteRoute('DELETE /api/channel/:id/delete', 'channels', MESSAGES.channelNotFound, () => 'Channel has been deleted successfully.'),
];

// ---------------------------------------------------------------- short links

const shortUrl = (ctx: Ctx, l: Link) => `${l.domain ?? ctx.base}/${l.alias}`;

function targets(key: string, field: string) {
  return (v: unknown) => (Array.isArray(v) && v.every((t) => isObject(t) && typeof t[field] === 'string' && typeof t.link === 'string')
    ? (v as Record<string, string>[]).map((t) => ({ [field]: t[field]!, link: t.link! }))
    : fail(`${key} must be a list of {${field}, link}.`));
}
const text = (key: string) => (v: unknown) => optString(v, key)!;
/**
 * The user's branded domain that `v` names (scheme and case aside). Anything else (a typo,
 * someone else's domain, the site itself) is silently the default domain, as on 7.6: undefined.
 */
function userDomain(ctx: Ctx, v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const host = bareHost(v);
  return ctx.state.domains.find((d) => bareHost(d.domain) === host)?.domain;
}
type Parsers = { [K in keyof LinkOptions]-?: (v: unknown, ctx: Ctx) => LinkOptions[K] };
const OPTION_PARSERS: Parsers = {
  // checked first, in the product's order (then the alias, then the duplicate check)
  expiry: (v) => {
    const s = optString(v, 'expiry')!;
    const t = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(s) ? Date.parse(`${s.replace(' ', 'T')}Z`) : NaN;
    return t > Date.now() ? s : fail('The expiry date must be a date in the future (YYYY-MM-DD HH:MM:SS).');
  },
  domain: (v, ctx) => userDomain(ctx, v),
  type: text('type'), password: text('password'), status: text('status'), // not checked by real servers either
  geotarget: targets('geotarget', 'location'), devicetarget: targets('devicetarget', 'device'),
  languagetarget: targets('languagetarget', 'language'),
  metatitle: text('metatitle'), metadescription: text('metadescription'), metaimage: text('metaimage'), description: text('description'),
  pixels: (v, ctx) => (Array.isArray(v) ? v : fail('pixels must be a list of pixel ids.'))
    .map((p) => must(ctx, ctx.state.pixels, MESSAGES.pixelNotFound, Number(p)).id),
  campaign: (v, ctx) => must(ctx, ctx.state.campaigns, MESSAGES.campaignNotFound, Number(v)).id,
  deeplink: (v) => (isObject(v) && !Array.isArray(v) ? v : fail('deeplink must be an object {auto, apple, google}.')),
  parameters: (v) => (Array.isArray(v) ? v : fail('parameters must be a list of {name, value}.')),
};
const OPTION_KEYS = Object.keys(OPTION_PARSERS) as (keyof LinkOptions)[];
const EARLY_KEYS: (keyof LinkOptions)[] = ['expiry', 'domain'];
const LATER_KEYS = OPTION_KEYS.filter((k) => !EARLY_KEYS.includes(k));
type Options = Partial<Record<keyof LinkOptions, unknown>>;

/** The options among `keys` present in the body; an explicit null or '' maps to undefined, meaning "clear it". */
function linkOptions(ctx: Ctx, body: Json, keys: readonly (keyof LinkOptions)[]): Options {
  const out: Options = {};
  for (const key of keys) {
    const v = body[key];
    if (v === undefined) continue;
    // `"domain": false` is how some clients say "the default domain"
    out[key] = v === null || v === '' || (key === 'domain' && v === false) ? undefined : OPTION_PARSERS[key](v, ctx);
  }
  return out;
}
function applyOptions(l: Link, opts: Options) {
  const rec = l as unknown as Record<string, unknown>;
  for (const [key, v] of Object.entries(opts)) if (v === undefined) delete rec[key]; else rec[key] = v;
  if (typeof opts.metatitle === 'string') l.title = opts.metatitle;
}

/** Body fields that an account without the feature loses silently (`custom` is the alias). */
const PLAN_FIELDS = ['geotarget', 'devicetarget', 'languagetarget', 'expiry', 'parameters', 'pixels', 'deeplink', 'custom'];
/** The body as the product reads it for the account's plan: `basic` drops, without a word, what it lacks. */
function withinPlan(ctx: Ctx): Json {
  if (ctx.plan !== 'basic') return ctx.body;
  const body = { ...ctx.body };
  for (const key of PLAN_FIELDS) delete body[key];
  // frame, splash (an id) and overlay-N redirects; a direct one is in every plan
  if (body.type !== undefined && body.type !== null && body.type !== '' && body.type !== 'direct') delete body.type;
  return body;
}

/**
 * The alias a link gets for `custom`, by the product's rule (src/model/aliases.ts): 3 bytes at
 * least as sent, then rewritten; `café` and `日本語` are kept, `with space` becomes `with-space`,
 * and one that the rewrite empties (`???`) is stored empty, as the product stores it.
 */
function claimAlias(ctx: Ctx, v: unknown, domain: string | undefined, self?: number): string | undefined {
  const raw = optString(v, 'custom') ?? '';
  if (!raw) return undefined;
  if (refusedAsShort(raw)) fail(MESSAGES.aliasShort);
  const alias = serverAlias(raw);
  // an alias is unique on its domain
  const lower = alias.toLowerCase();
  if (ctx.state.links.some((l) => l.id !== self && l.alias.toLowerCase() === lower && l.domain === domain)) fail(MESSAGES.aliasTaken);
  return alias;
}
function freeAlias(ctx: Ctx, id: number): string {
  const taken = new Set(ctx.state.links.map((l) => l.alias.toLowerCase()));
  let salt = 0;
  while (taken.has(slugFor(id, salt))) salt++;
  return slugFor(id, salt);
}

/** What must match for 7.6 to return an existing link instead of a new one (besides destination, domain and a given alias). */
const DUPLICATE_KEYS = ['geotarget', 'devicetarget', 'languagetarget', 'deeplink', 'pixels', 'parameters', 'password', 'type'] as const;
function duplicateOf(ctx: Ctx, url: string, domain: string | undefined, alias: string | undefined, opts: Options): Link | undefined {
  const norm = (key: string, v: unknown) => (v === undefined || (Array.isArray(v) && v.length === 0) || (key === 'type' && v === 'direct') ? null : v);
  const same = (key: string, a: unknown, b: unknown) => JSON.stringify(norm(key, a)) === JSON.stringify(norm(key, b));
  return ctx.state.links.find((l) => l.longurl === url && l.domain === domain
    && (alias === undefined || l.alias.toLowerCase() === alias.toLowerCase())
    && DUPLICATE_KEYS.every((key) => same(key, l[key], opts[key])));
}

const channelOf = (ctx: Ctx, body: Json) =>
  (body.channel === undefined || body.channel === null || body.channel === ''
    ? undefined : must(ctx, ctx.state.channels, MESSAGES.channelNotFound, Number(body.channel)));
const longUrl = (v: unknown) => (isHttpUrl(v) ? v : fail(v === undefined || v === null || v === '' ? MESSAGES.missingUrl : MESSAGES.invalidUrl));

/** A link's item of `GET /api/urls` (7.6: integer id, string counts, channel ids as strings). */
function linkItem(ctx: Ctx, l: Link) {
  const channels = ctx.state.channels.filter((ch) => inChannel(ch, 'links', l.id)).map((ch) => ch.id);
  return {
    id: l.id, alias: l.alias, shorturl: shortUrl(ctx, l), longurl: l.longurl, title: l.title,
    description: l.description ?? '', clicks: num(ctx, l.clicks), uniqueclicks: num(ctx, l.uniqueclicks),
    // real servers name the site itself as the domain of a link on the default domain
    domain: l.domain ?? (ctx.quirks ? ctx.base : null), campaign: l.campaign ?? null,
    channel: ctx.quirks ? channels.map(String) : channels,
    date: l.date,
  };
}
function location(ctx: Ctx, l: Link) {
  if (!l.geotarget?.length) return null;
  return Object.fromEntries(l.geotarget.map((t) =>
    (ctx.quirks ? [t.location!.toLowerCase(), { all: t.link }] : [t.location!, t.link])));
}
/** `GET /api/url/:id`, and (7.6) the answer to `GET /api/urls?short=`: no domain, campaign or channel. */
function linkDetail(ctx: Ctx, l: Link): Json {
  const device = ctx.quirks || !l.devicetarget?.length ? null : Object.fromEntries(l.devicetarget.map((t) => [t.device!, t.link]));
  return {
    error: 0, id: l.id,
    details: {
      id: l.id, alias: l.alias, shorturl: shortUrl(ctx, l), longurl: l.longurl, title: l.title, description: l.description ?? '',
      location: location(ctx, l), device, expiry: l.expiry ?? null, date: l.date,
    },
    data: linkStats(ctx, l.stats),
  };
}

/**
 * The link a `?short=` URL names; its scheme is optional. Links on the default domain match by
 * alias on any loopback address: the embedded sandbox (--sandbox) gets a new port every run, so
 * a short URL printed by an earlier run names another port.
 */
function byShortUrl(ctx: Ctx, short: string): Link {
  let url: URL | undefined;
  try { url = new URL(/^https?:\/\//i.test(short) ? short : `http://${short}`); } catch { /* answered below */ }
  const host = url?.hostname ?? '';
  const urlLike = url && !/\s/.test(short) && (host.includes('.') || host === 'localhost' || host.startsWith('[')) && url.pathname.length > 1;
  if (!url || !urlLike) fail(MESSAGES.shortInvalid);
  let alias = url!.pathname.slice(1).replace(/\/+$/, '');
  try { alias = decodeURIComponent(alias); } catch { /* as it is */ }
  const where = url!.host.toLowerCase();
  const local = where === bareHost(ctx.base) || /^(127\.0\.0\.1|localhost)(:\d+)?$/.test(where);
  return ctx.state.links.find((l) => l.alias === alias && (l.domain ? bareHost(l.domain) === where : local)) ?? fail(MESSAGES.shortUnknown);
}

const linkRoutes = [
  route('GET /api/urls', (ctx) => {
    const { short, q, order } = ctx.query;
    // 6.x servers ignore `short` and answer the list
    if (short !== undefined && ctx.version !== '6') return linkDetail(ctx, byShortUrl(ctx, short));
    let links = ctx.state.links;
    if (q) {
      // LIKE %q% over the destination, the alias and the title
      const needle = q.toLowerCase();
      links = links.filter((l) => [l.alias, l.longurl, l.title].some((s) => s.toLowerCase().includes(needle)));
    }
    // by clicks: a sorted copy, ties newest first, so paging stays stable
    const reply = order === 'click'
      ? list(ctx, 'urls', [...links].sort((a, b) => b.clicks - a.clicks || b.id - a.id), (l) => linkItem(ctx, l), false)
      : list(ctx, 'urls', links, (l) => linkItem(ctx, l));
    return ctx.quirks ? withFloatMaxpage(reply) : reply;
  }),
  route('GET /api/url/:id', (ctx) => linkDetail(ctx, must(ctx, ctx.state.links, MESSAGES.linkNotFound))),
  route('POST /api/url/add', (ctx) => {
    const body = withinPlan(ctx);
    // the product's order: URL, expiry, domain, alias, then the duplicate check
    const url = longUrl(body.url);
    const early = linkOptions(ctx, body, EARLY_KEYS);
    const domain = early.domain as string | undefined;
    const alias = claimAlias(ctx, body.custom, domain);
    const opts: Options = { ...early, ...linkOptions(ctx, body, LATER_KEYS) };
    const channel = channelOf(ctx, body);
    if (ctx.quirks) {
      const existing = duplicateOf(ctx, url, domain, alias, opts);
      if (existing) return { error: 0, id: existing.id, shorturl: shortUrl(ctx, existing) };
    }
    const l = insert(ctx.state, 'links', (id) =>
      ({ id, alias: alias ?? freeAlias(ctx, id), longurl: url, title: '', clicks: 0, uniqueclicks: 0, date: timestamp() }));
    applyOptions(l, opts);
    if (channel) addToChannel(channel, 'links', l.id);
    return { error: 0, id: l.id, shorturl: shortUrl(ctx, l) };
  }),
  route('PUT /api/url/:id/update', (ctx) => {
    const l = must(ctx, ctx.state.links, MESSAGES.linkNotFound);
    const body = withinPlan(ctx);
    const url = body.url === undefined ? undefined : longUrl(body.url);
    const early = linkOptions(ctx, body, EARLY_KEYS);
    // real servers replace: without `domain` the link goes to the default domain
    const domain = 'domain' in early || ctx.quirks ? early.domain as string | undefined : l.domain;
    const alias = claimAlias(ctx, body.custom, domain, l.id);
    const opts: Options = { ...early, ...linkOptions(ctx, body, LATER_KEYS) };
    const channel = channelOf(ctx, body);
    if (ctx.quirks) {
      // every option not sent is cleared and the link turns private
      for (const key of OPTION_KEYS) delete l[key];
      l.status = 'private';
      if (body.metatitle === undefined) l.title = ''; // the title is the metatitle field, replaced like the rest
    }
    applyOptions(l, opts);
    if (url !== undefined) l.longurl = url;
    if (alias !== undefined) l.alias = alias;
    // adds to that channel, leaving the others
    if (channel) addToChannel(channel, 'links', l.id);
    return { error: 0, id: l.id, [ctx.quirks ? 'shorturl' : 'short']: shortUrl(ctx, l) };
  }),
  deleteRoute('DELETE /api/url/:id/delete', 'links', MESSAGES.linkNotFound, () => 'Link has been successfully deleted.', unassign('links')),
];

const routes: Route[] = [...miscRoutes, ...qrRoutes, ...groupRoutes, ...linkRoutes];

const decode = (s: string) => { try { return decodeURIComponent(s); } catch { return s; } };

/** Routes one authenticated, rate-limit-cleared API request. */
export function dispatch(env: Env, method: string, path: string, query: Record<string, string>, rawBody: string): Reply {
  const segments = path.split('/');
  let pathKnown = false;
  for (const r of routes) {
    if (r.segments.length !== segments.length) continue;
    const params: Record<string, string> = {};
    if (!r.segments.every((s, i) => (s.startsWith(':') ? ((params[s.slice(1)] = decode(segments[i]!)), true) : s === segments[i]))) continue;
    pathKnown = true;
    if (r.method !== method) continue;

    const ids: Record<string, number> = {};
    for (const [name, value] of Object.entries(params)) {
      if (!name.endsWith('id')) continue;
      if (!/^\d+$/.test(value)) return env.quirks ? htmlPage(500) : { error: 1, message: 'Invalid id.' };
      ids[name] = Number(value);
    }
    let body: unknown = {};
    if (method !== 'GET' && rawBody.trim() !== '') {
      try { body = JSON.parse(rawBody); } catch { body = undefined; }
      if (!isObject(body) || Array.isArray(body)) return { error: 1, message: 'Invalid JSON body.' };
    }
    try {
      return r.handler({ ...env, params, ids, id: ids.id ?? 0, query, body: body as Json });
    } catch (err) {
      if (err instanceof Halt) return err.reply;
      throw err;
    }
  }
  return htmlPage(pathKnown ? 405 : 404);
}
