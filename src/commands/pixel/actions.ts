/**
 * Tracking pixels: paths and columns. Delete is not in the documented API but real servers
 * have it; create answers a string id on real servers, given back here as a number.
 */
import { UsageError } from '../../errors.js';
import type { Context } from '../../context.js';
import { toInt } from '../../http/envelope.js';
import type { Column, Result } from '../../output/types.js';
import type { ActionInput } from '../shared/define.js';
import { findInList, listAction, messageResult, removeAction, withoutError } from '../shared/resource.js';
import { create, update as updateOne } from '../../model/model.js';
import { pixelBody, pixels as PIXEL } from '../../model/pixels.js';

const COLUMNS: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'type', header: 'Type' },
  { key: 'name', header: 'Name' },
  { key: 'tag', header: 'Tag' },
  { key: 'date', header: 'Created' },
];

export const list = listAction('pixels', COLUMNS);
export const remove = removeAction('pixels');

const CREATED_COLUMNS: Column[] = [{ key: 'id', header: 'ID' }];

export async function add(ctx: Context, { opts }: ActionInput): Promise<Result> {
  ctx.checkOutput(CREATED_COLUMNS);
  const client = await ctx.client();
  const body = await create(client, PIXEL, pixelBody({ type: opts.type, name: opts.name, tag: opts.tag }));
  // --json is the answer as sent (the id may be a string on real servers); people see a number.
  return { kind: 'record', record: { ...withoutError(body), id: toInt(body.id) ?? body.id }, columns: CREATED_COLUMNS, json: withoutError(body) };
}

export async function update(ctx: Context, { args, opts }: ActionInput): Promise<Result> {
  const id = args[0] as number;
  if (opts.tag === undefined && opts.name === undefined) throw new UsageError('nothing to change: give --tag or --name', 'e.g. linkctl pixel update 4 --name "Main analytics"');
  const client = await ctx.client();
  // The API needs the tag with every update: without --tag, the pixel's own is read from the list.
  const tag = opts.tag ?? (await findInList(ctx, PIXEL, id)).tag;
  const body = await updateOne(client, PIXEL, id, pixelBody({ tag, name: opts.name }), {
    // Real servers answer an unknown id with an empty body.
    emptyAnswerHint: `pixel ${id} may not exist (see \`linkctl pixel list\`)`,
  });
  return messageResult(body, `Pixel ${id} updated.`);
}
