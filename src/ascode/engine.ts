/**
 * Plan and apply: read the account through the run's reader (each collection once, in large
 * pages), turn it into records shaped like the file, match by natural key, diff the readable
 * fields, and carry out the changes in dependency order, remapping names to the target's ids.
 * Paths, keys and bodies come from the resources' models (src/model/).
 */
import { toInt } from '../http/envelope.js';
import { ApiError, CliError, NetworkError, UsageError } from '../errors.js';
import { MODELS } from '../model/index.js';
import { create, remove, update } from '../model/model.js';
import { campaignAssignPath, campaignBody, campaignRecord } from '../model/campaigns.js';
import { ALREADY_IN_CHANNEL, channelAssignPath, channelBody, channelRecord } from '../model/channels.js';
import { domainBody, domainRecord } from '../model/domains.js';
import { pixelBody, pixelRecord } from '../model/pixels.js';
import { qrBody, qrRecord } from '../model/qr.js';
import { sameData } from '../qr/content.js';
import { madeWithoutColours } from '../qr/read.js';
import { rgbColor } from '../validate.js';
import { bodyFromOptions, readTargets, shortUrlOf } from '../model/links.js';
import { notAsAsked, updateLink, withNamedReferences, type Ui } from '../model/link-writes.js';
import type { AccountReader } from '../model/reader.js';
import type { Journal } from '../bulk/journal.js';
import { inOrder, type ConcurrencySetting } from '../http/concurrency.js';
import { keyMatch, noSlash, refIds, text } from '../model/values.js';
import { isNone, linkFlags, keyOf, linkUpdateClears, MANAGED, specs, KINDS, type AccountFile, type Field, type Kind, type Rec } from './model.js';

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
  reads.forEach((read, i) => {
    const record = codes[i]!.record;
    if (!read.content) {
      unread++;
      unreadableOn.set(record, QR_CONTENT);
      unreadReason.set(record, read.unreadable!);
      return;
    }
    const { type, data, foreground, background, notes } = read.content;
    const secret = options.leaveOutSecrets ? secretIn(type, data) : undefined;
    if (secret) {
      // Not written in the clear, and not written without it: the code stays a reference (apply neither creates nor changes it).
      unread++;
      unreadableOn.set(record, QR_CONTENT);
      unreadReason.set(record, `its content holds ${secret}, which an export leaves out (--include-secrets writes it)`);
      secretLeftOut.add(record);
      return;
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

/** Codes whose content was read but left out because it holds a secret (export says so apart from the unreadable ones). */
export const secretLeftOut = new WeakSet<Rec>();

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
  /** The file's record (create, update). */
  record?: Rec;
  /** What the change breaks of the policy (src/policy/), `rule: message`: apply refuses the plan without --override. */
  violations?: string[];
}

export interface Plan {
  changes: Change[];
  /** Things the plan cannot do or check, for people. */
  notes: string[];
}

function same(a: unknown, b: unknown, asStored: (v: unknown) => unknown = (v) => v): boolean {
  [a, b] = [asStored(a), asStored(b)];
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
function fieldChanges(kind: Kind, record: Rec, found: Current, notes: string[]): FieldChange[] {
  const key = keyOf(kind, record);
  const fields: FieldChange[] = [];
  const cannot = unreadableOn.get(found.record) ?? [];
  for (const field of specs()[kind].readable) {
    if (record[field] === undefined || cannot.includes(field)) continue; // not in the file: left as it is
    // `device: none`: the link has no device targets, compared as nothing.
    let to = kind === 'links' && isNone(field, record[field]) ? undefined : record[field];
    if (field === 'channels') {
      const have = new Set(((found.record.channels as string[] | undefined) ?? []).map(keyMatch));
      const missing = (to as string[]).filter((c) => !have.has(keyMatch(c)));
      const extra = ((found.record.channels as string[] | undefined) ?? []).filter((c) => !(to as string[]).some((t) => keyMatch(t) === keyMatch(c)));
      if (extra.length) notes.push(`link "${key}" is also in channel(s) ${extra.join(', ')}, which the API cannot take it out of`);
      if (!missing.length) continue;
      to = [...new Set([...((found.record.channels as string[] | undefined) ?? []), ...missing])].sort();
    }
    if (kind === 'qr' && (field === 'data' ? sameData(found.record.data, to) : field === 'foreground' || field === 'background' ? sameColour(found.record[field], to) : false)) continue;
    if (kind === 'pixels' && field === 'type' && !same(found.record.type, to)) {
      notes.push(`pixel "${key}" is of type ${String(found.record.type)} on the server; a pixel's type cannot change (delete it and apply again)`);
      continue;
    }
    if (!same(found.record[field], to, specs()[kind].normalised?.[field])) fields.push({ field, from: found.record[field], to });
  }
  return fields;
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
    const key = keyMatch(keyOf('links', r));
    byKey.set(key, byKey.has(key) ? null : r);
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
  for (const kind of MANAGED) {
    const wanted = file[kind];
    if (wanted === undefined) continue;
    const spec = specs()[kind];
    const current = index.get(kind)!;
    const matched = new Set<Current>();
    for (const record of wanted) {
      const key = keyOf(kind, record);
      const found = match(kind, record, current.get(keyMatch(key)), matched);
      // A stated `none` sends nothing (the update clears it, as the file says): not "also sent".
      const unreadable = Object.keys(record).filter((f) => !spec.readable.includes(f) && !spec.key.includes(f) && f !== 'id' && !(kind === 'links' && isNone(f, record[f])));
      if (kind === 'qr' && (record.type === undefined || record.data === undefined)) {
        if (!found) notes.push(`QR code "${key}" is a reference only (no type and data) and does not exist on the server; apply leaves it out`);
        if (found) matched.add(found);
        continue;
      }
      if (!found) {
        changes.push({ action: 'create', kind, key, record, unreadable: unreadable.length ? unreadable : undefined });
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
      const fields = fieldChanges(kind, record, found, notes);
      if (!fields.length) continue;
      const cannot = unreadableOn.get(found.record) ?? [];
      // An update never stores the note, nor keeps a link public: neither is sent (linkUpdateClears names the status).
      const sent = [...unreadable, ...cannot.filter((f) => record[f] !== undefined)].filter((f) => kind !== 'links' || !notSentByUpdate(f, record));
      const change: Change = { action: 'update', kind, key, id: found.id, record, fields, unreadable: sent.length ? sent : undefined };
      if (kind === 'links' && fields.some((f) => f.field !== 'channels')) {
        change.clears = linkUpdateClears(record);
        if (record.description !== undefined) notes.push(`link "${key}": its note (description) is stored on create only; the update leaves the note it has`);
      }
      changes.push(change);
    }
    if (prune) {
      for (const c of state[kind]) if (!matched.has(c)) deletes.push({ action: 'delete', kind, key: keyOf(kind, c.record), id: c.id });
    }
  }
  // Deletes first, dependents (links, QR codes) before what they use.
  deletes.sort((a, b) => MANAGED.indexOf(b.kind) - MANAGED.indexOf(a.kind));
  return { changes: [...deletes, ...changes], notes };
}

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
const SYMBOL = { create: '+', update: '~', delete: '-' } as const;

/** The plan as people read it, like `terraform plan`. */
export function formatPlan(plan: Plan): string {
  const lines: string[] = [];
  for (const c of plan.changes) {
    const noun = specs()[c.kind].noun;
    const head = `${SYMBOL[c.action]} ${noun} ${c.key}`;
    if (c.action === 'update') {
      lines.push(`${head}: ${c.fields!.map((f) => `${f.field} ${show(f.from)} → ${show(f.to)}`).join(', ')}`);
    } else lines.push(head);
    if (c.unreadable?.length && c.action !== 'delete') lines.push(`    also sent, cannot be read back: ${c.unreadable.join(', ')}`);
    if (c.clears?.length) lines.push(`    clears what the file does not state (cannot be read back): ${c.clears.join('; ')}`);
    if (c.clearsKnown?.length) lines.push(`      of which linkctl set (its ledger): ${c.clearsKnown.join('; ')}`);
    if (c.clearsKnown && c.clearsUnknowable?.length) lines.push(`      of which no one can know (set elsewhere or before the ledger): ${c.clearsUnknowable.join('; ')}`);
    if (c.clearsKnown && !c.clearsKnown.length && !c.clearsUnknowable?.length) lines.push('      of which linkctl set none (its ledger): it knows of nothing to lose');
    for (const v of c.violations ?? []) lines.push(`    ! policy ${v}`);
  }
  const count = (a: Change['action']) => plan.changes.filter((c) => c.action === a).length;
  lines.push(plan.changes.length ? `Plan: ${count('create')} to add, ${count('update')} to change, ${count('delete')} to delete.` : 'No changes: the account matches the file.');
  return lines.join('\n');
}

// ---------------------------------------------------------------- apply

/**
 * Where apply records each step before it is sent and its outcome after (the bulk journal,
 * src/bulk/journal.ts): a kill leaves the proof of what was done and what was in flight.
 */
export type StepLog = Pick<Journal, 'record' | 'sending'>;

/** One step of an apply as it ended, for --json: what, to which record, and the id it has. */
export interface Step {
  action: 'create' | 'update' | 'delete' | 'assign';
  kind: Kind;
  key: string;
  id: number | null;
  status: 'created' | 'updated' | 'deleted' | 'exists' | 'failed';
}

export interface Applied {
  created: number;
  updated: number;
  deleted: number;
  steps?: Step[];
}

export interface ApplyOptions {
  /** --verify: read each link written back and report the options the server dropped (one request a link). */
  verify?: boolean;
  /** Gets what the server did not do as asked, one line per link (another domain or alias, dropped options): the run fails with these. */
  problems?: string[];
  /** --concurrency: changes of one phase in flight at once (default auto, src/http/concurrency.ts). */
  concurrency?: ConcurrencySetting;
}

/**
 * Carries out a plan. `ids` maps every kind's keys to the target's ids, and grows as records are
 * created. A link is created with its campaign and first channel in the same request (real
 * servers honour both); further channels are assigned after every link exists. Each link written
 * is checked as `link add`/`link update` check theirs (see `notAsAsked`), the read-back only with
 * `verify`.
 */
/** Told before each step: what it is (`+ link spring`), the steps finished and all there are so far (assignments add to them as links are done). */
export type ApplyProgress = (what: string, finished: number, total: number) => void;

export async function applyPlan(reader: AccountReader, ui: Pick<Ui, 'warn'>, plan: Plan, state: State, progress: ApplyProgress, done: Applied = { created: 0, updated: 0, deleted: 0 }, log?: StepLog, options: ApplyOptions = {}): Promise<Applied> {
  const client = reader.client;
  const ids = new Map<string, number>();
  const idKey = (kind: Kind, key: string) => `${kind}\u0000${keyMatch(key)}`;
  for (const kind of KINDS) for (const c of state[kind]) ids.set(idKey(kind, keyOf(kind, c.record)), c.id);
  const idOf = (kind: Kind, name: string): number => {
    const id = ids.get(idKey(kind, name));
    if (id === undefined) throw new UsageError(`${specs()[kind].noun} "${name}" does not exist on the server`, kind === 'overlays' || kind === 'splash' ? 'overlays and splash pages are made in the web interface; make it there first' : undefined);
    return id;
  };
  const steps: Step[] = (done.steps ??= []);
  let total = plan.changes.length;
  /** Steps finished in this run (progress counts them; several may be in flight at once). */
  let finished = 0;
  /** One step: "sending" in the log before anything is sent, its outcome after (a failure too). */
  type Outcome = number | undefined | { id: number; status: Exclude<Step['status'], 'failed'> };
  const step = async (action: Step['action'], kind: Kind, key: string, status: Exclude<Step['status'], 'failed'>, send: () => Promise<Outcome>) => {
    const row = steps.length + 1;
    const entry: Step = { action, kind, key, id: null, status: 'failed' };
    steps.push(entry);
    await log?.sending(row); // on disk before the step's request (steps in flight together share the flush)
    try {
      const outcome = await send();
      const id = typeof outcome === 'object' ? outcome.id : outcome;
      entry.id = id ?? null;
      entry.status = typeof outcome === 'object' ? outcome.status : status;
      log?.record({ row, state: entry.status, id });
    } catch (error) {
      log?.record({ row, state: 'failed', error: (error as Error).message });
      throw error;
    } finally {
      finished++;
    }
  };
  // The plan's whole set of changes was confirmed once: a link update's clearing is part of it.
  const deps = { reader, ui: { warn: (m: string) => ui.warn(m), confirm: async () => undefined }, verify: Boolean(options.verify) };
  // What the server did not do as asked, by change: listed in the plan's order, whatever order the changes finish in.
  const found = new Map<string, string[]>();
  const problems = (key: string, more: string[]) => {
    if (more.length) found.set(key, [...(found.get(key) ?? []), ...more.map((p) => `link ${key}: ${p}`)]);
  };
  const assigns: Array<() => Promise<void>> = [];
  const linksById = new Map(state.links.map((c) => [c.id, c]));
  /** One change of the plan, carried out (its channel assignments are queued for after every link exists). */
  const carry = async (change: Change): Promise<void> => {
    progress(`${SYMBOL[change.action]} ${specs()[change.kind].noun} ${change.key}`, finished, total);
    const model = MODELS[change.kind];
    if (change.action === 'delete') {
      await step('delete', change.kind, change.key, 'deleted', async () => {
        await remove(client, model, change.id!);
        reader.forget(change.kind, change.id!);
        return change.id;
      });
      done.deleted++;
      return;
    }
    const record = change.record!;
    if (change.kind === 'links') {
      const body = linkBody(record, idOf);
      const channelIds = ((record.channels as string[] | undefined) ?? []).map((c) => idOf('channels', c));
      const current = change.id === undefined ? undefined : linksById.get(change.id);
      const have = new Set(((current?.record.channels as string[] | undefined) ?? []).map((c) => idOf('channels', c)));
      const missing = channelIds.filter((c) => !have.has(c));
      let id = change.id;
      const changed = new Set(change.fields?.map((f) => f.field));
      if (change.action === 'create') {
        // The first channel travels with the create; the others are assigned afterwards.
        const json = { url: record.url, ...body, ...(missing.length ? { channel: missing.shift() } : {}) };
        let answer: Rec | undefined;
        await step('create', 'links', change.key, 'created', async () => {
          id = await createOnce(async () => (answer = await withNamedReferences(reader, json, () => create(client, model, json))), async () => (await reader.fresh('links', { key: String(record.alias) })).find((r) => sameDomain(r, record)));
          return id;
        });
        // A create found by lookup after a lost answer has no answer to check.
        if (answer) problems(change.key, await notAsAsked(deps, id, json, answer, 'created'));
      } else if ([...changed].some((f) => f !== 'channels')) {
        // The safe update of `link update`: what can be read back is sent again; the file's fields over it. An update adds one channel too.
        // The note and `public` are left out: an update never stores either (the plan said so, and apply was allowed to clear).
        const { description: _note, ...rest } = body;
        if (rest.status === 'public') delete rest.status;
        const given: Rec = { url: record.url, ...rest, ...(missing.length ? { channel: missing.shift() } : {}) };
        await step('update', 'links', change.key, 'updated', async () => {
          problems(change.key, (await updateLink(deps, id!, given, new Set(), true, current?.item)).problems);
          return id;
        });
      }
      ids.set(idKey('links', change.key), id!);
      total += missing.length;
      for (const channel of missing) assigns.push(() => {
        progress(`~ link ${change.key}: into channel ${channel}`, finished, total);
        return step('assign', 'links', change.key, 'updated', async () => {
          const already = await assign(reader, channel, id!);
          return { id: id!, status: already ? 'exists' : 'updated' };
        });
      });
    } else {
      const body = resourceBody(change.kind, record);
      if (change.action === 'create') {
        await step('create', change.kind, change.key, 'created', async () => {
          const id = await createOnce(() => create(client, model, body), async () => (await reader.fresh(change.kind, { key: change.key }))[0]);
          ids.set(idKey(change.kind, change.key), id);
          return id;
        });
      } else {
        await step('update', change.kind, change.key, 'updated', async () => {
          await update(client, model, change.id!, body);
          return change.id;
        });
      }
    }
    if (change.action === 'create') done.created++;
    else done.updated++;
  };
  // Changes run in phases, one kind (and action) after another in the plan's order (deletes first,
  // dependents before what they use; then domains, pixels, campaigns and channels before the links
  // that name them), with up to --concurrency changes of one phase in flight; each phase starts
  // once the one before it is done. Channel assignments come last, once every link exists.
  const phases: Change[][] = [];
  for (const change of plan.changes) {
    const last = phases.at(-1);
    if (last && last[0]!.kind === change.kind && (last[0]!.action === 'delete') === (change.action === 'delete')) last.push(change);
    else phases.push([change]);
  }
  const setting = options.concurrency ?? 'auto';
  const limit = () => client.inFlight.limit(setting);
  try {
    // Changes of one key (two QR codes named "Table") run in the plan's order, so ids keep the file's order.
    for (const phase of phases) await inOrder(phase, limit, carry, (change) => keyMatch(change.key));
    await inOrder(assigns, limit, (assign) => assign());
  } finally {
    for (const change of plan.changes) options.problems?.push(...(found.get(change.key) ?? []));
  }
  return done;
}

/** A link's branded domain, as the file names it, is the one a found link is on (the site itself when none). */
function sameDomain(found: Rec, record: Rec): boolean {
  if (record.domain === undefined) return true;
  return keyMatch(noSlash(String(found.domain ?? shortUrlOf(found) ?? ''))).startsWith(keyMatch(noSlash(String(record.domain))));
}

/** `channel assign`: an item already in the channel is what was wanted (true). */
async function assign(reader: AccountReader, channelId: number, linkId: number): Promise<boolean> {
  try {
    await reader.client.request('POST', channelAssignPath(channelId, 'links', linkId), { about: `channel ${channelId}, link ${linkId}` });
    return false;
  } catch (error) {
    if (!(error instanceof ApiError && ALREADY_IN_CHANNEL.test(error.message))) throw error;
    return true;
  }
}

/**
 * A create sent once: when its outcome is unknown (the connection dropped after sending), the
 * record is looked up by its key before anything else is done, so it is never created twice.
 */
async function createOnce(send: () => Promise<Rec>, lookup: () => Promise<Rec | undefined>): Promise<number> {
  try {
    const body = await send();
    const id = toInt(body.id);
    if (id === undefined) throw new NetworkError('the answer to a create lacks the new record\'s id');
    return id;
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error;
    const found = await lookup().catch((lookupError: unknown) => {
      if (!(lookupError instanceof CliError)) throw lookupError;
      return undefined;
    });
    const id = toInt(found?.id);
    if (id === undefined) throw error;
    return id;
  }
}

/**
 * A link record as the options of `link add` (by each flag's attribute name), turned into the
 * API body by the same code as the flags. Channels are sent by applyPlan (the first with the create).
 */
export function linkBody(record: Rec, idOf: (kind: Kind, name: string) => number): Rec {
  const opts: Rec = {};
  for (const { flag, attribute, name, field } of linkFieldFlags()) {
    let value = record[name];
    if (value === undefined || isNone(name, value)) continue; // `none`: not sent, so the link has none
    if (field.properties) value = (value as Rec)[flag.replace(/^.*-/, '')];
    else if (field.ref) value = Array.isArray(value) ? value.map((v) => idOf(field.ref!, String(v))) : field.ref === 'domains' ? value : idOf(field.ref, String(value));
    else if (field.type === 'map') value = Object.entries(value as Rec).map(([key, v]) => ({ key, value: v }));
    if (value === undefined) continue;
    if (flag === 'public') {
      opts[value ? 'public' : 'private'] = true;
      continue;
    }
    opts[attribute] = value;
  }
  const body = bodyFromOptions(opts);
  if (typeof record.password === 'string' && !isNone('password', record.password)) body.password = record.password;
  return body;
}

let fieldFlags: Array<{ flag: string; attribute: string; name: string; field: Field }> | undefined;

/** Each `link add` flag with the file field it comes from (channels aside: applyPlan sends them), worked out once. */
function linkFieldFlags() {
  fieldFlags ??= linkFlags().flatMap((option) => {
    const flag = option.long!.slice(2);
    const entry = Object.entries(specs().links.fields).find(([, f]) => f.flags?.includes(option.long!) || Object.values(f.properties ?? {}).some((p) => p.flags?.includes(option.long!)));
    return !entry || flag === 'channel' ? [] : [{ flag, attribute: option.attributeName(), name: entry[0], field: entry[1] }];
  });
  return fieldFlags;
}

function resourceBody(kind: Kind, r: Rec): Rec {
  switch (kind) {
    case 'domains':
      return domainBody(r);
    case 'pixels':
      return pixelBody(r);
    case 'campaigns':
      return campaignBody(r);
    case 'channels':
      return channelBody(r);
    case 'qr':
      return qrBody(r);
    default:
      throw new Error(`internal: ${kind} is read only`);
  }
}
