/** `export`, `plan` and `apply`: the actions. The format is in ./model.ts, reading it in ./file.ts, the diff in ./engine.ts. */
import type { ActionInput, Context } from '../context.js';
import { CliError, ExitCode, UsageError } from '../errors.js';
import type { Result } from '../output/types.js';
import { aliasErrors, escapeLiteral, fileError, readAccountFile, referenceErrors } from './file.js';
import { envReference } from './env-refs.js';
import { addDetails, addQrContent, candidatesOf, formatPlan, hasName, indexState, makePlan, passReference, planData, readNotes, readState, unchangedAsFileRecord, unreadableOn, unreadReason, type Current, type Plan, type State } from './engine.js';
import { applyPlan, type Applied } from './apply.js';
import type { Journal } from '../journal/journal.js';
import type { ConcurrencySetting } from '../http/concurrency.js';
import { join } from 'node:path';
import { KINDS, keyMatch, keyOf, linkUpdateStatements, MANAGED, specs, type Kind, type Rec } from './model.js';
import { buildSchema } from './schema.js';
import { safeStringify } from '../output/safe-text.js';
import { duration, Progress } from '../output/progress.js';
import { ignoredOnUpdate } from '../model/channels.js';
import { campaignNameIgnoredOnUpdate } from '../model/campaigns.js';
import { planMarkdown } from './markdown.js';
import { prepareWrite, readUserFile } from '../files/access.js';
import type { RedirectFormat } from './redirects.js';

/**
 * Where an exported file says its schema is: a file beside it, which `linkctl export --schema >
 * linkctl.schema.json` writes. Never a URL under a package name: the npm name `linkctl` is not
 * this project's, and whoever publishes under it would control what editors load.
 */
export const SCHEMA_FILE = 'linkctl.schema.json';
export function schemaUrl(): string {
  return `./${SCHEMA_FILE}`;
}

// ---------------------------------------------------------------- export

/** Fields of a kind that export cannot read back from a server (`id` is written where names repeat: it is read). */
function unreadable(kind: Kind): string[] {
  const spec = specs()[kind];
  return Object.entries(spec.fields).filter(([name, f]) => !spec.readable.includes(name) && !spec.key.includes(name) && name !== 'id' && !(kind === 'qr' && name === 'name') && f).map(([name]) => name);
}

export async function exportAccount(ctx: Context, { opts }: ActionInput): Promise<Result> {
  if (opts.redirects !== undefined) return (await import('./redirects.js')).exportRedirects(ctx, opts.redirects as RedirectFormat, opts);
  if (opts.schema) return { kind: 'raw', json: buildSchema() };
  // --json (-o json) asks for JSON on stdout: the file is then written as JSON, unless --format says otherwise.
  const format = (opts.format as 'yaml' | 'json' | undefined) ?? ((opts.file === undefined || opts.file === '-') && ctx.format === 'json' ? 'json' : typeof opts.file === 'string' && opts.file.endsWith('.json') ? 'json' : 'yaml');
  // Checked before the account is read: an existing file without --force, a path an MCP server may not write.
  const out = opts.file && opts.file !== '-' ? await prepareWrite(ctx, String(opts.file), { flag: '--file', force: Boolean(opts.force), mode: 0o600 /* an account is private */ }) : undefined;
  const reader = await ctx.reader();
  const state = await readState(reader, KINDS);
  if (opts.details) await addDetails(reader, state.links, (what) => ctx.status(`reading: ${what}`), opts.concurrency);
  else if (state.links.length) ctx.warn(detailsNote(ctx, state.links.length));
  // QR codes' type, data and colours, from their images (not API requests); --no-qr-content skips it.
  const qrContent = opts.qrContent !== false && state.qr.length > 0;
  if (qrContent) {
    const unread = await addQrContent(reader, state.qr, (done, of) => ctx.progress(`reading QR code images ${done}/${of}`), linkShortUrls(state.links), { leaveOutSecrets: !opts.includeSecrets });
    if (unread) ctx.warn(qrUnreadNote(state.qr, unread));
    const referenced = state.qr.filter((c) => passReference.has(c.record));
    if (referenced.length) {
      ctx.warn(`note: ${referenced.length} wifi QR code${referenced.length === 1 ? '\'s password is' : 's\' passwords are'} written as a reference to the environment (--include-secrets writes ${referenced.length === 1 ? 'it' : 'them'}); apply reads ${referenced.length === 1 ? 'it' : 'them'} from: ${referenced.map((c) => `${passReference.get(c.record)!} ("${String(c.record.name)}")`).join(', ')}.`);
    }
    // What the product did to a code's data (a password cut at a ;, a name holding &#039;) would travel on: said here too, not only in the file.
    const damaged = state.qr.filter((c) => (readNotes.get(c.record) ?? []).some((n) => /does not hold what was given/.test(n)));
    if (damaged.length) ctx.warn(`warning: ${damaged.length} QR code${damaged.length === 1 ? '' : 's'} hold${damaged.length === 1 ? 's' : ''} what the product made of ${damaged.length === 1 ? 'its' : 'their'} data, not what was given (the file says how beside ${damaged.length === 1 ? 'it' : 'each'}; apply would make ${damaged.length === 1 ? 'it' : 'them'} again as ${damaged.length === 1 ? 'it is' : 'they are'}): ${damaged.map((c) => `"${String(c.record.name)}"`).join(', ')}.`);
  }
  if (opts.stateUnreadable) await addKnownOptions(ctx, state, format);
  const text = format === 'json' ? `${safeStringify({ $schema: schemaUrl(), ...toFile(state) }, 2)}\n` : yamlText(toFile(state), Boolean(opts.details), qrContent);
  if (out) {
    const count = MANAGED.reduce((n, k) => n + state[k].length, 0);
    if (!out.write(text)) return { kind: 'message', message: `dry run: would export ${count} records to ${out.path}; nothing was written`, json: { dryRun: true, file: out.path, records: count } };
    return { kind: 'message', message: `Exported ${count} records to ${out.path}.`, json: { file: out.path, records: count } };
  }
  // The file itself is the output, whatever the output format.
  return { kind: 'text', text };
}

/**
 * `export --state-unreadable` (issue 44): each link's options that cannot be read back, as linkctl
 * last set them (its ledger), `none` for those it set none of, written under the link as
 * commented-out fields (`ledgerOn`), never stated (issue 50): linkctl knows what it sent, not what
 * another writer set since, so it cannot prove a setting absent, and apply must not clear one
 * unasked. What it cannot know at all is said in a comment above the link (`unknowableOn`).
 */
async function addKnownOptions(ctx: Context, state: State, format: 'yaml' | 'json'): Promise<void> {
  const { knownLinks, fileOptions } = await import('./known.js');
  const known = await knownLinks(ctx, state.links.map((c) => c.id));
  if (!known) ctx.warn('note: the ledger (the history database) could not be read: no link\'s unreadable options are known');
  else if (format === 'json') ctx.warn('note: --state-unreadable writes what linkctl last set as comments under each link, which JSON has not: export YAML to see them');
  for (const link of state.links) {
    const { options, unknowable } = fileOptions(known?.get(link.id), state.pixels ?? []);
    if (Object.keys(options).length) ledgerOn.set(link.record, options);
    if (unknowable.length) unknowableOn.set(link.record, unknowable);
  }
}

/** What the ledger says linkctl last set of a link's unreadable options: written commented out under it. */
const ledgerOn = new WeakMap<Rec, Rec>();

/** Options of a link `export --state-unreadable` cannot know: written as a comment above it. */
const unknowableOn = new WeakMap<Rec, string[]>();

/** The short URLs of the account's links, as they are compared (a text code may hold one). */
function linkShortUrls(links: Current[]): Set<string> {
  return new Set(links.map((l) => String(l.item?.shorturl ?? '').replace(/\/+$/, '').toLowerCase()).filter(Boolean));
}

/** Export's note on the codes it could not read: how many, and which (the file says why beside each). */
function qrUnreadNote(codes: Current[], unread: number): string {
  const names = codes.filter((c) => unreadReason.has(c.record)).map((c) => `"${String(c.record.name)}" (${unreadReason.get(c.record)})`);
  const shown = names.slice(0, 5).join('; ');
  return `${unread} of ${codes.length} QR code${codes.length === 1 ? '' : 's'} could not be read from ${unread === 1 ? 'its image' : 'their images'} and ${unread === 1 ? 'is' : 'are'} written by name only (a reference, which apply neither creates nor changes): ${shown}${names.length > 5 ? `; and ${names.length - 5} more` : ''}.`;
}

/** A server's text as file data: a literal `${` is written `$${`, so it is never read as a reference to the environment. */
function literal(value: unknown): unknown {
  if (typeof value === 'string') return escapeLiteral(value);
  if (Array.isArray(value)) return value.map(literal);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, literal(v)]));
  return value;
}

/** A record with its strings as file data (and its id when `id` is set); what could not be read back about it stays known (comments). */
function literalRecord(record: Rec, id?: unknown, key: readonly string[] = []): Rec {
  let copy = literal(record) as Rec;
  // The id right after the key, where a reader looks for what tells two records of one name apart.
  if (id !== undefined) copy = Object.fromEntries([...Object.entries(copy).filter(([k]) => key.includes(k)), ['id', id], ...Object.entries(copy).filter(([k]) => !key.includes(k))]);
  const cannot = unreadableOn.get(record);
  if (cannot) unreadableOn.set(copy, cannot);
  const reason = unreadReason.get(record);
  if (reason) unreadReason.set(copy, reason);
  const notes = readNotes.get(record);
  if (notes) readNotes.set(copy, notes);
  // A wifi password written as a reference to the environment: the reference itself, not a literal `$${`.
  const variable = passReference.get(record);
  if (variable && copy.data && typeof copy.data === 'object') copy.data = { ...(copy.data as Rec), pass: envReference(variable) };
  const unknowable = unknowableOn.get(record);
  if (unknowable) unknowableOn.set(copy, unknowable);
  const known = ledgerOn.get(record);
  if (known) ledgerOn.set(copy, literal(known) as Rec);
  return copy;
}

/**
 * A rate-limit window in whole seconds, as measured: from a reset given in whole seconds, when the
 * first answer of a window arrived. That is a little under the window (more on a busy machine),
 * never over it; known to a second or so, a window within a second of whole minutes is taken as those.
 */
export function rateWindowSeconds(measuredMs: number): number {
  const seconds = Math.max(1, Math.ceil(measuredMs / 1000));
  const minutes = Math.round(seconds / 60);
  const short = 60 * minutes - seconds;
  return minutes > 0 && short >= 0 && short <= 1 ? 60 * minutes : seconds;
}

/**
 * What export left out without --details, and what reading it would cost here: one request a
 * link, paced to the limit the server announced (X-RateLimit-Limit, as the client reported it)
 * over the window as measured, else the documented minute.
 */
function detailsNote(ctx: Context, links: number): string {
  const requests = `${links} request${links === 1 ? '' : 's'}`;
  const rate = ctx.traffic.rate;
  let cost = `${requests}; this server announces no rate limit`;
  if (rate?.limit) {
    const windowSeconds = rateWindowSeconds(ctx.traffic.windowMs ?? 60_000);
    const per = windowSeconds === 60 ? 'a minute' : `per ${windowSeconds} s`;
    const waits = Math.floor((links - 1) / rate.limit);
    cost = `${requests}, ${waits ? `about ${duration(waits * windowSeconds)}` : 'no wait'} at this server's limit of ${rate.limit} ${per}`;
  }
  return `Targeting and expiry of the ${links} link${links === 1 ? '' : 's'} were not read: \`export --details\` reads them (${cost}).`;
}

/**
 * The account as the file's data, records sorted by key so that two exports compare line by line.
 * Records whose name repeats on the server (two QR codes named "Menu") carry their id, so that
 * apply can tell them apart.
 */
function toFile(state: State): Rec {
  const file: Rec = { version: 1 };
  const index = indexState(state);
  for (const kind of KINDS) {
    const key = specs()[kind].key;
    const withId = 'id' in specs()[kind].fields;
    const records = state[kind].map((c) => literalRecord(c.record, withId && (index.get(kind)!.get(keyMatch(keyOf(kind, c.record)))?.length ?? 0) > 1 ? c.id : undefined, key));
    file[kind] = records.sort((a, b) => {
      if (String(a[key[0]!] ?? '').toLowerCase() === String(b[key[0]!] ?? '').toLowerCase() && a.id !== undefined && b.id !== undefined) return Number(a.id) - Number(b.id);
      for (const k of [...key].reverse()) {
        const x = String(a[k] ?? '');
        const y = String(b[k] ?? '');
        if (x !== y) return x < y ? -1 : 1;
      }
      return 0;
    });
  }
  return file;
}

/**
 * Built as text, record by record. What the records of a kind do not hold (fields servers do not
 * give back, targeting not read without --details) is said once, under the kind; a field that
 * only some records could not give back (device targeting on a 7.x server) is said on those.
 */
function yamlText(file: Rec, details: boolean, qrContent: boolean): string {
  const parts: string[] = [`# yaml-language-server: $schema=${schemaUrl()}`, `# (the schema, for an editor's hints: linkctl export --schema > ${SCHEMA_FILE})`];
  parts.push('# linkctl account file: `linkctl plan -f FILE` shows what `linkctl apply -f FILE` would change.', 'version: 1');
  for (const kind of KINDS) {
    const records = file[kind] as Rec[];
    if (specs()[kind].readOnly) parts.push(`# ${kind}: read only, listed so that links can name them`);
    if (!records.length) {
      parts.push(`${kind}: []`);
      continue;
    }
    parts.push(`${kind}:`);
    const missing = specs()[kind].readOnly ? [] : unreadable(kind);
    const everywhere = [...new Set(records.flatMap((r) => unreadableOn.get(r) ?? []))].filter((field) => records.every((r) => unreadableOn.get(r)?.includes(field)));
    if (kind === 'qr' && !qrContent) parts.push('  # The type, data and colours of QR codes were not read (`export` reads them from their images unless --no-qr-content): each is a reference only, until they are added.');
    else if (kind === 'qr') parts.push('  # The API does not give back a QR code\'s type, data or colours: they were read from each code\'s image (a logo cannot be: give it here, and apply sends it).');
    else if (missing.length || everywhere.length) parts.push(`  # Not read back from the server (give them here, and apply sends them): ${[...missing, ...everywhere].join(', ')}.`);
    const detailed = details ? [] : (specs()[kind].detailed ?? []);
    if (detailed.length) parts.push(`  # Not read: ${detailed.join(', ')} (\`linkctl export --details\` reads them, one request per ${specs()[kind].noun}).`);
    for (const record of records) {
      const reason = unreadReason.get(record);
      const own = (unreadableOn.get(record) ?? []).filter((field) => !everywhere.includes(field));
      if (reason) parts.push(`  # not read from its image (${oneLine(reason)}): a reference only`);
      else if (own.length) parts.push(`  # not read back for this one: ${own.join(', ')}`);
      for (const note of readNotes.get(record) ?? []) parts.push(`  # read from its image: ${oneLine(note)}`);
      const unknowable = unknowableOn.get(record);
      if (unknowable) parts.push(`  # linkctl cannot know (not set by it, or set in the web interface): ${unknowable.join(', ')}; apply clears them unless stated`);
      parts.push(recordYaml(record));
      const known = ledgerOn.get(record);
      if (known && Object.keys(known).length) parts.push(...ledgerYaml(known));
    }
  }
  return `${parts.join('\n')}\n`;
}

/** Server text in a YAML comment: one line. */
const oneLine = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/g, ' ');

/**
 * A scalar as YAML: plain when it cannot be read as anything but this string, else double-quoted
 * (a JSON string is a valid YAML double-quoted scalar). Written here, not by the yaml package:
 * its document model takes seconds for 10,000 links. Tests parse what this writes.
 */
export function yamlScalar(value: unknown): string {
  if (typeof value !== 'string') return safeStringify(value);
  const plain = (/^[A-Za-z][A-Za-z0-9 _.,/@+()'-]*$/.test(value) || /^https?:\/\/[^\s#'"]*$/.test(value)) && !UNSAFE_IN_FILE.test(value);
  // Double-quoted: control, C1 and bidi characters become \uXXXX escapes (YAML reads them back), never raw in the file or on a terminal.
  return plain && !/ $/.test(value) && !/^(true|false|null|yes|no|on|off|y|n)$/i.test(value) ? value : safeStringify(value);
}

/** Characters written only as escapes: those a terminal acts on, bidi controls, and line separators. */
const UNSAFE_IN_FILE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/u;

/** One record as an item of a list under a top-level key. */
function recordYaml(record: Rec): string {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(record)) lines.push(...fieldYaml(key, value, lines.length ? '    ' : '  - '));
  return lines.join('\n');
}

/** One field of a record, its first line after `prefix` (`    `, or `  - ` for the record's first). */
function fieldYaml(key: string, value: unknown, prefix: string): string[] {
  if (Array.isArray(value)) return [`${prefix}${key}:`, ...value.map((v) => `      - ${yamlScalar(v)}`)];
  if (value && typeof value === 'object') return [`${prefix}${key}:`, ...Object.entries(value).map(([k, v]) => `      ${yamlScalar(k)}: ${yamlScalar(v)}`)];
  return [`${prefix}${key}: ${yamlScalar(value)}`];
}

/**
 * What `export --state-unreadable` knows of a link from the ledger, under it as commented-out
 * fields: one `#` to remove for each the person vouches for. Not stated, since another writer (a
 * teammate's linkctl with its own ledger, the web interface) may have changed them since, and a
 * stated value or `none` would make apply clear that unasked.
 */
function ledgerYaml(options: Rec): string[] {
  return [
    '    # As linkctl last set them (its ledger). Not stated: another writer may have changed',
    '    # them since. Uncomment what you know to be so; apply clears the rest only when asked.',
    // Flow style (`pixels: [Analytics]`): one line each, one `#` to remove.
    ...Object.entries(options).map(([key, value]) => `    # ${key}: ${flowYaml(value)}`),
  ];
}

function flowYaml(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(flowYaml).join(', ')}]`;
  if (value && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${yamlScalar(k)}: ${flowYaml(v)}`).join(', ')}}`;
  // Plain only where a flow collection reads it as this string too.
  const text = yamlScalar(value);
  return /[,[\]{}]/.test(text) && !text.startsWith('"') ? safeStringify(value) : text;
}

// ---------------------------------------------------------------- plan and apply

/** The file, checked, then the account read (`beforeRead` runs between: apply takes its lock there). */
async function load(ctx: Context, opts: Rec, resolveEnv: boolean, beforeRead?: () => Promise<void>) {
  const name = String(opts.file);
  let text: string;
  if (name === '-') text = await ctx.readStdin();
  else text = readUserFile(ctx, name, '-f');
  (await import('../memory.js')).keepMemoryFlat(); // a file of many records, an account of many links
  // The values taken from the environment join the context's secrets: redacted from every message and trace.
  const { file, where } = readAccountFile(text, name === '-' ? '<stdin>' : name, { env: resolveEnv ? ctx.env : undefined, secrets: ctx.secrets });
  text = ''; // 18 MB for 200,000 links: not kept while the account is read
  await beforeRead?.();
  const reader = await ctx.reader();
  // The kinds of the file, and what links can name; readState adds the kinds links are read with.
  const kinds = KINDS.filter((k) => file[k] !== undefined || (file.links !== undefined && (k === 'overlays' || k === 'splash')));
  const state = await readState(reader, kinds, file.links ? unchangedAsFileRecord(file.links) : undefined);
  // Targeting and expiry are read one link at a time, so only for the links whose file record sets them.
  const detailed = specs().links.detailed!;
  const index = indexState(state);
  const needed = (file.links ?? []).filter((r) => detailed.some((f) => r[f] !== undefined)).flatMap((r) => candidatesOf(index, 'links', r) ?? []);
  await addDetails(reader, needed, (what) => ctx.status(`reading: ${what}`), opts.concurrency as ConcurrencySetting | undefined);
  // QR codes' content is read from their images only for the codes the file gives content to
  // (by name: codes of one name are told apart by their content).
  const codes = [...new Set((file.qr ?? []).filter((r) => specs().qr.readable.some((f) => r[f] !== undefined)).flatMap((r) => candidatesOf(index, 'qr', r) ?? []))];
  await addQrContent(reader, codes, (done, of) => ctx.progress(`reading QR code images ${done}/${of}`), linkShortUrls(state.links));
  const dangling = [
    ...referenceErrors(file, where, (kind, key) => hasName(index, kind, key)),
    ...aliasErrors(file, where, (record) => candidatesOf(index, 'links', record) !== undefined),
  ];
  if (dangling.length) throw fileError(dangling);
  const plan = makePlan(file, state, Boolean(opts.prune), index);
  await markViolations(ctx, plan, index);
  // What an update would send that real servers ignore with a success answer: the plan would never be met.
  const ignored = plan.changes.filter((c) => (c.kind === 'channels' || c.kind === 'campaigns') && c.action === 'update').flatMap((c) => c.fields!.flatMap((f) => {
    const why = c.kind === 'channels' && f.field === 'description' ? ignoredOnUpdate('description', String(f.to ?? '')) : c.kind === 'campaigns' && f.field === 'name' ? campaignNameIgnoredOnUpdate(String(f.to ?? '')) : undefined;
    return why ? [`${where.of(c.record!)}: ${specs()[c.kind].noun} "${c.key}": ${f.field}: ${why}`] : [];
  }));
  if (ignored.length) throw fileError(ignored);
  for (const note of plan.notes) ctx.warn(`note: ${note}.`);
  // Options a file states that cannot be read back are sent unless the ledger shows linkctl set them so;
  // what link updates would clear, split by what the ledger knows linkctl set (issue 44).
  const known = await import('./known.js');
  await known.sendsUnlessKnown(ctx, plan, state);
  await known.nameWhatIsKnown(ctx, plan, state);
  return { reader, state, plan };
}

/**
 * Each change that would break the policy (src/policy/) says so: plan shows it beside the change,
 * apply refuses the plan. A link as the change leaves it: its destination, every target and deep
 * link, its domain and the campaign it will be in (an update keeps what the file does not state of
 * what can be read back: the campaign, the domain, geo and device targets), for every create and
 * update, whatever it changes; a new alias only. A link-type QR code's data.
 */
async function markViolations(ctx: Context, plan: Plan, index: ReturnType<typeof indexState>): Promise<void> {
  const [{ policyViolations, linkSubject, loadPolicy }, { linkBody }] = await Promise.all([import('../policy/enforce.js'), import('./apply.js')]);
  if (!(await loadPolicy(ctx))) return;
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  // Names stand for ids here: the policy matches a campaign by its name.
  const byName = (_kind: Kind, name: string) => name as unknown as number;
  const kept = ['campaign', 'domain', 'geo', 'device'];
  const checked = plan.changes.flatMap((c) => {
    const r = c.record;
    if (!r || c.action === 'delete') return [];
    if (c.kind === 'links') {
      const current = c.action === 'update' ? index.get('links')!.get(keyMatch(keyOf('links', r)))?.find((l) => l.id === c.id)?.record : undefined;
      const after: Rec = { ...Object.fromEntries(kept.filter((k) => current?.[k] !== undefined && r[k] === undefined).map((k) => [k, current![k]])), ...r };
      const { custom, ...body } = linkBody(after, byName);
      const subject = linkSubject({ ...body, url: r.url, custom: c.action === 'create' || c.fields?.some((f) => f.field === 'alias') ? custom : undefined });
      return [{ change: c, what: `link ${c.key}`, subject }];
    }
    if (c.kind === 'qr' && r.type === 'link' && (c.action === 'create' || c.fields?.some((f) => f.field === 'data'))) return [{ change: c, what: `QR code ${c.key}`, subject: { url: str(r.data) } }];
    return [];
  });
  const found = await policyViolations(ctx, checked);
  checked.forEach((w, i) => {
    if (found[i]!.length) w.change.violations = found[i]!.map((v) => `${v.rule}: ${v.message}`);
  });
}

/** Where a plan is printed: a terminal's width, 80 off one (a CI log, a file). */
const widthOf = (stream: { isTTY?: boolean; columns?: number }) => (stream.isTTY && stream.columns) || 80;

/** Apply refuses a plan that breaks the policy (exit 2, nothing sent) unless a person passed --override. */
function refuseViolations(ctx: Context, plan: Plan, file: string): void {
  const breaking = plan.changes.filter((c) => c.violations?.length);
  if (!breaking.length) return;
  const lines = breaking.flatMap((c) => c.violations!.map((v) => `${specs()[c.kind].noun} ${c.key}: policy rule ${v}`));
  if (ctx.override !== undefined) {
    for (const line of lines) ctx.warn(`note: overridden (${JSON.stringify(ctx.override)}): ${line}`);
    return;
  }
  throw new UsageError(
    `the plan breaks the policy in ${breaking.length} change${breaking.length === 1 ? '' : 's'}:\n  ${lines.slice(0, 10).join('\n  ')}${lines.length > 10 ? `\n  ... and ${lines.length - 10} more` : ''}\nnothing was changed`,
    `fix the file (\`linkctl plan -f ${file}\` shows each violation), or, if a person decided so, pass --override "REASON" (the reason is recorded)`,
  );
}

export async function plan(ctx: Context, { opts }: ActionInput): Promise<Result> {
  let plan: Plan;
  try {
    ({ plan } = await load(ctx, opts, false));
  } catch (error) {
    // With --detailed-exitcode, 2 means "changes pending": every failure is 1, as with terraform.
    if (opts.detailedExitcode && error instanceof CliError && error.exitCode !== ExitCode.interrupted) throw new CliError(error.message, ExitCode.api, error.hint);
    throw error;
  }
  const pending = plan.changes.length > 0;
  const exitCode = opts.detailedExitcode && pending ? 2 : ExitCode.ok; // like terraform: 2 = changes pending
  if (ctx.document === 'markdown') return { kind: 'text', text: planMarkdown(plan), exitCode };
  return { kind: 'message', message: formatPlan(plan, widthOf(ctx.io.stdout)), json: planData(plan), exitCode };
}

export async function apply(ctx: Context, { opts }: ActionInput): Promise<Result> {
  let journal: Journal | undefined;
  const applied: Applied = { created: 0, updated: 0, deleted: 0 };
  let finished = false;
  try {
    // The lock is taken once the file is known to be good, before the account is read: a second
    // apply to the same account at once is refused, and none plans against a state about to change.
    const { reader, state, plan } = await load(ctx, opts, true, async () => {
      journal = await openApplyJournal(ctx, String(opts.file));
    });
    if (!plan.changes.length) {
      finished = true;
      return { kind: 'message', message: formatPlan(plan, widthOf(ctx.io.stdout)), json: { ...planData(plan), applied: { ...applied, steps: [] }, problems: [] } };
    }
    ctx.warn(formatPlan(plan, widthOf(ctx.io.stderr)));
    refuseViolations(ctx, plan, String(opts.file));
    const deletes = plan.changes.filter((c) => c.action === 'delete').length;
    if (opts.maxDeletes !== undefined && deletes > opts.maxDeletes) {
      throw new UsageError(`the plan deletes ${deletes} records, more than --max-deletes ${opts.maxDeletes}; nothing was changed`, `look at the deletions with \`linkctl plan -f ${String(opts.file)}${opts.prune ? ' --prune' : ''}\`; if they are meant, apply with a higher --max-deletes`);
    }
    const clearing = plan.changes.filter((c) => c.clears?.length);
    // What an update would clear or change unasked is never done on a --yes nobody read: a person at a terminal is asked, a script says --allow-clear.
    if (clearing.length && !opts.allowClear && !ctx.globals.dryRun && (ctx.globals.yes || !ctx.interactive)) {
      const first = clearing[0]!;
      throw new UsageError(
        `the plan updates ${clearing.length} link${clearing.length === 1 ? '' : 's'} (${clearing.slice(0, 5).map((c) => c.key).join(', ')}${clearing.length > 5 ? ', ...' : ''}) and each update would clear what the file does not state: ${first.clears!.join('; ')}; nothing was changed`,
        `real servers replace every option of a link on update, and these cannot be read back. State each in the file, as a value or as none when the link has none; for link ${first.key}: ${linkUpdateStatements(first.record ?? {}).join(', ')}. \`linkctl export --state-unreadable\` writes what linkctl last set, for you to confirm. Or pass --allow-clear to apply the plan as shown`,
      );
    }
    const question = deletes ? `Apply these changes, deleting ${deletes} record${deletes === 1 ? '' : 's'}` : 'Apply these changes';
    await ctx.confirm(clearing.length ? `${question}, clearing in ${clearing.length} link${clearing.length === 1 ? '' : 's'} what the file does not state?` : `${question}?`);
    const problems: string[] = [];
    // "3 of 120 steps, 1.5/s, ETA 1 min 20 s: + link spring" on a terminal (nothing elsewhere: the
    // plan said what comes, the result says what was done). Started at the first step, after the question.
    let progress: Progress | undefined;
    const onStep = (what: string, finished: number, total: number) => {
      progress ??= new Progress(ctx, total, { noun: 'steps', lines: false });
      progress.total = total;
      progress.tick(finished, what);
    };
    try {
      // Each link update is judged again as it is sent (what the plan could not read, such as targets the file does not state); an override covers the whole plan.
      const check = ctx.override === undefined ? async (key: string, body: Rec) => {
        const { enforcePolicy, linkSubject } = await import('../policy/enforce.js');
        await enforcePolicy(ctx, [{ what: `link ${key}`, subject: linkSubject(body) }]);
      } : undefined;
      await applyPlan(reader, ctx, plan, state, onStep, applied, journal, { verify: Boolean(opts.verify), problems, concurrency: opts.concurrency, check });
    } catch (error) {
      // A partial result says so: what was done stays done, and plan shows what is left.
      if (applied.created + applied.updated + applied.deleted > 0) ctx.warn(`partial: ${applied.created} added, ${applied.updated} changed, ${applied.deleted} deleted before this error; \`linkctl plan -f ${String(opts.file)}\` shows what is left, and apply again goes on from there.`);
      throw error;
    } finally {
      progress?.end();
      // Done, but not as the file asked (another domain or alias, dropped options): said even when a later change failed.
      for (const problem of problems) ctx.warn(`linkctl: ${problem}`);
    }
    finished = true;
    return {
      kind: 'message',
      message: `Applied: ${applied.created} added, ${applied.updated} changed, ${applied.deleted} deleted.`,
      json: { ...planData(plan), applied, problems },
      exitCode: problems.length ? 1 : undefined,
    };
  } finally {
    // Every step done (or none to do): the journal has done its work. Otherwise it stays, as proof
    // of what was done and what was in flight, for the next apply to say so.
    if (finished || !applied.steps?.length) journal?.retire();
    else journal?.close();
  }
}

/**
 * Apply's journal (the bulk engine's, src/journal/journal.ts), one per account: its lock keeps two
 * applies from planning against the same account at once, and its lines record each step before
 * it is sent and its outcome after. An apply that finds one left by a run that stopped (a kill,
 * a crash, a full disk) says so; it needs nothing else from it, since it reads the account again
 * and plans only what is still different: a step that was in flight is found by its key.
 */
async function openApplyJournal(ctx: Context, file: string): Promise<Journal | undefined> {
  if (ctx.globals.dryRun) return undefined; // a dry run writes nothing, and sends no change
  const { Journal, journalAccount } = await import('../journal/journal.js');
  const { stateDir } = await import('../config/paths.js');
  const client = await ctx.client();
  // Per account, not per profile: the same profile and base URL with another user's key is another
  // account (its journal and lock are its own), and two profiles of one key are one account.
  const { baseUrl } = journalAccount(ctx, client);
  const journal = Journal.open({
    dir: join(stateDir(ctx.env), 'apply'),
    key: { baseUrl, account: ctx.sandboxMode ? 'sandbox' : client.keyFingerprint, command: 'apply' },
    settings: {},
    restart: false,
    label: `apply -f ${file}`,
    subject: 'apply on this account',
  });
  const earlier = [...journal.previous.values()];
  if (earlier.length) {
    const inFlight = earlier.filter((e) => e.state === 'sending').length;
    const done = earlier.filter((e) => e.state !== 'sending' && e.state !== 'failed').length;
    ctx.warn(`note: an earlier apply on this account stopped before it finished (${done} step${done === 1 ? '' : 's'} done${inFlight ? `, ${inFlight} in flight` : ''}); the account is read again, so what it did is not done twice${inFlight ? ' (a record in flight is found by its key)' : ''}.`);
  }
  return journal;
}
