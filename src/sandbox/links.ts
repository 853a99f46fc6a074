// Short links: the twin of src/model/links.ts. What the product does with each field (kept,
// answered under which key, lost on update, rewritten) is the model's table and src/model/rewrites.ts;
// these routes follow them. The default (quirks) mode answers as the product 7.7 does with what it
// is sent (real-servers.md, facts 1-18); `quirks: false` keeps the documented shapes and checks.
import {
  add, deleteRoute, fail, Halt, isHttpUrl, Raw, isObject, linkStats, list, mine, MESSAGES, must, nowStamp, num, optString, route, withFloatMaxpage, bareHost,
  type Ctx, type Json,
} from './kit.js';
import { filteredWord, isReserved, refusedAsShort, serverAlias } from '../model/aliases.js';
import { acceptedDestination, cleanedText, destinationAsStored, expiryAsStored, phpString } from '../model/rewrites.js';
import { SANDBOX_OWN_ORIGINS } from './own-origin.js';
import {
  addChannelEntry, addToChannel, channelsHolding, dropItems, indexOfId, linkChannels, ownerOf, slugFor, type Link, type LinkOptions,
} from './state.js';

export const shortUrl = (ctx: Ctx, l: Link) => `${l.domain ?? ctx.base}/${l.alias}`;

type Parser<T> = (v: unknown, ctx: Ctx) => T | undefined;
/** Targets as the product keeps them: a list of `{location|device|language, link}`; anything else is ignored (fact 11), a target whose link is not a URL dropped (fact 12). */
function targets(key: string, field: string): Parser<Array<Record<string, string>>> {
  return (v, ctx) => {
    const shaped = Array.isArray(v) && v.every((t) => isObject(t) && typeof t[field] === 'string' && typeof t.link === 'string');
    if (!ctx.quirks) {
      return shaped ? (v as Record<string, string>[]).map((t) => ({ [field]: t[field]!, link: t.link! })) : fail(`${key} must be a list of {${field}, link}.`);
    }
    if (!Array.isArray(v)) return undefined;
    const kept = v.filter((t): t is Json => isObject(t) && typeof t[field] === 'string' && typeof t.link === 'string' && acceptedDestination(t.link))
      .map((t) => ({ [field]: t[field] as string, link: destinationAsStored(t.link as string) }));
    return kept.length ? kept : undefined;
  };
}
/** Text as the product stores it: any JSON value as PHP writes it (a list is `Array`), HTML-cleaned (fact 15). */
const text = (key: string): Parser<string> => (v, ctx) => (ctx.quirks ? cleanedText(phpString(v)) : optString(v, key));
/** Text kept as sent (a password, a redirect type: not checked by real servers either). */
const raw = (key: string): Parser<string> => (v, ctx) => (ctx.quirks ? phpString(v) : optString(v, key));
/**
 * The user's branded domain that `v` names, else undefined: the default domain, with no error (as on
 * 7.6). 7.7 takes only a domain written as stored, scheme included (fact 10); the documented mode
 * matches the host, scheme and letter case aside.
 */
function userDomain(ctx: Ctx, v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  const own = mine(ctx, ctx.state.domains);
  if (ctx.quirks) return own.find((d) => d.domain === v)?.domain;
  const host = bareHost(v);
  return own.find((d) => bareHost(d.domain) === host)?.domain;
}
/** An expiry PHP's date parser reads, stored `YYYY-MM-DD HH:MM:SS`, and later than now (fact 13); anything else is refused. */
function expiry(v: unknown, ctx: Ctx): string {
  if (!ctx.quirks) {
    const s = optString(v, 'expiry')!;
    const t = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(s) ? Date.parse(`${s.replace(' ', 'T')}Z`) : NaN;
    return t > ctx.now() ? s : fail(MESSAGES.expiryPast);
  }
  const stored = typeof v === 'string' ? expiryAsStored(v, ctx.now()) : undefined;
  return stored !== undefined && Date.parse(`${stored.replace(' ', 'T')}Z`) > ctx.now() ? stored : fail(MESSAGES.expiryPast);
}
type Parsers = { [K in keyof Omit<LinkOptions, 'owner'>]-?: Parser<NonNullable<LinkOptions[K]>> };
const OPTION_PARSERS: Parsers = {
  // checked first, in the product's order (then the alias, then the duplicate check)
  expiry,
  domain: (v, ctx) => userDomain(ctx, v),
  type: raw('type'), password: raw('password'), status: raw('status'),
  geotarget: targets('geotarget', 'location'), devicetarget: targets('devicetarget', 'device'),
  languagetarget: targets('languagetarget', 'language'),
  metatitle: text('metatitle'), metadescription: text('metadescription'), metaimage: raw('metaimage'), description: text('description'),
  // ids that are not the user's pixels, or a campaign that is not the user's, are dropped in silence on 7.7 (fact 7)
  pixels: (v, ctx) => {
    if (!Array.isArray(v)) return ctx.quirks ? undefined : fail('pixels must be a list of pixel ids.');
    if (!ctx.quirks) return v.map((p) => must(ctx, ctx.state.pixels, MESSAGES.pixelNotFound, Number(p)).id);
    const own = new Set(mine(ctx, ctx.state.pixels).map((p) => p.id));
    const kept = v.map(Number).filter((id) => own.has(id));
    return kept.length ? kept : undefined;
  },
  campaign: (v, ctx) => {
    if (!ctx.quirks) return must(ctx, ctx.state.campaigns, MESSAGES.campaignNotFound, Number(v)).id;
    const i = indexOfId(ctx.state.campaigns, Number(v));
    return i >= 0 && ownerOf(ctx.state.campaigns[i]!) === ctx.user.id ? ctx.state.campaigns[i]!.id : undefined;
  },
  deeplink: (v, ctx) => {
    if (!isObject(v) || Array.isArray(v)) return ctx.quirks ? undefined : fail('deeplink must be an object {auto, apple, google}.');
    // 7.7 on Linux loads the helper of automatic deep links under the wrong letter case: an empty HTTP 500, nothing created
    if ((v as Json).auto === true || (v as Json).auto === 1 || (v as Json).auto === '1' || (v as Json).auto === 'true') throw new Halt(new Raw(500, ''));
    return v as Json;
  },
  parameters: (v, ctx) => (Array.isArray(v) ? v : ctx.quirks ? undefined : fail('parameters must be a list of {name, value}.')),
};
type OptionKey = keyof Parsers;
const OPTION_KEYS = Object.keys(OPTION_PARSERS) as OptionKey[];
const EARLY_KEYS: OptionKey[] = ['expiry', 'domain'];
const LATER_KEYS = OPTION_KEYS.filter((k) => !EARLY_KEYS.includes(k));
/** What an update reads of the body: everything but the note, which only a create stores. */
const UPDATE_KEYS = LATER_KEYS.filter((k) => k !== 'description');
type Options = Partial<Record<OptionKey, unknown>>;

/** The options among `keys` present in the body; an explicit null or '' (or one the product ignores) maps to undefined, meaning "clear it". */
function linkOptions(ctx: Ctx, body: Json, keys: readonly OptionKey[]): Options {
  const out: Options = {};
  for (const key of keys) {
    const v = body[key];
    if (v === undefined) continue;
    // `"domain": false` is how some clients say "the default domain"
    out[key] = v === null || v === '' || (key === 'domain' && v === false) ? undefined : (OPTION_PARSERS[key] as Parser<unknown>)(v, ctx);
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

/** The column of a custom alias holds 100 characters (fact 14). */
const ALIAS_COLUMN = 100;
/** The meta title's column holds 191 characters (fact 14). */
const META_TITLE_COLUMN = 191;
const tooLong = (column: string) => fail(`SQLSTATE[22001]: String data, right truncated: 1406 Data too long for column '${column}' at row 1`);

/**
 * The alias a link gets for `custom`, by the product's rule (src/model/aliases.ts): 3 bytes at
 * least as sent, then rewritten; `café` and `日本語` are kept, `with space` becomes `with-space`,
 * and one that the rewrite empties (`???`) is stored empty, as the product stores it. An alias is
 * unique on its domain, and the default domain's are shared by every user of the installation.
 */
function claimAlias(ctx: Ctx, v: unknown, domain: string | undefined, self?: number): string | undefined {
  const asked = ctx.quirks ? (v === undefined || v === null || v === false ? '' : phpString(v)) : optString(v, 'custom') ?? '';
  if (!asked) return undefined;
  if (refusedAsShort(asked)) fail(MESSAGES.aliasShort);
  // the product's word filter (its default list: src/model/aliases.ts), matched anywhere in any case
  if (filteredWord(asked) !== undefined) fail(MESSAGES.aliasInappropriate);
  const alias = serverAlias(asked);
  const lower = alias.toLowerCase();
  if (ctx.state.links.some((l) => l.id !== self && l.alias.toLowerCase() === lower && l.domain === domain)) fail(MESSAGES.aliasTaken);
  // the first path segment of the product's own pages, in any case (real-servers.md, 9), checked after "taken"
  if (ctx.quirks && isReserved(asked)) fail(MESSAGES.aliasReserved);
  if (ctx.quirks && [...alias].length > ALIAS_COLUMN) tooLong('custom');
  return alias;
}
const ALIAS_LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
/**
 * A generated alias: 5 letters in mixed case as the product makes them (`nbWHj`, its alias length 5),
 * derived from the id so that seeds and tests are reproducible; the documented mode keeps the
 * sandbox's older form.
 */
function freeAlias(ctx: Ctx, id: number): string {
  const taken = new Set(ctx.state.links.map((l) => l.alias.toLowerCase()));
  for (let salt = 0; ; salt++) {
    let alias = slugFor(id, salt);
    if (ctx.quirks) {
      let n = Math.imul(id + salt * 7919, 2654435761) >>> 0;
      alias = '';
      for (let i = 0; i < 5; i++) { alias += ALIAS_LETTERS[n % 52]; n = Math.imul(n ^ (n >>> 13), 1597334677) >>> 0; }
    }
    if (!taken.has(alias.toLowerCase())) return alias;
  }
}

/** What must match for 7.6 to return an existing link instead of a new one (besides destination, domain and a given alias). */
const DUPLICATE_KEYS = ['geotarget', 'devicetarget', 'languagetarget', 'deeplink', 'pixels', 'parameters', 'password', 'type'] as const;
function duplicateOf(ctx: Ctx, url: string, domain: string | undefined, alias: string | undefined, opts: Options): Link | undefined {
  const norm = (key: string, v: unknown) => (v === undefined || (Array.isArray(v) && v.length === 0) || (key === 'type' && v === 'direct') ? null : v);
  const same = (key: string, a: unknown, b: unknown) => JSON.stringify(norm(key, a)) === JSON.stringify(norm(key, b));
  return mine(ctx, ctx.state.links).find((l) => l.qr === undefined && l.longurl === url && l.domain === domain
    && (alias === undefined || l.alias.toLowerCase() === alias.toLowerCase())
    && DUPLICATE_KEYS.every((key) => same(key, l[key], opts[key])));
}

/** The user's channel `body.channel` names; on 7.7 one that is not the user's is ignored on create. */
function channelOf(ctx: Ctx, body: Json) {
  if (body.channel === undefined || body.channel === null || body.channel === '') return undefined;
  if (!ctx.quirks) return must(ctx, ctx.state.channels, MESSAGES.channelNotFound, Number(body.channel));
  const i = indexOfId(ctx.state.channels, Number(body.channel));
  return i >= 0 && ownerOf(ctx.state.channels[i]!) === ctx.user.id ? ctx.state.channels[i] : undefined;
}
/**
 * The destination as stored (fact 8): a scheme added to a bare one (`dest.invalid/x`), then accepted
 * when the installation's schemes and a host allow it; a missing `url` or null is a message of its own.
 */
function longUrl(ctx: Ctx, v: unknown): string {
  if (v === undefined || v === null) fail(MESSAGES.missingUrl);
  if (!ctx.quirks) return isHttpUrl(v) ? v : fail(v === '' ? MESSAGES.missingUrl : MESSAGES.invalidUrl);
  return typeof v === 'string' && acceptedDestination(v) ? destinationAsStored(v) : fail(MESSAGES.invalidUrl);
}

/** File endings the product does not fetch for a title: it names the link "This is a downloadable file." (fact 16). */
const DOWNLOADABLE = /\.(zip|rar|7z|tar|gz|tgz|bz2|xz|exe|msi|dmg|pkg|apk|iso|bin|mp3|mp4|m4a|m4v|wav|ogg|flac|avi|mov|mkv|webm|wmv|flv|png|jpe?g|gif|bmp|webp|tiff?|ico|pdf|docx?|xlsx?|pptx?)$/i;
/**
 * What the product reads of a destination it fetches for a link made without a meta title or
 * description (fact 16). The sandbox fetches nothing over the network: it knows its own pages
 * (`https://sandbox.localhost/NAME`, titled `Sandbox page NAME`, no description); any other
 * destination cannot be fetched, so both stay null, as the product leaves them for an unreachable page.
 */
function destinationPage(url: string): { title?: string; description?: string } {
  let path: string;
  try { path = new URL(url).pathname; } catch { return {}; }
  if (DOWNLOADABLE.test(path)) return { title: 'This is a downloadable file.' };
  const own = SANDBOX_OWN_ORIGINS.find((origin) => url.startsWith(`${origin}/`));
  const name = own ? url.slice(own.length + 1) : undefined;
  return name && /^[a-z0-9][a-z0-9/-]*$/.test(name) ? { title: `Sandbox page ${name}` } : {};
}

/**
 * A `metaimage` ending in .png, .jpg or .jpeg is downloaded by the product, and one it cannot fetch
 * stops the create with an error-0 message and no link (fact 17). The sandbox fetches nothing over the
 * network: only images of its own site (`https://sandbox.localhost/banner.png`) are taken. Other
 * endings are not fetched: the link is made.
 */
function bannerRefused(ctx: Ctx, v: unknown): boolean {
  if (!ctx.quirks || typeof v !== 'string' || !/\.(png|jpe?g)$/i.test(v.trim())) return false;
  return !SANDBOX_OWN_ORIGINS.some((origin) => v.trim().startsWith(`${origin}/`));
}
/** A plain user's URL on the site's own host, whatever its port, is refused; an admin's is taken (real-servers.md, 39). */
function ownSiteRefused(ctx: Ctx, url: string): string {
  if (!ctx.quirks || ctx.user.admin) return url;
  let host: string | undefined;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return url;
  }
  return host === new URL(ctx.base).hostname.toLowerCase() ? fail(MESSAGES.ownSite) : url;
}

/**
 * A link's item of `GET /api/urls`: an integer id; counts and channel ids as integers (PHP 8) or
 * strings (older PHP); `title` and `description` are the META title and description (7.7), never
 * the note sent as `description`; `channel` its entries, a `null` for each update sent without one.
 */
function linkItem(ctx: Ctx, l: Link, held: ReadonlyMap<number, number[]>) {
  const channels = linkChannels(ctx.state, l, held).map((c) => (c === null ? null : num(ctx, c)));
  return {
    id: l.id, alias: l.alias, shorturl: shortUrl(ctx, l), longurl: l.longurl, title: metaTitle(ctx, l),
    description: metaDescription(ctx, l), clicks: num(ctx, l.clicks), uniqueclicks: num(ctx, l.uniqueclicks),
    // real servers name the site itself as the domain of a link on the default domain
    domain: l.domain ?? (ctx.quirks ? ctx.base : null), campaign: l.campaign ?? null,
    channel: ctx.quirks ? channels : channels.filter((c) => c !== null),
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
  return mine(ctx, ctx.state.links).find((l) => l.alias === alias && (l.domain ? bareHost(l.domain) === where : local)) ?? fail(MESSAGES.shortUnknown);
}

/**
 * Every link of the installation newest first by its second, links of one second in the order they
 * were made (fact 1). Kept per links array until a link is added or deleted (dates never change, ids
 * only grow, so the count and the last id name the set): a big seed's page is then a filter, not a
 * sort of 100,000 dates.
 */
const byDate = new WeakMap<Link[], { key: string; sorted: Link[] }>();
function newestFirst(all: Link[]): Link[] {
  const key = `${all.length}:${all.at(-1)?.id}`;
  const hit = byDate.get(all);
  if (hit?.key === key) return hit.sorted;
  const dated = all.map((l) => ({ date: l.date, l }));
  dated.sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : a.l.id - b.l.id));
  const sorted = dated.map((d) => d.l);
  byDate.set(all, { key, sorted });
  return sorted;
}

export const linkRoutes = [
  route('GET /api/urls', (ctx) => {
    const { short, q, order } = ctx.query;
    // 6.x servers ignore `short` and answer the list
    if (short !== undefined && ctx.version !== '6') return linkDetail(ctx, byShortUrl(ctx, short));
    // the product's order (the documented mode keeps the sandbox's older one: newest id first)
    const all = ctx.quirks && order !== 'click' ? newestFirst(ctx.state.links) : [...ctx.state.links].reverse();
    // the user's own; a QR code's hidden link is not listed (fact 18)
    let links = all.filter((l) => ownerOf(l) === ctx.user.id && l.qr === undefined);
    if (q) {
      // LIKE %q% over the destination, the alias and the title
      const needle = q.toLowerCase();
      links = links.filter((l) => [l.alias, l.longurl, l.title ?? ''].some((s) => s.toLowerCase().includes(needle)));
    }
    // by clicks: most first, ties in the order they were made (7.7) or newest first (documented)
    const sorted = order !== 'click' ? links : links.sort((a, b) => b.clicks - a.clicks || (ctx.quirks ? a.id - b.id : b.id - a.id));
    const held = channelsHolding(ctx.state);
    const reply = list(ctx, 'urls', sorted, (l) => linkItem(ctx, l, held));
    return ctx.quirks && ctx.stringIds ? withFloatMaxpage(reply) : reply;
  }),
  route('GET /api/url/:id', (ctx) => linkDetail(ctx, must(ctx, ctx.state.links, MESSAGES.linkNotFound))),
  route('POST /api/url/add', (ctx) => {
    const body = withinPlan(ctx);
    // the product's order: URL, expiry, domain, alias, then the duplicate check
    const url = ownSiteRefused(ctx, longUrl(ctx, body.url));
    const early = linkOptions(ctx, body, EARLY_KEYS);
    const domain = early.domain as string | undefined;
    const alias = claimAlias(ctx, body.custom, domain);
    const opts: Options = { ...early, ...linkOptions(ctx, body, LATER_KEYS) };
    const channel = channelOf(ctx, body);
    if (bannerRefused(ctx, body.metaimage)) return { error: 0, message: 'Banner must be either a PNG or a JPEG (Max 500kb).' };
    if (ctx.quirks) {
      const existing = duplicateOf(ctx, url, domain, alias, opts);
      if (existing) return { error: 0, id: existing.id, shorturl: shortUrl(ctx, existing) };
      // without a meta title or description, the product reads them from the destination (fact 16)
      if (opts.metatitle === undefined || opts.metadescription === undefined) {
        const page = destinationPage(url);
        if (opts.metatitle === undefined && page.title !== undefined) opts.metatitle = page.title.slice(0, META_TITLE_COLUMN);
        if (opts.metadescription === undefined && page.description !== undefined) opts.metadescription = page.description;
      }
      if (typeof opts.metatitle === 'string' && [...opts.metatitle].length > META_TITLE_COLUMN) tooLong('meta_title');
    }
    const l = add(ctx, 'links', (id) =>
      ({ id, alias: alias ?? freeAlias(ctx, id), longurl: url, title: '', clicks: 0, uniqueclicks: 0, date: nowStamp(ctx) }));
    applyOptions(l, opts);
    if (channel) {
      addChannelEntry(ctx.state, l, channel.id);
      addToChannel(channel, 'links', l.id, nowStamp(ctx));
    }
    return { error: 0, id: l.id, shorturl: shortUrl(ctx, l) };
  }),
  route('PUT /api/url/:id/update', (ctx) => {
    const l = must(ctx, ctx.state.links, MESSAGES.linkNotFound);
    const body = withinPlan(ctx);
    const url = body.url === undefined ? undefined : ownSiteRefused(ctx, longUrl(ctx, body.url));
    const early = linkOptions(ctx, body, EARLY_KEYS);
    // real servers replace: without `domain` the link goes to the default domain
    const domain = 'domain' in early || ctx.quirks ? early.domain as string | undefined : l.domain;
    const alias = claimAlias(ctx, body.custom, domain, l.id);
    // the note (`description`) is stored on create only: an update never writes it (7.4 to 7.7)
    const opts: Options = { ...early, ...linkOptions(ctx, body, UPDATE_KEYS) };
    if (ctx.quirks && typeof opts.metatitle === 'string' && [...opts.metatitle].length > META_TITLE_COLUMN) tooLong('meta_title');
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
    const given = body.channel === undefined || body.channel === null || body.channel === '' ? undefined : Number(body.channel);
    if (ctx.quirks) {
      // every update adds an entry: the channel given (unless the link is in it; its id is not checked), else a null (fact 5)
      const channel = channelOf(ctx, body);
      if (given === undefined) addChannelEntry(ctx.state, l, null);
      else if (!linkChannels(ctx.state, l).includes(given)) {
        addChannelEntry(ctx.state, l, given);
        if (channel) addToChannel(channel, 'links', l.id, nowStamp(ctx));
      }
    } else {
      // adds to that channel, leaving the others
      const channel = channelOf(ctx, body);
      if (channel && !linkChannels(ctx.state, l).includes(channel.id)) {
        addChannelEntry(ctx.state, l, channel.id);
        addToChannel(channel, 'links', l.id, nowStamp(ctx));
      }
    }
    return { error: 0, id: l.id, [ctx.quirks ? 'shorturl' : 'short']: shortUrl(ctx, l) };
  }),
  // every assignment of the link's id leaves the channels, whatever its type (fact 24); a QR code's hidden link takes its code along (fact 18)
  deleteRoute('DELETE /api/url/:id/delete', 'links', MESSAGES.linkNotFound, () => 'Link has been successfully deleted.', (ctx, l) => {
    if (ctx.quirks) dropItems(ctx.state, l.id);
    else for (const ch of ctx.state.channels) ch.items = ch.items.filter((it) => !(it.type === 'links' && it.id === l.id));
    const code = (l as Link).qr;
    if (code !== undefined) {
      const i = indexOfId(ctx.state.qrs, code);
      if (i >= 0) ctx.state.qrs.splice(i, 1);
    }
  }),
];
