// Short links: the twin of src/model/links.ts. What the product does with each field (kept,
// answered under which key, lost on update) is the model's table; these routes follow it.
import {
  deleteRoute, fail, Halt, isHttpUrl, Raw, isObject, linkStats, list, MESSAGES, must, num, optString, route, unassign, withFloatMaxpage, bareHost,
  type Ctx, type Json,
} from './kit.js';
import { filteredWord, isReserved, refusedAsShort, serverAlias } from '../model/aliases.js';
import { addToChannel, inChannel, insert, slugFor, timestamp, type Link, type LinkOptions } from './state.js';

export const shortUrl = (ctx: Ctx, l: Link) => `${l.domain ?? ctx.base}/${l.alias}`;

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
    return t > Date.now() ? s : fail(MESSAGES.expiryPast);
  },
  domain: (v, ctx) => userDomain(ctx, v),
  type: text('type'), password: text('password'), status: text('status'), // not checked by real servers either
  geotarget: targets('geotarget', 'location'), devicetarget: targets('devicetarget', 'device'),
  languagetarget: targets('languagetarget', 'language'),
  metatitle: text('metatitle'), metadescription: text('metadescription'), metaimage: text('metaimage'), description: text('description'),
  pixels: (v, ctx) => (Array.isArray(v) ? v : fail('pixels must be a list of pixel ids.'))
    .map((p) => must(ctx, ctx.state.pixels, MESSAGES.pixelNotFound, Number(p)).id),
  campaign: (v, ctx) => must(ctx, ctx.state.campaigns, MESSAGES.campaignNotFound, Number(v)).id,
  deeplink: (v) => {
    if (!isObject(v) || Array.isArray(v)) fail('deeplink must be an object {auto, apple, google}.');
    // 7.7 on Linux loads the helper of automatic deep links under the wrong letter case: an empty HTTP 500, nothing created
    if ((v as Json).auto === true || (v as Json).auto === 1 || (v as Json).auto === '1' || (v as Json).auto === 'true') throw new Halt(new Raw(500, ''));
    return v as Json;
  },
  parameters: (v) => (Array.isArray(v) ? v : fail('parameters must be a list of {name, value}.')),
};
const OPTION_KEYS = Object.keys(OPTION_PARSERS) as (keyof LinkOptions)[];
const EARLY_KEYS: (keyof LinkOptions)[] = ['expiry', 'domain'];
const LATER_KEYS = OPTION_KEYS.filter((k) => !EARLY_KEYS.includes(k));
/** What an update reads of the body: everything but the note, which only a create stores. */
const UPDATE_KEYS = LATER_KEYS.filter((k) => k !== 'description');
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
  // the product's word filter, matched anywhere in any case (`dickens-books` for "dick"; `newone`)
  if (filteredWord(raw) !== undefined) fail(MESSAGES.aliasInappropriate);
  const alias = serverAlias(raw);
  // an alias is unique on its domain
  const lower = alias.toLowerCase();
  if (ctx.state.links.some((l) => l.id !== self && l.alias.toLowerCase() === lower && l.domain === domain)) fail(MESSAGES.aliasTaken);
  // the first path segment of the product's own pages, in any case (real-servers.md, 9), checked after "taken"
  if (isReserved(raw)) fail(MESSAGES.aliasReserved);
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
/** A plain user's URL on the site's own host, whatever its port, is refused; an admin's is taken (real-servers.md, 39). */
function ownSiteRefused(ctx: Ctx, url: string): string {
  if (ctx.admin !== false) return url;
  let host: string | undefined;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return url;
  }
  return host === new URL(ctx.base).hostname.toLowerCase() ? fail(MESSAGES.ownSite) : url;
}
const longUrl = (v: unknown) => (isHttpUrl(v) ? v : fail(v === undefined || v === null || v === '' ? MESSAGES.missingUrl : MESSAGES.invalidUrl));

/**
 * A link's item of `GET /api/urls`: an integer id; counts and channel ids as integers (PHP 8) or
 * strings (older PHP); `title` and `description` are the META title and description (7.7), never
 * the note sent as `description`; a channel deleted since leaves a `null` in `channel`.
 */
function linkItem(ctx: Ctx, l: Link) {
  const channels: Array<number | string | null> = ctx.state.channels.filter((ch) => inChannel(ch, 'links', l.id)).map((ch) => num(ctx, ch.id));
  if (ctx.quirks) for (let i = 0; i < (l.deletedChannels ?? 0); i++) channels.push(null);
  return {
    id: l.id, alias: l.alias, shorturl: shortUrl(ctx, l), longurl: l.longurl, title: metaTitle(ctx, l),
    description: metaDescription(ctx, l), clicks: num(ctx, l.clicks), uniqueclicks: num(ctx, l.uniqueclicks),
    // real servers name the site itself as the domain of a link on the default domain
    domain: l.domain ?? (ctx.quirks ? ctx.base : null), campaign: l.campaign ?? null,
    channel: channels,
    date: l.date,
  };
}
/**
 * The meta title and description as answered: `null` when the link has none on 7.7 (the product
 * stores the destination page's <title>, and nothing when it cannot fetch one: the recording).
 */
const metaTitle = (ctx: Ctx, l: Link) => (ctx.quirks && !l.title ? null : l.title);
const metaDescription = (ctx: Ctx, l: Link) => l.metadescription ?? (ctx.quirks ? null : '');
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
      id: l.id, alias: l.alias, shorturl: shortUrl(ctx, l), longurl: l.longurl, title: metaTitle(ctx, l), description: metaDescription(ctx, l),
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

export const linkRoutes = [
  route('GET /api/urls', (ctx) => {
    const { short, q, order } = ctx.query;
    // 6.x servers ignore `short` and answer the list
    if (short !== undefined && ctx.version !== '6') return linkDetail(ctx, byShortUrl(ctx, short));
    let links = ctx.state.links;
    if (q) {
      // LIKE %q% over the destination, the alias and the title
      const needle = q.toLowerCase();
      links = links.filter((l) => [l.alias, l.longurl, l.title ?? ''].some((s) => s.toLowerCase().includes(needle)));
    }
    // by clicks: a sorted copy, ties newest first, so paging stays stable
    const reply = order === 'click'
      ? list(ctx, 'urls', [...links].sort((a, b) => b.clicks - a.clicks || b.id - a.id), (l) => linkItem(ctx, l), false)
      : list(ctx, 'urls', links, (l) => linkItem(ctx, l));
    return ctx.quirks && ctx.stringIds ? withFloatMaxpage(reply) : reply;
  }),
  route('GET /api/url/:id', (ctx) => linkDetail(ctx, must(ctx, ctx.state.links, MESSAGES.linkNotFound))),
  route('POST /api/url/add', (ctx) => {
    const body = withinPlan(ctx);
    // the product's order: URL, expiry, domain, alias, then the duplicate check
    const url = ownSiteRefused(ctx, longUrl(body.url));
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
    const url = body.url === undefined ? undefined : ownSiteRefused(ctx, longUrl(body.url));
    const early = linkOptions(ctx, body, EARLY_KEYS);
    // real servers replace: without `domain` the link goes to the default domain
    const domain = 'domain' in early || ctx.quirks ? early.domain as string | undefined : l.domain;
    const alias = claimAlias(ctx, body.custom, domain, l.id);
    // the note (`description`) is stored on create only: an update never writes it (7.4 to 7.7)
    const opts: Options = { ...early, ...linkOptions(ctx, body, UPDATE_KEYS) };
    const channel = channelOf(ctx, body);
    if (ctx.quirks) {
      // every option not sent is cleared (the note aside: never written) and the link turns private, whatever `status` says
      for (const key of UPDATE_KEYS) delete l[key];
      delete l.expiry;
      delete l.domain;
      // the title is kept: an update of the meta description alone left it (the recording of 7.7)
    }
    applyOptions(l, opts);
    if (ctx.quirks) l.status = 'private';
    if (url !== undefined) l.longurl = url;
    if (alias !== undefined) l.alias = alias;
    // adds to that channel, leaving the others
    if (channel) addToChannel(channel, 'links', l.id);
    return { error: 0, id: l.id, [ctx.quirks ? 'shorturl' : 'short']: shortUrl(ctx, l) };
  }),
  deleteRoute('DELETE /api/url/:id/delete', 'links', MESSAGES.linkNotFound, () => 'Link has been successfully deleted.', unassign('links')),
];

