// The recording of the product 7.7 (test/fixtures/product-7.7/exchanges.json) as a test: replays
// its exchanges in order against a server and compares each answer with the recorded one. What
// is compared is what a client relies on: the status, the content type, the JSON keys (at every
// depth), the JSON value types and the messages. Values that differ between any two runs of the
// product (ids, dates, random aliases, counts) are not compared; their types are.
import { readFileSync } from 'node:fs';

export interface RecordedExchange {
  name: string;
  request: { method: string; path: string; key: string | null; body?: unknown };
  response: { status: number; headers: Record<string, string>; body: unknown; raw?: string };
}
export interface Recording { product: string; base: string; exchanges: RecordedExchange[] }
export interface Observed { status: number; headers: Record<string, string>; body: unknown }

export const RECORDING = new URL('./fixtures/product-7.7/exchanges.json', import.meta.url);
/** The address the product was recorded at; `{BASE}` in bodies, written out in a few request paths. */
const RECORDED_ORIGIN = 'http://127.0.0.1:8090';

export function loadRecording(file: URL | string = RECORDING): Recording {
  return JSON.parse(readFileSync(file, 'utf8')) as Recording;
}

const mediaType = (ct: string | undefined) => (ct ?? '').split(';')[0]!.trim().toLowerCase();
const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

const byId = (items: unknown[]) => (items.every((i) => typeof i === 'object' && i !== null && /^\d+$/.test(String((i as { id?: unknown }).id)))
  ? [...items].sort((a, b) => Number((a as { id: unknown }).id) - Number((b as { id: unknown }).id)) : items);
/** The JSON shape differences at `path`: keys missing or extra, and value types. */
function shapeDiffs(want: unknown, got: unknown, path: string, out: string[]) {
  if (typeOf(want) !== typeOf(got)) {
    out.push(`${path}: ${typeOf(want)} recorded, ${typeOf(got)} answered (${JSON.stringify(got)?.slice(0, 80)})`);
    return;
  }
  if (Array.isArray(want) && Array.isArray(got)) {
    if ((want.length === 0) !== (got.length === 0)) out.push(`${path}: ${want.length ? 'items' : 'no items'} recorded, ${got.length ? 'items' : 'none'} answered`);
    // Items with ids are compared in the order they were created (ids grow with it): the product
    // orders equal dates by id, and what a list is ordered by is a value, not a shape.
    const w = byId(want);
    const g = byId(got);
    for (let i = 0; i < Math.min(w.length, g.length); i++) shapeDiffs(w[i], g[i], `${path}[${i}]`, out);
    return;
  }
  if (typeOf(want) === 'object') {
    const w = want as Record<string, unknown>;
    const g = got as Record<string, unknown>;
    for (const key of Object.keys(w)) if (!(key in g)) out.push(`${path}.${key}: recorded, missing from the answer`);
    for (const key of Object.keys(g)) if (!(key in w)) out.push(`${path}.${key}: answered, not in the recording`);
    for (const key of Object.keys(w)) if (key in g) shapeDiffs(w[key], g[key], `${path}.${key}`, out);
  }
}

/** The differences of status, media type and rate-limit headers, which both comparisons make first; and the two media types. */
function envelopeDiffs(recorded: RecordedExchange['response'], observed: Observed): { out: string[]; wantType: string | undefined; gotType: string | undefined } {
  const out: string[] = [];
  if (recorded.status !== observed.status) out.push(`status: ${recorded.status} recorded, ${observed.status} answered`);
  const wantType = mediaType(recorded.headers['content-type']);
  const gotType = mediaType(observed.headers['content-type']);
  if (wantType !== gotType) out.push(`content type: ${wantType} recorded, ${gotType} answered`);
  for (const name of Object.keys(recorded.headers)) {
    if (name.startsWith('x-ratelimit') && observed.headers[name] === undefined) out.push(`header ${name}: recorded, not answered`);
  }
  for (const name of Object.keys(observed.headers)) {
    if (name.startsWith('x-ratelimit') && recorded.headers[name] === undefined) out.push(`header ${name}: answered, not in the recording`);
  }
  return { out, wantType, gotType };
}

/**
 * What differs between the recorded answer and the observed one: an empty list when they agree.
 * Compared: the status; the media type; for JSON, every key and value type and the `message`;
 * for other bodies, whether one was sent. Recorded rate-limit headers must be present.
 */
export function compareExchange(recorded: RecordedExchange['response'], observed: Observed): string[] {
  const { out, wantType } = envelopeDiffs(recorded, observed);
  const want = recorded.body;
  const got = observed.body;
  if (wantType === 'application/json' && typeof want === 'object' && want !== null) {
    shapeDiffs(want, got, 'body', out);
    const wm = (want as Record<string, unknown>).message;
    const gm = typeof got === 'object' && got !== null ? (got as Record<string, unknown>).message : undefined;
    if (wm !== undefined && wm !== gm) out.push(`message: ${JSON.stringify(wm)} recorded, ${JSON.stringify(gm)} answered`);
  } else if ((want === '') !== (got === '')) {
    out.push(`body: ${want === '' ? 'empty' : 'a body'} recorded, ${got === '' ? 'empty' : 'a body'} answered`);
  }
  return out;
}

/** The resource whose id follows each path segment: ids the recording created are mapped to the server's. */
const ID_SEGMENTS: Record<string, string> = { url: 'links', links: 'links', qr: 'qrs', domain: 'domains', campaign: 'campaigns', channel: 'channels', pixel: 'pixels' };
const RESOURCE_OF_ADD: Record<string, string> = { url: 'links', qr: 'qrs', domain: 'domains', campaign: 'campaigns', channel: 'channels', pixel: 'pixels' };

export interface Target {
  url: string;
  /** `{KEY}` and `{KEY2}` (the second user of the recording's installation); other recorded keys are sent as written. */
  keys: { KEY: string; KEY2: string };
  /** Called before the exchange at `index` is sent (a burst's filler requests, a clock to move). */
  before?: (index: number, exchange: RecordedExchange) => Promise<void> | void;
}
export interface Replayed { exchange: RecordedExchange; observed: Observed; differences: string[] }

/**
 * Sends every exchange in order. Ids created by earlier exchanges (`"id"` of an add) are mapped:
 * `/api/url/63` is sent with the id the server gave for the recording's 63.
 */
export async function replay(recording: Recording, target: Target): Promise<Replayed[]> {
  const ids: Record<string, Map<string, string>> = {};
  const mapped = (resource: string, id: string) => ids[resource]?.get(id) ?? id;
  const results: Replayed[] = [];
  for (const [index, exchange] of recording.exchanges.entries()) {
    await target.before?.(index, exchange);
    const { method, key, body } = exchange.request;
    const [pathname, search] = exchange.request.path.split('?') as [string, string | undefined];
    const segments = pathname.split('/');
    for (let i = 1; i < segments.length; i++) {
      // `/api/campaign/1/assign/62`: the id after `assign` is a link's
      const resource = ID_SEGMENTS[segments[i - 1]!] ?? (segments[i - 3] === 'campaign' && segments[i - 1] === 'assign' ? 'links' : undefined);
      if (resource && /^\d+$/.test(segments[i]!)) segments[i] = mapped(resource, segments[i]!);
    }
    const path = (segments.join('/') + (search === undefined ? '' : `?${search}`)).replaceAll(encodeURIComponent(RECORDED_ORIGIN), encodeURIComponent(target.url));
    const headers: Record<string, string> = { 'User-Agent': 'linkctl-recording-test' };
    if (key === '{KEY}' || key === '{KEY2}') headers.Authorization = `Bearer ${target.keys[key.slice(1, -1) as 'KEY' | 'KEY2']}`;
    else if (key === 'the key without "Bearer "') headers.Authorization = target.keys.KEY;
    else if (key !== null) headers.Authorization = `Bearer ${key}`;
    let payload: string | undefined;
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body).replaceAll('{BASE}', target.url);
    }
    const res = await fetch(target.url + path, { method, headers, body: payload, redirect: 'manual' });
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = JSON.parse(text); } catch { /* not JSON: compared as text */ }
    const observed: Observed = { status: res.status, headers: Object.fromEntries(res.headers), body: parsed };
    const recordedBody = exchange.response.body as Record<string, unknown> | null;
    const addOf = /^\/api\/(\w+)\/add$/.exec(exchange.request.path)?.[1];
    const resource = addOf && RESOURCE_OF_ADD[addOf];
    const gotId = (parsed as Record<string, unknown> | null)?.id;
    if (resource && recordedBody && typeof recordedBody === 'object' && recordedBody.id !== undefined && gotId !== undefined) {
      (ids[resource] ??= new Map()).set(String(recordedBody.id), String(gotId));
    }
    results.push({ exchange, observed, differences: compareExchange(exchange.response, observed) });
  }
  return results;
}

// ---------------------------------------------------------------- scenarios.json

/**
 * `scenarios.json` (test/fixtures/product-7.7/README.md): short sequences of requests, each from an
 * empty installation of two users, with their answers. Replayed to compare VALUES, not only shapes:
 * everything that follows from the requests must be the same, in the same order; what differs on
 * every run of the product (dates near the recording's time, generated aliases, QR and campaign
 * slugs, channel colours) is compared by its form.
 */
export interface ScenarioRequest {
  method: string; path: string;
  /** `{KEY}`, `{KEY2}`, null (none), or words for another credential, then written in `authorization`. */
  key: string | null;
  authorization?: string;
  body?: unknown;
  contentType?: string;
  /** A visit of a short link, as a browser or a crawler makes it. */
  userAgent?: string;
  referer?: string;
}
export interface ScenarioExchange { name: string; note?: string; waitBeforeMs?: number; request: ScenarioRequest; response: RecordedExchange['response'] }
export interface SetupRecord { resource: 'overlay' | 'splash'; owner: string; id: number; name: string; type?: string; date: string }
export interface Scenario { name: string; note?: string; setup: SetupRecord[]; exchanges: ScenarioExchange[] }
export interface Scenarios { product: string; base: string; recorded: string; note: string; scenarios: Scenario[] }

export const SCENARIOS = new URL('./fixtures/product-7.7/scenarios.json', import.meta.url);
export const loadScenarios = (file: URL | string = SCENARIOS): Scenarios => JSON.parse(readFileSync(file, 'utf8')) as Scenarios;

/**
 * The seed (`sandbox serve --seed`, docs/sandbox.md "Seeds") of the installation every scenario
 * starts from: the administrator and the plain user the recording names, with the given keys, and
 * the overlays and splash pages of the scenarios' `setup` (the same in each).
 */
export function scenarioSeed(rec: Scenarios, keys: { KEY: string; KEY2: string }) {
  const setup = rec.scenarios[0]!.setup;
  return {
    users: [
      { id: 1, email: 'admin@example.com', username: 'admin', key: keys.KEY, plan: 'free', planid: 0, admin: true },
      { id: 2, email: 'user2@example.com', username: 'user2', key: keys.KEY2, plan: 'free', planid: 0, admin: false },
    ],
    records: setup.map((r) => ({ ...r, owner: r.owner === '{KEY2}' ? keys.KEY2 : keys.KEY })),
  };
}

export interface ScenarioTarget {
  url: string;
  keys: { KEY: string; KEY2: string };
  /** Brings the server back to the scenarios' starting point (the seed), before each scenario. */
  reset: (scenario: Scenario) => Promise<void>;
  /** A pause before a request (`waitBeforeMs`); a sandbox moves its clock instead of sleeping. */
  wait?: (ms: number) => Promise<void>;
}
export interface ScenarioResult { scenario: Scenario; exchange: ScenarioExchange; observed: Observed; differences: string[] }

const DATE_FORM = /^\d{4}-\d\d-\d\d( \d\d:\d\d:\d\d)?$/;
/** What a generated value looks like, compared instead of its value: its length and alphabet. */
const tokenForm = (t: string) => `${t.length} ${/^#[0-9a-f]{6}$/i.test(t) ? 'hex colour' : /^[0-9a-f]+$/.test(t) ? 'hex digits' : /^[A-Za-z]+$/.test(t) ? 'letters' : 'characters'}`;
const lastSegment = (v: unknown) => (typeof v === 'string' ? v.slice(v.lastIndexOf('/') + 1) : undefined);
const given = (v: unknown) => v !== undefined && v !== null && v !== '' && v !== false;

/** The random values an add answered (recorded and observed): an alias made without `custom`, a QR slug, a campaign slug made without `slug`, a colour made without `color`. */
function generated(req: ScenarioRequest, recorded: unknown, observed: unknown): Array<[string, string | undefined, string | undefined]> {
  const body = (typeof req.body === 'object' && req.body !== null ? req.body : {}) as Record<string, unknown>;
  const w = (recorded ?? {}) as Record<string, unknown>;
  const g = (typeof observed === 'object' && observed !== null ? observed : {}) as Record<string, unknown>;
  if (w.error !== 0 || w.id === undefined) return [];
  switch (req.path) {
    case '/api/url/add': return given(body.custom) ? [] : [['alias', lastSegment(w.shorturl), lastSegment(g.shorturl)]];
    case '/api/qr/add': return [['QR slug', lastSegment(w.link), lastSegment(g.link)]];
    case '/api/campaign/add': return given(body.slug) || typeof w.rotator !== 'string' ? [] : [['campaign slug', lastSegment(w.rotator), lastSegment(g.rotator)]];
    case '/api/channel/add': return given(body.color) ? [] : [['colour', w.color as string, g.color as string]];
    default: return [];
  }
}

/**
 * Differences between a recorded answer and the observed one, by value. `normal` turns an observed
 * string into the recording's terms (the base URL as `{BASE}`, generated values as recorded);
 * `volatile` says which dates are the clock's (compared by form).
 */
export function compareByValue(recorded: RecordedExchange['response'], observed: Observed, normal: (s: string) => string, volatile: (date: string) => boolean): string[] {
  const { out, wantType } = envelopeDiffs(recorded, observed);
  const location = recorded.headers.location;
  const gotLocation = observed.headers.location === undefined ? undefined : normal(observed.headers.location);
  if (location !== gotLocation) out.push(`header location: ${JSON.stringify(location)} recorded, ${JSON.stringify(gotLocation)} answered`);
  const show = (v: unknown) => JSON.stringify(v)?.slice(0, 80);
  const walk = (want: unknown, got: unknown, path: string) => {
    if (typeOf(want) !== typeOf(got)) return void out.push(`${path}: ${show(want)} recorded, ${show(got)} answered`);
    if (Array.isArray(want) && Array.isArray(got)) {
      if (want.length !== got.length) out.push(`${path}: ${want.length} items recorded, ${got.length} answered`);
      for (let i = 0; i < Math.min(want.length, got.length); i++) walk(want[i], got[i], `${path}[${i}]`);
      return;
    }
    if (typeof want === 'object' && want !== null) {
      const w = want as Record<string, unknown>;
      const g = got as Record<string, unknown>;
      for (const key of Object.keys(w)) if (!(key in g)) out.push(`${path}.${key}: recorded, missing from the answer`);
      for (const key of Object.keys(g)) if (!(key in w)) out.push(`${path}.${key}: answered, not in the recording`);
      for (const key of Object.keys(w)) if (key in g) walk(w[key], g[key], `${path}.${key}`);
      return;
    }
    if (typeof want === 'string' && DATE_FORM.test(want) && volatile(want)) {
      const form = (s: string) => (s.length > 10 ? 'YYYY-MM-DD HH:MM:SS' : 'YYYY-MM-DD');
      if (!(typeof got === 'string' && DATE_FORM.test(got) && form(got) === form(want))) out.push(`${path}: a date ${form(want)} recorded, ${show(got)} answered`);
      return;
    }
    const value = typeof got === 'string' ? normal(got) : got;
    if (want !== value) out.push(`${path}: ${show(want)} recorded, ${show(value)} answered`);
  };
  if (wantType === 'application/json' && typeof recorded.body === 'object' && recorded.body !== null) walk(recorded.body, observed.body, 'body');
  else if ((recorded.body === '') !== (observed.body === '')) {
    out.push(`body: ${recorded.body === '' ? 'empty' : 'a body'} recorded, ${observed.body === '' ? 'empty' : 'a body'} answered`);
  }
  return out;
}

/**
 * Replays every scenario in order, each after `target.reset`. Ids an add answered are mapped for the
 * later paths, as replay() maps them; so are the values the product generated (a QR code's slug in
 * the path of a visit of its short link).
 */
export async function replayScenarios(rec: Scenarios, target: ScenarioTarget): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  const host = new URL(target.url).host;
  // dates within a year and a day of the recording's day are the clock's (creation dates, `next year`); others follow from the requests
  const day = Date.parse(`${rec.recorded}T00:00:00Z`);
  const volatile = (date: string) => {
    const t = Date.parse(`${date.replace(' ', 'T')}${date.length > 10 ? '' : 'T00:00:00'}Z`);
    return t >= day - 86_400_000 && t <= day + 367 * 86_400_000;
  };
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  for (const scenario of rec.scenarios) {
    await target.reset(scenario);
    const ids: Record<string, Map<string, string>> = {};
    /** recorded generated value -> observed one */
    const tokens = new Map<string, string>();
    const fromBase = (s: string) => s.replaceAll('{BASE}', target.url).replaceAll('{HOST}', host);
    const normal = (s: string) => {
      let out = s.replaceAll(target.url, '{BASE}').replaceAll(host, '{HOST}');
      for (const [recorded, observed] of [...tokens].sort((a, b) => b[1].length - a[1].length)) if (observed !== recorded) out = out.replaceAll(observed, recorded);
      return out;
    };
    for (const exchange of scenario.exchanges) {
      const { request } = exchange;
      if (exchange.waitBeforeMs) await (target.wait ?? sleep)(exchange.waitBeforeMs);
      const [pathname, search] = fromBase(request.path).split('?') as [string, string | undefined];
      const segments = pathname.split('/');
      for (let i = 1; i < segments.length; i++) {
        const resource = ID_SEGMENTS[segments[i - 1]!] ?? (segments[i - 3] === 'campaign' && segments[i - 1] === 'assign' ? 'links' : undefined)
          ?? (segments[i - 4] === 'channel' && segments[i - 2] === 'assign' ? (segments[i - 1] === 'qr' ? 'qrs' : 'links') : undefined);
        if (resource && /^\d+$/.test(segments[i]!)) segments[i] = ids[resource]?.get(segments[i]!) ?? segments[i]!;
        else if (tokens.has(segments[i]!)) segments[i] = tokens.get(segments[i]!)!;
      }
      const path = segments.join('/') + (search === undefined ? '' : `?${search}`);
      const visit = request.key === null && request.userAgent !== undefined;
      const headers: Record<string, string> = { 'User-Agent': request.userAgent ?? 'linkctl-recording-test' };
      if (request.referer) headers.Referer = fromBase(request.referer);
      const keyed = (template: string) => template
        .replace('Basic base64("admin:{KEY}")', `Basic ${Buffer.from(`admin:${target.keys.KEY}`).toString('base64')}`)
        .replaceAll('{KEY in upper case}', target.keys.KEY.toUpperCase()).replaceAll('{KEY2}', target.keys.KEY2).replaceAll('{KEY}', target.keys.KEY);
      if (request.authorization !== undefined) headers.Authorization = keyed(request.authorization);
      else if (request.key === '{KEY}' || request.key === '{KEY2}') headers.Authorization = `Bearer ${keyed(request.key)}`;
      if (!visit) headers['Content-Type'] = request.contentType ?? 'application/json';
      const payload = request.body === undefined ? undefined : typeof request.body === 'string' ? fromBase(request.body) : fromBase(JSON.stringify(request.body));
      const res = await fetch(target.url + path, { method: request.method, headers, body: payload, redirect: 'manual' });
      const text = await res.text();
      let parsed: unknown = text;
      try { parsed = JSON.parse(text); } catch { /* not JSON: compared as text */ }
      const observed: Observed = { status: res.status, headers: Object.fromEntries(res.headers), body: parsed };
      const differences: string[] = [];
      const recordedBody = exchange.response.body as Record<string, unknown> | null;
      const addOf = /^\/api\/(\w+)\/add$/.exec(request.path)?.[1];
      const resource = addOf && RESOURCE_OF_ADD[addOf];
      const gotId = (parsed as Record<string, unknown> | null)?.id;
      if (resource && recordedBody && typeof recordedBody === 'object' && recordedBody.id !== undefined && gotId !== undefined) {
        (ids[resource] ??= new Map()).set(String(recordedBody.id), String(gotId));
      }
      for (const [what, want, got] of generated(request, recordedBody, parsed)) {
        if (want === undefined || got === undefined) continue;
        if (tokenForm(want) !== tokenForm(got)) differences.push(`generated ${what}: ${tokenForm(want)} recorded (${want}), ${tokenForm(got)} answered (${got})`);
        if (!tokens.has(want)) tokens.set(want, got);
      }
      differences.push(...compareByValue(exchange.response, observed, normal, volatile));
      results.push({ scenario, exchange, observed, differences });
    }
  }
  return results;
}

/** A value a scenario wrote and what the product answered it stored (a name, a slug, a title, a colour...). */
export interface RecordedRewrite { kind: 'campaigns' | 'channels' | 'links' | 'pixels' | 'qr'; field: string; sent: string; stored: string; write: 'create' | 'update' }

/**
 * Every value the recording's scenarios wrote and what the product answered it stored: campaign
 * and channel fields from their create and update answers; links, pixels and QR codes by id from
 * the reads that follow their writes.
 */
export function recordedRewrites(): RecordedRewrite[] {
  const { scenarios } = loadScenarios();
  const pairs = new Map<string, RecordedRewrite>();
  const add = (p: RecordedRewrite) => pairs.set(JSON.stringify(p), p);
  for (const { exchanges } of scenarios) {
    const sent = { links: new Map<number, Record<string, unknown>>(), pixels: new Map<number, Record<string, unknown>>(), qr: new Map<number, Record<string, unknown>>() };
    for (const { request: { method, path, body: sentBody }, response } of exchanges) {
      const body = (sentBody && typeof sentBody === 'object' ? sentBody : {}) as Record<string, unknown>;
      const r = response.body as Record<string, any>;
      if (!r || typeof r !== 'object' || r.error !== 0) continue;
      const write = method === 'POST' ? 'create' : 'update';
      if (/^\/api\/campaign\/(add|\d+\/update)$/.test(path)) {
        if (typeof body.name === 'string' && body.name.length > 2) add({ kind: 'campaigns', field: 'name', sent: body.name, stored: String(r.campaign), write });
        if (typeof body.slug === 'string' && body.slug) add({ kind: 'campaigns', field: 'slug', sent: body.slug, stored: r.rotator ? String(r.rotator).split('/').pop()! : '', write });
      }
      if (/^\/api\/channel\/(add|\d+\/update)$/.test(path)) {
        // An update ignores a name or description of 2 characters or less (fact 31): nothing stored to compare.
        for (const field of ['name', 'description', 'color']) if (typeof body[field] === 'string' && (write === 'create' || (body[field] as string).trim().length > 2)) add({ kind: 'channels', field, sent: body[field] as string, stored: String(r[field]), write });
      }
      const updated = /^\/api\/url\/(\d+)\/update$/.exec(path);
      if (path === '/api/url/add' && r.id) {
        sent.links.set(r.id, body);
        // An alias that is nothing once rewritten (`???`) is refused by linkctl before sending.
        const alias = String(r.shorturl).replace(/\/+$/, '').split('/').pop()!;
        if (typeof body.custom === 'string' && !String(r.shorturl).endsWith('/')) add({ kind: 'links', field: 'alias', sent: body.custom, stored: alias, write });
      }
      if (updated) sent.links.set(Number(updated[1]), body);
      if (path === '/api/pixel/add' && r.id) sent.pixels.set(Number(r.id), body);
      if (path === '/api/qr/add' && r.id) sent.qr.set(Number(r.id), body);
      if (method !== 'GET') continue;
      for (const item of r.data?.urls ?? (r.details ? [r.details] : [])) {
        const b = sent.links.get(item.id);
        if (typeof b?.metatitle === 'string') add({ kind: 'links', field: 'title', sent: b.metatitle, stored: item.title, write: 'create' });
        if (typeof b?.metadescription === 'string') add({ kind: 'links', field: 'metaDescription', sent: b.metadescription, stored: item.description, write: 'create' });
        if (typeof b?.url === 'string') add({ kind: 'links', field: 'url', sent: b.url, stored: item.longurl, write: 'create' });
      }
      for (const item of r.data?.pixels ?? []) {
        const b = sent.pixels.get(Number(item.id));
        for (const field of ['name', 'tag']) if (typeof b?.[field] === 'string') add({ kind: 'pixels', field, sent: b[field] as string, stored: String(item[field]), write: 'create' });
      }
      for (const item of r.data?.qrs ?? []) {
        const b = sent.qr.get(Number(item.id));
        if (typeof b?.name === 'string') add({ kind: 'qr', field: 'name', sent: b.name, stored: item.name, write: 'create' });
      }
    }
  }
  return [...pairs.values()];
}

