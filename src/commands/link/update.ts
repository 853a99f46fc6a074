/**
 * The safe link update, written once for `link update`, `link add --if-exists update` and the
 * commands that change links in bulk. Real servers replace every option of a link on
 * `PUT api/url/:id/update` (real-servers.md): what is not sent is cleared. So an update reads
 * the link back (`GET api/url/:id` plus its list item), sends again everything it could read,
 * and names everything else, which the caller must have confirmed before sending.
 *
 * `planLinkUpdate` is pure; `readLink` and `updateLink` do the requests.
 */
import type { ApiClient } from '../../api/client.js';
import type { Body } from '../../api/envelope.js';
import type { Context } from '../../context.js';
import { CliError, NotFoundError } from '../../errors.js';
import type { Rec } from '../../output/types.js';
import type { Clearable } from './types.js';

/** What linkctl could read of a link: `GET api/url/:id` details, and its list item when the server gave it. */
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

/** Options that cannot be read back: the body fields that give them, and their `--clear` name. */
export const UNREADABLE: Array<{ field: string; clear: Clearable; label: string }> = [
  { field: 'password', clear: 'password', label: 'password' },
  { field: 'pixels', clear: 'pixels', label: 'pixels' },
  { field: 'parameters', clear: 'params', label: 'parameters' },
  { field: 'deeplink', clear: 'deeplinks', label: 'deep links' },
  { field: 'type', clear: 'redirect', label: 'redirect type, splash or overlay' },
  { field: 'languagetarget', clear: 'language', label: 'language targeting' },
  { field: 'metadescription', clear: 'meta-description', label: 'meta description' },
  { field: 'metaimage', clear: 'meta-image', label: 'meta image' },
];

/** Options read back, by their `--clear` name: the body field, and the label when they could not be read. */
const READABLE: Record<'geo' | 'device' | 'expiry' | 'meta-title' | 'description' | 'domain' | 'campaign' | 'channel', { field: string; label: string }> = {
  geo: { field: 'geotarget', label: 'geo targeting' },
  device: { field: 'devicetarget', label: 'device targeting' },
  expiry: { field: 'expiry', label: 'expiry' },
  'meta-title': { field: 'metatitle', label: 'title' },
  description: { field: 'description', label: 'description' },
  domain: { field: 'domain', label: 'domain' },
  campaign: { field: 'campaign', label: 'campaign' },
  channel: { field: 'channel', label: 'channel' },
};

/** The label of public/private: not readable, given by --public or --private. */
export const STATUS_LABEL = 'public status (the link becomes private unless --public or --private is given)';

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

/** Targets by key, case-insensitive: the user's replace those read back for the same country or device. */
function mergeTargets(read: Rec[], given: Rec[], name: string): Rec[] {
  const out = new Map<string, Rec>(read.map((t) => [String(t[name]).toLowerCase(), t]));
  for (const t of given) out.set(String(t[name]).toLowerCase(), t);
  return [...out.values()];
}

const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
const sameSite = (a: string, b: string) => a.replace(/\/+$/, '').toLowerCase() === b.replace(/\/+$/, '').toLowerCase();

/** An id a list item holds (`3`, `"3"`, or the first of `[3, 4]`); 0, null, false and '' mean none. */
function refId(value: unknown): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
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
  const back: Record<keyof typeof READABLE, unknown> = {
    geo: geo.targets.length ? geo.targets.map((t) => ({ location: t.key, link: t.link })) : undefined,
    device: device.targets.length ? device.targets.map((t) => ({ device: t.key, link: t.link })) : undefined,
    expiry,
    'meta-title': text(details.title),
    description: text(details.description),
    // Real servers name the site itself as the domain of a link on the default domain.
    domain: domain && !(read.siteUrl && sameSite(domain, read.siteUrl)) ? domain.replace(/\/+$/, '') : undefined,
    campaign: refId(item?.campaign),
    channel: refId(item?.channel),
  };

  const body: Rec = { url: details.longurl };
  for (const [option, { field }] of Object.entries(READABLE) as Array<[keyof typeof READABLE, { field: string }]>) {
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
  if (details.device == null && unasked('devicetarget', 'device')) cleared.push('device targeting');
  // Without the list item, domain, campaign and channel are unknown.
  if (!item) for (const option of ['domain', 'campaign', 'channel'] as const) if (unasked(READABLE[option].field, option)) cleared.push(READABLE[option].label);
  if (given.status === undefined) cleared.push(STATUS_LABEL);
  return { body, cleared, notes };
}

/** The question an update that clears something asks (a prompt, or the refusal without a terminal). */
export function clearingQuestion(id: number, cleared: string[]): string {
  return `Update link ${id} and clear whatever it has of: ${cleared.join('; ')}?`;
}

export const CLEARING_HINT = 'real servers clear what is not sent again, and linkctl cannot read these back: give them again, name each with --clear, or pass --yes';

/**
 * The link's item of `GET api/urls`, by `?short=` (one link, or a list on some servers) or else
 * by a search for its alias; undefined when neither finds it.
 */
export async function findListItem(client: ApiClient, details: Rec): Promise<Rec | undefined> {
  const id = String(details.id);
  const pick = (value: unknown): Rec | undefined => {
    if (Array.isArray(value)) return value.find((r): r is Rec => Boolean(r) && typeof r === 'object' && String((r as Rec).id) === id);
    if (value && typeof value === 'object') {
      const r = value as Rec;
      if (String(r.id) === id) return r;
      if (Array.isArray(r.urls)) return pick(r.urls);
    }
    return undefined;
  };
  const about = `link ${id}`;
  const attempts: Array<() => Promise<Body>> = [];
  if (typeof details.shorturl === 'string') attempts.push(() => client.request('GET', 'api/urls', { query: { short: details.shorturl as string }, about }));
  if (typeof details.alias === 'string') attempts.push(() => client.request('GET', 'api/urls', { query: { q: details.alias as string, limit: 100 }, about }));
  for (const attempt of attempts) {
    try {
      const found = pick((await attempt()).data);
      if (found) return found;
    } catch (error) {
      if (!(error instanceof CliError) || error.exitCode === 3 || error.exitCode === 130) throw error;
    }
  }
  return undefined;
}

/** Reads what an update needs: details (an unknown id fails here, before anything changes) and the list item. */
export async function readLink(client: ApiClient, id: number): Promise<LinkRead> {
  const details = (await client.request('GET', `api/url/${id}`, { expect: ['details'], about: `link ${id}` })).details as Rec;
  return { details, item: await findListItem(client, details), siteUrl: client.base.href };
}

/**
 * Reads, plans, confirms (a prompt, `--yes`, or exit 2 naming what would be cleared) and sends
 * the update. `given` are body fields from flags; returns the server's answer.
 */
export async function updateLink(ctx: Context, client: ApiClient, id: number, given: Rec, clear: ReadonlySet<Clearable>): Promise<Body> {
  const plan = planLinkUpdate(await readLink(client, id), given, clear);
  for (const note of plan.notes) ctx.warn(`note: ${note}.`);
  if (plan.cleared.length && ctx.globals.dryRun) ctx.warn(`note: real servers would clear whatever link ${id} has of: ${plan.cleared.join('; ')}.`);
  if (plan.cleared.length) await ctx.confirm(clearingQuestion(id, plan.cleared), CLEARING_HINT);
  return withNamedReferences(client, given, () => client.request('PUT', `api/url/${id}/update`, { json: plan.body, about: `link ${id}` }));
}

/**
 * Sends a create or update of a link; when the server rejects a referenced pixel, campaign or
 * channel without saying which ("Pixel does not exist."), names the ids given that the lists lack.
 */
export async function withNamedReferences(client: ApiClient, given: Rec, send: () => Promise<Body>): Promise<Body> {
  try {
    return await send();
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    const refs: Array<[RegExp, string, string, string, unknown]> = [
      [/pixel/i, 'api/pixels', 'pixels', '--pixel', given.pixels],
      [/campaign/i, 'api/campaigns', 'campaigns', '--campaign', given.campaign],
      [/channel/i, 'api/channels', 'channels', '--channel', given.channel],
    ];
    for (const [pattern, path, key, flag, value] of refs) {
      if (!pattern.test(error.message) || value === undefined || value === null) continue;
      const ids = (Array.isArray(value) ? value : [value]).map(String);
      try {
        const { allPages } = await import('../../api/pages.js');
        const known = new Set<string>();
        for await (const page of allPages(client, { path, keys: [key], limit: 100 })) for (const r of page.records) known.add(String(r.id));
        const missing = ids.filter((id) => !known.has(id));
        if (missing.length) error.message = `${error.message} (${missing.map((id) => `${flag} ${id}`).join(', ')} not found)`;
      } catch {
        // the list could not be read: the server's message stays as it is
      }
    }
    throw error;
  }
}
