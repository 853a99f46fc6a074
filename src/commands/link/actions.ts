/**
 * Short links (`api/urls`, `api/url/...`; real-servers.md, "Endpoints the document leaves out"):
 * paths, columns, how the flags become the body of `POST /api/url/add`, and how `update`
 * protects the user from servers that replace every option instead of patching.
 */
import type { Context } from '../../context.js';
import type { Body } from '../../api/envelope.js';
import { ApiError, NetworkError, UsageError } from '../../errors.js';
import type { ApiClient } from '../../api/client.js';
import { toInt } from '../../api/envelope.js';
import type { Column, Rec, Result } from '../../output/types.js';
import type { ActionInput } from '../shared/define.js';
import { compact, firstOf, listAction, removeAction, withoutError, type Resource } from '../shared/resource.js';
import { statsResult } from '../shared/stats.js';
import { oneLink, type Clearable, type IfExists, type LinkOrder } from './types.js';
import { readTargets, updateLink, withNamedReferences } from './update.js';
export { planLinkUpdate, updateLink, readLink } from './update.js';

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
  let id = args[0] as number | undefined;
  const short = opts.short as string | undefined;
  oneLink(id, short, 'get');
  const client = await ctx.client();
  if (short !== undefined) {
    // `?short=` gives the link's list item; the details and statistics are read by its id, so both ways show the same.
    const body = await client.request('GET', 'api/urls', { query: { short }, expect: ['data'], about: `short URL ${short}` });
    const record = body.data;
    const found = record && typeof record === 'object' && !Array.isArray(record) ? toInt((record as Rec).id) : undefined;
    if (found === undefined) {
      throw new NetworkError(`the server's answer to the short URL lookup ${short} is ${Array.isArray(record) || Object.values((record as Rec) ?? {}).some(Array.isArray) ? 'a list' : 'not a link'}, not one link`, 'run again with --debug to see the answer');
    }
    id = found;
  }
  const body = await client.request('GET', LINKS.itemPath(id!), { expect: ['details'], about: `link ${id}` });
  return statsResult(body, DETAIL_COLUMNS, 'No statistics for this link.');
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
  if (redirects.length > 1) throw new UsageError(`${redirects.map((k) => `--${k}`).join(' and ')} each set the redirect type; give one of them`, '--splash ID and --overlay ID set the redirect type themselves: drop --redirect');
  if (opts.public && opts.private) throw new UsageError('--public and --private contradict each other; give one of them', 'drop one of them');
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

/** The links that already shorten `url`, by id, looked up before creating (servers return such a link instead of a new one). */
/** A destination as `link add` compares them: servers keep a trailing slash or drop it. */
const destination = (url: string) => url.replace(/\/+$/, '');

/** The run's index of links by destination, when `addPrepare` made one (see `Context.shared`). */
const LINK_INDEX = 'link add: links by destination';
type LinkIndex = Map<string, Map<string, Rec>>;

async function linksFor(ctx: Context, client: ApiClient, url: string): Promise<Map<string, Rec>> {
  const index = ctx.shared.get(LINK_INDEX) as LinkIndex | undefined;
  if (index) return new Map(index.get(destination(url)));
  const { allPages } = await import('../../api/pages.js');
  const links = new Map<string, Rec>();
  const same = (v: unknown) => typeof v === 'string' && destination(v) === destination(url);
  for await (const page of allPages(client, { path: LINKS.listPath, keys: LINKS.keys, query: { q: url }, limit: 100 })) {
    for (const r of page.records) if (same(r.longurl)) links.set(String(r.id), r);
  }
  return links;
}

/**
 * Before `link add --from` runs `rows` rows: when reading every link of the account takes fewer
 * requests than one search a row, read them once and index them by destination (each row then
 * asks the index, and adds what it creates). Otherwise each row searches as a single add does.
 */
export async function addPrepare(ctx: Context, rows: number): Promise<void> {
  if (rows < 2) return; // one search costs what one page of the list does
  const client = await ctx.client();
  const { allPages, fetchPage } = await import('../../api/pages.js');
  const request = { path: LINKS.listPath, keys: LINKS.keys, limit: 100 };
  const first = await fetchPage(client, request);
  if ((first.maxpage ?? Infinity) >= rows) return;
  const index: LinkIndex = new Map();
  const add = (r: Rec) => {
    if (typeof r.longurl !== 'string') return;
    const key = destination(r.longurl);
    index.set(key, (index.get(key) ?? new Map()).set(String(r.id), r));
  };
  first.records.forEach(add);
  if ((first.maxpage ?? 1) > 1) {
    for await (const page of allPages(client, { ...request, page: 2 })) page.records.forEach(add);
  }
  ctx.shared.set(LINK_INDEX, index);
}

/** What `link add` did: created a link, or met one that existed (returned, updated or skipped by --if-exists). */
export interface AddOutcome {
  status: 'created' | 'exists' | 'updated' | 'skipped';
  record: Rec;
  json: unknown;
}

/** `link add`, for one command line or one row of `--from`. */
export async function addRow(ctx: Context, { args, opts }: ActionInput): Promise<AddOutcome> {
  const json: Rec = { url: args[0] as string, ...(await bodyFromFlags(ctx, opts)) };
  const { url: _url, ...options } = json;
  const ifExists = (opts.ifExists as IfExists | undefined) ?? (Object.keys(options).length ? 'fail' : 'return');
  const client = await ctx.client();
  const before = await linksFor(ctx, client, json.url as string);
  if (ifExists === 'skip' && before.size) {
    const [existing] = before.values();
    ctx.warn(`note: ${String(json.url)} is already shortened as link ${String(existing!.id)}; nothing was sent (--if-exists skip).`);
    return { status: 'skipped', record: { id: existing!.id, shorturl: shortUrl(existing!) }, json: existing };
  }
  const body = await withNamedReferences(client, json, () => client.request('POST', 'api/url/add', { json, expect: ['id'], checkWith: `linkctl link list --search '${String(json.url).replace(/'/g, `'\\''`)}'` }));
  const short = shortUrl(body);
  const created = (status: AddOutcome['status'], answer: Body): AddOutcome => ({ status, record: { id: answer.id, shorturl: shortUrl(answer) }, json: withoutError(answer) });
  if (before.has(String(body.id))) {
    const existing = `link ${String(body.id)} (${String(short)})`;
    if (ifExists === 'fail') {
      throw new ApiError(`${String(json.url)} is already shortened as ${existing}; the server returned it unchanged, so the options were not applied`, 'pass --if-exists update to apply them to it, or --if-exists return to take it as it is');
    }
    if (ifExists === 'return' || ifExists === 'skip') {
      ctx.warn(`note: ${String(json.url)} was already shortened: this is the existing ${existing}, unchanged${Object.keys(options).length ? '; the options were not applied' : ''}.`);
      return created('exists', body);
    }
    ctx.warn(`note: ${String(json.url)} was already shortened as ${existing}; updating it.`);
    return created('updated', await updateLink(ctx, client, toInt(body.id)!, options, new Set()));
  }
  const index = ctx.shared.get(LINK_INDEX) as LinkIndex | undefined;
  if (index) index.set(destination(json.url as string), new Map(before).set(String(body.id), { id: body.id, longurl: json.url, shorturl: short }));
  // Servers rewrite an invalid alias.
  if (json.custom !== undefined && typeof short === 'string' && !short.endsWith(`/${json.custom}`)) {
    ctx.warn(`note: the short URL does not end with the alias asked for ("${json.custom}"): the server rewrote it`);
  }
  return created('created', body);
}

export async function add(ctx: Context, input: ActionInput): Promise<Result> {
  ctx.checkOutput(CREATED_COLUMNS);
  const { record, json } = await addRow(ctx, input);
  return { kind: 'record', record, columns: CREATED_COLUMNS, json };
}

export async function update(ctx: Context, { args, opts }: ActionInput): Promise<Result> {
  ctx.checkOutput(CREATED_COLUMNS);
  const id = args[0] as number;
  const clear = new Set((opts.clear as Clearable[] | undefined) ?? []);
  const given = await bodyFromFlags(ctx, opts);
  if (opts.url !== undefined) given.url = opts.url;
  if (Object.keys(given).length === 0 && clear.size === 0) throw new UsageError('nothing to change: give --url, --clear or an option to set (see --help)', 'e.g. linkctl link update 42 --description "Spring 2027"');
  const client = await ctx.client();
  return createdResult(await updateLink(ctx, client, id, given, clear));
}
