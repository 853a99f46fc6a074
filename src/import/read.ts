/**
 * Reading an export record by record, streamed (a 100,000-row file never sits in memory), each
 * with the line it starts on so that messages can say `links.csv:7: ...`. The bytes become text
 * in ./decode.ts (encoding), CSV records are read by ./csv.ts (delimiter, quotes).
 */
import { DELIMITERS, normalizeColumn, type Cells, type Delimiter, type Format } from './formats.js';
import { CsvReader, detectDelimiter, MAX_RECORD } from './csv.js';
import { decodedText, InputError } from './decode.js';

export { InputError };

export interface Row {
  line: number;
  cell: Cells;
  /** The record's own text (a CSV row's lines, a JSON element), for a rejects file. */
  raw: string;
  /** Why this record cannot be read (a JSON element without a required field, a stray quote). */
  error?: string;
  /** Where on its line, for a fault of the CSV itself. */
  column?: number;
  hint?: string;
}

export interface ReadOptions {
  /** --encoding, as `encodingOption` names it; undefined: detected. */
  encoding?: string;
  /** --delimiter; undefined: detected from the header. */
  delimiter?: Delimiter;
  /** Given the header's cells, once a read (`csv`: the columns --map leaves out are said). */
  onHeader?: (cells: string[]) => void;
}

/** The cells of a CSV file's header (its first record), for `csv` without --map. */
export async function headerCells(path: string, options: ReadOptions): Promise<string[]> {
  const text = decodedText(path, options.encoding);
  let cells: string[] | undefined;
  try {
    let head: string | undefined;
    let reader: CsvReader | undefined;
    for await (const chunk of text) {
      head ??= chunk;
      reader ??= new CsvReader(options.delimiter ?? detectDelimiter(head), (record) => void (cells ??= record.cells), (fault) => {
        if (!cells) throw new InputError(fault.line, `the header: ${fault.message}`, fault.hint, fault.column);
      });
      reader.push(chunk);
      if (cells) break;
    }
    if (!cells) reader?.end();
  } finally {
    await text.return(undefined);
  }
  return cells ?? [];
}

/** A row as it is read (synchronously: no promise a row, and nothing waits in a buffer). */
export type Visit = (row: Row) => void;

/** Reads every record of the export in order, handing each to `visit`; resolves once the file is read. */
export async function forEachRow(path: string, format: Format, options: ReadOptions, visit: Visit): Promise<void> {
  const text = decodedText(path, options.encoding);
  try {
    const first = await text.next();
    const head = first.done ? '' : first.value;
    if (first.done || !head.trim()) throw new InputError(1, `empty: a ${format.label} export ${format.input === 'json' ? 'is JSON' : 'starts with a header row'}`);
    async function* all(): AsyncGenerator<string> {
      yield head;
      yield* text;
    }
    await (format.input === 'csv' ? csvRows(all(), head, format, options, visit) : jsonRows(all(), format, visit));
  } finally {
    await text.return(undefined); // closes the file when reading stopped early
  }
}

/** The required columns `have` lacks, as words (`long_url, and link or id`), or undefined. */
function missingColumns(format: Format, have: (column: string) => boolean): string | undefined {
  const missing = format.required.filter((set) => !set.some(have));
  return missing.length ? missing.map((set) => set.join(' or ')).join(', and ') : undefined;
}

const shownDelimiter = (d: Delimiter) => (d === '\t' ? 'a tab' : `"${d}"`);

async function csvRows(chunks: AsyncIterable<string>, head: string, format: Format, options: ReadOptions, visit: Visit): Promise<void> {
  if (/^[[{]/.test(head.trimStart())) throw new InputError(1, `not a ${format.label} export: this is JSON, and ${format.name === 'csv' ? '--map reads' : `a ${format.label} export is`} CSV with a header row`);
  const delimiter = options.delimiter ?? detectDelimiter(head);
  /** Each column's place in a record, by its normalized name (the first of two alike). */
  let header: Map<string, number> | undefined;
  const reader = new CsvReader(
    delimiter,
    ({ cells, line, raw }) => {
      if (!header) {
        header = new Map();
        for (const [i, name] of cells.entries()) if (!header.has(normalizeColumn(name))) header.set(normalizeColumn(name), i);
        options.onHeader?.(cells);
        const places = header;
        const missing = missingColumns(format, (c) => places.has(normalizeColumn(c)));
        if (missing) {
          const how = `${options.delimiter ? '' : 'detected, '}--delimiter chooses another`;
          const columns = format.name === 'csv' ? 'as --map names' : `its columns are ${format.columns.join(', ')}`;
          throw new InputError(
            line,
            `not a ${format.label} export: no ${missing} column (${columns}); the header was read as ${cells.length} column${cells.length === 1 ? '' : 's'} separated by ${shownDelimiter(delimiter)} (${how})`,
            `check the export's format and the delimiter: --delimiter ${Object.values(DELIMITERS).join('|')}`,
          );
        }
        return;
      }
      const places = header;
      visit({
        line,
        raw,
        cell: (column) => {
          const at = places.get(normalizeColumn(column));
          return at === undefined ? undefined : cells[at];
        },
      });
    },
    (fault) => {
      if (!header) throw new InputError(fault.line, `the header: ${fault.message}`, fault.hint, fault.column);
      visit({ line: fault.line, column: fault.column, error: fault.message, hint: fault.hint, raw: fault.raw, cell: () => undefined });
    },
  );
  for await (const chunk of chunks) reader.push(chunk);
  reader.end();
  if (!header) throw new InputError(1, `empty: a ${format.label} export starts with a header row`);
}

/** How deep a link's JSON may nest: a link is a flat object; the API client allows answers 64 levels deep. */
const MAX_DEPTH = 64;

/**
 * The link objects of a JSON document, found by a small scanner rather than JSON.parse of the
 * whole file: the elements of a top-level array, or of the `data` array of a top-level object
 * (Kutt's `{total, limit, skip, data: [...]}`), in one document or several (pages appended to one
 * file, or one per line). Each element is parsed on its own, with the line it starts on. The
 * scanner keeps its own stack (no recursion), and an element nested deeper than MAX_DEPTH is a
 * bad row, never parsed.
 */
async function jsonRows(chunks: AsyncIterable<string>, format: Format, visit: Visit): Promise<void> {
  /** Open containers: `{` or `[`, with, for an array inside the top-level object, the key it is under. */
  const stack: Array<{ kind: '{' | '['; key?: string }> = [];
  let line = 1;
  let inString = false;
  let escaped = false;
  let stringText = '';
  let lastKey: string | undefined;
  let documents = 0;
  let lists = 0;
  // The element being captured: its text so far and where it started; `deep` once it nests too deeply (its text is dropped).
  let capture: { parts: string[]; from: number; line: number; depth: number; deep: boolean; size: number } | undefined;
  // A link is a small object: one longer than MAX_RECORD is refused as soon as it is (its text is not kept past it).
  const tooLong = (at: number) => new InputError(at, `the link that starts here is longer than ${MAX_RECORD / (1 << 20)} MiB`, `a ${format.label} link is a small object: check that this is the export of links`);
  const isLinkList = () => {
    const top = stack[stack.length - 1];
    return top?.kind === '[' && (stack.length === 1 || (stack.length === 2 && stack[0]!.kind === '{' && top.key === 'data'));
  };
  for await (const text of chunks) {
    if (capture) capture.from = 0;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i]!;
      if (ch === '\n') line++;
      if (inString) {
        if (escaped) escaped = false;
        else if (ch === '\\') escaped = true;
        else if (ch === '"') inString = false;
        else if (stack.length === 1 && !capture && stringText.length < 256) stringText += ch; // a key of the top-level object: `data` is all that is looked for
        continue;
      }
      if (ch === '"') {
        inString = true;
        stringText = '';
        continue;
      }
      if (ch === ':' && stack.length === 1 && stack[0]!.kind === '{') lastKey = stringText;
      if (ch === '{' || ch === '[') {
        if (!capture && ch === '{' && isLinkList()) capture = { parts: [], from: i, line, depth: stack.length, deep: false, size: 0 };
        if (!stack.length) documents++;
        stack.push({ kind: ch, key: stack.length === 1 && stack[0]!.kind === '{' ? lastKey : undefined });
        if (stack.length > MAX_DEPTH) {
          if (!capture) throw new InputError(line, `not a ${format.label} export: JSON nested more than ${MAX_DEPTH} levels deep`, `a ${format.label} export is a list of flat link objects`);
          if (!capture.deep) {
            capture.deep = true;
            capture.parts = [];
          }
        }
        if (isLinkList()) lists++;
        continue;
      }
      if (ch === '}' || ch === ']') {
        const open = stack.pop();
        if (!open || (open.kind === '{') !== (ch === '}')) throw new InputError(line, `not valid JSON: unexpected ${ch}`);
        if (capture && stack.length === capture.depth) {
          if (capture.deep) {
            visit({ line: capture.line, raw: '', cell: () => undefined, error: `a field of this link is nested more than ${MAX_DEPTH} levels deep (a ${format.label} link is a flat object)` });
          } else {
            capture.parts.push(text.slice(capture.from, i + 1));
            if ((capture.size += i + 1 - capture.from) > MAX_RECORD) throw tooLong(capture.line);
            const raw = capture.parts.join('');
            visit(jsonRow(raw, capture.line, format));
          }
          capture = undefined;
        }
        if (!stack.length) lastKey = undefined;
        continue;
      }
      if (!stack.length && !/\s/.test(ch)) throw new InputError(line, `not valid JSON: expected { or [ ${documents ? 'after the previous document' : 'at the start'}`);
    }
    if (capture && !capture.deep) {
      capture.parts.push(text.slice(capture.from));
      if ((capture.size += text.length - capture.from) > MAX_RECORD) throw tooLong(capture.line);
    }
  }
  if (stack.length || inString) throw new InputError(line, 'not valid JSON: the file ends inside a value');
  if (!documents) throw new InputError(1, `empty: a ${format.label} export is JSON`);
  if (!lists) throw new InputError(1, `not a ${format.label} export: no list of links (expected the answer of Kutt's links API, {"data": [...]}, or a list of links)`);
}

function jsonRow(text: string, line: number, format: Format): Row {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { line, raw: text, cell: () => undefined, error: `not valid JSON: ${(error as Error).message}` };
  }
  const values = new Map<string, string>();
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === null || v === undefined) continue;
    values.set(normalizeColumn(key), typeof v === 'object' ? JSON.stringify(v) : String(v));
  }
  const missing = missingColumns(format, (c) => values.has(normalizeColumn(c)));
  return { line, raw: text, cell: (column) => values.get(normalizeColumn(column)), error: missing ? `no ${missing} (the fields of a ${format.label} link are ${format.columns.join(', ')})` : undefined };
}
