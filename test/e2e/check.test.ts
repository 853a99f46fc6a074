/**
 * `linkctl check` against links in the sandbox that point at servers this test starts on
 * 127.0.0.1 (check-servers.ts): one classification a test, the account checks, what reaches a
 * destination (nothing of the user's), request counts, --since-last (with the runs in the
 * click-history database: an SQLite file, or PostgreSQL when this machine can start one),
 * --deadline, proxies, and `sandbox serve`, whose seeded links point at example hosts that
 * cannot be reached here.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, runMain, spawnCli, tempDir, useSandbox, type RunResult } from '../helpers.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { saveState, seedState, timestamp } from '../../src/sandbox/state.js';
import { hasOpenssl, makeCertificates, newLoad, refusedPort, startHttp, startHttps, type Certificates, type Destinations } from './check-servers.js';
import { pgSkipReason, sql, startCluster, type Cluster } from '../postgres.js';

interface CheckRecord {
  link: number | null;
  qr: number | null;
  alias: string | null;
  shorturl: string | null;
  target: string | null;
  destination: string;
  status: string;
  code: number | null;
  chain: Array<{ url: string; code: number | null }>;
  error: string | null;
  findings: Array<{ kind: string; detail: string }>;
  checkedAt: string;
  change?: string;
  previous?: string | null;
}

const fx = useSandbox();
const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/**
 * Calls the sandbox's API directly (not counted against the check: tests look at what came
 * after), each call on a connection of its own: a kept-alive one may be closed by the server
 * while a test waits (for a database server to start) and fail the next call.
 */
async function api(sandbox: Sandbox, method: string, path: string, body?: unknown): Promise<any> {
  const { request } = await import('node:http');
  const text = await new Promise<string>((resolve, reject) => {
    const req = request(`${sandbox.url}/api/${path}`, { method, agent: false, headers: { Authorization: `Bearer ${sandbox.key}`, 'Content-Type': 'application/json' } }, (res) => {
      let data = '';
      res.setEncoding('utf8').on('data', (d: string) => (data += d)).on('end', () => resolve(data)).on('error', reject);
    });
    req.on('error', reject).end(body === undefined ? undefined : JSON.stringify(body));
  });
  const json = JSON.parse(text) as any;
  if (json.error) throw new Error(`${method} ${path}: ${JSON.stringify(json)}`);
  return json;
}
const addLink = (sandbox: Sandbox, url: string, alias: string, extra: Record<string, unknown> = {}) => api(sandbox, 'POST', 'url/add', { url, custom: alias, ...extra });
/** The seeded links point at example.com: gone, so that nothing here asks DNS about a real name. */
async function withoutSeededLinks(sandbox: Sandbox) {
  for (const id of [1, 2]) await api(sandbox, 'DELETE', `url/${id}/delete`);
}

const parse = (r: RunResult): CheckRecord[] => JSON.parse(r.stdout) as CheckRecord[];
const byAlias = (records: CheckRecord[]) => new Map(records.filter((r) => r.target === null && r.qr === null).map((r) => [r.alias!, r]));
const apiRequests = (sandbox: Sandbox, from: number) => sandbox.requests.slice(from).filter((r) => r.path.startsWith('/api/')).map((r) => `${r.method} ${r.path}?${new URLSearchParams(r.query)}`);

describe.skipIf(!hasOpenssl)('one check over every kind of destination (needs openssl for the TLS servers)', () => {
  let dir: string;
  let certs: Certificates;
  let http: Destinations;
  let otherPort: Destinations;
  /** A server on 127.0.0.2, which --allow-private 127.0.0.1 does not allow: it must see nothing. */
  let internal: Destinations;
  let https: Destinations;
  let selfSigned: Destinations;
  let expired: Destinations;
  let refused: number;
  let run: RunResult;
  let records: Map<string, CheckRecord>;
  let requestsBefore: number;
  let apiSeen: string[];
  /** Requests the sandbox got outside its API during the check. */
  let ownSeen: Sandbox['requests'];

  beforeAll(async () => {
    dir = tempDir();
    certs = makeCertificates(dir);
    [http, otherPort, internal, https, selfSigned, expired, refused] = await Promise.all([
      startHttp(), startHttp(), startHttp('127.0.0.2'), startHttps(certs.good.key, certs.good.cert), startHttps(certs.selfSigned.key, certs.selfSigned.cert), startHttps(certs.expired.key, certs.expired.cert), refusedPort(),
    ]);
    const sb = fx.sandbox;
    await withoutSeededLinks(sb);
    const T = https.origin; // https://localhost:PORT, trusted by the CLI through NODE_EXTRA_CA_CERTS
    const links: Array<[string, string]> = [
      ['fine', `${T}/ok`],
      ['redirect', `${T}/same`],
      ['www', `https://ok.localhost:${https.port}/www`],
      ['ten-redirects', `${T}/chain/10`],
      ['offsite', `${T}/offsite`],
      ['other-port', `${http.origin}/to?u=${encodeURIComponent(`${otherPort.origin}/ok`)}`],
      ['head405', `${T}/head405`],
      ['head-ok-get-404', `${T}/head-ok-get-404`],
      ['big-body', `${T}/big`],
      ['insecure', `${http.origin}/ok`],
      ['plain-redirect', `${http.origin}/same`],
      ['downgrade', `${T}/to?u=${encodeURIComponent(`${http.origin}/ok`)}`],
      ['notfound', `${T}/notfound`],
      ['fail', `${T}/fail`],
      ['hang', `${http.origin}/hang`],
      ['refused', `http://127.0.0.1:${refused}/ok`],
      ['dns', 'https://nothing-here.invalid/page'],
      ['dns-after-redirect', `${T}/to?u=${encodeURIComponent('https://gone-away.invalid/x')}`],
      ['self-signed', `${selfSigned.origin}/ok`],
      ['expired', `${expired.origin}/ok`],
      ['loop', `${T}/loop-a`],
      ['eleven', `${T}/chain/11`],
      ['reset', `${http.origin}/reset`],
      ['bad-port', 'http://127.0.0.1:6000/x'],
      ['into-internal', `${T}/to?u=${encodeURIComponent(`http://127.0.0.2:${internal.port}/admin/secret-panel`)}`],
      ['internal', `http://127.0.0.2:${internal.port}/admin`],
      ['own-site', `${sb.url}/no-such-page`],
      ['dup-one', `${T}/dup`],
      ['dup-two', `${T}/dup`],
    ];
    for (const [alias, url] of links) await addLink(sb, url, alias);
    requestsBefore = sb.requests.length;
    // --timeout 10: long enough for a TLS handshake on a loaded machine; the server that never answers takes that long.
    // --allow-private 127.0.0.1: the test's servers are on this machine; 127.0.0.2 stays out of bounds.
    run = await spawnCli(['check', '--json', '--timeout', '10', '--fail-on', 'broken', '--allow-private', '127.0.0.1'], { env: { ...fx.env, NODE_EXTRA_CA_CERTS: certs.caFile }, timeoutMs: 60_000 });
    records = byAlias(parse(run));
    apiSeen = apiRequests(sb, requestsBefore);
    ownSeen = sb.requests.slice(requestsBefore).filter((r) => !r.path.startsWith('/api/'));
  });

  afterAll(async () => {
    await Promise.all([http, otherPort, internal, https, selfSigned, expired].map((d) => d?.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  const methods = (server: Destinations, path: string) => server.seen.filter((s) => s.path === path).map((s) => s.method);

  it('prints one record per link with the documented fields, exits 1 for --fail-on broken, and says what it did on stderr', () => {
    expect(run.code).toBe(1);
    expect(records.size).toBe(29);
    expect(Object.keys(records.get('fine')!)).toEqual(['link', 'qr', 'alias', 'shorturl', 'target', 'destination', 'status', 'flags', 'code', 'chain', 'error', 'findings', 'checkedAt']);
    expect(records.get('fine')!.shorturl).toBe(`${fx.sandbox.url}/fine`);
    expect(Date.parse(records.get('fine')!.checkedAt)).toBeGreaterThan(Date.now() - 60_000);
    // 28 distinct destinations: the two duplicates share one
    expect(run.stderr).toMatch(/^checked 28 destinations of 29 links in [\d.]+ s: .*; flags: 11 insecure; .*--fail-on matched 14\n/m);
    expect(run.stderr).toMatch(/^private addresses allowed by --allow-private: 127\.0\.0\.1$/m);
    expect(run.stderr).not.toMatch(/MaxListeners|Warning/);
  });

  it('reads the account once: who it is (the history keeps runs per account), the link list and the domain list, pages of 1,000 (no campaign list: no link is in one)', () => {
    expect(apiSeen).toEqual(['GET /api/account?', 'GET /api/urls?limit=1000&page=1', 'GET /api/domains?limit=1000&page=1']);
  });

  it('ok: HTTPS answering 200 with no redirect, confirmed by a GET of its first bytes after the HEAD', () => {
    expect(records.get('fine')).toMatchObject({ status: 'ok', flags: [], code: 200, error: null, chain: [{ url: `${https.origin}/ok`, code: 200 }] });
    // other links' redirects reach /ok too, in whatever order the checks run: 'fine' asks HEAD, then GET
    const seen = methods(https, '/ok');
    expect(seen[0]).toBe('HEAD');
    expect(seen).toContain('GET');
  });

  it('HEAD 200 but GET 404: reported by what GET gets, a client-error', () => {
    expect(records.get('head-ok-get-404')).toMatchObject({ status: 'client-error', code: 404, error: 'HTTP 404', chain: [{ url: `${https.origin}/head-ok-get-404`, code: 404 }] });
    expect(methods(https, '/head-ok-get-404')).toEqual(['HEAD', 'GET']);
  });

  it('redirect: the chain within the same site is recorded, hop by hop (HEAD only for a redirect); "www." counts as the same site', () => {
    expect(records.get('redirect')).toMatchObject({ status: 'redirect', flags: [], code: 200, chain: [{ url: `${https.origin}/same`, code: 301 }, { url: `${https.origin}/ok`, code: 200 }] });
    expect(methods(https, '/same')).toEqual(['HEAD']);
    expect(records.get('www')).toMatchObject({ status: 'redirect', chain: [{ code: 302 }, { url: `https://www.ok.localhost:${https.port}/ok`, code: 200 }] });
    // exactly 10 redirects are followed
    const ten = records.get('ten-redirects')!;
    expect(ten).toMatchObject({ status: 'redirect', code: 200 });
    expect(ten.chain).toHaveLength(11);
  });

  it('redirect-offsite: the chain ends on another origin: another host, or another port of the same host', () => {
    expect(records.get('offsite')).toMatchObject({ status: 'redirect-offsite', code: 200, chain: [{ url: `${https.origin}/offsite`, code: 302 }, { url: `https://ok.localhost:${https.port}/ok`, code: 200 }] });
    expect(records.get('other-port')).toMatchObject({ status: 'redirect-offsite', flags: ['insecure'], code: 200, chain: [{ code: 302 }, { url: `${otherPort.origin}/ok`, code: 200 }] });
  });

  it('HEAD answered 405: the same URL again with GET, which decides', () => {
    expect(records.get('head405')).toMatchObject({ status: 'ok', code: 200 });
    expect(methods(https, '/head405')).toEqual(['HEAD', 'GET']);
  });

  it('a GET body is not kept: a 64 MB answer is cut short, the destination still ok', () => {
    expect(records.get('big-body')).toMatchObject({ status: 'ok', code: 200 });
  });

  it('insecure is a flag beside the status: a plain http:// destination, one that redirects (still a redirect), one that lands on http://', () => {
    expect(records.get('insecure')).toMatchObject({ status: 'ok', flags: ['insecure'], code: 200, error: null });
    expect(records.get('plain-redirect')).toMatchObject({ status: 'redirect', flags: ['insecure'], code: 200, error: null, chain: [{ url: `${http.origin}/same`, code: 301 }, { url: `${http.origin}/ok`, code: 200 }] });
    expect(records.get('downgrade')).toMatchObject({ status: 'redirect-offsite', flags: ['insecure'], code: 200 });
  });

  it('client-error and server-error: HTTP 4xx and 5xx (HEAD then GET, both failing)', () => {
    expect(records.get('notfound')).toMatchObject({ status: 'client-error', code: 404, error: 'HTTP 404' });
    expect(records.get('fail')).toMatchObject({ status: 'server-error', code: 500, error: 'HTTP 500' });
    expect(methods(https, '/notfound')).toEqual(['HEAD', 'GET']);
  });

  it('every network error names the host: timeout (no GET after a timed-out HEAD), refused, dns (a .invalid name, also after a redirect), tls, a reset', () => {
    expect(records.get('hang')).toMatchObject({ status: 'timeout', code: null, error: `no answer from 127.0.0.1:${http.port} within 10 s (--timeout)` });
    expect(methods(http, '/hang')).toEqual(['HEAD']);
    expect(records.get('refused')).toMatchObject({ status: 'refused', code: null, error: `127.0.0.1:${refused} refused the connection` });
    expect(records.get('dns')).toMatchObject({ status: 'dns', code: null, error: 'nothing-here.invalid does not resolve' });
    expect(records.get('dns-after-redirect')).toMatchObject({ status: 'dns', error: 'gone-away.invalid does not resolve', chain: [{ code: 302 }, { url: 'https://gone-away.invalid/x', code: null }] });
    expect(records.get('self-signed')).toMatchObject({ status: 'tls', code: null, error: `localhost:${selfSigned.port}: the certificate is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT)` });
    expect(records.get('expired')).toMatchObject({ status: 'tls', code: null, error: `localhost:${expired.port}: the certificate has expired (CERT_HAS_EXPIRED)` });
    expect(records.get('reset')).toMatchObject({ status: 'error', code: null, error: `127.0.0.1:${http.port} closed the connection before an answer` });
  });

  it('loop and too-many-redirects: a redirect back to its own chain (stopped when it comes back), and a chain of 11', () => {
    expect(records.get('loop')).toMatchObject({ status: 'loop', error: `redirect loop: back to ${https.origin}/loop-a` });
    expect(records.get('loop')!.chain.map((h) => h.url)).toEqual([`${https.origin}/loop-a`, `${https.origin}/loop-b`, `${https.origin}/loop-a`]);
    const eleven = records.get('eleven')!;
    expect(eleven).toMatchObject({ status: 'too-many-redirects', error: 'more than 10 redirects' });
    expect(eleven.chain).toHaveLength(11);
  });

  it('bad-port: a port browsers refuse (6000) is said as such, and not requested', () => {
    expect(records.get('bad-port')).toMatchObject({ status: 'bad-port', code: null, error: '127.0.0.1:6000: browsers refuse this port (a "bad port" of the Fetch standard)' });
  });

  it('blocked: 127.0.0.2 (not in --allow-private 127.0.0.1) is never requested, directly or after a redirect from an allowed destination', () => {
    expect(records.get('internal')).toMatchObject({ status: 'blocked', code: null, error: '127.0.0.2 is a loopback address; not requested', chain: [{ url: `http://127.0.0.2:${internal.port}/admin`, code: null }] });
    expect(records.get('into-internal')).toMatchObject({
      status: 'blocked', code: null, error: 'redirected to 127.0.0.2 (a loopback address); not requested',
      chain: [{ url: expect.stringContaining(`${https.origin}/to?u=`), code: 302 }, { url: `http://127.0.0.2:${internal.port}/admin/secret-panel`, code: null }],
    });
    expect(internal.seen).toEqual([]); // nothing reached it: no HEAD, no GET
  });

  it('duplicate: the same destination shortened twice is requested once, and each link names the other', () => {
    const one = records.get('dup-one')!;
    const two = records.get('dup-two')!;
    expect(one).toMatchObject({ status: 'ok', findings: [{ kind: 'duplicate', detail: `the same destination as link ${two.link}` }] });
    expect(two.findings).toEqual([{ kind: 'duplicate', detail: `the same destination as link ${one.link}` }]);
    expect(methods(https, '/dup')).toEqual(['HEAD', 'GET']);
  });

  it('nothing of the user\'s reaches a destination: no key, no Authorization, no cookie; a linkctl/<version> User-Agent', () => {
    const own = ownSeen;
    expect(own.map((r) => r.path)).toEqual(['/no-such-page', '/no-such-page']); // HEAD, then GET: the API's own host gets no key either
    expect(records.get('own-site')).toMatchObject({ status: 'client-error', code: 404 });
    const all = [...http.seen, ...https.seen, ...own.map((r) => ({ headers: r.headers as Record<string, string> }))];
    expect(all.length).toBeGreaterThan(20);
    for (const { headers } of all) {
      expect(Object.keys(headers).sort()).toEqual(expect.not.arrayContaining(['authorization', 'cookie', 'proxy-authorization']));
      expect(JSON.stringify(headers)).not.toContain(fx.sandbox.key);
      expect(headers['user-agent']).toBe(`linkctl/${VERSION}`); // the built CLI's version
    }
  });
});

describe('account checks and --details (a sandbox read from a state file made here)', () => {
  let sandbox: Sandbox;
  let http: Destinations;
  let dir: string;
  const day = 86_400_000;

  beforeAll(async () => {
    dir = tempDir();
    http = await startHttp();
    const state = seedState();
    const D = http.origin;
    const made = timestamp();
    const link = (id: number, alias: string, path: string, extra: Record<string, unknown> = {}) => ({ id, alias, longurl: `${D}${path}`, title: '', clicks: 0, uniqueclicks: 0, date: made, ...extra });
    state.links = [
      link(1, 'in-campaign', '/a', { campaign: 1 }),
      link(2, 'lost-campaign', '/a?2', { campaign: 7 }),
      link(3, 'lost-domain', '/a?3', { domain: 'https://gone.localhost' }),
      link(4, 'on-domain', '/a?4', { domain: 'https://go.sandbox.localhost' }),
      link(5, 'expired', '/a?5', { expiry: timestamp(Date.now() - day) }),
      link(6, 'expiring', '/a?6', { expiry: timestamp(Date.now() + 3 * day) }),
      link(7, 'later', '/a?7', { expiry: timestamp(Date.now() + 60 * day) }),
      link(8, 'targeted', '/a?8', { geotarget: [{ location: 'Canada', link: `${D}/notfound` }] }),
    ];
    state.next.links = 9;
    state.qrs = [];
    saveState(join(dir, 'state.json'), state);
    sandbox = await startSandbox({ port: 0, rateLimit: null, stateFile: join(dir, 'state.json') });
  });
  afterAll(async () => {
    await sandbox?.close();
    await http?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds links on a domain that is gone, in a campaign that is gone, expired and expiring; --details reads each link once and checks its geo targets', async () => {
    const env = { LINKCTL_BASE_URL: sandbox.url, LINKCTL_API_KEY: sandbox.key, LINKCTL_CONFIG_DIR: tempDir(), LINKCTL_CHECK_ALLOW_PRIVATE: '127.0.0.1' };
    const r = await runMain(['check', '--details', '--expiring', '7d', '--json', '--fail-on', 'missing-campaign'], { env });
    expect(r.code).toBe(1);
    const records = parse(r);
    const findings = Object.fromEntries(records.filter((x) => !x.target).map((x) => [x.alias, x.findings.map((f) => `${f.kind}: ${f.detail}`)]));
    expect(findings).toEqual({
      'in-campaign': [],
      'lost-campaign': ['missing-campaign: campaign 7 no longer exists'],
      'lost-domain': ['unknown-domain: gone.localhost is not one of the account\'s domains'],
      'on-domain': [],
      expired: [expect.any(String)],
      expiring: [expect.any(String)],
      later: [],
      targeted: [],
    });
    expect(findings.expired).toEqual([expect.stringMatching(/^expired: expired \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)]);
    expect(findings.expiring).toEqual([expect.stringMatching(/^expiring: expires \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(in 3 d\)$/)]);
    // the geo target is a record of its own, checked like a destination
    expect(records.find((x) => x.target)).toMatchObject({ link: 8, alias: 'targeted', target: 'geo:canada', destination: `${http.origin}/notfound`, status: 'client-error', code: 404 });
    // 8 links, 9 destinations (each link's own plus the target), all on one host: requested once each
    expect(records).toHaveLength(9);
    // the account once (who it is, links, domains, campaigns), then one details request a link
    expect(apiRequests(sandbox, 0)).toEqual([
      'GET /api/account?', 'GET /api/urls?limit=1000&page=1', 'GET /api/domains?limit=1000&page=1', 'GET /api/campaigns?limit=1000&page=1',
      ...[1, 2, 3, 4, 5, 6, 7, 8].map((id) => `GET /api/url/${id}?`), // in the list's order: links of one second as they were made (7.7)
    ]);
    expect(r.stderr).toMatch(/--fail-on matched 1$/m);
  });

  it('--expiring without --details is a usage error (exit 2) naming both, before any request', async () => {
    const before = sandbox.requests.length;
    const r = await runMain(['check', '--expiring', '7d'], { env: { LINKCTL_BASE_URL: sandbox.url, LINKCTL_API_KEY: sandbox.key, LINKCTL_CONFIG_DIR: tempDir() } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^linkctl: --expiring needs --details/);
    expect(sandbox.requests.length).toBe(before);
  });
});

describe('options, history and limits', () => {
  let http: Destinations;
  beforeAll(async () => {
    http = await startHttp();
  });
  afterAll(() => http?.close());
  /** The test's servers are on 127.0.0.1: allowed through the environment, as a CI job on an internal network would. */
  const env = (configDir = tempDir()) => ({ ...fx.env, LINKCTL_CONFIG_DIR: configDir, LINKCTL_CHECK_ALLOW_PRIVATE: '127.0.0.1' });

  it.each([
    [['--fail-on', 'broken,nope'], /--fail-on: unknown name "nope"; allowed: broken, ok, redirect/],
    [['--concurrency', '0'], /--concurrency must be a positive integer/],
    [['--concurrency', '100'], /--concurrency must be at most 32/],
    [['--deadline', '10'], /--deadline must be a positive whole number with a unit, one of s \(seconds\), m \(minutes\), h \(hours\)/],
    [['--expiring', '3m', '--details'], /--expiring must be a positive whole number with a unit, one of h \(hours\), d \(days\), w \(weeks\)/],
    [['--allow-private', '10.0.0.0/33'], /^linkctl: --allow-private: "10\.0\.0\.0\/33" is not an IP address or a network \(address\/prefix\)\nhint: give `all`/],
    [['--allow-private', 'intranet.example.com'], /--allow-private: "intranet\.example\.com" is not an IP address or a network/],
  ])('bad input %j: exit 2, a message naming the flag, nothing sent', async (args, message) => {
    const r = await runMain(['check', ...args], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(fx.sandbox.requests).toEqual([]);
  });

  it('a server on a port fetch refuses (6000): said as such at once, no attempt repeated, exit 6', async () => {
    const started = Date.now();
    const r = await runMain(['check', '--json'], { env: { ...env(), LINKCTL_BASE_URL: 'http://127.0.0.1:6000' } });
    expect(r.code).toBe(6);
    expect(r.stderr).toBe('linkctl: GET http://127.0.0.1:6000/api/account: fetch refuses to connect to this port (a "bad port" of the Fetch standard, as browsers do); nothing was sent\n' +
      'hint: run the server on another port (browsers refuse this one too), or put a proxy in front of it\n');
    expect(Date.now() - started).toBeLessThan(5_000); // no backoff between attempts: there was one
  });

  it('--since-last: the first run calls every broken destination new; the next shows only what changed (newly broken, fixed) and --fail-on looks at those', async () => {
    await withoutSeededLinks(fx.sandbox);
    http.toggles.set('one', 200).set('two', 404).set('three', 200);
    for (const name of ['one', 'two', 'three']) await addLink(fx.sandbox, `${http.origin}/toggle/${name}`, name);
    const configDir = tempDir();
    const first = await runMain(['check', '--since-last', '--json', '--fail-on', 'broken'], { env: env(configDir) });
    expect(first.code).toBe(1);
    expect(first.stderr).toMatch(/no earlier check of this account in .*history\.db: every broken destination is new/);
    expect(parse(first).map((r) => [r.alias, r.change, r.previous])).toEqual([['two', 'newly-broken', null]]);

    http.toggles.set('one', 500).set('two', 200);
    const second = await runMain(['check', '--since-last', '--json', '--fail-on', 'broken'], { env: env(configDir) });
    expect(second.code).toBe(1);
    const changes = parse(second).map((r) => [r.alias, r.status, r.change, r.previous]).sort();
    expect(changes).toEqual([['one', 'server-error', 'newly-broken', 'ok'], ['two', 'ok', 'fixed', 'client-error']]);

    const third = await runMain(['check', '--since-last', '--json', '--fail-on', 'broken'], { env: env(configDir) });
    expect(third.code).toBe(0); // still broken, but not newly
    expect(parse(third)).toEqual([]);
    expect(third.stderr).toMatch(/; 0 changes since the previous check; --fail-on matched 0$/m);
  });

  it('--deadline: what is still waiting is a timeout, what never started is unchecked, and the run ends on time', async () => {
    await withoutSeededLinks(fx.sandbox);
    // The deadline counts from the start of the run, loading the history database and reading the
    // account and links included. A first run (of no destination) loads what the command needs, so
    // that the 3 s are the probes' on a loaded machine too (cold, loading alone took over 3 s there).
    expect((await runMain(['check', '--json'], { env: env() })).code).toBe(0);
    // made within one second, as a clock stopped there makes them: listed in the order they were made (7.7)
    await fetch(`${fx.sandbox.url}/__sandbox/clock`, { method: 'POST', headers: { Authorization: `Bearer ${fx.sandbox.key}` }, body: JSON.stringify({ at: Date.now() }) });
    await addLink(fx.sandbox, `${http.origin}/hang`, 'first');
    await addLink(fx.sandbox, `${http.origin}/hang2`, 'second');
    await fetch(`${fx.sandbox.url}/__sandbox/clock`, { method: 'POST', headers: { Authorization: `Bearer ${fx.sandbox.key}` }, body: JSON.stringify({ at: null }) });
    // The bound is against the --timeout of 30 s that the deadline cut short, not this machine's speed.
    const started = Date.now();
    const r = await runMain(['check', '--deadline', '3s', '--concurrency', '1', '--timeout', '30', '--json'], { env: env() });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(r.code).toBe(0);
    const records = byAlias(parse(r));
    // links of one second are listed in the order they were made: "first" is requested first
    expect(records.get('first')).toMatchObject({ status: 'timeout', error: `no answer from 127.0.0.1:${http.port} before the run's deadline (--deadline)` });
    expect(records.get('second')).toMatchObject({ status: 'unchecked', error: "not requested: the run's deadline (--deadline) passed first", chain: [] });
  });

  it('polite: never more than --concurrency requests at a time, nor more than 2 to one address', async ({ onTestFinished }) => {
    // Three servers on three addresses of this machine, counting the requests in flight together and by address.
    const load = newLoad();
    const servers = await Promise.all(['127.0.0.1', '127.0.0.2', '127.0.0.3'].map((address) => startHttp(address, load)));
    onTestFinished(() => Promise.all(servers.map((s) => s.close())).then(() => undefined));
    await withoutSeededLinks(fx.sandbox);
    for (const [n, server] of servers.entries()) for (let i = 0; i < 6; i++) await addLink(fx.sandbox, `${server.origin}/slow?${i}`, `s${n}-${i}`);
    const r = await runMain(['check', '--concurrency', '5', '--json', '--allow-private', '127.0.0.0/8'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(parse(r).map((x) => x.status)).toEqual(Array(18).fill('ok'));
    expect(Object.fromEntries(load.busiest.byHost)).toEqual({ '127.0.0.1': 2, '127.0.0.2': 2, '127.0.0.3': 2 });
    expect(load.busiest.all).toBe(5);
    // HEAD, then GET: two requests a destination
    for (const server of servers) expect(server.seen.map((s) => s.method).sort()).toEqual([...Array(6).fill('GET'), ...Array(6).fill('HEAD')]);
  });

  it('the per-host limit counts addresses: 24 names on one address get 2 requests at a time, whatever --concurrency; no MaxListeners warning at 24', async () => {
    await withoutSeededLinks(fx.sandbox);
    for (let i = 0; i < 24; i++) await addLink(fx.sandbox, `http://name${i}.localhost:${http.port}/slow?ms=100&n=${i}`, `name${i}`);
    const before = http.seen.length;
    // A child process: Node prints its warnings on the process's own stderr.
    const r = await runCli(['check', '--concurrency', '24', '--json'], { env: env(), timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(parse(r).map((x) => x.status)).toEqual(Array(24).fill('ok'));
    expect(http.seen.length - before).toBe(48);
    expect(http.busiest.all).toBe(2); // every name is 127.0.0.1
    expect(r.stderr).not.toMatch(/Warning/);
    expect(r.stderr).toMatch(/^checked 24 destinations of 24 links in [\d.]+ s: 24 ok; flags: 24 insecure\n/);
  });

  it('Ctrl-C while destinations are being checked: exit 130 at once, nothing on stdout, no run stored', async () => {
    await withoutSeededLinks(fx.sandbox);
    await addLink(fx.sandbox, `${http.origin}/hang?ctrl-c`, 'waiting');
    const configDir = tempDir();
    const controller = new AbortController();
    const running = runMain(['check', '--json', '--timeout', '60'], { env: env(configDir), signal: controller.signal });
    while (!http.seen.some((s) => s.path === '/hang?ctrl-c')) await new Promise((resolve) => setTimeout(resolve, 20));
    const at = Date.now();
    controller.abort();
    const r = await running;
    expect(Date.now() - at).toBeLessThan(5_000);
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^linkctl: interrupted$/m);
    // the next --since-last finds no earlier run
    const next = await runMain(['check', '--since-last', '--json', '--deadline', '1s', '--timeout', '30'], { env: env(configDir) });
    expect(next.stderr).toMatch(/no earlier check of this account/);
  });

  it('-o csv: one line per link, the chain, flags and findings as text', async () => {
    await withoutSeededLinks(fx.sandbox);
    await addLink(fx.sandbox, `${http.origin}/same`, 'moved');
    const r = await runMain(['check', '-o', 'csv'], { env: env() });
    expect(r.code).toBe(0);
    const [header, line, ...rest] = r.stdout.trimEnd().split('\n');
    expect(header).toBe('link,qr,alias,shorturl,target,destination,status,flags,code,chain,error,findings,checkedAt,change,previous');
    expect(rest).toEqual([]);
    expect(line).toMatch(new RegExp(`^3,,moved,${fx.sandbox.url}/moved,,${http.origin}/same,redirect,insecure,200,301 ${http.origin}/same -> 200 ${http.origin}/ok,,,\\d{4}-`));
  });

  it('--fail-on takes statuses and flags: a plain-http destination that redirects matches redirect and insecure, not ok or broken', async () => {
    await withoutSeededLinks(fx.sandbox);
    await addLink(fx.sandbox, `${http.origin}/same`, 'moved');
    const exits: Record<string, number> = {};
    for (const names of ['redirect', 'insecure', 'broken,insecure', 'ok', 'broken', 'slow', 'redirect-offsite']) {
      const r = await runMain(['check', '--json', '--fail-on', names], { env: env() });
      expect(parse(r)).toEqual([expect.objectContaining({ alias: 'moved', status: 'redirect', flags: ['insecure'] })]);
      exits[names] = r.code!;
    }
    expect(exits).toEqual({ redirect: 1, insecure: 1, 'broken,insecure': 1, ok: 0, broken: 0, slow: 0, 'redirect-offsite': 0 });
  });

  it('slow: a destination whose requests take more than 5 s in all is flagged, its status still ok', async () => {
    await withoutSeededLinks(fx.sandbox);
    await addLink(fx.sandbox, `${http.origin}/slow?ms=2600`, 'sluggish'); // HEAD and GET, 2.6 s each
    const r = await runMain(['check', '--json', '--fail-on', 'slow'], { env: env() });
    expect(r.code).toBe(1);
    expect(parse(r)).toEqual([expect.objectContaining({ alias: 'sluggish', status: 'ok', flags: ['insecure', 'slow'], code: 200 })]);
  }, 30_000);

  it('-q: the short URLs of what is broken, one a line, each once; with --fail-on, of what it matches', async () => {
    await withoutSeededLinks(fx.sandbox);
    await addLink(fx.sandbox, `${http.origin}/notfound`, 'gone');
    await addLink(fx.sandbox, `${http.origin}/ok`, 'fine');
    await addLink(fx.sandbox, `${http.origin}/fail`, 'down');
    const r = await runMain(['check', '-q'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').sort()).toEqual(['', `${fx.sandbox.url}/down`, `${fx.sandbox.url}/gone`]);
    expect(r.stderr).toBe(''); // no summary with -q
    const insecure = await runMain(['check', '-q', '--fail-on', 'insecure'], { env: env() });
    expect(insecure.code).toBe(1);
    expect(insecure.stdout.split('\n').sort()).toEqual(['', `${fx.sandbox.url}/down`, `${fx.sandbox.url}/fine`, `${fx.sandbox.url}/gone`]);
  });

  it('--problems-only: only what needs a look, in every format (a flag counts when --fail-on names it); the exit status is the same', async () => {
    await withoutSeededLinks(fx.sandbox);
    await addLink(fx.sandbox, `${http.origin}/notfound`, 'gone');
    await addLink(fx.sandbox, `${http.origin}/ok`, 'fine');
    await addLink(fx.sandbox, `${http.origin}/same`, 'moved');
    const all = await runMain(['check', '--json', '--fail-on', 'broken'], { env: env() });
    const problems = await runMain(['check', '--json', '--problems-only', '--fail-on', 'broken'], { env: env() });
    expect(parse(all).map((x) => x.alias).sort()).toEqual(['fine', 'gone', 'moved']);
    expect(parse(problems).map((x) => x.alias)).toEqual(['gone']);
    expect([all.code, problems.code]).toEqual([1, 1]);
    const flagged = await runMain(['check', '-o', 'ndjson', '--problems-only', '--fail-on', 'insecure'], { env: env() });
    expect(flagged.stdout.trim().split('\n').map((l) => (JSON.parse(l) as CheckRecord).alias).sort()).toEqual(['fine', 'gone', 'moved']);
  });

  it('on a terminal: a summary by status, then the problems, worst first, each with its destination whole; healthy ones only counted, --all lists them', async () => {
    await withoutSeededLinks(fx.sandbox);
    await addLink(fx.sandbox, `${http.origin}/notfound`, 'gone');
    // Its answer waits until the spinner has shown the progress (loading the spinner takes its time
    // on a loaded machine): the test decides when it comes, not a clock.
    await addLink(fx.sandbox, `${http.origin}/held`, 'plain');
    const r = await runMain(['check', '--no-color'], { env: env(), tty: true, onStderr: (stderr) => /checking destinations [0-2]\/2/.test(stderr) && http.release() });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toEqual([
      expect.stringMatching(/^Checked 2 destinations of 2 links in [\d.]+ s: 1 client-error, 1 ok; flags: 2 insecure\.$/),
      '  private addresses allowed by LINKCTL_CHECK_ALLOW_PRIVATE: 127.0.0.1',
      '',
      '  1  client-error  HTTP 4xx',
      '  1  ok            answers 2xx (to GET), no redirect',
      '  2  insecure      flag: plain http:// at some hop (the destination or a redirect)',
      '',
      '1 problem, the worst first:',
      '',
      `client-error  link 3 gone  ${fx.sandbox.url}/gone`,
      `  → ${http.origin}/notfound`,
      '    HTTP 404; flags: insecure',
      '',
      '1 healthy destination is not listed: --all lists them, --json gives every field.',
      '',
    ]);
    expect(r.stderr).toMatch(/checking destinations [0-2]\/2/); // the spinner's progress
    expect(r.stderr).not.toMatch(/^checked/m); // the summary is the view's
    const all = await runMain(['check', '--no-color', '--all'], { env: env(), tty: true });
    expect(all.stdout).toContain(`\nEvery destination, the worst first:\n\nclient-error  link 3 gone  ${fx.sandbox.url}/gone\n  → ${http.origin}/notfound\n    HTTP 404; flags: insecure\n\nok            link 4 plain  ${fx.sandbox.url}/plain\n  → ${http.origin}/held\n    HTTP 200; flags: insecure\n`);
  });

  it('private addresses are not requested by default: names that resolve to loopback, loopback, private, link-local, metadata and IPv4-mapped addresses are blocked, each said, none requested', async () => {
    await withoutSeededLinks(fx.sandbox);
    const P = http.port;
    const links: Array<[string, string, string]> = [
      ['shop', `http://shop.localhost:${P}/ok`, `shop.localhost resolves to 127.0.0.1, a loopback address; not requested`],
      ['localhost', `http://localhost:${P}/ok`, `localhost resolves to 127.0.0.1, a loopback address; not requested`],
      ['loopback', `http://127.0.0.1:${P}/ok`, '127.0.0.1 is a loopback address; not requested'],
      ['decimal', `http://2130706433:${P}/ok`, '127.0.0.1 is a loopback address; not requested'], // the URL standard reads it as 127.0.0.1
      ['ipv6', `http://[::1]:${P}/ok`, '::1 is a loopback address; not requested'],
      ['mapped', `http://[::ffff:127.0.0.1]:${P}/ok`, '::ffff:7f00:1 is a loopback address in IPv6 form; not requested'],
      ['unspecified', `http://0.0.0.0:${P}/ok`, '0.0.0.0 is an unspecified ("this network") address; not requested'],
      ['private', 'http://10.1.2.3/admin', '10.1.2.3 is a private address (RFC 1918); not requested'],
      ['home', 'http://192.168.1.1/', '192.168.1.1 is a private address (RFC 1918); not requested'],
      ['cgnat', 'http://100.64.0.1/', '100.64.0.1 is a carrier-grade NAT address (RFC 6598); not requested'],
      ['metadata', 'http://169.254.169.254/latest/meta-data/', '169.254.169.254 is a cloud metadata address; not requested'],
      ['metadata-v6', 'http://[fd00:ec2::254]/latest/meta-data/', 'fd00:ec2::254 is a cloud metadata address; not requested'],
      ['unique-local', 'http://[fd12:3456::1]/', 'fd12:3456::1 is a unique-local address; not requested'],
      ['link-local', 'http://[fe80::1]/', 'fe80::1 is a link-local address; not requested'],
    ];
    for (const [alias, url] of links) await addLink(fx.sandbox, url, alias);
    const before = http.seen.length;
    const { LINKCTL_CHECK_ALLOW_PRIVATE: _, ...noAllow } = env();
    const r = await runMain(['check', '--json', '--debug', '--fail-on', 'blocked'], { env: noAllow });
    expect(r.code).toBe(1);
    const records = byAlias(parse(r));
    expect(Object.fromEntries([...records].map(([alias, x]) => [alias, [x.status, x.error]]))).toEqual(Object.fromEntries(links.map(([alias, , error]) => [alias, ['blocked', error]])));
    expect(http.seen.length).toBe(before);
    expect(r.stderr).not.toMatch(/\[debug\] check: (HEAD|GET)/); // no request was even tried
    expect(r.stderr).toMatch(/^14 destinations blocked: a private, loopback or link-local address was not requested; --allow-private \[networks\] checks them$/m);
  });

  it('--allow-private with networks allows those only; without a value, every private address; LINKCTL_CHECK_ALLOW_PRIVATE likewise, a bad value naming it', async () => {
    await withoutSeededLinks(fx.sandbox);
    await addLink(fx.sandbox, `${http.origin}/ok`, 'here');
    await addLink(fx.sandbox, `http://[::ffff:127.0.0.1]:${http.port}/ok`, 'mapped');
    const { LINKCTL_CHECK_ALLOW_PRIVATE: _, ...noAllow } = env();
    const statuses = async (args: string[], extra: Record<string, string> = {}) => {
      const r = await runMain(['check', '--json', ...args], { env: { ...noAllow, ...extra } });
      return Object.fromEntries([...byAlias(parse(r))].map(([alias, x]) => [alias, x.status]));
    };
    expect(await statuses(['--allow-private', '10.0.0.0/8'])).toEqual({ here: 'blocked', mapped: 'blocked' });
    expect(await statuses(['--allow-private', '127.0.0.1/32'])).toEqual({ here: 'ok', mapped: 'ok' }); // the IPv4 address it carries is allowed
    expect(await statuses(['--allow-private'])).toEqual({ here: 'ok', mapped: 'ok' });
    expect(await statuses([], { LINKCTL_CHECK_ALLOW_PRIVATE: 'all' })).toEqual({ here: 'ok', mapped: 'ok' });
    expect(await statuses(['--allow-private', '10.0.0.0/8'], { LINKCTL_CHECK_ALLOW_PRIVATE: 'all' })).toEqual({ here: 'blocked', mapped: 'blocked' }); // the flag wins
    const before = fx.sandbox.requests.length;
    const bad = await runMain(['check', '--json'], { env: { ...noAllow, LINKCTL_CHECK_ALLOW_PRIVATE: 'intranet' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^linkctl: LINKCTL_CHECK_ALLOW_PRIVATE: "intranet" is not an IP address or a network \(address\/prefix\)\nhint: give `all`/);
    expect(fx.sandbox.requests.length).toBe(before);
  });

  it('a profile may allow private networks (checkAllowPrivate in config.json); auth login keeps it; a bad one is named (exit 7)', async () => {
    await withoutSeededLinks(fx.sandbox);
    await addLink(fx.sandbox, `${http.origin}/ok`, 'here');
    const configDir = tempDir();
    const { writeFileSync, readFileSync } = await import('node:fs');
    const config = (allow: unknown) => writeFileSync(join(configDir, 'config.json'), JSON.stringify({ defaultProfile: 'work', profiles: { work: { baseUrl: fx.sandbox.url, apiKey: fx.sandbox.key, checkAllowPrivate: allow } } }), { mode: 0o600 });
    config('127.0.0.0/8');
    const r = await runMain(['check', '--json'], { env: { LINKCTL_CONFIG_DIR: configDir } });
    expect(r.code, r.stderr).toBe(0);
    expect(parse(r)).toEqual([expect.objectContaining({ alias: 'here', status: 'ok' })]);
    expect(r.stderr).toMatch(/^private addresses allowed by checkAllowPrivate of profile "work": 127\.0\.0\.0\/8$/m);
    const login = await runMain(['auth', 'login', '--with-token', '--base-url', fx.sandbox.url, '--profile', 'work', '--insecure-storage'], { env: { LINKCTL_CONFIG_DIR: configDir }, stdin: `${fx.sandbox.key}\n` });
    expect(login.code, login.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles.work.checkAllowPrivate).toBe('127.0.0.0/8');
    config('intranet');
    const bad = await runMain(['check', '--json'], { env: { LINKCTL_CONFIG_DIR: configDir } });
    expect(bad.code).toBe(7);
    expect(bad.stderr).toMatch(/^linkctl: checkAllowPrivate of profile "work": "intranet" is not an IP address or a network/);
    config(true);
    const wrongType = await runMain(['check', '--json'], { env: { LINKCTL_CONFIG_DIR: configDir } });
    expect(wrongType.code).toBe(7);
    expect(wrongType.stderr).toMatch(/`profiles\.work\.checkAllowPrivate` must be "all" or networks separated by commas, not a boolean/);
  });

  it('saving the run fails (the database refuses the write): the results are printed all the same, it says they were not stored, exit 7', async () => {
    await withoutSeededLinks(fx.sandbox);
    await addLink(fx.sandbox, `${http.origin}/notfound`, 'gone');
    const db = join(tempDir(), 'history.db');
    const first = await runMain(['check', '--json', '--db', db], { env: env() });
    expect(first.code, first.stderr).toBe(0);
    const { openHistory } = await import('../../src/history/store.js');
    const history = await openHistory({ env: {} }, { db, write: true });
    // From now on every new run is refused by the database itself, as a full disk would.
    await history.db.exec("CREATE TRIGGER no_room BEFORE INSERT ON check_runs BEGIN SELECT RAISE(ABORT, 'no room left for this run'); END;");
    await history.close();
    for (const args of [['--json'], ['--json', '--since-last', '--fail-on', 'broken'], ['-q']]) {
      const r = await runMain(['check', ...args, '--db', db], { env: env() });
      expect(r.code, r.stderr).toBe(7);
      expect(r.stderr).toContain(`linkctl: the results of this check were not stored (${db}: no room left for this run); they are printed, not kept, and the next --since-last compares with an earlier check\n`);
      if (args[0] === '-q') expect(r.stdout).toBe(`${fx.sandbox.url}/gone\n`);
      else expect(parse(r)).toEqual(args.includes('--since-last') ? [] : [expect.objectContaining({ alias: 'gone', status: 'client-error' })]);
    }
    const again = await openHistory({ env: {} }, { db });
    try {
      expect(await again.db.all('SELECT count(*) FROM check_runs')).toEqual([[1]]);
    } finally {
      await again.close();
    }
  });

  it('--qr: the URL a QR code holds is read from its image and checked; codes holding text or wifi are not destinations', async () => {
    await withoutSeededLinks(fx.sandbox);
    await api(fx.sandbox, 'DELETE', 'qr/1/delete'); // its data is https://sandbox.localhost/menu
    const { id } = await api(fx.sandbox, 'POST', 'qr/add', { type: 'link', data: `${http.origin}/fail`, name: 'Poster' });
    const before = fx.sandbox.requests.length;
    const r = await runMain(['check', '--qr', '--json'], { env: env() });
    expect(r.code).toBe(0);
    expect(parse(r)).toEqual([expect.objectContaining({ link: null, qr: id, shorturl: expect.stringMatching(/\/qr\/\w+$/), destination: `${http.origin}/fail`, status: 'server-error', code: 500 })]);
    // the lists once, then one image a QR code (3 codes: ours, the seeded text and wifi codes), read
    // two at a time, and our link code's own short link (its image holds it), which counts no scan
    const paths = fx.sandbox.requests.slice(before).map((x) => x.path.replace(/^\/qr\/\w+$/, '/qr/IMAGE').replace(/^\/q\w+$/, '/SHORT'));
    expect(paths.slice(0, 4)).toEqual(['/api/account', '/api/urls', '/api/domains', '/api/qr']);
    expect(paths.slice(4).sort()).toEqual(['/SHORT', '/qr/IMAGE', '/qr/IMAGE', '/qr/IMAGE']);
    expect((await api(fx.sandbox, 'GET', `qr/${id}`)).details.scans).toBe(0);
    expect(r.stderr).toMatch(/checked 1 destination of 0 links and 3 QR codes/);
  });

  it('qr-unreadable: a code whose image holds no QR code is reported with the reason (and --fail-on matches it)', async ({ onTestFinished }) => {
    const { createServer } = await import('node:http');
    // A server of this API with no links and one QR code whose image is an empty SVG.
    const server = createServer((req, res) => {
      const list = (key: string, records: unknown[]) => JSON.stringify({ error: 0, data: { result: records.length, perpage: 1000, currentpage: 1, maxpage: 1, [key]: records } });
      const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const path = (req.url ?? '').split('?')[0];
      if (path === '/api/account') return void res.end(JSON.stringify({ error: 0, data: { id: 9, username: 'poster' } }));
      if (path === '/api/urls') return void res.end(list('urls', []));
      if (path === '/api/domains') return void res.end(list('domains', []));
      if (path === '/api/qr') return void res.end(list('qrs', [{ id: 5, link: `${origin}/images/5.svg`, scans: 0, name: 'Poster', date: '2025-01-01 00:00:00' }]));
      if (path === '/images/5.svg') return void res.writeHead(200, { 'Content-Type': 'image/svg+xml' }).end('<svg xmlns="http://www.w3.org/2000/svg"/>');
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const r = await runMain(['check', '--qr', '--json', '--fail-on', 'qr-unreadable'], { env: { LINKCTL_BASE_URL: base, LINKCTL_API_KEY: 'k-123456', LINKCTL_CONFIG_DIR: tempDir() } });
    expect(r.code).toBe(1);
    expect(parse(r)).toEqual([expect.objectContaining({
      link: null, qr: 5, shorturl: `${base}/images/5.svg`, destination: '', status: 'unchecked', error: 'the code could not be read',
      findings: [{ kind: 'qr-unreadable', detail: 'no QR code was found in the SVG image' }],
    })]);
  });

  it('runs are kept in the click-history database: history.db in the state folder by default; a file that is not one is an error naming it, left alone, nothing sent', async () => {
    const configDir = tempDir();
    const { mkdirSync, writeFileSync, readFileSync } = await import('node:fs');
    mkdirSync(join(configDir, 'state'), { recursive: true });
    const file = join(configDir, 'state', 'history.db');
    writeFileSync(file, 'not a database '.repeat(100));
    await withoutSeededLinks(fx.sandbox);
    const before = fx.sandbox.requests.length;
    const r = await runMain(['check', '--json'], { env: env(configDir) });
    expect(r.code).toBe(7);
    expect(fx.sandbox.requests.length).toBe(before); // said before anything is sent
    expect(r.stderr).toContain(`linkctl: ${file} is not a linkctl click-history database (not an SQLite file); nothing was written to it\n`);
    expect(readFileSync(file, 'utf8')).toBe('not a database '.repeat(100));
  });

  it('--db (or LINKCTL_DB): the file `stats` keeps its snapshots in; runs are kept per account with the snapshots\' sources, --since-last reads them back', async () => {
    await withoutSeededLinks(fx.sandbox);
    http.toggles.set('shared', 404);
    await addLink(fx.sandbox, `${http.origin}/toggle/shared`, 'shared');
    const db = join(tempDir(), 'team.db');
    const snapshot = await runMain(['stats', 'snapshot', '-q', '--db', db], { env: env() });
    expect(snapshot.code, snapshot.stderr).toBe(0);
    const first = await runMain(['check', '--since-last', '--json', '--db', db], { env: env() }); // another state folder: only the database is shared
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`no earlier check of this account in ${db}: every broken destination is new`);
    http.toggles.set('shared', 200);
    const second = await runMain(['check', '--since-last', '--json'], { env: { ...env(), LINKCTL_DB: db } });
    expect(second.code, second.stderr).toBe(0);
    expect(parse(second).map((x) => [x.alias, x.change, x.previous])).toEqual([['shared', 'fixed', 'client-error']]);

    const { openHistory } = await import('../../src/history/store.js');
    const history = await openHistory({ env: {} }, { db, write: true });
    try {
      // one source (the sandbox's account, as the snapshot found it), its snapshot and both runs
      expect(await history.db.all('SELECT id, base_url, account FROM sources')).toEqual([[1, fx.sandbox.url, '1']]);
      expect(await history.db.all('SELECT source_id, count(*) FROM check_runs GROUP BY source_id')).toEqual([[1, 2]]);
      expect(await history.db.all('SELECT count(*) FROM snapshots')).toEqual([[1]]);
      expect(await history.db.all('SELECT r.id, c.subject, c.status, c.code FROM check_results c JOIN check_runs r ON r.id = c.run_id ORDER BY r.id, c.seq')).toEqual([
        [1, 'link:3', 'client-error', 404],
        [2, 'link:3', 'ok', 200],
      ]);
    } finally {
      await history.close();
    }
  });
});

describe('runs stored by an earlier linkctl', () => {
  it('--since-last after an upgrade: a result stored as `insecure` (a status then, a flag now) is no change, nor is one broken then and now', async ({ onTestFinished }) => {
    const http = await startHttp();
    onTestFinished(() => http.close());
    await withoutSeededLinks(fx.sandbox);
    http.toggles.set('plain', 200).set('still', 404);
    for (const name of ['plain', 'still']) await addLink(fx.sandbox, `${http.origin}/toggle/${name}`, name);
    const env = { ...fx.env, LINKCTL_CONFIG_DIR: tempDir(), LINKCTL_CHECK_ALLOW_PRIVATE: '127.0.0.1' };
    const db = join(tempDir(), 'history.db');
    expect((await runMain(['check', '--json', '--db', db], { env })).code).toBe(0);
    const { openHistory } = await import('../../src/history/store.js');
    const history = await openHistory({ env: {} }, { db, write: true });
    // What the linkctl before flags stored for a plain-http destination answering 200.
    await history.db.run("UPDATE check_results SET status = 'insecure', flags = '[]' WHERE subject = 'link:3'");
    await history.close();
    const r = await runMain(['check', '--json', '--since-last', '--fail-on', 'broken', '--db', db], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(parse(r)).toEqual([]);
    expect(r.stderr).toMatch(/; 0 changes since the previous check; --fail-on matched 0$/m);
  });
});

describe.skipIf(pgSkipReason)(`check --since-last with the history in PostgreSQL${pgSkipReason ? ` (skipped: ${pgSkipReason})` : ''}`, () => {
  let cluster: Cluster | undefined;
  let http: Destinations | undefined;
  beforeAll(async () => {
    [cluster, http] = await Promise.all([startCluster(), startHttp()]);
  }, 120_000);
  afterAll(async () => {
    await http?.close();
    cluster?.stop();
  });

  it('the previous run is read from the database, whichever machine ran it; the runs are rows of linkctl.check_runs', async () => {
    await withoutSeededLinks(fx.sandbox);
    http!.toggles.set('pgone', 200).set('pgtwo', 500);
    for (const name of ['pgone', 'pgtwo']) await addLink(fx.sandbox, `${http!.origin}/toggle/${name}`, name);
    const db = cluster!.url;
    // Two state folders: two machines with one database.
    const laptop = { ...fx.env, LINKCTL_CONFIG_DIR: tempDir(), LINKCTL_CHECK_ALLOW_PRIVATE: '127.0.0.1' };
    const ci = { ...fx.env, LINKCTL_CONFIG_DIR: tempDir(), LINKCTL_CHECK_ALLOW_PRIVATE: '127.0.0.1' };
    const first = await runMain(['check', '--since-last', '--json', '--fail-on', 'broken', '--db', db], { env: laptop });
    expect(first.code, first.stderr).toBe(1);
    expect(parse(first).map((r) => [r.alias, r.change])).toEqual([['pgtwo', 'newly-broken']]);

    http!.toggles.set('pgone', 404).set('pgtwo', 200);
    const second = await runMain(['check', '--since-last', '--json', '--fail-on', 'broken'], { env: { ...ci, LINKCTL_DB: db } });
    expect(second.code, second.stderr).toBe(1);
    expect(parse(second).map((r) => [r.alias, r.status, r.change, r.previous]).sort()).toEqual([
      ['pgone', 'client-error', 'newly-broken', 'ok'],
      ['pgtwo', 'ok', 'fixed', 'server-error'],
    ]);
    const runs = await sql<{ account: string; runs: number; results: number }>(db,
      'SELECT s.account, count(DISTINCT r.id)::int AS runs, count(c.seq)::int AS results FROM linkctl.check_runs r JOIN linkctl.sources s ON s.id = r.source_id JOIN linkctl.check_results c ON c.run_id = r.id GROUP BY s.account');
    expect(runs).toEqual([{ account: '1', runs: 2, results: 4 }]);
  });

  it('a destination holding a NUL (a server gave it) is stored with U+FFFD in its place: PostgreSQL takes the run, nothing is lost', async () => {
    await withoutSeededLinks(fx.sandbox);
    await addLink(fx.sandbox, 'http://nul.invalid/a\u0000b', 'nul');
    const env = { ...fx.env, LINKCTL_CONFIG_DIR: tempDir() };
    const db = cluster!.url;
    const r = await runMain(['check', '--json', '--db', db], { env });
    expect(r.stderr).not.toMatch(/not stored/);
    expect(r.code, r.stderr).toBe(0);
    expect(parse(r).map((x) => [x.alias, x.status])).toEqual([['nul', 'dns']]);
    const stored = await sql<{ destination: string }>(db, "SELECT destination FROM linkctl.check_results WHERE destination LIKE 'http://nul.invalid/%'");
    expect(stored.map((s) => s.destination)).toEqual(['http://nul.invalid/a\ufffdb']);
  });

  // Last in this block: it stops the database server.
  it('PostgreSQL gone while destinations are checked: the results are printed all the same, it says they were not stored, exit 7', async () => {
    await withoutSeededLinks(fx.sandbox);
    await addLink(fx.sandbox, `${http!.origin}/notfound`, 'gone');
    await addLink(fx.sandbox, `${http!.origin}/slow?ms=1500&pg`, 'waiting');
    const env = { ...fx.env, LINKCTL_CONFIG_DIR: tempDir(), LINKCTL_CHECK_ALLOW_PRIVATE: '127.0.0.1' };
    const { url } = cluster!;
    const running = runCli(['check', '--json', '--db', url], { env, timeoutMs: 90_000 });
    // The database is opened before anything is sent; the server goes away while a destination keeps the check waiting.
    const waiting = Date.now();
    while (!http!.seen.some((x) => x.path === '/slow?ms=1500&pg')) {
      if (Date.now() - waiting > 60_000) throw new Error('the check never reached its slow destination');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    cluster!.stop();
    cluster = undefined; // stopped: afterAll has nothing left to stop
    const r = await running;
    expect(r.code, r.stderr).toBe(7);
    expect(parse(r).map((x) => [x.alias, x.status]).sort()).toEqual([['gone', 'client-error'], ['waiting', 'ok']]);
    expect(r.stderr).toMatch(/^linkctl: the results of this check were not stored \(.*postgres:\/\/linkctl@127\.0\.0\.1:\d+\/postgres.*\); they are printed, not kept, and the next --since-last compares with an earlier check$/m);
  }, 120_000);
});

describe('proxies: destinations go through HTTP_PROXY as API calls do; loopback and NO_PROXY hosts do not', () => {
  it('a non-loopback destination is asked of the proxy (which resolves its name), with the proxy\'s credentials and nothing else of the user\'s; a private address is not', async () => {
    const { createServer } = await import('node:http');
    const seen: Array<{ line: string; headers: Record<string, unknown> }> = [];
    // A forward proxy that answers every request itself (no upstream: nothing leaves this machine).
    const proxy = createServer((req, res) => {
      seen.push({ line: `${req.method} ${req.url}`, headers: { ...req.headers } });
      res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const port = (proxy.address() as { port: number }).port;
    try {
      await withoutSeededLinks(fx.sandbox);
      await addLink(fx.sandbox, 'http://shop.test/spring', 'proxied');
      await addLink(fx.sandbox, 'http://direct.invalid/page', 'direct');
      await addLink(fx.sandbox, 'http://10.20.30.40/admin', 'private');
      const r = await runMain(['check', '--json'], { env: { ...fx.env, LINKCTL_CONFIG_DIR: tempDir(), HTTP_PROXY: `http://user:pw@127.0.0.1:${port}`, NO_PROXY: 'direct.invalid' } });
      expect(r.code).toBe(0);
      const records = byAlias(parse(r));
      expect(records.get('proxied')).toMatchObject({ status: 'ok', flags: ['insecure'], code: 200 });
      expect(records.get('direct')).toMatchObject({ status: 'dns', error: 'direct.invalid does not resolve' }); // not sent to the proxy
      expect(records.get('private')).toMatchObject({ status: 'blocked', error: '10.20.30.40 is a private address (RFC 1918); not requested' });
      expect(seen.map((s) => s.line)).toEqual(['HEAD http://shop.test/spring', 'GET http://shop.test/spring']);
      expect(seen[0]!.headers['proxy-authorization']).toBe(`Basic ${Buffer.from('user:pw').toString('base64')}`);
      expect(seen[0]!.headers.authorization).toBeUndefined();
      expect(JSON.stringify(seen)).not.toContain(fx.sandbox.key);
      // the API (on loopback) was not proxied
      expect(fx.sandbox.requests.filter((x) => x.path === '/api/urls')).toHaveLength(1);
    } finally {
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    }
  });
});

describe('against `linkctl sandbox serve`, whose seeded links point at hosts this machine cannot reach', () => {
  it('finishes within its deadline and reports each link as unreachable, with the reason', async ({ onTestFinished }) => {
    const dir = tempDir();
    // The seed's links lead to the sandbox's own pages: moved under .invalid, hosts no resolver knows.
    const state = seedState();
    const own = 'https://sandbox.localhost/';
    for (const link of state.links) {
      link.longurl = link.longurl.replace(own, 'https://example.invalid/');
      for (const target of link.geotarget ?? []) target.link = target.link!.replace(own, 'https://example-ca.invalid/');
    }
    saveState(join(dir, 'state.json'), state);
    const child = spawn(process.execPath, [BIN, 'sandbox', 'serve', '--port', '0', '--state', join(dir, 'state.json')], { env: cleanEnv({ LINKCTL_CONFIG_DIR: dir }), stdio: ['ignore', 'pipe', 'pipe'] });
    onTestFinished(() => void child.kill('SIGKILL'));
    // It prints {"baseUrl", "key", ...} on its first line once it listens.
    const { baseUrl, key } = await new Promise<{ baseUrl: string; key: string }>((resolve, reject) => {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!));
      });
      child.on('close', () => reject(new Error(`sandbox serve exited: ${out}`)));
    });
    const started = Date.now();
    const r = await runCli(['check', '--details', '--json', '--deadline', '20s', '--timeout', '5', '--fail-on', 'broken'], { env: { LINKCTL_BASE_URL: baseUrl, LINKCTL_API_KEY: key, LINKCTL_CONFIG_DIR: dir }, timeoutMs: 50_000 });
    // Within the deadline, with room for a slow start and the history's write on a loaded machine.
    expect(Date.now() - started).toBeLessThan(40_000);
    expect(r.code).toBe(1);
    const records = parse(r);
    // docs, spring-sale and spring-sale's Canada target; DNS may fail at once or not answer at all
    expect(records.map((x) => [x.alias, x.target])).toEqual([['spring-sale', null], ['spring-sale', 'geo:canada'], ['docs', null]]);
    for (const record of records) {
      expect(['dns', 'timeout']).toContain(record.status);
      expect(record.error).toMatch(/does not resolve|could not be resolved|no answer/);
      expect(record.destination).toMatch(/\.invalid\//);
    }
  });
});
