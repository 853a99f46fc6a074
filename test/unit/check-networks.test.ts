/**
 * `check`'s private-network rule (src/check/networks.ts) and its DNS pinning (src/check/probe.ts):
 * which addresses are refused, how --allow-private's networks are read, and that a connection
 * goes to the address that was checked even when the name resolves elsewhere a moment later
 * (DNS rebinding). The pinning test runs the checker in-process with a resolver of its own,
 * against servers on 127.0.0.1 and 127.0.0.2 that record what reaches them.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { isAllowed, parseAllowPrivate, parseNetworks, specialRange } from '../../src/http/networks.js';
import { Prober, type Probe } from '../../src/check/probe.js';
import type { Lookup } from '../../src/http/transport.js';

describe('special addresses', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.255.0.9', 'a loopback address'],
    ['::1', 'a loopback address'],
    ['[::1]', 'a loopback address'],
    ['0.0.0.0', 'an unspecified ("this network") address'],
    ['::', 'an unspecified address'],
    ['10.1.2.3', 'a private address (RFC 1918)'],
    ['172.16.0.1', 'a private address (RFC 1918)'],
    ['172.31.255.255', 'a private address (RFC 1918)'],
    ['192.168.0.1', 'a private address (RFC 1918)'],
    ['100.64.0.1', 'a carrier-grade NAT address (RFC 6598)'],
    ['169.254.1.1', 'a link-local address'],
    ['169.254.169.254', 'a cloud metadata address'],
    ['100.100.100.200', 'a cloud metadata address'],
    ['fd00:ec2::254', 'a cloud metadata address'],
    ['fc00::1', 'a unique-local address'],
    ['fdff:ffff::1', 'a unique-local address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['224.0.0.1', 'a multicast address'],
    ['ff02::1', 'a multicast address'],
    ['255.255.255.255', 'a reserved address'],
    ['::ffff:127.0.0.1', 'a loopback address in IPv6 form'],
    ['::ffff:7f00:1', 'a loopback address in IPv6 form'],
    ['::ffff:0:7f00:1', 'a loopback address in IPv6 form'], // IPv4-translated (RFC 2765)
    ['[::ffff:0:a00:1]', 'a private address (RFC 1918) in IPv6 form'],
    ['::ffff:10.0.0.1', 'a private address (RFC 1918) in IPv6 form'],
    ['::127.0.0.1', 'a loopback address in IPv6 form'],
    ['64:ff9b::a9fe:a9fe', 'a cloud metadata address in IPv6 form'],
    ['2002:c0a8:101::1', 'a private address (RFC 1918) in IPv6 form'],
  ])('%s is %s', (address, what) => {
    expect(specialRange(address)).toBe(what);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '192.169.0.1', '2606:4700::1111', '2a00:1450::1', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1', '::ffff:0:808:808'])('%s is an ordinary address', (address) => {
    expect(specialRange(address)).toBeUndefined();
  });

  it('an IPv4 address and its IPv4-mapped IPv6 form are judged alike', () => {
    fc.assert(fc.property(fc.ipV4(), (v4) => {
      const plain = specialRange(v4);
      expect(specialRange(`::ffff:${v4}`)).toBe(plain === undefined ? undefined : `${plain} in IPv6 form`);
    }), { numRuns: 2000 });
  });
});

describe('--allow-private networks', () => {
  it('addresses and networks, v4 and v6; an address is allowed when it (or the IPv4 address it carries) is in one', () => {
    const allow = parseNetworks('127.0.0.1, 10.0.0.0/8,fd00::/8');
    expect(allow.map((n) => n.text)).toEqual(['127.0.0.1', '10.0.0.0/8', 'fd00::/8']);
    expect(['127.0.0.1', '::ffff:127.0.0.1', '10.200.1.1', 'fd12::1'].map((a) => isAllowed(a, allow))).toEqual([true, true, true, true]);
    expect(['127.0.0.2', '::1', '192.168.1.1', 'fe80::1'].map((a) => isAllowed(a, allow))).toEqual([false, false, false, false]);
    expect(parseAllowPrivate(' ALL ')).toBe('all');
    expect(isAllowed('169.254.169.254', 'all')).toBe(true);
  });

  it.each([
    ['10.0.0.0/33', '"10.0.0.0/33" is not an IP address or a network (address/prefix)'],
    ['256.1.1.1', '"256.1.1.1" is not an IP address or a network (address/prefix)'],
    ['intranet', '"intranet" is not an IP address or a network (address/prefix)'],
    ['10.0.0.0/8/8', '"10.0.0.0/8/8" is not an IP address or a network (address/prefix)'],
    ['fd00::/129', '"fd00::/129" is not an IP address or a network (address/prefix)'],
    [' , ', 'needs at least one network'],
  ])('%j is refused: %s', (raw, message) => {
    expect(() => parseNetworks(raw)).toThrow(message);
  });
});

describe('DNS pinning: the connection goes to the address that was checked', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  });

  /** A server on `address` recording request lines; `Connection: close` so that every request needs a new connection (and a lookup). */
  async function serve(address: string, port = 0): Promise<{ port: number; seen: string[] }> {
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (req.url === '/hop') return void res.writeHead(302, { Location: '/ok', Connection: 'close' }).end();
      res.writeHead(200, { Connection: 'close' }).end('fine');
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(port, address, resolve));
    return { port: (server.address() as AddressInfo).port, seen };
  }

  /** A resolver that answers `first` once, then `later`: a name rebound between the check and the connection. */
  function rebinding(first: string, later: string): { lookup: Lookup; asked: () => number } {
    let asked = 0;
    const lookup: Lookup = (_hostname, options, callback) => {
      const address = asked++ === 0 ? first : later;
      if (options?.all) callback(null, [{ address, family: 4 }]);
      else callback(null, address, 4);
    };
    return { lookup, asked: () => asked };
  }

  async function checkAll(urls: string[], lookup: Lookup): Promise<Map<string, Probe>> {
    const controller = new AbortController();
    const prober = new Prober({
      env: {}, timeoutMs: 10_000, userAgent: 'linkctl/test', signal: controller.signal, deadline: () => false,
      concurrency: 4, perHost: 2, allowPrivate: parseNetworks('127.0.0.1'), lookup,
    });
    const probes = new Map<string, Probe>();
    try {
      await prober.checkAll(urls, (url, probe) => probes.set(url, probe));
    } finally {
      await prober.close();
    }
    return probes;
  }

  it('a name checked as 127.0.0.1 (allowed) that then resolves to 127.0.0.2: every request, redirects included, goes to 127.0.0.1; the resolver is asked once', async () => {
    const allowed = await serve('127.0.0.1');
    const internal = await serve('127.0.0.2', allowed.port); // the same port on the address the name is rebound to
    const { lookup, asked } = rebinding('127.0.0.1', '127.0.0.2');
    // .invalid: the system resolver would fail it, so a connection that skipped the run's resolutions would fail too
    const urls = ['/ok', '/hop', '/ok?again'].map((path) => `http://rebind.invalid:${allowed.port}${path}`);
    const probes = await checkAll(urls, lookup);
    expect(urls.map((u) => probes.get(u)?.status)).toEqual(['ok', 'redirect', 'ok']);
    expect(internal.seen).toEqual([]);
    expect(allowed.seen.sort()).toEqual(['GET /ok', 'GET /ok', 'GET /ok?again', 'HEAD /hop', 'HEAD /ok', 'HEAD /ok', 'HEAD /ok?again']);
    expect(asked()).toBe(1);
  });

  it('a name checked as 127.0.0.2 (not allowed) that would then resolve to 127.0.0.1: blocked, nothing requested', async () => {
    const allowed = await serve('127.0.0.1');
    const internal = await serve('127.0.0.2', allowed.port);
    const { lookup } = rebinding('127.0.0.2', '127.0.0.1');
    const url = `http://rebind.invalid:${allowed.port}/ok`;
    const probes = await checkAll([url, `${url}?again`], lookup);
    expect(probes.get(url)).toMatchObject({ status: 'blocked', error: 'rebind.invalid resolves to 127.0.0.2, a loopback address; not requested', chain: [{ url, code: null }] });
    expect(probes.get(`${url}?again`)?.status).toBe('blocked');
    expect([...allowed.seen, ...internal.seen]).toEqual([]);
  });
});

describe('a resolver that does not answer', () => {
  const silent: Lookup = () => undefined; // never calls back

  it('is a dns failure after --timeout, naming the host; the run does not wait for it', async () => {
    const controller = new AbortController();
    const prober = new Prober({ env: {}, timeoutMs: 300, userAgent: 'linkctl/test', signal: controller.signal, deadline: () => false, concurrency: 2, perHost: 2, lookup: silent });
    const probes = new Map<string, Probe>();
    try {
      await prober.checkAll(['http://quiet.invalid/a', 'http://quiet.invalid/b'], (url, probe) => probes.set(url, probe));
    } finally {
      await prober.close();
    }
    for (const url of ['http://quiet.invalid/a', 'http://quiet.invalid/b']) {
      expect(probes.get(url)).toMatchObject({ status: 'dns', error: 'quiet.invalid could not be resolved (no answer from DNS)', chain: [{ url, code: null }] });
    }
  });

  it('at the run\'s deadline: its destinations are unchecked, and the run ends', async () => {
    const controller = new AbortController();
    let deadlinePassed = false;
    const prober = new Prober({ env: {}, timeoutMs: 60_000, userAgent: 'linkctl/test', signal: controller.signal, deadline: () => deadlinePassed, concurrency: 2, perHost: 2, lookup: silent });
    const probes = new Map<string, Probe>();
    setTimeout(() => {
      deadlinePassed = true;
      controller.abort();
    }, 200);
    try {
      await prober.checkAll(['http://quiet.invalid/a'], (url, probe) => probes.set(url, probe));
    } finally {
      await prober.close();
    }
    // never resolved, so never requested
    expect(probes.get('http://quiet.invalid/a')).toMatchObject({ status: 'unchecked', error: "not requested: the run's deadline (--deadline) passed first" });
  });
});
