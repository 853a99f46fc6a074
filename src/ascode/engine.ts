/**
 * Plan and apply: read the account (every list, every page, paced by the API layer), turn it
 * into records shaped like the file, match by natural key, diff the readable fields, and carry
 * out the changes in dependency order, remapping names to the target's ids.
 */
import type { ApiClient } from '../api/client.js';
import { allPages } from '../api/pages.js';
import { toInt } from '../api/envelope.js';
import { NetworkError, UsageError } from '../errors.js';
import { ALL_PAGE_SIZE, firstOf } from '../commands/shared/resource.js';
import { bodyFromOptions } from '../commands/link/actions.js';
import { planLinkUpdate, readLink, readTargets, withNamedReferences } from '../commands/link/update.js';
import { linkFlags, keyMatch, keyOf, MANAGED, specs, KINDS, type AccountFile, type Kind, type Rec } from './model.js';

/** Each kind's list: path and collection keys, as the resources' own files give them. */
const LISTS: Record<Kind, { path: string; keys: string[]; item: string }> = {
  domains: { path: 'api/domains', keys: ['domains'], item: 'api/domain' },
  pixels: { path: 'api/pixels', keys: ['pixels'], item: 'api/pixel' },
  campaigns: { path: 'api/campaigns', keys: ['campaigns'], item: 'api/campaign' },
  channels: { path: 'api/channels', keys: ['channels'], item: 'api/channel' },
  links: { path: 'api/urls', keys: ['urls'], item: 'api/url' },
  qr: { path: 'api/qr', keys: ['qrs'], item: 'api/qr' },
  overlays: { path: 'api/overlay', keys: ['cta', 'overlay'], item: 'api/overlay' },
  splash: { path: 'api/splash', keys: ['splash'], item: 'api/splash' },
};

export interface Current {
  record: Rec;
  id: number;
}
export type State = Record<Kind, Current[]>;

const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
const flag = (v: unknown) => v === true || v === 1 || v === '1' || v === 'true';
const noSlash = (v: string) => v.replace(/\/+$/, '');

/** Reads every record of the account, as file records with their ids. `progress` is told the count. */
export async function readState(client: ApiClient, kinds: readonly Kind[] = KINDS, progress?: (what: string) => void, onPage?: (kind: Kind, records: Rec[]) => void): Promise<State> {
  const raw = {} as Record<Kind, Rec[]>;
  for (const kind of KINDS) {
    raw[kind] = [];
    if (!kinds.includes(kind) && !(kind === 'domains' || kind === 'campaigns' || kind === 'channels' || kind === 'pixels')) continue;
    for await (const page of allPages(client, { path: LISTS[kind].path, keys: LISTS[kind].keys, limit: ALL_PAGE_SIZE })) {
      raw[kind].push(...page.records);
      onPage?.(kind, page.records);
      progress?.(`${raw[kind].length} ${kind}`);
    }
  }
  return toRecords(raw);
}

function toRecords(raw: Record<Kind, Rec[]>): State {
  const state = {} as State;
  const byId = (kind: Kind) => new Map(state[kind].map((c) => [c.id, c.record]));
  const entry = (r: Rec, record: Rec): Current[] => {
    const id = toInt(r.id);
    return id === undefined ? [] : [{ id, record: Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) }];
  };
  state.domains = raw.domains.flatMap((r) => entry(r, { domain: noSlash(String(r.domain)), redirectRoot: text(r.redirectroot), redirect404: text(r.redirect404) }));
  state.pixels = raw.pixels.flatMap((r) => entry(r, { name: r.name, type: r.type, tag: r.tag }));
  state.campaigns = raw.campaigns.flatMap((r) => {
    const rotator = text(r.rotator);
    return entry(r, { name: firstOf(r, 'name', 'domain', 'campaign'), slug: rotator ? rotator.split('/').pop() : undefined, public: flag(r.public) });
  });
  state.channels = raw.channels.flatMap((r) => entry(r, { name: r.name, description: text(r.description), color: text(r.color), starred: flag(r.starred) }));
  const domains = new Map(state.domains.map((d) => [keyMatch(String(d.record.domain)), String(d.record.domain)]));
  const campaigns = byId('campaigns');
  const channels = byId('channels');
  state.links = raw.links.flatMap((r) => {
    const domain = text(r.domain) ? domains.get(keyMatch(noSlash(String(r.domain)))) : undefined;
    const campaign = toInt(r.campaign);
    const inChannels = (Array.isArray(r.channel) ? r.channel : r.channel == null || r.channel === '' ? [] : [r.channel]).map((id) => channels.get(toInt(id) ?? -1)?.name).filter((n): n is string => typeof n === 'string').sort();
    return entry(r, {
      alias: r.alias,
      domain,
      url: r.longurl,
      title: text(r.title),
      description: text(r.description),
      campaign: campaign ? campaigns.get(campaign)?.name : undefined,
      channels: inChannels.length ? inChannels : undefined,
    });
  });
  for (const kind of ['qr', 'overlays', 'splash'] as const) state[kind] = raw[kind].flatMap((r) => entry(r, { name: r.name }));
  return state;
}

/** Fields of a record that its server cannot give back after all (7.x servers answer `device: null`). */
export const unreadableOn = new WeakMap<Rec, string[]>();

/**
 * A link's targeting and expiry, which only `GET api/url/:id` gives: one request per link, so
 * only for the links that need them (`export --details`, or a file that sets these fields).
 */
export async function addDetails(client: ApiClient, links: Current[], progress?: (what: string) => void): Promise<void> {
  let done = 0;
  for (const link of links) {
    const read = (await client.request('GET', `api/url/${link.id}`, { expect: ['details'] })).details as Rec;
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
  }
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
  /** The file's record (create, update). */
  record?: Rec;
}

export interface Plan {
  changes: Change[];
  /** Things the plan cannot do or check, for people. */
  notes: string[];
}

function same(a: unknown, b: unknown): boolean {
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

export function makePlan(file: AccountFile, state: State, prune: boolean): Plan {
  const changes: Change[] = [];
  const deletes: Change[] = [];
  const notes: string[] = [];
  for (const kind of MANAGED) {
    const wanted = file[kind];
    if (wanted === undefined) continue;
    const spec = specs()[kind];
    const current = new Map(state[kind].map((c) => [keyMatch(keyOf(kind, c.record)), c]));
    const matched = new Set<string>();
    for (const record of wanted) {
      const key = keyOf(kind, record);
      const found = current.get(keyMatch(key));
      const unreadable = Object.keys(record).filter((f) => !spec.readable.includes(f) && !spec.key.includes(f));
      if (kind === 'qr' && (record.type === undefined || record.data === undefined)) {
        if (!found) notes.push(`QR code "${key}" is a reference only (no type and data) and does not exist on the server; apply leaves it out`);
        if (found) matched.add(keyMatch(key));
        continue;
      }
      if (!found) {
        changes.push({ action: 'create', kind, key, record, unreadable: unreadable.length ? unreadable : undefined });
        continue;
      }
      matched.add(keyMatch(key));
      const fields: FieldChange[] = [];
      const cannot = unreadableOn.get(found.record) ?? [];
      for (const field of spec.readable) {
        if (record[field] === undefined || cannot.includes(field)) continue; // not in the file: left as it is
        let to = record[field];
        if (field === 'channels') {
          const have = new Set(((found.record.channels as string[] | undefined) ?? []).map(keyMatch));
          const missing = (to as string[]).filter((c) => !have.has(keyMatch(c)));
          const extra = ((found.record.channels as string[] | undefined) ?? []).filter((c) => !(to as string[]).some((t) => keyMatch(t) === keyMatch(c)));
          if (extra.length) notes.push(`link "${key}" is also in channel(s) ${extra.join(', ')}, which the API cannot take it out of`);
          if (!missing.length) continue;
          to = [...new Set([...((found.record.channels as string[] | undefined) ?? []), ...missing])].sort();
        }
        if (kind === 'pixels' && field === 'type' && !same(found.record.type, to)) {
          notes.push(`pixel "${key}" is of type ${String(found.record.type)} on the server; a pixel's type cannot change (delete it and apply again)`);
          continue;
        }
        if (!same(found.record[field], to)) fields.push({ field, from: found.record[field], to });
      }
      const sent = [...unreadable, ...cannot.filter((f) => record[f] !== undefined)];
      if (fields.length) changes.push({ action: 'update', kind, key, id: found.id, record, fields, unreadable: sent.length ? sent : undefined });
    }
    if (prune) {
      for (const [k, c] of current) if (!matched.has(k)) deletes.push({ action: 'delete', kind, key: keyOf(kind, c.record), id: c.id });
    }
  }
  const privateAfter = changes.filter((c) => c.kind === 'links' && c.action === 'update' && c.record?.public === undefined && c.fields?.some((f) => f.field !== 'channels'));
  if (privateAfter.length) notes.push(`real servers clear what a link update does not send again (what the file leaves out and cannot be read back) and make the link private unless its record says \`public: true\`: ${privateAfter.map((c) => c.key).join(', ')}`);
  // Deletes first, dependents (links, QR codes) before what they use.
  deletes.sort((a, b) => MANAGED.indexOf(b.kind) - MANAGED.indexOf(a.kind));
  return { changes: [...deletes, ...changes], notes };
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
  }
  const count = (a: Change['action']) => plan.changes.filter((c) => c.action === a).length;
  lines.push(plan.changes.length ? `Plan: ${count('create')} to add, ${count('update')} to change, ${count('delete')} to delete.` : 'No changes: the account matches the file.');
  return lines.join('\n');
}

// ---------------------------------------------------------------- apply

export interface Applied {
  created: number;
  updated: number;
  deleted: number;
}

/** Carries out a plan. `ids` maps every kind's keys to the target's ids, and grows as records are created. */
export async function applyPlan(client: ApiClient, plan: Plan, state: State, progress: (what: string) => void, done: Applied = { created: 0, updated: 0, deleted: 0 }): Promise<Applied> {
  const ids = new Map<string, number>();
  const idKey = (kind: Kind, key: string) => `${kind}\u0000${keyMatch(key)}`;
  for (const kind of KINDS) for (const c of state[kind]) ids.set(idKey(kind, keyOf(kind, c.record)), c.id);
  const idOf = (kind: Kind, name: string): number => {
    const id = ids.get(idKey(kind, name));
    if (id === undefined) throw new UsageError(`${specs()[kind].noun} "${name}" does not exist on the server`, kind === 'overlays' || kind === 'splash' ? 'overlays and splash pages are made in the web interface; make it there first' : undefined);
    return id;
  };
  const assigns: Array<() => Promise<void>> = [];
  for (const change of plan.changes) {
    progress(`${SYMBOL[change.action]} ${specs()[change.kind].noun} ${change.key}`);
    const item = LISTS[change.kind].item;
    if (change.action === 'delete') {
      await client.request('DELETE', `${item}/${change.id}/delete`);
      done.deleted++;
      continue;
    }
    const record = change.record!;
    if (change.kind === 'links') {
      const body = linkBody(record, idOf);
      let id = change.id;
      const changed = new Set(change.fields?.map((f) => f.field));
      if (change.action === 'create') {
        id = await createOnce(client, 'api/url/add', { url: record.url, ...body }, async () => findLink(client, record));
      } else if ([...changed].some((f) => f !== 'channels')) {
        // The safe update of `link update`: what can be read back is sent again; the file's fields over it.
        const given: Rec = { url: record.url, ...body };
        const update = planLinkUpdate(await readLink(client, id!), given, new Set());
        // The file holds the whole targeting: it replaces what was read instead of adding to it.
        for (const field of ['geotarget', 'devicetarget', 'languagetarget']) if (given[field] !== undefined) update.body[field] = given[field];
        await withNamedReferences(client, given, () => client.request('PUT', `${item}/${id}/update`, { json: update.body }));
      }
      ids.set(idKey('links', change.key), id!);
      const have = new Set(((state.links.find((c) => c.id === id)?.record.channels as string[] | undefined) ?? []).map(keyMatch));
      for (const channel of (record.channels as string[] | undefined) ?? []) {
        if (!have.has(keyMatch(channel))) assigns.push(async () => void (await client.request('POST', `api/channel/${idOf('channels', channel)}/assign/links/${id}`)));
      }
    } else {
      const body = resourceBody(change.kind, record);
      if (change.action === 'create') {
        const path = `${item}/add`;
        const id = await createOnce(client, path, body, async () => (await readState(client, [change.kind]))[change.kind].find((c) => keyMatch(keyOf(change.kind, c.record)) === keyMatch(change.key))?.id);
        ids.set(idKey(change.kind, change.key), id);
      } else {
        await client.request('PUT', `${item}/${change.id}/update`, { json: body });
      }
    }
    if (change.action === 'create') done.created++;
    else done.updated++;
  }
  for (const assign of assigns) await assign();
  return done;
}

/**
 * A create sent once: when its outcome is unknown (the connection dropped after sending), the
 * record is looked up by its key before anything else is done, so it is never created twice.
 */
async function createOnce(client: ApiClient, path: string, json: Rec, lookup: () => Promise<number | undefined>): Promise<number> {
  try {
    const body = await client.request('POST', path, { json, expect: ['id'] });
    const id = toInt(body.id);
    if (id === undefined) throw new NetworkError(`the answer to ${path} lacks the new record's id`);
    return id;
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error;
    const id = await lookup().catch(() => undefined);
    if (id === undefined) throw error;
    return id;
  }
}

/** A link by its alias (and domain), through the list's search rather than every page of the account's links. */
async function findLink(client: ApiClient, record: Rec): Promise<number | undefined> {
  const alias = keyMatch(String(record.alias));
  const domain = record.domain === undefined ? undefined : keyMatch(noSlash(String(record.domain)));
  for await (const page of allPages(client, { path: LISTS.links.path, keys: LISTS.links.keys, query: { q: String(record.alias) }, limit: ALL_PAGE_SIZE })) {
    // Servers give the site itself as the domain of a link on the default domain, so only a branded domain is compared.
    const found = page.records.find((r) => keyMatch(String(r.alias)) === alias && (domain === undefined || keyMatch(noSlash(String(r.domain ?? ''))) === domain));
    if (found) return toInt(found.id);
  }
  return undefined;
}

/**
 * A link record as the options of `link add` (by each flag's attribute name), turned into the
 * API body by the same code as the flags. Channels are assigned afterwards.
 */
export function linkBody(record: Rec, idOf: (kind: Kind, name: string) => number): Rec {
  const opts: Rec = {};
  const fields = specs().links.fields;
  for (const option of linkFlags()) {
    const flag = option.long!.slice(2);
    const attribute = option.attributeName();
    const entry = Object.entries(fields).find(([, f]) => f.flags?.includes(option.long!) || Object.values(f.properties ?? {}).some((p) => p.flags?.includes(option.long!)));
    if (!entry || flag === 'channel') continue;
    const [name, field] = entry;
    let value = record[name];
    if (value === undefined) continue;
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
  if (typeof record.password === 'string') body.password = record.password;
  return body;
}

function resourceBody(kind: Kind, r: Rec): Rec {
  switch (kind) {
    case 'domains':
      return { domain: r.domain, redirectroot: r.redirectRoot, redirect404: r.redirect404 };
    case 'pixels':
      return { type: r.type, name: r.name, tag: r.tag };
    case 'campaigns':
      return { name: r.name, slug: r.slug, public: r.public };
    case 'channels':
      return { name: r.name, description: r.description, color: r.color, starred: r.starred };
    case 'qr':
      return { type: r.type, data: r.data, name: r.name, background: r.background, foreground: r.foreground, logo: r.logo };
    default:
      throw new Error(`internal: ${kind} is read only`);
  }
}
