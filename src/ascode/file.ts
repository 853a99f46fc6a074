/**
 * Reading an account file: YAML (or JSON) into records, checked against the format in
 * ./model.ts. Every mistake is reported as `file:line:column: where: what`, all of them at
 * once, as a UsageError (exit 2) before anything is sent.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node, type Pair } from 'yaml';
import { CliError, UsageError } from '../errors.js';
import { linkBody } from './engine.js';
import { KINDS, keyMatch, keyOf, specs, type AccountFile, type Field, type Kind, type Rec } from './model.js';

/** Where each field of a record is, for messages about references. */
const fieldWhere = new WeakMap<Rec, Record<string, string>>();

const ENV_REF = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/;

export interface ParsedFile {
  file: AccountFile;
  /** Where each record is, `file:line:column`, for later messages (a dangling reference found against the server). */
  where: WeakMap<Rec, string>;
}

export interface ReadOptions {
  /** Replace `${env:NAME}` by the variable's value (apply); plan keeps the reference. */
  env?: Record<string, string | undefined>;
}

export function readAccountFile(text: string, name: string, options: ReadOptions = {}): ParsedFile {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  const at = (offset: number | undefined) => {
    const { line, col } = lines.linePos(offset ?? 0);
    return `${name}:${line}:${col}`;
  };
  const errors: string[] = [];
  for (const e of doc.errors) errors.push(`${at(e.pos[0])}: ${e.code === 'DUPLICATE_KEY' ? 'duplicate key' : 'not valid YAML'}: ${e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`);
  if (errors.length) throw fileError(errors);

  const where = new WeakMap<Rec, string>();
  const fail = (node: Node | Pair | null | undefined, path: string, message: string) => {
    const range = node && 'range' in node ? node.range : node && 'key' in node ? (node.key as Node | null)?.range : undefined;
    errors.push(`${at(range?.[0])}: ${path}: ${message}`);
  };
  const root = doc.contents;
  if (!isMap(root)) {
    fail(root, '(top level)', 'the file must be a mapping with `version: 1` and lists such as `links:`');
    throw fileError(errors);
  }
  const file: AccountFile = { version: 1 };
  let version = false;
  for (const pair of root.items) {
    const key = isScalar(pair.key) ? String(pair.key.value) : '';
    const value = pair.value as Node | null;
    if (key === 'version') {
      version = true;
      if (!isScalar(value) || value.value !== 1) fail(value ?? pair, 'version', 'must be 1 (the only version of the format)');
    } else if (key === '$schema') {
      if (!isScalar(value) || typeof value.value !== 'string') fail(value ?? pair, '$schema', 'must be a string');
    } else if ((KINDS as readonly string[]).includes(key)) {
      file[key as Kind] = readKind(key as Kind, value, fail, () => errors.length, where, at, options);
    } else {
      fail(pair, key, `unknown field; the file holds version, ${KINDS.join(', ')}`);
    }
  }
  if (!version) fail(root, 'version', 'missing: the file must say `version: 1`');
  if (!errors.length) errors.push(...referenceErrors(file, where));
  if (errors.length) throw fileError(errors);
  return { file, where };
}

export function fileError(errors: string[]): CliError {
  const shown = errors.slice(0, 20);
  return new UsageError(`the file is not valid:\n  ${shown.join('\n  ')}${errors.length > shown.length ? `\n  ... and ${errors.length - shown.length} more` : ''}`, 'nothing was sent; see the format in schema/linkctl.schema.json and `linkctl export`');
}

type Fail = (node: Node | Pair | null | undefined, path: string, message: string) => void;

function readKind(kind: Kind, node: Node | null, fail: Fail, errorCount: () => number, where: WeakMap<Rec, string>, at: (o?: number) => string, options: ReadOptions): Rec[] {
  const spec = specs()[kind];
  if (node === null || (isScalar(node) && node.value === null)) return [];
  if (!isSeq(node)) {
    fail(node, kind, `must be a list of ${spec.noun} records`);
    return [];
  }
  const records: Rec[] = [];
  const seen = new Map<string, string>();
  node.items.forEach((item, index) => {
    const path = `${kind}[${index}]`;
    if (!isMap(item)) return fail(item as Node, path, `must be a mapping of ${Object.keys(spec.fields).join(', ')}`);
    const record: Rec = {};
    const fieldsAt: Record<string, string> = {};
    const given = new Set<string>();
    for (const pair of item.items) {
      const name = isScalar(pair.key) ? String(pair.key.value) : '';
      const field = spec.fields[name];
      if (!field) {
        fail(pair, `${path}.${name}`, `unknown field; a ${spec.noun} has ${Object.keys(spec.fields).join(', ')}`);
        continue;
      }
      const before = errorCount();
      const value = readValue(field, pair.value as Node | null, `${path}.${name}`, fail, options);
      if (value !== undefined) record[name] = value;
      else if (errorCount() > before) given.add(name); // reported already: not "missing" too
      fieldsAt[name] = at((pair.value as Node | null)?.range?.[0] ?? (pair.key as Node | null)?.range?.[0]);
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
    const key = keyMatch(keyOf(kind, record));
    const position = at(item.range?.[0]);
    if (seen.has(key)) return fail(item, path, `duplicate ${spec.noun} "${keyOf(kind, record)}" (also at ${seen.get(key)})`);
    seen.set(key, position);
    where.set(record, position);
    fieldWhere.set(record, fieldsAt);
    records.push(record);
  });
  return records;
}

function readValue(field: Field, node: Node | null, path: string, fail: Fail, options: ReadOptions): unknown {
  if (node === null || (isScalar(node) && node.value === null)) return undefined;
  const scalarString = (n: Node, p: string, check?: (v: string) => unknown): string | undefined => {
    if (!isScalar(n) || (typeof n.value !== 'string' && typeof n.value !== 'number') || (field.type !== 'string' && field.type !== 'list' && field.type !== 'map' && field.type !== 'object')) {
      fail(n, p, 'must be a string');
      return undefined;
    }
    let value = String(n.value);
    const env = ENV_REF.exec(value);
    if (field.secret && !env) {
      fail(n, p, 'a secret is given as a reference to the environment, such as ${env:PROMO_PASSWORD}, so the file holds none');
      return undefined;
    }
    if (env && options.env) {
      const found = options.env[env[1]!];
      if (found === undefined || found === '') {
        fail(n, p, `the environment variable ${env[1]} is not set`);
        return undefined;
      }
      value = found;
    }
    if (field.choices && !field.choices.includes(value)) {
      fail(n, p, `must be one of ${field.choices.join(', ')}; got "${value}"`);
      return undefined;
    }
    if (check && !env) {
      try {
        check(value);
      } catch (error) {
        fail(n, p, error instanceof CliError ? error.message : String(error));
        return undefined;
      }
    }
    return value;
  };
  switch (field.type) {
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
      // Free-form data (a QR code's): strings, numbers, lists and mappings, with ${env:NAME} inside.
      const resolve = (v: unknown, p: string): unknown => {
        if (typeof v === 'string') {
          const env = ENV_REF.exec(v);
          if (env && options.env) {
            const found = options.env[env[1]!];
            if (found === undefined) fail(node, p, `the environment variable ${env[1]} is not set`);
            return found;
          }
          return v;
        }
        if (Array.isArray(v)) return v.map((x, i) => resolve(x, `${p}[${i}]`));
        if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x, `${p}.${k}`)]));
        return v;
      };
      return resolve(node.toJSON(), path);
    }
  }
}

/**
 * Every reference names a record: of the file when the file has that kind's list, else of the
 * server (`known`, checked by plan once it has read the account; until then such references pass).
 */
export function referenceErrors(file: AccountFile, where: WeakMap<Rec, string>, known?: (kind: Kind, key: string) => boolean): string[] {
  const errors: string[] = [];
  const all = specs();
  const names = new Map<Kind, Set<string>>();
  for (const kind of KINDS) names.set(kind, new Set((file[kind] ?? []).map((r) => keyMatch(keyOf(kind, r)))));
  for (const kind of KINDS) {
    (file[kind] ?? []).forEach((record, index) => {
      for (const [name, field] of Object.entries(all[kind].fields)) {
        if (!field.ref || record[name] === undefined) continue;
        const inFile = file[field.ref] !== undefined;
        if (!inFile && !known) continue;
        const values = Array.isArray(record[name]) ? (record[name] as string[]) : [String(record[name])];
        for (const value of values) {
          if (inFile ? names.get(field.ref)!.has(keyMatch(value)) : known!(field.ref, value)) continue;
          const at = `${fieldWhere.get(record)?.[name] ?? where.get(record)}: ${kind}[${index}].${name}: "${value}"`;
          errors.push(inFile
            ? `${at} is not in the file's ${field.ref}; add it there (${all[field.ref].readOnly ? 'as a reference by name' : 'or fix the name'})`
            : `${at} names no ${all[field.ref].noun} on the server (the file has no ${field.ref} list)`);
        }
      }
    });
  }
  return errors;
}
