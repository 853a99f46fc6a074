/**
 * Carrying out a plan (`linkctl apply`): each change sent in dependency order (domains, pixels,
 * campaigns and channels before the links and QR codes that name them), journaled when a journal
 * is given, with what the server did checked against what was asked. The plan itself is made by
 * ./engine.ts, which reads the account and compares it with the file.
 */
import { toInt } from '../http/envelope.js';
import { ApiError, CliError, NetworkError, UsageError } from '../errors.js';
import { MODELS } from '../model/index.js';
import { create, remove, update } from '../model/model.js';
import { campaignBody, campaignRecord, withoutOwnSlug } from '../model/campaigns.js';
import { ALREADY_IN_CHANNEL, channelAssignPath, channelBody, channelRecord } from '../model/channels.js';
import { domainBody } from '../model/domains.js';
import { pixelBody } from '../model/pixels.js';
import { qrBody } from '../model/qr.js';
import { bodyFromOptions, shortUrlOf } from '../model/links.js';
import { notAsAsked, updateLink, withNamedReferences, type Ui } from '../model/link-writes.js';
import type { AccountReader } from '../model/reader.js';
import type { Journal } from '../journal/journal.js';
import { inOrder, type ConcurrencySetting } from '../http/concurrency.js';
import { keyMatch, noSlash, storedAs } from '../model/values.js';
import { isNone, linkFlags, keyOf, nameKeysOf, specs, KINDS, type Field, type Kind, type Rec } from './model.js';
import { same, SYMBOL, type Change, type Plan, type State } from './engine.js';

/**
 * Where apply records each step before it is sent and its outcome after (the bulk journal,
 * src/journal/journal.ts): a kill leaves the proof of what was done and what was in flight.
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
  /** The policy's check of a link update as it will be sent (its link read: targets the file does not state included); throws to refuse it. */
  check?: (key: string, body: Rec) => Promise<void>;
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
  // A record the plan changes is the file's record from now on: by its name in the file too (a campaign renamed in place).
  for (const change of plan.changes) if (change.action === 'update' && change.id !== undefined) ids.set(idKey(change.kind, change.key), change.id);
  const idOf = (kind: Kind, name: string): number => {
    // As the file writes the name, else as the product stores it (`autumn deals` is `Autumn deals` there).
    const id = nameKeysOf(kind, name).map((key) => ids.get(idKey(kind, key))).find((found) => found !== undefined);
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
      // Which record failed, in the message itself: the server's ("That alias is taken.") names none.
      const which = `${specs()[kind].noun} "${key}"`;
      if (error instanceof CliError && !error.message.startsWith(which)) error.message = `${which}: ${error.message}`;
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
    if (more.length) found.set(`links\u0000${key}`, [...(found.get(`links\u0000${key}`) ?? []), ...more.map((p) => `link ${key}: ${p}`)]);
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
      } else if (change.sends?.length || [...changed].some((f) => f !== 'channels')) {
        // The safe update of `link update`: what can be read back is sent again; the file's fields over it. An update adds one channel too.
        // The note and `public` are left out: an update never stores either (the plan said so, and apply was allowed to clear).
        // So is the alias: the link was matched by it, and servers check an alias an update sends as a new one (an
        // update without `custom` keeps the alias), as they refuse a campaign's own slug.
        const { description: _note, custom: _alias, ...rest } = body;
        if (rest.status === 'public') delete rest.status;
        const given: Rec = { url: record.url, ...rest, ...(missing.length ? { channel: missing.shift() } : {}) };
        await step('update', 'links', change.key, 'updated', async () => {
          const check = options.check && ((sent: Rec) => options.check!(change.key, sent));
          problems(change.key, (await updateLink({ ...deps, check }, id!, given, new Set(), true, current?.item)).problems);
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
      let answer: Rec | undefined;
      if (change.action === 'create') {
        await step('create', change.kind, change.key, 'created', async () => {
          const id = await createOnce(async () => (answer = await create(client, model, body)), async () => (await reader.fresh(change.kind, { key: change.key }))[0]);
          ids.set(idKey(change.kind, change.key), id);
          return id;
        });
      } else {
        const current = state[change.kind].find((c) => c.id === change.id);
        await step('update', change.kind, change.key, 'updated', async () => {
          answer = await update(client, model, change.id!, updateBody(change, body, current?.record ?? {}));
          return change.id;
        });
      }
      // What the answer says was stored, against what was predicted (a create lost and found by lookup has none).
      const stored = answer ? asStored(change, answer) : undefined;
      for (const note of stored?.notes ?? []) ui.warn(`note: ${note}.`);
      if (stored?.problems.length) found.set(`${change.kind}\u0000${change.key}`, [...(found.get(`${change.kind}\u0000${change.key}`) ?? []), ...stored.problems]);
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
    for (const change of plan.changes) options.problems?.push(...(found.get(`${change.kind}\u0000${change.key}`) ?? []));
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

/**
 * The body of an update of a record other than a link: what the product would refuse as a repeat
 * or rewrite unasked is left out. A campaign's own slug is refused ("This slug is currently not
 * available"); a channel is matched by its name, which an update would capitalise (fact 29).
 */
function updateBody(change: Change, body: Rec, current: Rec): Rec {
  if (change.kind === 'campaigns') return withoutOwnSlug(body, current.slug);
  if (change.kind === 'channels') {
    const { name: _name, ...rest } = body;
    return rest;
  }
  return body;
}

/** A create's or update's answer as a record of the file, for the kinds whose answers carry the record (real servers' campaigns and channels). */
const ANSWERED: Partial<Record<Kind, (answer: Rec) => Rec>> = { campaigns: campaignRecord, channels: channelRecord };

/**
 * What the server says it stored, against what the file asked and linkctl predicted: a value the
 * product rewrites in a way linkctl cannot predict is said (`note`), and one it stored otherwise
 * than sent and predicted is a problem (the run fails: done, but not as asked). Fields the answer
 * does not carry are not judged.
 */
function asStored(change: Change, answer: Rec): { notes: string[]; problems: string[] } {
  const out = { notes: [] as string[], problems: [] as string[] };
  const read = ANSWERED[change.kind];
  if (!read || answer.id === undefined) return out; // a message only (documented update answers)
  const got = read(answer);
  const noun = specs()[change.kind].noun;
  const record = change.record!;
  // The answer carries the whole record: a field it lacks was stored empty (a campaign without slug).
  const shown = (v: unknown) => (v === undefined || v === null || v === '' ? 'none' : JSON.stringify(v));
  for (const [field, value] of Object.entries(record)) {
    if (value === undefined) continue;
    const sent = change.action === 'update' && change.kind === 'channels' && field === 'name' ? undefined : value; // not sent: see updateBody
    if (sent === undefined || (change.action === 'update' && field === 'slug' && !change.fields?.some((f) => f.field === 'slug'))) continue;
    const predicted = storedAs(specs()[change.kind].stored, field, sent, change.action === 'create' ? 'create' : 'update');
    if (predicted === undefined) out.notes.push(`${noun} "${change.key}": the server stored ${field} ${JSON.stringify(sent)} as ${shown(got[field])}`);
    else if (!same(got[field], predicted) && !same(got[field], sent)) {
      out.problems.push(`${noun} ${change.key}: the server stored ${field} as ${shown(got[field])}, not ${JSON.stringify(predicted)} as sent${predicted === sent ? '' : ' and predicted'}`);
    }
  }
  return out;
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
