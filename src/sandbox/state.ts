// State of the sandbox: record types, seed data and the JSON state file.
// Records store only what the server would store; URLs are derived from the
// sandbox base URL when answering, so a state file survives a port change.
import { mkdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, basename } from 'node:path';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError } from '../errors.js';
import { sandboxPage } from './own-origin.js';

export interface Stats {
  clicks: number;
  uniqueClicks: number;
  topCountries: Record<string, number>;
  topReferrers: Record<string, number>;
  topBrowsers: Record<string, number>;
  topOs: Record<string, number>;
  socialCount: { facebook: number; twitter: number; instagram: number; linkedin: number };
}

/**
 * A user of the installation. The product keeps several (an administrator and plain users), each with
 * its own key and objects; aliases on the default domain, branded domains, campaign slugs and emails
 * are unique across all of them (real-servers.md, fact 39). The admin API (users, plans) lists these.
 */
export interface User {
  id: number; email: string; username: string;
  /** The API key, compared ignoring letter case (fact 40). */
  key: string;
  admin: boolean;
  /** What `GET /api/account` answers as `status`. */
  plan: 'pro' | 'free';
  planid: number; expires: string | null; registered: string;
}
/** Every record names its user; a record without `owner` is the first user's (compact seeds, older state files). */
export interface Owned { owner?: number }
export const ownerOf = (r: Owned): number => r.owner ?? 1;

export interface Qr extends Owned {
  id: number; type: string; data: unknown; name: string; slug: string; scans: number; date: string;
  background?: string; foreground?: string; logo?: string; stats?: Stats;
  /** What the code's image was last drawn from (qr-images.ts): its link answers 302 to the stored file while that still holds. */
  drawn?: string;
}
export interface Domain extends Owned { id: number; domain: string; redirectroot: string; redirect404: string }
export interface Overlay extends Owned { id: number; type: string; name: string; date: string }
export interface Campaign extends Owned { id: number; name: string; slug: string | null; public: boolean; views: number }
export interface ChannelItem { type: 'links' | 'bio' | 'qr'; id: number; date: string }
export interface Channel extends Owned {
  id: number; name: string; description: string; color: string; starred: boolean; items: ChannelItem[];
}
export interface Splash extends Owned { id: number; name: string; date: string }
export interface Pixel extends Owned { id: number; type: string; name: string; tag: string; date: string }

export type Target = Record<string, string>;
/** Link settings a client can send; absent keys are not stored (keeps big seeds compact). */
export interface LinkOptions extends Owned {
  type?: string; password?: string; domain?: string; expiry?: string; status?: string;
  geotarget?: Target[]; devicetarget?: Target[]; languagetarget?: Target[];
  metatitle?: string; metadescription?: string; metaimage?: string; description?: string;
  pixels?: number[]; campaign?: number; deeplink?: Record<string, unknown>; parameters?: unknown[];
}
/**
 * A link as the product stores it: `title` is the meta title (answered as `title`), `metadescription`
 * is answered as `description`, and `description` is the private note, which no answer returns.
 */
export interface Link extends LinkOptions {
  id: number; alias: string; longurl: string; title: string;
  clicks: number; uniqueclicks: number; date: string; stats?: Stats;
  /**
   * The link's channel entries in the order they were made, as its list item answers them (fact 5):
   * a channel id for each assignment, and a `null` for each update sent without a channel. Absent
   * until the first change: the channels whose items hold the link (seeds).
   */
  channels?: Array<number | null>;
  /** The QR code this link was made for (fact 18): hidden from the link list, deleted with the code. */
  qr?: number;
  /** Client addresses of counted visits (unique clicks are per address, fact 42). */
  visitors?: string[];
}

export interface State {
  version: 1;
  next: Record<Collection, number>;
  users: User[];
  qrs: Qr[]; domains: Domain[]; overlays: Overlay[]; campaigns: Campaign[];
  channels: Channel[]; splash: Splash[]; pixels: Pixel[]; links: Link[];
  /** Bio pages, which only a channel's items name (the API has none of their own): what an assignment may name. */
  bios?: Bio[];
  /** One-time sign-in links the admin API gave (admin.ts). */
  sso?: Sso[];
  /** OAuth clients, codes and tokens (oauth.ts); absent until first used. */
  oauth?: OAuthState;
}
/** A one-time sign-in link: for whom, until when (ms), and whether it was used. */
export interface Sso { token: string; user: number; until: number; used?: boolean }
export interface OAuthClient { name: string; clientid: string; secret: string; redirect: string }
export interface OAuthState {
  clients: OAuthClient[];
  /** Codes given at approval: one exchange each. */
  codes: Array<{ code: string; clientid: string; user: number; used?: boolean }>;
  /** Tokens given: a key of their user until `expires` (ms). */
  tokens: Array<{ token: string; user: number; expires: number }>;
}
export interface Bio extends Owned { id: number; name: string }
export type Collection = 'qrs' | 'domains' | 'overlays' | 'campaigns' | 'channels' | 'splash' | 'pixels' | 'links';
type RecordOf<K extends Collection> = State[K][number];

/** `YYYY-MM-DD HH:MM:SS` in UTC. */
export const timestamp = (ms = Date.now()): string => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

// A channel's items and a link's channel entries are state that links and channels both read and
// change: kept here, so that neither route file imports the other. The product keeps one table of
// assignments; the sandbox keeps its two sides, the channel's items (what `GET /api/channel/:id`
// lists) and the link's entries (what `channel` of its list item answers), and changes both together.
export const inChannel = (ch: Channel, type: ChannelItem['type'], id: number) => ch.items.some((it) => it.type === type && it.id === id);
export function addToChannel(ch: Channel, type: ChannelItem['type'], id: number, date = timestamp()) {
  if (!inChannel(ch, type, id)) ch.items.push({ type, id, date: date.slice(0, 10) });
}
/** A link's channel entries: its own once changed, else the channels whose items hold it (seeds). */
export function linkChannels(state: State, l: Link, held?: ReadonlyMap<number, number[]>): Array<number | null> {
  if (l.channels) return l.channels;
  if (held) return held.get(l.id) ?? [];
  return state.channels.filter((ch) => inChannel(ch, 'links', l.id)).map((ch) => ch.id);
}
/** Link id -> the channels whose items hold it, built once for a page of links. */
export function channelsHolding(state: State): Map<number, number[]> {
  const held = new Map<number, number[]>();
  for (const ch of state.channels) {
    for (const it of ch.items) if (it.type === 'links') held.set(it.id, [...(held.get(it.id) ?? []), ch.id]);
  }
  return held;
}
/** One more entry in the link's channels: a channel id, or null (an update sent without a channel). */
export function addChannelEntry(state: State, l: Link, entry: number | null): void {
  l.channels = [...linkChannels(state, l), entry];
}
/** A channel gone: its items with it, and its entries in every link (no null left behind, fact 5). */
export function dropChannelEntries(state: State, channelId: number): void {
  for (const l of state.links) if (l.channels?.includes(channelId)) l.channels = l.channels.filter((c) => c !== channelId);
}
/** An item gone: the product deletes every assignment whose item id is the deleted link's, of any type (fact 24). */
export function dropItems(state: State, itemId: number): void {
  for (const ch of state.channels) if (ch.items.some((it) => it.id === itemId)) ch.items = ch.items.filter((it) => it.id !== itemId);
}

/** Short, stable, random-looking slug derived from an id (no RNG, so seeds are reproducible). */
export const slugFor = (id: number, salt = 0): string =>
  ((Math.imul(id + salt * 7919, 2654435761) >>> 0) + 0x10000000).toString(36);

export const zeroStats = (): Stats => ({
  clicks: 0, uniqueClicks: 0, topCountries: {}, topReferrers: {}, topBrowsers: {}, topOs: {},
  socialCount: { facebook: 0, twitter: 0, instagram: 0, linkedin: 0 },
});

/** Records are appended with increasing ids and never reordered, so lookups can bisect. */
export function indexOfId(list: readonly { id: number }[], id: number): number {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = list[mid]!.id;
    if (at === id) return mid;
    if (at < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

export function insert<K extends Collection>(state: State, coll: K, make: (id: number) => RecordOf<K>): RecordOf<K> {
  const record = make(state.next[coll]++);
  (state[coll] as RecordOf<K>[]).push(record);
  return record;
}

const SEED_DAY = Date.UTC(2025, 0, 10, 12, 0, 0);
const day = (n: number, h = 0) => timestamp(SEED_DAY + n * 86_400_000 + h * 3_600_000);

/** What a big-account seed adds to the demo account (benchmarks and request-count tests). */
export interface ExtraSeed {
  links?: number;
  qrs?: number;
  /** Campaigns `Campaign 1`...; every generated link is in one of them. */
  campaigns?: number;
  /** Channels `Channel 1`...; every 11th generated link is in one, every 110th in a second one too. */
  channels?: number;
  /** Leave out the demo records (an account that has nothing yet: the target of a migration). */
  empty?: boolean;
  /**
   * The sandbox people try (`--sandbox`, `sandbox serve`, `sandbox reset`): spring-sale expires 20 days
   * after the seeding, so that `linkctl --sandbox lint` shows what a finding looks like (its
   * expiring rule). Tests' sandboxes leave it out: nothing they count or compare changes.
   */
  demo?: boolean;
}

/** The sandbox's published keys: the demo account's (an administrator) and a plain user's. */
export const SANDBOX_KEY = 'sandbox-0123456789abcdef';
export const SANDBOX_USER_KEY = 'sandbox-user-0123456789abcdef';

/** The two users of the demo installation: the demo account (user 1, an administrator, every record below is its own) and a plain user with nothing. */
export function defaultUsers(): User[] {
  return [
    { id: 1, email: 'demo@sandbox.localhost', username: 'demo', key: SANDBOX_KEY, admin: true, plan: 'pro', planid: 2, expires: '2027-12-31 23:59:59', registered: '2024-01-15 09:30:00' },
    { id: 2, email: 'user@sandbox.localhost', username: 'user', key: SANDBOX_USER_KEY, admin: false, plan: 'free', planid: 1, expires: null, registered: '2024-02-01 10:00:00' },
  ];
}

/** The fixed demo account plus `extra` generated records (for big-account benchmarks). */
export function seedState(extra: ExtraSeed = {}): State {
  const state: State = {
    version: 1,
    next: { qrs: 4, domains: 2, overlays: 4, campaigns: 2, channels: 2, splash: 3, pixels: 2, links: 3 },
    users: defaultUsers(),
    qrs: [
      {
        id: 1, type: 'link', data: sandboxPage('menu'), name: 'Restaurant menu', slug: slugFor(1), scans: 128,
        date: day(0), foreground: 'rgb(0,0,0)', background: 'rgb(255,255,255)',
        stats: {
          clicks: 128, uniqueClicks: 97,
          topCountries: { 'United States': 54, Canada: 31, Germany: 22, France: 13, Japan: 8 },
          // Facebook, Twitter and Instagram visits are counted in socialCount only (7.6)
          topReferrers: { 'Direct, email and other': 44, 'https://www.google.com': 38, 'https://www.linkedin.com': 3 },
          topBrowsers: { Chrome: 70, Safari: 41, Firefox: 12, Edge: 5 },
          topOs: { iOS: 52, Android: 44, Windows: 21, 'Mac OS X': 11 },
          socialCount: { facebook: 21, twitter: 8, instagram: 14, linkedin: 3 },
        },
      },
      {
        id: 2, type: 'text', data: 'Hello from the sandbox', name: 'Greeting', slug: slugFor(2), scans: 7, date: day(3),
        stats: { ...zeroStats(), clicks: 7, uniqueClicks: 6, topCountries: { Canada: 7 }, topReferrers: { 'Direct, email and other': 7 }, topBrowsers: { Safari: 7 }, topOs: { iOS: 7 } },
      },
      {
        id: 3, type: 'wifi', data: { ssid: 'Guest', pass: 'welcome123', encryption: 'WPA' }, name: 'Office wifi',
        slug: slugFor(3), scans: 0, date: day(5),
      },
    ],
    domains: [{ id: 1, domain: 'https://go.sandbox.localhost', redirectroot: sandboxPage('home'), redirect404: sandboxPage('not-found') }],
    overlays: [
      { id: 1, type: 'message', name: 'Spring sale banner', date: day(1) },
      { id: 2, type: 'contact', name: 'Contact form', date: day(2) },
      { id: 3, type: 'message', name: 'Newsletter invite', date: day(4) },
    ],
    campaigns: [{ id: 1, name: 'Spring launch', slug: 'spring-launch', public: true, views: 42 }],
    channels: [{
      id: 1, name: 'Marketing', description: 'Links for the marketing team', color: '#1e88e5', starred: true,
      items: [{ type: 'links', id: 1, date: day(6).slice(0, 10) }],
    }],
    splash: [{ id: 1, name: 'Welcome splash', date: day(2) }, { id: 2, name: 'Promo splash', date: day(7) }],
    bios: [{ id: 1, name: 'Demo bio page' }],
    pixels: [{ id: 1, type: 'gapixel', name: 'Main analytics', tag: 'G-ABC123XYZ', date: day(1) }],
    links: [
      {
        id: 1, alias: 'docs', longurl: sandboxPage('docs'), title: 'Example Docs', metatitle: 'Example Docs', metadescription: 'Product documentation',
        clicks: 57, uniqueclicks: 40, date: day(1), campaign: 1, status: 'public',
        stats: {
          ...zeroStats(), clicks: 57, uniqueClicks: 40, topCountries: { 'United States': 30, India: 27 },
          topReferrers: { 'Direct, email and other': 57 }, topBrowsers: { Chrome: 40, Firefox: 17 }, topOs: { Windows: 35, Linux: 22 },
        },
      },
      {
        id: 2, alias: 'spring-sale', longurl: sandboxPage('sale'), title: 'Spring sale', clicks: 12,
        uniqueclicks: 11, date: day(8), status: 'public',
        stats: {
          ...zeroStats(), clicks: 12, uniqueClicks: 11, topCountries: { Canada: 5, 'United States': 7 },
          topReferrers: { 'Direct, email and other': 8 }, topBrowsers: { Safari: 7, Chrome: 5 }, topOs: { iOS: 7, Windows: 5 },
          socialCount: { facebook: 0, twitter: 4, instagram: 0, linkedin: 0 },
        },
        geotarget: [{ location: 'Canada', link: sandboxPage('sale-ca') }],
        devicetarget: [{ device: 'iPhone', link: sandboxPage('app') }],
      },
    ],
  };
  if (extra.demo) state.links.find((l) => l.alias === 'spring-sale')!.expiry = timestamp(Date.now() + 20 * 86_400_000);
  if (extra.empty) {
    for (const collection of COLLECTIONS) state[collection] = [];
    state.bios = [];
  }
  const campaigns = Array.from({ length: extra.campaigns ?? 0 }, (_, i) =>
    insert(state, 'campaigns', (id) => ({ id, name: `Campaign ${i + 1}`, slug: `campaign-${i + 1}`, public: false, views: 0 })));
  const channels = Array.from({ length: extra.channels ?? 0 }, (_, i) =>
    insert(state, 'channels', (id) => ({ id, name: `Channel ${i + 1}`, description: '', color: '#000000', starred: false, items: [] as ChannelItem[] })));
  for (let i = 0; i < (extra.links ?? 0); i++) {
    const link = insert(state, 'links', bulkLink);
    if (campaigns.length) link.campaign = campaigns[i % campaigns.length]!.id;
    if (channels.length && i % 11 === 0) {
      const date = link.date.slice(0, 10);
      channels[i % channels.length]!.items.push({ type: 'links', id: link.id, date });
      if (i % 110 === 0) channels[(i + 1) % channels.length]!.items.push({ type: 'links', id: link.id, date });
    }
  }
  for (let i = 0; i < (extra.qrs ?? 0); i++) insert(state, 'qrs', bulkQr);
  return state;
}

/**
 * Records of big seeds store only their id; every other field is derived from it by a
 * prototype getter until a write shadows it with an own property. One small object per
 * record keeps a 100k-link seed at a few ms (full records cost ~200 ms, mostly GC), and
 * the state file keeps only `{"lazy":1,"id":..}` plus what was changed, so saving after
 * a mutation stays cheap too.
 */
function lazyRecords<T extends { id: number }>(derive: { [K in keyof T]?: (id: number) => T[K] }): (id: number) => T {
  class Lazy {
    constructor(readonly id: number) {}
    toJSON() { return { lazy: 1, ...this }; }
  }
  for (const [name, fn] of Object.entries(derive) as [string, (id: number) => unknown][]) {
    Object.defineProperty(Lazy.prototype, name, {
      get(this: Lazy) { return fn(this.id); },
      set(this: Lazy, value: unknown) { Object.defineProperty(this, name, { value, writable: true, enumerable: true, configurable: true }); },
    });
  }
  return (id) => new Lazy(id) as unknown as T;
}
/** Turns the `lazy` records of a loaded state file back into lazy objects. */
function revive<T extends { id: number }>(records: T[], make: (id: number) => T): T[] {
  return records.map((r) => {
    if (!('lazy' in r)) return r;
    const { lazy, ...own } = r;
    return Object.assign(make(r.id), own);
  });
}

// one record per minute from 2025-03-01
const BULK_START = Date.UTC(2025, 2, 1) / 60_000;
const bulkDate = (id: number) => timestamp((BULK_START + id) * 60_000);
const bulkLink = lazyRecords<Link>({
  alias: (id) => `bulk${id}`, longurl: (id) => sandboxPage(`bulk/${id}`), title: (id) => `Bulk link ${id}`,
  clicks: (id) => (id * 37) % 1000, uniqueclicks: (id) => (id * 37) % 700, date: bulkDate,
});
const bulkQr = lazyRecords<Qr>({
  type: () => 'text', data: (id) => `Generated QR ${id}`, name: (id) => `QR ${id}`, slug: (id) => slugFor(id),
  scans: () => 0, date: bulkDate,
});

const RESET_HINT = 'run `linkctl sandbox reset` (plus `--state <file>` for another file) to start over from the seed data (the records in it are lost)';
const COLLECTIONS: Collection[] = ['qrs', 'domains', 'overlays', 'campaigns', 'channels', 'splash', 'pixels', 'links'];

/**
 * The state in `file`, undefined when there is none. Anything else that is wrong is a
 * ConfigError naming the file, never its content (it is test data, but still an "account"),
 * and the file is left alone: only `linkctl sandbox reset` replaces it.
 */
export function loadState(file: string): State | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new ConfigError(`cannot read the sandbox state file ${file} (${code ?? 'unknown error'})`, RESET_HINT);
  }
  let state: State;
  try {
    state = JSON.parse(text) as State;
  } catch {
    // not the parser's message: V8 quotes the text it choked on
    throw new ConfigError(`the sandbox state file ${file} is corrupt (not valid JSON)`, RESET_HINT);
  }
  // files written before the sandbox had two users keep the demo account under `account`
  const legacy = (state as { account?: { email?: unknown; username?: unknown } } | null)?.account;
  const shaped = state?.version === 1 && typeof state.next === 'object' && (Array.isArray(state.users) || typeof legacy === 'object')
    && COLLECTIONS.every((c) => Array.isArray(state[c]));
  if (!shaped) throw new ConfigError(`${file} is not a sandbox state file (version 1)`, RESET_HINT);
  const { account: _legacy, ...current } = state as State & { account?: unknown };
  const users = Array.isArray(state.users) ? state.users : defaultUsers().map((u) => (u.id === 1
    ? { ...u, email: typeof legacy?.email === 'string' ? legacy.email : u.email, username: typeof legacy?.username === 'string' ? legacy.username : u.username }
    : u));
  return { ...current, users, links: revive(state.links, bulkLink), qrs: revive(state.qrs, bulkQr) };
}

/** Identity of the file's current version: every save renames a new file into place. undefined = no file. */
export function stateStamp(file: string): string | undefined {
  try {
    const s = statSync(file);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Atomic write: a reader (or a crash) never sees a half-written file. 0600 because it is test data of an "account". */
export function saveState(file: string, state: State): void {
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    writeFileSync(tmp, JSON.stringify(state), { mode: 0o600, flag: 'wx' });
    renameSync(tmp, file);
  } catch (err) {
    try { unlinkSync(tmp); } catch { /* already gone */ }
    throw err;
  }
}

const LOCK_STALE_MS = 10_000;
const LOCK_TIMEOUT_MS = 5_000;

export class StateLockedError extends ConfigError {
  constructor(file: string) {
    super(`the sandbox state file ${file} is locked by another process`,
      `try again; a lock left by a crashed process (${file}.lock) is removed after ${LOCK_STALE_MS / 1000} s`);
  }
}

/**
 * Runs `fn` holding `<file>.lock`, so processes sharing a state file (`--sandbox` commands,
 * `sandbox serve`) read-modify-write it one at a time. The lock file is created exclusively
 * ('wx'); waiters poll with short growing sleeps. A lock older than LOCK_STALE_MS is taken for
 * a crashed holder's and removed (two waiters could both judge it stale, a rare race that only
 * follows a crash). `fn` is synchronous, so the lock is held only for a reload, a change and a save.
 * Throws StateLockedError after `timeoutMs`.
 */
export async function withStateLock<T>(file: string, fn: () => T, timeoutMs = LOCK_TIMEOUT_MS): Promise<T> {
  const lock = `${file}.lock`;
  const token = `${process.pid} ${randomBytes(6).toString('hex')}`;
  mkdirSync(dirname(file), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  for (let wait = 1; ; wait = Math.min(wait * 2, 32)) {
    try {
      writeFileSync(lock, token, { flag: 'wx', mode: 0o600 });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    try {
      if (Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS) { unlinkSync(lock); continue; }
    } catch { /* released meanwhile: try again */ }
    if (Date.now() >= deadline) throw new StateLockedError(file);
    await sleep(wait * (0.5 + Math.random())); // jitter, so waiters do not retry in step
  }
  try {
    return fn();
  } finally {
    // only our own: if we were judged stale, the lock now is someone else's
    try { if (readFileSync(lock, 'utf8') === token) unlinkSync(lock); } catch { /* gone */ }
  }
}
