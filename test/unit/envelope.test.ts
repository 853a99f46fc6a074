/** The answer envelope: which `error` values mean what, `expect`, and the number readers. */
import { describe, expect, it } from 'vitest';
import { interpretBody, retryAfterSeconds, toInt, toSeconds } from '../../src/http/envelope.js';
import { ApiError, AuthError, ExitCode, NetworkError, NotFoundError } from '../../src/errors.js';

const failure = (body: unknown, expectFields?: string[]) => {
  const verdict = interpretBody(body, expectFields);
  if (verdict.kind !== 'failure') throw new Error(`expected a failure, got ${verdict.kind}`);
  return verdict.error;
};

describe('interpretBody', () => {
  it.each([0, '0', false])('error %j is success', (code) => {
    const body = { error: code, id: 3 };
    expect(interpretBody(body)).toEqual({ kind: 'success', body });
  });

  it.each([1, '1', true])('error %j is a failure carrying the server message (exit 1)', (code) => {
    const error = failure({ error: code, message: ' That alias is taken. Please choose another one. ' });
    expect(error).toBeInstanceOf(ApiError);
    expect(error.exitCode).toBe(ExitCode.api);
    expect(error.message).toBe('That alias is taken. Please choose another one.');
  });

  it.each([
    'You do not have access to this endpoint with this API key.',
    'You do not have the permission to use the API.',
    'You do not have permission to access this endpoint.',
    'Please activate your account.',
  ])('"%s" with HTTP 200 is a permission failure (exit 3)', (message) => {
    const error = failure({ error: true, message });
    expect(error).toBeInstanceOf(AuthError);
    expect(error.exitCode).toBe(ExitCode.auth);
    expect(error.message).toBe(message);
  });

  it.each(['QR does not exist.', 'Link does not exist.', 'Campaign not found. Please try again.'])('"%s" is not found (exit 4)', (message) => {
    const error = failure({ error: 1, message });
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.exitCode).toBe(ExitCode.notFound);
  });

  it('a failure without a message still says something', () => {
    expect(failure({ error: 1 }).message).toBe('the API reported an error without a message');
    expect(failure({ error: true, message: 42 }).message).toBe('the API reported an error without a message');
  });

  it.each([
    [{ error: 429, message: 'Too Many API Requests.', 'Retry-After': 59 }, 59],
    [{ error: '429', 'Retry-After': '7' }, 7],
    [{ error: 429 }, undefined],
    [{ error: 429, 'Retry-After': 'soon' }, undefined],
  ])('%j is over the limit, retry after %s s', (body, seconds) => {
    expect(interpretBody(body)).toEqual({ kind: 'over-limit', retryAfterSeconds: seconds });
  });

  it('success without an expected field is a protocol error naming the fields (exit 6)', () => {
    const error = failure({ error: 0, message: 'ok', shorturl: null }, ['id', 'shorturl']);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.exitCode).toBe(ExitCode.network);
    expect(error.message).toBe('the answer reports success but lacks `id`, `shorturl`');
  });

  it('expected fields that are present, even falsy, are enough', () => {
    expect(interpretBody({ error: 0, id: 0, data: '' }, ['id', 'data']).kind).toBe('success');
  });

  it('expect is not checked on failures: the server message wins', () => {
    expect(failure({ error: 1, message: 'Campaign not found.' }, ['id'])).toBeInstanceOf(NotFoundError);
  });

  it.each([
    [{ message: 'hi' }, 'the answer has no `error` field, so it is not from this API'],
    [{ error: 'maybe' }, 'the answer has an unknown `error` value: "maybe"'],
    [{ error: 2 }, 'the answer has an unknown `error` value: 2'],
    [{ error: null }, 'the answer has an unknown `error` value: null'],
    [{ error: 'x'.repeat(100) }, `the answer has an unknown \`error\` value: "${'x'.repeat(36)}...`],
    [[], 'the server answered JSON that is not an object: []'],
    [null, 'the server answered JSON that is not an object: null'],
    ['ok', 'the server answered JSON that is not an object: "ok"'],
    [7, 'the server answered JSON that is not an object: 7'],
  ])('%j is not this API: exit 6 with a base URL hint', (body, message) => {
    const error = failure(body);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toBe(message);
    expect(error.hint).toMatch(/site root/);
  });
});

describe('toSeconds (Retry-After in a body)', () => {
  it.each([
    [59, 59],
    ['59', 59],
    [' 1.5 ', 1.5],
    [0, 0],
    [10 ** 12, 365 * 86_400],
  ])('%j -> %j', (value, seconds) => expect(toSeconds(value)).toBe(seconds));

  it.each([-1, '-1', 'soon', '', ' ', '1e3', 'Infinity', NaN, Infinity, null, undefined, {}, [], true])('%j is not a wait', (value) => {
    expect(toSeconds(value)).toBeUndefined();
  });
});

describe('retryAfterSeconds (the HTTP header)', () => {
  const now = Date.parse('2025-03-01T12:00:00Z');
  it('reads seconds', () => expect(retryAfterSeconds('120', now)).toBe(120));
  it('reads an HTTP date', () => expect(retryAfterSeconds('Sat, 01 Mar 2025 12:00:30 GMT', now)).toBe(30));
  it('a date in the past means now', () => expect(retryAfterSeconds('Sat, 01 Mar 2025 11:00:00 GMT', now)).toBe(0));
  it.each([null, undefined, '', 'banana', 'soon', '12abc', '-5', 'Mon, 99 Foo 2025'])('ignores %j', (value) => {
    expect(retryAfterSeconds(value, now)).toBeUndefined();
  });
});

describe('toInt (ids and counts, numbers or strings)', () => {
  it.each([
    [12, 12],
    ['12', 12],
    [' 12 ', 12],
    ['-3', -3],
    [0, 0],
  ])('%j -> %j', (value, n) => expect(toInt(value)).toBe(n));

  it.each([1.5, '1.5', '1e3', 'banana', '', '99999999999999999999', 2 ** 60, NaN, null, undefined, true, {}])('%j is not an integer', (value) => {
    expect(toInt(value)).toBeUndefined();
  });
});
