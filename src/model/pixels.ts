/** Tracking pixels. Delete is not in the documented API but real servers have it; ids may be strings. */
import type { Model } from './model.js';
import { compact, type Rec, type StoredFields } from './values.js';
import { cleanedText } from './rewrites.js';

/** What the product keeps of a pixel's name and tag: cleaned text (fact 15). */
export const PIXEL_STORED: StoredFields = { name: (value) => cleanedText(value), tag: (value) => cleanedText(value) };

export const pixels: Model = {
  kind: 'pixels',
  noun: 'pixel',
  command: 'pixel',
  list: 'api/pixels',
  keys: ['pixels'],
  item: (id) => `api/pixel/${id}`,
  add: 'api/pixel/add',
  key: (item) => (typeof item.name === 'string' ? item.name : undefined),
  listFields: ['id', 'type', 'name', 'tag', 'date'],
  stored: PIXEL_STORED,
};


export function pixelRecord(item: Rec): Rec {
  return compact({ name: item.name, type: item.type, tag: item.tag });
}

/** The body of add (type, name, tag) or update (tag and name; a pixel's type cannot change). */
export function pixelBody(record: { type?: unknown; name?: unknown; tag?: unknown }): Rec {
  return compact({ type: record.type, name: record.name, tag: record.tag });
}
