/**
 * The destination checker. For each destination and each redirect hop: the host's addresses are
 * resolved (once a run) and checked against the private-network rule (./networks.ts), then HEAD
 * is sent; a redirect is followed by hand (up to MAX_REDIRECTS, every hop recorded), any other
 * answer is confirmed with a GET, whose answer decides (servers that answer HEAD alone wrongly,
 * or differently, are judged by what a browser gets). The connection goes to the address that
 * was checked: the agent's `lookup` answers from the run's resolutions, so a name that resolves
 * elsewhere a second later (DNS rebinding) is not asked again.
 *
 * Polite and bounded: a global concurrency limit, at most `perHost` requests at a time to one
 * address (however many names point at it), a timeout per request, the run's deadline as a
 * signal. Nothing of the user's goes to a destination: no API key, no cookie, no credentials
 * from the URL; only a `linkctl/<version>` User-Agent. Proxies as for the API (transport.ts).
 */
import type { LookupAddress } from 'node:dns';
import { InterruptedError } from '../errors.js';
import { proxyAgent, proxyConfigured, proxyOnly, specialUseLookup, viaProxy, type Dispatcher, type Lookup, type Undici } from '../http/transport.js';
import { addressBytes, blockedAmong, type AllowPrivate } from '../http/networks.js';
import { SLOW_MS, type Flag, type Status } from './statuses.js';

export const MAX_REDIRECTS = 10;
/** The most of a GET body read (and thrown away) before the connection is closed instead. */
const BODY_CAP_BYTES = 64 * 1024;

/**
 * Ports that browsers (and fetch) refuse to connect to (the Fetch standard's "bad ports"): a
 * link to one cannot be opened by the people it is for, so it is not requested either.
 */
export const BAD_PORTS: ReadonlySet<number> = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137,
  139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723,
  2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

export interface Hop {
  url: string;
  /** The HTTP status of this hop; null when it got none. */
  code: number | null;
}

export interface Probe {
  status: Status;
  /** What else is true of the destination (plain http at some hop, slow). */
  flags: Flag[];
  /** The final HTTP status, or null. */
  code: number | null;
  /** Every hop of the check, the first one included (a hop's HEAD and GET are one hop). */
  chain: Hop[];
  /** Why, for every status but ok, redirect and redirect-offsite. */
  error: string | null;
  checkedAt: string;
}

export interface ProbeOptions {
  env: Record<string, string | undefined>;
  timeoutMs: number;
  userAgent: string;
  /** Aborted when the run's deadline passes (`deadline` true) or on Ctrl-C. */
  signal: AbortSignal;
  deadline: () => boolean;
  concurrency: number;
  perHost: number;
  /** Private addresses that may be requested: none by default (`--allow-private`). */
  allowPrivate?: AllowPrivate;
  /**
   * One origin that may be requested even on a loopback address: the built-in sandbox's own, whose
   * seeded links lead to pages it serves. Only that scheme, host and port; other loopback stays blocked.
   */
  allowOrigin?: string;
  /**
   * Origins requested under another address: the sandbox's pages are named under fixed origins
   * (sandbox/own-origin.ts) and requested under the sandbox's current address (`to`, an origin and
   * a path), which `allowOrigin` allows.
   */
  aliasOrigin?: { from: readonly string[]; to: string };
  /** How names are resolved (tests); the system resolver, RFC 6761 names answered first, by default. */
  lookup?: Lookup;
  /** Called after each request (for tests and --debug): method, URL, status or error. */
  trace?: (line: string) => void;
}

/** `host` of a URL without IPv6 brackets, lower case. */
const hostnameOf = (url: URL) => url.hostname.toLowerCase().replace(/^\[|\]$/g, '');

const DEFAULT_PORT: Record<string, string> = { 'http:': '80', 'https:': '443' };
const portOf = (url: URL) => url.port || DEFAULT_PORT[url.protocol] || '';

/**
 * The same site: the same host ("www." aside) and port. Another scheme on the same host is
 * another origin, except http and https on their default ports: that move is the usual upgrade
 * (plain http shows as the `insecure` flag), not another site.
 */
export function sameSite(a: URL, b: URL): boolean {
  const bare = (u: URL) => hostnameOf(u).replace(/^www\./, '');
  if (bare(a) !== bare(b)) return false;
  if (a.protocol === b.protocol) return portOf(a) === portOf(b);
  return a.port === '' && b.port === '';
}

/** Slots per key (an address): a request waits for one of `limit` slots of its key. */
class Slots {
  private readonly active = new Map<string, number>();
  private readonly waiting = new Map<string, Array<() => void>>();
  constructor(private readonly limit: number, private readonly onRelease: () => void) {}

  tryAcquire(key: string): boolean {
    const n = this.active.get(key) ?? 0;
    if (n >= this.limit) return false;
    this.active.set(key, n + 1);
    return true;
  }

  async acquire(key: string): Promise<void> {
    if (this.tryAcquire(key)) return;
    await new Promise<void>((resolve) => {
      const queue = this.waiting.get(key) ?? [];
      queue.push(resolve);
      this.waiting.set(key, queue);
    });
  }

  release(key: string): void {
    const next = this.waiting.get(key)?.shift();
    if (next) return next(); // the slot passes straight to a waiter
    const n = (this.active.get(key) ?? 1) - 1;
    if (n <= 0) this.active.delete(key);
    else this.active.set(key, n);
    this.onRelease();
  }
}

/** What ended a request that got no HTTP answer, the host named in every message. */
function failureOf(error: unknown, timedOut: boolean, host: string, options: ProbeOptions): { status: Status; error: string } {
  if (timedOut) return { status: 'timeout', error: `no answer from ${host} within ${options.timeoutMs / 1000} s (--timeout)` };
  if (options.deadline()) return { status: 'timeout', error: `no answer from ${host} before the run's deadline (--deadline)` };
  const code = errorCode(error);
  const message = errorMessage(error);
  if (code === 'ENOTFOUND' || code === 'EAI_NONAME' || code === 'EAI_NODATA' || code === 'EAI_FAIL') return { status: 'dns', error: `${host} does not resolve` };
  if (code === 'EAI_AGAIN') return { status: 'dns', error: `${host} could not be resolved (no answer from DNS)` };
  if (code === 'ECONNREFUSED') return { status: 'refused', error: `${host} refused the connection` };
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'ETIMEDOUT') {
    return { status: 'timeout', error: `no answer from ${host} in time (${code})` };
  }
  if (code && (/^ERR_(SSL|TLS)_/.test(code) || /CERT|SELF_SIGNED|UNABLE_TO_(VERIFY|GET)|HOSTNAME_MISMATCH/.test(code))) {
    return { status: 'tls', error: `${host}: ${TLS_REASONS[code] ?? message} (${code})` };
  }
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || /other side closed|socket hang up/i.test(message)) {
    return { status: 'error', error: `${host} closed the connection before an answer` };
  }
  return { status: 'error', error: `${host}: ${code ? `${message} (${code})` : message}` };
}

/** Node's TLS codes in words a person reads. */
const TLS_REASONS: Record<string, string> = {
  CERT_HAS_EXPIRED: 'the certificate has expired',
  CERT_NOT_YET_VALID: 'the certificate is not valid yet',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'a self-signed certificate is in the chain',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the certificate is not signed by a known authority (or the chain is incomplete)',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'the certificate is not signed by a known authority',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the certificate is for another host name',
  CERT_REVOKED: 'the certificate was revoked',
  ERR_SSL_WRONG_VERSION_NUMBER: 'the server does not speak TLS on this port (plain http?)',
};

function errorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

function errorMessage(error: unknown): string {
  const cause = (error as { cause?: { message?: string } })?.cause?.message;
  const message = cause || (error as Error)?.message || String(error);
  return message.replace(/\s+/g, ' ').trim().slice(0, 300); // one line, whatever the library wrote
}

/** The outcome of a chain that got an HTTP answer at its end. */
function classifyAnswer(destination: URL, final: URL, code: number, redirected: boolean): { status: Status; error: string | null } {
  if (code >= 400 && code < 500) return { status: 'client-error', error: `HTTP ${code}` };
  if (code >= 500 && code < 600) return { status: 'server-error', error: `HTTP ${code}` };
  if (code < 200 || code >= 300) return { status: 'error', error: `HTTP ${code}${code >= 300 && code < 400 ? ' without a Location to follow' : ''}` };
  if (redirected && !sameSite(destination, final)) return { status: 'redirect-offsite', error: null };
  return { status: redirected ? 'redirect' : 'ok', error: null };
}

/**
 * Where a host may be reached: the key of its politeness slots (its first address; the name
 * itself when a proxy resolves it), or why it is not requested at all.
 */
type Route = { key: string } | { status: Status; error: string } | { blocked: { host: string; address: string; what: string } };

export class Prober {
  private undici?: Undici;
  private direct?: Dispatcher;
  private proxied?: Dispatcher;
  private readonly slots: Slots;
  private readonly resolver: Resolver;
  private readonly routes = new Map<string, Promise<Route>>();
  /** Requests in flight: the run's signal aborts them through one listener (not one listener a request). */
  private readonly inFlight = new Set<AbortController>();
  private readonly abortAll = () => {
    for (const controller of this.inFlight) controller.abort();
  };
  private wake: () => void = () => undefined;

  constructor(private readonly options: ProbeOptions) {
    this.slots = new Slots(options.perHost, () => this.wake());
    this.resolver = new Resolver(options.lookup ?? specialUseLookup());
    options.signal.addEventListener('abort', this.abortAll, { once: true });
  }

  /**
   * Loads undici and makes the agents, once, before the first request: loading is not the
   * destinations' time (on a loaded machine it can take seconds), so no request's timer runs meanwhile.
   */
  private async ready(): Promise<void> {
    if (this.undici) return;
    const undici = await import('undici');
    if (this.undici) return;
    // Connections go to the addresses the run resolved and checked: the lookup answers from them.
    const agentOptions = { connect: { lookup: this.resolver.connectLookup, timeout: this.options.timeoutMs } as never, headersTimeout: 0, bodyTimeout: 0 };
    this.direct = new undici.Agent(agentOptions);
    // The proxied agent sends everything to the proxy: which requests go there is decided here
    // (`viaProxy`), by the same reading of NO_PROXY as the route's check, not again by the agent.
    this.proxied = proxyConfigured(this.options.env) ? proxyAgent(undici, proxyOnly(this.options.env), agentOptions) : this.direct;
    this.undici = undici;
  }

  private dispatcherFor(url: URL): Dispatcher {
    return viaProxy(hostnameOf(url), this.options.env, url) ? this.proxied! : this.direct!;
  }

  /** The route to a host name, resolved and checked once a run. */
  private route(hostname: string): Promise<Route> {
    let route = this.routes.get(hostname);
    if (!route) {
      route = this.findRoute(hostname);
      this.routes.set(hostname, route);
    }
    return route;
  }

  private async findRoute(hostname: string): Promise<Route> {
    const allow = this.options.allowPrivate ?? [];
    const literal = addressBytes(hostname) !== undefined;
    // Through a proxy, the proxy resolves names (and its rules decide where it connects); an address is still checked here.
    // A name NO_PROXY covers is sent directly: it is resolved and checked like any other.
    if (!literal && viaProxy(hostname, this.options.env)) return { key: hostname };
    let addresses: LookupAddress[];
    try {
      addresses = literal ? [{ address: hostname, family: hostname.includes(':') ? 6 : 4 }] : await this.resolveWithin(hostname);
    } catch (error) {
      return failureOf(error, false, hostname, this.options);
    }
    if (addresses.length === 0) return { status: 'dns', error: `${hostname} does not resolve` };
    // Every address of the name is checked: the connection may go to any of them.
    const blocked = blockedAmong(hostname, addresses, allow);
    return blocked ? { blocked } : { key: addresses[0]!.address };
  }

  /**
   * The addresses of a name, within --timeout and the run: a resolver that does not answer is
   * a `dns` failure after --timeout (or a `timeout` at the deadline), not a run that waits for it.
   */
  private resolveWithin(hostname: string): Promise<LookupAddress[]> {
    return new Promise((resolve, reject) => {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), this.options.timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.inFlight.delete(controller);
      };
      controller.signal.addEventListener('abort', () => {
        done();
        reject(Object.assign(new Error(`no answer from DNS for ${hostname}`), { code: 'EAI_AGAIN' }));
      }, { once: true });
      this.inFlight.add(controller);
      if (this.options.signal.aborted) controller.abort();
      this.resolver.resolve(hostname).then(
        (found) => (done(), resolve(found)),
        (error: unknown) => (done(), reject(error)),
      );
    });
  }

  /**
   * Checks every URL, each once, within the limits; `done` is called as each finishes (in the
   * order they finish). URLs are taken host by host in turn, so one big host never holds every
   * slot while others wait; a host's slots are those of its address, known once it is resolved
   * (resolutions run beside the requests, at most `concurrency` at a time).
   */
  async checkAll(urls: readonly string[], done: (url: string, probe: Probe) => void): Promise<void> {
    await this.ready();
    const byHost = new Map<string, string[]>();
    for (const raw of urls) {
      const key = hostOf(raw);
      const queue = byHost.get(key);
      if (queue) queue.push(raw);
      else byHost.set(key, [raw]);
    }
    const hosts = [...byHost.keys()];
    /** A host's slot key once its route is known; null when its URLs send no request (not http, blocked, no address). */
    const keys = new Map<string, string | null>();
    const resolving = new Set<string>();
    let turn = 0;
    let active = 0;
    let remaining = urls.length;
    let failed: unknown;
    await new Promise<void>((resolve) => {
      const fill = () => {
        // Ctrl-C (an abort that is not the deadline) ends the run; what is in flight stops too.
        if (this.options.signal.aborted && !this.options.deadline()) failed ??= new InterruptedError();
        if (failed !== undefined || remaining === 0) return resolve();
        // Round robin over hosts with work left and a free slot.
        for (let looked = 0; active < this.options.concurrency && looked < hosts.length && hosts.length > 0; ) {
          turn %= hosts.length;
          const host = hosts[turn]!;
          const queue = byHost.get(host)!;
          if (this.options.signal.aborted) {
            // The deadline passed: what was not started is reported unchecked, at once.
            for (const raw of queue.splice(0)) (remaining--, done(raw, unchecked('not requested: the run\'s deadline (--deadline) passed first')));
          } else if (!hostIsSpecial(host) && !keys.has(host)) {
            // Not resolved yet: resolve it beside the requests, and come back when it is.
            if (!resolving.has(host) && resolving.size < this.options.concurrency) {
              resolving.add(host);
              void this.route(host).then((route) => {
                resolving.delete(host);
                keys.set(host, 'key' in route ? route.key : null);
                fill();
              });
            }
            looked++;
            turn++;
            continue;
          } else {
            const key = hostIsSpecial(host) ? null : keys.get(host)!;
            if (key !== null && !this.slots.tryAcquire(key)) {
              looked++;
              turn++;
              continue;
            }
            const raw = queue.shift()!;
            active++;
            looked = 0;
            this.check(raw, key ?? undefined).then(
              (probe) => {
                active--;
                remaining--;
                done(raw, probe);
                fill();
              },
              (error: unknown) => {
                active--;
                failed ??= error;
                fill();
              },
            );
          }
          if (queue.length === 0) {
            hosts.splice(turn, 1);
            byHost.delete(host);
          } else turn++;
        }
        if (remaining === 0) resolve();
      };
      this.wake = fill;
      this.options.signal.addEventListener('abort', fill, { once: true });
      fill();
    });
    this.wake = () => undefined;
    if (failed !== undefined) throw failed;
  }

  /** One destination, its first request already holding a slot of `heldKey` (when checkAll took one). */
  async check(raw: string, heldKey?: string): Promise<Probe> {
    await this.ready();
    let held = heldKey;
    const release = () => {
      if (held !== undefined) this.slots.release(held);
      held = undefined;
    };
    let destination: URL;
    try {
      destination = new URL(raw);
    } catch {
      release();
      return { status: 'error', flags: [], code: null, chain: [], error: 'not a URL', checkedAt: now() };
    }
    if (destination.protocol !== 'http:' && destination.protocol !== 'https:') {
      release();
      return unchecked(`not requested: linkctl checks http and https destinations, not ${destination.protocol}`);
    }
    const chain: Hop[] = [];
    const seen = new Set<string>();
    let url = withoutCredentials(destination);
    let requestMs = 0;
    const result = (status: Status, code: number | null, error: string | null): Probe => {
      const flags: Flag[] = [];
      // the sandbox's own pages are plain http by nature (a local demo), not a finding
      if (chain.some((hop) => hop.url.startsWith('http:') && new URL(hop.url).origin !== this.options.allowOrigin)) flags.push('insecure');
      if (requestMs > SLOW_MS && status !== 'timeout') flags.push('slow');
      return { status, flags, code, chain, error, checkedAt: now() };
    };
    for (;;) {
      const alias = this.options.aliasOrigin;
      if (alias?.from.includes(url.origin)) url = new URL(`${alias.to}${url.pathname}${url.search}`);
      seen.add(url.href);
      const port = Number(portOf(url));
      if (BAD_PORTS.has(port)) {
        release();
        chain.push({ url: url.href, code: null });
        return result('bad-port', null, `${url.host}: browsers refuse this port (a "bad port" of the Fetch standard)`);
      }
      let route = await this.route(hostnameOf(url));
      if ('blocked' in route && url.origin === this.options.allowOrigin) {
        // the sandbox's own pages: connect to the address that was refused for everything else
        route = { key: route.blocked.address };
      }
      if ('blocked' in route) {
        release();
        chain.push({ url: url.href, code: null });
        return result('blocked', null, blockedText(route.blocked, chain.length > 1));
      }
      if (!('key' in route)) {
        release();
        chain.push({ url: url.href, code: null });
        return result(route.status, null, route.error);
      }
      // The first request uses the slot checkAll took; each redirect waits for one of its address's.
      if (held !== route.key) {
        release();
        await this.slots.acquire(route.key);
      }
      held = undefined;
      let answer: Answer;
      const started = Date.now();
      try {
        answer = await this.request(url, 'HEAD');
        // Anything but a redirect is asked again with GET, whose answer decides: HEAD refused
        // (405, 501), answered wrongly, or answered 200 where GET gets 404.
        if (answer.kind === 'answered' && !(answer.code >= 300 && answer.code < 400 && answer.location !== undefined)) answer = await this.request(url, 'GET');
      } finally {
        requestMs += Date.now() - started;
        this.slots.release(route.key);
      }
      if (answer.kind === 'failed') {
        chain.push({ url: url.href, code: null });
        return result(answer.status, null, answer.error);
      }
      chain.push({ url: url.href, code: answer.code });
      const location = answer.code >= 300 && answer.code < 400 ? answer.location : undefined;
      if (location === undefined) {
        const verdict = classifyAnswer(destination, url, answer.code, chain.length > 1);
        return result(verdict.status, answer.code, verdict.error);
      }
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        return result('error', answer.code, `HTTP ${answer.code} from ${url.host} to a Location that is not a URL`);
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        // An app link (itms-apps:, intent:, mailto:): the end of the web part of the journey.
        chain.push({ url: next.href, code: null });
        return result('redirect-offsite', answer.code, null);
      }
      next = withoutCredentials(next);
      if (seen.has(next.href)) {
        chain.push({ url: next.href, code: null });
        return result('loop', answer.code, `redirect loop: back to ${next.href}`);
      }
      if (chain.length > MAX_REDIRECTS) return result('too-many-redirects', answer.code, `more than ${MAX_REDIRECTS} redirects`);
      url = next;
    }
  }

  /** One request; never throws but for Ctrl-C. */
  private async request(url: URL, method: 'HEAD' | 'GET'): Promise<Answer> {
    const { signal, timeoutMs, trace } = this.options;
    if (signal.aborted) return this.failed(method, url, new Error('aborted'), false);
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    this.inFlight.add(controller);
    try {
      const response = await this.undici!.request(url, {
        method,
        // Only these: no Authorization, no Cookie, nothing of the API's.
        headers: { 'user-agent': this.options.userAgent, accept: '*/*' },
        dispatcher: this.dispatcherFor(url),
        signal: controller.signal,
      });
      const location = response.headers.location;
      // The body is not kept: its first bytes, up to a small cap, are read (so the connection can be used again), then it is closed.
      await response.body.dump({ limit: BODY_CAP_BYTES }).catch(() => undefined);
      trace?.(`check: ${method} ${url.href} -> HTTP ${response.statusCode}`);
      return { kind: 'answered', code: response.statusCode, location: Array.isArray(location) ? location[0] : location };
    } catch (error) {
      return this.failed(method, url, error, timedOut);
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(controller);
    }
  }

  private failed(method: string, url: URL, error: unknown, timedOut: boolean): Answer {
    // Ctrl-C ends the run; the deadline only ends this request (failureOf says so).
    if (this.options.signal.aborted && !this.options.deadline()) throw new InterruptedError();
    const failure = failureOf(error, timedOut, url.host, this.options);
    this.options.trace?.(`check: ${method} ${url.href} -> ${failure.status}: ${failure.error}`);
    return { kind: 'failed', ...failure };
  }

  async close(): Promise<void> {
    this.options.signal.removeEventListener('abort', this.abortAll);
    // Kept-alive connections are closed now rather than when their servers time them out.
    await Promise.all([this.direct?.destroy(), this.proxied !== this.direct ? this.proxied?.destroy() : undefined]);
  }
}

/**
 * The run's name resolutions: each host name resolved once (polite to DNS too, and a resolver
 * that does not answer holds one thread, not one a request), and the only answers connections
 * get. `connectLookup` is the agents' lookup: a name the run checked is answered with the
 * addresses that were checked, never asked again; a name it never checked (the proxy's own) is
 * resolved here the same way.
 */
class Resolver {
  private readonly cache = new Map<string, Promise<LookupAddress[]>>();
  constructor(private readonly lookup: Lookup) {}

  resolve(hostname: string): Promise<LookupAddress[]> {
    const key = hostname.toLowerCase();
    let addresses = this.cache.get(key);
    if (!addresses) {
      addresses = new Promise((resolve, reject) => this.lookup(hostname, { all: true }, (error, found) => (error ? reject(error) : resolve(found as LookupAddress[]))));
      addresses.catch(() => undefined); // read by whoever asked; not an unhandled rejection meanwhile
      this.cache.set(key, addresses);
    }
    return addresses;
  }

  readonly connectLookup: Lookup = (hostname, options, callback) => {
    const family = (options as { family?: unknown })?.family;
    this.resolve(hostname).then(
      (found) => {
        const usable = family === 4 || family === 6 ? found.filter((a) => a.family === family) : found;
        if (usable.length === 0) {
          const error: NodeJS.ErrnoException = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
          return callback(error);
        }
        return options?.all ? callback(null, usable) : callback(null, usable[0]!.address, usable[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error),
    );
  };
}

/** Why a hop was not requested: `10.0.0.5 is a private address (RFC 1918); not requested`. */
function blockedText({ host, address, what }: { host: string; address: string; what: string }, redirected: boolean): string {
  const where = host === address ? address : `${host}, which resolves to ${address}`;
  if (redirected) return `redirected to ${where} (${what}); not requested`;
  return host === address ? `${address} is ${what}; not requested` : `${host} resolves to ${address}, ${what}; not requested`;
}

type Answer = { kind: 'answered'; code: number; location?: string } | { kind: 'failed'; status: Status; error: string };

const now = () => new Date().toISOString();

function unchecked(error: string): Probe {
  return { status: 'unchecked', flags: [], code: null, chain: [], error, checkedAt: now() };
}

/** Credentials in a destination URL are not sent: nothing but the User-Agent goes to a destination. */
function withoutCredentials(url: URL): URL {
  if (!url.username && !url.password) return url;
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return copy;
}

/** A URL's host name, the unit URLs are taken in turn by; URLs that will not be requested (not http, not a URL) get a key of their own. */
function hostOf(raw: string): string {
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:' ? hostnameOf(url) : ' not-http';
  } catch {
    return ' not-a-url';
  }
}

const hostIsSpecial = (host: string) => host.startsWith(' ');
