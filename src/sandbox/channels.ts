// Channels and their items: the twin of src/model/channels.ts.
import { deleteRoute, fail, list, MESSAGES, minLength, must, ok, optBool, optString, route, type Ctx } from './kit.js';
import { shortUrl } from './links.js';
import { qrUrl } from './qr.js';
import { addToChannel, indexOfId, inChannel, insert, type Channel, type ChannelItem } from './state.js';
import { channelColor } from '../model/rewrites.js';

const ITEM_TYPES = ['links', 'bio', 'qr'];
function channelFields(ctx: Ctx, requireName: boolean, checkName = true) {
  const b = ctx.body;
  const fields: Partial<Omit<Channel, 'id' | 'items'>> = {};
  if (requireName || (b.name !== undefined && checkName)) fields.name = minLength(b.name, 2, MESSAGES.channelName);
  else if (b.name !== undefined) fields.name = optString(b.name, 'name');
  const description = optString(b.description, 'description');
  if (description !== undefined) fields.description = description;
  const color = optString(b.color, 'color');
  // The product keeps any colour text, cleaned and cut to 7 bytes (real-servers.md, 33: `light blue` → `light`).
  if (color !== undefined) fields.color = ctx.quirks ? channelColor(color) : /^#[0-9a-f]{3}([0-9a-f]{3})?$/i.test(color) ? color : fail('Color must be a HEX color such as #1e88e5.');
  const starred = optBool(b.starred);
  if (starred !== undefined) fields.starred = starred;
  return fields;
}
const channelView = ({ id, name, description, color, starred }: Channel) => ({ id, name, description, color, starred });
function itemView(ctx: Ctx, it: ChannelItem) {
  const base = { type: it.type, id: it.id };
  if (it.type === 'qr') {
    const q = ctx.state.qrs[indexOfId(ctx.state.qrs, it.id)];
    return { ...base, title: q?.name ?? '', preview: q ? qrUrl(ctx, q) : '', link: q ? qrUrl(ctx, q) : '', date: it.date };
  }
  if (it.type === 'bio') {
    const url = `${ctx.base}/bio/${it.id}`; // no bio-page API exists, so there is nothing to read
    return { ...base, title: `Bio page ${it.id}`, preview: url, link: url, date: it.date };
  }
  const l = ctx.state.links[indexOfId(ctx.state.links, it.id)];
  return { ...base, title: l ? l.title || l.longurl : '', preview: l?.longurl ?? '', link: l ? shortUrl(ctx, l) : '', date: it.date };
}

export const channelRoutes = [
  route('GET /api/channels', (ctx) => list(ctx, 'channels', ctx.state.channels, channelView)),
  route('GET /api/channel/:id', (ctx) =>
    list(ctx, 'items', must(ctx, ctx.state.channels, MESSAGES.channelNotFound).items, (it) => itemView(ctx, it))),
  route('POST /api/channel/add', (ctx) => {
    const fields = { description: '', color: '#000000', starred: false, ...channelFields(ctx, true) } as Omit<Channel, 'id' | 'items'>;
    if (ctx.state.channels.some((ch) => ch.name.toLowerCase() === fields.name.toLowerCase())) fail('You already have a channel with this name.');
    const ch = insert(ctx.state, 'channels', (id) => ({ id, ...fields, items: [] }));
    return { error: 0, ...channelView(ch) };
  }),
  route('PUT /api/channel/:id/update', (ctx) => {
    const ch = must(ctx, ctx.state.channels, MESSAGES.channelNotFound);
    const fields = channelFields(ctx, false, !ctx.quirks);
    // 7.7 ignores a name or description shorter than 3 characters, and answers success
    if (ctx.quirks) for (const key of ['name', 'description'] as const) if (fields[key] !== undefined && fields[key]!.trim().length < 3) delete fields[key];
    Object.assign(ch, fields);
    return ctx.quirks ? { error: 0, ...channelView(ch) } : ok('Channel has been updated successfully.');
  }),
  route('POST /api/channel/:channelid/assign/:type/:itemid', (ctx) => {
    const ch = must(ctx, ctx.state.channels, MESSAGES.channelNotFound, ctx.ids.channelid);
    let type = ctx.params.type!;
    if (!ITEM_TYPES.includes(type)) {
      if (!ctx.quirks) fail('Invalid item type. Allowed types: links, bio, qr.');
      type = 'links'; // real servers do not check the type and store the item as a link
    }
    const itemId = ctx.ids.itemid!;
    if (type === 'links') must(ctx, ctx.state.links, MESSAGES.channelAssignLinkNotFound, itemId);
    if (type === 'qr') must(ctx, ctx.state.qrs, MESSAGES.channelAssignQrNotFound, itemId);
    // an error, though the wanted state holds
    if (inChannel(ch, type as ChannelItem['type'], itemId)) fail(MESSAGES.alreadyInChannel);
    addToChannel(ch, type as ChannelItem['type'], itemId);
    return ok(ctx.quirks ? 'Link successfully added to the channel.' : 'Item successfully added to the channel.');
  }),
  // the items live inside the channel, so deleting it unassigns them; the product's links keep a
  // reference to it, which their list items answer as `null` in `channel`
  deleteRoute('DELETE /api/channel/:id/delete', 'channels', MESSAGES.channelNotFound, () => 'Channel has been deleted successfully.', undefined, (ctx, ch) => {
    for (const item of (ch as Channel).items) {
      if (item.type !== 'links') continue;
      const link = ctx.state.links[indexOfId(ctx.state.links, item.id)];
      if (link) link.deletedChannels = (link.deletedChannels ?? 0) + 1;
    }
  }),
];
