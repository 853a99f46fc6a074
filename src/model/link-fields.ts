/**
 * How the product keeps each option of a short link, in one table (real-servers.md, "What the
 * product 7.7 does when run"). Terraform marks an attribute computed, write-only or sensitive and
 * builds its plans from those marks; linkctl does the same with these:
 *
 * - `read`: where an answer gives the value back, and under which key. A field without it is
 *   WRITE-ONLY: sent, never answered, so it can be neither compared nor sent again by an update.
 * - `update`: what a `PUT api/url/:id/update` does with it. Updates REPLACE every option
 *   (`replaced`, the default: what is not sent again is cleared); the note is stored on create
 *   only (`create-only`: an update never writes it); and every update makes the link private
 *   whatever `status` says (`private`).
 * - `sensitive`: a secret, never printed, exported or compared.
 * - `normalised`: what the server does to the value before storing it, in words; `stored`, the
 *   same as a function (Terraform's `StateFunc`, src/model/rewrites.ts) where linkctl can predict it.
 *
 * Plain data that imports only the rewrite rules (which import nothing), so that the flag
 * definitions (loaded at start-up) can derive from it.
 * The safe update (links.ts), `link update`'s confirmation, export, plan and apply (src/ascode/)
 * and the sandbox (src/sandbox/links.ts) all follow these marks: a fact learned about the product
 * is one mark here.
 */
import { cleanedText, destinationAsStored } from './rewrites.js';
import { serverAlias } from './aliases.js';
import type { StoredAs } from './values.js';

export interface LinkField {
  /** The `link add` flags that give it (without `--`). */
  flags: readonly string[];
  /** The field of the request body. */
  body: string;
  /** How people name it in messages. */
  label: string;
  /** Its `link update --clear` name; absent: an update cannot clear it on purpose. */
  clear?: string;
  /** Where answers give it back: the single read (`details`) or the list item (`item`), under `key`. */
  read?: { from: 'details' | 'item'; key: string };
  /** 7.x servers answer `null` here whatever the link holds (device targeting): not readable there after all. */
  answeredNull?: true;
  update?: 'replaced' | 'create-only' | 'private';
  sensitive?: true;
  normalised?: string;
  /** What the product keeps when sent a value (see StoredAs): plan compares the prediction with what it reads. */
  stored?: StoredAs;
}

export const LINK_FIELDS = [
  { flags: ['geo'], body: 'geotarget', label: 'geo targeting', clear: 'geo', read: { from: 'details', key: 'location' }, normalised: 'countries are answered in lower case' },
  { flags: ['device'], body: 'devicetarget', label: 'device targeting', clear: 'device', read: { from: 'details', key: 'device' }, answeredNull: true },
  { flags: ['expiry'], body: 'expiry', label: 'expiry', clear: 'expiry', read: { from: 'details', key: 'expiry' } },
  { flags: ['meta-title'], body: 'metatitle', label: 'meta title', clear: 'meta-title', read: { from: 'details', key: 'title' }, normalised: 'servers clean text of HTML; without a title, the product stores the destination page\'s', stored: (v) => cleanedText(v) },
  { flags: ['meta-description'], body: 'metadescription', label: 'meta description', clear: 'meta-description', read: { from: 'details', key: 'description' }, normalised: 'servers clean text of HTML', stored: (v) => cleanedText(v) },
  { flags: ['domain'], body: 'domain', label: 'domain', clear: 'domain', read: { from: 'item', key: 'domain' }, normalised: 'a domain that is not one of the account\'s becomes the default domain' },
  { flags: ['campaign'], body: 'campaign', label: 'campaign', clear: 'campaign', read: { from: 'item', key: 'campaign' } },
  { flags: ['channel'], body: 'channel', label: 'channel', clear: 'channel', read: { from: 'item', key: 'channel' } },
  { flags: ['password', 'password-stdin'], body: 'password', label: 'password', clear: 'password', sensitive: true },
  { flags: ['pixel'], body: 'pixels', label: 'pixels', clear: 'pixels' },
  { flags: ['param'], body: 'parameters', label: 'parameters', clear: 'params' },
  { flags: ['deeplink-apple', 'deeplink-google', 'deeplink-auto'], body: 'deeplink', label: 'deep links', clear: 'deeplinks' },
  { flags: ['redirect', 'splash', 'overlay'], body: 'type', label: 'redirect type, splash or overlay', clear: 'redirect' },
  { flags: ['language'], body: 'languagetarget', label: 'language targeting', clear: 'language' },
  { flags: ['meta-image'], body: 'metaimage', label: 'meta image', clear: 'meta-image' },
  { flags: ['description'], body: 'description', label: 'note', update: 'create-only' },
  { flags: ['public', 'private'], body: 'status', label: 'public status', update: 'private' },
] as const satisfies readonly LinkField[];

/**
 * What the product keeps of a link's destination and alias, which are not options (fact 8: a
 * scheme put in front of a bare destination; fact 9: runs of punctuation in an alias become `-`).
 */
export const LINK_KEY_STORED: Readonly<Record<'url' | 'custom', StoredAs>> = {
  url: (v) => destinationAsStored(v),
  custom: (v) => serverAlias(v),
};

/** `link update --clear`: the fields an update can clear on purpose. */
export type Clearable = Extract<(typeof LINK_FIELDS)[number], { clear: string }>['clear'];
export const CLEARABLE: readonly Clearable[] = LINK_FIELDS.flatMap((f) => ('clear' in f ? [f.clear] : []));

/** The field a `link add` flag (without `--`) gives. */
export function linkFieldOf(flag: string): LinkField | undefined {
  return (LINK_FIELDS as readonly LinkField[]).find((f) => f.flags.includes(flag));
}

/** Fields answers give back (and an update therefore sends again from what it read). */
export const READ_BACK = (LINK_FIELDS as readonly LinkField[]).filter((f) => f.read);
/** Write-only fields an update clears unless they are given again (the note and public status have rules of their own). */
export const WRITE_ONLY = (LINK_FIELDS as readonly LinkField[]).filter((f) => !f.read && (f.update ?? 'replaced') === 'replaced');
