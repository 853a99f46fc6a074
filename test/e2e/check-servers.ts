/**
 * Destinations for `linkctl check` tests: servers on 127.0.0.1 that this test process starts
 * and stops (or on 127.0.0.2, .3: other addresses of this machine), each recording every request
 * it receives (method, path, Host and headers); `/to?u=URL` redirects anywhere.
 * Other "hosts" are `*.localhost` names (RFC 6761), which linkctl connects to 127.0.0.1 itself.
 * TLS certificates are made with `openssl` in a temporary folder (see `makeCertificates`).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync, readFileSync, mkdirSync } from 'node:fs';
import { createServer as createHttp, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';

export interface Seen {
  method: string;
  path: string;
  host: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface Destinations {
  port: number;
  /** `http://127.0.0.1:PORT` or `https://localhost:PORT`. */
  origin: string;
  seen: Seen[];
  /** Status of `/toggle/NAME`, changed by tests between runs. */
  toggles: Map<string, number>;
  /** The most `/slow` requests (answered after SLOW_MS, or `?ms=`) in flight at once, by Host name and in all. */
  busiest: Load['busiest'];
  /** Answers (200) the `/held` requests waiting, and every later one at once: the test decides when, not a clock. */
  release(): void;
  close(): Promise<void>;
}

/**
 * Long enough that requests sent together overlap even on a loaded machine (400 ms left the
 * launch of five requests little room with both cores busy).
 */
const SLOW_MS = 1500;

/** What each path answers. */
function route(req: IncomingMessage, res: ServerResponse, scheme: string, port: number, toggles: Map<string, number>, slow: (req: IncomingMessage, res: ServerResponse) => void): void {
  const path = (req.url ?? '/').split('?')[0]!;
  if (path === '/slow') return slow(req, res);
  const to = (status: number, location: string) => void res.writeHead(status, { Location: location, 'Content-Length': '0' }).end();
  const chain = /^\/chain\/(\d+)$/.exec(path);
  const toggle = /^\/toggle\/(\w+)$/.exec(path);
  if (path === '/ok' || path === '/dup' || path === '/a' || path === '/b') return void res.writeHead(200, { 'Content-Type': 'text/plain' }).end(req.method === 'HEAD' ? undefined : 'fine\n');
  if (path === '/head405') {
    if (req.method === 'HEAD') return void res.writeHead(405, { Allow: 'GET' }).end();
    return void res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>only GET here</html>');
  }
  if (path === '/big') {
    // A GET body far larger than linkctl reads: it stops early and closes the connection.
    if (req.method === 'HEAD') return void res.writeHead(500).end();
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
    const chunk = Buffer.alloc(64 * 1024, 120);
    let sent = 0;
    const pump = () => {
      while (sent < 64 * 1024 * 1024 && res.write(chunk)) sent += chunk.length;
      if (sent >= 64 * 1024 * 1024) res.end();
    };
    res.on('drain', pump);
    res.on('close', () => res.off('drain', pump));
    return pump();
  }
  if (path === '/head-ok-get-404') {
    // Says 200 to HEAD and 404 to GET: what a browser gets (GET) decides.
    if (req.method === 'HEAD') return void res.writeHead(200, { 'Content-Type': 'text/html' }).end();
    return void res.writeHead(404, { 'Content-Type': 'text/html' }).end('<html>not found</html>');
  }
  if (path === '/to') return to(302, new URLSearchParams((req.url ?? '').split('?')[1]).get('u') ?? '/');
  if (path === '/notfound') return void res.writeHead(404, { 'Content-Type': 'text/html' }).end('<html>not found</html>');
  if (path === '/fail') return void res.writeHead(500, { 'Content-Type': 'text/html' }).end('<html>oops</html>');
  if (path === '/same') return to(301, '/ok');
  if (path === '/offsite') return to(302, `${scheme}://ok.localhost:${port}/ok`);
  if (path === '/www') return to(302, `${scheme}://www.ok.localhost:${port}/ok`);
  if (path === '/loop-a') return to(302, '/loop-b');
  if (path === '/loop-b') return to(302, '/loop-a');
  if (chain) return Number(chain[1]) > 0 ? to(302, `/chain/${Number(chain[1]) - 1}`) : void res.writeHead(200).end();
  if (path === '/hang' || path === '/hang2') return; // never answers; close() ends the socket
  if (path === '/reset') return void req.socket.destroy();
  if (toggle) return void res.writeHead(toggles.get(toggle[1]!) ?? 200).end();
  res.writeHead(404).end();
}

/** What `/slow` requests in flight are counted in: one server's own, or shared by servers on several addresses. */
export interface Load {
  busiest: { all: number; byHost: Map<string, number> };
  inFlight: Map<string, number>;
  all: number;
}

export const newLoad = (): Load => ({ busiest: { all: 0, byHost: new Map() }, inFlight: new Map(), all: 0 });

async function listen(server: Server, scheme: 'http' | 'https', host: string, address = '127.0.0.1', load = newLoad()): Promise<Destinations> {
  const seen: Seen[] = [];
  const toggles = new Map<string, number>();
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('secureConnection', (s: Socket) => sockets.add(s));
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  const { port } = server.address() as AddressInfo;
  const { busiest, inFlight } = load;
  const slow = (req: IncomingMessage, res: ServerResponse) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    inFlight.set(host, (inFlight.get(host) ?? 0) + 1);
    busiest.byHost.set(host, Math.max(busiest.byHost.get(host) ?? 0, inFlight.get(host)!));
    busiest.all = Math.max(busiest.all, ++load.all);
    setTimeout(() => {
      inFlight.set(host, inFlight.get(host)! - 1);
      load.all--;
      res.writeHead(200).end();
    }, Number(new URLSearchParams((req.url ?? '').split('?')[1]).get('ms') ?? SLOW_MS));
  };
  const held: ServerResponse[] = [];
  let released = false;
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    seen.push({ method: req.method ?? '', path: req.url ?? '', host: req.headers.host ?? '', headers: { ...req.headers } });
    if ((req.url ?? '').split('?')[0] === '/held') return released ? void res.writeHead(200).end() : void held.push(res);
    route(req, res, scheme, port, toggles, slow);
  });
  return {
    port,
    origin: `${scheme}://${host}:${port}`,
    seen,
    toggles,
    busiest,
    release: () => {
      released = true;
      for (const res of held.splice(0)) res.writeHead(200).end();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An http server on a loopback address (127.0.0.1 unless told: 127.0.0.2 is another address of this machine). */
export function startHttp(address = '127.0.0.1', load?: Load): Promise<Destinations> {
  return listen(createHttp(), 'http', address, address, load);
}

export function startHttps(key: Buffer, cert: Buffer): Promise<Destinations> {
  return listen(createHttps({ key, cert }), 'https', 'localhost');
}

/** A port where nothing listens: bound, then released. */
export async function refusedPort(): Promise<number> {
  const server = createHttp();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export const hasOpenssl = spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0;

export interface Certificates {
  /** The test CA; a child process trusts it through NODE_EXTRA_CA_CERTS. */
  caFile: string;
  /** Signed by the CA for localhost, ok.localhost, www.ok.localhost and 127.0.0.1. */
  good: { key: Buffer; cert: Buffer };
  selfSigned: { key: Buffer; cert: Buffer };
  /** Valid from 2020-01-01 to 2020-02-01 only. */
  expired: { key: Buffer; cert: Buffer };
}

/**
 * Certificates made here with openssl (P-256 keys: quick to make). The expired one is made with
 * `openssl ca -selfsign` and past dates (`-startdate`/`-enddate`), the only way OpenSSL 3.0
 * writes a certificate whose validity ended in the past.
 */
export function makeCertificates(dir: string): Certificates {
  const run = (...args: string[]) => {
    const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`openssl ${args.join(' ')}: ${r.stderr}`);
  };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-subj', '/CN=linkctl test CA', '-days', '2', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign');
  run('req', ...ec, '-keyout', 'good.key', '-out', 'good.csr', '-subj', '/CN=localhost');
  writeFileSync(join(dir, 'good.ext'), 'subjectAltName=DNS:localhost,DNS:ok.localhost,DNS:www.ok.localhost,IP:127.0.0.1\n');
  run('x509', '-req', '-in', 'good.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'good.pem', '-days', '2', '-extfile', 'good.ext');
  run('req', '-x509', ...ec, '-keyout', 'self.key', '-out', 'self.pem', '-subj', '/CN=localhost', '-days', '2', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1');
  run('req', ...ec, '-keyout', 'old.key', '-out', 'old.csr', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1');
  mkdirSync(join(dir, 'ca'));
  writeFileSync(join(dir, 'ca', 'index.txt'), '');
  writeFileSync(join(dir, 'ca', 'serial'), '01\n');
  writeFileSync(join(dir, 'ca.cnf'), '[ca]\ndefault_ca = d\n[d]\ndatabase = ca/index.txt\nnew_certs_dir = ca\nserial = ca/serial\ndefault_md = sha256\npolicy = p\ncopy_extensions = copy\n[p]\ncommonName = supplied\n');
  run('ca', '-batch', '-config', 'ca.cnf', '-selfsign', '-keyfile', 'old.key', '-in', 'old.csr', '-startdate', '20200101000000Z', '-enddate', '20200201000000Z', '-out', 'old.pem');
  const read = (name: string) => readFileSync(join(dir, name));
  return {
    caFile: join(dir, 'ca.pem'),
    good: { key: read('good.key'), cert: read('good.pem') },
    selfSigned: { key: read('self.key'), cert: read('self.pem') },
    expired: { key: read('old.key'), cert: read('old.pem') },
  };
}
