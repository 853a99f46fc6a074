/**
 * The destination checker: one request at a time per destination (HEAD, GET when HEAD is
 * refused or fails), redirects followed by hand up to MAX_REDIRECTS with every hop recorded, and
 * the outcome classified (statuses.ts). Polite and bounded: a global concurrency limit, at most
 * `perHost` requests at a time to one host, a timeout per request, the run's deadline as a
 * signal. Nothing of the user's goes to a destination: no API key, no cookie, no credentials
 * from the URL; only a `linkctl/<version>` User-Agent. Proxies as for the API (transport.ts).
 */
import { InterruptedError } from '../errors.js';
import type { LookupAddress } from 'node:dns';
import { goesThroughProxy, proxyAgent, proxyConfigured, specialUseLookup, type Dispatcher, type Lookup, type Undici } from '../http/transport.js';
import type { Status } from './statuses.js';

export const MAX_REDIRECTS = 10;
/** The most of a GET body read (and thrown away) before the connection is closed instead. */
const BODY_CAP_BYTES = 64 * 1024;
/** HEAD answers that mean "ask with GET": refused (405, 501) or any failure, which some servers give HEAD alone. */
const retryWithGet = (code: number) => code >= 400;

export interface Hop {
  url: string;
  /** The HTTP status of this hop; null when it got none. */
  code: number | null;
}

export interface Probe {
  status: Status;
  /** The final HTTP status, or null. */
  code: number | null;
  /** Every request of the check, the first one included. */
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
  /** Called after each request (for tests and --debug): method, URL, status or error. */
  trace?: (line: string) => void;
}

/** The host whose politeness limit a request counts against. */
const hostKey = (url: URL) => url.hostname.toLowerCase();

/** Same site: the same host name, a leading "www." aside (ports do not make another site). */
export function sameSite(a: URL, b: URL): boolean {
  const bare = (u: URL) => u.hostname.toLowerCase().replace(/^www\./, '');
  return bare(a) === bare(b);
}

/** Slots per host: a request waits for one of `limit` slots of its host. */
class HostSlots {
  private readonly active = new Map<string, number>();
  private readonly waiting = new Map<string, Array<() => void>>();
  constructor(private readonly limit: number, private readonly onRelease: () => void) {}

  tryAcquire(host: string): boolean {
    const n = this.active.get(host) ?? 0;
    if (n >= this.limit) return false;
    this.active.set(host, n + 1);
    return true;
  }

  async acquire(host: string): Promise<void> {
    if (this.tryAcquire(host)) return;
    await new Promise<void>((resolve) => {
      const queue = this.waiting.get(host) ?? [];
      queue.push(resolve);
      this.waiting.set(host, queue);
    });
  }

  release(host: string): void {
    const next = this.waiting.get(host)?.shift();
    if (next) return next(); // the slot passes straight to a waiter
    const n = (this.active.get(host) ?? 1) - 1;
    if (n <= 0) this.active.delete(host);
    else this.active.set(host, n);
    this.onRelease();
  }
}

/** What ended a request that got no HTTP answer. */
function failureOf(error: unknown, timedOut: boolean, options: ProbeOptions): { status: Status; error: string } {
  if (timedOut) return { status: 'timeout', error: `no answer within ${options.timeoutMs / 1000} s (--timeout)` };
  if (options.deadline()) return { status: 'timeout', error: 'no answer before the run\'s deadline (--deadline)' };
  const code = errorCode(error);
  const message = errorMessage(error);
  if (code === 'ENOTFOUND' || code === 'EAI_NONAME' || code === 'EAI_NODATA' || code === 'EAI_FAIL') return { status: 'dns', error: 'the host name does not resolve' };
  if (code === 'EAI_AGAIN') return { status: 'dns', error: 'the host name could not be resolved (no answer from DNS)' };
  if (code === 'ECONNREFUSED') return { status: 'refused', error: 'connection refused' };
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'ETIMEDOUT') {
    return { status: 'timeout', error: `no answer in time (${code})` };
  }
  if (code && (/^ERR_(SSL|TLS)_/.test(code) || /CERT|SELF_SIGNED|UNABLE_TO_(VERIFY|GET)|HOSTNAME_MISMATCH/.test(code))) {
    return { status: 'tls', error: `${TLS_REASONS[code] ?? message} (${code})` };
  }
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || /other side closed|socket hang up/i.test(message)) {
    return { status: 'error', error: 'the connection was closed before an answer' };
  }
  return { status: 'error', error: code ? `${message} (${code})` : message };
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
  if (destination.protocol === 'http:' || final.protocol === 'http:') {
    return { status: 'insecure', error: destination.protocol === 'http:' ? 'the destination is plain http://' : `it lands on plain http:// (${final.href})` };
  }
  return { status: redirected ? 'redirect' : 'ok', error: null };
}

export class Prober {
  private undici?: Undici;
  private direct?: Dispatcher;
  private proxied?: Dispatcher;
  private readonly slots: HostSlots;
  private wake: () => void = () => undefined;

  constructor(private readonly options: ProbeOptions) {
    this.slots = new HostSlots(options.perHost, () => this.wake());
  }

  /**
   * Loads undici and makes the agents, once, before the first request: loading is not the
   * destinations' time (on a loaded machine it can take seconds), so no request's timer runs meanwhile.
   */
  private async ready(): Promise<void> {
    if (this.undici) return;
    const undici = await import('undici');
    if (this.undici) return;
    // Our own resolution of special-use names (*.invalid never reaches DNS, *.localhost is loopback).
    const agentOptions = { connect: { lookup: onceAHost(specialUseLookup()), timeout: this.options.timeoutMs } as never, headersTimeout: 0, bodyTimeout: 0 };
    this.direct = new undici.Agent(agentOptions);
    this.proxied = proxyConfigured(this.options.env) ? proxyAgent(undici, this.options.env, agentOptions) : this.direct;
    this.undici = undici;
  }

  private dispatcherFor(url: URL): Dispatcher {
    return goesThroughProxy(url.hostname, this.options.env) ? this.proxied! : this.direct!;
  }

  /**
   * Checks every URL, each once, within the limits; `done` is called as each finishes (in the
   * order they finish). URLs are taken host by host in turn, so one big host never holds every
   * slot while others wait.
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
          } else if (hostIsSpecial(host) || this.slots.tryAcquire(host)) {
            const raw = queue.shift()!;
            active++;
            looked = 0;
            this.check(raw, hostIsSpecial(host) ? undefined : host).then(
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
          } else {
            looked++;
            turn++;
            continue;
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

  /** One destination, its first request already holding a slot of `heldHost` (when it has a host). */
  async check(raw: string, heldHost?: string): Promise<Probe> {
    await this.ready();
    let destination: URL;
    try {
      destination = new URL(raw);
    } catch {
      if (heldHost) this.slots.release(heldHost);
      return { status: 'error', code: null, chain: [], error: 'not a URL', checkedAt: now() };
    }
    if (destination.protocol !== 'http:' && destination.protocol !== 'https:') {
      if (heldHost) this.slots.release(heldHost);
      return unchecked(`not requested: linkctl checks http and https destinations, not ${destination.protocol}`);
    }
    const chain: Hop[] = [];
    const seen = new Set<string>();
    let url = withoutCredentials(destination);
    // The first request uses the slot checkAll took; each redirect waits for one of its host's.
    let slotHeld = heldHost !== undefined;
    for (;;) {
      seen.add(url.href);
      const host = hostKey(url);
      if (!slotHeld) await this.slots.acquire(host);
      slotHeld = false;
      let answer: Answer;
      try {
        answer = await this.request(url, 'HEAD');
        if (answer.kind === 'answered' && retryWithGet(answer.code)) answer = await this.request(url, 'GET');
      } finally {
        this.slots.release(host);
      }
      if (answer.kind === 'failed') {
        chain.push({ url: url.href, code: null });
        return { status: answer.status, code: null, chain, error: answer.error, checkedAt: now() };
      }
      chain.push({ url: url.href, code: answer.code });
      const location = answer.code >= 300 && answer.code < 400 ? answer.location : undefined;
      if (location === undefined) {
        const verdict = classifyAnswer(destination, url, answer.code, chain.length > 1);
        return { ...verdict, code: answer.code, chain, checkedAt: now() };
      }
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        return { status: 'error', code: answer.code, chain, error: `HTTP ${answer.code} to a Location that is not a URL`, checkedAt: now() };
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        // An app link (itms-apps:, intent:, mailto:): the end of the web part of the journey.
        chain.push({ url: next.href, code: null });
        return { status: 'redirect-offsite', code: answer.code, chain, error: null, checkedAt: now() };
      }
      next = withoutCredentials(next);
      if (seen.has(next.href)) {
        chain.push({ url: next.href, code: null });
        return { status: 'too-many-redirects', code: answer.code, chain, error: `redirect loop: back to ${next.href}`, checkedAt: now() };
      }
      if (chain.length > MAX_REDIRECTS) {
        return { status: 'too-many-redirects', code: answer.code, chain, error: `more than ${MAX_REDIRECTS} redirects`, checkedAt: now() };
      }
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
    const onAbort = () => controller.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const response = await this.undici!.request(url, {
        method,
        // Only these: no Authorization, no Cookie, nothing of the API's.
        headers: { 'user-agent': this.options.userAgent, accept: '*/*' },
        dispatcher: this.dispatcherFor(url),
        signal: controller.signal,
      });
      const location = response.headers.location;
      // The body is not kept: up to a small cap is read (so the connection can be used again), then it is closed.
      await response.body.dump({ limit: BODY_CAP_BYTES }).catch(() => undefined);
      trace?.(`check: ${method} ${url.href} -> HTTP ${response.statusCode}`);
      return { kind: 'answered', code: response.statusCode, location: Array.isArray(location) ? location[0] : location };
    } catch (error) {
      return this.failed(method, url, error, timedOut);
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
  }

  private failed(method: string, url: URL, error: unknown, timedOut: boolean): Answer {
    // Ctrl-C ends the run; the deadline only ends this request (failureOf says so).
    if (this.options.signal.aborted && !this.options.deadline()) throw new InterruptedError();
    const failure = failureOf(error, timedOut, this.options);
    this.options.trace?.(`check: ${method} ${url.href} -> ${failure.status}: ${failure.error}`);
    return { kind: 'failed', ...failure };
  }

  async close(): Promise<void> {
    // Kept-alive connections are closed now rather than when their servers time them out.
    await Promise.all([this.direct?.destroy(), this.proxied !== this.direct ? this.proxied?.destroy() : undefined]);
  }
}

/**
 * Each host name resolved once a run, however many connections go to it (the system resolver
 * is asked at most once a name: polite to DNS too, and a resolver that does not answer holds
 * one thread, not one a request).
 */
function onceAHost(lookup: Lookup): Lookup {
  const cache = new Map<string, Promise<LookupAddress[]>>();
  return (hostname, options, callback) => {
    const key = `${hostname.toLowerCase()} ${(options as { family?: unknown })?.family ?? 0}`;
    let addresses = cache.get(key);
    if (!addresses) {
      addresses = new Promise((resolve, reject) => lookup(hostname, { ...options, all: true }, (error, found) => (error ? reject(error) : resolve(found as LookupAddress[]))));
      cache.set(key, addresses);
    }
    addresses.then(
      (found) => (options?.all ? callback(null, found) : callback(null, found[0]?.address, found[0]?.family)),
      (error: NodeJS.ErrnoException) => callback(error),
    );
  };
}

type Answer = { kind: 'answered'; code: number; location?: string } | { kind: 'failed'; status: Status; error: string };

const now = () => new Date().toISOString();

function unchecked(error: string): Probe {
  return { status: 'unchecked', code: null, chain: [], error, checkedAt: now() };
}

/** Credentials in a destination URL are not sent: nothing but the User-Agent goes to a destination. */
function withoutCredentials(url: URL): URL {
  if (!url.username && !url.password) return url;
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return copy;
}

/** A URL's politeness key; URLs that will not be requested (not http, not a URL) get a key of their own. */
function hostOf(raw: string): string {
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:' ? hostKey(url) : ' not-http';
  } catch {
    return ' not-a-url';
  }
}

const hostIsSpecial = (host: string) => host.startsWith(' ');
