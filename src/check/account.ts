/**
 * What `linkctl check` reads of the account, and the checks that need no request to a
 * destination: links on a domain that is not the account's, destinations shortened more than
 * once, links whose campaign is gone, and (with --details) links expiring soon or expired,
 * plus their geo and device targets.
 */
import type { Body } from '../http/envelope.js';
import { toInt } from '../http/envelope.js';
import { ApiError, AuthError, NotFoundError } from '../errors.js';
import type { AccountReader } from '../model/reader.js';
import { destinationKey } from '../model/links.js';
import type { Finding } from './statuses.js';

/** A list that only an account check needs: when the key may not read it, that check is skipped (said on stderr), not the run. */
export async function readOptionalList(reader: AccountReader, kind: 'domains' | 'campaigns', warn: (line: string) => void, check: string): Promise<Body[] | undefined> {
  try {
    return await reader.all(kind);
  } catch (error) {
    if (!(error instanceof ApiError || error instanceof AuthError)) throw error;
    warn(`the ${check} check was skipped: the ${kind} list could not be read (${error.message})`);
    return undefined;
  }
}

/**
 * The key under which a destination is requested once: the URL parsed and written back, so
 * scheme and host case, default ports and an empty path do not make two requests. Stricter than
 * the model's `destinationKey` (which also ignores a trailing slash, for "the same destination"):
 * a server may answer `/x` and `/x/` differently, so each is requested.
 */
export function requestKey(raw: string): string {
  try {
    return new URL(raw.trim()).href;
  } catch {
    return raw.trim();
  }
}

export interface LinkFinding {
  kind: Finding;
  detail: string;
}

/** A link as `check` uses it. */
export interface CheckedLink {
  id: number | null;
  alias: string | null;
  shorturl: string | null;
  destination: string;
  domain: string | null;
  campaign: number | null;
  findings: LinkFinding[];
  /** Geo and device targets, read with --details: `geo:canada` -> URL. */
  targets: Array<{ target: string; url: string }>;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v : null);

export function linkOf(record: Body): CheckedLink {
  const campaign = toInt(record.campaign);
  return {
    id: toInt(record.id) ?? null,
    alias: str(record.alias),
    shorturl: str(record.shorturl) ?? str(record.short),
    destination: String(record.longurl ?? record.url ?? ''),
    domain: str(record.domain),
    campaign: campaign && campaign > 0 ? campaign : null,
    findings: [],
    targets: [],
  };
}

const hostOf = (raw: string | null): string | undefined => {
  if (!raw) return undefined;
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
};

/**
 * Links whose domain is neither one of the account's domains nor the site's own (the base URL's
 * host: real servers name the site itself as the domain of links on the default domain).
 */
export function findUnknownDomains(links: CheckedLink[], domains: Body[], baseUrl: URL): void {
  const known = new Set<string>([baseUrl.hostname.toLowerCase()]);
  for (const d of domains) {
    const host = hostOf(str(d.domain));
    if (host) known.add(host);
  }
  for (const link of links) {
    const host = hostOf(link.domain) ?? hostOf(link.shorturl);
    if (host && !known.has(host)) link.findings.push({ kind: 'unknown-domain', detail: `${host} is not one of the account's domains` });
  }
}

/** Destinations shortened by more than one link (the model's matcher, `destinationKey`): each of those links names the others. */
export function findDuplicates(links: CheckedLink[]): void {
  const byKey = new Map<string, CheckedLink[]>();
  for (const link of links) {
    const key = destinationKey(link.destination);
    const same = byKey.get(key);
    if (same) same.push(link);
    else byKey.set(key, [link]);
  }
  for (const same of byKey.values()) {
    if (same.length < 2) continue;
    for (const link of same) {
      const others = same.filter((l) => l !== link).map((l) => l.id);
      link.findings.push({ kind: 'duplicate', detail: `the same destination as link${others.length === 1 ? '' : 's'} ${others.join(', ')}` });
    }
  }
}

/** Links in a campaign that the campaign list no longer has. */
export function findMissingCampaigns(links: CheckedLink[], campaigns: Body[]): void {
  const ids = new Set(campaigns.map((c) => toInt(c.id)).filter((id) => id !== undefined));
  for (const link of links) {
    if (link.campaign !== null && !ids.has(link.campaign)) link.findings.push({ kind: 'missing-campaign', detail: `campaign ${link.campaign} no longer exists` });
  }
}

/** `YYYY-MM-DD HH:MM:SS` (the server's zone is not known: read as UTC) in ms, or undefined. */
function expiryMs(raw: unknown): number | undefined {
  if (typeof raw !== 'string') return undefined;
  const m = /^(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)/.exec(raw.trim());
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : undefined;
}

/**
 * --details: one request a link (its single read) for its expiry and its geo and device targets.
 * `location` is `{country: url}` (documented) or `{country: {region: url}}` (7.x, region `all`
 * for the whole country); `device` is `{device: url}`, null on 7.x servers, which do not give
 * device targets back.
 */
export async function addDetails(reader: AccountReader, links: CheckedLink[], expiringMs: number, nowMs: number, progress: (done: number) => void, warn: (line: string) => void): Promise<void> {
  let done = 0;
  for (const link of links) {
    progress(done++);
    if (link.id === null) continue;
    let details: Body;
    try {
      const body = await reader.readOne('links', link.id);
      details = (body.details ?? {}) as Body;
    } catch (error) {
      // Deleted while the check ran: nothing to say about it.
      if (error instanceof NotFoundError || error instanceof ApiError) {
        warn(`link ${link.id}: its details could not be read (${error.message})`);
        continue;
      }
      throw error;
    }
    const expiry = expiryMs(details.expiry);
    if (expiry !== undefined) {
      const when = String(details.expiry);
      if (expiry <= nowMs) link.findings.push({ kind: 'expired', detail: `expired ${when}` });
      else if (expiry - nowMs <= expiringMs) link.findings.push({ kind: 'expiring', detail: `expires ${when} (in ${Math.ceil((expiry - nowMs) / 86_400_000)} d)` });
    }
    for (const [country, value] of Object.entries(objectOr(details.location))) {
      if (typeof value === 'string') link.targets.push({ target: `geo:${country.toLowerCase()}`, url: value });
      else for (const [region, url] of Object.entries(objectOr(value))) if (typeof url === 'string') link.targets.push({ target: `geo:${country.toLowerCase()}${region === 'all' ? '' : `/${region.toLowerCase()}`}`, url });
    }
    for (const [device, url] of Object.entries(objectOr(details.device))) if (typeof url === 'string') link.targets.push({ target: `device:${device.toLowerCase()}`, url });
  }
  progress(done);
}

const objectOr = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
