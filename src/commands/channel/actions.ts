/**
 * Channels: paths, columns, and the answers that differ between servers (update answers a
 * message as documented, or the channel itself on real servers).
 */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { Column, Result } from '../../output/types.js';
import type { ActionInput } from '../shared/define.js';
import { forEachId, idList, listAction, listResult, messageResult, removeAction, withoutError } from '../shared/resource.js';
import { ALREADY_IN_CHANNEL, channelAssignPath, channelBody, channelItems, channels as CHANNEL } from '../../model/channels.js';
import { create, update as updateOne } from '../../model/model.js';
import { ApiError } from '../../errors.js';
import { ITEM_PATH_TYPE, type ChannelItemType } from './types.js';
import { idOfName, LINK_REFERENCES } from '../../model/link-writes.js';
import { channelColor } from '../../model/rewrites.js';

const CHANNEL_REFERENCE = LINK_REFERENCES.find((r) => r.option === 'channel')!;

const COLUMNS: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'name', header: 'Name' },
  { key: 'description', header: 'Description' },
  { key: 'color', header: 'Colour' },
  { key: 'starred', header: 'Starred' },
];

const ITEM_COLUMNS: Column[] = [
  { key: 'type', header: 'Type' },
  { key: 'id', header: 'ID' },
  { key: 'title', header: 'Title' },
  { key: 'link', header: 'Link' },
  { key: 'date', header: 'Added' },
  { key: 'preview', header: 'Preview', optional: true },
];

export const list = listAction('channels', COLUMNS);
export const remove = removeAction('channels', 'Deleting a channel unassigns its items; the links, bio pages and QR codes themselves are kept.');

export async function items(ctx: Context, { args, opts }: ActionInput): Promise<Result> {
  const request = { ...channelItems(args[0] as number), limit: opts.limit, page: opts.page };
  return listResult(ctx, request, ITEM_COLUMNS, Boolean(opts.all));
}

/** What the product will keep of a --color (real-servers.md, 33), said when it is not what was typed. */
function colourNote(ctx: Context, color: unknown): void {
  if (typeof color !== 'string') return;
  const stored = channelColor(color);
  if (stored !== color) ctx.warn(`note: --color "${color}" is stored as "${stored}" (servers keep any colour text, HTML-cleaned and cut to 7 bytes).`);
}

export async function add(ctx: Context, { opts }: ActionInput): Promise<Result> {
  colourNote(ctx, opts.color);
  const json = channelBody({ name: opts.name, description: opts.description, color: opts.color, starred: opts.starred ? true : undefined });
  ctx.checkOutput(COLUMNS);
  const client = await ctx.client();
  const body = await create(client, CHANNEL, json);
  return { kind: 'record', record: withoutError(body), columns: COLUMNS };
}

export async function update(ctx: Context, { args, opts }: ActionInput): Promise<Result> {
  const id = args[0] as number;
  colourNote(ctx, opts.color);
  // --starred / --no-starred leave `starred` undefined when neither is given.
  const json = channelBody({ name: opts.name, description: opts.description, color: opts.color, starred: opts.starred as boolean | undefined });
  if (Object.keys(json).length === 0) throw new UsageError('nothing to change: give --name, --description, --color, --starred or --no-starred', 'e.g. linkctl channel update 2 --name Press');
  ctx.checkOutput(COLUMNS);
  const client = await ctx.client();
  const body = await updateOne(client, CHANNEL, id, json);
  // Documented: a message. Real servers: the channel as it now is.
  if (typeof body.message === 'string' && body.message) return messageResult(body, '');
  return { kind: 'record', record: withoutError(body), columns: COLUMNS };
}

export async function assign(ctx: Context, { args }: ActionInput): Promise<Result> {
  const [channel, type] = args as [number | string, ChannelItemType];
  const client = await ctx.client();
  // A name is the one channel of the account with it (any case), from one read of the channels.
  const channelId = typeof channel === 'number' ? channel : await idOfName(await ctx.reader(), { ...CHANNEL_REFERENCE, flag: 'CHANNEL' }, channel);
  // No body: everything is in the path. Servers store an unknown type as a link, so the type was checked before.
  return forEachId(ctx, idList(args[2]), {
    send: async (itemId) => {
      try {
        return await client.request('POST', channelAssignPath(channelId, ITEM_PATH_TYPE[type], itemId), { checkWith: `linkctl channel items ${channelId}`, about: `channel ${channelId}, ${type} ${itemId}` });
      } catch (error) {
        // Real servers refuse an item that is already there; what the user asked for holds.
        if (error instanceof ApiError && ALREADY_IN_CHANNEL.test(error.message)) return { message: `${type} ${itemId} was already in channel ${channelId}.`, exists: true };
        throw error;
      }
    },
    label: (itemId) => `Item ${itemId} (${ITEM_PATH_TYPE[type]})`,
    done: 'assigned',
    summary: `items not added to channel ${channelId}`,
  });
}
