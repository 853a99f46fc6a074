/**
 * What an answer means. Real servers say success with 0, "0" or false, failure with 1, "1",
 * true or 429 (over the rate limit), almost always with HTTP 200. Pure functions: no I/O here.
 */
import { ApiError, NetworkError, NotFoundError } from '../errors.js';

export type Body = Record<string, unknown>;

export type Verdict =
  | { kind: 'success'; body: Body }
  | { kind: 'over-limit'; retryAfterSeconds?: number }
  | { kind: 'failure'; error: Error };

const SUCCESS = new Set<unknown>([0, '0', false]);
const FAILURE = new Set<unknown>([1, '1', true]);

/** A message that means the id is unknown: the servers answer HTTP 200 with these. */
const NOT_FOUND_MESSAGE = /does not exist|doesn't exist|not found|no such/i;

export function interpretBody(body: unknown, expect: readonly string[] = []): Verdict {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    return { kind: 'failure', error: new NetworkError('the server answered JSON that is not an object') };
  }
  const record = body as Body;
  const code = record.error;
  if (code === 429 || code === '429') {
    return { kind: 'over-limit', retryAfterSeconds: toSeconds(record['Retry-After'] ?? record.retryAfter) };
  }
  if (FAILURE.has(code)) {
    const message = typeof record.message === 'string' && record.message.trim() ? record.message.trim() : 'the API reported an error without a message';
    return { kind: 'failure', error: NOT_FOUND_MESSAGE.test(message) ? new NotFoundError(message) : new ApiError(message) };
  }
  if (!SUCCESS.has(code)) {
    return {
      kind: 'failure',
      error: new NetworkError(
        code === undefined ? 'the answer has no `error` field, so it is not from this API' : `the answer has an unknown \`error\` value: ${JSON.stringify(code).slice(0, 40)}`,
        'is the base URL right? it should be the site root, e.g. https://example.com',
      ),
    };
  }
  const missing = expect.filter((field) => record[field] === undefined || record[field] === null);
  if (missing.length) {
    return {
      kind: 'failure',
      error: new NetworkError(`the server's answer reports success but lacks ${missing.map((f) => `\`${f}\``).join(', ')}`),
    };
  }
  return { kind: 'success', body: record };
}

/** A Retry-After value in seconds, or undefined when it is not a sane number. */
export function toSeconds(value: unknown): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) && n >= 0 && n < 86_400 ? n : undefined;
}

/** Integer ids and counts may arrive as strings on older servers. */
export function toInt(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value.trim());
  return undefined;
}
