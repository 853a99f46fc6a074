/**
 * Channels and their items. Update answers a message as documented, or the channel itself on
 * real servers; assigning an item already in the channel is an error on real servers ("This item
 * is already added to the selected channel."), though the wanted state holds.
 */
import type { Model } from './model.js';
import { compact, flag, text, type Rec, type StoredFields } from './values.js';
import { capitalisedName, channelColor, cleanedText } from './rewrites.js';

/**
 * What the product keeps of a channel's fields (facts 15, 29, 33): text cleaned; the name
 * capitalised by an update only (`world news` stays so on create); the colour any text, cut to 7 bytes.
 */
export const CHANNEL_STORED: StoredFields = {
  name: (value, write) => (write === 'update' ? capitalisedName(value) : cleanedText(value)),
  description: (value) => cleanedText(value),
  color: (value) => channelColor(value),
};

export const channels: Model = {
  kind: 'channels',
  noun: 'channel',
  command: 'channel',
  list: 'api/channels',
  keys: ['channels'],
  item: (id) => `api/channel/${id}`,
  add: 'api/channel/add',
  key: (item) => (typeof item.name === 'string' ? item.name : undefined),
  listFields: ['id', 'name', 'description', 'color', 'starred'],
  stored: CHANNEL_STORED,
};

/** `GET api/channel/:id`: the channel's items, a list under `items`. */
export const channelItems = (id: number) => ({ path: channels.item(id), keys: ['items'] as const });

/** `POST api/channel/:id/assign/:type/:itemid`, with the type as the path names it (`links`, `bio`, `qr`). */
export const channelAssignPath = (channelId: number, pathType: string, itemId: number) => `${channels.item(channelId)}/assign/${pathType}/${itemId}`;

/** The answer to an assign of an item that is already in the channel: the wanted state holds. */
export const ALREADY_IN_CHANNEL = /already added to the selected channel/i;

/**
 * What a channel update stores (7.7): a name or description shorter than this is ignored, with a
 * success answer, so a 2-character name (allowed on create) cannot be given by an update and a
 * description cannot be cleared.
 */
export const MIN_UPDATE_TEXT = 3;

/** Why an update's name or description would be ignored by real servers; undefined when it would be stored. */
export function ignoredOnUpdate(field: 'name' | 'description', value: string): string | undefined {
  if (value.trim().length >= MIN_UPDATE_TEXT) return undefined;
  return value.trim() === '' && field === 'description'
    ? 'a channel description cannot be cleared through the API: real servers ignore a description shorter than 3 characters on update, and answer success'
    : `real servers ignore a channel ${field} shorter than ${MIN_UPDATE_TEXT} characters on update, and answer success (got "${value}")`;
}


export function channelRecord(item: Rec): Rec {
  return compact({ name: item.name, description: text(item.description), color: text(item.color), starred: flag(item.starred) });
}

export function channelBody(record: { name?: unknown; description?: unknown; color?: unknown; starred?: unknown }): Rec {
  return compact({ name: record.name, description: record.description, color: record.color, starred: record.starred });
}
