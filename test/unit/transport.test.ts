/** RFC 6761's special-use names, answered without asking a DNS server (src/http/transport.ts). */
import dns from 'node:dns';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { fetchFor, specialUseLookup } from '../../src/http/transport.js';

describe('special-use names', () => {
  // Names the system resolver is asked for (net.connect's default lookup is dns.lookup).
  const systemLookup = dns.lookup;
  const asked: string[] = [];
  dns.lookup = ((hostname: string, ...rest: unknown[]) => {
    asked.push(hostname);
    return (systemLookup as (...args: unknown[]) => unknown)(hostname, ...rest);
  }) as typeof dns.lookup;
  afterEach(() => void (asked.length = 0));
  afterAll(() => void (dns.lookup = systemLookup));
  it('a fetch to a *.invalid host fails as an unresolvable name would, without the system resolver', async () => {
    const fetch = fetchFor('shop.invalid', {});
    expect(fetch).toBeDefined();
    const failed = await fetch!('https://shop.invalid/page').catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(TypeError);
    expect((failed as { cause: { code: string; hostname: string } }).cause).toMatchObject({ code: 'ENOTFOUND', hostname: 'shop.invalid' });
    // A name in capitals or with the root's dot is the same name.
    expect(fetchFor('SHOP.INVALID.', {})).toBeDefined();
    // Other names go to Node's own fetch (and its resolver); through a proxy, the proxy resolves them.
    expect(fetchFor('shop.example', {})).toBeUndefined();
    const proxied = await fetchFor('shop.invalid', { HTTPS_PROXY: 'http://127.0.0.1:9' })!('https://shop.invalid/page').catch((error: unknown) => error);
    expect((proxied as { cause?: { code?: string } }).cause?.code).toBe('ECONNREFUSED'); // the proxy was tried: nothing listens on port 9
    // A host NO_PROXY names is reached directly, with the same answer for *.invalid.
    const direct = await fetchFor('shop.invalid', { HTTPS_PROXY: 'http://127.0.0.1:9', NO_PROXY: 'shop.invalid' })!('https://shop.invalid/page').catch((error: unknown) => error);
    expect((direct as { cause?: { code?: string } }).cause?.code).toBe('ENOTFOUND');
    expect(asked).toEqual([]);
  });

  it('the lookup given to sockets answers *.localhost with 127.0.0.1 and *.invalid with ENOTFOUND, and passes other names on', async () => {
    const asked: string[] = [];
    const lookup = specialUseLookup((hostname, _options, callback) => {
      asked.push(hostname);
      callback(null, '192.0.2.1', 4);
    });
    const resolve = (name: string) => new Promise<unknown>((done) => lookup(name, {}, (error, address) => done(error ? (error as NodeJS.ErrnoException).code : address)));
    expect(await resolve('shop.localhost')).toBe('127.0.0.1');
    expect(await resolve('shop.invalid')).toBe('ENOTFOUND');
    expect(await resolve('shop.example')).toBe('192.0.2.1');
    expect(asked).toEqual(['shop.example']);
  });
});
