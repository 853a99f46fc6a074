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

/**
 * What the product requires of a pixel's tag, by provider (real-servers.md, fact 35), in bytes of
 * the cleaned tag: a tag shorter than 3 is "Please enter valid id." for every provider, then each
 * provider's own rule. The message the product answers, or undefined when the tag passes.
 */
export function pixelTagRefusal(type: string, tag: string): string | undefined {
  const bytes = Buffer.byteLength(tag);
  if (bytes < 3) return 'Please enter valid id.';
  const rule = PIXEL_TAG_RULES[type];
  return rule && !rule.ok(tag, bytes) ? `${rule.name} is not correct. Please double check.` : undefined;
}
const atLeast = (n: number) => (_: string, bytes: number) => bytes >= n;
const atMost = (n: number) => (_: string, bytes: number) => bytes <= n;
const PIXEL_TAG_RULES: Record<string, { name: string; ok: (tag: string, bytes: number) => boolean }> = {
  gtmpixel: { name: 'GTM container ID', ok: (tag, bytes) => bytes >= 5 && tag.includes('GTM') },
  gapixel: { name: 'Google Analytics ID', ok: atLeast(5) },
  fbpixel: { name: 'Facebook pixel ID', ok: (tag, bytes) => /^\d+$/.test(tag) && bytes <= 20 },
  adwordspixel: { name: 'Google Ads pixel ID', ok: atMost(40) },
  linkedinpixel: { name: 'LinkedIn ID', ok: atMost(10) },
  twitterpixel: { name: 'Twitter ID', ok: atMost(15) },
  adrollpixel: { name: 'AdRoll ID', ok: atMost(50) },
  quorapixel: { name: 'Quora ID', ok: atLeast(30) },
  pinterest: { name: 'Pinterest ID', ok: atLeast(5) },
  bing: { name: 'Bing ID', ok: atLeast(5) },
  snapchat: { name: 'Snapchat ID', ok: atLeast(5) },
  reddit: { name: 'Reddit ID', ok: atLeast(5) },
  tiktok: { name: 'TikTok ID', ok: atLeast(5) },
};
