/**
 * Branded domains: paths, columns, and the create/update bodies. Real servers send the id
 * of a new domain as a string, append their own system domains (`"id": null`) to the list,
 * and answer an update of an unknown id or with a rejected redirect with an empty body.
 */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { toInt } from '../../http/envelope.js';
import type { Column, Result } from '../../output/types.js';
import type { ActionInput } from '../shared/define.js';
import { listAction, messageResult, removeAction, withoutError } from '../shared/resource.js';
import { domainBody, domains as DOMAIN } from '../../model/domains.js';
import { create, update as updateOne } from '../../model/model.js';

const COLUMNS: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'domain', header: 'Domain' },
  { key: 'redirectroot', header: 'Root redirect' },
  { key: 'redirect404', header: '404 redirect' },
  { key: 'kind', header: 'Kind', value: (r) => (r.id === null || r.id === undefined ? 'system' : 'branded') },
];

export const list = listAction('domains', COLUMNS);
export const remove = removeAction('domains');

const redirects = (opts: Record<string, any>) => domainBody({ redirectRoot: opts.redirectRoot, redirect404: opts.redirect404 });

const CREATED_COLUMNS = COLUMNS.filter((c) => c.key !== 'kind');

export async function add(ctx: Context, { args, opts }: ActionInput): Promise<Result> {
  const json: Record<string, unknown> = { domain: args[0] as string, ...redirects(opts) };
  ctx.checkOutput(CREATED_COLUMNS);
  const client = await ctx.client();
  const body = await create(client, DOMAIN, json, {
    emptyAnswerHint: 'the server rejected the request without a reason; a redirect URL may be one it does not accept',
  });
  // The answer is only the id: people see it with what was sent; --json is the answer itself.
  const record = { id: toInt(body.id) ?? body.id, domain: json.domain, redirectroot: json.redirectroot ?? '', redirect404: json.redirect404 ?? '' };
  return { kind: 'record', record, columns: CREATED_COLUMNS, json: withoutError(body) };
}

export async function update(ctx: Context, { args, opts }: ActionInput): Promise<Result> {
  const id = args[0] as number;
  const json = redirects(opts);
  if (Object.keys(json).length === 0) throw new UsageError('nothing to change: give --redirect-root and/or --redirect-404 (the domain itself cannot change)', 'e.g. linkctl domain update 3 --redirect-404 https://example.com/missing');
  const client = await ctx.client();
  const body = await updateOne(client, DOMAIN, id, json, {
    emptyAnswerHint: `domain ${id} may not exist (see \`linkctl domain list\`), or the server did not accept a redirect URL`,
  });
  return messageResult(body, `Domain ${id} updated.`);
}
