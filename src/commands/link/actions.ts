/**
 * Short links (`api/urls`, `api/url/...`; real-servers.md, "Endpoints the document leaves out"):
 * paths, columns, how the flags become the body of `POST /api/url/add`, and how `update`
 * protects the user from servers that replace every option instead of patching.
 */
import type { Context } from '../../context.js';
import type { Body } from '../../api/envelope.js';
import { NetworkError, UsageError } from '../../errors.js';
import type { Column, Rec, Result } from '../../output/types.js';
import type { ActionInput } from '../shared/define.js';
import { compact, firstOf, listAction, removeAction, withoutError, type Resource } from '../shared/resource.js';
import { statsResult } from '../shared/stats.js';
import type { Clearable, LinkOrder } from './types.js';

const shortUrl = (r: Rec) => firstOf(r, 'shorturl', 'short');

const COLUMNS: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'shorturl', header: 'Short URL', value: shortUrl },
  { key: 'longurl', header: 'Destination' },
  { key: 'clicks', header: 'Clicks' },
  { key: 'date', header: 'Created' },
  { key: 'alias', header: 'Alias', optional: true },
  { key: 'title', header: 'Title', optional: true },
  { key: 'description', header: 'Description', optional: true },
  { key: 'uniqueclicks', header: 'Unique clicks', optional: true },
  { key: 'domain', header: 'Domain', optional: true },
  { key: 'campaign', header: 'Campaign', optional: true },
  { key: 'channel', header: 'Channels', optional: true, show: (r) => (Array.isArray(r.channel) ? r.channel.join(',') : r.channel) },
];

const LINKS: Resource = { noun: 'link', listPath: 'api/urls', keys: ['urls'], itemPath: (id) => `api/url/${id}`, columns: COLUMNS };

// The API's name for the click order is `click`; the servers do not check it, so a typo would sort by date silently.
export const list = listAction(LINKS, (opts) => ({ q: opts.search, order: opts.order === undefined ? undefined : ({ date: 'date', clicks: 'click' } as Record<LinkOrder, string>)[opts.order as LinkOrder] }));
export const remove = removeAction(LINKS);

// ---------------------------------------------------------------- targeting read back

interface Target {
  key: string;
  link: string;
}

/**
 * Targets as `GET /api/url/:id` gives them: `{country: url}` (documented) or, on 7.x,
 * `{country: {region: url}}` with region `all` for a whole country. Region targets cannot be
 * sent back through `geotarget`, so they are returned apart.
 */
export function readTargets(value: unknown): { targets: Target[]; regions: string[] } {
  const targets: Target[] = [];
  const regions: string[] = [];
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { targets, regions };
  for (const [key, v] of Object.entries(value as Rec)) {
    if (typeof v === 'string') targets.push({ key, link: v });
    else if (v && typeof v === 'object') {
      for (const [region, link] of Object.entries(v as Rec)) {
        if (typeof link !== 'string') continue;
        if (region === 'all') targets.push({ key, link });
        else regions.push(`${key}/${region}`);
      }
    }
  }
  return { targets, regions };
}

/** `canada=https://example.ca, germany/bavaria=https://...` for people. */
function showTargets(value: unknown): string {
  if (!value || typeof value !== 'object') return '';
  return Object.entries(value as Rec)
    .flatMap(([key, v]) => (typeof v === 'string' ? [`${key}=${v}`] : v && typeof v === 'object' ? Object.entries(v as Rec).map(([region, link]) => `${region === 'all' ? key : `${key}/${region}`}=${String(link)}`) : []))
    .join(', ');
}

const DETAIL_COLUMNS: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'alias', header: 'Alias' },
  { key: 'shorturl', header: 'Short URL', value: shortUrl },
  { key: 'longurl', header: 'Destination' },
  { key: 'title', header: 'Title' },
  { key: 'description', header: 'Description' },
  { key: 'location', header: 'Geo targeting', show: (r) => showTargets(r.location) },
  { key: 'device', header: 'Device targeting', show: (r) => showTargets(r.device) },
  { key: 'expiry', header: 'Expires' },
  { key: 'date', header: 'Created' },
];

export async function get(ctx: Context, { args, opts }: ActionInput): Promise<Result> {
  const id = args[0] as number | undefined;
  const short = opts.short as string | undefined;
  if ((id === undefined) === (short === undefined)) throw new UsageError('give a link id or --short URL (one of them)');
  const client = await ctx.client();
  if (id !== undefined) {
    const body = await client.request('GET', LINKS.itemPath(id), { expect: ['details'] });
    return statsResult(body, DETAIL_COLUMNS, 'No statistics for this link.');
  }
  const body = await client.request('GET', 'api/urls', { query: { short }, expect: ['data'] });
  if (body.details) return statsResult(body, DETAIL_COLUMNS, 'No statistics for this link.'); // in case a server answers like `GET api/url/:id`
  const record = body.data;
  if (!record || typeof record !== 'object' || Array.isArray(record)) throw new NetworkError('the server\'s answer to a short URL lookup lacks the link object');
  return { kind: 'record', record: record as Rec, columns: COLUMNS.map((c) => ({ ...c, optional: false })) };
}

// ---------------------------------------------------------------- add and update

/** The body fields the flags give (only those given), after the checks that involve several flags. */
async function bodyFromFlags(ctx: Context, opts: Rec): Promise<Rec> {
  const body = bodyFromOptions(opts);
  // Last, so that every other mistake is reported before anyone is asked to type.
  const password = await ctx.password(opts, 'the link password');
  if (password !== undefined) body.password = password;
  return body;
}

/** The body of `POST api/url/add` from the options of `link add` (by their attribute names), without the password. */
export function bodyFromOptions(opts: Rec): Rec {
  const redirects = (['redirect', 'splash', 'overlay'] as const).filter((k) => opts[k] !== undefined);
  if (redirects.length > 1) throw new UsageError(`${redirects.map((k) => `--${k}`).join(' and ')} each set the redirect type; give one of them`);
  if (opts.public && opts.private) throw new UsageError('--public and --private contradict each other; give one of them');
  const pairs = (flag: string, name: string) => (opts[flag] as Array<{ key: string; value: string }> | undefined)?.map(({ key, value }) => ({ [name]: key, link: value }));
  const apple = opts.deeplinkApple as string | undefined;
  const google = opts.deeplinkGoogle as string | undefined;
  const body: Rec = compact({
    custom: opts.alias,
    domain: opts.domain,
    type: opts.redirect ?? (opts.splash !== undefined ? String(opts.splash) : opts.overlay !== undefined ? `overlay-${opts.overlay}` : undefined),
    expiry: opts.expiry,
    geotarget: pairs('geo', 'location'),
    devicetarget: pairs('device', 'device'),
    languagetarget: pairs('language', 'language'),
    metatitle: opts.metaTitle,
    metadescription: opts.metaDescription,
    metaimage: opts.metaImage,
    description: opts.description,
    pixels: opts.pixel,
    channel: opts.channel,
    campaign: opts.campaign,
    status: opts.public ? 'public' : opts.private ? 'private' : undefined,
    parameters: (opts.param as Array<{ key: string; value: string }> | undefined)?.map(({ key, value }) => ({ name: key, value })),
    // `auto: true` as in the product's own example: open the app when it is installed.
    deeplink: apple || google ? compact({ auto: true, apple, google }) : undefined,
  });
  return body;
}

/** `{id, shorturl}` (the document's update answer says `short`). */
function createdResult(body: Body): Result {
  return { kind: 'record', record: { id: body.id, shorturl: shortUrl(body) }, columns: CREATED_COLUMNS, json: withoutError(body) };
}

const CREATED_COLUMNS = [COLUMNS[0]!, COLUMNS[1]!];

export async function add(ctx: Context, { args, opts }: ActionInput): Promise<Result> {
  ctx.checkOutput(CREATED_COLUMNS);
  const json: Rec = { url: args[0] as string, ...(await bodyFromFlags(ctx, opts)) };
  const client = await ctx.client();
  const body = await client.request('POST', 'api/url/add', { json, expect: ['id'], checkWith: `linkctl link list --search '${String(json.url).replace(/'/g, `'\\''`)}'` });
  // Servers rewrite an invalid alias, and return an existing link as it is when the long URL was already shortened.
  const short = shortUrl(body);
  if (json.custom !== undefined && typeof short === 'string' && !short.endsWith(`/${json.custom}`)) {
    ctx.warn(`note: the short URL does not end with the alias asked for ("${json.custom}"): the server rewrote it, or the URL was already shortened and the existing link was returned unchanged`);
  }
  return createdResult(body);
}

/** Options linkctl cannot read back: real servers clear them on an update that does not send them. */
const UNREADABLE: Array<[field: string, label: string]> = [
  ['password', 'password'],
  ['domain', 'domain'],
  ['type', 'redirect type, splash or overlay'],
  ['languagetarget', 'language targeting'],
  ['metadescription', 'meta description'],
  ['metaimage', 'meta image'],
  ['pixels', 'pixels'],
  ['campaign', 'campaign'],
  ['parameters', 'parameters'],
  ['deeplink', 'deep links'],
];

/** The update fields that `--clear` names. */
const CLEAR_FIELDS: Record<Clearable, string> = { geo: 'geotarget', device: 'devicetarget', expiry: 'expiry', 'meta-title': 'metatitle', description: 'description' };

/**
 * What `GET api/url/:id` gives back, as the fields of an update: the destination, targeting,
 * expiry, `title` (what `metatitle` sets) and `description`. A `--clear`ed field is sent as
 * null, which clears it on patching and replacing servers alike.
 */
function readBack(read: Rec, clear: Set<Clearable>, notes: string[]): Rec {
  const geo = readTargets(read.location);
  const device = readTargets(read.device);
  if (geo.regions.length && !clear.has('geo')) notes.push(`region targeting (${geo.regions.join(', ')}) cannot be sent back and will be cleared`);
  let expiry = typeof read.expiry === 'string' && read.expiry ? read.expiry : undefined;
  if (expiry && !clear.has('expiry') && !(Date.parse(`${expiry.replace(' ', 'T')}Z`) > Date.now())) {
    notes.push(`the expiry ${expiry} has passed and servers refuse a past expiry, so it is not sent again`);
    expiry = undefined;
  }
  const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  const back: Record<Clearable, unknown> = {
    geo: geo.targets.length ? geo.targets.map((t) => ({ location: t.key, link: t.link })) : undefined,
    device: device.targets.length ? device.targets.map((t) => ({ device: t.key, link: t.link })) : undefined,
    expiry,
    'meta-title': text(read.title),
    description: text(read.description),
  };
  const json: Rec = { url: read.longurl };
  for (const [option, field] of Object.entries(CLEAR_FIELDS) as Array<[Clearable, string]>) {
    if (clear.has(option)) json[field] = null;
    else if (back[option] !== undefined) json[field] = back[option];
  }
  return json;
}

/** Targets by key, case-insensitive: the user's replace those read back for the same country or device. */
function mergeTargets(read: Rec[], given: Rec[], name: string): Rec[] {
  const out = new Map<string, Rec>(read.map((t) => [String(t[name]).toLowerCase(), t]));
  for (const t of given) out.set(String(t[name]).toLowerCase(), t);
  return [...out.values()];
}

export async function update(ctx: Context, { args, opts }: ActionInput): Promise<Result> {
  ctx.checkOutput(CREATED_COLUMNS);
  const id = args[0] as number;
  const clear = new Set((opts.clear as Clearable[] | undefined) ?? []);
  const given = await bodyFromFlags(ctx, opts);
  if (opts.url !== undefined) given.url = opts.url;
  if (Object.keys(given).length === 0 && clear.size === 0) throw new UsageError('nothing to change: give --url, --clear or an option to set (see --help)');

  // Real servers replace every option: send again what can be read back, with the user's flags over it.
  const client = await ctx.client();
  const read = (await client.request('GET', LINKS.itemPath(id), { expect: ['details'] })).details as Rec;
  const notes: string[] = [];
  const json = safeUpdateBody(read, given, { clear, notes, mergeTargets: true });

  const lost = UNREADABLE.filter(([field]) => given[field] === undefined).map(([, label]) => label);
  // 7.x servers answer `device: null` even for a link with device targeting.
  if (read.device == null && given.devicetarget === undefined && !clear.has('device')) lost.push('device targeting (if any)');
  if (lost.length) notes.push(`real servers clear what cannot be read back unless it is given again in this command: ${lost.join(', ')}`);
  if (given.status === undefined) notes.push('real servers make the link private unless --public is given');
  for (const note of notes) ctx.warn(`note: ${note}.`);

  const body = await client.request('PUT', `${LINKS.itemPath(id)}/update`, { json });
  return createdResult(body);
}

/**
 * The body of a safe update: what `GET api/url/:id` gives back, with `given` over it. Targets
 * given are merged with those read back by country or device (`link update`), or replace them
 * (`apply`, where the file holds the whole truth).
 */
export function safeUpdateBody(read: Rec, given: Rec, options: { clear?: Set<Clearable>; notes?: string[]; mergeTargets?: boolean } = {}): Rec {
  const json = readBack(read, options.clear ?? new Set(), options.notes ?? []);
  for (const [key, value] of Object.entries(given)) {
    const name = key === 'geotarget' ? 'location' : 'device';
    json[key] = options.mergeTargets && (key === 'geotarget' || key === 'devicetarget') && Array.isArray(json[key]) ? mergeTargets(json[key] as Rec[], value as Rec[], name) : value;
  }
  return json;
}
