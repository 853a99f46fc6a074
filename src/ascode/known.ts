/**
 * What linkctl knows a link has (issue 44), from the ledger (src/history/ledger.ts): the options
 * of its last write of the link, as it sent them. A plan splits what an update would clear into
 * what linkctl set (`pixels: Analytics`, `params: utm_source=qr`) and what no one can know (set in
 * the product's web interface, or before the ledger); `export --state-unreadable` writes the one
 * and `none` for what it knows is unset.
 *
 * Linkctl knows what it sent, not what someone changed since in the web interface: the plan says
 * "as linkctl last set it". Reading the ledger never fails a plan: without one, nothing is known.
 */
import type { Context } from '../context.js';
import { LINK_FIELDS, type LinkField } from '../model/link-fields.js';
import type { Fields } from '../history/ledger.js';
import { SECRET_SET } from '../history/ledger-writer.js';
import { keyMatch, keyOf, linkFileFields, nameKeysOf, NONE, type Kind, type Rec } from './model.js';
import type { Change, Current, Plan, State } from './engine.js';

/** The options an update clears unless sent again and that answers do not give back (the ones `none` is for). */
const CLEARED: readonly LinkField[] = (LINK_FIELDS as readonly LinkField[]).filter((f) => (!f.read || f.answeredNull) && (f.update ?? 'replaced') === 'replaced');

/** The last-written fields of each link id linkctl wrote on this server (undefined: the ledger cannot be read). */
export async function knownLinks(ctx: Context, ids: readonly number[]): Promise<Map<number, Fields | null> | undefined> {
  if (!ids.length) return new Map();
  try {
    const [{ openHistory }, { appliedVersions }, { knownState }] = await Promise.all([import('../history/store.js'), import('../history/schema.js'), import('../history/ledger.js')]);
    const server = await ctx.ledgerServer();
    const history = await openHistory(ctx, { inspect: true });
    try {
      if (!(await appliedVersions(history.db)).includes(23)) return new Map();
      const known = new Map<number, Fields | null>();
      await history.db.read(async () => {
        for (const id of ids) {
          const state = await knownState(history.db, server, 'link', String(id));
          // Only a write that was done: after one whose outcome is unknown, the link is not known.
          if (state && state.entry.outcome === 'done' && state.fields) known.set(id, state.fields);
        }
      });
      return known;
    } finally {
      await history.db.close();
    }
  } catch {
    return undefined; // no history database yet, or one that cannot be read: nothing is known
  }
}

/** A value the ledger holds, as people and the file name it. */
function describe(field: LinkField, value: unknown, pixelName: (id: unknown) => string): string {
  if (field.body === 'pixels' && Array.isArray(value)) return value.map(pixelName).join(', ');
  if (field.body === 'parameters' && Array.isArray(value)) return value.map((p) => `${String((p as Rec).name ?? (p as Rec).key)}=${String((p as Rec).value)}`).join(', ');
  if (field.body === 'password') return 'set';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

const empty = (v: unknown) => v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0);

/** Which of the cleared options linkctl knows the link has (with their values), knows it lacks, or cannot know. */
export function splitCleared(record: Rec, known: Fields | null | undefined, pixels: readonly Current[]): { known: string[]; unset: string[]; unknowable: string[] } {
  const pixelName = (id: unknown) => String(pixels.find((p) => p.id === Number(id))?.record.name ?? `pixel ${String(id)}`);
  const out = { known: [] as string[], unset: [] as string[], unknowable: [] as string[] };
  for (const field of CLEARED) {
    const names = linkFileFields().filter(({ field: f }) => f === field).map(({ name }) => name);
    if (names.some((n) => record[n] !== undefined)) continue; // stated in the file: nothing is cleared unasked
    const name = field.clear ?? field.body;
    if (!known) out.unknowable.push(field.label);
    else if (empty(known[field.body])) out.unset.push(name);
    else out.known.push(`${name}: ${known[field.body] === SECRET_SET ? 'set' : describe(field, known[field.body], pixelName)}`);
  }
  return out;
}

/** A value as the ledger and a request body hold it, in one form: nothing, or the same data in any order of its lists. */
function comparable(value: unknown): string {
  if (empty(value) || value === NONE) return '';
  const norm = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(norm).map((x) => JSON.stringify(x)).sort();
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, x]) => [k, norm(x)]));
    return typeof v === 'number' ? String(v) : v;
  };
  return JSON.stringify(norm(value));
}

/**
 * Link updates the plan makes only to send options that cannot be read back (Change.sends): each
 * option the ledger shows linkctl last set as the file states it is left out, and an update left
 * with nothing to send is no change. What the ledger cannot show is sent, and the plan says why
 * it could not be compared. A password counts as the same when the ledger shows one set.
 */
export async function sendsUnlessKnown(ctx: Context, plan: Plan, state: State): Promise<void> {
  const pending = plan.changes.filter((c) => c.kind === 'links' && c.action === 'update' && c.sends?.length && c.id !== undefined);
  if (!pending.length) return;
  const known = await knownLinks(ctx, pending.map((c) => c.id!));
  const { linkBody } = await import('./apply.js');
  // The kinds a link's body names by id (linkBody): never the links themselves, which may be 200,000.
  const ids = new Map<string, number>((['pixels', 'campaigns', 'splash', 'overlays'] as const).flatMap((kind) => (state[kind] ?? []).map((c) => [`${kind}\u0000${keyMatch(keyOf(kind, c.record))}`, c.id] as const)));
  const idOf = (kind: Kind, name: string): number => {
    const id = nameKeysOf(kind, name).map((key) => ids.get(`${kind}\u0000${key}`)).find((found) => found !== undefined);
    if (id === undefined) throw new Error(`${kind} "${name}" is not on the server yet`);
    return id;
  };
  const dropped = new Set<Change>();
  for (const change of pending) {
    const fields = known?.get(change.id!);
    if (!fields) {
      change.sendsWhy = known ? 'linkctl\'s ledger has no write of this link' : 'linkctl\'s ledger cannot be read';
      continue;
    }
    let body: Rec | undefined;
    try {
      body = linkBody(change.record!, idOf);
    } catch {
      body = undefined; // a pixel the same apply creates: its id is not known yet
    }
    const differ = change.sends!.filter((name) => {
      const field = linkFileFields().find((f) => f.name === name)!.field;
      if (!body) return true;
      if (field.sensitive) return empty(fields[field.body]) !== (body[field.body] === undefined);
      return comparable(body[field.body]) !== comparable(fields[field.body]);
    });
    if (!differ.length) dropped.add(change);
    else {
      change.sends = differ;
      change.sendsWhy = 'linkctl\'s ledger shows it last set them otherwise';
    }
  }
  if (dropped.size) plan.changes = plan.changes.filter((c) => !dropped.has(c));
}

/** Adds to each link update of the plan what it would clear that linkctl set, and what no one can know. */
export async function nameWhatIsKnown(ctx: Context, plan: Plan, state: State): Promise<void> {
  const updates = plan.changes.filter((c) => c.kind === 'links' && c.action === 'update' && c.clears?.length && c.id !== undefined);
  const known = await knownLinks(ctx, updates.map((c) => c.id!));
  for (const change of updates) {
    const split = splitCleared(change.record ?? {}, known?.get(change.id!), state.pixels ?? []);
    change.clearsKnown = split.known;
    change.clearsUnknowable = split.unknowable;
    change.clearsUnset = split.unset;
  }
}

/**
 * For `export --state-unreadable`: a link's options as linkctl last set them, in the file's terms
 * (`pixels` by name, `params` as a mapping, `none` for what it knows is unset), and the options it
 * cannot know (options without a file spelling of their own, and every option of a link the ledger
 * does not know).
 */
export function fileOptions(known: Fields | null | undefined, pixels: readonly Current[]): { options: Rec; unknowable: string[] } {
  const options: Rec = {};
  const unknowable: string[] = [];
  const written = new Set<LinkField>();
  for (const { name, field } of linkFileFields()) {
    if (!CLEARED.includes(field) || written.has(field)) continue;
    written.add(field); // one name of a field that has several (redirect, splash, overlay: the redirect type)
    if (!known) {
      if (!unknowable.includes(field.label)) unknowable.push(field.label);
      continue;
    }
    const value = known[field.body];
    if (empty(value)) {
      options[name] = NONE;
      continue;
    }
    if (name === 'pixels' && Array.isArray(value)) {
      const names = value.map((id) => pixels.find((p) => p.id === Number(id))?.record.name);
      if (names.every((n) => typeof n === 'string')) options[name] = names;
      else unknowable.push(field.label); // a pixel deleted since: its name is gone
    } else if (name === 'params' && Array.isArray(value)) {
      options[name] = Object.fromEntries(value.map((p) => [String((p as Rec).name ?? (p as Rec).key), String((p as Rec).value)]));
    } else if (name === 'metaImage' && typeof value === 'string') {
      options[name] = value;
    } else if (name === 'password' || name === 'redirect' || name === 'splash' || name === 'overlay') {
      // A password is never in the ledger; the redirect type, splash page and overlay share one body field: not written back.
      if (!unknowable.includes(field.label)) unknowable.push(field.label);
    } else unknowable.push(field.label);
  }
  if (known) {
    // An update leaves every link private (real-servers.md): after one, or a create with --private, the link is private.
    if (known.status === 'private') options.public = false;
    else if (known.status === 'public') options.public = true;
    else unknowable.push('public status (the server\'s default when the link was made)');
  } else unknowable.push('public status');
  return { options, unknowable };
}
