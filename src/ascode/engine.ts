/**
 * Plan and apply: read the account through the run's reader (each collection once, in large
 * pages), turn it into records shaped like the file, match by natural key, diff the readable
 * fields, and carry out the changes in dependency order, remapping names to the target's ids.
 * Paths, keys and bodies come from the resources' models (src/model/).
 */
import { wrapProse } from '../output/wrap.js';
import { toInt } from '../http/envelope.js';
import { UsageError } from '../errors.js';
import { campaignRecord } from '../model/campaigns.js';
import { channelRecord } from '../model/channels.js';
import { domainRecord } from '../model/domains.js';
import { pixelRecord } from '../model/pixels.js';
import { qrRecord } from '../model/qr.js';
import { sameData } from '../qr/content.js';
import { envReference, passFromEnv } from './env-refs.js';
import { madeWithoutColours } from '../qr/read.js';
import { rgbColor } from '../validate.js';
import { destinationKey, readTargets } from '../model/links.js';
import type { AccountReader } from '../model/reader.js';
import { inOrder, type ConcurrencySetting } from '../http/concurrency.js';
import { keyMatch, noSlash, refIds, storedAs, text } from '../model/values.js';
import { isNone, keyOf, keysOf, linkFileFields, linkUpdateClears, MANAGED, nameKeysOf, specs, KINDS, type AccountFile, type Kind, type Rec } from './model.js';

export interface Current {
  record: Rec;
  id: number;
  /** What a link's update needs of its list item (domain, campaign, channel): kept instead of the whole item. */
  item?: Rec;
}
export type State = Record<Kind, Current[]>;

/** Kinds that links name, read whenever links are. */
const LINKED: readonly Kind[] = ['domains', 'campaigns', 'channels', 'pixels'];

/**
 * Reads every record of the given kinds (and what links name), as file records with their ids.
 * Links pass through (the reader's `each`): a file-shaped record and the few fields an update
 * needs are kept of each, not the whole list item, so a plan of 200,000 links stays small;
 * `keep` may make each smaller still (see unchangedAsFileRecord).
 */
export async function readState(reader: AccountReader, kinds: readonly Kind[] = KINDS, keep: (link: Current) => Current = (link) => link): Promise<State> {
  const raw = {} as Record<Kind, Rec[]>;
  for (const kind of KINDS) raw[kind] = kind !== 'links' && (kinds.includes(kind) || (kinds.includes('links') && LINKED.includes(kind))) ? await reader.all(kind) : [];
  const state = toRecords(raw);
  if (kinds.includes('links')) {
    const link = linkRecords(state);
    // The list items are garbage once their records are made: collected every so often, so that a
    // read of 200,000 links does not let them pile up (V8 would collect them only much later).
    const { collectGarbage } = await import('../memory.js');
    await reader.each('links', (r) => {
      for (const c of link(r)) state.links.push(keep(c));
      if (state.links.length % 25_000 === 0) collectGarbage();
    });
  }
  return state;
}

/** A link's list item as a file record, with the names of what it refers to. */
function linkRecords(state: State): (r: Rec) => Current[] {
  const domains = new Map(state.domains.map((d) => [keyMatch(String(d.record.domain)), String(d.record.domain)]));
  const campaigns = new Map(state.campaigns.map((c) => [c.id, c.record]));
  const channels = new Map(state.channels.map((c) => [c.id, c.record]));
  return (r) => {
    const id = toInt(r.id);
    if (id === undefined) return [];
    const domain = text(r.domain) ? domains.get(keyMatch(noSlash(String(r.domain)))) : undefined;
    const campaign = toInt(r.campaign);
    const inChannels = refIds(r.channel).map((c) => channels.get(c)?.name).filter((n): n is string => typeof n === 'string').sort();
    // Built field by field, without `delete` (which makes V8 keep an object as a slower, bigger dictionary).
    const record: Rec = { alias: r.alias };
    if (domain !== undefined) record.domain = domain;
    record.url = r.longurl;
    const title = text(r.title);
    if (title !== undefined) record.title = title;
    // Answers' `description` is the META description (7.7); the note, sent as `description`, is never answered.
    const metaDescription = text(r.description);
    if (metaDescription !== undefined) record.metaDescription = metaDescription;
    const name = campaign ? campaigns.get(campaign)?.name : undefined;
    if (name !== undefined) record.campaign = name;
    if (inChannels.length) record.channels = inChannels;
    return [{ id, record, item: { id: r.id, alias: r.alias, shorturl: r.shorturl, domain: r.domain, campaign: r.campaign, channel: r.channel } }];
  };
}

function toRecords(raw: Record<Kind, Rec[]>): State {
  const state = {} as State;
  const entry = (r: Rec, record: Rec): Current[] => {
    const id = toInt(r.id);
    return id === undefined ? [] : [{ id, record: Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) }];
  };
  state.domains = raw.domains.flatMap((r) => entry(r, domainRecord(r)));
  state.pixels = raw.pixels.flatMap((r) => entry(r, pixelRecord(r)));
  state.campaigns = raw.campaigns.flatMap((r) => entry(r, campaignRecord(r)));
  state.channels = raw.channels.flatMap((r) => entry(r, channelRecord(r)));
  state.links = [];
  // A code's image URL is kept beside its record: its content is read from there (addQrContent).
  state.qr = raw.qr.flatMap((r) => entry(r, qrRecord(r)).map((c) => ({ ...c, item: { link: r.link } })));
  for (const kind of ['overlays', 'splash'] as const) state[kind] = raw[kind].flatMap((r) => entry(r, { name: r.name }));
  return state;
}

/** Fields of a record that its server cannot give back after all (7.x servers answer `device: null`). */
export const unreadableOn = new WeakMap<Rec, string[]>();

/**
 * A link's targeting and expiry, which only the link's single read gives: one request per link, so
 * only for the links that need them (`export --details`, or a file that sets these fields).
 */
export async function addDetails(reader: AccountReader, links: Current[], progress?: (what: string) => void, concurrency: ConcurrencySetting = 'auto'): Promise<void> {
  let done = 0;
  // Up to --concurrency links read at a time (auto: one at a time while the server shows a rate limit).
  await inOrder(links, () => reader.client.inFlight.limit(concurrency), async (link) => {
    const read = (await reader.readOne('links', link.id)).details as Rec;
    const map = (value: unknown) => {
      const { targets } = readTargets(value);
      return targets.length ? Object.fromEntries(targets.map((t) => [t.key, t.link])) : undefined;
    };
    const expiry = text(read.expiry);
    // A passed expiry cannot be sent again (servers refuse it), so it is not part of the account any more.
    link.record.expiry = expiry && Date.parse(`${expiry.replace(' ', 'T')}Z`) > Date.now() ? expiry : undefined;
    link.record.geo = map(read.location);
    if (read.device == null) unreadableOn.set(link.record, ['device']);
    link.record.device = map(read.device);
    for (const key of ['expiry', 'geo', 'device']) if (link.record[key] === undefined) delete link.record[key];
    progress?.(`details of ${++done} of ${links.length} links`);
  });
}

/** Why a code's content could not be read from its image (export writes it beside the record; plan says it). */
export const unreadReason = new WeakMap<Rec, string>();
/** What a code's image could not give back, or left in doubt (a gradient, a logo, vCard fields): said, never guessed. */
export const readNotes = new WeakMap<Rec, string[]>();
const QR_CONTENT = ['type', 'data', 'foreground', 'background'];

/**
 * Each code's type, data and plain colours, read from its image (src/qr/read.ts: image requests,
 * not API requests; a code's own short link is asked without counting a scan). What cannot be
 * read is marked on the record (unreadableOn, unreadReason), so plan compares only what was read.
 * `linkShortUrls`: the account's links' short URLs (a text code holding one is not a code's own link).
 */
export async function addQrContent(reader: AccountReader, codes: Current[], progress?: (done: number, of: number) => void, linkShortUrls?: ReadonlySet<string>, options: { leaveOutSecrets?: boolean } = {}): Promise<number> {
  if (!codes.length) return 0;
  const { readCodes } = await import('../qr/read.js');
  const reads = await readCodes(reader.client, codes.map((c) => ({ id: c.id, name: text(c.record.name) ?? null, link: text(c.item?.link) ?? null })), (done) => progress?.(done, codes.length), { linkShortUrls });
  let unread = 0;
  const variables = new Set<string>();
  reads.forEach((read, i) => {
    const record = codes[i]!.record;
    if (!read.content) {
      unread++;
      unreadableOn.set(record, QR_CONTENT);
      unreadReason.set(record, read.unreadable!);
      return;
    }
    const { type, notes } = read.content;
    let { data } = read.content;
    const { foreground, background } = read.content;
    const secret = options.leaveOutSecrets ? secretIn(type, data) : undefined;
    if (secret) {
      // Not written in the clear: the password as a reference to the environment, as a link's password
      // is given; the rest of the code (network, encryption, colours) travels, and apply reads the variable.
      const variable = wifiPasswordVariable(record.name, codes[i]!.id, variables);
      data = { ...(data as Rec), pass: envReference(variable) } as typeof data;
      passReference.set(record, variable);
    }
    // A transparent background (`none`: the product's code made without colours) is not a colour
    // to create a code with, nor is its default black then (madeWithoutColours, ../qr/read.ts).
    const without = madeWithoutColours(read.content);
    Object.assign(record, { type, data }, foreground && !without ? { foreground } : {}, background && background !== 'none' ? { background } : {});
    const missing = QR_CONTENT.filter((f) => record[f] === undefined);
    if (missing.length) unreadableOn.set(record, missing);
    if (notes.length) readNotes.set(record, notes);
  });
  return unread;
}

/**
 * Codes whose wifi password an export writes as a reference to the environment (`${env:NAME}`,
 * NAME here) instead of in the clear: the code travels whole, and apply reads the password from
 * the environment (issue 53).
 */
export const passReference = new WeakMap<Rec, string>();

/** A code's data without its wifi password when the file gives that as a reference (`file`'s data): what plan can compare. */
function withoutSecret(data: unknown, file: unknown): unknown {
  if (!(file && typeof file === 'object' && passFromEnv.has(file)) || !data || typeof data !== 'object') return data;
  const { pass: _pass, ...rest } = data as Rec;
  return rest;
}

/** The variable a code's wifi password is exported as: WIFI_PASSWORD_ and its name in capitals (`Office wifi` → WIFI_PASSWORD_OFFICE_WIFI). */
export function wifiPasswordVariable(name: unknown, id: unknown, taken: Set<string>): string {
  const base = `WIFI_PASSWORD_${String(name ?? '').normalize('NFKD').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toUpperCase() || String(id)}`;
  const variable = taken.has(base) ? `${base}_${String(id)}` : base;
  taken.add(variable);
  return variable;
}

/** The secret a code's content holds (a wifi network's password), said as a reader sees it; undefined when none. */
export function secretIn(type: string, data: unknown): string | undefined {
  if (type === 'wifi' && data && typeof data === 'object' && typeof (data as Rec).pass === 'string' && (data as Rec).pass) return 'a wifi password';
  return undefined;
}

// ---------------------------------------------------------------- plan

export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

export interface Change {
  action: 'create' | 'update' | 'delete';
  kind: Kind;
  key: string;
  /** The server's id (update, delete). */
  id?: number;
  /** Readable fields that differ (update). */
  fields?: FieldChange[];
  /** Fields the file sets that cannot be read back: sent with a create or an update. */
  unreadable?: string[];
  /** A link update: what it clears that the file does not state, and what it changes whatever the file says (public status). */
  clears?: string[];
  /** Of what it clears: what linkctl knows the link has, because it set it (from the ledger: `pixels: Analytics`); see ./known.ts. */
  clearsKnown?: string[];
  /** Of what it clears: what no one can know (set in the web interface, or before the ledger). */
  clearsUnknowable?: string[];
  /** Of what it clears: what linkctl's last write left unset (its ledger), which another writer may have set since. */
  clearsUnset?: string[];
  /**
   * A link update for options the file states that cannot be read back (pixels, parameters...):
   * nothing readable differs, so these are what the update is for. Plan keeps it unless linkctl's
   * ledger shows it last set them so (./known.ts, sendsUnlessKnown); `sendsWhy` says why it could not tell.
   */
  sends?: string[];
  sendsWhy?: string;
  /** The file's record (create, update). */
  record?: Rec;
  /**
   * Fields the product will store otherwise than the file writes them (a name capitalised, a slug
   * lowercased, quotes as entities): said once, by the change that sends them. `as` null: the
   * product rewrites it in a way linkctl cannot predict (a slug romanised from another script).
   */
  storedAs?: Array<{ field: string; as: string | null }>;
  /** What the change breaks of the policy (src/policy/), `rule: message`: apply refuses the plan without --override. */
  violations?: string[];
}

export interface Plan {
  changes: Change[];
  /** Things the plan cannot do or check, for people. */
  notes: string[];
}

export function same(a: unknown, b: unknown): boolean {
  const norm = (v: unknown): unknown =>
    v === undefined || v === null
      ? ''
      : Array.isArray(v)
        ? v.map((x) => String(x).toLowerCase()).sort()
        : typeof v === 'object'
          ? Object.entries(v).map(([k, x]) => `${k.toLowerCase()}=${String(x)}`).sort() // targets: servers give countries back in lower case
          : v;
  return JSON.stringify(norm(a)) === JSON.stringify(norm(b));
}

/**
 * Whether the server's value stands for the file's (Terraform's DiffSuppressFunc beside its
 * StateFunc): the same text (what export wrote), or what the product makes of the file's text
 * (`autumn deals` read back as `Autumn deals`). undefined when the product rewrites the file's
 * value in a way linkctl cannot predict: then it cannot be compared.
 */
export function storedSame(kind: Kind, field: string, server: unknown, file: unknown, write: 'create' | 'update' = 'update'): boolean | undefined {
  if (same(server, file)) return true;
  const predicted = storedAs(specs()[kind].stored, field, file, write);
  return predicted === undefined ? undefined : same(server, predicted);
}

/** What the product will store otherwise than the file writes it, of these fields of a record (see Change.storedAs). */
function rewritten(kind: Kind, record: Rec, fields: readonly string[], write: 'create' | 'update'): Change['storedAs'] {
  const out: NonNullable<Change['storedAs']> = [];
  for (const field of fields) {
    const value = record[field];
    if (typeof value !== 'string' || !specs()[kind].stored?.[field]) continue;
    const as = storedAs(specs()[kind].stored, field, value, write) as string | undefined;
    if (as !== value) out.push({ field, as: as ?? null });
  }
  return out.length ? out : undefined;
}

/** Two colours as the server keeps them: `#112233` and `rgb(17,34,51)` are one colour. */
function sameColour(a: unknown, b: unknown): boolean {
  const normal = (v: unknown) => {
    try {
      return rgbColor('colour', String(v ?? ''));
    } catch {
      return String(v ?? '');
    }
  };
  return normal(a) === normal(b);
}

/** The server's records of each kind by natural key (a key may name several: two QR codes named "Menu"). */
export type StateIndex = Map<Kind, Map<string, Current[]>>;

/** The server's records a file record's key names: as written, else as the product would have stored it. */
export function candidatesOf(index: StateIndex, kind: Kind, record: Rec): Current[] | undefined {
  const byKey = index.get(kind)!;
  for (const key of keysOf(kind, record)) {
    const found = byKey.get(key);
    if (found?.length) return found;
  }
  return undefined;
}

/** Whether the server has a record of `kind` by this name (a link's reference), as written or as stored. */
export const hasName = (index: StateIndex, kind: Kind, name: string): boolean => nameKeysOf(kind, name).some((k) => index.get(kind)!.has(k));

export function indexState(state: State): StateIndex {
  const index: StateIndex = new Map();
  for (const kind of KINDS) {
    const byKey = new Map<string, Current[]>();
    for (const c of state[kind]) {
      const key = keyMatch(keyOf(kind, c.record));
      const have = byKey.get(key);
      if (have) have.push(c);
      else byKey.set(key, [c]);
    }
    index.set(kind, byKey);
  }
  return index;
}

/**
 * The server record a file record stands for: the one with its key, or, when several share the
 * key, the one with its `id`. Several and no id (or an id none of them has) is a mistake in the
 * file that plan refuses, naming the ids: guessing would change or delete the wrong one.
 */
function match(kind: Kind, record: Rec, candidates: Current[] | undefined, matched?: ReadonlySet<Current>): Current | undefined {
  if (!candidates?.length) return undefined;
  if (kind === 'qr' && record.type !== undefined) {
    // QR codes are matched by name and content first: an id in the file is the id on the account
    // it was exported from (another one in a migration), and codes of one name are told apart by what they hold.
    const open = candidates.filter((c) => !matched?.has(c));
    const same = open.filter((c) => c.record.type === record.type && sameData(c.record.data, record.data));
    if (same.length) return same.find((c) => c.id === record.id) ?? same[0];
    const byId = open.find((c) => c.id === record.id);
    if (byId) return byId;
    if (open.length === 1) return open[0];
    if (!open.length) return undefined;
  }
  if (candidates.length === 1 && (record.id === undefined || record.id === candidates[0]!.id)) return candidates[0];
  const byId = candidates.find((c) => c.id === record.id);
  if (byId) return byId;
  const ids = candidates.map((c) => c.id).join(', ');
  throw new UsageError(
    `${specs()[kind].noun} "${keyOf(kind, record)}" ${record.id !== undefined ? `(id ${String(record.id)} in the file) ` : ''}is ambiguous: the server has ${candidates.length} ${candidates.length === 1 ? 'record' : 'records'} of that name, with id ${ids}`,
    `give each such record its \`id:\` in the file (\`linkctl export\` writes them where names repeat), or rename the ${specs()[kind].noun}s in the web interface`,
  );
}

/**
 * The readable fields of a file record that differ from the server's record it stands for (what
 * the file leaves out is left as it is); what cannot be changed that way goes to `notes`.
 */
function fieldChanges(kind: Kind, record: Rec, found: Current, notes: string[], renamed?: Renamed): FieldChange[] {
  const key = keyOf(kind, record);
  const fileFields = specs()[kind].fields;
  const fields: FieldChange[] = [];
  const cannot = unreadableOn.get(found.record) ?? [];
  for (const field of specs()[kind].readable) {
    if (record[field] === undefined || cannot.includes(field)) continue; // not in the file: left as it is
    // `device: none`: the link has no device targets, compared as nothing.
    let to = kind === 'links' && isNone(field, record[field]) ? undefined : record[field];
    if (field === 'channels') {
      // Channel names as the product matches them: without case, and as it stores them (cleaned).
      const names = ((found.record.channels as string[] | undefined) ?? []).map((c) => renamed?.get('channels')?.get(keyMatch(c)) ?? c);
      const have = new Set(names.map(keyMatch));
      const missing = (to as string[]).filter((c) => !nameKeysOf('channels', c).some((k) => have.has(k)));
      const extra = names.filter((c) => !(to as string[]).some((t) => nameKeysOf('channels', t).includes(keyMatch(c))));
      if (extra.length) notes.push(`link "${key}" is also in channel(s) ${extra.join(', ')}, which the API cannot take it out of`);
      if (!missing.length) continue;
      to = [...new Set([...((found.record.channels as string[] | undefined) ?? []), ...missing])].sort();
    }
    if (kind === 'qr' && (field === 'data' ? sameData(withoutSecret(found.record.data, to), withoutSecret(to, to)) : field === 'foreground' || field === 'background' ? sameColour(found.record[field], to) : false)) continue;
    // A password from the environment is shown as its reference, and the one the code holds not at all (the record sends the real one).
    const variable = kind === 'qr' && field === 'data' && to && typeof to === 'object' ? passFromEnv.get(to) : undefined;
    if (variable !== undefined) {
      fields.push({ field, from: { ...(found.record.data as Rec), pass: '(not shown)' }, to: { ...(to as Rec), pass: envReference(variable) } });
      continue;
    }
    if (kind === 'pixels' && field === 'type' && !same(found.record.type, to)) {
      notes.push(`pixel "${key}" is of type ${String(found.record.type)} on the server; a pixel's type cannot change (delete it and apply again)`);
      continue;
    }
    const ref = fileFields[field]?.ref;
    if (ref && typeof to === 'string') {
      // A record named by a link (its campaign) is the same one in any letter case and as the product
      // stores its name, which is how apply finds its id: `SPRING SALE 2027` is `Spring Sale 2027`.
      const server = typeof found.record[field] === 'string' ? (renamed?.get(ref)?.get(keyMatch(found.record[field] as string)) ?? (found.record[field] as string)) : undefined;
      if (server === undefined || !nameKeysOf(ref, to).includes(keyMatch(server))) fields.push({ field, from: found.record[field], to });
      continue;
    }
    const unchanged = storedSame(kind, field, found.record[field], to);
    if (unchanged === undefined) {
      notes.push(`${specs()[kind].noun} "${key}": the product rewrites ${field} ${JSON.stringify(to)} in a way linkctl cannot predict, so it is not compared (the server holds ${found.record[field] === undefined || found.record[field] === null ? 'none' : JSON.stringify(found.record[field])})`);
      continue;
    }
    if (!unchanged) fields.push({ field, from: found.record[field], to });
  }
  return fields;
}

/** Records the plan renames (a campaign matched by its slug), by kind: the server's name, without case, to the file's. */
type Renamed = Map<Kind, Map<string, string>>;

/**
 * A campaign of the file that no campaign of the server has by name, but one has by slug: the same
 * campaign renamed (slugs are unique on the installation), so plan changes its name in place, and
 * its links stay in it. Only a campaign that no record of the file names otherwise.
 */
function renamedCampaign(record: Rec, candidates: readonly Current[], matched: ReadonlySet<Current>, namedInFile: ReadonlySet<string>): Current | undefined {
  if (typeof record.slug !== 'string' || record.slug === '') return undefined;
  const open = candidates.filter((c) => !matched.has(c) && typeof c.record.slug === 'string' && !namedInFile.has(keyMatch(String(c.record.name))));
  return open.find((c) => storedSame('campaigns', 'slug', c.record.slug, record.slug) === true);
}

/**
 * For a plan against a file's links: a link read from the server whose file record would change
 * nothing in it (and say nothing about it) is kept as that file record and its id, not as a record
 * and list item of its own. The plan is the same; a plan of 200,000 unchanged links holds each
 * link once instead of twice. Links whose file record sets what only the single read gives
 * (targeting, expiry) are kept whole: addDetails fills their records in.
 */
export function unchangedAsFileRecord(fileLinks: readonly Rec[]): (link: Current) => Current {
  const byKey = new Map<string, Rec | null>(); // null: the file has several records of that key (told apart by id)
  for (const r of fileLinks) {
    // Under its key as written and as the product stores it (an alias `Summer_Sale` is `Summer-Sale` there).
    for (const key of keysOf('links', r)) byKey.set(key, byKey.has(key) && byKey.get(key) !== r ? null : r);
  }
  const detailed = specs().links.detailed ?? [];
  return (link) => {
    const record = byKey.get(keyMatch(keyOf('links', link.record)));
    if (!record || (record.id !== undefined && record.id !== link.id) || detailed.some((f) => record[f] !== undefined)) return link;
    const notes: string[] = [];
    return fieldChanges('links', record, link, notes).length || notes.length ? link : { id: link.id, record };
  };
}

export function makePlan(file: AccountFile, state: State, prune: boolean, index = indexState(state)): Plan {
  const changes: Change[] = [];
  const deletes: Change[] = [];
  const notes: string[] = [];
  const renamed: Renamed = new Map();
  const matchedLinks = new Set<Current>();
  const matchedCampaigns = new Set<Current>();
  for (const kind of MANAGED) {
    const wanted = file[kind];
    if (wanted === undefined) continue;
    const spec = specs()[kind];
    const matched = kind === 'links' ? matchedLinks : kind === 'campaigns' ? matchedCampaigns : new Set<Current>();
    // What the file's campaigns are named: a campaign of the server named so is not one the file renamed.
    const namedInFile = new Set(kind === 'campaigns' ? wanted.flatMap((r) => keysOf(kind, r)) : []);
    for (const record of wanted) {
      const key = keyOf(kind, record);
      let found = match(kind, record, candidatesOf(index, kind, record), matched);
      let rename: FieldChange | undefined;
      if (!found && kind === 'campaigns') {
        found = renamedCampaign(record, state.campaigns, matched, namedInFile);
        if (found) {
          rename = { field: 'name', from: found.record.name, to: record.name };
          notes.push(`campaign "${key}" is campaign "${String(found.record.name)}" renamed (its slug, ${String(found.record.slug)}, is the same): apply renames it in place, and its links stay in it`);
          const names = renamed.get(kind) ?? new Map<string, string>();
          names.set(keyMatch(String(found.record.name)), String(record.name));
          renamed.set(kind, names);
        }
      }
      // A stated `none` sends nothing (the update clears it, as the file says): not "also sent".
      const unreadable = Object.keys(record).filter((f) => !spec.readable.includes(f) && !spec.key.includes(f) && f !== 'id' && !(kind === 'links' && isNone(f, record[f])));
      if (kind === 'qr' && (record.type === undefined || record.data === undefined)) {
        if (!found) notes.push(`QR code "${key}" is a reference only (no type and data) and does not exist on the server; apply leaves it out`);
        if (found) matched.add(found);
        continue;
      }
      if (!found) {
        changes.push({ action: 'create', kind, key, record, unreadable: unreadable.length ? unreadable : undefined, storedAs: rewritten(kind, record, Object.keys(record), 'create') });
        continue;
      }
      matched.add(found);
      if (kind === 'qr') {
        const reason = unreadReason.get(found.record);
        if (reason) notes.push(`QR code "${key}" could not be read from its image (${reason}): its type, data and colours are not compared`);
        if (found.record.type !== undefined && found.record.type !== record.type) {
          notes.push(`QR code "${key}" is a ${String(found.record.type)} code on the server (read from its image), not ${String(record.type)}; a code's type cannot change (delete it and apply again)`);
          continue;
        }
      }
      const fields = fieldChanges(kind, record, found, notes, renamed);
      if (rename) fields.unshift(rename);
      // A link whose readable fields match but whose file states options that cannot be read back:
      // an update that sends them, unless the ledger shows linkctl set them so (sendsUnlessKnown).
      const sends = kind === 'links' && !fields.length ? sentUnread(record, found) : [];
      if (!fields.length && !sends.length) continue;
      const cannot = unreadableOn.get(found.record) ?? [];
      // An update never stores the note, nor keeps a link public: neither is sent (linkUpdateClears names the status).
      const sent = [...unreadable, ...cannot.filter((f) => record[f] !== undefined)].filter((f) => kind !== 'links' || !notSentByUpdate(f, record));
      const change: Change = { action: 'update', kind, key, id: found.id, record, fields, unreadable: sent.length ? sent : undefined, storedAs: rewritten(kind, record, fields.map((f) => f.field), 'update') };
      if (sends.length) change.sends = sends;
      if (kind === 'links' && (sends.length || fields.some((f) => f.field !== 'channels'))) {
        change.clears = linkUpdateClears(record);
        if (record.description !== undefined) notes.push(`link "${key}": its note (description) is stored on create only; the update leaves the note it has`);
      }
      changes.push(change);
    }
    if (prune) {
      for (const c of state[kind]) if (!matched.has(c)) deletes.push({ action: 'delete', kind, key: keyOf(kind, c.record), id: c.id });
    }
  }
  if (file.links !== undefined) notes.push(...renamedAliases(changes, state.links.filter((l) => !matchedLinks.has(l)), prune));
  if (file.campaigns !== undefined) notes.push(...renamedWithoutSlug(changes, state.campaigns.filter((c) => !matchedCampaigns.has(c)), prune));
  // Deletes first, dependents (links, QR codes) before what they use.
  deletes.sort((a, b) => MANAGED.indexOf(b.kind) - MANAGED.indexOf(a.kind));
  return { changes: [...deletes, ...changes], notes };
}

/**
 * One campaign the file creates without a slug while one campaign of the account is no longer in
 * the file: most likely a rename. Without the slug plan cannot tell (names are the key), so it
 * would make a second campaign (and delete the first with --prune, whose links keep its id): the
 * slug in the file makes it a rename in place.
 */
function renamedWithoutSlug(changes: readonly Change[], unmatched: readonly Current[], prune: boolean): string[] {
  const creates = changes.filter((c) => c.kind === 'campaigns' && c.action === 'create' && c.record?.slug === undefined);
  if (creates.length !== 1 || unmatched.length !== 1) return [];
  const [created, old] = [creates[0]!, unmatched[0]!];
  if (typeof old.record.slug !== 'string') return [];
  return [`campaign "${created.key}" is new to the server while campaign "${String(old.record.name)}" is not in the file${prune ? ' (apply deletes it; its links keep its id)' : ''}: if the file renames it, give it \`slug: ${String(old.record.slug)}\`, and apply renames it in place, keeping its links`];
}

/**
 * Links the file creates where a link of the account that the file no longer has goes to the same
 * destination on the same domain: most likely an alias renamed in the file. A delete and a create
 * is not a rename: the old short URL (printed on flyers, say) stops working and its clicks go with
 * the deleted link, while `link update --alias` renames the link in place and keeps them.
 */
function renamedAliases(changes: readonly Change[], unmatched: readonly Current[], prune: boolean): string[] {
  const creates = changes.filter((c) => c.kind === 'links' && c.action === 'create' && typeof c.record?.url === 'string');
  if (!creates.length) return [];
  const place = (url: unknown, domain: unknown) => `${keyMatch(noSlash(String(domain ?? '')))}\u0000${destinationKey(String(url))}`;
  const old = new Map<string, Current>();
  for (const link of unmatched) if (typeof link.record.url === 'string') old.set(place(link.record.url, link.record.domain), link);
  return creates.flatMap((c) => {
    const was = old.get(place(c.record!.url, c.record!.domain));
    if (!was) return [];
    const short = text(was.item?.shorturl) ?? keyOf('links', was.record);
    const rename = `\`linkctl link update ${was.id} --alias ${String(c.record!.alias)}\` renames it in place and keeps its clicks`;
    return [prune
      ? `link "${keyOf('links', was.record)}" → "${c.key}": the file renames the alias of a link to the same destination, which apply does as a delete and a create: ${short} stops working (a short URL already printed or shared) and its clicks go with it; ${rename}, then plan again`
      : `link "${c.key}" goes where link "${keyOf('links', was.record)}" (${short}) goes: if the file renames its alias, apply creates a second link instead; ${rename}`];
  });
}

/**
 * The options a link's file record states that an update replaces and no answer gives back
 * (pixels, parameters, password, deep links, redirect type, language targeting, meta image;
 * device targeting where the server answers it null): what only an update can make true.
 */
function sentUnread(record: Rec, found: Current): string[] {
  sendable ??= linkFileFields().filter(({ field }) => (field.update ?? 'replaced') === 'replaced' && (!field.read || field.answeredNull));
  let out: string[] | undefined;
  for (const { name, field } of sendable) {
    if (record[name] === undefined || (field.read && !unreadableOn.get(found.record)?.includes(name))) continue;
    (out ??= []).push(name);
  }
  return out ?? NONE_SENT;
}
let sendable: ReturnType<typeof linkFileFields> | undefined;
const NONE_SENT: string[] = [];

/** File fields of a link that an update does not send: the note (never stored by an update) and `public: true` (an update makes the link private). */
function notSentByUpdate(field: string, record: Rec): boolean {
  return field === 'description' || (field === 'public' && record.public === true);
}

/** The plan as data for --json: a created record's secrets are named, never given. */
export function planData(plan: Plan): Rec {
  const changes = plan.changes.map(({ record, ...change }) => {
    if (change.action !== 'create' || !record) return change;
    const fields = specs()[change.kind].fields;
    return { ...change, record: Object.fromEntries(Object.entries(record).map(([k, v]) => [k, fields[k]?.secret ? '(secret)' : v])) };
  });
  return { changes, notes: plan.notes };
}

const show = (v: unknown) => (v === undefined || v === null ? '(none)' : JSON.stringify(v));
export const SYMBOL = { create: '+', update: '~', delete: '-' } as const;

/**
 * The plan as people read it, like `terraform plan`, its notes under each change wrapped at
 * `width` (the terminal's, 80 off one) by the one wrapping of prose (src/output/wrap.ts), each
 * continuation under the note's text.
 */
export function formatPlan(plan: Plan, width = 80): string {
  const lines: string[] = [];
  const note = (indent: string, text: string) => lines.push(...wrapProse(text, width, `${indent}  `, indent));
  for (const c of plan.changes) {
    const noun = specs()[c.kind].noun;
    const head = `${SYMBOL[c.action]} ${noun} ${c.key}`;
    if (c.action === 'update') {
      const sends = c.sends?.length ? [`sends ${c.sends.join(', ')} (cannot be compared${c.sendsWhy ? `: ${c.sendsWhy}` : ''})`] : [];
      lines.push(`${head}: ${[...c.fields!.map((f) => `${f.field} ${show(f.from)} → ${show(f.to)}`), ...sends].join(', ')}`);
    } else lines.push(head);
    if (c.storedAs?.length) note('    ', `stored as: ${c.storedAs.map((s) => `${s.field} ${s.as === null ? '(as the server romanises it, which linkctl cannot predict)' : show(s.as)}`).join(', ')}`);
    if (c.unreadable?.length && c.action !== 'delete') note('    ', `also sent, cannot be read back: ${c.unreadable.join(', ')}`);
    if (c.clears?.length) note('    ', `clears what the file does not state (cannot be read back): ${c.clears.join('; ')}`);
    if (c.clearsKnown?.length) note('      ', `of which linkctl set (its ledger): ${c.clearsKnown.join('; ')}`);
    // What the ledger says linkctl left unset: another writer (a teammate's linkctl, the web interface) may have set it since.
    if (c.clearsUnset?.length) note('      ', `of which linkctl set none (its ledger), which another writer may have set since: ${c.clearsUnset.join('; ')}`);
    if (c.clearsKnown && c.clearsUnknowable?.length) note('      ', `of which no one can know (set elsewhere or before the ledger): ${c.clearsUnknowable.join('; ')}`);
    for (const v of c.violations ?? []) note('    ', `! policy ${v}`);
  }
  const count = (a: Change['action']) => plan.changes.filter((c) => c.action === a).length;
  lines.push(plan.changes.length ? `Plan: ${count('create')} to add, ${count('update')} to change, ${count('delete')} to delete.` : 'No changes: the account matches the file.');
  return lines.join('\n');
}
