/**
 * The bound on an answer of a tool that is not a list (a single record, an account, a document):
 * a server can put megabytes in one field, and an agent pays for every byte of a message. A JSON
 * answer over MAX_RECORD_BYTES has its longest strings cut, each saying how much was left out;
 * anything still over it (or text that is not JSON over MAX_TEXT_BYTES) is cut whole. The note
 * names what was cut and how to get it whole: the same command run by the user.
 */
import { MAX_BYTES_RANGE } from './tools.js';
import { thousands } from '../numbers.js';

/** What one record may take in an answer: many times any real record of this API. */
export const MAX_RECORD_BYTES = 100_000;
/** Text that is not JSON (an exported file): what clients are sure to take. */
export const MAX_TEXT_BYTES = MAX_BYTES_RANGE.max;
/** How much of a string that was cut is kept. */
const KEPT_CHARS = 1_000;

export interface Bounded {
  text: string;
  /** What was cut, or undefined when nothing was. */
  cut?: string;
}

/** `value` (parsed JSON) as compact text under MAX_RECORD_BYTES, with what was cut. */
export function boundJson(value: unknown, stringify: (v: unknown) => string): Bounded {
  const whole = stringify(value);
  if (Buffer.byteLength(whole) <= MAX_RECORD_BYTES) return { text: whole };
  const cutPaths: string[] = [];
  const shorten = (v: unknown, path: string): unknown => {
    if (typeof v === 'string' && v.length > KEPT_CHARS) {
      cutPaths.push(path || '(the answer)');
      return `${v.slice(0, KEPT_CHARS)}… [cut by linkctl mcp: ${thousands(v.length - KEPT_CHARS)} more characters]`;
    }
    if (Array.isArray(v)) return v.map((item, i) => shorten(item, `${path}[${i}]`));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, shorten(item, path ? `${path}.${k}` : k)]));
    return v;
  };
  const shortened = stringify(shorten(value, ''));
  const listed = cutPaths.slice(0, 10).join(', ') + (cutPaths.length > 10 ? ` and ${cutPaths.length - 10} more` : '');
  if (Buffer.byteLength(shortened) <= MAX_RECORD_BYTES) {
    return { text: shortened, cut: `the answer (${thousands(Buffer.byteLength(whole))} bytes) is over ${thousands(MAX_RECORD_BYTES)} bytes: ${cutPaths.length === 1 ? 'this field was cut to its first' : 'these fields were cut to their first'} ${thousands(KEPT_CHARS)} characters: ${listed}` };
  }
  return { text: cutText(whole, MAX_RECORD_BYTES), cut: `the answer (${thousands(Buffer.byteLength(whole))} bytes) is over ${thousands(MAX_RECORD_BYTES)} bytes even with its long fields cut: only its first ${thousands(MAX_RECORD_BYTES)} bytes are given (not valid JSON)` };
}

/** Text that is not JSON, under MAX_TEXT_BYTES. */
export function boundText(text: string): Bounded {
  if (Buffer.byteLength(text) <= MAX_TEXT_BYTES) return { text };
  return { text: cutText(text, MAX_TEXT_BYTES), cut: `the answer (${thousands(Buffer.byteLength(text))} bytes) is over ${thousands(MAX_TEXT_BYTES)} bytes: only its first ${thousands(MAX_TEXT_BYTES)} bytes are given` };
}

/** The first `bytes` bytes of `text`, never half a character. */
function cutText(text: string, bytes: number): string {
  return Buffer.from(text).subarray(0, bytes).toString('utf8').replace(/\uFFFD$/, '');
}
