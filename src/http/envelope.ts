/**
 * What an answer means. Real servers say success with 0, "0" or false, failure with 1, "1",
 * true or 429 (over the rate limit), almost always with HTTP 200. Pure functions: no I/O here,
 * and nothing here throws: any input gives a verdict or a typed error.
 */
import { ApiError, AuthError, type CliError, NetworkError, NotFoundError } from '../errors.js';

export type Body = Record<string, unknown>;

export type Verdict =
  | { kind: 'success'; body: Body }
  | { kind: 'over-limit'; retryAfterSeconds?: number }
  | { kind: 'failure'; error: CliError };

const SUCCESS = new Set<unknown>([0, '0', false]);
const FAILURE = new Set<unknown>([1, '1', true]);
const BASE_URL_HINT = 'is the base URL right? it should be the site root, e.g. https://example.com';

/** A message that means the id is unknown: the servers answer HTTP 200 with these. */
const NOT_FOUND_MESSAGE = /does not exist|doesn't exist|not found|no such/i;
/** A key without the right to this endpoint: scoped keys (7.6+) get HTTP 200 with `error: true` and this. */
const NO_ACCESS_MESSAGE = /do not have (the )?(access|permission)|valid API key is required|activate your account/i;

/** A value for a message, short and on one line. */
function shown(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? typeof value;
  } catch {
    text = typeof value;
  }
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

export function interpretBody(body: unknown, expect: readonly string[] = []): Verdict {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    return { kind: 'failure', error: new NetworkError(`the server answered JSON that is not an object: ${shown(body)}`, BASE_URL_HINT) };
  }
  const record = body as Body;
  const code = record.error;
  if (code === 429 || code === '429') {
    return { kind: 'over-limit', retryAfterSeconds: toSeconds(record['Retry-After'] ?? record.retryAfter) };
  }
  if (FAILURE.has(code)) {
    const message = typeof record.message === 'string' && record.message.trim() ? record.message.trim() : 'the API reported an error without a message';
    const error = NO_ACCESS_MESSAGE.test(message) ? new AuthError(message) : NOT_FOUND_MESSAGE.test(message) ? new NotFoundError(message) : new ApiError(message);
    return { kind: 'failure', error };
  }
  if (!SUCCESS.has(code)) {
    return {
      kind: 'failure',
      error: new NetworkError(
        code === undefined ? 'the answer has no `error` field, so it is not from this API' : `the answer has an unknown \`error\` value: ${shown(code)}`,
        BASE_URL_HINT,
      ),
    };
  }
  const missing = expect.filter((field) => record[field] === undefined || record[field] === null);
  if (missing.length) {
    return {
      kind: 'failure',
      error: new NetworkError(
        `the answer reports success but lacks ${missing.map((f) => `\`${f}\``).join(', ')}`,
        'the server may run a version that answers differently; run again with --debug to see the answer',
      ),
    };
  }
  return { kind: 'success', body: record };
}

/** A wait in seconds (a body's `Retry-After`), or undefined when it is not a sane number. Capped at a year. */
export function toSeconds(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : NaN;
  return Number.isFinite(n) && n >= 0 ? Math.min(n, 365 * 86_400) : undefined;
}

/** An HTTP `Retry-After` header: seconds, or an HTTP date. Anything else is ignored. */
export function retryAfterSeconds(value: string | null | undefined, nowMs = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const seconds = toSeconds(value);
  if (seconds !== undefined) return seconds;
  if (!/[a-z]/i.test(value) || value.length > 100) return undefined; // a date has a month or day name
  const at = Date.parse(value);
  return Number.isFinite(at) ? toSeconds(Math.max(0, (at - nowMs) / 1000)) : undefined;
}

/** Integer ids and counts may arrive as strings on older servers. Only exact, safe integers. */
export function toInt(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === 'string' && /^\s*-?\d{1,15}\s*$/.test(value)) return Number(value.trim());
  return undefined;
}
