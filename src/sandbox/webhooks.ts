/**
 * The product's two webhooks, as the sandbox sends them (real-servers.md, "Webhooks";
 * test/fixtures/product-7.7/webhooks.json): a POST to the "created" URL when a link is created
 * (through the API too), and to the "visits" URL on every counted visit of a short link, with
 * the product's exact bodies:
 *
 *   {"type":"url","longurl":"…","shorturl":"…","date":"28-11-2026 15:03:20"}
 *   {"type":"view","shorturl":"…","country":null,"city":null,"referer":"…","os":"…","browser":"…","date":"2026-11-28 15:03:20"}
 *
 * Both dates in the server's time zone (the sandbox's: its TZ), slashes escaped as PHP's
 * json_encode does, no User-Agent, unsigned; sent while the visit is answered (the redirect
 * waits for it, as on the product); none for a crawler. A receiver that fails or is slow is
 * given up on after TIMEOUT_MS: the visit is answered anyway.
 *
 * The URLs live in the state file (`webhooks`), as the product keeps them per user: set by
 * `sandbox serve --webhook-created URL --webhook-visits URL` or `POST /__sandbox/webhooks`, and
 * used by `sandbox visits` too.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Link, State } from './state.js';
import { visitFacts, type Visit } from './visits.js';

export interface Webhooks {
  created?: string | null;
  visits?: string | null;
  /** The sandbox's address when they were set: the short URLs `sandbox visits` (another process) posts. */
  base?: string;
}

const TIMEOUT_MS = 5_000;

export const webhooksOf = (state: State): Webhooks => (state as State & { webhooks?: Webhooks }).webhooks ?? {};

/** Sets (or, with null, clears) the state's webhook URLs; a key left out is kept. Throws on a URL that is not http(s). */
export function setWebhooks(state: State, given: Webhooks): void {
  const next = { ...webhooksOf(state) };
  for (const key of ['created', 'visits'] as const) {
    const v = given[key];
    if (v === undefined) continue;
    if (v !== null && (typeof v !== 'string' || !/^https?:\/\/[^/]/i.test(v))) throw new Error(`webhook "${key}" must be an http(s) URL or null`);
    next[key] = v;
  }
  if (typeof given.base === 'string') next.base = given.base;
  (state as State & { webhooks?: Webhooks }).webhooks = next;
}

const pad = (n: number) => String(n).padStart(2, '0');
/** The server's wall clock (its time zone), as the product writes it in each of its two formats. */
function local(ms: number) {
  const d = new Date(ms);
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return { dayFirst: `${pad(d.getDate())}-${pad(d.getMonth() + 1)}-${d.getFullYear()} ${time}`, yearFirst: `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${time}` };
}

/** JSON as PHP's json_encode writes it: `/` escaped as `\/`. */
const phpJson = (value: unknown) => JSON.stringify(value).replace(/\//g, '\\/');

export function createdBody(shortUrl: string, longUrl: string, ms = Date.now()): string {
  return phpJson({ type: 'url', longurl: longUrl, shorturl: shortUrl, date: local(ms).dayFirst });
}

export function visitBody(shortUrl: string, visit: Visit, ms = Date.now()): string | undefined {
  const facts = visitFacts(visit);
  if (facts.crawler) return undefined;
  return phpJson({ type: 'view', shorturl: shortUrl, country: facts.country, city: null, referer: facts.referrer, os: facts.os, browser: facts.browser, date: local(ms).yearFirst });
}

/** POSTs `body` as the product does; resolves when answered, failed or timed out (never rejects). */
export function post(url: string, body: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return resolve(undefined);
    }
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(target, { method: 'POST', headers: { accept: '*/*', 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }, timeout: TIMEOUT_MS }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
      res.on('error', () => resolve(undefined));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(undefined));
    req.end(body);
  });
}

/** After the API answered: a created link posts to the "created" URL. */
export async function afterApi(state: State, shortUrlOf: (l: Link) => string, method: string, path: string, answerBody: unknown): Promise<void> {
  const url = webhooksOf(state).created;
  if (!url || method !== 'POST' || path !== '/api/url/add') return;
  let reply: { error?: unknown; id?: unknown };
  try {
    reply = JSON.parse(String(answerBody)) as typeof reply;
  } catch {
    return;
  }
  if (reply.error !== 0 && reply.error !== '0') return;
  const link = state.links.find((l) => String(l.id) === String(reply.id));
  if (link) await post(url, createdBody(shortUrlOf(link), link.longurl));
}

/** After a short link's visit was counted (a 301 to a GET or POST): a post to the "visits" URL. */
export async function afterVisit(state: State, shortUrlOf: (l: Link) => string, visit: Visit, status: number): Promise<void> {
  const url = webhooksOf(state).visits;
  if (!url || status !== 301 || (visit.method !== 'GET' && visit.method !== 'POST')) return;
  let alias: string;
  try {
    alias = decodeURIComponent(/^\/([^/]+)$/.exec(visit.path)?.[1] ?? '');
  } catch {
    return;
  }
  const link = state.links.find((x) => x.alias === alias && !x.domain) ?? state.links.find((x) => x.alias === alias);
  if (!link) return;
  const body = visitBody(shortUrlOf(link), visit);
  if (body) await post(url, body);
}

/** `sandbox visits`: the visits just counted, posted one by one as the product would have (none without a "visits" URL). */
export async function postVisits(state: State, visits: ReadonlyArray<{ link: Link; visit: Visit }>): Promise<number> {
  const hooks = webhooksOf(state);
  if (!hooks.visits) return 0;
  let sent = 0;
  for (const { link, visit } of visits) {
    const body = visitBody(`${link.domain ?? hooks.base ?? 'http://127.0.0.1:8787'}/${link.alias}`, visit);
    if (body && (await post(hooks.visits, body)) !== undefined) sent++;
  }
  return sent;
}

/**
 * `linkctl --sandbox listen`: the sandbox's webhooks pointed at this receiver, in the state file
 * that `--sandbox`, `sandbox serve` and `sandbox visits` share (the product's Tools, Integrations
 * page, done for the user): the tour's `sandbox visits` then shows up in the tail.
 */
export async function pointSandboxAt(stateFile: string, hooks: { created: string; visits: string; base?: string }): Promise<void> {
  const { loadState, saveState, seedState, withStateLock } = await import('./state.js');
  await withStateLock(stateFile, () => {
    const state = loadState(stateFile) ?? seedState();
    setWebhooks(state, hooks);
    saveState(stateFile, state);
  });
}
