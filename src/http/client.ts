/**
 * The one HTTP layer: base URL, bearer key, per-attempt timeout, retries, rate-limit pacing,
 * redirects, envelope -> data or typed error. It knows nothing about terminals: it reports
 * what it does through `events`, and the caller decides what a person sees.
 */
import ky, { type KyInstance } from 'ky';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { channel } from 'node:diagnostics_channel';
import { ApiError, AuthError, CliError, InterruptedError, NetworkError, NotFoundError, UsageError } from '../errors.js';
import { redact } from '../redact.js';
import { interpretBody, retryAfterSeconds, toSeconds, type Body } from './envelope.js';
import { newBudget, RateLimitPolicy, type RateState } from './rate-limit.js';
import { InFlightControl, requestKind } from './concurrency.js';
import { fetchFor, isLoopback } from './transport.js';
import type { GuardedFetch } from './outbound.js';
import { withLikelyScheme } from './loopback.js';
import { DEFAULT_API_PATH, normaliseApiPath } from './api-path.js';
import type { AllowPrivate } from './networks.js';
import { PROXY_AUTH_HINT, RETRY_STATUSES, classify, describe, isRecord, looksJson, nestingDepth, nonJsonError, readCapped, readCappedBytes, redirectError, safeParse, statusText, tlsHint, untilAborted, type Failure } from './answers.js';

export type { RateState } from './rate-limit.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query;
  json?: unknown;
  /**
   * A POST that changes nothing in the account (the OAuth token exchange): not recorded in the
   * ledger, and no change is reported.
   */
  notAChange?: boolean;
  /** Fields a success must carry; without them the answer is a protocol error (exit 6). */
  expect?: readonly string[];
  /** For creations: the command that shows whether an unknown outcome created something. */
  checkWith?: string;
  /** What an empty answer most likely means for this request (real servers send one instead of an error). */
  emptyAnswerHint?: string;
  /** What was asked, for the API's own error messages: `QR code 12` gives "QR code 12: QR does not exist.". */
  about?: string;
}

export interface ClientEvents {
  debug?(line: string): void;
  /** A wait for the rate limit is about to start. */
  wait?(seconds: number, reason: string): void;
  /** An answer carried usable X-RateLimit-* headers: what is left of the window, and the limit when announced. */
  rate?(state: { limit?: number; remaining: number; resetAtMs: number }): void;
  requestStart?(): void;
  requestEnd?(): void;
  /** A request other than GET succeeded: the server changed something. */
  changed?(): void;
  /**
   * A request other than GET ended, done or not (the ledger, src/history/ledger-writer.ts, records
   * it). Awaited before the result is returned; must not throw.
   */
  written?(write: { method: Method; path: string; json?: unknown; result?: Body; error?: unknown; more?: boolean }): Promise<void>;
  /** A job is about to write (a `--from` run's rows): what records writes may get ready (the ledger opens). */
  writing?(): void;
}

export interface ClientOptions {
  baseUrl: string;
  /** Where the base URL came from (`--base-url`, `LINKCTL_BASE_URL`, a profile), for the message if it is not a URL. */
  baseUrlName?: string;
  /** Where the installation serves its API under the base URL (./api-path.ts): `/api` unless it says otherwise. */
  apiPath?: string;
  /** The key, sent as `Authorization: Bearer`; empty for the one request made without one (the OAuth token exchange). */
  apiKey: string;
  timeoutMs: number;
  maxWaitMs: number;
  env: Record<string, string | undefined>;
  signal?: AbortSignal;
  dryRun?: boolean;
  insecureHttp?: boolean;
  events?: ClientEvents;
  /** Largest answer accepted (default 64 MiB); tests lower it. */
  maxBodyBytes?: number;
  /** What the server said of its rate limit, kept in this object; shared by clients of one session (the MCP server). */
  rate?: RateState;
  /** Private networks a file on another origin may be downloaded from (src/http/outbound.ts); none by default. */
  outboundAllow?: () => AllowPrivate;
}

/** A request that --dry-run stopped before it was sent. `main()` prints it. */
export class DryRun {
  constructor(readonly request: { method: Method; url: string; headers: Record<string, string>; body?: unknown }) {}
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;
/** Largest file `download` accepts: QR images are far smaller. */
const MAX_DOWNLOAD_BYTES = 10 * 1024 * 1024;
const MAX_NETWORK_RETRIES = 2;
/** Deeper answers are refused (exit 6): this API's are a few levels deep. */
const MAX_JSON_DEPTH = 64;
const BACKOFF_BASE_MS = 300;
/** The detail of an attempt that Ctrl-C stopped before it was sent. */
const NOT_SENT = 'interrupted before sending';

const BASE_URL_HINT = 'the base URL is the site root of your server, with its scheme: e.g. https://links.example.com';

export function normaliseBaseUrl(raw: string, flag = '--base-url'): URL {
  // A host typed without its scheme (`127.0.0.1:8787` parses as the scheme "127.0.0.1:"): say what it would be with one.
  const offer = withLikelyScheme(raw);
  const hint = offer ? `did you mean ${flag.startsWith('--') ? `${flag} ` : ''}${offer}?` : BASE_URL_HINT;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${flag} must be an http(s) URL such as https://example.com, got "${raw}"`, hint);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`${flag} must start with https:// or http://, got "${raw}"`, hint);
  }
  if (url.search || url.hash) throw new UsageError(`${flag} must not carry a query or fragment, got "${raw}"`, BASE_URL_HINT);
  url.pathname = url.pathname.replace(/\/+$/, '') + '/';
  return url;
}

/** How an attempt that got no usable answer ended. */
type Attempt =
  | { kind: 'answered'; status: number; headers: Headers; text: string; ms: number }
  | { kind: 'failed'; failure: Failure; detail: string };

/** What a request carries past ky to fetch (see the `fetch` given to ky). */
interface Beside {
  jsonText?: string;
  attemptSignal?: AbortSignal;
}

export class ApiClient {
  readonly base: URL;
  /** The installation's API path (`/api`, `/v2`): the model's paths start with `api`, which stands for it. */
  readonly apiPath: string;
  /** The same, relative to the base URL and ending in `/` (`v2/`). */
  private readonly apiPrefix: string;
  private readonly http: KyInstance;
  /** When to wait and when to give up (./rate-limit.ts); its state lives in `options.rate` when given (shared across clients). */
  readonly rateLimit: RateLimitPolicy;
  /** How many requests a job keeps in flight (`--concurrency`; ./concurrency.ts): fed by every answer, asking the policy. */
  readonly inFlight: InFlightControl;
  /**
   * The server's clock: the `Date` header of its latest answer (epoch ms), if it sent one. Click
   * history checks its own clock against it, so a machine set in the future cannot date a snapshot there.
   */
  serverTime?: number;

  /**
   * For a job that keeps several rows in flight (the bulk engine): the most requests at the server
   * at once, held here, request by request, whatever the rows do between their requests. With it,
   * a row whose write is done and whose ledger entry is being written (a commit that syncs the
   * history database and holds the thread) leaves room for the next row's request: in issue 52's
   * profile of a 400-row `link add --from`, 46% of the run was in those commits, one a row, each
   * holding a place of the 8 in flight.
   */
  bound?: () => number;
  /** Told when a request is answered and its row only waits for the ledger: a job may start another row. */
  freed?: () => void;
  /** Requests done whose ledger entry is still being written: no longer at the server. */
  recording = 0;
  private sending = 0;
  private readonly turns: Array<() => void> = [];

  private async enter(): Promise<void> {
    if (this.bound) while (this.sending >= Math.max(1, this.bound())) await new Promise<void>((turn) => this.turns.push(turn));
    this.sending++;
  }

  private leave(): void {
    this.sending--;
    this.turns.shift()?.();
  }

  /**
   * A job is about to write: the ledger gets ready once the job's next request has left (its
   * headers written: undici's diagnostics channel), while that request is at the server, instead
   * of at the first write, when the answers of the rows in flight would wait for it: loading it and
   * creating the history database held the thread 50-65 ms of a 400-row `link add --from`, its first
   * answers queued behind (issue 52). The ledger is what it was; only when it opens changes.
   */
  prepareWrites(): void {
    const ready = this.options.events?.writing;
    if (this.options.dryRun || !ready) return;
    this.whileNextIsOut(ready);
  }

  /**
   * `work` (local work a job needs soon) is done once the next request has left (its headers
   * written: undici's diagnostics channel), on the loop's next turn, while that request is at the
   * server and the thread would wait for its answer anyway.
   */
  whileNextIsOut(work: () => void): void {
    const sent = channel('undici:client:sendHeaders');
    const once = () => {
      sent.unsubscribe(once);
      setImmediate(work);
    };
    sent.subscribe(once);
  }

  /** How long one attempt may take (`--timeout`): also the limit of local work on what a server sent (drawing an SVG). */
  get attemptTimeoutMs(): number {
    return this.options.timeoutMs;
  }

  /**
   * Which account the key is, without the key: the first 16 hex digits of its SHA-256. A key is
   * one user's, so state kept per account (the apply journal and its lock) is kept by it; the key
   * itself never reaches a file.
   */
  get keyFingerprint(): string {
    return createHash('sha256').update(this.options.apiKey).digest('hex').slice(0, 16);
  }

  constructor(private readonly options: ClientOptions) {
    this.rateLimit = new RateLimitPolicy(options.rate ?? {}, options.maxWaitMs);
    this.inFlight = new InFlightControl(this.rateLimit);
    this.base = normaliseBaseUrl(options.baseUrl, options.baseUrlName);
    this.apiPath = normaliseApiPath(options.apiPath ?? DEFAULT_API_PATH);
    this.apiPrefix = `${this.apiPath.slice(1)}/`;
    // Checked here, before any request exists: nothing is sent.
    if (this.base.protocol === 'http:' && !isLoopback(this.base.hostname) && !options.insecureHttp) {
      throw new UsageError(
        `refusing to send the API key over plain http to ${this.base.host}`,
        'use an https:// base URL, or pass --insecure-http if you accept that risk',
      );
    }
    const ownFetch = fetchFor(this.base.hostname, options.env);
    this.http = ky.create({
      prefixUrl: this.base.href,
      headers: options.apiKey ? { Authorization: `Bearer ${options.apiKey}`, Accept: 'application/json' } : { Accept: 'application/json' },
      retry: 0, // retries are ours: ky's retry PUT/DELETE on 413 and 5xx alike, and would wait for Retry-After without bound
      timeout: false, // ours covers the body too, not just the headers
      throwHttpErrors: false,
      redirect: 'manual', // Node's fetch then returns the 3xx itself, Location readable; following would turn a POST into a GET
      // A proxy or loopback resolution of our own, or Node's fetch (see fetchFor). ky builds the
      // request (URL, query, headers); the JSON body and the attempt's abort signal travel beside
      // it (`Beside`: options ky does not know, which it hands to fetch untouched). Given to ky, a
      // body becomes a stream that ky tees for retries we never let it make and that fetch pipes
      // through once more, and a signal is combined with ky's own by AbortSignal.any: together a
      // third of the client's time in a bulk run of small POSTs (2,000 POSTs: 3.5 s, 2.9 s so).
      fetch: (input: string | URL | Request, init?: RequestInit & Beside) => {
        const request = input as Request; // ky always hands over its Request
        return (ownFetch ?? globalThis.fetch)(request.url, { method: request.method, headers: request.headers, body: init?.jsonText, signal: init?.attemptSignal, redirect: 'manual' });
      },
    });
  }

  /**
   * A path as sent, relative to the base URL: the model writes the API's paths as the product's
   * documentation does (the list of links is `api` then `urls`), and that first segment stands for
   * the installation's API path (`v2/urls` when it serves its API at /v2). The one place the
   * setting is applied.
   */
  private fromBase(path: string): string {
    const bare = path.replace(/^\/+/, '');
    const under = /^api(?:\/|$)([\s\S]*)$/.exec(bare);
    return under ? `${this.apiPrefix}${under[1]}` : bare;
  }

  /** The full URL of a path, as a user would see it. */
  url(path: string, query?: Query): string {
    const url = new URL(this.fromBase(path), this.base);
    for (const [key, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    return url.href;
  }

  async request(method: Method, path: string, options: RequestOptions = {}): Promise<Body> {
    const written = method === 'GET' || options.notAChange ? undefined : this.options.events?.written;
    await this.enter();
    let answered = false;
    let freed = false;
    /** The request left the server; done (not failed: a row then looks its outcome up), it only waits for the ledger now. */
    const answer = (done: boolean) => {
      if (answered) return;
      answered = true;
      this.leave();
      if (written && done) {
        freed = true;
        this.recording++;
        this.freed?.();
      }
    };
    try {
      const result = await this.send(method, path, options);
      answer(true);
      // with other requests at the server (rows in flight), the ledger lets their writes share a commit
      await written?.({ method, path, json: options.json, result, more: this.sending > 0 });
      return result;
    } catch (error) {
      answer(false);
      // Servers may echo the key in a message, a Location or a page: no error leaves here with it.
      if (error instanceof CliError) {
        if (options.about && (error instanceof ApiError || error instanceof NotFoundError)) error.message = `${options.about}: ${error.message}`;
        error.message = redact(error.message, [this.options.apiKey]);
        if (error.hint) (error as { hint?: string }).hint = redact(error.hint, [this.options.apiKey]);
      }
      await written?.({ method, path, json: options.json, error });
      throw error;
    } finally {
      if (freed) this.recording--;
    }
  }

  private async send(method: Method, path: string, options: RequestOptions): Promise<Body> {
    const url = this.url(path, options.query);
    // A path with `..` segments would carry the key elsewhere on the host: only the API's own paths are sent.
    const api = new URL(this.apiPrefix, this.base);
    const root = api.pathname.replace(/\/$/, '');
    const target = new URL(url);
    if (target.origin !== api.origin || (target.pathname !== root && !target.pathname.startsWith(`${root}/`))) {
      throw new UsageError(`the path "${path}" leads to ${target.pathname}, outside the API under ${root}/; nothing was sent`, 'give a path under the API (see `linkctl api --help`), without . or .. segments');
    }
    if (this.options.dryRun && method !== 'GET') {
      throw new DryRun({ method, url, headers: { Authorization: 'Bearer [REDACTED]', 'Content-Type': 'application/json' }, body: options.json });
    }
    let networkRetries = 0;
    const waiting = newBudget();
    /** An earlier attempt may have been carried out (its answer was lost). */
    let lostAnswer = false;
    for (;;) {
      await this.pace();
      const attempt = await this.attempt(method, path, options);
      if (attempt.kind === 'failed') {
        const { failure, detail } = attempt;
        // A server that resets, times out or is not there: fewer requests in flight.
        if (failure === 'timeout' || failure === 'unknown-outcome' || failure === 'never-sent') this.inFlight.failure();
        if (failure === 'aborted') {
          // A write interrupted in flight may have reached the server, as with a timeout (so may an
          // earlier attempt whose answer was lost): the ledger records it as unknown.
          if (method !== 'GET' && (detail !== NOT_SENT || lostAnswer)) throw interruptedWrite(method, url, options);
          throw new InterruptedError();
        }
        if (failure === 'too-large') throw new NetworkError(detail, 'ask for fewer records with --limit', 'too-large');
        // Sending again would meet the same proxy or certificate: say so at once.
        if (failure === 'proxy-auth') throw new NetworkError(`${method} ${url}: ${detail}`, PROXY_AUTH_HINT);
        if (failure === 'tls') throw new NetworkError(`${method} ${url}: ${detail}`, tlsHint(detail));
        if (failure === 'bad-port') throw new NetworkError(`${method} ${url}: ${detail}; nothing was sent`, 'run the server on another port (browsers refuse this one too), or put a proxy in front of it');
        // A POST that may have reached the server is never sent twice: it could create twice.
        const mayRetry = failure === 'never-sent' || method !== 'POST';
        if (mayRetry && networkRetries < MAX_NETWORK_RETRIES) {
          lostAnswer ||= failure !== 'never-sent';
          await this.backoff(++networkRetries, detail, lostAnswer && method !== 'GET' ? () => interruptedWrite(method, url, options) : undefined);
          continue;
        }
        throw this.networkError(method, url, failure, detail, options, networkRetries + 1);
      }
      const { status, headers, text } = attempt;
      this.noteRateLimit(headers);
      const date = Date.parse(headers.get('date') ?? '');
      if (Number.isFinite(date)) this.serverTime = date;
      if (status >= 300 && status < 400 && status !== 304) throw redirectError(url, path, status, headers.get('location'));
      // Nesting no answer of this API needs would overflow the stack later, half-way through printing.
      if (nestingDepth(text) > MAX_JSON_DEPTH) {
        throw new NetworkError(`HTTP ${status} from ${method} ${url}: the answer is JSON nested more than ${MAX_JSON_DEPTH} levels deep, which no answer of this API is`);
      }
      const parsed = looksJson(text) ? safeParse(text) : undefined;
      const body = isRecord(parsed) ? parsed : undefined;
      // Over the limit: HTTP 429, or (real servers) HTTP 200 with error 429. Not processed, so any method may be sent again.
      if (status === 429 || (body && (body.error === 429 || body.error === '429'))) {
        this.inFlight.overLimit();
        const said = retryAfterSeconds(headers.get('retry-after')) ?? toSeconds(body?.['Retry-After'] ?? body?.retryAfter);
        const reason = `the server says the rate limit is exceeded (HTTP ${status})`;
        await this.sleepFor(this.rateLimit.waitAfterOverLimit(said, waiting, `${method} ${url}`, reason), reason);
        continue;
      }
      if (status >= 500) this.inFlight.failure();
      else this.inFlight.answer(requestKind(method, path, options.query?.limit), attempt.ms);
      if (RETRY_STATUSES.has(status)) {
        if (method !== 'POST' && networkRetries < MAX_NETWORK_RETRIES) {
          await this.backoff(++networkRetries, `HTTP ${status}`);
          continue;
        }
        // A gateway error after a POST says nothing about whether the server carried it out.
        if (method === 'POST') throw this.networkError(method, url, 'unknown-outcome', `HTTP ${status}${statusText(status)}`, options, 1);
      }
      try {
        const result = this.interpret(method, url, path, status, text, parsed, options);
        if (method !== 'GET' && !options.notAChange) this.options.events?.changed?.();
        return result;
      } catch (error) {
        // Say that the failure was not a one-off when the answer came after retries.
        // Its status stays only when no earlier attempt may have been carried out: a clear answer to a retry says nothing of a lost one.
        if (networkRetries > 0 && error instanceof NetworkError) {
          throw Object.assign(new NetworkError(`${error.message} (${networkRetries + 1} attempts)`, error.hint, error.reason), lostAnswer ? {} : { status: error.status });
        }
        // A DELETE sent again after a lost answer finds nothing: most likely the first one deleted it.
        if (lostAnswer && method === 'DELETE' && error instanceof NotFoundError) {
          throw new NotFoundError(error.message, 'an earlier attempt whose answer was lost has probably deleted it');
        }
        throw error;
      }
    }
  }

  private async attempt(method: Method, path: string, options: RequestOptions): Promise<Attempt> {
    const userSignal = this.options.signal;
    if (userSignal?.aborted) return { kind: 'failed', failure: 'aborted', detail: NOT_SENT };
    const controller = new AbortController();
    const onAbort = () => controller.abort(userSignal?.reason);
    userSignal?.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.options.timeoutMs);
    const started = Date.now();
    // The trace's lines are made only for --debug: a bulk run sends thousands of requests.
    const tracing = this.tracing;
    const jsonText = options.json === undefined ? undefined : JSON.stringify(options.json);
    if (tracing) {
      this.trace(`> ${method} ${this.url(path, options.query)}`);
      if (this.options.apiKey) this.trace(`> Authorization: Bearer ${this.options.apiKey}`);
      if (jsonText !== undefined) this.trace(`> ${jsonText}`);
    }
    this.options.events?.requestStart?.();
    try {
      // The deadline and Ctrl-C are enforced here too, not only through the signal given to
      // fetch: undici follows it through a weak reference (nodejs/node#55428).
      const response = await untilAborted(
        this.http(this.fromBase(path), {
          method,
          searchParams: cleanQuery(options.query),
          ...(jsonText === undefined ? {} : { headers: { 'content-type': 'application/json' }, jsonText }),
          attemptSignal: controller.signal,
        } as Parameters<KyInstance>[1] & Beside),
        controller.signal,
      );
      if (tracing) {
        this.trace(`< HTTP ${response.status} (${Date.now() - started} ms)`);
        for (const [name, value] of response.headers) if (/^(x-ratelimit|retry-after|location|content-type)/i.test(name)) this.trace(`< ${name}: ${value}`);
      }
      const text = await readCapped(response, this.options.maxBodyBytes ?? MAX_BODY_BYTES, controller.signal);
      if (text === undefined) {
        const cap = this.options.maxBodyBytes ?? MAX_BODY_BYTES;
        const size = cap >= 1024 * 1024 ? `${cap / 1024 / 1024} MiB` : `${cap} bytes`;
        const detail = `HTTP ${response.status}: the answer to ${method} ${this.url(path, options.query)} is larger than ${size}; linkctl stopped reading it`;
        this.trace(`! ${detail}`);
        return { kind: 'failed', failure: 'too-large', detail };
      }
      if (tracing) {
        // Redacted whole, then cut: a secret (a user record's `apikey`) cut in two at the 4,000th
        // character would be out of the patterns' reach, its first part shown.
        const safe = redact(text, [this.options.apiKey]);
        const shown = safe.length > 4000 ? `${safe.slice(0, 4000)}... (${text.length} characters)` : safe;
        this.trace(`< ${shown.replace(/\s*\n\s*/g, ' ')}`);
      }
      return { kind: 'answered', status: response.status, headers: response.headers, text, ms: Date.now() - started };
    } catch (error) {
      const failure: Failure = userSignal?.aborted ? 'aborted' : timedOut ? 'timeout' : classify(error);
      const detail = describe(error);
      this.trace(`! ${failure}: ${detail}`);
      return { kind: 'failed', failure, detail };
    } finally {
      clearTimeout(timer);
      userSignal?.removeEventListener('abort', onAbort);
      this.options.events?.requestEnd?.();
    }
  }

  private interpret(method: Method, url: string, path: string, status: number, text: string, parsed: unknown, options: RequestOptions): Body {
    const where = `${method} ${url}`;
    if (status === 401 || status === 403) {
      // The server's message when it sent one ("A valid API key is required...", "You do not have the permission...").
      const message = isRecord(parsed) && typeof parsed.message === 'string' && parsed.message.trim() ? parsed.message.trim() : undefined;
      // 7.7 with pro mode on: the key is good, the user's plan lacks the API; another key will not help.
      const noApi = message !== undefined && /permission to use the API/i.test(message);
      throw new AuthError(message ? `${message} (HTTP ${status})` : `HTTP ${status}${statusText(status)}: the server refused ${where}`,
        noApi ? 'the key was accepted, but your plan on this server does not include the API: an admin of the site can add the API to the plan (admins always have it)' : undefined);
    }
    if (!text.trim()) {
      throw new NetworkError(`HTTP ${status}: the server sent an empty answer to ${where}`, options.emptyAnswerHint ?? 'the id may not exist or a URL may be invalid');
    }
    if (parsed === undefined) throw nonJsonError(where, path, status, text);
    const verdict = interpretBody(parsed, status >= 200 && status < 300 ? options.expect : []);
    if (verdict.kind === 'failure') {
      const { error } = verdict;
      // The server's own message (exit 1 or 4) stands alone; a protocol problem says where it happened.
      if (error instanceof NetworkError) throw new NetworkError(`HTTP ${status} from ${where}: ${error.message}`, error.hint);
      throw error;
    }
    if (verdict.kind !== 'success') throw new NetworkError(`HTTP ${status} from ${where}: an over-limit answer where none was expected`);
    if (status < 200 || status >= 300) throw new NetworkError(`HTTP ${status}${statusText(status)} from ${where}, with a body that claims success`);
    return verdict.body;
  }

  /** Waits before sending when the last answer said the window is used up (the policy says how long). */
  private async pace(): Promise<void> {
    const ms = this.rateLimit.waitBeforeSending();
    if (ms <= 0) return;
    const reason = 'the rate-limit window is used up (X-RateLimit-Remaining)';
    this.rateLimit.checkWait(ms, reason);
    await this.sleepFor(ms, reason);
  }

  /** Remembers X-RateLimit-Remaining/Reset, and tells the caller (progress and ETAs use them). */
  private noteRateLimit(headers: Headers): void {
    const read = this.rateLimit.noteHeaders(headers);
    if (read) this.options.events?.rate?.(read);
  }

  private async sleepFor(ms: number, reason: string): Promise<void> {
    this.options.events?.wait?.(ms / 1000, reason);
    this.trace(`! waiting ${Math.round(ms)} ms: ${reason}`);
    try {
      await sleep(ms, undefined, { signal: this.options.signal });
    } catch {
      throw new InterruptedError();
    }
  }

  /** `interrupted`: what an interruption of the wait is (a write whose earlier attempt may have been carried out says so). */
  private async backoff(retry: number, why: string, interrupted: () => InterruptedError = () => new InterruptedError()): Promise<void> {
    // Exponential backoff with full jitter: a random wait in [0, base * 2^retry).
    const ms = Math.random() * BACKOFF_BASE_MS * 2 ** retry;
    this.trace(`! ${why}; retry ${retry} of ${MAX_NETWORK_RETRIES} in ${Math.round(ms)} ms`);
    try {
      await sleep(ms, undefined, { signal: this.options.signal });
    } catch {
      throw interrupted();
    }
  }

  private networkError(method: Method, url: string, failure: Failure, detail: string, options: RequestOptions, attempts: number): NetworkError {
    const what = `${failure === 'timeout' ? `no complete answer within ${this.options.timeoutMs / 1000} s (--timeout)` : detail}${attempts > 1 ? ` (${attempts} attempts)` : ''}`;
    if (method === 'POST' && failure !== 'never-sent') {
      return new NetworkError(
        `${method} ${url}: ${what}; the request was sent once and not repeated: it may or may not have been created`,
        checkHint(options),
      );
    }
    const hint =
      failure === 'never-sent'
        ? 'is the server running, and the base URL right?'
        : failure === 'timeout'
          ? 'the server may be overloaded; raise --timeout or try again later'
          : 'the server or the network dropped the connection; try again later';
    return new NetworkError(`${method} ${url}: ${what}`, hint, failure === 'timeout' ? 'timeout' : undefined);
  }

  /**
   * GETs a file a record points at (a QR code's image). The key goes only to the configured
   * origin; redirects are followed within that origin only (at most 3); the body is capped.
   * `peek` (a QR code's own short link): one request, no key, its own User-Agent, a redirect
   * answered as it is (its Location given back) rather than followed.
   */
  async download(target: string, maxBytes = MAX_DOWNLOAD_BYTES, peek?: { userAgent: string }): Promise<{ url: string; status: number; contentType: string; bytes: Buffer; location?: string }> {
    let url: URL;
    try {
      url = new URL(target, this.base);
    } catch {
      throw new NetworkError(`the server gave "${redact(target, [this.options.apiKey])}" as the file's URL, which is not a URL`);
    }
    for (let hops = 0; ; hops++) {
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new NetworkError(`the file's URL ${url.href} is not http(s)`);
      const own = url.origin === this.base.origin;
      if (this.options.signal?.aborted) throw new InterruptedError();
      // Another origin is resolved and checked before a connection (./outbound.ts); the API's own is the user's choice.
      let guarded: GuardedFetch | undefined;
      if (!own) {
        const { guardedFetch } = await import('./outbound.js');
        try {
          guarded = await guardedFetch(url, this.options.env, this.options.outboundAllow?.() ?? []);
        } catch (error) {
          if (error instanceof CliError) error.message = redact(error.message, [this.options.apiKey]);
          throw error;
        }
      }
      const doFetch = guarded?.fetch ?? fetchFor(url.hostname, this.options.env) ?? fetch;
      const controller = new AbortController();
      const onAbort = () => controller.abort();
      this.options.signal?.addEventListener('abort', onAbort, { once: true });
      let timedOut = false;
      const timer = setTimeout(() => { timedOut = true; controller.abort(); }, this.options.timeoutMs);
      this.trace(`> GET ${url.href}${own ? '' : ' (another origin: no key sent)'}`);
      this.options.events?.requestStart?.();
      try {
        let response: Response;
        try {
          const headers: Record<string, string> = peek ? { 'User-Agent': peek.userAgent } : own ? { Authorization: `Bearer ${this.options.apiKey}` } : {};
          response = await doFetch(url.href, { headers, redirect: 'manual', signal: controller.signal });
        } catch (error) {
          if (this.options.signal?.aborted) throw new InterruptedError();
          throw new NetworkError(`GET ${url.href}: ${timedOut ? `no answer within ${this.options.timeoutMs / 1000} s (--timeout)` : describe(error)}`);
        }
        this.trace(`< HTTP ${response.status} ${response.headers.get('content-type') ?? ''}`);
        if (peek && response.status >= 300 && response.status < 400) {
          void response.body?.cancel().catch(() => undefined);
          return { url: url.href, status: response.status, contentType: response.headers.get('content-type') ?? '', bytes: Buffer.alloc(0), location: response.headers.get('location') ?? undefined };
        }
        if (response.status >= 300 && response.status < 400) {
          void response.body?.cancel().catch(() => undefined);
          const location = response.headers.get('location');
          const next = location ? new URL(location, url) : undefined;
          if (!next || next.origin !== this.base.origin || hops >= 3) {
            throw new NetworkError(`HTTP ${response.status}: ${url.href} redirects to ${next?.href ?? 'nowhere'}`,
              next && next.origin !== this.base.origin ? 'linkctl does not follow a redirect to another site when downloading; open the URL in a browser if you trust it' : 'too many redirects');
          }
          url = next;
          continue;
        }
        let bytes: Buffer | undefined;
        try {
          bytes = await readCappedBytes(response, maxBytes, controller.signal);
        } catch (error) {
          if (this.options.signal?.aborted) throw new InterruptedError();
          throw new NetworkError(`GET ${url.href}: ${timedOut ? `the file did not arrive within ${this.options.timeoutMs / 1000} s (--timeout)` : describe(error)}`);
        }
        if (!bytes) throw new NetworkError(`GET ${url.href}: the file is larger than ${maxBytes / 1024 / 1024} MiB; linkctl stopped reading it`);
        return { url: url.href, status: response.status, contentType: response.headers.get('content-type') ?? '', bytes };
      } catch (error) {
        if (error instanceof CliError) error.message = redact(error.message, [this.options.apiKey]);
        throw error;
      } finally {
        clearTimeout(timer);
        this.options.signal?.removeEventListener('abort', onAbort);
        this.options.events?.requestEnd?.();
        void guarded?.close();
      }
    }
  }

  private get tracing(): boolean {
    return Boolean(this.options.events?.debug);
  }

  private trace(line: string): void {
    if (this.options.events?.debug) this.options.events.debug(redact(line, [this.options.apiKey]));
  }
}

/** What to do after a creation whose outcome is unknown. */
/** A write interrupted after it was sent: the server may have carried it out (a POST: created it). */
function interruptedWrite(method: Method, url: string, options: RequestOptions): InterruptedError {
  const what = method === 'POST' ? 'created' : method === 'DELETE' ? 'deleted' : 'carried out';
  return new InterruptedError(
    `interrupted during ${method} ${url}: the request was sent and its answer not read: it may or may not have been ${what}`,
    checkHint(options),
    true,
  );
}

function checkHint(options: RequestOptions): string {
  return options.checkWith ? `check with \`${options.checkWith}\` before trying again` : 'check whether it took effect before trying again';
}

function cleanQuery(query: Query | undefined): Record<string, string> | undefined {
  if (!query) return undefined;
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(query)) if (value !== undefined) out[key] = String(value);
  return out;
}
