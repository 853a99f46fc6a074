/**
 * A fast reader for one record of an account file in the plain block style that `export` writes
 * (and that people write by hand): `key: scalar` lines, and under a key either `- scalar` items or
 * `key: scalar` pairs, one level deep. It builds the same nodes the `yaml` package would (so the
 * file's checks and their positions are the same) without the package's document machinery,
 * which costs ~1 ms a record: minutes for 200,000 links.
 *
 * Anything outside that subset (flow style, anchors, tags, block scalars, multi-line or unusual
 * scalars, anything that might resolve to another type) returns undefined, and the caller parses
 * the record with the `yaml` package. test/unit/ascode.test.ts holds both to the same results.
 */
import { Pair, Scalar, YAMLMap, YAMLSeq } from 'yaml';

/** `true`, `null`, a whole number, or a plain string that no YAML schema reads as anything else. */
function plain(text: string): { value: unknown } | undefined {
  if (/^(true|True|TRUE)$/.test(text)) return { value: true };
  if (/^(false|False|FALSE)$/.test(text)) return { value: false };
  if (/^(null|Null|NULL|~)$/.test(text)) return { value: null };
  if (/^[-+]?[0-9]+$/.test(text)) {
    const n = Number(text);
    return Number.isSafeInteger(n) ? { value: n } : undefined;
  }
  // Indicators, numbers of other forms (1e3, 0x1A, .5, .inf), and anything with `: ` or ` #` in it: the yaml package decides.
  if (!text || /^[-?:,[\]{}#&*!|>'"%@`.+0-9\s]/.test(text) || /:(\s|$)|\s#|\t|\s$/.test(text)) return undefined;
  return { value: text };
}

/** A scalar as written after `key: ` or `- `: quoted or plain; undefined when not simple enough. */
function scalar(text: string): { value: unknown } | undefined {
  if (text.startsWith('"')) {
    if (!/"$/.test(text) || text.length < 2) return undefined;
    try {
      const value: unknown = JSON.parse(text); // a JSON string is a YAML double-quoted scalar with the same meaning
      return typeof value === 'string' ? { value } : undefined;
    } catch {
      return undefined;
    }
  }
  if (text.startsWith("'")) {
    const m = /^'((?:[^']|'')*)'$/.exec(text);
    return m ? { value: m[1]!.replace(/''/g, "'") } : undefined;
  }
  return plain(text);
}

/** `key: rest` or `key:` (a quoted key too); undefined when the line is not one. */
function keyLine(text: string): { key: string; rest: string; restAt: number } | undefined {
  let key: string;
  let after: number;
  if (text.startsWith('"')) {
    const m = /^"(?:[^"\\]|\\.)*"/.exec(text);
    if (!m) return undefined;
    const parsed = scalar(m[0]);
    if (!parsed || typeof parsed.value !== 'string') return undefined;
    key = parsed.value;
    after = m[0].length;
  } else {
    const colon = text.search(/:( |$)/);
    if (colon <= 0) return undefined;
    const parsed = plain(text.slice(0, colon));
    if (!parsed || typeof parsed.value !== 'string') return undefined;
    key = parsed.value;
    after = colon;
  }
  if (text[after] !== ':') return undefined;
  const rest = text.slice(after + 1);
  if (rest !== '' && !rest.startsWith(' ')) return undefined;
  const trimmed = rest.trim();
  return { key, rest: trimmed, restAt: after + 1 + (rest.length - rest.trimStart().length) };
}

const node = <T extends Scalar | YAMLMap | YAMLSeq>(n: T, start: number, end: number): T => {
  n.range = [start, end, end];
  return n;
};

/**
 * The record (a list item, `  - key: value` and the lines under it) as a sequence of one mapping,
 * with offsets into `text`; undefined when it is not in the simple block style.
 */
export function blockItem(text: string): YAMLSeq | undefined {
  const lines: Array<{ at: number; text: string }> = [];
  for (let at = 0; at < text.length; ) {
    const end = text.indexOf('\n', at);
    const line = text.slice(at, end < 0 ? text.length : end);
    if (!/^\s*(#.*)?$/.test(line)) {
      if (/\s#/.test(line)) return undefined; // a comment after a value (or ` #` in one): the yaml package decides
      lines.push({ at, text: line });
    }
    at = end < 0 ? text.length : end + 1;
  }
  const first = /^( *)- (.*)$/.exec(lines[0]?.text ?? '');
  if (!first) return undefined;
  const column = first[1]!.length + 2;
  const map = node(new YAMLMap(), lines[0]!.at + column, text.length);
  /** The pair whose value is a block under it (`key:` with nothing after), while its lines come. */
  let open: { pair: Pair; indent?: number; kind?: 'seq' | 'map'; block?: YAMLSeq | YAMLMap; keys?: Set<string> } | undefined;
  /** Keys of the record: a repeated one is left to the yaml package, which reports it. */
  const keys = new Set<string>();
  for (const [i, line] of lines.entries()) {
    const indent = i === 0 ? column : line.text.length - line.text.trimStart().length;
    const content = i === 0 ? first[2]! : line.text.slice(indent);
    const at = line.at + indent;
    if (indent === column) {
      if (open && !open.block) return undefined; // `key:` with nothing under it: null, which the yaml package knows best
      open = undefined;
      const kv = keyLine(content);
      if (!kv || keys.has(kv.key)) return undefined;
      keys.add(kv.key);
      const key = node(new Scalar(kv.key), at, at + kv.key.length);
      if (kv.rest === '') {
        const pair = new Pair(key, null);
        map.items.push(pair);
        open = { pair };
        continue;
      }
      const value = scalar(kv.rest);
      if (!value) return undefined;
      map.items.push(new Pair(key, node(new Scalar(value.value), at + kv.restAt, at + kv.restAt + kv.rest.length)));
      continue;
    }
    if (!open || indent <= column) return undefined;
    if (open.indent === undefined) open.indent = indent;
    if (indent !== open.indent) return undefined;
    const item = /^- (.*)$/.exec(content);
    if (item) {
      if (open.kind === 'map') return undefined;
      open.kind = 'seq';
      const value = scalar(item[1]!.trim());
      if (!value) return undefined;
      open.block ??= node(new YAMLSeq(), at, at);
      (open.block as YAMLSeq).items.push(node(new Scalar(value.value), at + 2, at + 2 + item[1]!.trim().length));
    } else {
      if (open.kind === 'seq') return undefined;
      open.kind = 'map';
      const kv = keyLine(content);
      if (!kv || kv.rest === '') return undefined;
      open.keys ??= new Set();
      if (open.keys.has(kv.key)) return undefined;
      open.keys.add(kv.key);
      const value = scalar(kv.rest);
      if (!value) return undefined;
      open.block ??= node(new YAMLMap(), at, at);
      (open.block as YAMLMap).items.push(new Pair(node(new Scalar(kv.key), at, at + kv.key.length), node(new Scalar(value.value), at + kv.restAt, at + kv.restAt + kv.rest.length)));
    }
    open.block.range = [open.block.range![0], at + content.length, at + content.length];
    open.pair.value = open.block;
  }
  if (open && !open.block) return undefined;
  const seq = node(new YAMLSeq(), lines[0]!.at + column - 2, text.length);
  seq.items.push(map);
  return seq;
}
