/**
 * A hostile or broken server cannot hurt the user (issue 10). Each case starts a server of its
 * own on 127.0.0.1, port 0 (closed when the test ends), that attacks: escape sequences in data
 * and messages, a body that drips, endless pages, deep JSON, endless over-limit answers...
 * and asserts the exit code, what reached stdout and stderr (never a raw control character),
 * how many requests were made, and loose time bounds where time is the point.
 */
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { existsSync, mkdirSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, type TestContext } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { BIN, cleanEnv, runCli, runMain, tempDir, type RunResult } from '../helpers.js';

const KEY = 'hostile-test-key-0123456789abcdef';
const root = tempDir('linkctl-hostile-');
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => {
  const dir = join(root, `c${++dirs}`);
  mkdirSync(dir, { recursive: true });
  return dir;
};

/** Anything a terminal would act on: C0 (tab and newline aside), DEL, C1, bidi overrides. */
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

function clean(r: RunResult) {
  expect(r.stdout, 'stdout holds a raw control character').not.toMatch(RAW_CONTROL);
  expect(r.stderr, 'stderr holds a raw control character').not.toMatch(RAW_CONTROL);
  expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string, n: number) => void;

interface Hostile {
  url: string;
  port: number;
  requests: { method: string; url: string; body: string; authorization?: string }[];
  env: Record<string, string>;
}

/** A hostile server for one test: records every request, then lets `handler` answer (or not). */
async function hostile(t: TestContext, handler: Handler): Promise<Hostile> {
  const requests: Hostile['requests'] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', url: req.url ?? '', body, authorization: req.headers.authorization });
      handler(req, res, body, requests.length);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  t.onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  );
  const url = `http://127.0.0.1:${port}`;
  return { url, port, requests, env: { LINKCTL_BASE_URL: url, LINKCTL_API_KEY: KEY, LINKCTL_CONFIG_DIR: freshDir() } };
}

function json(res: ServerResponse, body: unknown, status = 200, headers: Record<string, string> = {}) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

const list = (key: string, records: unknown[], page = 1, maxpage = 1) => ({
  error: 0,
  data: { result: records.length * maxpage, perpage: records.length, currentpage: page, maxpage, [key]: records },
});

/** Every attack a terminal knows, in one string. */
const EVIL =
  'name\x1b]0;pwned title\x07' + // retitle the terminal
  '\x1b]52;c;cm0gLXJmIH4K\x07' + // OSC 52: put a command in the clipboard
  '\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\' + // OSC 8 hyperlink
  '\x1b[2J\x1b[H' + // clear the screen
  '\rovertyped' + // CR: overwrite the field
  '\x1b[21t' + // report the title back as typed input
  '\x9b2J' + // C1 CSI
  '\x7f' +
  '\u202eevil\u202c\u2066x\u2069';

// Its image is on a `.invalid` host (`qr get` reads a code's image): never looked up, it fails at once.
const EVIL_QR = { id: 7, name: EVIL, scans: 1, date: '2025-01-01', link: `https://x.invalid/${EVIL}` };

describe.concurrent('1. escape sequences from a server never reach the terminal raw', () => {
  const server = (t: TestContext) =>
    hostile(t, (req, res) => {
      if (req.url?.startsWith('/api/qr/7')) return json(res, { error: 0, details: EVIL_QR, data: EVIL_QR });
      if (req.url?.startsWith('/api/qr')) return json(res, list('qrs', [EVIL_QR]));
      json(res, { error: 1, message: `bad thing ${EVIL}` });
    });

  it('table (terminal), get view, -q, csv and tsv show escapes; truncation never cuts one in half', async (t) => {
    const h = await server(t);
    // Without colour: the only escapes left would be the server's.
    const table = await runMain(['qr', 'list'], { env: { ...h.env, NO_COLOR: '1' }, tty: true });
    expect(table.code).toBe(0);
    clean(table);
    expect(table.stdout).toContain('\\x1b]');
    // Cut cells end with an ellipsis right after a whole escape or a plain character.
    for (const cut of table.stdout.match(/\S*…/g) ?? []) expect(cut).not.toMatch(/\\(x[0-9a-f]?|u[0-9a-f]{0,3})…$/);
    for (const args of [['qr', 'get', '7'], ['qr', 'list', '-o', 'csv'], ['qr', 'list', '-o', 'tsv'], ['qr', 'list', '-q'], ['qr', 'list']]) {
      const r = await runCli(args, { env: h.env });
      expect(r.code, args.join(' ')).toBe(0);
      clean(r);
    }
    const get = await runMain(['qr', 'get', '7'], { env: { ...h.env, NO_COLOR: '1' }, tty: true });
    clean(get);
    expect(get.stdout).toContain('\\x1b]52;c;cm0gLXJmIH4K\\x07');
    expect(get.stdout).toContain('\\x0dovertyped');
    expect(get.stdout).toContain('\\u202eevil');
    expect(get.stdout).toContain('\\x9b2J');
  });

  it('json and ndjson escape C1, DEL and bidi as \\uXXXX and stay lossless', async (t) => {
    const h = await server(t);
    const r = await runCli(['qr', 'list', '--json'], { env: h.env });
    expect(r.code).toBe(0);
    clean(r);
    expect(r.stdout).toContain('\\u009b2J');
    expect(r.stdout).toContain('\\u202e');
    expect(JSON.parse(r.stdout)[0].name).toBe(EVIL);
    const nd = await runCli(['qr', 'get', '7', '-o', 'ndjson'], { env: h.env });
    clean(nd);
    expect(JSON.stringify(JSON.parse(nd.stdout))).toContain(JSON.stringify(EVIL)); // the name, somewhere in the view
    const raw = await runCli(['api', 'GET', '/api/qr'], { env: h.env });
    clean(raw);
    expect(JSON.parse(raw.stdout).data.qrs[0].name).toBe(EVIL);
  });

  it('error messages and --debug lines show escapes too', async (t) => {
    const h = await server(t);
    const r = await runCli(['account', 'get', '--debug'], { env: h.env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    clean(r);
    expect(r.stderr).toMatch(/^linkctl: bad thing name\\x1b\]0;pwned title\\x07/m);
    // JSON escapes C0 on the wire; C1 and bidi overrides arrive raw and are shown as escapes.
    expect(r.stderr).toMatch(/^\[debug\] < .*\\x9b2J.*\\u202eevil/m);
    expect(h.requests).toHaveLength(1);
  });
});

describe.concurrent('2. --timeout and Ctrl-C bound a body that drips', () => {
  /** Headers at once, then one byte a second, for minutes. */
  const drip = (t: TestContext) =>
    hostile(t, (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{');
      const timer = setInterval(() => res.write(' '), 1000);
      res.on('close', () => clearInterval(timer));
    });

  // The drip goes on for minutes: a bound well under that shows --timeout ended it (3 attempts of
  // 2 s and their backoff), with room for a slow start on a loaded machine.
  it('account get --timeout 2: exit 6 in well under a minute, after 3 attempts', async (t) => {
    const h = await drip(t);
    const started = Date.now();
    const r = await runCli(['account', 'get', '--timeout', '2'], { env: h.env, timeoutMs: 50_000 });
    const elapsed = Date.now() - started;
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/no complete answer within 2 s \(--timeout\) \(3 attempts\)/);
    clean(r);
    expect(h.requests).toHaveLength(3);
    expect(elapsed).toBeLessThan(30_000);
  });

  it('one Ctrl-C exits 130 within a second or so', async (t) => {
    const h = await drip(t);
    const child = spawn(process.execPath, [BIN, 'account', 'get', '--timeout', '120'], { env: cleanEnv(h.env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const kill = setTimeout(() => child.kill('SIGKILL'), 40_000);
    // Wait until the body has started to drip, then interrupt once.
    while (h.requests.length === 0) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 1200));
    const interrupted = Date.now();
    child.kill('SIGINT');
    const code = await exited;
    clearTimeout(kill);
    expect(code).toBe(130);
    // "Within a second" on an idle machine; measured against the --timeout of 120 s it cut short,
    // so that a loaded machine's slow exit does not fail it.
    expect(Date.now() - interrupted).toBeLessThan(20_000);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^linkctl: interrupted$/m);
    expect(h.requests).toHaveLength(1);
  });
});

describe.concurrent('3. a server that ignores `page`', () => {
  const stuck = (t: TestContext) => hostile(t, (_req, res) => json(res, list('qrs', [{ id: 1, name: 'a' }, { id: 2, name: 'b' }], 1, 50)));

  it('--all stops on the repeated page with exit 6', async (t) => {
    const h = await stuck(t);
    const r = await runCli(['qr', 'list', '--all', '--json'], { env: h.env });
    expect(r.code).toBe(6);
    expect(r.stdout).toBe(''); // a JSON array is printed whole or not at all
    expect(r.stderr).toMatch(/answered page 2 of api\/qr with the same records as page 1/);
    clean(r);
    expect(h.requests).toHaveLength(2);
  });

  it('api --paginate stops too', async (t) => {
    const h = await stuck(t);
    const r = await runCli(['api', 'GET', '/api/qr', '--paginate', '-o', 'ndjson'], { env: h.env });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/same records as page 1/);
    expect(h.requests).toHaveLength(2);
  });
});

it('4. deeply nested JSON: exit 6, nothing on stdout, no crash', async (t) => {
  const deep = `{"error":0,"data":{"username":"x","nested":${'['.repeat(5000)}${']'.repeat(5000)}}}`;
  const h = await hostile(t, (_req, res) => json(res, deep));
  const r = await runCli(['account', 'get', '--json'], { env: h.env });
  expect(r.code).toBe(6);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(/^linkctl: HTTP 200 from GET .*\/api\/account: the answer is JSON nested more than 64 levels deep/m);
  expect(r.stderr).not.toMatch(/call stack/);
  clean(r);
  expect(h.requests).toHaveLength(1);
});

describe('5. profile names', () => {
  it('__proto__, valueOf and constructor are ordinary profiles; other names are refused', async (t) => {
    const h = await hostile(t, (_req, res) => json(res, { error: 0, data: { id: 1, username: 'me' } }));
    const env = { LINKCTL_CONFIG_DIR: h.env.LINKCTL_CONFIG_DIR };
    for (const name of ['__proto__', 'valueOf']) {
      const r = await runMain(['auth', 'login', '--profile', name, '--with-token', '--base-url', h.url], { env, stdin: `${KEY}\n` });
      expect(r.code, r.stderr).toBe(0);
    }
    const file = JSON.parse(readFileSync(join(env.LINKCTL_CONFIG_DIR, 'config.json'), 'utf8'));
    expect(Object.keys(file.profiles).sort()).toEqual(['__proto__', 'valueOf']);
    // A profile that does not exist is not found on the prototype.
    for (const args of [['auth', 'switch', 'toString'], ['auth', 'logout', '--profile', 'constructor'], ['account', 'get', '--profile', 'hasOwnProperty']]) {
      const r = await runMain(args, { env });
      expect(r.code, args.join(' ')).toBe(7);
      expect(r.stderr).toMatch(/unknown profile/);
    }
    const switched = await runMain(['auth', 'switch', 'valueOf'], { env });
    expect(switched.code).toBe(0);
    const after = await runMain(['account', 'get', '--json'], { env });
    expect(after.code, after.stderr).toBe(0);
    expect(h.requests.at(-1)?.authorization).toBe(`Bearer ${KEY}`);
    const bad = await runMain(['auth', 'login', '--profile', 'a b\x1b', '--with-token', '--base-url', h.url], { env, stdin: KEY });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--profile: a profile name is 1 to 64 letters, digits/);
    clean(bad);
    expect(h.requests).toHaveLength(3); // two logins, one account get
  });
});

it('6. 20 parallel logins all succeed and all are saved', async (t) => {
  const h = await hostile(t, (_req, res) => setTimeout(() => json(res, { error: 0, data: { id: 1, username: 'me' } }), 50));
  const env = { LINKCTL_CONFIG_DIR: h.env.LINKCTL_CONFIG_DIR };
  const runs = await Promise.all(
    Array.from({ length: 20 }, (_, i) => runCli(['auth', 'login', '--profile', `p${i}`, '--with-token', '--base-url', h.url], { env, stdin: KEY, timeoutMs: 90_000 })),
  );
  for (const r of runs) expect(r.code, r.stderr).toBe(0);
  const file = JSON.parse(readFileSync(join(env.LINKCTL_CONFIG_DIR, 'config.json'), 'utf8'));
  expect(Object.keys(file.profiles)).toHaveLength(20);
  expect(h.requests).toHaveLength(20);
}, 120_000);

describe.concurrent('7. proxies and loopback', () => {
  it('a *.localhost base URL reaches loopback without DNS, and never through HTTP_PROXY', async (t) => {
    const h = await hostile(t, (_req, res) => json(res, { error: 0, data: { id: 1, username: 'me' } }));
    const proxy = await hostile(t, (_req, res) => json(res, { error: 1, message: 'the proxy saw the key' }));
    const env = { ...h.env, LINKCTL_BASE_URL: `http://api.linkctl.localhost:${h.port}`, HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url };
    const r = await runCli(['account', 'get', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).username).toBe('me');
    expect(h.requests).toHaveLength(1);
    expect(proxy.requests).toHaveLength(0);
    const plain = await runCli(['account', 'get', '--json'], { env: { ...h.env, HTTP_PROXY: proxy.url } });
    expect(plain.code).toBe(0);
    expect(proxy.requests).toHaveLength(0);
  });
});

it('8. Ctrl-C during a POST says it may or may not have been created, with the list command', async (t) => {
  const h = await hostile(t, () => undefined); // takes the request, never answers
  const controller = new AbortController();
  const running = runMain(['qr', 'add', '--type', 'text', '--data', 'hello'], { env: h.env, signal: controller.signal });
  while (h.requests.length === 0) await new Promise((r) => setTimeout(r, 20));
  controller.abort();
  const r = await running;
  expect(r.code).toBe(130);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(/^linkctl: interrupted during POST .*\/api\/qr\/add: .*it may or may not have been created$/m);
  expect(r.stderr).toMatch(/^hint: check with `linkctl qr list` before trying again$/m);
  expect(h.requests).toHaveLength(1);
});

describe.concurrent('9. output that cannot be written', () => {
  it.skipIf(!existsSync('/dev/full'))('(skipped where /dev/full does not exist) stdout > /dev/full: exit 1, one line naming stdout, and the change was made', async (t) => {
    // (an image on a loopback address that is not the API's: refused by the network guard, never requested)
    const h = await hostile(t, (_req, res) => json(res, { error: 0, id: 9, link: 'http://127.0.0.9:9/9.png' }));
    const full = openSync('/dev/full', 'w');
    const child = spawn(process.execPath, [BIN, 'qr', 'add', '--type', 'text', '--data', 'hi'], { env: cleanEnv(h.env), stdio: ['ignore', full, 'pipe'] });
    closeSync(full);
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    // the code read back after the create (issue 55, 1) could not be confirmed: said, on stderr
    expect(stderr).toMatch(/^The code's content could not be read back from its image to confirm it: .*\nlinkctl: cannot write to stdout \(ENOSPC\): the output is lost; the change was made on the server all the same\n$/);
    expect(h.requests).toHaveLength(1);
  });

  it('a closed stderr: exit non-zero instead of 0', async (t) => {
    const h = await hostile(t, (_req, res) => json(res, { error: 0, data: { id: 1, username: 'me' } }));
    const child = spawn(process.execPath, [BIN, 'account', 'get', '--debug', '--json'], { env: cleanEnv(h.env), stdio: ['ignore', 'pipe', 'pipe'] });
    child.stderr!.destroy(); // the reader goes away: every write to stderr fails
    child.stdout!.resume();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).not.toBe(0);
    expect(h.requests).toHaveLength(1);
  });
});

describe.concurrent('10. a config file of the wrong types', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['apiKey a number', { profiles: { default: { baseUrl: 'http://127.0.0.1:9', apiKey: 12345 } } }, /`profiles\.default\.apiKey` must be a non-empty string, not a number/],
    ['apiKey true', { profiles: { default: { baseUrl: 'http://127.0.0.1:9', apiKey: true } } }, /`profiles\.default\.apiKey` must be a non-empty string, not a boolean/],
    ['apiKey an array', { profiles: { default: { baseUrl: 'http://127.0.0.1:9', apiKey: ['k'] } } }, /`profiles\.default\.apiKey` must be a non-empty string, not an array/],
    ['baseUrl javascript:', { profiles: { default: { baseUrl: 'javascript:alert(1)', apiKey: 'k1234567' } } }, /`profiles\.default\.baseUrl` must be an http:\/\/ or https:\/\/ URL/],
    ['profiles an array', { profiles: [{ apiKey: 'k1234567' }] }, /`profiles` must be an object of profiles, not an array/],
  ];
  for (const [what, config, message] of cases) {
    it(`${what}: exit 7 naming the file and the field; nothing sent`, async (t) => {
      const h = await hostile(t, (_req, res) => json(res, { error: 0, data: { id: 1 } }));
      const dir = freshDir();
      const file = join(dir, 'config.json');
      const data = config as { profiles: Record<string, { baseUrl?: string }> };
      if (!Array.isArray(data.profiles) && data.profiles.default?.baseUrl?.startsWith('http')) data.profiles.default.baseUrl = h.url;
      writeFileSync(file, JSON.stringify(config));
      const r = await runMain(['account', 'get'], { env: { LINKCTL_CONFIG_DIR: dir } });
      expect(r.code).toBe(7);
      expect(r.stderr).toContain(`linkctl: the config file ${file} is not usable:`);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/12345|k1234567/);
      expect(h.requests).toHaveLength(0);
    });
  }

  it('an unwritable config folder: exit 7, not an unexpected error', async () => {
    const blocker = join(freshDir(), 'a-file');
    writeFileSync(blocker, '');
    const r = await runMain(['auth', 'login', '--no-verify', '--with-token', '--base-url', 'https://x.example'], { env: { LINKCTL_CONFIG_DIR: join(blocker, 'sub') }, stdin: KEY });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/^linkctl: cannot (read|write) the config .*a-file\/sub.* \(ENOTDIR\)$/m);
    expect(r.stderr).not.toMatch(/unexpected/);
  });
});

it('11. an api path that leaves the API is refused, nothing sent', async (t) => {
  const h = await hostile(t, (_req, res) => json(res, { error: 0 }));
  for (const path of ['/api/../../etc/passwd', 'api/%2e%2e/%2e%2e/etc/passwd', '/api/../admin']) {
    const r = await runCli(['api', 'GET', path], { env: h.env });
    expect(r.code, path).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^linkctl: the path ".*" leads to \/.*, outside the API under \/api\/; nothing was sent$/m);
  }
  expect(h.requests).toHaveLength(0);
});

describe.concurrent('12. a server that is always over the limit', () => {
  it('Retry-After 1 with --max-wait 3: exit 5 after at most 3 s of waiting', async (t) => {
    const h = await hostile(t, (_req, res) => json(res, { error: 429, message: 'slow down' }, 429, { 'Retry-After': '1' }));
    const started = Date.now();
    const r = await runCli(['account', 'get', '--max-wait', '3'], { env: h.env });
    expect(r.code).toBe(5);
    expect(r.stdout).toBe('');
    // waits of 1 s, then 2 s (each repeat twice as long); a third of 4 s would pass --max-wait
    expect(r.stderr).toMatch(/^linkctl: still over the rate limit after 3 over-limit answers and 3 s of waiting/m);
    expect(h.requests).toHaveLength(3);
    // Against an always-over-limit server that would be forever; 3 s of waiting plus a slow start.
    expect(Date.now() - started).toBeLessThan(25_000);
  });

  it('Retry-After 0 means "not yet": a second at least between attempts, and the bound is --max-wait, not a count', async (t) => {
    const at: number[] = [];
    const h = await hostile(t, (_req, res) => (at.push(Date.now()), json(res, { error: 429 }, 200, { 'Retry-After': '0' })));
    const r = await runCli(['account', 'get', '--max-wait', '4'], { env: h.env });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/still over the rate limit after 3 over-limit answers and 3 s of waiting/);
    expect(h.requests).toHaveLength(3);
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(950);
    expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(1950);
  });
});

it('13. empty QR data is refused; what was validated is what is sent', async (t) => {
  const h = await hostile(t, (_req, res) => json(res, { error: 0, id: 3, link: 'https://x.example/3.png' }));
  for (const data of ['', ' ', '\n']) {
    const r = await runMain(['qr', 'add', '--type', 'text', '--data', data], { env: h.env });
    expect(r.code, JSON.stringify(data)).toBe(2);
    expect(r.stderr).toMatch(/--data must not be empty/);
  }
  expect(h.requests).toHaveLength(0);
  expect((await runMain(['qr', 'add', '--type', 'text', '--data', 'hello\n'], { env: h.env })).code).toBe(0);
  expect((await runMain(['qr', 'add', '--type', 'link', '--data', ' https://example.com/x\n'], { env: h.env })).code).toBe(0);
  expect(h.requests.map((q) => JSON.parse(q.body).data)).toEqual(['hello', 'https://example.com/x']);
});

describe('14. sandbox serve against a hostile web page', () => {
  it('control routes need the key; a 20 MB body gets 413 quickly; the request log stays bounded', async ({ onTestFinished }) => {
    const sb = await startSandbox({ port: 0, rateLimit: null });
    onTestFinished(() => sb.close());
    const reset = await fetch(`${sb.url}/__sandbox/reset`, { method: 'POST' });
    expect(reset.status).toBe(401);
    const log = await fetch(`${sb.url}/__sandbox/requests`);
    expect(log.status).toBe(401);
    expect((await fetch(`${sb.url}/__sandbox/requests`, { headers: { Authorization: `Bearer ${sb.key}` } })).status).toBe(200);
    const huge = 'x'.repeat(20 * 1024 * 1024);
    const big = await fetch(`${sb.url}/api/qr/add`, { method: 'POST', headers: { Authorization: `Bearer ${sb.key}`, 'Content-Type': 'application/json' }, body: huge })
      .then((r) => r.status)
      .catch(() => 'closed'); // the sandbox may close before the client finished sending: either way, not taken in
    expect([413, 'closed']).toContain(big);
    expect(sb.requests.at(-1)?.rawBody).toBe('');
    for (let i = 0; i < 1100; i++) await fetch(`${sb.url}/api/account`, { headers: { Authorization: `Bearer ${sb.key}` } }).then((r) => r.arrayBuffer());
    expect(sb.requests.length).toBeLessThanOrEqual(1000);
    expect(sb.requests.length).toBeGreaterThan(900);
  });
});

it('15. a key echoed base64-encoded or in another letter case is redacted, in messages and --debug', async (t) => {
  const b64 = Buffer.from(KEY).toString('base64');
  const h = await hostile(t, (_req, res) => json(res, { error: 1, message: `key ${KEY.toUpperCase()} or ${b64} or ${Buffer.from(KEY).toString('base64url')}` }));
  const r = await runCli(['account', 'get', '--debug'], { env: h.env });
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/^linkctl: key \[REDACTED\] or \[REDACTED\] or \[REDACTED\]$/m);
  for (const form of [KEY, KEY.toUpperCase(), b64, b64.replace(/=+$/, '')]) expect(r.stderr).not.toContain(form);
  expect(h.requests).toHaveLength(1);
});

it('15b. a key echoed in hex, reversed, spaced out or split across lines is redacted, in messages and --debug', async (t) => {
  const hex = Buffer.from(KEY).toString('hex');
  const forms = {
    hex: hex.toUpperCase(),
    hexDump: hex.replace(/(..)/g, '$1 ').trim(),
    reversed: [...KEY].reverse().join(''),
    spaced: [...KEY].join(' '),
    split: `${KEY.slice(0, 10)}\n${KEY.slice(10, 20)}\r\n  ${KEY.slice(20)}`,
    hexSplit: `${hex.slice(0, 32)}\n${hex.slice(32)}`,
  };
  const h = await hostile(t, (_req, res) => json(res, { error: 1, message: Object.entries(forms).map(([name, form]) => `${name}=<${form}>`).join(' ') }));
  const r = await runCli(['account', 'get', '--debug'], { env: h.env });
  expect(r.code).toBe(1);
  const message = r.stderr.split('\n').find((line) => line.startsWith('linkctl: hex='));
  expect(message, r.stderr).toBe(`linkctl: ${Object.keys(forms).map((name) => `${name}=<[REDACTED]>`).join(' ')}`);
  // Nowhere in the output, --debug's trace of the answer included: no form, nor any 8 characters of the key in a row.
  const squeezed = r.stderr.replace(/\s|\\[nrt]/g, '');
  for (const form of [KEY, hex, forms.reversed]) {
    for (let i = 0; i + 8 <= form.length; i++) expect(squeezed.toLowerCase()).not.toContain(form.slice(i, i + 8).toLowerCase());
  }
  expect(h.requests).toHaveLength(1);
});

it('16. csv cells that a spreadsheet would run as a formula get a leading \' (OWASP); --csv-raw prints them as they are (documented in the README)', async (t) => {
  const h = await hostile(t, (_req, res) => json(res, list('qrs', [{ id: 1, name: '=HYPERLINK("http://evil.example","x")' }, { id: 2, name: '+1-2' }, { id: 3, name: '@SUM(A1)' }])));
  const r = await runCli(['qr', 'list', '-o', 'csv', '--fields', 'id,name'], { env: h.env });
  expect(r.code).toBe(0);
  clean(r);
  expect(r.stdout).toBe('id,name\n1,"\'=HYPERLINK(""http://evil.example"",""x"")"\n2,\'+1-2\n3,\'@SUM(A1)\n');
  const raw = await runCli(['qr', 'list', '-o', 'csv', '--fields', 'id,name', '--csv-raw'], { env: h.env });
  expect(raw.stdout).toBe('id,name\n1,"=HYPERLINK(""http://evil.example"",""x"")"\n2,+1-2\n3,@SUM(A1)\n');
});
