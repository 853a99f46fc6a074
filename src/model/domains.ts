/**
 * Branded domains. Real servers send the id of a new domain as a string, append their own system
 * domains (`"id": null`) to the list, and answer an update of an unknown id or with a rejected
 * redirect with an empty body.
 */
import type { Model } from './model.js';
import { compact, noSlash, text, type Rec, type StoredFields } from './values.js';
import { cleanedText } from './rewrites.js';

/** What the product keeps of a domain's redirects: cleaned text (fact 15); the domain itself as sent (fact 28). */
export const DOMAIN_STORED: StoredFields = { redirectRoot: (value) => cleanedText(value), redirect404: (value) => cleanedText(value) };

export const domains: Model = {
  kind: 'domains',
  noun: 'branded domain',
  command: 'domain',
  list: 'api/domains',
  keys: ['domains'],
  item: (id) => `api/domain/${id}`,
  add: 'api/domain/add',
  key: (item) => (typeof item.domain === 'string' ? noSlash(item.domain) : undefined),
  listFields: ['id', 'domain', 'redirectroot', 'redirect404'],
  stored: DOMAIN_STORED,
  // Real servers keep branded domains unique across all users of the installation.
  refusals: [{ message: /domain has been already used/i, hint: 'branded domains are unique across all the accounts of a server: this account (`linkctl domain list`) or another one holds it; after a move between two accounts, delete it in the old one first' }],
};


/** A list item as a record of the account file. */
export function domainRecord(item: Rec): Rec {
  return compact({ domain: noSlash(String(item.domain)), redirectRoot: text(item.redirectroot), redirect404: text(item.redirect404) });
}

/** The body of add/update from the file's field names (the domain itself is sent on add only). */
export function domainBody(record: { domain?: unknown; redirectRoot?: unknown; redirect404?: unknown }): Rec {
  return compact({ domain: record.domain, redirectroot: record.redirectRoot, redirect404: record.redirect404 });
}
