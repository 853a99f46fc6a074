/**
 * What a user sees when the server misbehaves: the built CLI against the sandbox told to answer
 * with a fault, or against a small server of the test's own for answers the sandbox cannot give.
 * Each case asserts the exit code, the message and hint on stderr, an empty stdout, and through
 * the requests the sandbox received, how many attempts were made.
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it, type TestContext } from 'vitest';
import { ApiClient } from '../../src/http/client.js';
import { startSandbox, type SandboxOptions } from '../../src/sandbox/server.js';
import { BIN, cleanEnv, runCli, sent, tempDir, type RunResult } from '../helpers.js';

// Most time here is spent waiting (timeouts, backoff, Retry-After), so the tests run
// concurrently, each with its own sandbox.
const configDir = tempDir();
afterAll(() => rmSync(configDir, { recursive: true, force: true }));

async function setup({ onTestFinished }: TestContext, options: SandboxOptions = {}) {
  const sandbox = await startSandbox({ port: 0, rateLimit: null, ...options });
  onTestFinished(() => sandbox.close());
  return {
    sandbox,
    env: { LINKCTL_BASE_URL: sandbox.url, LINKCTL_API_KEY: sandbox.key, LINKCTL_CONFIG_DIR: configDir },
    // API requests (qr get and qr update also read the code's image, which is no API request)
    count: () => sandbox.requests.filter((r) => r.path.startsWith('/api/')).length,
    methods: () => sandbox.requests.map((r) => `${r.method} ${r.path}`),
  };
}
const QR_ADD = ['qr', 'add', '--type', 'text', '--data', 'hello'];

/** A failure: nothing on stdout, one message line and one hint line on stderr, this exit code. */
function failed(r: RunResult, code: number, message: RegExp | string, hint?: RegExp | string) {
  expect(r.stdout).toBe('');
  expect(r.code).toBe(code);
  const lines = r.stderr.trimEnd().split('\n');
  const error = lines.find((l) => l.startsWith('linkctl: '));
  expect(error, r.stderr).toBeDefined();
  expect(error).toMatch(message);
  if (hint !== undefined) expect(lines.find((l) => l.startsWith('hint: '))).toMatch(hint);
  expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
}

describe.concurrent('non-JSON answers', () => {
  it('404 HTML page: wrong base URL, exit 6 with the status and a hint about the site root', async (t) => {
    const { sandbox, env, count } = await setup(t);
    sandbox.injectFault({ kind: 'html', status: 404 });
    const r = await runCli(['qr', 'list'], { env });
    failed(r, 6, `linkctl: HTTP 404: the server sent an HTML page for GET ${sandbox.url}/api/qr`,
      'hint: is the base URL right? it should be the site root, e.g. https://example.com');
    expect(count()).toBe(1);
  });

  it('405 HTML page: exit 6 naming the method', async (t) => {
    const { sandbox, env, count } = await setup(t);
    sandbox.injectFault({ kind: 'html', status: 405 });
    const r = await runCli(['qr', 'delete', '1', '--yes'], { env });
    failed(r, 6, /HTTP 405: the server sent an HTML page for DELETE .*\/api\/qr\/1\/delete$/, /does not accept this method/);
    expect(count()).toBe(1);
  });

  it('500 HTML page on a path with an id: exit 6, not retried, hint about the id or data', async (t) => {
    const { sandbox, env, count } = await setup(t);
    sandbox.injectFault({ kind: 'html', status: 500 });
    const r = await runCli(['qr', 'get', '1'], { env });
    failed(r, 6, /HTTP 500: the server sent an HTML page for GET .*\/api\/qr\/1$/,
      'hint: the server failed on this request (non-numeric id, or data the server rejects)');
    expect(count()).toBe(1);
  });

  it('HTML with status 200 (a branded domain as base URL): exit 6, hint about the main site', async (t) => {
    const { sandbox, env } = await setup(t);
    sandbox.injectFault({ kind: 'html', status: 200 });
    const r = await runCli(['qr', 'list'], { env });
    failed(r, 6, 'HTTP 200: the server sent an HTML page', /branded domain/);
  });

  it('empty 200 body: exit 6, "the server sent an empty answer" and the hint', async (t) => {
    const { sandbox, env, count } = await setup(t);
    sandbox.injectFault({ kind: 'empty' });
    const r = await runCli(['qr', 'get', '2'], { env });
    failed(r, 6, /HTTP 200: the server sent an empty answer to GET .*\/api\/qr\/2$/,
      'hint: the id may not exist or a URL may be invalid');
    expect(count()).toBe(1);
  });

  it('truncated JSON: exit 6, an incomplete answer', async (t) => {
    const { sandbox, env } = await setup(t);
    sandbox.injectFault({ kind: 'truncated' });
    const r = await runCli(['qr', 'list', '--json'], { env });
    failed(r, 6, 'HTTP 200: the server sent an incomplete JSON answer', /cut short/);
  });
});

describe.concurrent('retries', () => {
  it('GET: 503 HTML three times is three attempts, then exit 6', async (t) => {
    const { sandbox, env, methods } = await setup(t);
    sandbox.injectFault({ kind: 'html', status: 503 }, 3);
    const r = await runCli(['qr', 'list'], { env });
    failed(r, 6, /HTTP 503 Service Unavailable: the server sent an HTML page for GET .*\/api\/qr \(3 attempts\)$/, /unavailable; try again later/);
    expect(methods()).toEqual(['GET /api/qr', 'GET /api/qr', 'GET /api/qr']);
  });

  it('GET: 503 twice then an answer succeeds on the third attempt', async (t) => {
    const { sandbox, env, count } = await setup(t);
    sandbox.injectFault({ kind: 'html', status: 503 }, 2);
    // (--fields without scans: the list alone, no read of each code to learn whether it counts scans)
    const r = await runCli(['qr', 'list', '--json', '--fields', 'id,name'], { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(3);
    expect(count()).toBe(3);
  });

  it('GET: a connection reset three times is three attempts, then exit 6', async (t) => {
    const { sandbox, env, count } = await setup(t);
    sandbox.injectFault({ kind: 'reset-before-body' }, 3);
    const r = await runCli(['qr', 'get', '1'], { env });
    failed(r, 6, /GET .*\/api\/qr\/1: the connection was closed before a complete answer \(3 attempts\)$/, /dropped the connection/);
    expect(count()).toBe(3);
  });

  it('PUT is retried after a reset that lost the answer (it is idempotent)', async (t) => {
    const { sandbox, env } = await setup(t);
    sandbox.injectFault({ kind: 'reset-after-body', method: 'PUT' });
    // code 2 is a text code (servers read the data as the code's own type; linkctl reads it from the image first)
    const r = await runCli(['qr', 'update', '2', '--type', 'text', '--data', 'again'], { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(sent(sandbox).filter((s) => s.method === 'PUT').map((s) => [s.method, s.path, s.body])).toEqual([
      ['PUT', '/api/qr/2/update', { type: 'text', data: 'again' }],
      ['PUT', '/api/qr/2/update', { type: 'text', data: 'again' }],
    ]);
  });

  it('DELETE is retried too; when the lost answer had deleted it, the not-found says so', async (t) => {
    const { sandbox, env, methods } = await setup(t);
    sandbox.injectFault({ kind: 'reset-after-body' });
    const r = await runCli(['qr', 'delete', '2', '--yes'], { env });
    failed(r, 4, 'linkctl: QR code 2: QR does not exist.', 'hint: an earlier attempt whose answer was lost has probably deleted it');
    expect(methods()).toEqual(['DELETE /api/qr/2/delete', 'DELETE /api/qr/2/delete']);
  });

  it('POST: a reset after the server processed it is NOT retried; exit 6 says it may have been created', async (t) => {
    const { sandbox, env, methods } = await setup(t);
    sandbox.injectFault({ kind: 'reset-after-body' });
    const r = await runCli(QR_ADD, { env });
    failed(r, 6, /POST .*\/api\/qr\/add: the connection was closed before a complete answer; .*may or may not have been created/,
      'hint: check with `linkctl qr list` before trying again');
    expect(methods()).toEqual(['POST /api/qr/add']);
    // It was in fact created: exactly once.
    const list = JSON.parse((await runCli(['qr', 'list', '--json'], { env })).stdout) as { name?: string; id: number }[];
    expect(list).toHaveLength(4);
  });

  it('POST: a 503 is not retried either (a gateway error says nothing about the outcome)', async (t) => {
    const { sandbox, env, count } = await setup(t);
    sandbox.injectFault({ kind: 'html', status: 503 }, 3);
    const r = await runCli(QR_ADD, { env });
    failed(r, 6, /HTTP 503 Service Unavailable; .*may or may not have been created/, /linkctl qr list/);
    expect(count()).toBe(1);
  });

  it('POST: connection refused proves nothing was sent, so it is retried, then exit 6', async (t) => {
    const { env } = await setup(t);
    const closed = await freePort();
    const started = Date.now();
    const r = await runCli(QR_ADD, { env: { ...env, LINKCTL_BASE_URL: `http://127.0.0.1:${closed}` } });
    failed(r, 6, `POST http://127.0.0.1:${closed}/api/qr/add: connection refused (3 attempts)`, 'hint: is the server running, and the base URL right?');
    expect(r.stderr).not.toMatch(/may or may not/);
    // Only the retries' backoff is waited for, never a timeout (30 s by default): a bound well under
    // that, with room for a slow start on a loaded machine.
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});

describe.concurrent('TLS', () => {
  it('https:// to a port that speaks plain http: exit 6 on one line, not retried, hint about the scheme', async (t) => {
    const { sandbox, env } = await setup(t);
    const r = await runCli(['qr', 'list'], { env: { ...env, LINKCTL_BASE_URL: `https://127.0.0.1:${sandbox.port}` } });
    failed(r, 6, `linkctl: GET https://127.0.0.1:${sandbox.port}/api/qr: the TLS connection failed (ERR_SSL_WRONG_VERSION_NUMBER)`, /http:\/\/ or https:\/\//);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(2);
  });
});

describe.concurrent('timeouts', () => {
  it('POST that hangs: one attempt, exit 6 after --timeout, naming it, with the list command to check', async (t) => {
    const { sandbox, env, methods } = await setup(t);
    sandbox.injectFault({ kind: 'hang' }, 5);
    const started = Date.now();
    const r = await runCli([...QR_ADD, '--timeout', '1'], { env });
    const took = Date.now() - started;
    failed(r, 6, /POST .*\/api\/qr\/add: no complete answer within 1 s \(--timeout\); .*may or may not have been created/,
      'hint: check with `linkctl qr list` before trying again');
    expect(methods()).toEqual(['POST /api/qr/add']);
    expect(took).toBeGreaterThanOrEqual(1000);
    // --timeout 1 was applied, not the default 30 s (measured against that, not against this machine's speed).
    expect(took).toBeLessThan(15_000);
  });

  it('GET that hangs: the timeout applies to each of the three attempts', async (t) => {
    const { sandbox, env, count } = await setup(t);
    sandbox.injectFault({ kind: 'hang' }, 3);
    const started = Date.now();
    const r = await runCli(['qr', 'list', '--timeout', '0.5'], { env });
    failed(r, 6, /GET .*\/api\/qr: no complete answer within 0.5 s \(--timeout\) \(3 attempts\)$/, /raise --timeout/);
    expect(count()).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1500);
  });

  it('GET that hangs once, then answers: success', async (t) => {
    const { sandbox, env, count } = await setup(t);
    sandbox.injectFault({ kind: 'hang' });
    const r = await runCli(['qr', 'get', '1', '--json', '--timeout', '0.5'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).details.id).toBeDefined();
    expect(count()).toBe(2);
  });
});

describe.concurrent('redirects are reported, never followed', () => {
  it('http -> https: exit 6 naming the target, hint to use https', async (t) => {
    const { sandbox, env, count } = await setup(t);
    const target = `https://127.0.0.1:${sandbox.port}/api/qr`;
    sandbox.injectFault({ kind: 'redirect', location: target });
    const r = await runCli(['qr', 'list'], { env });
    failed(r, 6, `HTTP 301: the server redirects ${sandbox.url}/api/qr to ${target}`,
      `hint: the server wants https: use --base-url https://127.0.0.1:${sandbox.port}`);
    expect(count()).toBe(1);
  });

  it('trailing slash (a 308 on a POST): exit 6, the body is not sent again', async (t) => {
    const { sandbox, env, methods } = await setup(t);
    sandbox.injectFault({ kind: 'redirect', status: 308, location: '/api/qr/add/' });
    const r = await runCli(QR_ADD, { env });
    failed(r, 6, `HTTP 308: the server redirects ${sandbox.url}/api/qr/add to ${sandbox.url}/api/qr/add/`, /trailing slash/);
    expect(methods()).toEqual(['POST /api/qr/add']);
  });

  it('a moved site: the hint names the new site root', async (t) => {
    const { sandbox, env } = await setup(t);
    sandbox.injectFault({ kind: 'redirect', status: 302, location: 'https://links.example.com/app/api/account' });
    const r = await runCli(['account', 'get'], { env });
    failed(r, 6, /redirects .* to https:\/\/links.example.com\/app\/api\/account$/, /--base-url https:\/\/links.example.com\/app$/);
  });

  it('a Location that is not a URL does not crash', async (t) => {
    const { sandbox, env } = await setup(t);
    sandbox.injectFault({ kind: 'redirect', location: 'http://[::1' });
    const r = await runCli(['qr', 'list'], { env });
    failed(r, 6, /redirects .* to "http:\/\/\[::1" \(not a URL\)/);
  });
});

describe.concurrent('rate limits', () => {
  it('over-limit answer (HTTP 200, error 429): waits Retry-After, announces it, then sends the POST again', async (t) => {
    const { sandbox, env } = await setup(t);
    sandbox.injectFault({ kind: 'over-limit', retryAfter: 1 });
    const started = Date.now();
    const r = await runCli([...QR_ADD, '--json'], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^waiting 1\.0 s: the server says the rate limit is exceeded/m);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(sent(sandbox).filter((s) => s.method === 'POST').map((s) => [s.method, s.body])).toEqual([
      ['POST', { type: 'text', data: 'hello' }],
      ['POST', { type: 'text', data: 'hello' }],
    ]); // (then the code's image, read back: no API request)
    expect(Number(JSON.parse(r.stdout).id)).toBe(4);
  });

  it('HTTP 429 with a Retry-After header: waits, then succeeds', async (t) => {
    const { sandbox, env, count } = await setup(t);
    sandbox.injectFault({ kind: 'http-429', retryAfter: 1 });
    const r = await runCli(['qr', 'list', '--json', '--fields', 'id,name'], { env });
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/waiting 1\.0 s/);
    expect(JSON.parse(r.stdout)).toHaveLength(3);
    expect(count()).toBe(2);
  });

  it('HTTP 429 asking for longer than --max-wait: exit 5 at once, with the time the window resets', async (t) => {
    const { sandbox, env, count } = await setup(t);
    sandbox.injectFault({ kind: 'http-429', retryAfter: 3600 });
    const started = Date.now();
    const r = await runCli(['qr', 'list', '--max-wait', '1'], { env });
    failed(r, 5, /rate limited: .*the window resets at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(in 3600 s\), longer than --max-wait 1 s/, /raise --max-wait/);
    expect(Date.now() - started).toBeLessThan(30_000); // the server asked for an hour: anything well under it is "at once" (a loaded machine spawns slowly)
    expect(count()).toBe(1);
  });

  it('over-limit body with a long Retry-After on a POST: exit 5, sent once', async (t) => {
    const { sandbox, env, count } = await setup(t);
    sandbox.injectFault({ kind: 'over-limit', retryAfter: 600 });
    const r = await runCli([...QR_ADD, '--max-wait', '1'], { env });
    failed(r, 5, /in 600 s\), longer than --max-wait 1 s/);
    expect(count()).toBe(1);
  });

  it('garbage rate-limit headers are ignored', async (t) => {
    const { sandbox, env, count } = await setup(t);
    sandbox.injectFault({ kind: 'garbage-ratelimit-headers' });
    const r = await runCli(['qr', 'get', '1', '--json'], { env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(count()).toBe(1);
  });
});

describe.concurrent('X-RateLimit-Remaining: 0 paces the next request', () => {
  it('waits for X-RateLimit-Reset before the third page instead of being refused', async (t) => {
    // A 5 s window, so that the wait is long enough (over 1 s) to be announced even when the first
    // two pages come seconds apart on a loaded machine.
    const limited = await setup(t, { rateLimit: { limit: 2, windowSeconds: 5 } });
    const r = await runCli(['qr', 'list', '--all', '--limit', '1', '--json', '--fields', 'id,name'], { env: limited.env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(3);
    expect(r.stderr).toMatch(/waiting .* s: the rate-limit window is used up/);
    // Paced, not refused: no over-limit answer was needed.
    expect(limited.sandbox.requests.map((q) => q.query.page)).toEqual(['1', '2', '3']);
  });

  it('a window that ends after --max-wait: exit 5 naming the reset time', async (t) => {
    // A long window: with a short one, a slow start of the second command can reach the next window.
    const limited = await setup(t, { rateLimit: { limit: 2, windowSeconds: 60 } });
    const r = await runCli(['qr', 'get', '1', '--max-wait', '0.2'], { env: limited.env });
    expect(r.code).toBe(0);
    const second = await runCli(['qr', 'list', '--all', '--limit', '1', '--json', '--fields', 'id,name', '--max-wait', '0.2'], { env: limited.env });
    expect(second.code).toBe(5);
    expect(second.stderr).toMatch(/linkctl: rate limited: the rate-limit window is used up .*the window resets at .*longer than --max-wait 0.2 s/);
  });
});

describe.concurrent('authentication and the key', () => {
  it('HTTP 403: exit 3 with the server message and a hint to run auth status; not retried', async (t) => {
    const { env, count } = await setup(t);
    const r = await runCli(['qr', 'list'], { env: { ...env, LINKCTL_API_KEY: 'wrong-key-123456' } });
    failed(r, 3, 'linkctl: A valid API key is required to use this service. (HTTP 403)', 'hint: run `linkctl auth status` to see which key is in use');
    expect(count()).toBe(1);
  });

  it('a plain http base URL that is not loopback: exit 2, and nothing is sent (not even to a proxy)', async (t) => {
    const { env } = await setup(t);
    const proxy = await server((req, res) => res.writeHead(502).end());
    const r = await runCli(['qr', 'list'], { env: { ...env, LINKCTL_BASE_URL: 'http://api.example.com', HTTP_PROXY: proxy.url } });
    failed(r, 2, 'linkctl: refusing to send the API key over plain http to api.example.com', /--insecure-http/);
    expect(proxy.seen).toEqual([]);
    // With --insecure-http it is sent (here to the proxy, which answers 502 three times).
    const allowed = await runCli(['qr', 'list', '--insecure-http'], { env: { ...env, LINKCTL_BASE_URL: 'http://api.example.com', HTTP_PROXY: proxy.url } });
    expect(allowed.code).toBe(6);
    expect(proxy.seen).toEqual(Array(3).fill('GET http://api.example.com/api/qr'));
    await proxy.close();
  });
});

describe.concurrent('answers the sandbox cannot give', () => {
  it('success without the fields the operation needs: exit 6 naming what is missing', async (t) => {
    const { env } = await setup(t);
    const srv = await server((req, res) => json(res, 200, { error: 0, message: 'ok' }));
    const r = await runCli(QR_ADD, { env: { ...env, LINKCTL_BASE_URL: srv.url } });
    failed(r, 6, `HTTP 200 from POST ${srv.url}/api/qr/add: the answer reports success but lacks \`id\``, /--debug/);
    expect(srv.seen).toEqual(['POST /api/qr/add']);
    await srv.close();
  });

  it('an `error` value this API never sends: exit 6', async (t) => {
    const { env } = await setup(t);
    const srv = await server((req, res) => json(res, 200, { error: 'maybe', data: {} }));
    const r = await runCli(['account', 'get'], { env: { ...env, LINKCTL_BASE_URL: srv.url } });
    failed(r, 6, 'the answer has an unknown `error` value: "maybe"', /site root/);
    await srv.close();
  });

  it('a 403 HTML page (a firewall in front of the server): exit 3', async (t) => {
    const { env } = await setup(t);
    const srv = await server((req, res) => res.writeHead(403, { 'Content-Type': 'text/html' }).end('<html>Forbidden</html>'));
    const r = await runCli(['account', 'get'], { env: { ...env, LINKCTL_BASE_URL: srv.url } });
    failed(r, 3, `linkctl: HTTP 403 Forbidden: the server refused GET ${srv.url}/api/account`, /auth status/);
    await srv.close();
  });

  it('an answer declared larger than the size cap: exit 6 before reading it', async (t) => {
    const { env } = await setup(t);
    const srv = await server((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(200 * 1024 * 1024) });
      res.write('{"error":0,"data":[');
    });
    const r = await runCli(['qr', 'list'], { env: { ...env, LINKCTL_BASE_URL: srv.url } });
    failed(r, 6, `HTTP 200: the answer to GET ${srv.url}/api/qr is larger than 64 MiB; linkctl stopped reading it`, /--limit/);
    expect(srv.seen).toHaveLength(1);
    await srv.close();
  });

  it('an answer that grows past the cap while streaming: exit 6 (cap lowered in-process)', async () => {
    const srv = await server((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' }); // chunked: no length to judge by
      res.end(`{"error":0,"data":"${'x'.repeat(5000)}"}`);
    });
    const client = new ApiClient({ baseUrl: srv.url, apiKey: 'k-123456', timeoutMs: 2000, maxWaitMs: 0, env: {}, maxBodyBytes: 1000 });
    await expect(client.request('GET', 'api/account')).rejects.toMatchObject({ exitCode: 6, message: expect.stringMatching(/larger than 1000 bytes/) });
    await srv.close();
  });
});

describe.concurrent('Ctrl-C', () => {
  it('aborts the request in flight: exit 130, nothing on stdout', async (t) => {
    const { sandbox, env, count } = await setup(t);
    sandbox.injectFault({ kind: 'hang' });
    const child = spawn(process.execPath, [BIN, 'qr', 'list', '--timeout', '20'], { env: cleanEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.stdin.end();
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // Until the request is in flight, however long the CLI takes to start (the test's timeout guards a hang).
    while (count() === 0) await new Promise((r) => setTimeout(r, 25));
    expect(count()).toBe(1);
    const started = Date.now();
    child.kill('SIGINT');
    const code = await exited;
    expect(code).toBe(130);
    expect(Date.now() - started).toBeLessThan(10_000); // the timeout was 20 s
    expect(stdout).toBe('');
    expect(stderr).toBe('linkctl: interrupted\n');
    expect(count()).toBe(1);
  });
});

// ------------------------------------------------------------------ helpers

function json(res: ServerResponse, status: number, value: unknown) {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(value));
}

/** A throwaway HTTP server on 127.0.0.1 that records `METHOD url` of each request. */
async function server(handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const seen: string[] = [];
  const srv: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => handle(req, res));
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => { srv.closeAllConnections(); srv.close(() => resolve()); }),
  };
}

/** A port nothing listens on. */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const { port } = srv.address() as AddressInfo;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}
