/**
 * What a snapshot reads from the server: the account (who it is), and every link, QR code and
 * campaign, each list once, through the run's reader: at most ⌈links/1000⌉ + 3 requests for an
 * account with up to 1,000 QR codes and campaigns. `--details N` adds one request per link.
 */
import type { Context } from '../context.js';
import type { Body } from '../http/envelope.js';
import { toInt } from '../http/envelope.js';
import { inOrder, type ConcurrencySetting } from '../http/concurrency.js';
import { NetworkError } from '../errors.js';
import type { Details, HistoryRecord, SourceRef } from './store.js';
import { ACCOUNT_PATH } from '../model/account.js';
import { countOf } from './values.js';
import { configDir } from '../config/paths.js';
import { findRunning } from '../sandbox/running.js';

export type CollectionName = 'links' | 'qr' | 'campaigns';

/**
 * Every record of each named collection, each list read once, through the run's reader (large
 * pages: 1,000 records first, growing while the server answers quickly).
 */
export async function readCollections<N extends CollectionName>(ctx: Context, names: readonly N[]): Promise<Record<N, Body[]>> {
  const reader = await ctx.reader();
  const out = {} as Record<N, Body[]>;
  for (const name of names) out[name] = await reader.all(name);
  return out;
}

/**
 * A server as history keys it: scheme and host in lower case, without a default port or a
 * trailing slash, so that one server written two ways is one history.
 */
export function serverKey(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return baseUrl.replace(/\/+$/, '');
  }
}

/**
 * Whose history a run reads or writes: `sandbox` for the sandbox, whichever way it is reached
 * (`--sandbox`, embedded or through a running `sandbox serve`, or a profile whose base URL is
 * that `sandbox serve`: one sandbox, one history, whatever port it has today); else the server.
 */
export function sourceBaseUrl(ctx: Context): string | undefined {
  if (ctx.sandboxMode) return 'sandbox';
  const base = ctx.settings().baseUrl?.value;
  if (base === undefined) return undefined;
  const running = findRunning(configDir(ctx.env));
  return running && serverKey(running.url) === serverKey(base) ? 'sandbox' : serverKey(base);
}

/** The account behind the key (one request): snapshots are kept per account, whichever machine or profile took them. */
export async function readAccount(ctx: Context): Promise<SourceRef> {
  const client = await ctx.client();
  const body = await client.request('GET', ACCOUNT_PATH, { expect: ['data'] });
  const data = (body.data ?? {}) as Body;
  const id = toInt(data.id);
  const username = typeof data.username === 'string' && data.username ? data.username : undefined;
  const account = id !== undefined ? String(id) : username;
  if (account === undefined) throw new NetworkError("the server's account answer has neither an id nor a username, so snapshots cannot be kept per account");
  return { baseUrl: sourceBaseUrl(ctx)!, account, name: username ?? (typeof data.email === 'string' ? data.email : undefined) };
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * List items as history records; items without a usable id are left out (and counted). Totals
 * are passed on as the server sent them: the store checks them (src/history/values.ts). QR codes
 * in `noScans` (src/qr/scans.ts: text, sms and wifi codes count none) get no total at all: what the
 * server answers for them is another link's clicks.
 */
export function toRecords(lists: { links?: Body[]; qr?: Body[]; campaigns?: Body[] }, noScans: ReadonlySet<number> = new Set()): { records: HistoryRecord[]; skipped: number } {
  const records: HistoryRecord[] = [];
  let skipped = 0;
  const add = (record: HistoryRecord | undefined) => (record ? records.push(record) : skipped++);
  for (const l of lists.links ?? []) {
    const id = toInt(l.id);
    add(id === undefined ? undefined : {
      kind: 'link', id, alias: text(l.alias), label: text(l.title), url: text(l.shorturl),
      campaign: toInt(l.campaign) ?? null, clicks: l.clicks, uniqueClicks: l.uniqueclicks ?? null,
    });
  }
  for (const q of lists.qr ?? []) {
    const id = toInt(q.id);
    add(id === undefined ? undefined : { kind: 'qr', id, alias: text(q.name), label: text(q.name), url: text(q.link), clicks: noScans.has(id) ? undefined : q.scans });
  }
  for (const c of lists.campaigns ?? []) {
    const id = toInt(c.id);
    const name = text(c.name) ?? text(c.campaign) ?? text(c.domain);
    add(id === undefined ? undefined : { kind: 'campaign', id, alias: name, label: name, clicks: c.views });
  }
  return { records, skipped };
}

/** `--details N`: the top-* statistics of the N most clicked links, one request each. */
export async function readDetails(ctx: Context, records: HistoryRecord[], n: number, concurrency: ConcurrencySetting = 'auto'): Promise<number> {
  if (n <= 0) return 0;
  const reader = await ctx.reader();
  const clicks = (r: HistoryRecord) => countOf(r.clicks) ?? -1;
  const links = records.filter((r) => r.kind === 'link').sort((a, b) => clicks(b) - clicks(a) || a.id! - b.id!).slice(0, n);
  let read = 0;
  // Up to --concurrency links read at a time (auto: one at a time while the server shows a rate limit).
  await inOrder(links, () => reader.client.inFlight.limit(concurrency), async (link) => {
    ctx.status(`details of link ${link.id} (${++read} of ${links.length})`);
    const body = await reader.readOne('links', link.id!);
    const stats = body.data && typeof body.data === 'object' && !Array.isArray(body.data) ? (body.data as Body) : {};
    const details: Details = {};
    for (const [dimension, key] of [['countries', 'topCountries'], ['referrers', 'topReferrers'], ['browsers', 'topBrowsers'], ['os', 'topOs']] as const) {
      const list = stats[key];
      // as sent: the store keeps the counts and leaves out (and counts) what is not one
      details[dimension] = list && typeof list === 'object' && !Array.isArray(list) ? { ...(list as Record<string, unknown>) } : {};
    }
    link.details = details;
  });
  return links.length;
}
