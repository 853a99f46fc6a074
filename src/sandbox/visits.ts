// What the sandbox answers outside /api/: short links redirect (with targeting, password and
// expiry) and count the visit. QR codes' images and their own short links are in qr-images.ts,
// which server.ts asks first. No key needed, as on real servers.
import { createHash } from 'node:crypto';
import { isCrawler } from './crawlers.js';
import { zeroStats, type Link, type State } from './state.js';

export interface Visit {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  remote: string;
  body: string;
}
export interface PageAnswer { status: number; headers: Record<string, string>; body: string | Buffer; changed: boolean }

const HTML = 'text/html; charset=UTF-8';
const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (status: number, title: string, inner: string): PageAnswer => ({
  status, headers: { 'Content-Type': HTML }, changed: false,
  body: `<!DOCTYPE html>\n<html><head><title>${escape(title)}</title></head><body><h1>${escape(title)}</h1>${inner}</body></html>\n`,
});

/** Region subtags of Accept-Language, and `?country=` codes, as the country names geo targeting uses. */
const COUNTRIES: Record<string, string> = {
  US: 'United States', CA: 'Canada', GB: 'United Kingdom', IE: 'Ireland', DE: 'Germany', AT: 'Austria', CH: 'Switzerland',
  FR: 'France', BE: 'Belgium', NL: 'Netherlands', ES: 'Spain', PT: 'Portugal', IT: 'Italy', JP: 'Japan', IN: 'India',
  BR: 'Brazil', MX: 'Mexico', AU: 'Australia', NZ: 'New Zealand', CN: 'China', KR: 'South Korea', SE: 'Sweden', PL: 'Poland',
};
/** Country names as the product shows them: capitalised words ("united states" is "United States"). */
const capitalised = (name: string) => name.toLowerCase().replace(/(^|[\s-])(\p{L})/gu, (_, sep: string, c: string) => sep + c.toUpperCase());
function countryOf(v: Visit): string | undefined {
  const hook = v.query.country?.trim();
  if (hook) return COUNTRIES[hook.toUpperCase()] ?? capitalised(hook);
  const region = /^[a-z]{2,3}-([a-z]{2})\b/i.exec(v.headers['accept-language']?.trim() ?? '')?.[1];
  return region ? COUNTRIES[region.toUpperCase()] : undefined;
}
const languageOf = (v: Visit) => /^([a-z]{2,3})\b/i.exec(v.headers['accept-language']?.trim() ?? '')?.[1]?.toLowerCase();

/**
 * The product's systems (fact 42), the last matching rule winning: an Android phone says Linux too,
 * an iPhone "like Mac OS X".
 */
const OS_RULES: Array<[RegExp, string]> = [
  [/windows nt 5\.1|windows xp/i, 'Windows XP'], [/windows nt 6\.0/i, 'Windows Vista'], [/windows nt 6\.1/i, 'Windows 7'],
  [/windows nt 6\.2/i, 'Windows 8'], [/windows nt 6\.3/i, 'Windows 8.1'], [/windows nt 10\.0/i, 'Windows 10/11'], [/windows nt 11\.0/i, 'Windows 11'],
  [/macintosh|mac os x|mac_powerpc/i, 'Mac OS X'], [/linux/i, 'Linux'], [/ubuntu/i, 'Ubuntu'], [/android/i, 'Android'],
  [/iphone/i, 'IPhone'], [/ipod/i, 'IPod'], [/ipad/i, 'IPad'], [/blackberry/i, 'BlackBerry'], [/webos/i, 'Mobile'],
];
/** The product's browsers, the last matching rule winning: a Chrome that says Safari is Chrome, an Edge or Opera that says Chrome is Edge or Opera. */
const BROWSER_RULES: Array<[RegExp, string]> = [
  [/msie|trident\//i, 'Internet Explorer'], [/firefox/i, 'Firefox'], [/safari/i, 'Safari'], [/chrome/i, 'Chrome'],
  [/edg/i, 'Edge'], [/opr\/|opera/i, 'Opera'],
];
const lastMatch = (rules: Array<[RegExp, string]>, ua: string) => rules.filter(([re]) => re.test(ua)).at(-1)?.[1];

/** Device (for device targeting), system and browser from the User-Agent, with the names the product uses. */
function agentOf(ua = '') {
  const device = /iPhone/.test(ua) ? 'iPhone' : /iPad/.test(ua) ? 'iPad' : /Android/.test(ua) ? 'Android'
    : /Windows/.test(ua) ? 'Windows' : /Macintosh|Mac OS X/.test(ua) ? 'Mac' : /Linux/.test(ua) ? 'Linux' : undefined;
  const os = lastMatch(OS_RULES, ua) ?? 'Unknown OS';
  const browser = lastMatch(BROWSER_RULES, ua) ?? (/mobile/i.test(ua) ? 'Mobile Browser' : 'Unknown Browser');
  return { device, os, browser };
}

/** What the product's visit webhook says of a visit (webhooks.ts): country, system, browser, referrer. */
export function visitFacts(v: Visit): { country: string | null; os: string; browser: string; referrer: string | null; crawler: boolean } {
  const ua = v.headers['user-agent'] ?? '';
  const { os, browser } = agentOf(ua);
  return { country: countryOf(v) ?? null, os, browser, referrer: v.headers.referer ?? null, crawler: isCrawler(ua) };
}

const same = (a: string | undefined, b: string | undefined) => a !== undefined && b !== undefined && a.toLowerCase() === b.toLowerCase();

/** Where the visitor goes: the first matching geo, device or language target, else the long URL. */
function destination(l: Link, v: Visit): string {
  const country = countryOf(v);
  const { device } = agentOf(v.headers['user-agent']);
  const language = languageOf(v);
  return l.geotarget?.find((t) => same(t.location, country))?.link
    ?? l.devicetarget?.find((t) => same(t.device, device))?.link
    ?? l.languagetarget?.find((t) => same(t.language, language))?.link
    ?? l.longurl;
}

const bump = (o: Record<string, number>, key: string) => { o[key] = (o[key] ?? 0) + 1; };

/** What 7.6 calls a visit without a referrer (or with one that is not a URL). */
export const DIRECT = 'Direct, email and other';
/**
 * Referrers that the product counts in `socialCount` and leaves out of `topReferrers` (fact 42),
 * matched loosely as it matches them (its dots match any character); LinkedIn is counted in both.
 */
const SOCIAL: Array<[RegExp, 'facebook' | 'twitter' | 'instagram' | 'linkedin', boolean]> = [
  [/facebook.com|fb.com|fb.me/, 'facebook', true],
  [/twitter.com|t.co/, 'twitter', true],
  [/instagram.com/, 'instagram', true],
  [/(^|\.)linkedin\.com$/, 'linkedin', false],
];

/**
 * Counts a visit as the product does (fact 42): a crawler's is not counted at all; a visit is unique
 * when the link has no earlier counted visit from the same client address (two browsers on one
 * address are one unique visitor). False when it was not counted.
 */
function count(l: Link, v: Visit): boolean {
  const ua = v.headers['user-agent'] ?? '';
  if (isCrawler(ua)) return false;
  const visitor = createHash('sha256').update(v.remote).digest('hex').slice(0, 16);
  const unique = !(l.visitors ?? []).includes(visitor);
  if (unique) l.visitors = [...(l.visitors ?? []), visitor];
  const stats = l.stats ? { ...l.stats } : zeroStats();
  const { os, browser } = agentOf(ua);
  let referrer: URL | undefined;
  try { if (v.headers.referer) referrer = new URL(v.headers.referer); } catch { /* not a URL: direct */ }
  const social = referrer && SOCIAL.find(([host]) => host.test(referrer.hostname.toLowerCase()));
  stats.clicks++;
  if (unique) stats.uniqueClicks++;
  if (social) stats.socialCount = { ...stats.socialCount, [social[1]]: stats.socialCount[social[1]] + 1 };
  const tables: Array<[keyof Pick<typeof stats, 'topCountries' | 'topReferrers' | 'topBrowsers' | 'topOs'>, string | undefined]> = [
    ['topCountries', countryOf(v) ?? 'Unknown'],
    ['topReferrers', social?.[2] ? undefined : referrer?.origin ?? DIRECT],
    ['topBrowsers', browser], ['topOs', os],
  ];
  for (const [table, key] of tables) {
    if (key === undefined) continue;
    stats[table] = { ...stats[table] };
    bump(stats[table], key);
  }
  l.stats = stats;
  l.clicks += 1;
  if (unique) l.uniqueclicks += 1;
  return true;
}

const passwordForm = (alias: string, wrong: boolean) => page(wrong ? 401 : 200, 'This link is protected',
  `${wrong ? '<p>Wrong password, try again.</p>' : ''}<form method="post" action="/${escape(alias)}">` +
  '<label>Password <input type="password" name="password" autofocus></label> <button type="submit">Continue</button></form>');

function shortLink(state: State, alias: string, v: Visit, now: number): PageAnswer | undefined {
  // an alias is unique per domain: the sandbox serves the default one, then any other
  const l = state.links.find((x) => x.alias === alias && !x.domain) ?? state.links.find((x) => x.alias === alias);
  if (!l) return undefined;
  if (l.expiry && Date.parse(`${l.expiry.replace(' ', 'T')}Z`) <= now) return page(410, 'This link has expired', '');
  if (l.password) {
    const given = v.method === 'POST' ? new URLSearchParams(v.body).get('password') : null;
    if (given !== l.password) return passwordForm(l.alias, given !== null);
  }
  const to = destination(l, v);
  if (v.method === 'HEAD') return { status: 301, headers: { Location: to, 'Content-Type': HTML }, body: '', changed: false };
  // the product's redirect has an empty body (the recording)
  return { status: 301, headers: { Location: to, 'Content-Type': HTML, 'Cache-Control': 'no-store' }, body: '', changed: count(l, v) };
}

/** The answer to a request outside /api/; undefined = not a short link or QR code (404). */
export function publicPage(state: State, v: Visit, now = Date.now()): PageAnswer | undefined {
  if (!['GET', 'HEAD', 'POST'].includes(v.method)) return undefined;
  // QR images and QR codes' own short links: ./qr-images.ts, asked first by server.ts.
  const alias = /^\/([^/]+)$/.exec(v.path)?.[1];
  if (!alias) return undefined;
  let decoded: string;
  try { decoded = decodeURIComponent(alias); } catch { return undefined; }
  return shortLink(state, decoded, v, now);
}

export interface SimulatedVisits {
  /** How many visits. */
  count: number;
  /** How many distinct visitors they come from (default: one each); fewer make some visits repeat ones. */
  visitors?: number;
  /** A country code (US, CA, ...) or name, as `?country=` gives it to a real visit. */
  country?: string;
  referrer?: string;
  userAgent?: string;
}

/**
 * `linkctl sandbox visits`: visits to a link (by id or alias) made without HTTP, each counted by
 * the same code as a request to the short URL (clicks, unique visitors, countries, referrers,
 * browsers, systems). The link, or undefined when there is none.
 */
export function simulateVisits(state: State, link: string, visits: SimulatedVisits, onVisit?: (l: Link, v: Visit) => void): Link | undefined {
  const l = state.links.find((x) => String(x.id) === link) ?? state.links.find((x) => x.alias === link);
  if (!l) return undefined;
  const visitors = Math.max(1, Math.min(visits.visitors ?? visits.count, visits.count));
  // A fresh set of visitors each time (so a second run adds unique visitors), from the test range 198.51.100.0/24 and beyond.
  const run = createHash('sha256').update(`${Date.now()}:${Math.random()}`).digest('hex').slice(0, 8);
  for (let i = 0; i < visits.count; i++) {
    const visit: Visit = {
      method: 'GET',
      path: `/${l.alias}`,
      query: visits.country ? { country: visits.country } : {},
      headers: { 'user-agent': visits.userAgent ?? 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36', ...(visits.referrer ? { referer: visits.referrer } : {}) },
      remote: `sandbox-visitor-${run}-${i % visitors}`,
      body: '',
    };
    count(l, visit);
    onVisit?.(l, visit);
  }
  return l;
}
