/**
 * Creating and updating links, written once for `link add`/`link update`, their `--from` rows,
 * `apply` and MCP. Each goes through the run's reader (./reader.ts), so lookups cost a request
 * only when what was read cannot answer them.
 *
 * - Identity: a link with an alias is known by its alias (and domain), as in links-as-code; a link
 *   without one by its destination (and domain). `--if-exists` decides what happens when it exists.
 * - Real servers return an existing link instead of creating one for a URL already shortened
 *   (with the same options), and answer "That alias is taken" before that check when the alias is
 *   in use. A new link always gets a higher id than every link before it, so comparing the answer's
 *   id with the newest id known before sending tells a new link from an existing one.
 * - A domain that is not the account's is replaced silently by servers: it is checked first.
 * - Options the account's plan lacks are dropped silently: a read-back reports them.
 */
import type { Body } from '../http/envelope.js';
import { toInt } from '../http/envelope.js';
import type { Clearable, IfExists } from './link-types.js';
import { ApiError, CliError, NotFoundError, UsageError } from '../errors.js';
import { campaigns } from './campaigns.js';
import { channels } from './channels.js';
import { CLEARING_HINT, clearingQuestion, destinationKey, hostOf, links, PLAN_DEPENDENT, planLinkUpdate, shortUrlOf, updateCannot, type LinkRead } from './links.js';
import { create, update, type Model } from './model.js';
import { pixels } from './pixels.js';
import type { AccountReader } from './reader.js';
import { keyMatch, noSlash, storedAs, type Rec } from './values.js';
import { aliasRefusal, serverAlias } from './aliases.js';
import { LINK_FIELDS, type LinkField } from './link-fields.js';

/** What a write may tell the person running it, and ask them. A Context is one; a bulk row has its own. */
export interface Ui {
  warn(message: string): void;
  confirm(question: string, hint?: string): Promise<void>;
}

export interface LinkDeps {
  reader: AccountReader;
  ui: Ui;
  /** --dry-run: the API layer stops the first change; notes say what it would have done. */
  dryRun?: boolean;
  /** Read the link back after a write that sent options the account's plan may lack (single commands always; bulk and apply with --verify). */
  verify?: boolean;
  /**
   * Called with the body an update will send (the link as the update leaves it: its destination,
   * campaign, targets), before anything is asked or sent: the policy's check (src/policy/), which
   * throws to refuse. Apply checks its whole plan before it starts and gives none.
   */
  check?: (body: Rec) => Promise<void>;
}

/** What a create or an update did, and what it did differently from what was asked. */
export interface LinkOutcome {
  status: 'created' | 'exists' | 'updated' | 'skipped';
  /** `{id, shorturl}` as people see it. */
  record: Rec;
  /** The server's answer (or the existing link) for --json. */
  json: unknown;
  /** What the server did not do as asked (another domain, options dropped): the run fails with these. */
  problems: string[];
}

const ALIAS_TAKEN = /alias is taken|alias.*(already|not available)/i;

/** The answer's `{id, shorturl}`. */
const brief = (answer: Rec): Rec => ({ id: toInt(answer.id) ?? answer.id, shorturl: shortUrlOf(answer) });

/** How people name a link in messages: `link 12 (https://go.example.com/promo)`. */
const named = (link: Rec) => `link ${String(link.id)}${shortUrlOf(link) ? ` (${String(shortUrlOf(link))})` : ''}`;

/**
 * `--domain` must be one of the account's domains (or the site's own): real servers put a link on
 * the default domain instead, silently. One read of the domain list per run.
 */
export async function checkDomain(reader: AccountReader, domain: unknown, flag = '--domain'): Promise<void> {
  if (typeof domain !== 'string' || domain === '') return;
  const host = hostOf(domain);
  const known = (await reader.all('domains')).map((d) => d.domain).filter((d): d is string => typeof d === 'string');
  if (host === hostOf(reader.client.base.href) || known.some((d) => hostOf(d) === host)) return;
  throw new UsageError(
    `${flag} ${domain} is not one of the account's domains${known.length ? ` (${known.map(noSlash).join(', ')})` : ' (it has none)'}; servers would put the link on the default domain instead`,
    'see `linkctl domain list`; add the domain first with `linkctl domain add`, or leave --domain out for the default domain',
  );
}

/**
 * The pixels, campaign and channel a link's body names by id must be the account's: the product
 * drops a campaign or pixel id that is not (real-servers.md, fact 7) and adds a link to any
 * channel id unchecked (fact 5), answering success either way. Checked from the run's read of
 * each list (one request a list a run, shared by every row of `--from`), before anything is sent.
 */
export async function checkReferenceIds(reader: AccountReader, body: Rec): Promise<void> {
  for (const { field, model, flag } of LINK_REFERENCES) {
    const value = body[field];
    if (value === undefined || value === null) continue;
    const ids = [value].flat().map((v) => toInt(v) ?? v);
    if (!ids.length) continue;
    const known = new Set((await reader.all(model.kind)).map((r) => toInt(r.id)));
    const missing = ids.filter((id) => typeof id !== 'number' || !known.has(id));
    if (!missing.length) continue;
    const what = field === 'channel' ? 'adds the link to a channel id it does not check' : `drops a ${model.noun} id that is not the account's`;
    throw new UsageError(
      `${missing.map((id) => `${flag} ${String(id)}`).join(', ')}: the account has no ${model.noun} with ${missing.length === 1 ? 'this id' : 'these ids'}; the product ${what} and answers success, so nothing was sent`,
      `see \`linkctl ${model.command} list\` for the ids (a name works too: ${flag} "NAME")`,
    );
  }
}

/**
 * The link a command names by its id, its alias (`spring-sale`) or its short URL
 * (`go.example.com/spring-sale`, scheme optional): an id as it is, else one lookup of the alias
 * (src/model/reader.ts `byKey`: a search, or the list already read). Aliases keep their letter
 * case on the product, so an exact match wins over one in another case.
 */
export async function linkIdOf(reader: AccountReader, ref: number | string): Promise<number> {
  if (typeof ref === 'number') return ref;
  const short = /^[a-z][a-z0-9+.-]*:\/\//i.test(ref) || /^[^/\s]+\.[^/\s]+\/[^/]+\/?$/.test(ref);
  const alias = short ? ref.replace(/\/+$/, '').split('/').pop()! : ref;
  const found = await withAlias(reader, alias, short ? ref : undefined);
  const exact = found.filter((l) => l.alias === alias || aliasOf(shortUrlOf(l)) === alias);
  const matches = exact.length ? exact : found;
  const ids = [...new Set(matches.map((l) => toInt(l.id)).filter((id): id is number => id !== undefined))];
  if (ids.length === 1) return ids[0]!;
  const what = short ? `short URL ${ref}` : `alias "${alias}"`;
  if (!ids.length) throw new NotFoundError(`no link of this account has the ${what}`, `see \`linkctl link list --search ${alias}\`; an id works too`);
  throw new UsageError(`${ids.length} links have the ${what} (ids ${ids.join(', ')}), on different domains or in another letter case`, `give the id, or the whole short URL (go.example.com/${alias})`);
}

/**
 * Links of the account with this alias on this domain (or on any domain when none is asked): the
 * alias as servers store it (`Docs_V3` is `Docs-V3`), which is what a link has.
 */
async function withAlias(reader: AccountReader, alias: string, domain: unknown): Promise<Rec[]> {
  const host = typeof domain === 'string' && domain ? hostOf(domain) : undefined;
  return (await reader.byKey('links', serverAlias(alias) || alias)).filter((l) => host === undefined || hostOf(shortUrlOf(l)) === host);
}

/** Links of the account with this destination (on this domain when one is asked). */
async function withDestination(reader: AccountReader, url: string, domain: unknown): Promise<Rec[]> {
  const host = typeof domain === 'string' && domain ? hostOf(domain) : undefined;
  return (await reader.linksTo(url)).filter((l) => host === undefined || hostOf(shortUrlOf(l)) === host);
}

/**
 * `link add`: `body` is the body of `POST api/url/add` (url first), `password` included. `ifExists`
 * says what to do when the link exists (by alias, or else by destination).
 */
export async function addLink(deps: LinkDeps, body: Rec, ifExists: IfExists): Promise<LinkOutcome> {
  const { reader } = deps;
  const url = String(body.url);
  const alias = typeof body.custom === 'string' ? body.custom : undefined;
  const { url: _url, ...options } = body;
  await checkDomain(reader, body.domain);
  await checkReferenceIds(reader, body);

  // The existing link a create met (found before sending, returned by the server, or holding the alias the server refused): returned, skipped, updated or refused, as --if-exists says.
  const met = async (existing: Rec, how: 'alias' | 'destination', sent: 'no' | 'returned' | 'refused'): Promise<LinkOutcome> => {
    const same = typeof existing.longurl !== 'string' || destinationKey(existing.longurl) === destinationKey(url);
    const json = existing;
    if (ifExists === 'update') {
      deps.ui.warn(`note: ${how === 'alias' ? `the alias "${alias}" is` : `${url} is already shortened as`} ${named(existing)}; updating it.`);
      // The alias it was found by is its own: not sent again (an update without `custom` keeps the
      // alias, and servers check a sent one as new: one under 3 characters, which older links have, is refused).
      const { custom, ...rest } = body;
      const own = typeof existing.alias === 'string' && typeof custom === 'string' && existing.alias.toLowerCase() === custom.toLowerCase();
      return updateLink(deps, toInt(existing.id)!, own ? rest : body, new Set());
    }
    if (!same && how === 'alias') {
      throw new ApiError(
        `the alias "${alias}" is taken by ${named(existing)}, which goes to ${String(existing.longurl)}`,
        'choose another --alias, or pass --if-exists update to point that link at this destination',
      );
    }
    if (!same) {
      // A success naming an existing link that goes elsewhere: the server created nothing for this destination.
      throw new ApiError(
        `the server answered success with ${named(existing)}, an existing link that goes to ${String(existing.longurl)}, not a new link to ${url}`,
        'nothing new was created; check with `linkctl link list` and try again, or report it to the server\'s administrator',
      );
    }
    const byAlias = how === 'alias';
    // The alias as the server stores it (`Docs-V3` for `Docs_V3`): what the link has, and what people find it by.
    const stored = typeof existing.alias === 'string' && existing.alias ? existing.alias : aliasOf(shortUrlOf(existing)) ?? alias;
    const hasAlias = stored !== alias ? `the alias "${stored}" ("${alias}" as servers store it)` : `the alias "${alias}"`;
    if (ifExists === 'fail') {
      const what = byAlias ? `${named(existing)} already has ${hasAlias} and this destination` : `${url} is already shortened as ${named(existing)}`;
      // Found before sending, it can be skipped: what makes a --from file safe to run again.
      const hint = sent === 'no'
        ? 'pass --if-exists skip to leave it as it is and send nothing (a --from file run again), --if-exists update to apply the options to it, or --if-exists return to take it as it is'
        : 'pass --if-exists update to apply them to it, or --if-exists return to take it as it is';
      throw new ApiError(`${what}; ${{ no: 'nothing was sent', returned: 'the server returned it unchanged', refused: 'the server refused the alias' }[sent]}, so the options were not applied`, hint);
    }
    if (ifExists === 'skip' && sent === 'no') {
      deps.ui.warn(`note: ${byAlias ? `${named(existing)} already has ${hasAlias} and this destination` : `${url} is already shortened as link ${String(existing.id)}`}; nothing was sent (--if-exists skip).`);
      return { status: 'skipped', record: brief(existing), json, problems: [] };
    }
    const unapplied = Object.keys(options).filter((o) => o !== 'custom').length ? '; the options were not applied' : '';
    deps.ui.warn(byAlias
      ? `note: ${named(existing)} already has ${hasAlias} and this destination: this is it, unchanged${unapplied}.`
      : `note: ${url} was already shortened: this is the existing ${named(existing)}, unchanged${unapplied}.`);
    return { status: 'exists', record: brief(existing), json, problems: [] };
  };

  // Look before sending when it costs nothing (the run read every link), when --if-exists skip
  // promises to send nothing, or when servers refuse the alias (too short, a filtered word,
  // reserved): then it can only name a link that exists.
  const refused = alias !== undefined ? aliasRefusal(alias) : undefined;
  if (ifExists === 'skip' || reader.isComplete('links') || refused) {
    const [existing] = alias !== undefined ? await withAlias(reader, alias, body.domain) : await withDestination(reader, url, body.domain);
    if (existing) return met(existing, alias !== undefined ? 'alias' : 'destination', 'no');
  }
  if (refused) throw new UsageError(`${refused.message} to create a link: no link has it; nothing was sent`, refused.hint);
  // Without an alias the server may answer with an existing link: its id tells (see the top of this file).
  const newest = alias === undefined ? await reader.newestLinkId() : undefined;
  let answer: Body;
  try {
    answer = await withNamedReferences(reader, body, () => create(reader.client, links, body, { checkWith: `linkctl link list --search '${url.replace(/'/g, `'\\''`)}'` }));
  } catch (error) {
    if (alias === undefined || !(error instanceof ApiError) || !ALIAS_TAKEN.test(error.message)) throw error;
    const [existing] = await withAlias(reader, alias, body.domain);
    // Not this account's: aliases are unique across every user of an installation (real-servers.md, 39).
    if (!existing) {
      error.message = `alias "${alias}": ${error.message} No link of this account has it: another account of this server holds it; nothing was created`;
      throw error;
    }
    return met(existing, 'alias', 'refused');
  }
  const id = toInt(answer.id);
  if (newest !== undefined && id !== undefined && id <= newest) {
    const existing = (await reader.byId('links', id).catch(() => undefined)) ?? { id, shorturl: shortUrlOf(answer), longurl: url };
    return met({ ...existing, ...brief(answer) }, 'destination', 'returned');
  }
  reader.learn('links', { id: answer.id, alias: alias ?? aliasOf(shortUrlOf(answer)), shorturl: shortUrlOf(answer), longurl: url, domain: body.domain ?? null, campaign: body.campaign ?? null, channel: body.channel === undefined ? [] : [String(body.channel)] });
  const problems = await notAsAsked(deps, id, body, answer, 'created');
  rewriteNote(deps, alias, answer);
  for (const note of storedNotes(body)) deps.ui.warn(note);
  return { status: 'created', record: brief(answer), json: withoutError(answer), problems };
}

/** Says so when the server stored the alias rewritten (`Docs_V3` as `Docs-V3`), on create and on update alike. */
function rewriteNote(deps: LinkDeps, alias: unknown, answer: Rec): void {
  const got = aliasOf(shortUrlOf(answer));
  if (typeof alias === 'string' && got !== undefined && got !== alias && keyMatch(got) === keyMatch(serverAlias(alias))) {
    deps.ui.warn(`note: the server rewrote the alias "${alias}" as "${got}" (servers turn spaces, most punctuation and _ into -)`);
  }
}

/**
 * What the product stores of the text a write sent otherwise than it was written (the marks of
 * link-fields.ts: a meta title or description cleaned of HTML), said once, as plan says it.
 */
function storedNotes(sent: Rec): string[] {
  return (LINK_FIELDS as readonly LinkField[]).flatMap((field) => {
    const value = sent[field.body];
    const stored = field.stored && typeof value === 'string' ? field.stored(value, 'create') : undefined;
    return stored !== undefined && stored !== value ? [`note: the server stores the ${field.label} as ${JSON.stringify(stored)} (${(field.normalised ?? 'rewritten').split(';')[0]})`] : [];
  });
}

/** The alias of a short URL: its last path segment. */
function aliasOf(short: unknown): string | undefined {
  return typeof short === 'string' ? short.replace(/\/+$/, '').split('/').pop() : undefined;
}

function withoutError(body: Body): Body {
  const { error: _error, ...rest } = body;
  return rest;
}

/**
 * What a create or update of a link did not do as asked: what its answer shows (another domain,
 * another alias) and, when `deps.verify` allows, what a read-back shows (options dropped).
 */
export async function notAsAsked(deps: LinkDeps, id: number | undefined, sent: Rec, answer: Rec, done: 'created' | 'updated'): Promise<string[]> {
  return [...differences(sent, answer), ...(await droppedOptions(deps, id, sent, done))];
}

/** What the answer of a create or update shows was not done as asked: another domain, another alias. */
function differences(sent: Rec, answer: Rec): string[] {
  const problems: string[] = [];
  const short = shortUrlOf(answer);
  if (typeof sent.domain === 'string' && sent.domain && typeof short === 'string' && hostOf(short) !== hostOf(sent.domain)) {
    problems.push(`the server put it on ${hostOf(short)}, not on ${hostOf(sent.domain)} as asked (real servers replace a domain they do not accept with the default one)`);
  }
  const got = aliasOf(short);
  // Servers rewrite characters an alias may not have ("bad alias!" becomes "bad-alias"), as --alias's help says; anything else is a dropped alias.
  if (typeof sent.custom === 'string' && got !== undefined && keyMatch(got) !== keyMatch(sent.custom) && keyMatch(got) !== keyMatch(serverAlias(sent.custom))) {
    problems.push(`the server gave it the alias "${got}", not "${sent.custom}": the account's plan may not include custom aliases`);
  }
  return problems;
}

/**
 * Reads the link back after a write that sent options the account's plan may lack, and names those
 * the server dropped. Only options a read can show are checked; the others are named as unverifiable.
 */
async function droppedOptions(deps: LinkDeps, id: number | undefined, sent: Rec, done: string): Promise<string[]> {
  if (id === undefined || deps.verify === false) return [];
  const checkable = PLAN_DEPENDENT.filter((o) => o.kept && o.field !== 'custom' && sent[o.field] !== undefined && sent[o.field] !== null);
  if (!checkable.length) return [];
  const details = ((await deps.reader.readOne('links', id)).details ?? {}) as Rec;
  const dropped = checkable.filter((o) => !o.kept!(details, sent[o.field])).map((o) => o.label);
  // The same read shows whether the text the product rewrites was stored as the marks predict (plan relies on them).
  const otherwise = storedOtherwise(sent, details).map((p) => `${done} link ${id}, but ${p}`);
  if (!dropped.length) return otherwise;
  const unverifiable = PLAN_DEPENDENT.filter((o) => !o.kept && sent[o.field] !== undefined && sent[o.field] !== null).map((o) => o.label);
  return [
    `${done} link ${id}, but the server dropped ${dropped.join(' and ')}: the account's plan may not include ${dropped.length === 1 ? 'it' : 'them'}` +
      (unverifiable.length ? `; ${unverifiable.join(', ')} cannot be read back, so ${unverifiable.length === 1 ? 'it' : 'they'} may be missing too` : ''),
    ...otherwise,
  ];
}

/** Text fields a read shows stored otherwise than sent and than the marks of link-fields.ts predict. */
function storedOtherwise(sent: Rec, details: Rec): string[] {
  return (LINK_FIELDS as readonly LinkField[]).flatMap((field) => {
    const value = sent[field.body];
    if (!field.stored || !field.read || field.read.from !== 'details' || typeof value !== 'string') return [];
    const got = details[field.read.key];
    const predicted = field.stored(value, 'create');
    return typeof got === 'string' && got !== value && got !== predicted ? [`the server stored the ${field.label} as ${JSON.stringify(got)}, not ${JSON.stringify(predicted ?? value)}`] : [];
  });
}

/**
 * Reads what an update needs: the details (an unknown id fails here, before anything changes) and
 * the list item, unless the caller read it already (`apply` keeps what it needs of each item).
 */
export async function readLink(reader: AccountReader, id: number, known?: Rec): Promise<LinkRead> {
  const details = (await reader.readOne('links', id)).details as Rec;
  const item = known ?? (await reader.byId('links', id, typeof details.alias === 'string' ? details.alias : undefined));
  return { details, item, siteUrl: reader.client.base.href };
}

/**
 * The safe update: reads, plans, confirms (a prompt, --yes, or exit 2 naming what would be
 * cleared) and sends. `given` are body fields from flags (`url` for a new destination).
 */
export async function updateLink(deps: LinkDeps, id: number, given: Rec, clear: ReadonlySet<Clearable>, replaceTargets = false, item?: Rec): Promise<LinkOutcome> {
  const { reader, ui } = deps;
  updateCannot(given);
  await checkDomain(reader, given.domain);
  await checkReferenceIds(reader, given);
  const read = await readLink(reader, id, item);
  const plan = planLinkUpdate(read, given, clear);
  // A file holds a link's whole targeting: it replaces what was read instead of adding to it.
  if (replaceTargets) for (const field of ['geotarget', 'devicetarget', 'languagetarget']) if (given[field] !== undefined) plan.body[field] = given[field];
  await deps.check?.(plan.body);
  for (const note of plan.notes) ui.warn(`note: ${note}.`);
  if (plan.cleared.length && deps.dryRun) ui.warn(`note: real servers would clear whatever link ${id} has of: ${plan.cleared.join('; ')}.`);
  if (plan.cleared.length) await ui.confirm(clearingQuestion(id, plan.cleared), CLEARING_HINT);
  const answer = await withNamedReferences(reader, given, () => update(reader.client, links, id, plan.body));
  const before = read.item ?? {};
  reader.learn('links', {
    ...before,
    id,
    longurl: plan.body.url,
    alias: typeof plan.body.custom === 'string' ? plan.body.custom : (before.alias ?? read.details.alias),
    shorturl: shortUrlOf(answer) ?? before.shorturl,
    campaign: plan.body.campaign ?? null,
    // An update adds the link to `channel` without taking it out of others.
    channel: [...new Set([...((before.channel as unknown[] | undefined) ?? []).map(String), ...(plan.body.channel ? [String(plan.body.channel)] : [])])],
  });
  const problems = await notAsAsked(deps, id, given, answer, 'updated');
  rewriteNote(deps, given.custom, answer);
  for (const note of storedNotes(given)) ui.warn(note);
  return { status: 'updated', record: { id, shorturl: shortUrlOf(answer) ?? shortUrlOf(read.details) }, json: withoutError(answer), problems };
}

/**
 * The records a link refers to: its option (`--campaign`), the field of its body, their kind, and
 * how a server's message names them.
 */
export const LINK_REFERENCES = [
  { option: 'pixel', field: 'pixels', model: pixels, flag: '--pixel', pattern: /pixel/i },
  { option: 'campaign', field: 'campaign', model: campaigns, flag: '--campaign', pattern: /campaign/i },
  { option: 'channel', field: 'channel', model: channels, flag: '--channel', pattern: /channel/i },
] as const;

/**
 * A link's options with each pixel, campaign and channel given by name (`--campaign "Spring
 * launch"`) replaced by its id; ids stay as they are. A name is matched as the account's list has
 * it (any case, one read of that list a run); none or several is a usage error naming the flag.
 */
export async function referencesByName(readerOf: () => Promise<AccountReader>, opts: Rec): Promise<Rec> {
  const named = LINK_REFERENCES.filter((r) => [opts[r.option]].flat().some((v) => typeof v === 'string'));
  if (!named.length) return opts; // ids only: nothing to read
  const reader = await readerOf();
  const out = { ...opts };
  for (const ref of named) {
    const value = opts[ref.option];
    const ids = await Promise.all([value].flat().map((v) => (typeof v === 'string' ? idOfName(reader, ref, v) : v)));
    out[ref.option] = Array.isArray(value) ? ids : ids[0];
  }
  return out;
}

/** The id of the one record of `ref`'s kind named `name`. */
export async function idOfName(reader: AccountReader, ref: { model: Model; flag: string }, name: string): Promise<number> {
  const { kind, noun, command, key } = ref.model;
  // As written, else as the product stores names (`Fish & "Chips"` is `Fish & &quot;Chips&quot;` there).
  const stored = storedAs(ref.model.stored, 'name', name);
  let found = await reader.byKey(kind, name);
  if (!found.length && typeof stored === 'string' && stored !== name) found = await reader.byKey(kind, stored);
  const ids = found.map((r) => toInt(r.id)).filter((id): id is number => id !== undefined);
  if (ids.length === 1) return ids[0]!;
  if (ids.length > 1) throw new UsageError(`${ref.flag} "${name}": ${ids.length} ${noun}s have this name (ids ${ids.join(', ')})`, `give the id instead, e.g. ${ref.flag} ${ids[0]}`);
  const names = (await reader.all(kind)).map(key).filter((n): n is string => typeof n === 'string');
  const some = names.slice(0, 10).map((n) => JSON.stringify(n)).join(', ') + (names.length > 10 ? ', ...' : '');
  throw new UsageError(`${ref.flag} "${name}": no ${noun} has this name (${names.length ? some : `the account has no ${noun}s`})`, `give the id, or the name as \`linkctl ${command} list\` shows it (any case)`);
}

/**
 * Sends a create or update of a link; when the server rejects a referenced pixel, campaign or
 * channel without saying which ("Pixel does not exist."), names the ids given that the lists lack.
 */
export async function withNamedReferences(reader: AccountReader, given: Rec, send: () => Promise<Body>): Promise<Body> {
  try {
    return await send();
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    for (const { pattern, model, flag, field } of LINK_REFERENCES) {
      const value = given[field];
      if (!pattern.test(error.message) || value === undefined || value === null) continue;
      const ids = (Array.isArray(value) ? value : [value]).map(String);
      try {
        const known = new Set((await reader.all(model.kind)).map((r) => String(r.id)));
        const missing = ids.filter((id) => !known.has(id));
        if (missing.length) error.message = `${error.message} (${missing.map((id) => `${flag} ${id}`).join(', ')} not found)`;
      } catch (readError) {
        if (!(readError instanceof CliError)) throw readError;
        // the list could not be read: the server's message stays as it is
      }
    }
    throw error;
  }
}

