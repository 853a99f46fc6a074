/**
 * `link` commands: how short links look and what their flags mean. What a link is, its paths, and
 * how creates and updates are made safe live in the model (src/model/links.ts, link-writes.ts).
 */
import type { Context } from '../../context.js';
import { ApiError, AuthError, ConfirmationNeeded, NetworkError, NotFoundError, UsageError } from '../../errors.js';
import { aliasRefusal } from '../../model/aliases.js';
import { toInt, type Body } from '../../http/envelope.js';
import type { Column, Rec, Result } from '../../output/types.js';
import type { AccountName, ActionInput } from '../shared/define.js';
import { listAction, removeAction } from '../shared/resource.js';
import { statsResult } from '../shared/stats.js';
import { links as LINKS, bodyFromOptions, CLEARING_HINT, clearedRegardless, clearingQuestion, planLinkUpdate, shortUrlOf, updateCannot } from '../../model/links.js';
import { addLink, checkDomain, checkReferenceIds, idOfName, LINK_REFERENCES, linkIdOf, readLink, referencesByName, updateLink, type LinkOutcome } from '../../model/link-writes.js';
import type { AccountReader } from '../../model/reader.js';
import { oneLink, type Clearable, type IfExists, type LinkOrder } from '../../model/link-types.js';

const COLUMNS: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'shorturl', header: 'Short URL', value: shortUrlOf },
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

// The API's name for the click order is `click`; the servers do not check it, so a typo would sort by date silently.
export const list = listAction('links', COLUMNS, (opts) => ({ q: opts.search, order: opts.order === undefined ? undefined : ({ date: 'date', clicks: 'click' } as Record<LinkOrder, string>)[opts.order as LinkOrder] }));
const removeLinks = removeAction('links');

/** `link delete`: links by id, alias or short URL (each alias looked up once), then deleted by id. */
export async function remove(ctx: Context, input: ActionInput): Promise<Result> {
  const refs = [input.args[0]].flat() as Array<number | string>;
  if (refs.every((r) => typeof r === 'number')) return removeLinks(ctx, input);
  const reader = await ctx.reader();
  const ids: number[] = [];
  for (const ref of refs) ids.push(await linkIdOf(reader, ref));
  return removeLinks(ctx, { ...input, args: [ids, ...input.args.slice(1)] });
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
  { key: 'shorturl', header: 'Short URL', value: shortUrlOf },
  { key: 'longurl', header: 'Destination' },
  { key: 'title', header: 'Title' },
  { key: 'description', header: 'Description' },
  { key: 'location', header: 'Geo targeting', show: (r) => showTargets(r.location) },
  { key: 'device', header: 'Device targeting', show: (r) => showTargets(r.device) },
  { key: 'expiry', header: 'Expires' },
  { key: 'date', header: 'Created' },
];

export async function get(ctx: Context, { args, opts }: ActionInput): Promise<Result> {
  const ref = args[0] as number | string | undefined;
  const short = opts.short as string | undefined;
  oneLink(ref, short, 'get');
  const reader = short === undefined ? await ctx.reader() : undefined;
  const body = short !== undefined ? await getByShortUrl(ctx, short) : await reader!.readOne('links', await linkIdOf(reader!, ref!));
  return statsResult(body, DETAIL_COLUMNS, 'No statistics for this link.');
}

/** A short URL as servers compare them: without scheme, trailing slash or case in the host. */
const bareShort = (url: string) => url.trim().replace(/^https?:\/\//i, '').replace(/\/+$/, '').replace(/^[^/]+/, (host) => host.toLowerCase());

/**
 * `link get --short`: 7.6 answers `?short=` exactly as the single read of a link does, so that answer
 * is shown as it is (one request). 6.x servers ignore `short` and answer the first page of
 * the list: the link is looked for there (then read by its id), and otherwise the server
 * cannot look it up by short URL.
 */
async function getByShortUrl(ctx: Context, short: string): Promise<Body> {
  let body: Body;
  try {
    body = await (await ctx.client()).request('GET', LINKS.list, { query: { short }, about: `short URL ${short}` });
  } catch (error) {
    // 7.6 answers an unknown short URL with "You do not have the permission to access this short url.": no such link, not a bad key
    if (error instanceof AuthError && /access this short url/i.test(error.message)) {
      throw new NotFoundError(`short URL ${short}: no link of this account has this short URL (the server says: ${error.message})`, 'see `linkctl link list --search ALIAS`');
    }
    throw error;
  }
  if (body.details && typeof body.details === 'object' && !Array.isArray(body.details)) return body;
  const data = body.data as Rec | undefined;
  const items = data && typeof data === 'object' && Array.isArray(data.urls) ? (data.urls as unknown[]) : undefined;
  if (!items) throw new NetworkError(`the server's answer to the short URL lookup ${short} is neither a link nor a list of links`, 'run again with --debug to see the answer');
  const found = items.find((r): r is Rec => Boolean(r) && typeof r === 'object' && typeof shortUrlOf(r as Rec) === 'string' && bareShort(shortUrlOf(r as Rec) as string) === bareShort(short));
  const foundId = found ? toInt(found.id) : undefined;
  if (foundId === undefined) {
    throw new ApiError(
      `short URL ${short}: this server cannot look up a link by short URL (it answered the list of links instead, as 6.x servers do, and the link is not on its first page)`,
      'use the link\'s id: `linkctl link get ID`; `linkctl link list --search ALIAS` shows it',
    );
  }
  return (await ctx.reader()).readOne('links', foundId);
}

// ---------------------------------------------------------------- add and update

/** The body fields the flags give (only those given), after the checks that involve several flags. */
async function bodyFromFlags(ctx: Context, opts: Rec): Promise<Rec> {
  // A pixel, campaign or channel given by name is sent as its id (one read of that list a run).
  const body = bodyFromOptions(await referencesByName(() => ctx.reader(), opts));
  // Last, so that every other mistake is reported before anyone is asked to type.
  const password = await ctx.password(opts, 'the link password');
  if (password !== undefined) body.password = password;
  return body;
}

const CREATED_COLUMNS = [COLUMNS[0]!, COLUMNS[1]!];

/** What a row (or a single command) did, with what the server did differently from what was asked. */
export type LinkRowOutcome = LinkOutcome;

/** How a write's options reach the model: the row's (or command's) notes and confirmations, and --verify. */
async function deps(ctx: Context, opts: Rec, what: string) {
  // Single commands always read back what they cannot otherwise check; `--from` rows only with --verify.
  return { reader: await ctx.reader(), ui: ctx, dryRun: ctx.globals.dryRun, verify: opts.verify !== false, check: policyCheck(ctx, what) };
}

/** The policy's module, loaded once a run (a `--from` file checks each row twice: before anything is sent, then as it is sent). */
let policyModule: Promise<typeof import('../../policy/enforce.js')> | undefined;
const policyOf = () => (policyModule ??= import('../../policy/enforce.js'));

/**
 * The policy's check of a link write (src/policy/enforce.ts), first of all: before any read, so
 * that the bulk engine's validation pass (which stops at the first request) checks every row.
 * It sees what the flags give (targets and deep links included); an update is checked again once
 * its link is read (`policyCheck`). With --override that later check alone speaks, so that each
 * overridden violation is said once.
 */
async function keepsPolicy(ctx: Context, what: string, url: unknown, opts: Rec): Promise<void> {
  if (ctx.override !== undefined && what.startsWith('link update')) return;
  const { enforcePolicy, linkSubject, loadPolicy } = await policyOf();
  if (!(await loadPolicy(ctx))) return; // no policy: nothing to check, and no subject to build (for each row of a file, twice)
  await enforcePolicy(ctx, [{ what, subject: linkSubject({ ...bodyFromOptions(opts), url }) }]);
}

/**
 * The check of an update with its link read: the link as the update leaves it (the campaign it
 * stays in, its destination and targets, sent again), so that moving a link into a campaign with
 * rules of its own, or changing one already in it, keeps them.
 */
function policyCheck(ctx: Context, what: string): (body: Rec) => Promise<void> {
  return async (body) => {
    const { enforcePolicy, linkSubject, loadPolicy } = await policyOf();
    if (!(await loadPolicy(ctx))) return;
    const { custom: _alias, ...rest } = body; // the alias is the given one's business (checked first), not an old one's
    await enforcePolicy(ctx, [{ what, subject: linkSubject(rest) }]);
  };
}

/** An alias that `link add` or `link update` would send, refused before anything is sent when servers refuse it (short, a filtered word, reserved). */
function refuseShortAlias(alias: unknown): void {
  const refusal = typeof alias === 'string' ? aliasRefusal(alias) : undefined;
  if (refusal) throw new UsageError(refusal.message, refusal.hint);
}

/** `link add`, for one command line or one row of `--from`. */
export async function addRow(ctx: Context, { args, opts }: ActionInput): Promise<LinkRowOutcome> {
  await keepsPolicy(ctx, 'link add', args[0], opts);
  const body: Rec = { url: args[0] as string, ...(await bodyFromFlags(ctx, opts)) };
  const { url: _url, ...options } = body;
  const ifExists = (opts.ifExists as IfExists | undefined) ?? (Object.keys(options).length ? 'fail' : 'return');
  // With skip or update a short alias may name a link that exists (older installations have
  // them): addLink looks it up and refuses it only if it would create one. Otherwise it would be
  // sent: refused now, before anything is read.
  if (ifExists !== 'skip' && ifExists !== 'update') refuseShortAlias(opts.alias);
  return addLink(await deps(ctx, opts, 'link add'), body, ifExists);
}

/**
 * Before `link add --from` runs `rows` rows: read every link of the account once when that costs
 * no more requests than the rows would (then rows that exist are answered without a request).
 */
export async function addPrepare(ctx: Context, rows: number): Promise<void> {
  await (await ctx.reader()).preferFull('links', rows);
}

/**
 * What a `link add --from` or `link update --from` row names in the account: its domain, which
 * must be one of the account's (servers would put the link on the default one), and the pixels,
 * campaign and channel it gives by name. The engine checks each once, before any row is sent.
 */
export function addNames({ opts }: ActionInput): AccountName[] {
  const domain = opts.domain;
  const names: AccountName[] = typeof domain === 'string' && domain ? [{ flag: '--domain', value: domain, check: (reader) => checkDomain(reader, domain) }] : [];
  // A pixel, campaign or channel by name: it must name exactly one; by id, one of the account's (the product drops others in silence).
  for (const ref of LINK_REFERENCES) {
    for (const value of [opts[ref.option]].flat()) {
      if (typeof value === 'string') names.push({ flag: ref.flag, value, check: async (reader) => void (await idOfName(reader, ref, value)) });
      else if (typeof value === 'number') names.push({ flag: ref.flag, value: String(value), check: (reader) => checkReferenceIds(reader, { [ref.field]: value }) });
    }
  }
  return names;
}
/**
 * What a `link update --from` row names, and, under a policy, the row's link as the update would
 * leave it (its campaign, destination and targets, read): checked with the names, before any row
 * is sent, so that a row that breaks the policy only once its link is read stops the file too.
 * The reads are the run's own (the reader keeps each link's), so they cost nothing more.
 */
export function updateNames(input: ActionInput, ctx?: Context): AccountName[] {
  const names = addNames(input);
  const id = input.args[0];
  if (ctx && typeof id === 'number' && ctx.override === undefined) {
    names.push({ flag: 'the policy', value: `link ${id} ${JSON.stringify(input.opts)}`, check: (reader) => updateKeepsPolicy(ctx, reader, id, input.opts) });
  }
  return names;
}

async function updateKeepsPolicy(ctx: Context, reader: AccountReader, id: number, opts: Rec): Promise<void> {
  const { loadPolicy } = await policyOf();
  if (!(await loadPolicy(ctx))) return;
  const given = bodyFromOptions(await referencesByName(async () => reader, opts));
  if (opts.url !== undefined) given.url = opts.url;
  const { body } = planLinkUpdate(await readLink(reader, id), given, new Set((opts.clear as Clearable[] | undefined) ?? []));
  await policyCheck(ctx, `link update ${id}`)(body);
}

/** A result of a write: the link, and a failing exit code when the server did not do all that was asked. */
function writeResult(ctx: Context, outcome: LinkOutcome): Result {
  for (const problem of outcome.problems) ctx.warn(`linkctl: ${problem}`);
  return { kind: 'record', record: outcome.record, columns: CREATED_COLUMNS, json: outcome.json, exitCode: outcome.problems.length ? 1 : undefined };
}

export async function add(ctx: Context, input: ActionInput): Promise<Result> {
  ctx.checkOutput(CREATED_COLUMNS);
  return writeResult(ctx, await addRow(ctx, input));
}

/** The update's body fields and what to clear, checked before anything is sent. */
async function updateInput(ctx: Context, opts: Rec): Promise<{ given: Rec; clear: Set<Clearable> }> {
  const clear = new Set((opts.clear as Clearable[] | undefined) ?? []);
  updateCannot(bodyFromOptions(opts));
  const given = await bodyFromFlags(ctx, opts);
  if (opts.url !== undefined) given.url = opts.url;
  if (Object.keys(given).length === 0 && clear.size === 0) throw new UsageError('nothing to change: give --url, --clear or an option to set (see --help)', 'for example: linkctl link update 12 --url https://example.com/new --yes');
  return { given, clear };
}

/** `link update`, for one row of `--from` (the file was confirmed once for every row). */
export async function updateRow(ctx: Context, { args, opts }: ActionInput): Promise<LinkRowOutcome> {
  refuseShortAlias(opts.alias); // a new alias is sent
  await keepsPolicy(ctx, `link update ${String(args[0])}`, opts.url, opts);
  const { given, clear } = await updateInput(ctx, opts);
  const id = await linkIdOf(await ctx.reader(), args[0] as number | string);
  return updateLink(await deps(ctx, opts, `link update ${String(args[0])}`), id, given, clear);
}

/**
 * While a `link update --from` row is sent, the next row's link is read (the read every update
 * makes first): the reader keeps the answer for that row. Nothing else is done ahead of its turn.
 */
export function updatePrefetch(ctx: Context, { args }: ActionInput): void {
  const id = args[0];
  if (typeof id !== 'number') return;
  void ctx.reader().then((reader) => reader.readOne('links', id)).catch(() => undefined); // a failure is the row's own, when its turn comes
}

/** Before `link update --from` runs `rows` rows: each row needs its link's list item, so the list is read once when that is cheaper. */
export async function updatePrepare(ctx: Context, rows: number): Promise<void> {
  await (await ctx.reader()).preferFull('links', rows);
}

export async function update(ctx: Context, { args, opts }: ActionInput): Promise<Result> {
  ctx.checkOutput(CREATED_COLUMNS);
  refuseShortAlias(opts.alias); // a new alias is sent
  await keepsPolicy(ctx, `link update ${String(args[0])}`, opts.url, opts);
  const { given, clear } = await updateInput(ctx, opts);
  // An alias or short URL is looked up (one request); an id is taken as it is.
  const id = await linkIdOf(await ctx.reader(), args[0] as number | string);
  // What the update would clear whatever the link holds is known now: without a terminal or --yes, refuse before any request.
  const regardless = clearedRegardless(given, clear);
  if (regardless.length && !ctx.globals.yes && !ctx.globals.dryRun && !ctx.interactive) {
    throw new ConfirmationNeeded(clearingQuestion(id, regardless), CLEARING_HINT);
  }
  return writeResult(ctx, await updateLink(await deps(ctx, opts, `link update ${id}`), id, given, clear));
}

