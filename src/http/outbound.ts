/**
 * The network guard for every request linkctl sends that is not an API call to the configured
 * server: a QR code's image on another origin (`qr get`, `qr update`, `qr download`, `export`,
 * `check --qr`, MCP `check`). A server names such a URL, so it must not become a way to reach the
 * networks behind the machine linkctl runs on: the host is resolved and every address checked
 * against the one network guard's rules (src/http/networks.ts) before connecting, and the
 * connection goes to the addresses that were checked (a name that resolves elsewhere a second
 * later is not asked again). A name NO_PROXY sends directly is resolved and checked like any
 * other; a name sent to the proxy is resolved by the proxy (as in `check`), an address never is.
 *
 * The configured server's own origin is not guarded: the user chose it, and its key goes there.
 */
import type { LookupAddress } from 'node:dns';
import { NetworkError } from '../errors.js';
import { addressBytes, blockedAmong, type AllowPrivate } from './networks.js';
import { proxyAgent, proxyOnly, specialUseLookup, undiciFetch, viaProxy, type Lookup } from './transport.js';

type Env = Record<string, string | undefined>;

/** What `check` says of a private destination, and how a user who trusts it lets it through. */
export const OUTBOUND_HINT = 'linkctl requests no private, loopback or link-local address a server names; if you trust it, allow its network with LINKCTL_CHECK_ALLOW_PRIVATE (e.g. 10.0.0.0/8) or the profile setting checkAllowPrivate';

/** A fetch whose connections go only where the guard allows, and its release (its connections closed). */
export interface GuardedFetch {
  fetch: typeof fetch;
  close(): Promise<void>;
}

/**
 * Resolves and checks `url`'s host, then gives the fetch to send it with: through the proxy when
 * the request goes there, else directly to the checked addresses. Throws a NetworkError naming
 * the address and its range when one is not allowed: nothing is sent then.
 */
export async function guardedFetch(url: URL, env: Env, allow: AllowPrivate, lookup: Lookup = specialUseLookup()): Promise<GuardedFetch> {
  const hostname = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const literal = addressBytes(hostname) !== undefined;
  let dispatcher: import('undici').Dispatcher | undefined;
  const make = (build: (undici: typeof import('undici')) => import('undici').Dispatcher) => (undici: typeof import('undici')) => (dispatcher = build(undici));
  if (viaProxy(hostname, env, url) && !literal) {
    return closing(undiciFetch(make((undici) => proxyAgent(undici, proxyOnly(env)))), () => dispatcher);
  }
  let addresses: LookupAddress[];
  if (literal) addresses = [{ address: hostname, family: hostname.includes(':') ? 6 : 4 }];
  else {
    addresses = await new Promise<LookupAddress[]>((resolve, reject) =>
      lookup(hostname, { all: true }, (error, found) => (error ? reject(new NetworkError(`GET ${url.href}: ${hostname} does not resolve (${error.code ?? error.message})`)) : resolve(found as LookupAddress[]))),
    );
  }
  const blocked = blockedAmong(hostname, addresses, allow);
  if (blocked) {
    const where = blocked.host === blocked.address ? `${blocked.address} is` : `${blocked.host} resolves to ${blocked.address},`;
    throw new NetworkError(`${url.href}: ${where} ${blocked.what}; not requested`, OUTBOUND_HINT);
  }
  if (viaProxy(hostname, env, url)) return closing(undiciFetch(make((undici) => proxyAgent(undici, proxyOnly(env)))), () => dispatcher);
  // The connection's lookup answers with the addresses just checked, and nothing else.
  const pinned: Lookup = (_name, options, callback) => (options?.all ? callback(null, addresses) : callback(null, addresses[0]!.address, addresses[0]!.family));
  return closing(undiciFetch(make((undici) => new undici.Agent({ connect: { lookup: pinned } as never }))), () => dispatcher);
}

function closing(fetch: typeof globalThis.fetch, dispatcher: () => import('undici').Dispatcher | undefined): GuardedFetch {
  return { fetch, close: async () => void (await dispatcher()?.destroy().catch(() => undefined)) };
}
