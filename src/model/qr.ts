/**
 * QR codes. Real servers put a single code's creation time under `details.data` (sic), send ids
 * and scans as strings, ignore `type` and `name` on update (a code's type and name cannot change
 * through the API), and name a code created without a name "Via API".
 */
import type { Model } from './model.js';
import { compact, type Rec, type StoredFields } from './values.js';
import { cleanedText } from './rewrites.js';

/** What the product keeps of a code's name: cleaned text (facts 15, 23). Its content is another story (23b). */
export const QR_STORED: StoredFields = { name: (value) => cleanedText(value) };

export const qr: Model = {
  kind: 'qr',
  noun: 'QR code',
  command: 'qr',
  list: 'api/qr',
  keys: ['qrs'],
  item: (id) => `api/qr/${id}`,
  add: 'api/qr/add',
  readOne: true,
  key: (item) => (typeof item.name === 'string' ? item.name : undefined),
  listFields: ['id', 'link', 'scans', 'name', 'date'],
  stored: QR_STORED,
};

/**
 * Types whose codes get no short link of their own (real-servers.md, 18: exact, lower case): the
 * image holds the content, and nothing counts their scans. Every other type's image holds the
 * code's own short link, which counts a scan and answers the content.
 */
export const WITHOUT_SHORT_LINK: ReadonlySet<string> = new Set(['text', 'sms', 'wifi', 'staticvcard']);
export const hasShortLink = (type: string): boolean => !WITHOUT_SHORT_LINK.has(type);

export function qrRecord(item: Rec): Rec {
  return compact({ name: item.name });
}

/** The body of add from the file's (and the flags') names: `data` in the shape of its type. */
export function qrBody(record: { type?: unknown; data?: unknown; name?: unknown; background?: unknown; foreground?: unknown; logo?: unknown }): Rec {
  return compact({ type: record.type, data: record.data, name: record.name, background: record.background, foreground: record.foreground, logo: record.logo });
}
