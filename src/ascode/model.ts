/**
 * The "links as code" file format, in one place: the kinds of record, their natural keys, their
 * fields and which of them a server gives back. A link's fields are derived from the options of
 * `link add` (src/model/link-options.ts), so a flag added there appears in the file, the schema
 * and the validation at once; test/unit/ascode.test.ts fails when a flag has no field.
 */
import { Command, type Option } from 'commander';
import { linkOptions } from '../model/link-options.js';
import { PIXEL_TYPES } from '../model/pixel-types.js';
import { QR_TYPES } from '../model/qr-types.js';
import { domainUrl, hexColor, httpUrl, nonEmpty, rgbColor } from '../validate.js';
import { keyMatch, type StoredFields } from '../model/values.js';
import { linkFieldOf, LINK_FIELDS, LINK_KEY_STORED, type LinkField } from '../model/link-fields.js';
import { CAMPAIGN_STORED } from '../model/campaigns.js';
import { CHANNEL_STORED } from '../model/channels.js';
import { DOMAIN_STORED } from '../model/domains.js';
import { PIXEL_STORED } from '../model/pixels.js';
import { QR_STORED } from '../model/qr.js';

export const KINDS = ['domains', 'pixels', 'campaigns', 'channels', 'links', 'qr', 'overlays', 'splash'] as const;
export type Kind = (typeof KINDS)[number];
/** Kinds apply creates and changes, in dependency order. */
export const MANAGED: Kind[] = ['domains', 'pixels', 'campaigns', 'channels', 'links', 'qr'];

export type FieldType = 'string' | 'integer' | 'boolean' | 'map' | 'list' | 'object';

export interface Field {
  type: FieldType;
  description: string;
  /** Checks one string value (a list item, a map's `key=value`); throws a UsageError naming the flag. */
  check?: (value: string) => unknown;
  /** The record kind a value names (by its key). */
  ref?: Kind;
  choices?: readonly string[];
  /** Sub-fields of an object (`deeplink: {apple, google}`). */
  properties?: Record<string, Field>;
  /** A secret: never exported, and given in the file only as `${env:NAME}`. */
  secret?: boolean;
  required?: boolean;
  /** The `link add` flag(s) the field comes from. */
  flags?: string[];
}

export interface KindSpec {
  kind: Kind;
  noun: string;
  /** The field(s) of the natural key. */
  key: string[];
  fields: Record<string, Field>;
  /** Fields a server gives back, compared by plan. The others are sent, never compared. */
  readable: string[];
  /** Readable fields that only a record's own read gives (one request per record), not its list. */
  detailed?: string[];
  /**
   * Fields the product rewrites before storing them (the marks of the resource's model, by file
   * name): plan compares what it reads with the prediction, and says once what will be stored.
   */
  stored?: StoredFields;
  /** Read-only references: apply never creates, changes or deletes these. */
  readOnly?: boolean;
}

// ---------------------------------------------------------------- links, from the flags of `link add`

/** Flags whose file field has another name. `null`: the flag is another spelling of a field. */
const RENAMED: Record<string, string | null> = {
  'meta-title': 'title',
  'meta-description': 'metaDescription',
  'meta-image': 'metaImage',
  pixel: 'pixels',
  channel: 'channels',
  param: 'params',
  'deeplink-apple': 'deeplink',
  'deeplink-google': 'deeplink',
  'deeplink-auto': 'deeplink',
  'password-stdin': null,
  private: null,
};
/** Flags that take an id: in the file they name a record of this kind. */
const REFERENCES: Record<string, Kind> = { pixel: 'pixels', channel: 'channels', campaign: 'campaigns', splash: 'splash', overlay: 'overlays', domain: 'domains' };
/** A single-valued flag whose field is a list (a link can be in several channels; the flag adds one). */
const LISTS = new Set(['channel']);

/** The options of `link add`, from its definition (without the destination, which is its argument). */
let flags: readonly Option[] | undefined;
export function linkFlags(): readonly Option[] {
  // Built once: every link record of a file goes through these (a commander Command each time would cost ~1 ms a record).
  flags ??= linkOptions(new Command('add')).options;
  return flags;
}

function linkFields(): Record<string, Field> {
  const fields: Record<string, Field> = { url: { type: 'string', description: 'the destination (long URL)', required: true, check: (v) => httpUrl('url', v), flags: [] } };
  for (const option of linkFlags()) {
    const flag = option.long!.slice(2);
    const name = flag in RENAMED ? RENAMED[flag] : flag;
    if (name === null) continue;
    const parse = (v: string) => (option.parseArg ? option.parseArg(v, undefined as never) : v);
    const repeatable = /\(repeatable\)/.test(option.description);
    const ref = REFERENCES[flag];
    let field: Field;
    if (name === 'deeplink') {
      const sub = flag.replace('deeplink-', '');
      const existing = fields.deeplink ?? { type: 'object', description: 'app deep links', properties: {}, flags: [] };
      const isSwitch = !option.required && !option.optional;
      existing.properties![sub] = isSwitch ? { type: 'boolean', description: option.description, flags: [option.long!] } : { type: 'string', description: option.description, check: parse, flags: [option.long!] };
      existing.flags!.push(option.long!);
      fields.deeplink = existing;
      continue;
    } else if (!option.required && !option.optional) {
      // A flag without a value: a switch, or the password, which is asked for.
      field = flag === 'password' ? { type: 'string', description: 'the link password, as ${env:NAME}', secret: true } : { type: 'boolean', description: `${option.description} (false: the opposite)` };
    } else if (ref) {
      field = { type: repeatable || LISTS.has(flag) ? 'list' : 'string', description: `${option.description.replace(/ ?\(repeatable\)/, '').replace(/\bid\b/, 'name')}`, ref };
      if (ref === 'domains') field.check = parse;
    } else if (repeatable && /=/.test(option.flags)) {
      field = { type: 'map', description: option.description.replace(/ ?\(repeatable\)/, ''), check: parse };
    } else if (repeatable) {
      field = { type: 'list', description: option.description.replace(/ ?\(repeatable\)/, ''), check: parse };
    } else {
      field = { type: 'string', description: option.description, check: parse, choices: option.argChoices };
    }
    field.flags = [option.long!];
    fields[name] = field;
  }
  fields.alias!.required = true; // the link's key in the file
  // A link that exists is matched by its alias whatever it is (older servers made 1- and 2-character
  // ones); the rules of --alias apply to an alias that would be sent, so plan checks those (aliasErrors).
  fields.alias!.check = (v) => nonEmpty('alias', v);
  return fields;
}

/** The file fields of a link, each with what the product does with it (src/model/link-fields.ts). */
let fileFields: Array<{ name: string; field: LinkField }> | undefined;
export function linkFileFields(): Array<{ name: string; field: LinkField }> {
  fileFields ??= Object.entries(linkFields()).flatMap(([name, f]) => {
    const linkField = f.flags?.map((flag) => linkFieldOf(flag.slice(2))).find(Boolean);
    return linkField ? [{ name, field: linkField }] : [];
  });
  return fileFields;
}

/** What the product keeps of a link's fields, by file name: the destination, the alias, and the options marked in link-fields.ts. */
function linkStored(): StoredFields {
  const stored: Record<string, StoredFields[string]> = { url: LINK_KEY_STORED.url, alias: LINK_KEY_STORED.custom };
  for (const { name, field } of linkFileFields()) if (field.stored) stored[name] = field.stored;
  return stored;
}

/** A link's fields that answers give back (and plan compares): the destination and what the table marks read. */
function linkReadable(): string[] {
  return ['url', ...linkFileFields().filter(({ field }) => field.read && field.body !== 'domain').map(({ name }) => name)];
}

/** What a link update clears that its file record does not state (write-only fields) and what it changes whatever the file says (public status). */
export function linkUpdateClears(record: Rec): string[] {
  const stated = (field: LinkField) => linkFileFields().some(({ name, field: f }) => f === field && record[name] !== undefined);
  const clears = (LINK_FIELDS as readonly LinkField[])
    .filter((f) => (!f.read || f.answeredNull) && (f.update ?? 'replaced') === 'replaced' && !stated(f))
    .map((f) => (f.answeredNull ? `${f.label} (7.x servers never answer it)` : f.label));
  if (record.public === true) clears.push('public status: the file says public, but real servers make every updated link private');
  else if (record.public === undefined) clears.push('public status (real servers make every updated link private)');
  return clears;
}

/**
 * `none` (issue 44): the link has none of this option. These are the options an update clears
 * unless they are sent again and that cannot be read back (or not on every server), so a file
 * could not otherwise say "no password, no pixels": a stated `none` counts as stated, and the
 * option is left out of the request (the update then clears it, as the file says).
 */
export const NONE = 'none';
export const NONE_FIELDS: readonly string[] = ['password', 'metaImage', 'pixels', 'params', 'deeplink', 'redirect', 'splash', 'overlay', 'language', 'device'];
/** Whether a link record's value is a stated `none` of a field that takes it. */
export const isNone = (field: string, value: unknown): boolean => value === NONE && NONE_FIELDS.includes(field);

/**
 * What a link record would state to clear nothing unasked: each option of `linkUpdateClears` by its
 * file name, as `none` (a value works as well), and `public: false` (an update makes it private).
 * The apply refusal's hint names these, so that the way past it is on the screen.
 */
export function linkUpdateStatements(record: Rec): string[] {
  const stated = (field: LinkField) => linkFileFields().some(({ name, field: f }) => f === field && record[name] !== undefined);
  const names = (LINK_FIELDS as readonly LinkField[])
    .filter((f) => (!f.read || f.answeredNull) && (f.update ?? 'replaced') === 'replaced' && !stated(f))
    // The first file name of the field that takes `none` (`redirect` for the redirect type, splash or overlay).
    .map((f) => linkFileFields().find(({ name, field }) => field === f && NONE_FIELDS.includes(name))?.name)
    .filter((n): n is string => n !== undefined)
    .map((n) => `${n}: ${NONE}`);
  if (record.public !== false) names.push('public: false');
  return names;
}

// ---------------------------------------------------------------- every kind

const str = (description: string, check?: (v: string) => unknown, extra: Partial<Field> = {}): Field => ({ type: 'string', description, check, ...extra });
const bool = (description: string): Field => ({ type: 'boolean', description });
/**
 * The server's id, for kinds whose names may repeat on a server (two QR codes named "Menu"):
 * export writes it only for such records, and plan then matches them by it.
 */
const SAME_NAME_ID: Field = { type: 'integer', description: 'the server\'s id; only needed (and only written by export) when several records share the name' };

let cache: Record<Kind, KindSpec> | undefined;

export function specs(): Record<Kind, KindSpec> {
  cache ??= {
    domains: {
      kind: 'domains', noun: 'domain', key: ['domain'], readable: ['redirectRoot', 'redirect404'], stored: DOMAIN_STORED,
      fields: { domain: str('the branded domain, scheme and host', (v) => domainUrl('domain', v), { required: true }), redirectRoot: str('where the domain root goes', (v) => httpUrl('redirectRoot', v)), redirect404: str('where a missing page goes', (v) => httpUrl('redirect404', v)) },
    },
    pixels: {
      kind: 'pixels', noun: 'pixel', key: ['name'], readable: ['type', 'tag'], stored: PIXEL_STORED,
      fields: { name: str('the pixel name', (v) => nonEmpty('name', v), { required: true }), id: SAME_NAME_ID, type: str('pixel type', undefined, { choices: PIXEL_TYPES, required: true }), tag: str('the tag or id from the ad platform', (v) => nonEmpty('tag', v, 3), { required: true }) },
    },
    campaigns: {
      kind: 'campaigns', noun: 'campaign', key: ['name'], readable: ['slug', 'public'], stored: CAMPAIGN_STORED,
      fields: { name: str('campaign name', (v) => nonEmpty('name', v, 2), { required: true }), slug: str('rotator slug'), public: bool('anyone with the list URL can see it') },
    },
    channels: {
      kind: 'channels', noun: 'channel', key: ['name'], readable: ['description', 'color', 'starred'], stored: CHANNEL_STORED,
      fields: { name: str('channel name', (v) => nonEmpty('name', v, 2), { required: true }), description: str('a description'), color: str('badge colour, #RRGGBB', (v) => hexColor('color', v)), starred: bool('starred') },
    },
    links: { kind: 'links', noun: 'link', key: ['alias', 'domain'], readable: linkReadable(), detailed: ['expiry', 'geo', 'device'], stored: linkStored(), fields: linkFields() },
    qr: {
      // Read back from each code's image (src/qr/read.ts), not from the API; the logo is not.
      kind: 'qr', noun: 'QR code', key: ['name'], readable: ['type', 'data', 'foreground', 'background'], stored: QR_STORED,
      fields: {
        name: str('a name for the code', (v) => nonEmpty('name', v), { required: true }),
        id: SAME_NAME_ID,
        type: str('code type; without type and data the code is a reference only', undefined, { choices: QR_TYPES }),
        data: { type: 'object', description: 'the content: a string, or an object for sms, wifi, vcard (as `qr add --data-json`)' },
        background: str('background colour, #RRGGBB or rgb(r,g,b)', (v) => rgbColor('background', v)),
        foreground: str('foreground colour, #RRGGBB or rgb(r,g,b)', (v) => rgbColor('foreground', v)),
        logo: str('logo image URL', (v) => httpUrl('logo', v)),
      },
    },
    overlays: { kind: 'overlays', noun: 'overlay', key: ['name'], readable: [], readOnly: true, fields: { name: str('CTA overlay name (read only)', undefined, { required: true }) } },
    splash: { kind: 'splash', noun: 'splash page', key: ['name'], readable: [], readOnly: true, fields: { name: str('splash page name (read only)', undefined, { required: true }) } },
  };
  return cache;
}

/** The key of a record, as text: `promo`, `https://go.example.com/promo`. */
export function keyOf(kind: Kind, record: Record<string, unknown>): string {
  if (kind === 'links') return record.domain ? `${String(record.domain)}/${String(record.alias)}` : String(record.alias);
  return String(record[specs()[kind].key[0]!]);
}

/** Keys compare without case: servers treat aliases and names that way. */
export { keyMatch };

/**
 * The keys under which the server may hold a file's record, compared without case: as written,
 * and as the product stores its key (`autumn deals` → `Autumn deals`, `Fish & "Chips"` → `Fish &
 * &quot;Chips&quot;`, the alias `Summer_Sale` → `Summer-Sale`), so that a record made from this
 * file is found under it. One key when the product keeps the key as written.
 */
export function keysOf(kind: Kind, record: Record<string, unknown>): string[] {
  const written = keyMatch(keyOf(kind, record));
  const spec = specs()[kind];
  const field = spec.key[0]!;
  const value = record[field];
  const rewrite = spec.stored?.[field];
  if (!rewrite || typeof value !== 'string') return [written];
  const as = rewrite(value, 'create');
  if (as === undefined || as === value) return [written];
  const stored = keyMatch(keyOf(kind, { ...record, [field]: as }));
  return stored === written ? [written] : [written, stored];
}

/** Names links give (a campaign's, a channel's) repeat: their keys are worked out once. */
const nameKeys = new Map<string, string[]>();
/** keysOf for a name that a link gives for a record of `kind` (its campaign, channels, pixels). */
export function nameKeysOf(kind: Kind, name: string): string[] {
  const memo = `${kind}\u0000${name}`;
  let keys = nameKeys.get(memo);
  if (!keys) {
    if (nameKeys.size > 10_000) nameKeys.clear();
    keys = keysOf(kind, { [specs()[kind].key[0]!]: name });
    nameKeys.set(memo, keys);
  }
  return keys;
}

/** What tells two records of a kind apart in a file: the key, and the id when a name repeats on the server. */
export const identity = (kind: Kind, record: Record<string, unknown>) => `${keyMatch(keyOf(kind, record))}${record.id !== undefined ? `#${String(record.id)}` : ''}`;

export type Rec = Record<string, unknown>;
export type AccountFile = { version: 1 } & Partial<Record<Kind, Rec[]>>;

