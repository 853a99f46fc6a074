// HTTP plumbing of the sandbox: recording, injected faults, auth, rate limit, admin
// endpoints and the state file. The API itself is in routes.ts.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { dispatch, htmlPage, JSON_TYPE, Raw, type Plan, type Reply, type ServerVersion } from './routes.js';
import { publicPage, type Visit } from './visits.js';
import { afterApi, afterVisit, setWebhooks, type Webhooks } from './webhooks.js';
import { qrPage, type QrImages } from './qr-images.js';
import { DEFAULT_QR_IMAGES } from './types.js';
import { SANDBOX_OWN_ORIGINS, SANDBOX_PAGES_PATH, sandboxPagesAt } from './own-origin.js';
import {
  loadState, saveState, seedState, stateStamp, StateLockedError, timestamp, withStateLock, SANDBOX_KEY, SANDBOX_USER_KEY, type ExtraSeed, type Link, type State, type User,
} from './state.js';
import { readSeed } from './seed.js';
import { ConfigError } from '../errors.js';
import { rateLimiter } from './rate-limit.js';
import { DEFAULT_API_PATH, normaliseApiPath } from '../http/api-path.js';
import { developersPage } from './developers.js';
import { ssoPage } from './admin.js';
import { authorizePage, exchange, registerClient, tokenUser } from './oauth.js';

export interface SandboxOptions {
  host?: string;
  port?: number;
  stateFile?: string;
  /** The key of the first user (the demo account, an administrator); default the sandbox key, or the seed's. */
  key?: string;
  /** The key of the second user (a plain user); default the sandbox's user key, or the seed's. */
  userKey?: string;
  /**
   * An installation to start from, and to go back to on `POST /__sandbox/reset`: a JSON seed file
   * (seed.ts, docs/sandbox.md "Seeds"): its users and their overlays and splash pages, nothing else.
   * Replaces the demo records (and `seed`).
   */
  seedFile?: string;
  /** Lists the site's own domain (id null) after the user's branded domains, as an installation with multiple domains on does; 7.7 with them off does not. */
  systemDomains?: boolean;
  /** Requests per window per key; none by default (`{limit: 30, windowSeconds: 60}` is a real server's default). */
  rateLimit?: { limit: number; windowSeconds: number } | null;
  rateLimitHeaders?: boolean;
  /** Real-server shapes (real-servers.md), the default; false = the documented shapes of link-api.md. */
  quirks?: boolean;
  /** Ids and counts as strings and `maxpage` as `1.0`, as servers on PHP before 8.1 send them; default integers (PHP 8.1+). */
  stringIds?: boolean;
  /** `basic`: an account whose plan lacks targeting, expiry, parameters, pixels, deep links, aliases and redirect types; `no-api`: one whose plan lacks the API (every API request HTTP 403). */
  plan?: Plan;
  /** Host names answered besides the loopback ones (a test that reaches the sandbox under another name). */
  hosts?: string[];
  /** `6`: a 6.x server (ignores `?short=`, lets X-RateLimit-Remaining go negative); default 7 (the product 7.6 and 7.7). */
  version?: ServerVersion;
  seed?: ExtraSeed;
  /** QR images: `svg` as the product 7.7 serves them (default: the image at the first ask, then a 302 to the stored file), or `png` at the code's link. */
  qrImages?: QrImages;
  /** The rate limit's clock (ms since the epoch), for tests that own their time; default the system's (windows end by the monotonic clock). */
  clock?: () => number;
  /**
   * How long each request to the API or a public page takes beyond the work (ms): half before the
   * request is carried out, half before its answer is sent, as a network and a slow server would
   * (`sandbox serve --latency 30ms`). A request whose client went away is still carried out.
   */
  latencyMs?: number;
  /** Each request's latency is spread evenly over latencyMs ± jitterMs (never below 0). */
  jitterMs?: number;
  /** The product's webhook URLs (webhooks.ts), kept in the state: set at start when given. */
  webhooks?: Webhooks;
  /** Where the API is served (`/v2`), as an installation's `apiroute` says; default `/api`. `/developers` lists it. */
  apiPath?: string;
  /** Called once per answered request (`sandbox serve` logs it). */
  onRequest?: (method: string, path: string, status: number, ms: number) => void;
}
export { SANDBOX_KEY, SANDBOX_USER_KEY };
export interface RecordedRequest {
  method: string; path: string; query: Record<string, string>; headers: Record<string, string>; body: unknown; rawBody: string;
  /** When it arrived (Date.now()): the benchmark checks --all pacing against the aligned windows. */
  at: number;
  /** API requests in flight when it arrived, itself included (0 for other paths). */
  inFlight: number;
  /** The injected fault that answered it, if one did. */
  fault?: Fault['kind'];
}
/** A fault with `method` waits for the first request of that method (an add that looks up first). */
export type Fault = ({ method?: string }) & (
  | { kind: 'html'; status: number }
  | { kind: 'empty' }
  | { kind: 'truncated' }
  | { kind: 'reset-before-body' }
  | { kind: 'reset-after-body' }
  | { kind: 'hang' }
  | { kind: 'redirect'; status?: number; location: string }
  | { kind: 'over-limit'; retryAfter?: number }
  | { kind: 'http-429'; retryAfter?: number }
  | { kind: 'garbage-ratelimit-headers' }
  /** An application error as the product answers one: HTTP 200, `{"error":1,"message":…}` (another user's alias: "That alias is taken."). */
  | { kind: 'error'; message: string });
/** API requests being handled: now, and the most at once since the request log was last cleared. */
export interface InFlight {
  now: number;
  max: number;
}
export interface Sandbox {
  url: string;
  port: number;
  /** The first user's key (the administrator). */
  key: string;
  /** Where its API is served (`/api` unless started with another). */
  apiPath: string;
  /** The second user's key (a plain user of the same installation). */
  userKey: string;
  requests: RecordedRequest[];
  /** API requests in flight at once (from arrival to the answer sent or the connection gone): what pipelining tests assert. */
  inFlight: InFlight;
  injectFault(fault: Fault, times?: number): void;
  reset(): void;
  close(): Promise<void>;
}

const MAX_BODY = 1024 * 1024;
const FAULT_KINDS = new Set<Fault['kind']>(['html', 'empty', 'truncated', 'reset-before-body', 'reset-after-body', 'hang',
  'redirect', 'over-limit', 'http-429', 'garbage-ratelimit-headers']);

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string | Buffer;
  /** The answer names the sandbox's pages by their placeholder origin, not the current one (resolveOwnOrigin). */
  keepsPlaceholder?: boolean;
}
const json = (status: number, value: unknown, headers: Record<string, string> = {}): Answer =>
  ({ status, headers: { 'Content-Type': JSON_TYPE, ...headers }, body: JSON.stringify(value) });
const fromReply = (reply: Reply): Answer => (reply instanceof Raw
  ? { status: reply.status, headers: { 'Content-Type': reply.contentType }, body: reply.body }
  : json(200, reply));
const overLimit = (retryAfter: number) => ({ error: 429, message: 'Too Many API Requests.', 'Retry-After': retryAfter });

/**
 * Puts the sandbox's current origin in place of the placeholder its pages are stored under
 * (own-origin.ts) in what a visitor follows: a link's redirect (Location) and the HTML pages a
 * visit gets (splash, overlays). API answers (JSON) and QR codes' redirects keep the placeholder,
 * so what linkctl reads does not change with the port from one run to the next.
 */
function resolveOwnOrigin(a: Answer, base: string): Answer {
  const swap = (text: string) => SANDBOX_OWN_ORIGINS.reduce((t, origin) => t.split(`${origin}/`).join(`${sandboxPagesAt(base)}/`), text);
  const named = (text: string) => SANDBOX_OWN_ORIGINS.some((origin) => text.includes(`${origin}/`));
  if (typeof a.body === 'string' && a.headers['Content-Type']?.startsWith('text/html') && named(a.body)) a.body = swap(a.body);
  if (a.headers.Location && named(a.headers.Location)) a.headers.Location = swap(a.headers.Location);
  return a;
}

/** The small pages the seeded links lead to (GET /pages/NAME), so checking them needs no network. */
function ownPage(method: string, path: string): Answer | undefined {
  if ((method !== 'GET' && method !== 'HEAD') || !path.startsWith(`${SANDBOX_PAGES_PATH}/`)) return undefined;
  const name = path.slice(SANDBOX_PAGES_PATH.length + 1);
  if (!/^[a-z0-9][a-z0-9/-]*$/.test(name)) return undefined;
  const body = `<!doctype html><html><head><meta charset="utf-8"><title>Sandbox page ${name}</title></head><body><h1>Sandbox page ${name}</h1></body></html>`;
  return { status: 200, headers: { 'Content-Type': 'text/html; charset=UTF-8' }, body: method === 'HEAD' ? '' : body };
}

function send(res: ServerResponse, a: Answer) {
  res.writeHead(a.status, { ...a.headers, 'Content-Length': String(Buffer.byteLength(a.body)) });
  res.end(a.body);
}

/**
 * Reads the body, at most MAX_BODY bytes: past that it stops reading and says so at once (the
 * caller answers 413 and closes the connection), so a 20 MB body is never taken in.
 */
function readBody(req: IncomingMessage): Promise<{ text: string; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) return void chunks.push(c);
      req.off('data', onData);
      req.pause();
      resolve({ text: '', tooLarge: true });
    };
    req.on('data', onData);
    req.on('end', () => resolve({ text: Buffer.concat(chunks).toString('utf8'), tooLarge: false }));
    req.on('error', reject);
  });
}

/** The request log keeps the latest requests only: a long-running `sandbox serve` stays small. */
const MAX_LOGGED_REQUESTS = 1000;
const TOO_LARGE = { error: 1, message: 'Request body too large (limit 1 MB).' };

function validFault(f: unknown): f is Fault {
  if (typeof f !== 'object' || f === null) return false;
  const o = f as Record<string, unknown>;
  if (!FAULT_KINDS.has(o.kind as Fault['kind'])) return false;
  if (o.kind === 'html') return Number.isInteger(o.status);
  if (o.kind === 'redirect') return typeof o.location === 'string';
  return true;
}

/**
 * The sandbox's key is published, so no web page may reach it: a page whose host name is made
 * to resolve to 127.0.0.1 (DNS rebinding) still sends its own name in `Host`. Only loopback
 * names and addresses are answered, plus the address the sandbox was told to listen on when it
 * is a specific one. A request without `Host` (HTTP/1.0) comes from no browser.
 */
const LOOPBACK_HOST = /^(localhost|[a-z0-9.-]+\.localhost|127(\.\d{1,3}){3}|\[::1\])(:\d{1,5})?$/i;
export function hostAllowed(host: string | undefined, listenHost: string, extra: readonly string[] = []): boolean {
  if (host === undefined) return true;
  if (LOOPBACK_HOST.test(host)) return true;
  const name = host.toLowerCase().replace(/:\d{1,5}$/, '');
  if (extra.some((h) => h.toLowerCase() === name)) return true;
  if (['', '0.0.0.0', '::', '[::]'].includes(listenHost)) return false;
  const listen = listenHost.includes(':') && !listenHost.startsWith('[') ? `[${listenHost}]` : listenHost;
  return name === listen.toLowerCase();
}
const wrongHost = (host: string) => ({
  error: 1,
  message: `The sandbox answers only requests addressed to localhost, 127.0.0.1 or [::1], not to "${host.slice(0, 100)}": its key is published, so other host names are refused (a web page could otherwise reach it by DNS rebinding).`,
});

/**
 * The key an Authorization header carries, read as the product reads it (fact 40): every `Token ` is
 * removed, then it must hold `Bearer ` (a capital B and a space), every `Bearer ` is removed, and the
 * rest is the key (compared ignoring letter case). undefined when the header is not of that form.
 */
export function keyOfHeader(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const withoutToken = header.split('Token ').join('');
  if (!withoutToken.includes('Bearer ')) return undefined;
  return withoutToken.split('Bearer ').join('').trim() || undefined;
}

/** `YYYY-MM-DD HH:MM:SS` (UTC) or an epoch in ms, as `POST /__sandbox/clock` takes `at`. */
function instant(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v !== 'string') return undefined;
  const t = Date.parse(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(v) ? `${v.replace(' ', 'T')}Z` : v);
  return Number.isNaN(t) ? undefined : t;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const quirks = options.quirks ?? true;
  const limits = options.rateLimit ?? null;
  const plan = options.plan ?? 'pro';
  const version = options.version ?? '7';
  const stringIds = options.stringIds ?? false;
  const sendLimitHeaders = options.rateLimitHeaders ?? true;
  const stateFile = options.stateFile;
  const apiPath = normaliseApiPath(options.apiPath ?? DEFAULT_API_PATH);
  /** A request's path as the routes know it (`/api/urls`), when it is under the API path (`/v2/urls`); else undefined. */
  const routeOf = (pathname: string): string | undefined =>
    pathname === apiPath ? '/api' : pathname.startsWith(`${apiPath}/`) ? `/api${pathname.slice(apiPath.length)}` : undefined;
  /** The sandbox's clock: records' dates and expiry checks. `POST /__sandbox/clock` can stop it at an instant (a replay's fixed time). */
  let frozenAt: number | undefined;
  const now = () => frozenAt ?? (options.clock ? options.clock() : Date.now());
  // what a reset goes back to: the seed file's installation, or the demo account
  const fresh = options.seedFile ? readSeed(options.seedFile, () => timestamp(now())) : () => seedState(options.seed);
  // keys given as options stand for the first and second users' keys, without being written to the state
  const keyOf = (u: User, i: number) => (i === 0 ? options.key : i === 1 ? options.userKey : undefined) ?? u.key;
  const userOf = (given: string): User | undefined => {
    const lower = given.toLowerCase();
    // a key, or a token of the OAuth flow (oauth.ts) while it lasts
    return state.users.find((u, i) => keyOf(u, i).toLowerCase() === lower) ?? tokenUser(state, given, now());
  };

  // Without a state file the state lives in memory only (tests, the 100k-link benchmark).
  // With one, other processes may change the file at any time: reads reload it when its stamp
  // changed, and mutations run reload-change-save under the file's lock (see locked()).
  let state!: State;
  let stamp: string | undefined; // of the version `state` was read from or saved as
  const persist = () => {
    if (!stateFile) return;
    saveState(stateFile, state);
    stamp = stateStamp(stateFile);
  };
  /** Reloads the state file if another process replaced it; false when there is none. */
  const refresh = (): boolean => {
    const now = stateStamp(stateFile!);
    if (now === undefined) return false;
    if (now !== stamp) {
      state = loadState(stateFile!) ?? state;
      stamp = now;
    }
    return true;
  };
  /** Runs a read-modify-write of the state; with a state file, under its lock and on its latest version. */
  const locked = <T>(fn: () => T): T | Promise<T> => (stateFile ? withStateLock(stateFile, () => {
    refresh();
    try {
      return fn();
    } catch (err) {
      stamp = undefined; // `state` may be half-changed: read the file again next time
      throw err;
    }
  }) : fn());
  if (!stateFile) state = fresh();
  // A seed replaces the state file's records; otherwise a state file is created on first start,
  // under the lock, so parallel first starts agree on one.
  else if (options.seedFile) await withStateLock(stateFile, () => { state = fresh(); persist(); });
  else if (!refresh()) await locked(() => { if (stamp === undefined) { state = fresh(); persist(); } });

  const requests: RecordedRequest[] = [];
  /** API requests since the log was last cleared: the log itself keeps only the last MAX_LOGGED_REQUESTS. */
  let apiRequests = 0;
  const inFlight: InFlight = { now: 0, max: 0 };
  const latencyMs = options.latencyMs ?? 0;
  const jitterMs = options.jitterMs ?? 0;
  let closed = false;
  /** Half of one request's latency (the way there or back), or undefined when there is none. */
  const halfLatency = (): Promise<void> | undefined => {
    if (latencyMs <= 0 && jitterMs <= 0) return undefined;
    const ms = Math.max(0, latencyMs + (Math.random() * 2 - 1) * jitterMs) / 2;
    return new Promise((resolve) => setTimeout(resolve, ms));
  };
  let faults: { fault: Fault; left: number }[] = [];
  const limiter = rateLimiter(limits, { headers: sendLimitHeaders, negativeRemaining: quirks && version === '6', clock: options.clock });
  // 7.7 sends a well-formed header with an unknown key the limit's headers even with pro mode off (fact 40): the product's default limit
  const strangers = limits ? limiter : rateLimiter({ limit: 30, windowSeconds: 60 }, { headers: sendLimitHeaders && quirks, negativeRemaining: false, clock: options.clock });
  const sockets = new Set<Socket>();
  let base = '';

  const takeFault = (method: string): Fault | undefined => {
    const head = faults[0];
    if (!head || (head.fault.method && head.fault.method !== method)) return undefined;
    if (--head.left <= 0) faults.shift();
    return head.fault;
  };
  const injectFault = (fault: Fault, times = 1) => { if (times > 0) faults.push({ fault, left: times }); };

  async function api(method: string, url: URL, route: string, auth: string | undefined, rawBody: string): Promise<Answer> {
    const token = keyOfHeader(auth);
    const refused = { error: 1, message: 'A valid API key is required to use this service.' };
    // The OAuth token exchange takes no key: the code and the client's secret are its credentials.
    if (route === '/api/oauth/token' && method === 'POST') {
      return fromReply(await locked(() => {
        const reply = exchange(state, rawBody, now());
        persist();
        return reply;
      }));
    }
    const user = token === undefined ? undefined : userOf(token);
    // an unknown key is counted under its own window and carries the limit's headers (the recording);
    // a request without a well-formed Bearer header carries none
    if (!user) return json(403, refused, token === undefined ? {} : strangers.check(token).headers);
    // 7.7 with pro mode on: a user whose plan does not include the API, whatever the key.
    if (plan === 'no-api') return json(403, { error: 1, message: 'You do not have the permission to use the API.' });
    // one window per key, however its letters are written
    const limit = limiter.check(keyOf(user, state.users.indexOf(user)).toLowerCase());
    if (!limit.allowed) return json(200, overLimit(limit.retryAfter), limit.headers);
    // A sign-in link is kept until used (admin.ts): its GET changes the state.
    const mutates = (method !== 'GET' && method !== 'HEAD') || route.startsWith('/api/user/login/');
    const run = () => {
      // the state may have been read again since the key was checked: the same user, by id
      const me = state.users.find((u) => u.id === user.id) ?? user;
      const reply = route === '/api'
        ? new Raw(500, '') // `GET /api` is an empty HTTP 500 on 7.7 (fact 41)
        : dispatch({ state, quirks, stringIds, base, plan, version, now, systemDomains: options.systemDomains ?? false }, me, method, route, Object.fromEntries(url.searchParams), rawBody);
      if (mutates && !(reply instanceof Raw) && reply.error === 0) persist();
      return reply;
    };
    let reply: Reply;
    try {
      if (mutates) reply = await locked(run);
      else {
        if (stateFile) refresh(); // a stat per read; the file is only parsed when it changed
        reply = run();
      }
    } catch (err) {
      if (err instanceof StateLockedError) return json(500, { error: 1, message: 'sandbox state is locked' }, limit.headers);
      // the file was broken after start: say so to the client, as startSandbox does to its caller
      if (err instanceof ConfigError) return json(500, { error: 1, message: [err.message, err.hint].filter(Boolean).join('; ') }, limit.headers);
      throw err;
    }
    const answer = fromReply(reply);
    Object.assign(answer.headers, limit.headers);
    return answer;
  }

  /** Short links and QR images (no key, no rate limit); a visit is counted under the state lock. */
  async function page(visit: Visit): Promise<Answer> {
    const own = ownPage(visit.method, visit.path);
    if (own) return own;
    const run = () => {
      // QR images and QR codes' short links (qr-images.ts) first, then short links of links.
      // A QR code's short link answers with the code's content, which linkctl reads as the code's
      // data (qr/read.ts): it keeps the placeholder, as the API does, so the data read does not
      // change with the port (a phone could not reach 127.0.0.1 anyway).
      // The site's own pages of the admin's features: OAuth approval and one-time sign-in links.
      if (visit.path === '/oauth/authorize') {
        const approval = authorizePage(state, visit.method, visit.query, visit.body);
        if (approval) persist();
        return approval && { ...approval, keepsPlaceholder: true };
      }
      const sso = ssoPage(state, visit.path, now());
      if (sso) {
        persist();
        return fromReply(sso);
      }
      const qr = qrPage(state, visit, { base, images: options.qrImages ?? DEFAULT_QR_IMAGES });
      const answer = qr ? { ...qr, keepsPlaceholder: true } : publicPage(state, visit, now());
      if (answer?.changed) persist();
      return answer;
    };
    let answer;
    try {
      if (visit.method === 'GET' || visit.method === 'POST') answer = await locked(run);
      else {
        if (stateFile) refresh();
        answer = run();
      }
    } catch (err) {
      if (err instanceof ConfigError) return fromReply(htmlPage(500));
      throw err;
    }
    return answer ?? fromReply(htmlPage(404));
  }

  /** Answers of faults that replace the normal answer; undefined = process the request. */
  function faultAnswer(fault: Fault): Answer | 'hang' | undefined {
    switch (fault.kind) {
      case 'html': return fromReply(htmlPage(fault.status));
      case 'empty': return { status: 200, headers: { 'Content-Type': 'text/html; charset=UTF-8' }, body: '' };
      case 'truncated': {
        const whole = JSON.stringify({ error: 0, data: { result: 3, perpage: 15, currentpage: 1, nextpage: null, maxpage: 1,
          qrs: [{ id: 1, link: `${base}/qr/abc123`, scans: 128, name: 'Restaurant menu', date: '2025-01-10 12:00:00' }] } });
        return { status: 200, headers: { 'Content-Type': JSON_TYPE }, body: whole.slice(0, Math.floor(whole.length / 2)) };
      }
      case 'hang': return 'hang';
      case 'redirect':
        return { status: fault.status ?? 301, headers: { Location: fault.location, 'Content-Type': 'text/html; charset=UTF-8' }, body: `<a href="${fault.location}">Moved</a>` };
      case 'over-limit': return json(200, overLimit(fault.retryAfter ?? 1));
      case 'http-429': return json(429, overLimit(fault.retryAfter ?? 1), { 'Retry-After': String(fault.retryAfter ?? 1) });
      case 'error': return json(200, { error: 1, message: fault.message });
      default: return undefined;
    }
  }

  async function admin(req: IncomingMessage, res: ServerResponse, path: string) {
    // Control routes need the administrator's key: any web page can send a POST to localhost.
    const token = keyOfHeader(req.headers.authorization);
    if (!token || !userOf(token)?.admin) {
      return send(res, json(401, { ok: false, message: 'The sandbox control routes need an administrator\'s key (Authorization: Bearer KEY).' }));
    }
    const { text, tooLarge } = await readBody(req);
    if (tooLarge) return send(res, json(413, TOO_LARGE, { Connection: 'close' }));
    const route = `${req.method} ${path}`;
    if (route === 'GET /__sandbox/requests') return send(res, json(200, requests));
    // The log keeps the last 1,000; the count is of every API request since the log was cleared (bench).
    if (route === 'GET /__sandbox/requests/count') return send(res, json(200, { api: apiRequests }));
    // API requests in flight now, and the most at once since the log was cleared (pipelining tests and the bench).
    if (route === 'GET /__sandbox/requests/in-flight') return send(res, json(200, inFlight));
    if (route === 'DELETE /__sandbox/requests') { clearLog(); return send(res, json(200, { ok: true })); }
    if (route === 'POST /__sandbox/reset') {
      await (stateFile ? withStateLock(stateFile, reset) : reset()); // no reload first: reset mends a corrupt file
      return send(res, json(200, { ok: true }));
    }
    if (route === 'POST /__sandbox/clock') {
      // {"at": "YYYY-MM-DD HH:MM:SS" | ms | null} stops the clock at an instant (null: the real clock again); {"advanceMs": N} moves it on
      let body: { at?: unknown; advanceMs?: unknown } | undefined;
      try { body = JSON.parse(text) as typeof body; } catch { /* answered below */ }
      const at = body?.at === null ? null : instant(body?.at);
      const advance = body?.advanceMs;
      if (!body || (body.at !== undefined && at === undefined) || (advance !== undefined && !(typeof advance === 'number' && Number.isFinite(advance) && advance >= 0))) {
        return send(res, json(400, { ok: false, message: 'Expected {"at": "YYYY-MM-DD HH:MM:SS" | epoch ms | null} and/or {"advanceMs": N}.' }));
      }
      if (body.at !== undefined) frozenAt = at ?? undefined;
      if (typeof advance === 'number') frozenAt = now() + advance;
      return send(res, json(200, { ok: true, now: timestamp(now()), frozen: frozenAt !== undefined }));
    }
    if (route === 'POST /__sandbox/oauth-clients') {
      // the admin's OAuth client form: {"name", "clientid", "secret", "redirect"} (one redirect URI)
      let body: Record<string, unknown> | undefined;
      try { body = JSON.parse(text) as typeof body; } catch { /* answered below */ }
      const fields = ['name', 'clientid', 'secret', 'redirect'] as const;
      if (!body || fields.some((f) => typeof body![f] !== 'string' || !body![f])) {
        return send(res, json(400, { ok: false, message: 'Expected {"name", "clientid", "secret", "redirect"}, each a non-empty string.' }));
      }
      const client = Object.fromEntries(fields.map((f) => [f, String(body![f])])) as { name: string; clientid: string; secret: string; redirect: string };
      await locked(() => { registerClient(state, client); persist(); });
      return send(res, json(200, { ok: true }));
    }
    if (route === 'POST /__sandbox/webhooks') {
      // the product's Tools, Integrations page: {"created": URL|null, "visits": URL|null}
      try {
        const given = JSON.parse(text) as Webhooks;
        await locked(() => { setWebhooks(state, { ...given, base }); persist(); });
      } catch (err) {
        return send(res, json(400, { ok: false, message: `Expected {"created"?: URL|null, "visits"?: URL|null}: ${(err as Error).message}` }));
      }
      return send(res, json(200, { ok: true }));
    }
    if (route === 'POST /__sandbox/fault') {
      let body: { fault?: unknown; times?: unknown } | undefined;
      try { body = JSON.parse(text) as typeof body; } catch { /* answered below */ }
      const times = body?.times ?? 1;
      if (!validFault(body?.fault) || !Number.isInteger(times)) {
        return send(res, json(400, { ok: false, message: 'Expected {"fault": Fault, "times"?: integer}.' }));
      }
      injectFault(body.fault, times as number);
      return send(res, json(200, { ok: true }));
    }
    return send(res, json(404, { ok: false, message: `Unknown admin route ${route}.` }));
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    if (!hostAllowed(req.headers.host, options.host ?? '127.0.0.1', options.hosts)) return send(res, json(403, wrongHost(req.headers.host!), { Connection: 'close' }));
    const url = new URL(req.url ?? '/', 'http://sandbox');
    if (url.pathname.startsWith('/__sandbox/')) return admin(req, res, url.pathname);

    const method = req.method ?? 'GET';
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    const record: RecordedRequest = { method, path: url.pathname, query: Object.fromEntries(url.searchParams), headers, body: undefined, rawBody: '', at: Date.now(), inFlight: 0 };
    requests.push(record); // before reading the body, so the log is in arrival order
    const route = routeOf(url.pathname);
    if (route) {
      apiRequests++;
      inFlight.max = Math.max(inFlight.max, (record.inFlight = ++inFlight.now));
      res.once('close', () => inFlight.now--); // answered, or the connection is gone
    }
    if (requests.length > MAX_LOGGED_REQUESTS) requests.splice(0, requests.length - MAX_LOGGED_REQUESTS);
    const fault = takeFault(method);
    if (fault) record.fault = fault.kind;
    if (fault?.kind === 'reset-before-body') return void req.socket.destroy();

    const { text, tooLarge } = await readBody(req);
    record.rawBody = text;
    try { record.body = text === '' ? undefined : JSON.parse(text); } catch { /* not JSON: rawBody has it */ }

    if (tooLarge) return send(res, json(413, TOO_LARGE, { Connection: 'close' }));
    const early = fault && faultAnswer(fault);
    if (early === 'hang') return; // close() destroys the socket
    // The way there: the request is carried out after it, whether or not its client is still waiting.
    await halfLatency();
    if (closed) return;
    if (early) {
      await halfLatency();
      return send(res, early);
    }

    const visit: Visit = { method, path: url.pathname, query: record.query, headers, remote: req.socket.remoteAddress ?? '', body: text };
    const answer = route ? await api(method, url, route, req.headers.authorization, text)
      : url.pathname === '/developers' && method === 'GET' ? fromReply(developersPage(base, apiPath))
      : await page(visit);
    // The product's webhooks go out while it answers (the visitor's redirect waits for them).
    const shortUrlOf = (l: Link) => `${l.domain ?? base}/${l.alias}`;
    if (route) await afterApi(state, shortUrlOf, method, route, answer.body);
    else await afterVisit(state, shortUrlOf, visit, answer.status);
    await halfLatency(); // the way back
    if (fault?.kind === 'reset-after-body') return void req.socket.destroy(); // processed, but the answer is lost
    if (fault?.kind === 'garbage-ratelimit-headers') {
      Object.assign(answer.headers, { 'X-RateLimit-Remaining': 'banana', 'X-RateLimit-Reset': 'soon' });
    }
    send(res, answer.keepsPlaceholder ? answer : resolveOwnOrigin(answer, base));
  }

  function clearLog() {
    requests.length = 0;
    apiRequests = 0;
    inFlight.max = inFlight.now;
  }

  function reset() {
    state = fresh();
    frozenAt = undefined; // the real clock again: a replay stops it anew after each reset
    persist();
    clearLog();
    faults = [];
    limiter.clear();
  }

  const server = createServer((req, res) => {
    if (options.onRequest) {
      const started = performance.now();
      res.on('finish', () => options.onRequest!(req.method ?? 'GET', (req.url ?? '/').split('?')[0]!, res.statusCode, performance.now() - started));
    }
    handle(req, res).catch((err: unknown) => {
      if (req.socket.destroyed) return; // the client went away mid-request: nobody to answer
      console.error('sandbox: internal error', err);
      if (!res.headersSent) send(res, fromReply(htmlPage(500)));
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => { server.off('error', reject); resolve(); });
  });
  const { address, port } = server.address() as AddressInfo;
  base = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  if (options.webhooks) await locked(() => { setWebhooks(state, { ...options.webhooks, base }); persist(); });

  return {
    url: base, port, key: keyOf(state.users[0]!, 0), userKey: state.users[1] ? keyOf(state.users[1], 1) : '', apiPath, requests, inFlight, injectFault, reset,
    close: () => new Promise<void>((resolve) => {
      closed = true; // requests still on their way are not carried out
      server.close(() => resolve());
      server.closeAllConnections();
      for (const s of sockets) s.destroy(); // hung requests included
    }),
  };
}

/** Replaces the state file with the seed, without reading it (so it also mends a corrupt one). */
export async function resetStateFile(stateFile: string, seed: ExtraSeed = {}): Promise<void> {
  await withStateLock(stateFile, () => saveState(stateFile, seedState(seed)));
}
