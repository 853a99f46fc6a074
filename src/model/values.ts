/**
 * Small pure helpers for reading records as servers send them (ids and flags in several types,
 * names under several keys) and writing bodies. No I/O, no imports of the API layer: the output
 * layer and command definitions may use these too.
 */
export type Rec = Record<string, unknown>;

/**
 * Terraform's `StateFunc` for one field: what the product keeps when a create or an update sends
 * `value` (the rules are in ./rewrites.ts); undefined when linkctl cannot predict it (a slug
 * romanised from another script), so that only a read can tell. Each resource's model names the
 * rewrite of each of its fields beside the field (CAMPAIGN_STORED, CHANNEL_STORED, LINK_FIELDS...),
 * and export, plan, apply and the sandbox all read that one mark.
 */
export type StoredAs = (value: string, write: 'create' | 'update') => string | undefined;
/** The fields of a resource's record (as the account file names them) that the product rewrites. */
export type StoredFields = Readonly<Record<string, StoredAs>>;

/** What the product keeps of `value` in `field` (the value itself when the field is not rewritten, or is no string). */
export function storedAs(fields: StoredFields | undefined, field: string, value: unknown, write: 'create' | 'update' = 'create'): unknown {
  const rewrite = fields?.[field];
  return rewrite && typeof value === 'string' ? rewrite(value, write) : value;
}

/** The first of several keys that holds a value: servers name some fields differently. */
export function firstOf(record: Rec, ...keys: string[]): unknown {
  for (const key of keys) if (record[key] !== undefined && record[key] !== null) return record[key];
  return undefined;
}

/** Drops undefined fields so a request body carries only what the user gave. */
export function compact<T extends Record<string, unknown>>(body: T): Partial<T> {
  // a loop, not fromEntries(entries().filter()): twice a `--from` row, and cold in the check of every row
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(body)) {
    const value = body[key];
    if (value === undefined) continue;
    // an own `__proto__` key stays a key (as fromEntries kept it), not the result's prototype
    if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    else out[key] = value;
  }
  return out as Partial<T>;
}

/** A non-empty string, else undefined. */
export const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Booleans arrive as true, 1, "1" or "true". */
export const flag = (v: unknown): boolean => v === true || v === 1 || v === '1' || v === 'true';

export const noSlash = (v: string): string => v.replace(/\/+$/, '');

/** Keys (aliases, names, domains) compare without case: servers treat them that way. */
export const keyMatch = (key: string): string => (/[A-Z]/.test(key) ? key.toLowerCase() : key); // the same string when it is lower case already: no copy per record

/** An id a record holds (`3`, `"3"`, or the first id of `[null, 3, 4]`: 7.7 leaves a null for a deleted channel); 0, null, false and '' mean none. */
export function refId(value: unknown): number | undefined {
  if (Array.isArray(value)) return refIds(value)[0];
  const v = value;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** Every id a list field holds (`channel: ["3", 4]`, or a single id). */
export function refIds(value: unknown): number[] {
  const values = Array.isArray(value) ? value : value === undefined || value === null || value === '' ? [] : [value];
  return values.map((v) => refId(v)).filter((n): n is number => n !== undefined);
}
