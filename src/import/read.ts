/**
 * Reading an export record by record, streamed (a 100,000-row file never sits in memory), each
 * with the line it starts on so that messages can say `links.csv:7: ...`.
 */
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { normalizeColumn, type Cells, type Format } from './formats.js';

export interface Row {
  line: number;
  cell: Cells;
  /** Why this record cannot be read (a JSON element without a required field). */
  error?: string;
}

/** A fault of the input as a whole (not a CSV/JSON file, missing columns): `file:line: message`. */
export class InputError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
  }
}

/** A row as it is read (synchronously: no promise a row, and nothing waits in a buffer). */
export type Visit = (row: Row) => void;

/** Reads every record of the export in order, handing each to `visit`; resolves once the file is read. */
export function forEachRow(path: string, format: Format, visit: Visit): Promise<void> {
  return format.input === 'csv' ? csvRows(path, format, visit) : jsonRows(path, format, visit);
}

/** The required columns `have` lacks, as words (`long_url, and link or id`), or undefined. */
function missingColumns(format: Format, have: (column: string) => boolean): string | undefined {
  const missing = format.required.filter((set) => !set.some(have));
  return missing.length ? missing.map((set) => set.join(' or ')).join(', and ') : undefined;
}

function checkColumns(format: Format, have: Set<string>, line: number): void {
  const missing = missingColumns(format, (c) => have.has(normalizeColumn(c)));
  if (missing) throw new InputError(line, `not a ${format.label} export: no ${missing} column (${format.name === 'csv' ? 'as --map names' : `its columns are ${format.columns.join(', ')}`})`);
}

/** The file's first characters, to tell JSON from CSV before either parser complains in its own words. */
function head(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(256);
    return buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)).toString('utf8').replace(/^\uFEFF/, '').trimStart();
  } finally {
    closeSync(fd);
  }
}

async function csvRows(path: string, format: Format, visit: Visit): Promise<void> {
  if (/^[[{]/.test(head(path))) throw new InputError(1, `not a ${format.label} export: this is JSON, and ${format.name === 'csv' ? '--map reads' : `a ${format.label} export is`} CSV with a header row`);
  const { parse } = await import('csv-parse');
  /** Each column's place in a record, by its normalized name (the first of two alike). */
  let header: Map<string, number> | undefined;
  let line = 1;
  const record = (cells: string[], raw: string) => {
    const start = line;
    // raw: the record's own text, to count the lines it spans (a quoted cell may hold line breaks).
    line += (raw.endsWith('\n') ? raw.slice(0, -1) : raw).split('\n').length;
    if (cells.length === 1 && cells[0]!.trim() === '') return; // an empty line
    if (!header) {
      header = new Map();
      for (const [i, name] of cells.entries()) if (!header.has(normalizeColumn(name))) header.set(normalizeColumn(name), i);
      checkColumns(format, new Set(header.keys()), start);
      return;
    }
    const places = header;
    visit({
      line: start,
      cell: (column) => {
        const at = places.get(normalizeColumn(column));
        return at === undefined ? undefined : cells[at];
      },
    });
  };
  await new Promise<void>((resolve, reject) => {
    const input = createReadStream(path, { highWaterMark: 16 * 1024 });
    const parser = parse({ bom: true, raw: true, relax_column_count: true });
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      input.destroy();
      parser.destroy();
      reject(error);
    };
    // Records are handled as the parser makes them, in its own turn: none waits in a buffer.
    parser.on('data', ({ record: cells, raw }: { record: string[]; raw: string }) => {
      if (failed) return;
      try {
        record(cells, raw);
      } catch (error) {
        fail(error); // the header's fault (InputError), or a bug, as it is
      }
    });
    parser.once('error', (error: Error & { lines?: number }) => fail(new InputError(error.lines ?? line, `not valid CSV: ${error.message}`)));
    input.once('error', fail);
    parser.once('end', () => resolve());
    input.pipe(parser);
  });
  if (!header) throw new InputError(1, `empty: a ${format.label} export starts with a header row`);
}

/**
 * The link objects of a JSON document, found by a small scanner rather than JSON.parse of the
 * whole file: the elements of a top-level array, or of the `data` array of a top-level object
 * (Kutt's `{total, limit, skip, data: [...]}`), in one document or several (pages appended to one
 * file, or one per line). Each element is parsed on its own, with the line it starts on.
 */
async function jsonRows(path: string, format: Format, visit: Visit): Promise<void> {
  /** Open containers: `{` or `[`, with, for an array inside the top-level object, the key it is under. */
  const stack: Array<{ kind: '{' | '['; key?: string }> = [];
  let line = 1;
  let inString = false;
  let escaped = false;
  let stringText = '';
  let lastKey: string | undefined;
  let documents = 0;
  let lists = 0;
  // The element being captured: its text so far and where it started.
  let capture: { parts: string[]; from: number; line: number; depth: number } | undefined;
  const isLinkList = () => {
    const top = stack[stack.length - 1];
    return top?.kind === '[' && (stack.length === 1 || (stack.length === 2 && stack[0]!.kind === '{' && top.key === 'data'));
  };
  for await (const chunk of createReadStream(path, { encoding: 'utf8' }) as AsyncIterable<string>) {
    const text = documents === 0 && line === 1 && !stack.length ? chunk.replace(/^\uFEFF/, '') : chunk;
    if (capture) capture.from = 0;
    for (let i = 0; i < text.length; i++) {
      const ch = text[i]!;
      if (ch === '\n') line++;
      if (inString) {
        if (escaped) escaped = false;
        else if (ch === '\\') escaped = true;
        else if (ch === '"') inString = false;
        else if (stack.length === 1 && !capture) stringText += ch;
        continue;
      }
      if (ch === '"') {
        inString = true;
        stringText = '';
        continue;
      }
      if (ch === ':' && stack.length === 1 && stack[0]!.kind === '{') lastKey = stringText;
      if (ch === '{' || ch === '[') {
        if (!capture && ch === '{' && isLinkList()) capture = { parts: [], from: i, line, depth: stack.length };
        if (!stack.length) documents++;
        stack.push({ kind: ch, key: stack.length === 1 && stack[0]!.kind === '{' ? lastKey : undefined });
        if (isLinkList()) lists++;
        continue;
      }
      if (ch === '}' || ch === ']') {
        const open = stack.pop();
        if (!open || (open.kind === '{') !== (ch === '}')) throw new InputError(line, `not valid JSON: unexpected ${ch}`);
        if (capture && stack.length === capture.depth) {
          capture.parts.push(text.slice(capture.from, i + 1));
          visit(jsonRow(capture.parts.join(''), capture.line, format));
          capture = undefined;
        }
        if (!stack.length) lastKey = undefined;
        continue;
      }
      if (!stack.length && !/\s/.test(ch)) throw new InputError(line, `not valid JSON: expected { or [ ${documents ? 'after the previous document' : 'at the start'}`);
    }
    if (capture) capture.parts.push(text.slice(capture.from));
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
    throw new InputError(line, `not valid JSON: ${(error as Error).message}`);
  }
  const values = new Map<string, string>();
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (v === null || v === undefined) continue;
    values.set(normalizeColumn(key), typeof v === 'object' ? JSON.stringify(v) : String(v));
  }
  const missing = missingColumns(format, (c) => values.has(normalizeColumn(c)));
  return { line, cell: (column) => values.get(normalizeColumn(column)), error: missing ? `no ${missing} (the fields of a ${format.label} link are ${format.columns.join(', ')})` : undefined };
}
