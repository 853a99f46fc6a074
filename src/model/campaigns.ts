/**
 * Campaigns. The name arrives under `name` (list items), `domain` (documented create/update
 * answers) or `campaign` (real servers' create/update answers); `rotator` and `list` are `false`
 * when the campaign has no slug.
 */
import type { Model } from './model.js';
import { compact, firstOf, flag, text, type Rec, type StoredFields } from './values.js';
import { campaignSlug, capitalisedName, cleanedText } from './rewrites.js';

/**
 * What the product keeps of a campaign's fields (real-servers.md, facts 15, 29, 30): the name
 * cleaned and capitalised (`autumn deals` → `Autumn deals`), the slug transliterated and lowercased
 * (`Autumn_Deals` → `autumn-deals`; a random one the server makes is mixed case, and kept so).
 * Names are unique per account without case; slugs across the installation.
 */
export const CAMPAIGN_STORED: StoredFields = {
  name: (value) => capitalisedName(value),
  slug: (value) => campaignSlug(value),
};

export const campaigns: Model = {
  kind: 'campaigns',
  noun: 'campaign',
  command: 'campaign',
  list: 'api/campaigns',
  keys: ['campaigns'],
  item: (id) => `api/campaign/${id}`,
  add: 'api/campaign/add',
  key: (item) => campaignName(item),
  listFields: ['id', 'name', 'public', 'rotator', 'list', 'views'],
  stored: CAMPAIGN_STORED,
};

/** The name, whichever key carries it (in this order everywhere). */
export function campaignName(record: Rec): string | undefined {
  const name = firstOf(record, 'name', 'campaign', 'domain');
  return typeof name === 'string' ? name : undefined;
}

/** `POST api/campaign/:id/assign/:linkid`: put a link in a campaign. */
export const campaignAssignPath = (campaignId: number, linkId: number) => `${campaigns.item(campaignId)}/assign/${linkId}`;


/** A slug of the campaign list (`rotator` ends with it); undefined when the campaign has none. */
export const campaignSlugOf = (item: Rec): string | undefined => {
  const rotator = text(item.rotator);
  return rotator ? rotator.split('/').pop() : undefined;
};

export function campaignRecord(item: Rec): Rec {
  return compact({ name: campaignName(item), slug: campaignSlugOf(item), public: flag(item.public) });
}

export function campaignBody(record: { name?: unknown; slug?: unknown; public?: unknown }): Rec {
  return compact({ name: record.name, slug: record.slug, public: record.public });
}

/**
 * An update's body without a slug the campaign holds already, as the product stores it: the
 * product refuses a slug that any campaign holds, its own included (fact 30), so sending the
 * current slug again would fail the whole update.
 */
export function withoutOwnSlug(body: Rec, currentSlug: unknown): Rec {
  if (typeof body.slug !== 'string' || typeof currentSlug !== 'string' || !sameSlug(body.slug, currentSlug)) return body;
  const { slug: _slug, ...rest } = body;
  return rest;
}

/** Whether a slug as sent is the slug a campaign holds: as written, or as the product would store it. */
export const sameSlug = (sent: string, held: string): boolean => sent === held || campaignSlug(sent) === held;

/**
 * Why a campaign update's name would be ignored (fact 31): 2 bytes or less once cleaned, which
 * the product ignores with a success answer and the old name; undefined when it would be stored.
 */
export function campaignNameIgnoredOnUpdate(value: string): string | undefined {
  if (Buffer.byteLength(cleanedText(value)) > 2) return undefined;
  return `real servers ignore a campaign name of 2 bytes or less on update, and answer success with the old name (got "${value}")`;
}
