/**
 * HTTP_PROXY, HTTPS_PROXY and NO_PROXY: the built CLI through a forward proxy started here
 * (node:http, plain forwarding for http:// targets and CONNECT tunnels for https://).
 * Loopback addresses are never proxied, so the sandbox is reached as `linkctl-sandbox.invalid`,
 * a name only the proxy knows (it connects it to 127.0.0.1).
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, useSandbox } from '../helpers.js';

interface Proxy {
  url: string;
  port: number;
  /** `METHOD target` of every request the proxy received, with the Proxy-Authorization it carried. */
  seen: { line: string; auth?: string }[];
  close(): Promise<void>;
}

/** A forward proxy. With `credentials` ("user:password") it answers 407 to requests without them. */
async function startProxy(credentials?: string): Promise<Proxy> {
  const seen: Proxy['seen'] = [];
  const sockets = new Set<Socket>();
  const expected = credentials && `Basic ${Buffer.from(credentials).toString('base64')}`;
  const allowed = (req: IncomingMessage) => !expected || req.headers['proxy-authorization'] === expected;
  const server: Server = createServer((req, res) => {
    seen.push({ line: `${req.method} ${req.url}`, auth: req.headers['proxy-authorization'] });
    if (!allowed(req)) return void res.writeHead(407, { 'Proxy-Authenticate': 'Basic realm="test"', 'Content-Type': 'text/html' }).end('<html>407</html>');
    const target = new URL(req.url ?? '');
    if (target.hostname === FAKE_HOST) target.hostname = '127.0.0.1';
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = request(target, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    seen.push({ line: `CONNECT ${req.url}`, auth: req.headers['proxy-authorization'] });
    sockets.add(client);
    if (!allowed(req)) return void client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host === FAKE_HOST ? '127.0.0.1' : host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  server.on('connection', (s) => sockets.add(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

// Under .invalid: without the proxy the name fails at once, and no DNS server is asked.
const FAKE_HOST = 'linkctl-sandbox.invalid';
// the sandbox answers loopback names only (DNS rebinding): this one is declared
const fx = useSandbox({ hosts: [FAKE_HOST] });
/** The sandbox under a name only the proxy resolves; plain http to a non-loopback name needs --insecure-http. */
const viaProxy = () => ({ ...fx.env, LINKCTL_BASE_URL: `http://${FAKE_HOST}:${fx.sandbox.port}` });
const INSECURE = '--insecure-http';

describe('proxies', () => {
  let proxy: Proxy;
  beforeAll(async () => {
    proxy = await startProxy();
  });
  afterAll(() => proxy.close());

  it('HTTP_PROXY: the request goes through the proxy, and the sandbox answers it', async () => {
    proxy.seen.length = 0;
    const r = await runCli(['account', 'get', '--json', INSECURE], { env: { ...viaProxy(), HTTP_PROXY: proxy.url } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ username: expect.any(String) });
    expect(proxy.seen.map((s) => s.line)).toEqual([`GET http://${FAKE_HOST}:${fx.sandbox.port}/api/account`]);
    expect(fx.sandbox.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /api/account']);
    expect(fx.sandbox.requests[0]!.headers.authorization).toBe(`Bearer ${fx.sandbox.key}`);
  });

  it('lower-case http_proxy works too, and a POST body arrives whole', async () => {
    proxy.seen.length = 0;
    const r = await runCli(['qr', 'add', '--type', 'text', '--data', 'through the proxy', INSECURE], { env: { ...viaProxy(), http_proxy: proxy.url } });
    expect(r.code).toBe(0);
    expect(proxy.seen.map((s) => s.line)).toEqual([`POST http://${FAKE_HOST}:${fx.sandbox.port}/api/qr/add`]);
    expect(fx.sandbox.requests[0]!.body).toEqual({ type: 'text', data: 'through the proxy' });
  });

  it('NO_PROXY bypasses the proxy', async () => {
    proxy.seen.length = 0;
    // Without the proxy, nothing resolves the name: the request fails, and the proxy saw nothing.
    const r = await runCli(['account', 'get', '--json', INSECURE, '--timeout', '3'], { env: { ...viaProxy(), HTTP_PROXY: proxy.url, NO_PROXY: FAKE_HOST } });
    expect(r.code).toBe(6);
    expect(proxy.seen).toEqual([]);
    expect(fx.sandbox.requests).toHaveLength(0);
  });

  it('a loopback base URL is never proxied, NO_PROXY or not: the key does not cross the proxy', async () => {
    proxy.seen.length = 0;
    const r = await runCli(['account', 'get', '--json'], { env: { ...fx.env, HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url } });
    expect(r.code).toBe(0);
    expect(proxy.seen).toEqual([]);
    expect(fx.sandbox.requests).toHaveLength(1);
  });

  it('HTTPS_PROXY: an https:// target is reached through a CONNECT tunnel', async () => {
    proxy.seen.length = 0;
    // The sandbox speaks plain http, so TLS fails inside the tunnel: what matters is that the tunnel was asked for.
    const r = await runCli(['account', 'get', '--timeout', '2'], {
      env: { ...fx.env, LINKCTL_BASE_URL: `https://${FAKE_HOST}:${fx.sandbox.port}`, HTTPS_PROXY: proxy.url },
    });
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^linkctl: GET https:\/\/linkctl-sandbox.invalid:\d+\/api\/account: the TLS connection failed \(ERR_SSL_WRONG_VERSION_NUMBER\)$/m);
    expect(r.stderr).toMatch(/^hint: the server does not speak https on this port/m);
    // Not retried: a handshake that failed fails again.
    expect(proxy.seen.map((s) => s.line)).toEqual([`CONNECT ${FAKE_HOST}:${fx.sandbox.port}`]);
  });
});

describe('a proxy that wants credentials', () => {
  let proxy: Proxy;
  beforeAll(async () => {
    proxy = await startProxy('alice:pr0xy-s3cret');
  });
  afterAll(() => proxy.close());

  it('credentials in the proxy URL are sent to the proxy', async () => {
    proxy.seen.length = 0;
    const r = await runCli(['account', 'get', '--json', INSECURE], { env: { ...viaProxy(), HTTP_PROXY: `http://alice:pr0xy-s3cret@127.0.0.1:${proxy.port}` } });
    expect(r.code).toBe(0);
    expect(proxy.seen).toEqual([{ line: `GET http://${FAKE_HOST}:${fx.sandbox.port}/api/account`, auth: `Basic ${Buffer.from('alice:pr0xy-s3cret').toString('base64')}` }]);
  });

  it('wrong ones: exit 6 with a hint about proxy credentials, and the password never shown', async () => {
    proxy.seen.length = 0;
    const r = await runCli(['account', 'get', '--debug', INSECURE], { env: { ...viaProxy(), HTTP_PROXY: `http://alice:wrong-pa55word@127.0.0.1:${proxy.port}` } });
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(new RegExp(`^linkctl: GET http://${FAKE_HOST}:${fx.sandbox.port}/api/account: the proxy refused the request: it wants credentials \\(HTTP 407\\)$`, 'm'));
    expect(r.stderr).toMatch(/^hint: put the proxy user name and password in HTTPS_PROXY \/ HTTP_PROXY, as user:password@ before the host$/m);
    expect(proxy.seen).toHaveLength(1); // not retried: sending again would not help
    expect(r.stderr).not.toContain('wrong-pa55word');
    expect(r.stderr).not.toContain(fx.sandbox.key);
    expect(fx.sandbox.requests).toHaveLength(0);
  });
});
