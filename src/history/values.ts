/**
 * What a server sends is checked once, here, where it enters the history: a total must be a
 * count (a whole number from 0 to 2^53 - 1, as a number or as a string of digits) and a text
 * must be storable in both databases (PostgreSQL refuses NUL; a lone UTF-16 surrogate is no
 * character at all). The store refuses a record's totals that are not counts and replaces what
 * text cannot hold, and counts both for the snapshot's summary.
 */

/** A total as the server sent it: a number, a string of digits, or anything else (refused). */
export type RawCount = unknown;

/** The largest total kept: beyond it a double no longer counts one by one. */
export const MAX_COUNT = Number.MAX_SAFE_INTEGER;

/** The count in `raw`, or undefined when it is none (negative, fractional, huge, empty, not a number). */
export function countOf(raw: RawCount): number | undefined {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) && raw >= 0 ? raw : undefined;
  if (typeof raw === 'string' && /^\s*\d{1,16}\s*$/.test(raw)) {
    const n = Number(raw.trim());
    return n <= MAX_COUNT ? n : undefined;
  }
  return undefined;
}

/** `raw` as a message may show it: short, and plain (it is printed through the safe-text layer anyway). */
export function shownValue(raw: RawCount): string {
  const text = typeof raw === 'string' ? JSON.stringify(raw) : raw === undefined ? 'nothing' : typeof raw === 'object' && raw !== null ? JSON.stringify(raw) ?? String(raw) : String(raw);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/** NUL, and a surrogate that is not half of a pair. */
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The replacement for what a database cannot hold: U+FFFD, as a UTF-8 decoder shows a broken character. */
export const REPLACEMENT = '\ufffd';

/** `text` as both databases can store it; `cleaned` says whether anything was replaced. */
export function storableText(text: string): { text: string; cleaned: boolean } {
  UNSTORABLE.lastIndex = 0;
  if (!UNSTORABLE.test(text)) return { text, cleaned: false };
  return { text: text.replace(UNSTORABLE, REPLACEMENT), cleaned: true };
}

/** Counts what was refused and cleaned on the way in, for the summary. */
export class Door {
  refusedRecords = 0;
  refusedDetails = 0;
  cleanedTexts = 0;
  /** A few of the refused values, to name in the summary: `link 12 clicks -1`. */
  readonly examples: string[] = [];

  text(value: string): string;
  text(value: string | undefined): string | undefined;
  text(value: string | null | undefined): string | null | undefined;
  text(value: string | null | undefined): string | null | undefined {
    if (typeof value !== 'string') return value;
    const { text, cleaned } = storableText(value);
    if (cleaned) this.cleanedTexts++;
    return text;
  }

  refuse(what: string, raw: RawCount, details = false): void {
    if (details) this.refusedDetails++;
    else this.refusedRecords++;
    if (this.examples.length < 3) this.examples.push(`${what} ${shownValue(raw)}`);
  }
}
