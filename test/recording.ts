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

/**
 * What differs between the recorded answer and the observed one: an empty list when they agree.
 * Compared: the status; the media type; for JSON, every key and value type and the `message`;
 * for other bodies, whether one was sent. Recorded rate-limit headers must be present.
 */
export function compareExchange(recorded: RecordedExchange['response'], observed: Observed): string[] {
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
