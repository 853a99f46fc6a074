/**
 * The one HTTP layer: base URL, bearer key, per-attempt timeout, retries, rate-limit pacing,
 * redirects, envelope -> data or typed error. It knows nothing about terminals: it reports
 * what it does through `events`, and the caller decides what a person sees.
 */
import ky, { type KyInstance } from 'ky';
import { setTimeout as sleep } from 'node:timers/promises';
import { AuthError, InterruptedError, NetworkError, RateLimitError, UsageError } from '../errors.js';
import { redact } from '../redact.js';
import { interpretBody, toInt, toSeconds, type Body } from './envelope.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query;
  json?: unknown;
  /** Fields a success must carry; without them the answer is a protocol error (exit 6). */
  expect?: readonly string[];
  /** For creations: the command that shows whether an unknown outcome created something. */
  checkWith?: string;
}

export interface ClientEvents {
  debug?(line: string): void;
  /** A wait for the rate limit is about to start. */
  wait?(seconds: number, reason: string): void;
  requestStart?(): void;
  requestEnd?(): void;
}

export interface ClientOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  maxWaitMs: number;
  env: Record<string, string | undefined>;
  signal?: AbortSignal;
  dryRun?: boolean;
  insecureHttp?: boolean;
  events?: ClientEvents;
}

/** A request that --dry-run stopped before it was sent. `main()` prints it. */
export class DryRun {
  constructor(readonly request: { method: Method; url: string; headers: Record<string, string>; body?: unknown }) {}
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;
const MAX_NETWORK_RETRIES = 2;
const MAX_RATE_LIMIT_RETRIES = 20;
const BACKOFF_BASE_MS = 300;
/** Clock skew allowance when waiting for a rate-limit window to end. */
const RESET_MARGIN_MS = 30;
/** Errors that prove the request never reached a server, so even a POST may be sent again. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);
const RETRY_STATUSES = new Set([502, 503, 504]);

export function normaliseBaseUrl(raw: string, flag = '--base-url'): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${flag} must be an http(s) URL such as https://example.com, got "${raw}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`${flag} must start with https:// or http://, got "${raw}"`);
  }
  if (url.search || url.hash) throw new UsageError(`${flag} must not carry a query or fragment`);
  url.pathname = url.pathname.replace(/\/+$/, '') + '/';
  return url;
}

export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

type Failure = 'aborted' | 'timeout' | 'never-sent' | 'unknown-outcome';

interface RateState {
  remaining?: number;
  resetAtMs?: number;
}

export class ApiClient {
  readonly base: URL;
  private readonly http: KyInstance;
  private readonly rate: RateState = {};

  constructor(private readonly options: ClientOptions) {
    this.base = normaliseBaseUrl(options.baseUrl);
    if (this.base.protocol === 'http:' && !isLoopback(this.base.hostname) && !options.insecureHttp) {
      throw new UsageError(
        `refusing to send the API key over plain http to ${this.base.host}`,
        'use an https:// base URL, or pass --insecure-http if you accept that risk',
      );
    }
    this.http = ky.create({
      prefixUrl: this.base.href,
      headers: { Authorization: `Bearer ${options.apiKey}`, Accept: 'application/json' },
      retry: 0, // retries are ours: ky would retry a POST's unknown outcome as a 5xx, and wait without bound
      timeout: false, // ours covers the body too, not just the headers
      throwHttpErrors: false,
      redirect: 'manual', // fetch would turn a redirected POST into a GET without its body
      fetch: options.env.HTTPS_PROXY || options.env.https_proxy || options.env.HTTP_PROXY || options.env.http_proxy ? proxiedFetch() : undefined,
    });
  }

  /** The full URL of a path, as a user would see it. */
  url(path: string, query?: Query): string {
    const url = new URL(path.replace(/^\/+/, ''), this.base);
    for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    return url.href;
  }

  async request(method: Method, path: string, options: RequestOptions = {}): Promise<Body> {
    const url = this.url(path, options.query);
    if (this.options.dryRun && method !== 'GET') {
      throw new DryRun({ method, url, headers: { Authorization: 'Bearer [REDACTED]', 'Content-Type': 'application/json' }, body: options.json });
    }
    let networkRetries = 0;
    let rateRetries = 0;
    for (;;) {
      await this.pace();
      const attempt = await this.attempt(method, path, options);
      if (attempt.kind === 'failed') {
        const { failure } = attempt;
        const detail = attempt.detail ?? failure;
        if (failure === 'aborted') throw new InterruptedError();
        // A POST that may have reached the server is never sent twice: it could create twice.
        const mayRetry = failure === 'never-sent' || method !== 'POST';
        if (mayRetry && networkRetries < MAX_NETWORK_RETRIES) {
          await this.backoff(++networkRetries);
          continue;
        }
        throw this.networkError(method, url, failure, detail, options);
      }
      const { status, headers, text } = attempt;
      this.noteRateLimit(headers);
      if (status >= 300 && status < 400) throw redirectError(url, status, headers.get('location'));
      if (RETRY_STATUSES.has(status) && method !== 'POST' && networkRetries < MAX_NETWORK_RETRIES && !looksJson(text)) {
        await this.backoff(++networkRetries);
        continue;
      }
      if (status === 429 || (status === 200 && looksJson(text) && isOverLimitText(text))) {
        const body = safeParse(text) as Body | undefined;
        const seconds = toSeconds(headers.get('retry-after')) ?? toSeconds(body?.['Retry-After']) ?? this.secondsUntilReset() ?? 1;
        if (rateRetries++ >= MAX_RATE_LIMIT_RETRIES) throw new RateLimitError('still over the rate limit after many waits');
        await this.waitFor(seconds * 1000, 'the server says the rate limit is exceeded');
        continue;
      }
      return this.interpret(method, url, path, status, text, options);
    }
  }

  private async attempt(method: Method, path: string, options: RequestOptions) {
    const controller = new AbortController();
    const userSignal = this.options.signal;
    const onAbort = () => controller.abort(userSignal?.reason);
    if (userSignal?.aborted) return { kind: 'failed' as const, failure: 'aborted' as Failure };
    userSignal?.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.options.timeoutMs);
    const started = Date.now();
    this.trace(`> ${method} ${this.url(path, options.query)}`);
    this.trace(`> Authorization: Bearer ${this.options.apiKey}`);
    if (options.json !== undefined) this.trace(`> ${JSON.stringify(options.json)}`);
    this.options.events?.requestStart?.();
    try {
      const response = await this.http(path.replace(/^\/+/, ''), {
        method,
        searchParams: cleanQuery(options.query),
        json: options.json,
        signal: controller.signal,
      });
      const text = await readCapped(response);
      this.trace(`< HTTP ${response.status} (${Date.now() - started} ms)`);
      for (const [name, value] of response.headers) if (/^(x-ratelimit|retry-after|location|content-type)/i.test(name)) this.trace(`< ${name}: ${value}`);
      this.trace(`< ${text.length > 4000 ? `${text.slice(0, 4000)}... (${text.length} bytes)` : text}`);
      return { kind: 'answered' as const, status: response.status, headers: response.headers, text };
    } catch (error) {
      const failure: Failure = userSignal?.aborted ? 'aborted' : timedOut ? 'timeout' : classify(error);
      const detail = describe(error);
      this.trace(`! ${failure}: ${detail}`);
      return { kind: 'failed' as const, failure, detail };
    } finally {
      clearTimeout(timer);
      userSignal?.removeEventListener('abort', onAbort);
      this.options.events?.requestEnd?.();
    }
  }

  private interpret(method: Method, url: string, path: string, status: number, text: string, options: RequestOptions): Body {
    if (!text.trim()) {
      throw new NetworkError(`HTTP ${status}: the server sent an empty answer to ${method} ${url}`, 'the id may not exist or a URL may be invalid');
    }
    const parsed = safeParse(text);
    if (parsed === undefined) throw nonJsonError(method, url, path, status, text);
    const verdict = interpretBody(parsed, status === 200 ? options.expect : []);
    if (status === 401 || status === 403) {
      const message = verdict.kind === 'failure' && !(verdict.error instanceof NetworkError) ? verdict.error.message : `HTTP ${status}: access denied`;
      throw new AuthError(message);
    }
    if (verdict.kind === 'failure') throw verdict.error;
    if (verdict.kind === 'success' && status >= 400) throw new NetworkError(`HTTP ${status} from ${method} ${url}`);
    if (verdict.kind !== 'success') throw new NetworkError('unexpected over-limit answer');
    return verdict.body;
  }

  /** Waits before sending when the last answer said the window is used up. */
  private async pace(): Promise<void> {
    const { remaining, resetAtMs } = this.rate;
    if (remaining === undefined || resetAtMs === undefined || remaining > 0) return;
    const waitMs = resetAtMs - Date.now() + RESET_MARGIN_MS;
    this.rate.remaining = undefined;
    if (waitMs > 0) await this.waitFor(waitMs, 'the rate-limit window is used up');
  }

  private secondsUntilReset(): number | undefined {
    return this.rate.resetAtMs === undefined ? undefined : Math.max(0, (this.rate.resetAtMs - Date.now()) / 1000);
  }

  private noteRateLimit(headers: Headers): void {
    const remaining = toInt(headers.get('x-ratelimit-remaining'));
    const reset = toInt(headers.get('x-ratelimit-reset'));
    // A reset more than a day away is not a Unix time in seconds: ignore such headers.
    if (remaining === undefined || reset === undefined || Math.abs(reset * 1000 - Date.now()) > 86_400_000) {
      this.rate.remaining = undefined;
      this.rate.resetAtMs = undefined;
      return;
    }
    this.rate.remaining = remaining;
    this.rate.resetAtMs = reset * 1000;
  }

  private async waitFor(ms: number, reason: string): Promise<void> {
    if (ms > this.options.maxWaitMs) {
      const at = new Date(Date.now() + ms);
      throw new RateLimitError(
        `rate limited: ${reason}; the window resets at ${at.toISOString()} (in ${Math.ceil(ms / 1000)} s), longer than --max-wait ${Math.round(this.options.maxWaitMs / 1000)} s`,
        'try again later, or raise --max-wait',
      );
    }
    this.options.events?.wait?.(ms / 1000, reason);
    try {
      await sleep(ms, undefined, { signal: this.options.signal });
    } catch {
      throw new InterruptedError();
    }
  }

  private async backoff(attempt: number): Promise<void> {
    // Exponential backoff with full jitter.
    const ms = Math.random() * BACKOFF_BASE_MS * 2 ** attempt;
    this.trace(`! retrying in ${Math.round(ms)} ms`);
    try {
      await sleep(ms, undefined, { signal: this.options.signal });
    } catch {
      throw new InterruptedError();
    }
  }

  private networkError(method: Method, url: string, failure: Failure, detail: string, options: RequestOptions): NetworkError {
    const seconds = this.options.timeoutMs / 1000;
    const what = failure === 'timeout' ? `no complete answer within ${seconds} s (--timeout)` : detail;
    if (method === 'POST' && failure !== 'never-sent') {
      return new NetworkError(
        `${method} ${url}: ${what}; the request may or may not have been carried out`,
        options.checkWith ? `check with \`${options.checkWith}\` before trying again` : 'check before trying again',
      );
    }
    return new NetworkError(`${method} ${url}: ${what}`, failure === 'never-sent' ? 'is the server running, and the base URL right?' : undefined);
  }

  private trace(line: string): void {
    if (this.options.events?.debug) this.options.events.debug(redact(line, [this.options.apiKey]));
  }
}

function cleanQuery(query: Query | undefined): Record<string, string> | undefined {
  if (!query) return undefined;
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(query)) if (value !== undefined) out[key] = String(value);
  return out;
}

async function readCapped(response: Response): Promise<string> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > MAX_BODY_BYTES) throw new NetworkError(`the answer is larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB; ask for fewer records with --limit`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function classify(error: unknown): Failure {
  if (error instanceof NetworkError) throw error; // body over the size cap
  const code = errorCode(error);
  return code && NEVER_SENT.has(code) ? 'never-sent' : 'unknown-outcome';
}

function describe(error: unknown): string {
  const code = errorCode(error);
  const cause = (error as { cause?: { message?: string } })?.cause?.message;
  const message = cause || (error as Error)?.message || String(error);
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name does not resolve';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || /other side closed|terminated/i.test(message)) return 'the connection was closed before a complete answer';
  return code ? `${message} (${code})` : message;
}

function looksJson(text: string): boolean {
  return /^\s*[{[]/.test(text);
}

function isOverLimitText(text: string): boolean {
  // Cheap test first: only parse bodies that can be the over-limit answer.
  if (!text.includes('429')) return false;
  const body = safeParse(text) as Body | undefined;
  return body?.error === 429 || body?.error === '429';
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function redirectError(url: string, status: number, location: string | null): NetworkError {
  const target = location ? new URL(location, url).href : '(no Location header)';
  let hint = 'linkctl does not follow redirects on API calls; set --base-url to where the API really is';
  const from = new URL(url);
  if (location) {
    const to = new URL(location, url);
    if (from.protocol === 'http:' && to.protocol === 'https:') hint = 'the server wants https: use an https:// base URL';
    else if (to.pathname === `${from.pathname}/` || `${to.pathname}/` === from.pathname) hint = 'the server redirects to add or remove a trailing slash; check the base URL';
  }
  return new NetworkError(`HTTP ${status}: the server redirects ${url} to ${target}`, hint);
}

function nonJsonError(method: Method, url: string, path: string, status: number, text: string): NetworkError {
  const kind = /<html|<!doctype/i.test(text) ? 'an HTML page' : 'an answer that is not JSON';
  let hint: string | undefined;
  if (status === 404) hint = 'is the base URL right? it should be the site root, e.g. https://example.com';
  else if (status === 405) hint = 'the server does not accept this method here; is the base URL right?';
  else if (status >= 500 && /\/[^/]+\/[^/?]+/.test(path)) hint = 'the server failed on this request (non-numeric id, or data the server rejects)';
  else if (status >= 500) hint = 'the server failed on this request; try again later';
  else if (status === 200 && looksJson(text)) hint = 'the answer was cut short; try again';
  else if (status === 200) hint = 'is the base URL the main site rather than a branded domain?';
  return new NetworkError(`HTTP ${status}: the server sent ${looksJson(text) ? 'an incomplete JSON answer' : kind} for ${method} ${url}`, hint);
}

/** Node's fetch ignores HTTPS_PROXY; undici's EnvHttpProxyAgent honours it and NO_PROXY. Loaded only when a proxy is set. */
function proxiedFetch(): typeof fetch {
  let agent: Promise<{ fetch: typeof import('undici').fetch; dispatcher: import('undici').Dispatcher }> | undefined;
  return async (input: string | URL | Request, init?: RequestInit) => {
    agent ??= import('undici').then((undici) => ({ fetch: undici.fetch, dispatcher: new undici.EnvHttpProxyAgent() }));
    const { fetch: undiciFetch, dispatcher } = await agent;
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
