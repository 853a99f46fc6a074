/** `export`, `plan` and `apply`: the actions. The format is in ./model.ts, reading it in ./file.ts, the diff in ./engine.ts. */
import { existsSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, basename } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Context } from '../context.js';
import { CliError, ExitCode, UsageError } from '../errors.js';
import type { Result } from '../output/types.js';
import type { ActionInput } from '../commands/shared/define.js';
import { fileError, readAccountFile, referenceErrors } from './file.js';
import { addDetails, applyPlan, formatPlan, indexState, makePlan, planData, readState, unreadableOn, type Plan, type State } from './engine.js';
import { KINDS, keyMatch, keyOf, MANAGED, specs, type Kind, type Rec } from './model.js';
import { buildSchema } from './schema.js';

/** The shipped schema: `schema/` beside `dist/` (the bundle) or `src/` (tests). */
export function schemaLocation(): string | undefined {
  for (const up of ['../schema/linkctl.schema.json', '../../schema/linkctl.schema.json']) {
    const path = fileURLToPath(new URL(up, import.meta.url));
    if (existsSync(path)) return pathToFileURL(path).href;
  }
  return undefined;
}

// ---------------------------------------------------------------- export

/** Fields of a kind that export cannot read back from a server. */
function unreadable(kind: Kind): string[] {
  const spec = specs()[kind];
  return Object.entries(spec.fields).filter(([name, f]) => !spec.readable.includes(name) && !spec.key.includes(name) && !(kind === 'qr' && name === 'name') && f).map(([name]) => name);
}

export async function exportAccount(ctx: Context, { opts }: ActionInput): Promise<Result> {
  if (opts.schema) return { kind: 'raw', json: buildSchema() };
  // --json (-o json) asks for JSON on stdout: the file is then written as JSON, unless --format says otherwise.
  const format = (opts.format as 'yaml' | 'json' | undefined) ?? ((opts.file === undefined || opts.file === '-') && ctx.format === 'json' ? 'json' : typeof opts.file === 'string' && opts.file.endsWith('.json') ? 'json' : 'yaml');
  const reader = await ctx.reader();
  const state = await readState(reader, KINDS);
  if (opts.details) await addDetails(reader, state.links, (what) => ctx.status(`reading: ${what}`));
  const text = format === 'json' ? `${JSON.stringify({ $schema: schemaLocation(), ...toFile(state) }, null, 2)}\n` : yamlText(toFile(state), Boolean(opts.details));
  if (opts.file && opts.file !== '-') {
    writeAtomically(String(opts.file), text);
    const count = MANAGED.reduce((n, k) => n + state[k].length, 0);
    return { kind: 'message', message: `Exported ${count} records to ${opts.file}.`, json: { file: opts.file, records: count } };
  }
  // The file itself is the output, whatever the output format.
  return { kind: 'text', text };
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
    const records = state[kind].map((c) => (withId && (index.get(kind)!.get(keyMatch(keyOf(kind, c.record)))?.length ?? 0) > 1 ? { ...c.record, id: c.id } : c.record));
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

/** Built as text, record by record, with a comment on each record that is not the whole truth. */
function yamlText(file: Rec, details: boolean): string {
  const schema = schemaLocation();
  const parts: string[] = [];
  if (schema) parts.push(`# yaml-language-server: $schema=${schema}`);
  parts.push('# linkctl account file: `linkctl plan -f FILE` shows what `linkctl apply -f FILE` would change.', 'version: 1');
  for (const kind of KINDS) {
    const records = file[kind] as Rec[];
    if (specs()[kind].readOnly) parts.push(`# ${kind}: read only, listed so that links can name them`);
    if (!records.length) {
      parts.push(`${kind}: []`);
      continue;
    }
    parts.push(`${kind}:`);
    const missing = unreadable(kind);
    const detailed = details ? [] : (specs()[kind].detailed ?? []);
    const note = kind === 'qr' ? '# type and data cannot be read back: a reference only until they are added' : missing.length && !specs()[kind].readOnly ? `# not read back: ${missing.join(', ')}` : '';
    for (const record of records) {
      const cannot = [...(unreadableOn.get(record) ?? []), ...detailed];
      if (note) parts.push(`  ${note}${cannot.length ? `; ${cannot.join(', ')}${details ? '' : ' (read with export --details)'}` : ''}`);
      parts.push(recordYaml(record));
    }
  }
  return `${parts.join('\n')}\n`;
}

/**
 * A scalar as YAML: plain when it cannot be read as anything but this string, else double-quoted
 * (a JSON string is a valid YAML double-quoted scalar). Written here, not by the yaml package:
 * its document model takes seconds for 10,000 links. Tests parse what this writes.
 */
export function yamlScalar(value: unknown): string {
  if (typeof value !== 'string') return JSON.stringify(value);
  const plain = /^[A-Za-z][A-Za-z0-9 _.,/@+()'-]*$/.test(value) || /^https?:\/\/[^\s#'"]*$/.test(value);
  return plain && !/ $/.test(value) && !/^(true|false|null|yes|no|on|off|y|n)$/i.test(value) ? value : JSON.stringify(value);
}

/** One record as an item of a list under a top-level key. */
function recordYaml(record: Rec): string {
  const lines: string[] = [];
  for (const [key, value] of Object.entries(record)) {
    const prefix = lines.length ? '    ' : '  - ';
    if (Array.isArray(value)) lines.push(`${prefix}${key}:`, ...value.map((v) => `      - ${yamlScalar(v)}`));
    else if (value && typeof value === 'object') lines.push(`${prefix}${key}:`, ...Object.entries(value).map(([k, v]) => `      ${yamlScalar(k)}: ${yamlScalar(v)}`));
    else lines.push(`${prefix}${key}: ${yamlScalar(value)}`);
  }
  return lines.join('\n');
}

/** Writes next to the target and renames: a reader never sees half a file. 0600: an account is private. */
function writeAtomically(path: string, text: string): void {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    writeFileSync(temp, text, { mode: 0o600 });
    renameSync(temp, path);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
      // nothing was written
    }
    throw new UsageError(`--file: cannot write ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}

// ---------------------------------------------------------------- plan and apply

async function load(ctx: Context, opts: Rec, resolveEnv: boolean) {
  const name = String(opts.file);
  let text: string;
  if (name === '-') text = await ctx.readStdin();
  else {
    try {
      text = readFileSync(name, 'utf8');
    } catch (error) {
      throw new UsageError(`-f: cannot read ${name} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  (await import('../memory.js')).keepMemoryFlat(); // a file of many records, an account of many links
  const { file, where } = readAccountFile(text, name === '-' ? '<stdin>' : name, { env: resolveEnv ? ctx.env : undefined });
  text = ''; // 18 MB for 200,000 links: not kept while the account is read
  const reader = await ctx.reader();
  // The kinds of the file, and what links can name; readState adds the kinds links are read with.
  const kinds = KINDS.filter((k) => file[k] !== undefined || (file.links !== undefined && (k === 'overlays' || k === 'splash')));
  const state = await readState(reader, kinds);
  // Targeting and expiry are read one link at a time, so only for the links whose file record sets them.
  const detailed = specs().links.detailed!;
  const index = indexState(state);
  const links = index.get('links')!;
  const needed = (file.links ?? []).filter((r) => detailed.some((f) => r[f] !== undefined)).flatMap((r) => links.get(keyMatch(keyOf('links', r))) ?? []);
  await addDetails(reader, needed, (what) => ctx.status(`reading: ${what}`));
  const dangling = referenceErrors(file, where, (kind, key) => index.get(kind)!.has(keyMatch(key)));
  if (dangling.length) throw fileError(dangling);
  const plan = makePlan(file, state, Boolean(opts.prune), index);
  for (const note of plan.notes) ctx.warn(`note: ${note}.`);
  return { reader, state, plan };
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
  return { kind: 'message', message: formatPlan(plan), json: planData(plan), exitCode: opts.detailedExitcode && pending ? 2 : ExitCode.ok /* like terraform: 2 = changes pending */ };
}

export async function apply(ctx: Context, { opts }: ActionInput): Promise<Result> {
  const { reader, state, plan } = await load(ctx, opts, true);
  if (!plan.changes.length) return { kind: 'message', message: formatPlan(plan), json: { ...planData(plan), applied: { created: 0, updated: 0, deleted: 0 } } };
  ctx.warn(formatPlan(plan));
  const deletes = plan.changes.filter((c) => c.action === 'delete').length;
  await ctx.confirm(deletes ? `Apply these changes, deleting ${deletes} record${deletes === 1 ? '' : 's'}?` : 'Apply these changes?');
  const applied = { created: 0, updated: 0, deleted: 0 };
  try {
    await applyPlan(reader, ctx, plan, state, (what) => ctx.status(what), applied);
  } catch (error) {
    // A partial result says so: what was done stays done, and plan shows what is left.
    if (applied.created + applied.updated + applied.deleted > 0) ctx.warn(`partial: ${applied.created} added, ${applied.updated} changed, ${applied.deleted} deleted before this error; \`linkctl plan -f ${String(opts.file)}\` shows what is left, and apply again goes on from there.`);
    throw error;
  }
  return {
    kind: 'message',
    message: `Applied: ${applied.created} added, ${applied.updated} changed, ${applied.deleted} deleted.`,
    json: { ...planData(plan), applied },
  };
}
