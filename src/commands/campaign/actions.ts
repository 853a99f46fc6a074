/**
 * Campaigns: paths, columns and bodies. The name arrives under `name` (list items), `domain`
 * (documented create/update answers) or `campaign` (real servers' create/update answers);
 * `rotator` and `list` are `false` when the campaign has no slug.
 */
import { UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import type { Column, Rec, Result } from '../../output/types.js';
import type { ActionInput } from '../shared/define.js';
import { findInList, forEachId, idList, listAction, messageResult, removeAction, withoutError } from '../shared/resource.js';
import { campaignAssignPath, campaignBody, campaignName, campaignSlugOf, campaigns as CAMPAIGN, withoutOwnSlug } from '../../model/campaigns.js';
import { create, update as updateOne } from '../../model/model.js';
import { planLinkUpdate } from '../../model/links.js';
import { readLink } from '../../model/link-writes.js';

const orNone = (value: unknown) => (value === false ? 'none' : value);

const COLUMNS: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'name', header: 'Name', value: campaignName },
  { key: 'public', header: 'Public' },
  { key: 'rotator', header: 'Rotator', show: (r) => orNone(r.rotator) },
  { key: 'list', header: 'List', show: (r) => orNone(r.list) },
  { key: 'views', header: 'Views', optional: true },
];

export const list = listAction('campaigns', COLUMNS);
export const remove = removeAction('campaigns');

function body(opts: Rec) {
  return campaignBody({ name: opts.name, slug: opts.slug, public: opts.public ? true : opts.private ? false : undefined });
}

/** Create and update answer the campaign itself (the name under `domain` or `campaign`). */
function campaignRecord(answer: Rec, fallback: string): Result {
  if (answer.id === undefined) return messageResult(answer, fallback); // an update answered with a message only
  const rest = withoutError(answer);
  // People see the name whichever key carries it; --json is the answer as the server sent it.
  return { kind: 'record', record: { ...rest, name: campaignName(rest) }, columns: COLUMNS.filter((c) => !c.optional), json: rest };
}

export async function add(ctx: Context, { opts }: ActionInput): Promise<Result> {
  ctx.checkOutput(COLUMNS);
  const client = await ctx.client();
  return campaignRecord(await create(client, CAMPAIGN, body(opts)), 'Campaign created.');
}

export async function update(ctx: Context, { args, opts }: ActionInput): Promise<Result> {
  ctx.checkOutput(COLUMNS);
  const client = await ctx.client();
  const id = args[0] as number;
  if (opts.name === undefined && opts.slug === undefined && !opts.public && !opts.private) throw new UsageError('nothing to change: give --name, --slug, --public or --private', 'e.g. linkctl campaign update 5 --name "Spring 2027"');
  // The API needs the name with every update: without --name, the campaign's own is read from the list;
  // with --slug, its slug too (the product refuses a slug that any campaign holds, its own included).
  const current = opts.name === undefined || opts.slug !== undefined ? await findInList(ctx, CAMPAIGN, id) : undefined;
  const name = opts.name ?? campaignName(current!);
  const json = withoutOwnSlug(body({ ...opts, name }), current && campaignSlugOf(current));
  if (opts.slug !== undefined && json.slug === undefined) {
    const held = campaignSlugOf(current!)!;
    if (opts.name === undefined && !opts.public && !opts.private) {
      return { kind: 'message', message: `Campaign ${id} has the slug "${held}" already: nothing was sent.`, json: { id, slug: held, changed: false } };
    }
    ctx.warn(`note: campaign ${id} has the slug "${held}" already: it is not sent again (the product refuses a slug that any campaign holds, its own included).`);
  }
  return campaignRecord(await updateOne(client, CAMPAIGN, id, json), `Campaign ${id} updated.`);
}

export async function assign(ctx: Context, { args }: ActionInput): Promise<Result> {
  const campaignId = args[0] as number;
  await keepsPolicy(ctx, campaignId, idList(args[1]));
  const client = await ctx.client();
  return forEachId(ctx, idList(args[1]), {
    send: (linkId) => client.request('POST', campaignAssignPath(campaignId, linkId), { about: `campaign ${campaignId}, link ${linkId}` }),
    label: (linkId) => `Link ${linkId}`,
    done: 'assigned',
    summary: `links not added to campaign ${campaignId}`,
  });
}

/**
 * Rules scoped to a campaign hold for the links moved into it: each link, as it is (read: its
 * destination and targets) and in this campaign, is checked before any is assigned. Only a policy
 * with campaign scopes costs the reads.
 */
async function keepsPolicy(ctx: Context, campaignId: number, linkIds: number[]): Promise<void> {
  const { enforcePolicy, linkSubject, scopesCampaigns } = await import('../../policy/enforce.js');
  if (!(await scopesCampaigns(ctx))) return;
  const reader = await ctx.reader();
  const writes = [];
  for (const id of linkIds) {
    const { body } = planLinkUpdate(await readLink(reader, id), { campaign: campaignId }, new Set());
    writes.push({ what: `campaign assign ${campaignId} ${id}`, subject: linkSubject(body) });
  }
  await enforcePolicy(ctx, writes);
}
