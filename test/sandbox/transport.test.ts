// Transport-level behaviour: auth, non-JSON answers, rate limit, faults, admin endpoints.
import { describe, expect, it } from 'vitest';
import { SANDBOX_KEY, type RecordedRequest } from '../../src/sandbox/server.js';
import { call, get, useSandbox } from './helpers.js';

const start = useSandbox();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('auth', () => {
  it.each([
    ['missing', null],
    ['wrong key', 'Bearer nope'],
    ['not Bearer', `Basic ${SANDBOX_KEY}`],
    ['bare (no Bearer)', SANDBOX_KEY],
  ])('answers 403 JSON for a %s key', async (_, auth) => {
    const sb = await start();
    const r = await call(sb, 'GET', '/api/account', undefined, auth);
    expect(r.status).toBe(403);
    expect(r.json).toEqual({ error: 1, message: 'A valid API key is required to use this service.' });
  });

  it('accepts a custom key and exposes it', async () => {
    const sb = await start({ key: 'k-123' });
    expect(sb.key).toBe('k-123');
    expect((await call(sb, 'GET', '/api/account', undefined, 'Bearer k-123')).json.data.username).toBe('demo');
    expect((await call(sb, 'GET', '/api/account', undefined, `Bearer ${SANDBOX_KEY}`)).status).toBe(403);
  });
});

describe('errors outside the JSON envelope', () => {
  it('unknown route is 404 HTML, wrong method 405 HTML, in both modes', async () => {
    for (const quirks of [false, true]) {
      const sb = await start({ quirks });
      const unknown = await get(sb, '/api/nothing-here');
      expect(unknown.status).toBe(404);
      expect(unknown.headers.get('content-type')).toMatch(/text\/html/);
      expect(unknown.text).toMatch(/<html/);
      const wrong = await call(sb, 'PUT', '/api/qr/1');
      expect(wrong.status).toBe(405);
      expect(wrong.text).toMatch(/<html/);
    }
  });

  it('non-numeric id: 500 HTML with quirks, error 1 documented', async () => {
    const real = await start({ quirks: true });
    const r = await get(real, '/api/qr/abc');
    expect(r.status).toBe(500);
    expect(r.text).toMatch(/<html/);
    const doc = await start({ quirks: false });
    expect((await get(doc, '/api/qr/abc')).json).toEqual({ error: 1, message: 'Invalid id.' });
    expect((await call(doc, 'POST', '/api/channel/1/assign/qr/x1')).json).toEqual({ error: 1, message: 'Invalid id.' });
  });

  it('a body that is not JSON is read as empty, as the product 7.7 reads it, and changes nothing', async () => {
    const sb = await start();
    const r = await call(sb, 'POST', '/api/qr/add', '{"type": "text", ');
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ error: 1, message: 'Invalid QR format or missing data.' });
    const documented = await start({ quirks: false });
    expect((await call(documented, 'POST', '/api/qr/add', '{"type": "text", ')).json).toEqual({ error: 1, message: 'Invalid JSON body.' });
    expect((await get(sb, '/api/qr')).json.data.result).toBe(3);
  });

  it('caps bodies at 1 MB', async () => {
    const sb = await start();
    const r = await call(sb, 'POST', '/api/qr/add', { type: 'text', data: 'x'.repeat(1024 * 1024 + 10) });
    expect(r.status).toBe(413);
    expect(r.json.error).toBe(1);
    expect((await get(sb, '/api/qr')).json.data.result).toBe(3);
  });
});

describe('rate limit', () => {
  it('has no limit by default, as --sandbox and `sandbox serve` have', async () => {
    const sb = await start({ rateLimit: undefined });
    const r = await get(sb, '/api/account');
    expect([r.json.error, r.headers.get('x-ratelimit-limit')]).toEqual([0, null]);
  });

  it('sends a real server\'s default headers: 30 per 60 s, reset in whole seconds', async () => {
    // The test's own clock: the window is judged by it, not by how fast this machine answers.
    const now = 1_800_000_000_400;
    const sb = await start({ rateLimit: { limit: 30, windowSeconds: 60 }, clock: () => now });
    const r = await get(sb, '/api/account');
    expect(r.headers.get('x-ratelimit-limit')).toBe('30');
    expect(r.headers.get('x-ratelimit-remaining')).toBe('29');
    const reset = Number(r.headers.get('x-ratelimit-reset'));
    expect(reset).toBe(1_800_000_000 + 60);
    // error answers carry the headers too
    const miss = await get(sb, '/api/qr/999');
    expect(miss.json.error).toBe(1);
    expect(miss.headers.get('x-ratelimit-remaining')).toBe('28');
  });

  it('answers over-limit requests with HTTP 200 error 429, unprocessed but recorded, until the reset second of the window is over', async () => {
    // The test's own clock, just after a second boundary (the window is aligned to it); it moves only when the test says.
    let now = 1_800_000_000_005;
    const sb = await start({ quirks: false, rateLimit: { limit: 3, windowSeconds: 1 }, clock: () => now });
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 3; i++) remaining.push((await get(sb, '/api/account')).headers.get('x-ratelimit-remaining'));
    expect(remaining).toEqual(['2', '1', '0']);

    const over = await call(sb, 'POST', '/api/qr/add', { type: 'text', data: 'not stored' });
    expect(over.status).toBe(200);
    expect(over.json).toEqual({ error: 429, message: 'Too Many API Requests.', 'Retry-After': 1 });
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(sb.requests).toHaveLength(4);
    expect(sb.requests[3]!.body).toEqual({ type: 'text', data: 'not stored' });

    const reset = Number(over.headers.get('x-ratelimit-reset'));
    expect(reset).toBe(1_800_000_001);
    // The reset second itself is still closed, as on the product 7.7: Retry-After 0, the old reset.
    now = reset * 1000 + 20;
    const atReset = await get(sb, '/api/qr');
    expect(atReset.json).toEqual({ error: 429, message: 'Too Many API Requests.', 'Retry-After': 0 });
    expect(Number(atReset.headers.get('x-ratelimit-reset'))).toBe(reset);
    now = (reset + 1) * 1000 + 20;
    const after = await get(sb, '/api/qr');
    expect(after.json.data.result).toBe(3); // the rejected POST created nothing
    expect(after.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(Number(after.headers.get('x-ratelimit-reset'))).toBe(reset + 2);
  });

  it('remaining stops at 0 (7.6), and goes negative on a 6.x server', async () => {
    for (const [version, expected] of [['7', ['0', '0']], ['6', ['-1', '-2']]] as const) {
      const sb = await start({ quirks: true, version, rateLimit: { limit: 1, windowSeconds: 60 } });
      await get(sb, '/api/account');
      const r1 = await get(sb, '/api/account');
      const r2 = await get(sb, '/api/account');
      expect(r1.json.error).toBe(429);
      expect([r1.headers.get('x-ratelimit-remaining'), r2.headers.get('x-ratelimit-remaining')], version).toEqual(expected);
      expect(r2.json['Retry-After']).toBeGreaterThanOrEqual(58);
    }
  });

  it('can limit without headers, and be switched off', async () => {
    const silent = await start({ rateLimit: { limit: 1, windowSeconds: 60 }, rateLimitHeaders: false });
    await get(silent, '/api/account');
    const r = await get(silent, '/api/account');
    expect(r.json.error).toBe(429);
    expect(r.headers.get('x-ratelimit-limit')).toBeNull();

    const off = await start({ rateLimit: null });
    for (let i = 0; i < 40; i++) await get(off, '/api/account');
    const last = await get(off, '/api/account');
    expect(last.json.error).toBe(0);
    expect(last.headers.get('x-ratelimit-remaining')).toBeNull();
  });
});

describe('faults', () => {
  it('html, empty, truncated, redirect, over-limit, http-429', async () => {
    const sb = await start();
    sb.injectFault({ kind: 'html', status: 502 });
    sb.injectFault({ kind: 'empty' });
    sb.injectFault({ kind: 'truncated' });
    sb.injectFault({ kind: 'redirect', location: 'https://elsewhere.example/api/qr' });
    sb.injectFault({ kind: 'redirect', status: 302, location: '/x' });
    sb.injectFault({ kind: 'over-limit' });
    sb.injectFault({ kind: 'http-429', retryAfter: 7 });

    const html = await get(sb, '/api/qr');
    expect([html.status, /<html/.test(html.text)]).toEqual([502, true]);
    const empty = await get(sb, '/api/qr');
    expect([empty.status, empty.text]).toEqual([200, '']);
    const cut = await get(sb, '/api/qr');
    expect(cut.status).toBe(200);
    expect(cut.text.startsWith('{"error":0,"data":{')).toBe(true);
    expect(cut.json).toBeUndefined();
    const moved = await get(sb, '/api/qr');
    expect([moved.status, moved.headers.get('location')]).toEqual([301, 'https://elsewhere.example/api/qr']);
    expect((await get(sb, '/api/qr')).status).toBe(302);
    const limited = await call(sb, 'POST', '/api/qr/add', { type: 'text', data: 'dropped' });
    expect(limited.json).toEqual({ error: 429, message: 'Too Many API Requests.', 'Retry-After': 1 });
    const http429 = await get(sb, '/api/qr');
    expect([http429.status, http429.headers.get('retry-after'), http429.json['Retry-After']]).toEqual([429, '7', 7]);

    const normal = await get(sb, '/api/qr');
    expect(normal.json.data.result).toBe(3); // the over-limit POST was not processed
    expect(sb.requests.map((r) => r.method)).toEqual(['GET', 'GET', 'GET', 'GET', 'GET', 'POST', 'GET', 'GET']);
  });

  it('applies a fault `times` times', async () => {
    const sb = await start();
    sb.injectFault({ kind: 'empty' }, 2);
    const texts = [];
    for (let i = 0; i < 3; i++) texts.push((await get(sb, '/api/account')).text);
    expect(texts[0]).toBe('');
    expect(texts[1]).toBe('');
    expect(JSON.parse(texts[2]!).error).toBe(0);
  });

  it('reset-before-body drops the request; reset-after-body processes it first', async () => {
    const sb = await start({ quirks: false });
    sb.injectFault({ kind: 'reset-before-body' });
    await expect(call(sb, 'POST', '/api/qr/add', { type: 'text', data: 'lost' })).rejects.toThrow();
    sb.injectFault({ kind: 'reset-after-body' });
    await expect(call(sb, 'POST', '/api/qr/add', { type: 'text', data: 'kept' })).rejects.toThrow();
    const qrs = (await get(sb, '/api/qr')).json.data;
    expect(qrs.result).toBe(4);
    expect(qrs.qrs[0].id).toBe(4);
    expect(sb.requests.map((r) => r.rawBody)).toEqual(['', '{"type":"text","data":"kept"}', '']);
  });

  it('hang never answers, and close() still returns promptly', async () => {
    const sb = await start({ quirks: false });
    sb.injectFault({ kind: 'hang' });
    const pending = get(sb, '/api/account').then(() => 'answered', () => 'failed');
    const raced = await Promise.race([pending, sleep(150).then(() => 'waiting')]);
    expect(raced).toBe('waiting');
    // Promptly: the hang is forever, so any bound well under the test's timeout shows close() did not wait for it.
    const t0 = Date.now();
    await sb.close();
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(await pending).toBe('failed');
  });

  it('garbage rate-limit headers on an otherwise normal answer', async () => {
    const sb = await start({ rateLimit: { limit: 30, windowSeconds: 60 } });
    sb.injectFault({ kind: 'garbage-ratelimit-headers' });
    const r = await call(sb, 'POST', '/api/channel/add', { name: 'Garbage' });
    expect(r.json.error).toBe(0);
    expect(r.headers.get('x-ratelimit-remaining')).toBe('banana');
    expect(r.headers.get('x-ratelimit-reset')).toBe('soon');
    expect((await get(sb, '/api/channels')).json.data.result).toBe(2);
  });
});

describe('recording and admin endpoints', () => {
  it('records API requests with parsed query, headers and body', async () => {
    const sb = await start();
    await call(sb, 'PUT', '/api/qr/1/update?x=1', { data: 'https://example.com/new' });
    expect(sb.requests).toEqual([{
      method: 'PUT', path: '/api/qr/1/update', query: { x: '1' },
      headers: expect.objectContaining({ authorization: `Bearer ${SANDBOX_KEY}`, 'content-type': 'application/json' }),
      body: { data: 'https://example.com/new' }, rawBody: '{"data":"https://example.com/new"}', at: expect.any(Number), inFlight: 1,
    }]);
  });

  it('drives another process: requests, fault, reset; admin calls are not recorded, and need the key', async () => {
    const sb = await start({ quirks: false, rateLimit: { limit: 2, windowSeconds: 60 } });
    await call(sb, 'POST', '/api/channel/add', { name: 'Temp' });
    const auth = { Authorization: `Bearer ${sb.key}` };
    const log = await fetch(`${sb.url}/__sandbox/requests`, { headers: auth }).then((r) => r.json() as Promise<RecordedRequest[]>);
    expect(log).toHaveLength(1);
    expect(log[0].body).toEqual({ name: 'Temp' });

    const bad = await fetch(`${sb.url}/__sandbox/fault`, { method: 'POST', headers: auth, body: JSON.stringify({ fault: { kind: 'nope' } }) });
    expect(bad.status).toBe(400);
    await fetch(`${sb.url}/__sandbox/fault`, { method: 'POST', headers: auth, body: JSON.stringify({ fault: { kind: 'html', status: 503 }, times: 1 }) });
    expect((await get(sb, '/api/account')).status).toBe(503);

    await fetch(`${sb.url}/__sandbox/requests`, { method: 'DELETE', headers: auth });
    expect(sb.requests).toHaveLength(0);

    // faulted requests were not processed, so only the channel add used the allowance of 2
    expect((await get(sb, '/api/channels')).json.error).toBe('0');
    expect((await get(sb, '/api/channels')).json.error).toBe(429);
    await fetch(`${sb.url}/__sandbox/reset`, { method: 'POST', headers: auth });
    const after = await get(sb, '/api/channels');
    expect(after.json.data.result).toBe(1); // Temp is gone, and the limit counter was reset
    expect(sb.requests).toHaveLength(1);
    expect(await fetch(`${sb.url}/__sandbox/requests`, { headers: auth }).then((r) => r.json())).toHaveLength(1);
  });

  it('--latency: each request takes it (half on the way there, half back), several in flight at once, counted; a request whose client left is still carried out', async () => {
    const sb = await start({ quirks: false, rateLimit: null, latencyMs: 300 });
    const auth = { Authorization: `Bearer ${sb.key}` };
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => call(sb, 'POST', '/api/channel/add', { name: `Slow ${i}` })));
    const took = performance.now() - started;
    expect(answers.every((a) => a.json.error === 0)).toBe(true);
    // At least the latency (a lower bound only: a loaded machine may take longer), and all five at once.
    expect(took).toBeGreaterThanOrEqual(290);
    expect(sb.inFlight).toEqual({ now: 0, max: 5 });
    expect(sb.requests.map((r) => r.inFlight).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(await fetch(`${sb.url}/__sandbox/requests/in-flight`, { headers: auth }).then((r) => r.json())).toEqual({ now: 0, max: 5 });
    // A client that gives up while its request is on its way: the server still carries it out, as a real one would.
    const gone = new AbortController();
    const asked = fetch(`${sb.url}/api/channel/add`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Left' }), signal: gone.signal }).catch(() => 'aborted');
    while (sb.inFlight.now === 0) await sleep(5);
    gone.abort();
    expect(await asked).toBe('aborted');
    while (!((await get(sb, '/api/channels')).json.data.channels as Array<{ name: string }>).some((c) => c.name === 'Left')) await sleep(20);
    await fetch(`${sb.url}/__sandbox/requests`, { method: 'DELETE', headers: auth });
    expect(sb.inFlight.max).toBe(sb.inFlight.now);
  });

  it('counts every API request, past the 1,000 its log keeps (what the bench counts by); clearing the log clears the count', async () => {
    const sb = await start({ quirks: false, rateLimit: null });
    const auth = { Authorization: `Bearer ${sb.key}` };
    for (let i = 0; i < 1005; i++) await get(sb, '/api/account');
    const count = () => fetch(`${sb.url}/__sandbox/requests/count`, { headers: auth }).then((r) => r.json());
    expect(await count()).toEqual({ api: 1005 });
    expect(await fetch(`${sb.url}/__sandbox/requests`, { headers: auth }).then((r) => r.json())).toHaveLength(1000);
    await fetch(`${sb.url}/__sandbox/requests`, { method: 'DELETE', headers: auth });
    expect(await count()).toEqual({ api: 0 });
  });
});
