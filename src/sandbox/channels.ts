// Channels and their items: the twin of src/model/channels.ts. Stored values go through
// src/model/rewrites.ts (cleaned names and descriptions, capitalised names on update, colours cut).
import { randomBytes } from 'node:crypto';
import { capitalisedName, channelColor, channelItemTitle, cleanedText, phpString, phpTruthy } from '../model/rewrites.js';
import { add, deleteRoute, fail, Halt, list, listed, mine, MESSAGES, minLength, must, nowStamp, ok, optBool, optString, route, type Ctx, type Json } from './kit.js';
import { shortUrl } from './links.js';
import { qrUrl } from './qr.js';
import { addChannelEntry, addToChannel, dropChannelEntries, indexOfId, inChannel, ownerOf, type Channel, type ChannelItem } from './state.js';

const ITEM_TYPES = ['links', 'bio', 'qr'];

/** The documented mode's checks (link-api.md): a name of 2 characters, a HEX colour. */
function documentedFields(ctx: Ctx, requireName: boolean) {
  const b = ctx.body;
  const fields: Partial<Omit<Channel, 'id' | 'items'>> = {};
  if (requireName || b.name !== undefined) fields.name = minLength(b.name, 2, MESSAGES.channelName);
  const description = optString(b.description, 'description');
  if (description !== undefined) fields.description = description;
  const color = optString(b.color, 'color');
  if (color !== undefined) fields.color = /^#[0-9a-f]{3}([0-9a-f]{3})?$/i.test(color) ? color : fail('Color must be a HEX color such as #1e88e5.');
  const starred = optBool(b.starred);
  if (starred !== undefined) fields.starred = starred;
  return fields;
}

/** The product's random colour for a channel created without one (`#8ba074`). */
const randomColor = () => `#${randomBytes(3).toString('hex')}`;
/** Text as the product stores it: any scalar as text, cleaned (fact 15). */
const text = (v: unknown) => cleanedText(phpString(v));
const given = (v: unknown) => v !== undefined && v !== null;

/**
 * What 7.7 stores of a create (facts 31-34): the name cleaned, at least 2 bytes, not trimmed and not
 * capitalised; the colour cut to 7 bytes (a random one when none is sent); `starred` as PHP reads it.
 */
function createdFields(ctx: Ctx): Omit<Channel, 'id' | 'items'> {
  const b = ctx.body;
  const name = typeof b.name === 'string' || typeof b.name === 'number' ? text(b.name) : '';
  if (Buffer.byteLength(name) < 2) fail(MESSAGES.channelName);
  return {
    name,
    description: given(b.description) ? text(b.description) : '',
    color: phpTruthy(b.color) ? channelColor(phpString(b.color)) : randomColor(),
    starred: phpTruthy(b.starred),
  };
}

/** What 7.7 changes on update: a name or description of 2 bytes or less is ignored (fact 31); names are capitalised (fact 29). */
function updatedFields(ctx: Ctx): Partial<Omit<Channel, 'id' | 'items'>> {
  const b = ctx.body;
  const fields: Partial<Omit<Channel, 'id' | 'items'>> = {};
  if (given(b.name)) {
    const name = capitalisedName(phpString(b.name));
    if (Buffer.byteLength(name) > 2) fields.name = name;
  }
  if (given(b.description)) {
    const description = text(b.description);
    if (Buffer.byteLength(description) > 2) fields.description = description;
  }
  if (phpTruthy(b.color)) fields.color = channelColor(phpString(b.color));
  if (b.starred !== undefined) fields.starred = phpTruthy(b.starred);
  return fields;
}

const channelView = ({ id, name, description, color, starred }: Channel) => ({ id, name, description, color, starred });

/**
 * An item of `GET /api/channel/:id` (fact 25): a link's title is its meta title, else its destination;
 * a QR code's its name; cut to 30 bytes with `...`. undefined for an item whose link or code is gone
 * (fact 24): the product still counts its row in `result`.
 */
function itemView(ctx: Ctx, it: ChannelItem): Json | undefined {
  const base = { type: it.type, id: it.id };
  const title = (t: string) => (ctx.quirks ? channelItemTitle(t) : t);
  if (it.type === 'qr') {
    const q = ctx.state.qrs[indexOfId(ctx.state.qrs, it.id)];
    if (!q && ctx.quirks) return undefined;
    return { ...base, title: title(q?.name ?? ''), preview: q ? qrUrl(ctx, q) : '', link: q ? qrUrl(ctx, q) : '', date: it.date };
  }
  if (it.type === 'bio') {
    const url = `${ctx.base}/bio/${it.id}`; // no bio-page API exists, so there is nothing to read
    const name = ctx.state.bios?.find((b) => b.id === it.id)?.name ?? `Bio page ${it.id}`;
    return { ...base, title: title(name), preview: url, link: url, date: it.date };
  }
  const l = ctx.state.links[indexOfId(ctx.state.links, it.id)];
  if (!l && ctx.quirks) return undefined;
  return { ...base, title: title(l ? l.title || l.longurl : ''), preview: l?.longurl ?? '', link: l ? shortUrl(ctx, l) : '', date: it.date };
}

export const channelRoutes = [
  route('GET /api/channels', (ctx) => list(ctx, 'channels', listed(ctx, mine(ctx, ctx.state.channels)), channelView)),
  // in the order they were assigned (fact 2)
  route('GET /api/channel/:id', (ctx) =>
    list(ctx, 'items', listed(ctx, must(ctx, ctx.state.channels, MESSAGES.channelNotFound).items), (it) => itemView(ctx, it))),
  route('POST /api/channel/add', (ctx) => {
    const fields = ctx.quirks ? createdFields(ctx)
      : { description: '', color: '#000000', starred: false, ...documentedFields(ctx, true) } as Omit<Channel, 'id' | 'items'>;
    const lower = fields.name.toLowerCase();
    const existing = mine(ctx, ctx.state.channels).find((ch) => ch.name.toLowerCase() === lower);
    // 7.7 names the channel that has the name (fact 34)
    if (existing) throw new Halt({ error: 1, message: 'You already have a channel with this name.', ...(ctx.quirks ? { id: existing.id } : {}) });
    const ch = add(ctx, 'channels', (id) => ({ id, ...fields, items: [] }));
    // the answer carries the name as sent: a number stays a number (`"name": 123`), the list says "123"
    return { error: 0, ...channelView(ch), ...(ctx.quirks && typeof ctx.body.name === 'number' ? { name: ctx.body.name } : {}) };
  }),
  route('PUT /api/channel/:id/update', (ctx) => {
    const ch = must(ctx, ctx.state.channels, MESSAGES.channelNotFound);
    Object.assign(ch, ctx.quirks ? updatedFields(ctx) : documentedFields(ctx, false));
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
    if (ctx.quirks && itemId === 0) fail('You need to select at least 1 link.');
    if (type === 'links') must(ctx, ctx.state.links, MESSAGES.channelAssignLinkNotFound, itemId);
    if (type === 'qr') must(ctx, ctx.state.qrs, MESSAGES.channelAssignQrNotFound, itemId);
    if (type === 'bio' && ctx.quirks && !ctx.state.bios?.some((b) => b.id === itemId && ownerOf(b) === ctx.user.id)) fail('Bio Page does not exist. Please try again.');
    // an error, though the wanted state holds
    if (inChannel(ch, type as ChannelItem['type'], itemId)) fail(MESSAGES.alreadyInChannel);
    // the link's entry first: until its first change, a link's entries are read from the channels' items
    if (type === 'links') addChannelEntry(ctx.state, ctx.state.links[indexOfId(ctx.state.links, itemId)]!, ch.id);
    addToChannel(ch, type as ChannelItem['type'], itemId, nowStamp(ctx));
    return ok(ctx.quirks ? 'Link successfully added to the channel.' : 'Item successfully added to the channel.');
  }),
  // the items live inside the channel, so deleting it unassigns them, and its entries leave every link (fact 5)
  deleteRoute('DELETE /api/channel/:id/delete', 'channels', MESSAGES.channelNotFound, () => 'Channel has been deleted successfully.',
    (ctx, ch) => dropChannelEntries(ctx.state, ch.id)),
];
