/**
 * How a request travels, for the API client and for `linkctl check` alike: which hosts go
 * through the proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY), which are loopback, and how names
 * that DNS must never be asked about (RFC 6761) are answered. No import of undici here: it is
 * loaded by the caller, only when needed.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isLoopback } from './loopback.js';

type Env = Record<string, string | undefined>;
export type Undici = typeof import('undici');
export type Dispatcher = import('undici').Dispatcher;

export { isLoopback } from './loopback.js';

/** Whether a proxy variable is set: only then is undici loaded. */
export function proxyConfigured(env: Env): boolean {
  return Boolean(env.HTTPS_PROXY || env.https_proxy || env.HTTP_PROXY || env.http_proxy);
}

/**
 * Whether a request to `hostname` goes to the proxy agent (which still honours NO_PROXY).
 * Loopback is never proxied (as Go's proxy rules): a key would cross the proxy in plain text,
 * and the proxy could not reach the caller's own machine anyway.
 */
export function goesThroughProxy(hostname: string, env: Env): boolean {
  return !isLoopback(hostname) && proxyConfigured(env);
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * Whether NO_PROXY sends a request to `hostname` (and `port`) directly, read exactly as undici's
 * EnvHttpProxyAgent reads it (`*`, names and their subdomains, `.name`, `*.name`, `name:port`).
 * Without a port, an entry for any port counts: the caller then resolves and checks the name,
 * which is the safe side. A request sent directly is resolved here, and its addresses checked
 * (src/http/outbound.ts): only what the proxy itself resolves escapes that.
 */
export function noProxyCovers(hostname: string, port: number | undefined, env: Env): boolean {
  const value = env.no_proxy ?? env.NO_PROXY ?? '';
  const entries = value.split(/[,\s]/).filter(Boolean);
  if (entries.length === 0) return false;
  if (value === '*') return true;
  const host = hostname.toLowerCase();
  return entries.some((entry) => {
    const parsed = /^(.+):(\d+)$/.exec(entry);
    const name = (parsed ? parsed[1]! : entry).replace(/^\*?\./, '').toLowerCase();
    const entryPort = parsed ? Number.parseInt(parsed[2]!, 10) : 0;
    if (entryPort && port !== undefined && entryPort !== port) return false;
    return host === name || host.endsWith(`.${name}`);
  });
}

/**
 * Whether a request to a URL (or, without a port, possibly to some port of a host) really goes
 * to the proxy: a proxy is set, the host is not loopback, and NO_PROXY does not cover it.
 */
export function viaProxy(hostname: string, env: Env, url?: URL): boolean {
  const port = url ? Number.parseInt(url.port, 10) || DEFAULT_PORTS[url.protocol] || 0 : undefined;
  return goesThroughProxy(hostname, env) && !noProxyCovers(hostname, port, env);
}

/** The environment with NO_PROXY emptied: for an agent used only for requests `viaProxy` sends to the proxy. */
export const proxyOnly = (env: Env): Env => ({ ...env, NO_PROXY: '', no_proxy: '' });

/** `localhost` and `*.localhost` (RFC 6761 §6.3): loopback, without asking DNS. */
const isLocalhostName = (host: string) => host === 'localhost' || host.endsWith('.localhost');
/** `*.invalid` (RFC 6761 §6.4): never resolves, so DNS is never asked. */
const isInvalidName = (host: string) => host === 'invalid' || host.endsWith('.invalid');

type LookupCallback = (error: NodeJS.ErrnoException | null, address?: string | LookupAddress[], family?: number) => void;
export type Lookup = (hostname: string, options: { all?: boolean }, callback: LookupCallback) => void;

/**
 * A `lookup` for net.connect that answers the special-use names itself, as RFC 6761 asks of
 * resolver libraries: `*.localhost` is 127.0.0.1, `*.invalid` fails at once (ENOTFOUND). Other
 * names go to `fallback` (the system resolver by default).
 */
export function specialUseLookup(fallback: Lookup = dnsLookup as unknown as Lookup): Lookup {
  return (hostname, options, callback) => {
    const host = hostname.toLowerCase().replace(/\.$/, '');
    if (isLocalhostName(host)) return options?.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4);
    if (isInvalidName(host)) {
      const error: NodeJS.ErrnoException = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
      return process.nextTick(callback, error);
    }
    return fallback(hostname, options, callback);
  };
}

/**
 * Node's fetch ignores HTTPS_PROXY; undici's EnvHttpProxyAgent honours it and NO_PROXY. Loaded only
 * when a proxy is set, and configured from our environment (which tests replace), not process.env.
 * `agentOptions` go to the agents it makes (the direct one for NO_PROXY hosts included).
 */
export function proxyAgent(undici: Undici, env: Env, agentOptions: import('undici').Agent.Options = {}): Dispatcher {
  return new undici.EnvHttpProxyAgent({
    ...agentOptions,
    httpProxy: env.http_proxy || env.HTTP_PROXY || '',
    httpsProxy: env.https_proxy || env.HTTPS_PROXY || '',
    noProxy: env.no_proxy ?? env.NO_PROXY ?? '',
    // http:// targets go through the proxy as plain forward requests (as curl does), not CONNECT
    // tunnels, which many proxies allow only to port 443.
    proxyTunnel: false,
  });
}

/** Connects `*.localhost` names to 127.0.0.1 without asking DNS: for `*.localhost` base URLs. */
function loopbackAgent(undici: Undici): Dispatcher {
  return new undici.Agent({ connect: { lookup: specialUseLookup() } as never });
}

/**
 * The fetch for a host, or undefined for Node's own: the proxy agent when the host goes through
 * the proxy (`goesThroughProxy`), our own resolution for `*.localhost` and `*.invalid` (RFC 6761).
 */
export function fetchFor(hostname: string, env: Env): typeof fetch | undefined {
  if (isLoopback(hostname)) return hostname.toLowerCase().endsWith('.localhost') ? undiciFetch(loopbackAgent) : undefined;
  // Hosts NO_PROXY names are reached directly by the proxy agent: with the same special-use answers.
  if (goesThroughProxy(hostname, env)) return undiciFetch((undici) => proxyAgent(undici, env, { connect: { lookup: specialUseLookup() } as never }));
  // `*.invalid` never resolves (RFC 6761): it fails here as a failed lookup would, and no DNS server is asked.
  return isInvalidName(hostname.toLowerCase().replace(/\.$/, '')) ? notFound : undefined;
}

/** Node's fetch's failure for a name that does not resolve. */
const notFound: typeof fetch = async (input) => {
  const { hostname } = new URL(input instanceof Request ? input.url : String(input));
  const cause = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
  throw Object.assign(new TypeError('fetch failed'), { cause });
};

/** A fetch through undici with a dispatcher of our own, loaded on first use. */
export function undiciFetch(makeDispatcher: (undici: Undici) => Dispatcher): typeof fetch {
  let loaded: Promise<{ fetch: Undici['fetch']; dispatcher: Dispatcher }> | undefined;
  return async (input: string | URL | Request, init?: RequestInit) => {
    loaded ??= import('undici').then((undici) => ({ fetch: undici.fetch, dispatcher: makeDispatcher(undici) }));
    const { fetch: undiciFetch, dispatcher } = await loaded;
    // ky hands over a Request of Node's own fetch; undici's fetch is another copy, so pass plain values.
    const request = input instanceof Request ? input : new Request(input, init);
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.text();
    const response = await undiciFetch(request.url, {
      method: request.method,
      headers: Object.fromEntries(request.headers),
      body,
      redirect: 'manual',
      signal: request.signal,
      dispatcher,
    });
    return response as unknown as Response;
  };
}
