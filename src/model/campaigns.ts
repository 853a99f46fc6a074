/**
 * Campaigns. The name arrives under `name` (list items), `domain` (documented create/update
 * answers) or `campaign` (real servers' create/update answers); `rotator` and `list` are `false`
 * when the campaign has no slug.
 */
import type { Model } from './model.js';
import { compact, firstOf, flag, text, type Rec } from './values.js';

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
};

/** The name, whichever key carries it (in this order everywhere). */
export function campaignName(record: Rec): string | undefined {
  const name = firstOf(record, 'name', 'campaign', 'domain');
  return typeof name === 'string' ? name : undefined;
}

/** `POST api/campaign/:id/assign/:linkid`: put a link in a campaign. */
export const campaignAssignPath = (campaignId: number, linkId: number) => `${campaigns.item(campaignId)}/assign/${linkId}`;

/** A slug as the product stores it: in lower case (a slug given on create is lowercased; random ones are mixed case). */
export const slugAsStored = (value: unknown): unknown => (typeof value === 'string' ? value.toLowerCase() : value);

export function campaignRecord(item: Rec): Rec {
  const rotator = text(item.rotator);
  return compact({ name: campaignName(item), slug: rotator ? rotator.split('/').pop() : undefined, public: flag(item.public) });
}

export function campaignBody(record: { name?: unknown; slug?: unknown; public?: unknown }): Rec {
  return compact({ name: record.name, slug: record.slug, public: record.public });
}
