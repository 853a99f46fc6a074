/**
 * Campaigns: paths, columns and bodies. The name arrives under `name` (list items), `domain`
 * (documented create/update answers) or `campaign` (real servers' create/update answers);
 * `rotator` and `list` are `false` when the campaign has no slug.
 */
import { UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import type { Column, Rec, Result } from '../../output/types.js';
import type { ActionInput } from '../shared/define.js';
import { compact, findInList, firstOf, forEachId, idList, listAction, messageResult, removeAction, withoutError, type Resource } from '../shared/resource.js';

const orNone = (value: unknown) => (value === false ? 'none' : value);

const COLUMNS: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'name', header: 'Name', value: (r) => firstOf(r, 'name', 'domain', 'campaign') },
  { key: 'public', header: 'Public' },
  { key: 'rotator', header: 'Rotator', show: (r) => orNone(r.rotator) },
  { key: 'list', header: 'List', show: (r) => orNone(r.list) },
  { key: 'views', header: 'Views', optional: true },
];

const CAMPAIGN: Resource = { noun: 'campaign', listPath: 'api/campaigns', keys: ['campaigns'], itemPath: (id) => `api/campaign/${id}`, columns: COLUMNS };

export const list = listAction(CAMPAIGN);
export const remove = removeAction(CAMPAIGN);

function body(opts: Rec) {
  return compact({ name: opts.name as string, slug: opts.slug as string | undefined, public: opts.public ? true : opts.private ? false : undefined });
}

/** Create and update answer the campaign itself (the name under `domain` or `campaign`). */
function campaignRecord(answer: Rec, fallback: string): Result {
  if (answer.id === undefined) return messageResult(answer, fallback); // an update answered with a message only
  const rest = withoutError(answer);
  // People see the name whichever key carries it; --json is the answer as the server sent it.
  return { kind: 'record', record: { ...rest, name: firstOf(rest, 'name', 'domain', 'campaign') }, columns: COLUMNS.filter((c) => !c.optional), json: rest };
}

export async function add(ctx: Context, { opts }: ActionInput): Promise<Result> {
  ctx.checkOutput(COLUMNS);
  const client = await ctx.client();
  return campaignRecord(await client.request('POST', 'api/campaign/add', { json: body(opts), expect: ['id'], checkWith: 'linkctl campaign list' }), 'Campaign created.');
}

export async function update(ctx: Context, { args, opts }: ActionInput): Promise<Result> {
  ctx.checkOutput(COLUMNS);
  const client = await ctx.client();
  const id = args[0] as number;
  if (opts.name === undefined && opts.slug === undefined && !opts.public && !opts.private) throw new UsageError('nothing to change: give --name, --slug, --public or --private', 'e.g. linkctl campaign update 5 --name "Spring 2027"');
  // The API needs the name with every update: without --name, the campaign's own is read from the list.
  const name = opts.name ?? firstOf(await findInList(ctx, CAMPAIGN, id), 'name', 'campaign', 'domain');
  return campaignRecord(await client.request('PUT', `${CAMPAIGN.itemPath(id)}/update`, { json: body({ ...opts, name }), about: `campaign ${id}` }), `Campaign ${id} updated.`);
}

export async function assign(ctx: Context, { args }: ActionInput): Promise<Result> {
  const campaignId = args[0] as number;
  const client = await ctx.client();
  return forEachId(ctx, idList(args[1]), {
    send: (linkId) => client.request('POST', `${CAMPAIGN.itemPath(campaignId)}/assign/${linkId}`, { about: `campaign ${campaignId}, link ${linkId}` }),
    label: (linkId) => `Link ${linkId}`,
    done: 'assigned',
    summary: `links not added to campaign ${campaignId}`,
  });
}
