/**
 * Reading an account file: YAML (or JSON) into records, checked against the format in
 * ./model.ts. Every mistake is reported as `file:line:column: where: what`, all of them at
 * once, as a UsageError (exit 2) before anything is sent.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node, type Pair, type YAMLSeq } from 'yaml';
import { blockItem } from './block-yaml.js';
import { CliError, UsageError } from '../errors.js';
import { collectGarbage } from '../memory.js';
import { linkBody } from './apply.js';
import { passFromEnv } from './env-refs.js';
import { aliasRefusal, MIN_ALIAS_LENGTH } from '../model/aliases.js';
import { identity, isNone, KINDS, keyMatch, keyOf, NONE, NONE_FIELDS, specs, type AccountFile, type Field, type Kind, type Rec } from './model.js';

/**
 * Where each record of a file is, and each of its fields that names another record, for messages
 * found later (a dangling reference found against the server). Kept as numbers, not text: a file
 * of 200,000 links would otherwise hold a million position strings.
 */
export class Positions {
  private readonly records = new WeakMap<Rec, number>();
  private readonly fields = new WeakMap<Rec, Record<string, number>>();
  constructor(readonly name: string) {}

  static pack(line: number, col: number): number {
    return line * 4096 + Math.min(col, 4095);
  }

  set(record: Rec, at: number, fields?: Record<string, number>): void {
    this.records.set(record, at);
    if (fields) this.fields.set(record, fields);
  }

  /** `file:line:column` of a record, or of one of its fields when known. */
  of(record: Rec, field?: string): string {
    const at = (field !== undefined ? this.fields.get(record)?.[field] : undefined) ?? this.records.get(record) ?? Positions.pack(1, 1);
    return `${this.name}:${Math.floor(at / 4096)}:${at % 4096}`;
  }
}

/**
 * A string of its own. The parser's strings are slices of the text parsed, so keeping one keeps
 * that text: a record's values kept that way hold every record's text (18 MB for 200,000 links).
 */
const detach = (s: string): string => (s.length > 12 ? (JSON.parse(JSON.stringify(s)) as string) : s);

const ENV_REF = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/;

/**
 * Only a secret field (a link's password) is a reference to the environment; every other string
 * is data, whatever it holds. Export writes a literal `${` as `$${` so that a file reads back as
 * it was exported, and so that an old reader never takes a server's text for a reference.
 */
export const escapeLiteral = (text: string) => text.replace(/\$\{/g, () => '$${');
const unescapeLiteral = (text: string) => text.replace(/\$\$\{/g, () => '${');

export interface ParsedFile {
  file: AccountFile;
  /** Where each record is, for later messages (a dangling reference found against the server). */
  where: Positions;
}

export interface ReadOptions {
  /** Replace `${env:NAME}` in secret fields by the variable's value (apply); plan keeps the reference. */
  env?: Record<string, string | undefined>;
  /** The values taken from the environment are added here, for redaction wherever text is printed. */
  secrets?: string[];
}

export function readAccountFile(text: string, name: string, options: ReadOptions = {}): ParsedFile {
  const state: ReadState = { name, options, errors: [], where: new Positions(name), file: { version: 1 }, seen: new Map(), counts: new Map(), at: () => `${name}:1:1`, pos: () => Positions.pack(1, 1) };
  // A file in block style (what export writes, and what people write by hand) is read one record
  // at a time, so a file of 200,000 links never becomes one document tree; any other style whole.
  if (!readPieces(text, state)) {
    Object.assign(state, { errors: [], where: new Positions(name), file: { version: 1 }, seen: new Map(), counts: new Map() });
    readWhole(text, state);
  }
  if (!state.errors.length) state.errors.push(...referenceErrors(state.file, state.where));
  if (state.errors.length) throw fileError(state.errors);
  return { file: state.file, where: state.where };
}

/** What reading a file accumulates; `at` turns an offset of the document being read into `file:line:column`, `pos` into a Positions number. */
interface ReadState {
  name: string;
  options: ReadOptions;
  errors: string[];
  where: Positions;
  file: AccountFile;
  /** Keys of each kind's records so far, and where each is (duplicates are reported). */
  seen: Map<Kind, Map<string, number>>;
  /** Records of each kind so far (their index in messages). */
  counts: Map<Kind, number>;
  at: (offset?: number) => string;
  pos: (offset?: number) => number;
}

/** Parses YAML text whose first line is line `firstLine` of the file; its errors are the file's. */
function parseAt(text: string, firstLine: number, state: ReadState) {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  state.pos = (offset) => {
    const { line, col } = lines.linePos(offset ?? 0);
    return Positions.pack(line + firstLine - 1, col);
  };
  state.at = (offset) => {
    const { line, col } = lines.linePos(offset ?? 0);
    return `${state.name}:${line + firstLine - 1}:${col}`;
  };
  for (const e of doc.errors) state.errors.push(`${state.at(e.pos[0])}: ${e.code === 'DUPLICATE_KEY' ? 'duplicate key' : 'not valid YAML'}: ${e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`);
  return doc;
}

/** Points `state.at` and `state.pos` at offsets of `text`, whose first line is line `firstLine` of the file. */
function positionsIn(text: string, firstLine: number, state: ReadState): void {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  const place = (offset = 0) => {
    let line = starts.length - 1;
    while (line > 0 && starts[line]! > offset) line--;
    return { line: line + firstLine, col: offset - starts[line]! + 1 };
  };
  state.pos = (offset) => {
    const { line, col } = place(offset);
    return Positions.pack(line, col);
  };
  state.at = (offset) => {
    const { line, col } = place(offset);
    return `${state.name}:${line}:${col}`;
  };
}

function failer(state: ReadState): Fail {
  return (node, path, message) => {
    const range = node && 'range' in node ? node.range : node && 'key' in node ? (node.key as Node | null)?.range : undefined;
    state.errors.push(`${state.at(range?.[0])}: ${path}: ${message}`);
  };
}

function readWhole(text: string, state: ReadState): void {
  const doc = parseAt(text, 1, state);
  if (state.errors.length) return;
  const fail = failer(state);
  const root = doc.contents;
  if (!isMap(root)) return fail(root, '(top level)', 'the file must be a mapping with `version: 1` and lists such as `links:`');
  let version = false;
  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    version ||= key === 'version';
    topLevel(key, pair, state);
  }
  if (!version) fail(root, 'version', 'missing: the file must say `version: 1`');
}

/** One top-level entry: the version, `$schema`, or a kind's list (read whole). */
function topLevel(key: string, pair: Pair, state: ReadState): void {
  const fail = failer(state);
  const value = pair.value as Node | null;
  if (key === 'version') {
    if (!isScalar(value) || value.value !== 1) fail(value ?? pair, 'version', 'must be 1 (the only version of the format)');
  } else if (key === '$schema') {
    if (!isScalar(value) || typeof value.value !== 'string') fail(value ?? pair, '$schema', 'must be a string');
  } else if ((KINDS as readonly string[]).includes(key)) {
    const kind = key as Kind;
    state.file[kind] ??= [];
    if (value === null || (isScalar(value) && value.value === null)) return;
    if (!isSeq(value)) return fail(value, kind, `must be a list of ${specs()[kind].noun} records`);
    for (const item of value.items) readRecord(kind, item as Node, state);
  } else {
    fail(pair, key, `unknown field; the file holds version, ${KINDS.join(', ')}`);
  }
}

interface Piece {
  /** The top-level key, and the line it is on. */
  key: string;
  line: number;
  /** `key: value` on one line (version, `$schema`, an empty list), or the key of a block list. */
  text: string;
  /** Whether the key opens a block list (its value is on the lines below). */
  list: boolean;
}

interface Item {
  text: string;
  line: number;
}

const TOP_KEY = /^([A-Za-z_$][\w$]*)[ \t]*:(?:[ \t]+(.*))?$/;
const SKIPPED = /^\s*(#.*)?$/;
/** The style of the file is not block style after all: read it whole. */
const NOT_BLOCK = Symbol('not block style');

/**
 * A block-style file, piece by piece: each top-level entry, then each item of a list (throws
 * NOT_BLOCK when the file is written otherwise: flow style, several documents, anything at
 * column 0 that is not a top-level key). Lines are taken one at a time from the text, so only
 * one item's text exists at a time.
 */
function* blockPieces(text: string): Generator<Piece | Item> {
  let current: Piece | undefined;
  let item: { lines: string[]; line: number } | undefined;
  let indent = -1;
  let number = 0;
  for (let at = 0; at < text.length; ) {
    const end = text.indexOf('\n', at);
    const line = text.slice(at, end < 0 ? text.length : end).replace(/\r$/, '');
    at = end < 0 ? text.length : end + 1;
    number++;
    if (/^\S/.test(line) && !line.startsWith('#')) {
      if (item) yield { text: `${item.lines.join('\n')}\n`, line: item.line };
      item = undefined;
      const m = TOP_KEY.exec(line);
      if (!m) throw NOT_BLOCK;
      const rest = m[2] ?? '';
      current = { key: m[1]!, line: number, text: line, list: rest === '' || rest.startsWith('#') };
      indent = -1;
      yield current;
      continue;
    }
    if (!current?.list) {
      if (SKIPPED.test(line)) continue;
      throw NOT_BLOCK; // a value over several lines that is not a list
    }
    const start = /^( +)-( |$)/.exec(line);
    if (start && (indent < 0 || start[1]!.length === indent)) {
      if (indent < 0) indent = start[1]!.length;
      if (item) yield { text: `${item.lines.join('\n')}\n`, line: item.line };
      item = { lines: [line], line: number };
      continue;
    }
    if (item) item.lines.push(line);
    else if (!SKIPPED.test(line)) throw NOT_BLOCK;
  }
  if (item) yield { text: `${item.lines.join('\n')}\n`, line: item.line };
}

/** Reads a block-style file piece by piece; false when it needs to be read whole (another style, an alias to an anchor elsewhere). */
function readPieces(text: string, state: ReadState): boolean {
  const keys = new Set<string>();
  let version = false;
  let kind: Kind | undefined;
  let items = 0;
  try {
    for (const piece of blockPieces(text)) {
      if ('key' in piece) {
        kind = undefined;
        if (keys.has(piece.key)) {
          state.errors.push(`${state.name}:${piece.line}:1: duplicate key: Map keys must be unique`);
          continue;
        }
        keys.add(piece.key);
        version ||= piece.key === 'version';
        const head = parseAt(`${piece.text}\n`, piece.line, state);
        if (head.errors.length) continue;
        const pair = isMap(head.contents) ? head.contents.items[0] : undefined;
        if (!pair) return false;
        if (piece.list && (KINDS as readonly string[]).includes(piece.key)) {
          kind = piece.key as Kind;
          state.file[kind] ??= [];
        } else topLevel(piece.key, pair, state);
        continue;
      }
      if (!kind) continue; // items of an unknown key, reported with the key
      let seq = blockItem(piece.text);
      if (seq) positionsIn(piece.text, piece.line, state);
      else {
        const doc = parseAt(piece.text, piece.line, state);
        if (doc.errors.some((e) => /alias|anchor/i.test(e.message))) return false;
        if (doc.errors.length) continue;
        seq = doc.contents as YAMLSeq;
      }
      if (!isSeq(seq) || seq.items.length !== 1) return false;
      readRecord(kind, seq.items[0] as Node, state);
      if (++items % 10_000 === 0) collectGarbage();
    }
  } catch (error) {
    if (error === NOT_BLOCK) return false;
    throw error;
  }
  if (!version) state.errors.push(`${state.name}:1:1: version: missing: the file must say \`version: 1\``);
  return true;
}

export function fileError(errors: string[]): CliError {
  const shown = errors.slice(0, 20);
  return new UsageError(`the file is not valid:\n  ${shown.join('\n  ')}${errors.length > shown.length ? `\n  ... and ${errors.length - shown.length} more` : ''}`, 'nothing was sent; see the format in schema/linkctl.schema.json and `linkctl export`');
}

type Fail = (node: Node | Pair | null | undefined, path: string, message: string) => void;

/** One record of a kind's list, checked field by field, added to the file unless something is wrong with it. */
function readRecord(kind: Kind, item: Node, state: ReadState): void {
  const spec = specs()[kind];
  const fail = failer(state);
  const index = state.counts.get(kind) ?? 0;
  state.counts.set(kind, index + 1);
  const path = `${kind}[${index}]`;
  if (!isMap(item)) return fail(item, path, `must be a mapping of ${Object.keys(spec.fields).join(', ')}`);
  const record: Rec = {};
  let fieldsAt: Record<string, number> | undefined;
  const given = new Set<string>();
  for (const pair of item.items) {
    const name = isScalar(pair.key) ? String(pair.key.value) : '';
    const field = spec.fields[name];
    if (!field) {
      fail(pair, `${path}.${name}`, `unknown field; a ${spec.noun} has ${Object.keys(spec.fields).join(', ')}`);
      continue;
    }
    const before = state.errors.length;
    // `none` for an option a link can be without (model.ts, NONE_FIELDS): what the field's type would refuse.
    const none = kind === 'links' && NONE_FIELDS.includes(name) && isScalar(pair.value) && pair.value.value === NONE;
    const value = none ? NONE : readValue(field, pair.value as Node | null, `${path}.${name}`, fail, state.options);
    if (value !== undefined) record[name] = value;
    else if (state.errors.length > before) given.add(name); // reported already: not "missing" too
    // Only fields that name other records, and a link's alias (refused for a create only), are reported later, after the server is read.
    if (field.ref || (kind === 'links' && name === 'alias')) (fieldsAt ??= {})[name] = state.pos((pair.value as Node | null)?.range?.[0] ?? (pair.key as Node | null)?.range?.[0]);
  }
  const missing = Object.entries(spec.fields).filter(([name, f]) => f.required && record[name] === undefined && !given.has(name)).map(([name]) => name);
  if (missing.length) return fail(item, path, `missing ${missing.join(', ')}`);
  if (kind === 'links') {
    // What involves several fields (redirect and splash both set the redirect type) is checked by the code that builds the request.
    try {
      linkBody(record, () => 1);
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      return fail(item, path, error.message);
    }
  }
  // a key field reported already (an alias too short) gives no key to compare
  if (spec.key.some((name) => given.has(name))) return;
  const key = identity(kind, record);
  const position = state.pos(item.range?.[0]);
  let seen = state.seen.get(kind);
  if (!seen) state.seen.set(kind, (seen = new Map()));
  const earlier = seen.get(key);
  if (earlier !== undefined) return fail(item, path, `duplicate ${spec.noun} "${keyOf(kind, record)}" (also at ${state.name}:${Math.floor(earlier / 4096)}:${earlier % 4096})`);
  seen.set(key, position);
  state.where.set(record, position, fieldsAt);
  state.file[kind]!.push(record);
}

function readValue(field: Field, node: Node | null, path: string, fail: Fail, options: ReadOptions): unknown {
  if (node === null || (isScalar(node) && node.value === null)) return undefined;
  const scalarString = (n: Node, p: string, check?: (v: string) => unknown): string | undefined => {
    if (!isScalar(n) || (typeof n.value !== 'string' && typeof n.value !== 'number') || (field.type !== 'string' && field.type !== 'list' && field.type !== 'map' && field.type !== 'object')) {
      fail(n, p, 'must be a string');
      return undefined;
    }
    let value = detach(String(n.value));
    if (!field.secret) value = unescapeLiteral(value);
    else {
      const env = ENV_REF.exec(value);
      if (!env) {
        fail(n, p, 'a secret is given as a reference to the environment, such as ${env:PROMO_PASSWORD}, so the file holds none');
        return undefined;
      }
      if (!options.env) return value; // plan: the reference itself, checked once it is resolved
      const found = options.env[env[1]!];
      if (found === undefined || found === '') {
        fail(n, p, `the environment variable ${env[1]} is not set`);
        return undefined;
      }
      options.secrets?.push(found);
      // Checked as any value of the field, after substitution; the message names the variable, never its value.
      for (const problem of [field.choices && !field.choices.includes(found) ? `must be one of ${field.choices.join(', ')}` : undefined, checkError(check, found)]) {
        if (problem) {
          fail(n, p, `the value of the environment variable ${env[1]} is not valid: ${problem.split(found).join('[REDACTED]')}`);
          return undefined;
        }
      }
      return found;
    }
    if (field.choices && !field.choices.includes(value)) {
      fail(n, p, `must be one of ${field.choices.join(', ')}; got "${value}"`);
      return undefined;
    }
    const problem = checkError(check, value);
    if (problem) {
      fail(n, p, problem);
      return undefined;
    }
    return value;
  };
  switch (field.type) {
    case 'integer':
      if (!isScalar(node) || typeof node.value !== 'number' || !Number.isSafeInteger(node.value) || node.value < 1) return fail(node, path, 'must be a whole number from 1');
      return node.value;
    case 'boolean':
      if (!isScalar(node) || typeof node.value !== 'boolean') return fail(node, path, 'must be true or false');
      return node.value;
    case 'string':
      return scalarString(node, path, field.check);
    case 'list': {
      if (!isSeq(node)) return fail(node, path, `must be a list${field.ref ? ` of ${specs()[field.ref].noun} names` : ''}`);
      const out = node.items.map((n, i) => scalarString(n as Node, `${path}[${i}]`, field.check));
      return out.includes(undefined) ? undefined : out;
    }
    case 'map': {
      if (!isMap(node)) return fail(node, path, 'must be a mapping such as `Canada: https://example.ca`');
      const out: Rec = {};
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : '';
        const value = scalarString(pair.value as Node, `${path}.${key}`);
        if (value === undefined) continue;
        try {
          field.check?.(`${key}=${value}`);
        } catch (error) {
          fail(pair.value as Node, `${path}.${key}`, error instanceof CliError ? error.message : String(error));
          continue;
        }
        out[key] = value;
      }
      return out;
    }
    case 'object': {
      if (field.properties) {
        if (!isMap(node)) return fail(node, path, `must be a mapping of ${Object.keys(field.properties).join(', ')}`);
        const out: Rec = {};
        for (const pair of node.items) {
          const key = isScalar(pair.key) ? String(pair.key.value) : '';
          const sub = field.properties[key];
          if (!sub) {
            fail(pair, `${path}.${key}`, `unknown field; ${path.split('.').pop()} has ${Object.keys(field.properties).join(', ')}`);
            continue;
          }
          const value = readValue(sub, pair.value as Node | null, `${path}.${key}`, fail, options);
          if (value !== undefined) out[key] = value;
        }
        return out;
      }
      // Free-form data (a QR code's): strings, numbers, lists and mappings, all of it data (`$${` is a literal `${`).
      const literal = (v: unknown): unknown => {
        if (typeof v === 'string') return unescapeLiteral(v);
        if (Array.isArray(v)) return v.map(literal);
        if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, literal(x)]));
        return v;
      };
      const raw = node.toJSON() as unknown;
      const data = literal(raw);
      // A wifi code's password is a secret: given as `${env:NAME}` (as export writes it), read from the
      // environment by apply, kept as the reference by plan, never compared (the file holds none).
      const pass = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Rec).pass : undefined;
      const env = typeof pass === 'string' ? ENV_REF.exec(pass) : null;
      if (env) {
        const at = isMap(node) ? (node.items.find((p) => isScalar(p.key) && p.key.value === 'pass')?.value as Node | undefined) ?? node : node;
        if (options.env) {
          const found = options.env[env[1]!];
          if (found === undefined || found === '') return fail(at, `${path}.pass`, `the environment variable ${env[1]} is not set (the wifi password is given as \${env:${env[1]}}); set it, or write the password with \`linkctl export --include-secrets\``);
          options.secrets?.push(found);
          (data as Rec).pass = found;
        } else (data as Rec).pass = pass;
        passFromEnv.set(data as object, env[1]!);
      }
      return data;
    }
  }
}

/** The message of a field's check, or undefined when the value passes. */
function checkError(check: ((v: string) => unknown) | undefined, value: string): string | undefined {
  if (!check) return undefined;
  try {
    check(value);
    return undefined;
  } catch (error) {
    return error instanceof CliError ? error.message : String(error);
  }
}

/**
 * Every reference names a record: of the file when the file has that kind's list, else of the
 * server (`known`, checked by plan once it has read the account; until then such references pass).
 */
/**
 * Links the file would create with an alias servers refuse: shorter than MIN_ALIAS_LENGTH, holding
 * a word of the product's filter, or reserved for its own pages (src/model/aliases.ts), each named
 * before anything is sent. Only creates: a link that exists is matched by its alias whatever it is
 * (older servers and generated aliases have 1- and 2-character ones), so linkctl's own export is
 * always valid input.
 */
export function aliasErrors(file: AccountFile, where: Positions, exists: (record: Rec) => boolean): string[] {
  return (file.links ?? []).flatMap((record, index) => {
    if (exists(record)) return [];
    const alias = String(record.alias);
    if (alias.trim().length < MIN_ALIAS_LENGTH) {
      return [`${where.of(record, 'alias')}: links[${index}].alias: "${alias}" must have at least ${MIN_ALIAS_LENGTH} characters for a link to be created (servers refuse shorter aliases; a link that exists is matched whatever its alias)`];
    }
    const refused = aliasRefusal(alias, `links[${index}].alias`);
    return refused ? [`${where.of(record, 'alias')}: ${refused.message}; choose another alias for a link to be created`] : [];
  });
}

export function referenceErrors(file: AccountFile, where: Positions, known?: (kind: Kind, key: string) => boolean): string[] {
  const errors: string[] = [];
  const all = specs();
  const names = new Map<Kind, Set<string>>();
  for (const kind of KINDS) names.set(kind, new Set((file[kind] ?? []).map((r) => keyMatch(keyOf(kind, r)))));
  for (const kind of KINDS) {
    (file[kind] ?? []).forEach((record, index) => {
      for (const [name, field] of Object.entries(all[kind].fields)) {
        if (!field.ref || record[name] === undefined || (kind === 'links' && isNone(name, record[name]))) continue;
        const inFile = file[field.ref] !== undefined;
        if (!inFile && !known) continue;
        const values = Array.isArray(record[name]) ? (record[name] as string[]) : [String(record[name])];
        for (const value of values) {
          if (inFile ? names.get(field.ref)!.has(keyMatch(value)) : known!(field.ref, value)) continue;
          const at = `${where.of(record, name)}: ${kind}[${index}].${name}: "${value}"`;
          errors.push(inFile
            ? `${at} is not in the file's ${field.ref}; add it there (${all[field.ref].readOnly ? 'as a reference by name' : 'or fix the name'})`
            : `${at} names no ${all[field.ref].noun} on the server (the file has no ${field.ref} list)`);
        }
      }
    });
  }
  return errors;
}
