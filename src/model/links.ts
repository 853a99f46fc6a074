/**
 * Short links: paths, keys, which fields the list and the single read give, what can be read back
 * and what cannot, how the options of `link add` become a request body, and the plan of a safe
 * update. Pure: the requests that use this are in ./link-writes.ts.
 *
 * Real servers (real-servers.md): the list item has `domain`, `campaign` and `channel` (ids) but
 * no targeting or expiry; `GET api/url/:id` has targeting and expiry but no domain, campaign or
 * channel; `?short=` answers what `GET api/url/:id` does. An update replaces every option.
 */
import { linkFieldOf, READ_BACK, WRITE_ONLY, type Clearable } from './link-fields.js';
import { UsageError } from '../errors.js';
import type { Model } from './model.js';
import { compact, firstOf, noSlash, refId, text, type Rec } from './values.js';

export const links: Model = {
  kind: 'links',
  noun: 'link',
  command: 'link',
  list: 'api/urls',
  keys: ['urls'],
  item: (id) => `api/url/${id}`,
  add: 'api/url/add',
  readOne: true,
  key: (item) => (typeof item.alias === 'string' ? item.alias : undefined),
  // `q` is a substring search over destination, alias and title: the caller keeps exact matches.
  search: (key) => ({ q: key }),
  listFields: ['id', 'alias', 'shorturl', 'longurl', 'title', 'description', 'clicks', 'uniqueclicks', 'domain', 'campaign', 'channel', 'date'],
  detailFields: ['location', 'device', 'expiry'],
  refusals: [
    // Real servers keep aliases unique across all users of the installation, not per account.
    { message: /alias is taken/i, hint: 'aliases are unique across all the accounts of a server, not per account: a link of this account (`linkctl link list --search ALIAS` finds it) or of another one holds it; choose another alias, or, after a move between two accounts, delete the old link first' },
    { message: /cannot shorten URLs of this website/i, hint: 'only an admin of the server can shorten a URL on the server\'s own host' },
  ],
};

/** The short URL, under `shorturl` (list, create) or `short` (the document's update answer). */
export const shortUrlOf = (record: Rec): unknown => firstOf(record, 'shorturl', 'short');

/**
 * A destination as linkctl compares them, in one place: scheme and host without case (as URLs
 * are), trailing slashes dropped (servers keep or drop them), the path and query as given.
 */
export function destinationKey(url: string): string {
  try {
    return noSlash(new URL(url).href);
  } catch {
    return noSlash(url.trim());
  }
}

/** A short URL's host, for comparing the domain a link got with the one asked for. */
export function hostOf(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `https://${url}`).host.toLowerCase();
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------- the body of url/add and url/:id/update

/** The body of `POST api/url/add` from the options of `link add` (by their attribute names), without the password. */
export function bodyFromOptions(opts: Rec): Rec {
  const redirects = (['redirect', 'splash', 'overlay'] as const).filter((k) => opts[k] !== undefined);
  if (redirects.length > 1) throw new UsageError(`${redirects.map((k) => `--${k}`).join(' and ')} each set the redirect type; give one of them`, 'a link has one redirect type: plain (--redirect), a splash page or an overlay');
  if (opts.public && opts.private) throw new UsageError('--public and --private contradict each other; give one of them', 'links are private unless --public is given');
  const pairs = (flag: string, name: string) => (opts[flag] as Array<{ key: string; value: string }> | undefined)?.map(({ key, value }) => ({ [name]: key, link: value }));
  const apple = opts.deeplinkApple as string | undefined;
  const google = opts.deeplinkGoogle as string | undefined;
  const auto = opts.deeplinkAuto === true ? true : undefined;
  return compact({
    custom: opts.alias,
    domain: opts.domain,
    type: opts.redirect ?? (opts.splash !== undefined ? String(opts.splash) : opts.overlay !== undefined ? `overlay-${opts.overlay}` : undefined),
    expiry: opts.expiry,
    geotarget: pairs('geo', 'location'),
    devicetarget: pairs('device', 'device'),
    languagetarget: pairs('language', 'language'),
    metatitle: opts.metaTitle,
    metadescription: opts.metaDescription,
    metaimage: opts.metaImage,
    description: opts.description,
    pixels: opts.pixel,
    channel: opts.channel,
    campaign: opts.campaign,
    status: opts.public ? 'public' : opts.private ? 'private' : undefined,
    parameters: (opts.param as Array<{ key: string; value: string }> | undefined)?.map(({ key, value }) => ({ name: key, value })),
    // `auto` only when asked: on 7.7 it answers an empty HTTP 500 and creates nothing (real-servers.md).
    deeplink: apple || google || auto ? compact({ auto, apple, google }) : undefined,
  });
}

/**
 * Every destination a link body carries besides `url`, named for people: its geo, device and
 * language targets and its deep links. A policy's destination rules hold for each of them.
 */
export function targetsOfBody(body: Rec): Array<{ where: string; url: string }> {
  const out: Array<{ where: string; url: string }> = [];
  const pairs = (field: string, key: string, what: string) => {
    for (const t of Array.isArray(body[field]) ? (body[field] as Rec[]) : []) if (t && typeof t.link === 'string') out.push({ where: `${what} ${String(t[key])}`, url: t.link });
  };
  pairs('geotarget', 'location', 'geo target');
  pairs('devicetarget', 'device', 'device target');
  pairs('languagetarget', 'language', 'language target');
  const deeplink = body.deeplink && typeof body.deeplink === 'object' ? (body.deeplink as Rec) : {};
  if (typeof deeplink.apple === 'string') out.push({ where: 'Apple deep link', url: deeplink.apple });
  if (typeof deeplink.google === 'string') out.push({ where: 'Google deep link', url: deeplink.google });
  return out;
}

// ---------------------------------------------------------------- what can be read back (./link-fields.ts)

/** Fields read back, which an update sends again from what it read: their `--clear` names and where the value is. */
const READABLE = READ_BACK.map((f) => ({ ...f, clear: f.clear as Clearable }));
/** Write-only fields, which an update clears unless given again (or named with --clear). */
export const UNREADABLE = WRITE_ONLY.map((f) => ({ field: f.body, clear: f.clear as Clearable, label: f.label }));
const NOTE = linkFieldOf('description')!;
const STATUS = linkFieldOf('public')!;

/** What an update does to public status on real servers (7.4 to 7.7): it always makes the link private. */
export const STATUS_LABEL = `${STATUS.label} (real servers make every updated link private, whatever --public says)`;

/**
 * Options that an update cannot apply, refused before anything is sent: the note (an update never
 * stores it) and public status (an update makes the link private whatever it says).
 */
export function updateCannot(given: Rec, flags = { note: '--description', public: '--public' }): void {
  if (given[NOTE.body] !== undefined) {
    throw new UsageError(`${flags.note} (the link's note) cannot be set by an update: real servers store the note only when a link is created, and ignore it on update`, 'the note is private and no answer returns it; for the description shown in link previews, use --meta-description');
  }
  if (given[STATUS.body] === 'public') {
    throw new UsageError(`${flags.public} cannot be kept by an update: real servers make every updated link private, whatever --public says`, 'update without --public (the link becomes private), then make it public again in the web interface');
  }
}

/**
 * Options the account's plan may not include, which real servers then drop silently from a create
 * or update (real-servers.md): the body field, its label, and how a read-back shows it was kept.
 * `readBack: undefined` cannot be checked (the server never gives it back).
 */
export const PLAN_DEPENDENT: Array<{ field: string; label: string; kept?: (details: Rec, sent: unknown) => boolean }> = [
  { field: 'geotarget', label: 'geo targeting', kept: (d) => readTargets(d.location).targets.length > 0 || readTargets(d.location).regions.length > 0 },
  { field: 'expiry', label: 'expiry', kept: (d) => Boolean(text(d.expiry)) },
  { field: 'custom', label: 'custom alias', kept: (d, sent) => typeof d.alias === 'string' && d.alias.toLowerCase() === String(sent).toLowerCase() },
  { field: 'devicetarget', label: 'device targeting' },
  { field: 'languagetarget', label: 'language targeting' },
  { field: 'parameters', label: 'parameters' },
  { field: 'pixels', label: 'pixels' },
  { field: 'deeplink', label: 'deep links' },
  { field: 'type', label: 'redirect type, splash or overlay' },
];

interface Target {
  key: string;
  link: string;
}

/**
 * Targets as `GET /api/url/:id` gives them: `{country: url}` (documented) or, on 7.x,
 * `{country: {region: url}}` with region `all` for a whole country. Region targets cannot be
 * sent back through `geotarget`, so they are returned apart.
 */
export function readTargets(value: unknown): { targets: Target[]; regions: string[] } {
  const targets: Target[] = [];
  const regions: string[] = [];
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { targets, regions };
  for (const [key, v] of Object.entries(value as Rec)) {
    if (typeof v === 'string') targets.push({ key, link: v });
    else if (v && typeof v === 'object') {
      for (const [region, link] of Object.entries(v as Rec)) {
        if (typeof link !== 'string') continue;
        if (region === 'all') targets.push({ key, link });
        else regions.push(`${key}/${region}`);
      }
    }
  }
  return { targets, regions };
}

// ---------------------------------------------------------------- the safe update

/** What linkctl could read of a link: `GET api/url/:id` details, and its list item when found. */
export interface LinkRead {
  details: Rec;
  /** The link's item of `GET api/urls` (domain, campaign, channel): undefined when it could not be found. */
  item?: Rec;
  /** The site's own URL: list items name it as the domain of links on the default domain. */
  siteUrl?: string;
}

export interface LinkUpdatePlan {
  /** The body of `PUT api/url/:id/update`. */
  body: Rec;
  /** What the update clears that the user did not ask to clear: empty means nothing to confirm. */
  cleared: string[];
  /** Things worth saying that need no answer (a passed expiry not sent again). */
  notes: string[];
}

/** Targets by key, case-insensitive: the user's replace those read back for the same country or device. */
function mergeTargets(read: Rec[], given: Rec[], name: string): Rec[] {
  const out = new Map<string, Rec>(read.map((t) => [String(t[name]).toLowerCase(), t]));
  for (const t of given) out.set(String(t[name]).toLowerCase(), t);
  return [...out.values()];
}

const sameSite = (a: string, b: string) => noSlash(a).toLowerCase() === noSlash(b).toLowerCase();

/**
 * What an update clears whatever the link holds: options that cannot be read back and that the
 * user neither gave nor named with --clear, and the public status. Known before any request, so
 * a refusal for want of a confirmation costs nothing.
 */
export function clearedRegardless(given: Rec, clear: ReadonlySet<Clearable>): string[] {
  const cleared = UNREADABLE.filter(({ field, clear: option }) => given[field] === undefined && !clear.has(option)).map(({ label }) => label);
  // 7.x servers never give device targeting back (real-servers.md), whatever the link has.
  for (const f of READABLE) if (f.answeredNull && given[f.body] === undefined && !clear.has(f.clear)) cleared.push(f.label);
  if (given.status !== 'private') cleared.push(STATUS_LABEL);
  return cleared;
}

/**
 * The body of an update that changes only what `given` names (body fields from the flags) and
 * clears what `clear` names (sent as null, which clears on patching and replacing servers alike),
 * and the list of what it would clear besides, which must be confirmed.
 */
export function planLinkUpdate(read: LinkRead, given: Rec, clear: ReadonlySet<Clearable>, now = Date.now()): LinkUpdatePlan {
  const { details, item } = read;
  const cleared: string[] = [];
  const notes: string[] = [];
  const geo = readTargets(details.location);
  const device = readTargets(details.device);
  if (geo.regions.length && !clear.has('geo') && given.geotarget === undefined) cleared.push(`region targeting (${geo.regions.join(', ')}), which cannot be sent back`);
  let expiry = text(details.expiry);
  if (expiry && !clear.has('expiry') && !(Date.parse(`${expiry.replace(' ', 'T')}Z`) > now)) {
    notes.push(`the expiry ${expiry} has passed and servers refuse a past expiry, so it is not sent again`);
    expiry = undefined;
  }
  const domain = text(item?.domain);
  // What was read of each readable field, as the update's body field wants it (by its --clear name).
  const back: Partial<Record<Clearable, unknown>> = {
    geo: geo.targets.length ? geo.targets.map((t) => ({ location: t.key, link: t.link })) : undefined,
    device: device.targets.length ? device.targets.map((t) => ({ device: t.key, link: t.link })) : undefined,
    expiry,
    'meta-title': text(details.title),
    'meta-description': text(details.description),
    // Real servers name the site itself as the domain of a link on the default domain.
    domain: domain && !(read.siteUrl && sameSite(domain, read.siteUrl)) ? noSlash(domain) : undefined,
    campaign: refId(item?.campaign),
    channel: refId(item?.channel),
  };

  const body: Rec = { url: details.longurl };
  for (const { body: field, clear: option } of READABLE) {
    if (clear.has(option)) body[field] = null;
    else if (back[option] !== undefined) body[field] = back[option];
  }
  for (const { field, clear: option } of UNREADABLE) if (clear.has(option)) body[field] = null;
  for (const [key, value] of Object.entries(given)) {
    const name = key === 'geotarget' ? 'location' : 'device';
    body[key] = (key === 'geotarget' || key === 'devicetarget') && Array.isArray(body[key]) ? mergeTargets(body[key] as Rec[], value as Rec[], name) : value;
  }

  const unasked = (field: string, option: Clearable) => given[field] === undefined && !clear.has(option);
  for (const { field, clear: option, label } of UNREADABLE) if (unasked(field, option)) cleared.push(label);
  // 7.x servers answer `device: null` even for a link with device targeting.
  for (const f of READABLE) if (f.answeredNull && details[f.read!.key] == null && unasked(f.body, f.clear)) cleared.push(f.label);
  // Without the list item, domain, campaign and channel are unknown.
  if (!item) for (const f of READABLE) if (f.read!.from === 'item' && unasked(f.body, f.clear)) cleared.push(f.label);
  if (given.status !== 'private') cleared.push(STATUS_LABEL);
  return { body, cleared, notes };
}

/** The question an update that clears something asks (a prompt, or the refusal without a terminal). */
export function clearingQuestion(id: number | string, cleared: string[]): string {
  return `Update link ${id} and clear whatever it has of: ${cleared.join('; ')}?`;
}

export const CLEARING_HINT = 'real servers clear what is not sent again and make the link private, and linkctl cannot read these back: give them again, name each with --clear, give --private, or pass --yes';
