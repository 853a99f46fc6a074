/**
 * Which channels each link of the history is in, as the server lists them now: the history keeps
 * no channels (a snapshot reads links, QR codes and campaigns), so `stats top --group channel` and
 * `stats export` read them when they run: one request for the channels, one (or more, paged) per
 * channel for its items.
 */
import type { Context } from '../context.js';
import type { Item } from './store.js';
import type { Group } from './rollup.js';
import { channelItems } from '../model/channels.js';
import { fullRead } from '../http/pages.js';
import { toInt } from '../http/envelope.js';

/** Link item id (the history's) -> its channels, in the server's order. */
export async function readChannels(ctx: Context, items: readonly Item[]): Promise<Map<number, Group[]>> {
  const reader = await ctx.reader();
  const byRemote = new Map(items.filter((i) => i.kind === 'link' && i.remoteId !== null).map((i) => [i.remoteId!, i.id]));
  const out = new Map<number, Group[]>();
  for (const channel of await reader.all('channels')) {
    const id = toInt(channel.id);
    if (id === undefined) continue;
    const name = typeof channel.name === 'string' && channel.name ? channel.name : `channel ${id}`;
    ctx.status(`reading the items of channel ${name}`);
    for await (const page of fullRead(reader.client, channelItems(id))) {
      for (const entry of page.records) {
        // link items only (bio pages and QR codes are not links); an unknown type is stored as a link by real servers
        if (entry.type !== undefined && entry.type !== 'links' && entry.type !== 'link') continue;
        const item = byRemote.get(toInt(entry.id) ?? -1);
        if (item === undefined) continue;
        const list = out.get(item) ?? [];
        if (!list.some((g) => g.id === id)) list.push({ key: `channel:${id}`, id, name });
        out.set(item, list);
      }
    }
  }
  for (const list of out.values()) list.sort((a, b) => a.id! - b.id!); // the order of their ids, not of the server's list
  return out;
}
