/**
 * Reading a bulk input: CSV with a header row, NDJSON, or a JSON array, streamed record by record
 * with the line each came from (the position in the array for JSON), so that messages can say
 * `links.csv:4: ...` and a 100,000-row file never sits in memory (CSV and NDJSON).
 */
import { createHash } from 'node:crypto';
import { createReadStream, fstatSync, openSync, readSync, closeSync, createWriteStream, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { extname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { UsageError } from '../errors.js';
import type { InStream } from '../io.js';
import type { BulkFormat } from '../commands/shared/define.js';
import { writeError } from '../files/access.js';
import { privateTempPath } from '../files/temp.js';

export interface RawRow {
  /** Line of the file (CSV, NDJSON) or position in the array (JSON), from 1. */
  line: number;
  values: Record<string, unknown>;
  /** Why the record itself cannot be read (bad JSON, too many cells). */
  error?: string;
}

export interface InputFile {
  /** What messages call it: the name as given, or `stdin`. */
  label: string;
  path: string;
  format: BulkFormat;
  /** Its size in bytes when opened. */
  bytes: number;
}

const EXTENSIONS: Record<string, BulkFormat> = { '.csv': 'csv', '.ndjson': 'ndjson', '.jsonl': 'ndjson', '.json': 'json' };

/** stdin is copied to a file first: it is read twice (validation, then execution) and hashed. */
export async function spoolStdin(stdin: InStream, dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Created exclusively under a name nobody can guess: nothing planted there in advance is written through.
  const path = privateTempPath(dir, 'stdin');
  try {
    await pipeline(Readable.from(stdin as AsyncIterable<Buffer | string>), createWriteStream(path, { flags: 'wx', mode: 0o600 }));
  } catch (error) {
    rmSync(path, { force: true }); // a part copied (a full disk, a broken pipe) is not left behind
    throw writeError(error, '--from -', path);
  }
  return path;
}

export function openInput(label: string, path: string, given: BulkFormat | undefined): InputFile {
  let head = '';
  let bytes = 0;
  try {
    const fd = openSync(path, 'r');
    const buffer = Buffer.alloc(4096);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    bytes = fstatSync(fd).size;
    closeSync(fd);
    head = buffer.subarray(0, n).toString('utf8');
  } catch (error) {
    throw new UsageError(`--from: cannot read ${label} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, 'check the path and that the file can be read; - reads stdin');
  }
  // The extension decides; without a known one, the first character (`[` JSON, `{` NDJSON, else CSV).
  const first = head.replace(/^\uFEFF/, '').trimStart()[0];
  const format = given ?? EXTENSIONS[extname(label).toLowerCase()] ?? (first === '[' ? 'json' : first === '{' ? 'ndjson' : 'csv');
  return { label: label === '-' ? 'stdin' : label, path, format, bytes };
}

export async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * How much of the file the rows being sent are read (and parsed) at a time: a run's first row is
 * sent once its chunk is parsed, and a 64 KB chunk (the stream's default) of short rows is a
 * thousand records parsed before it (12 ms of a 400-row `link add --from`, issue 52); the rest is
 * read while requests are out.
 */
const SENDING_CHUNK = 4096;

/**
 * The records of the input. `known` are the column names; `bare` is the one column a CSV without
 * a header may hold (ids piped from `list -q` into a delete). `sending`: the rows are sent as
 * they come (read in small chunks); otherwise (checking the whole file) in the stream's own.
 */
export async function* readRows(input: InputFile, known: string[], bare?: string, sending = false): AsyncGenerator<RawRow> {
  const chunk = sending ? SENDING_CHUNK : undefined;
  if (input.format === 'csv') yield* csvRows(input, known, bare, chunk);
  else if (input.format === 'ndjson') yield* ndjsonRows(input, known, chunk);
  else yield* jsonRows(input, known);
}

function unknownKeys(values: Record<string, unknown>, known: string[]): string | undefined {
  const unknown = Object.keys(values).filter((k) => !known.includes(k));
  return unknown.length ? `unknown column${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}; the columns are ${known.join(', ')}` : undefined;
}

async function* csvRows(input: InputFile, known: string[], bare?: string, chunk?: number): AsyncGenerator<RawRow> {
  const { parse } = await import('csv-parse');
  const source = createReadStream(input.path, { highWaterMark: chunk });
  const lines = new LineStarts(source);
  const parser = source.pipe(parse({ bom: true, skip_empty_lines: true, info: true, relax_column_count: true }));
  let header: string[] | undefined;
  let consumed = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { bytes: number } }>) {
      // The line the record starts on, counted here: csv-parse counts a CRLF inside quotes as two lines.
      const line = lines.lineAt(consumed);
      consumed = info.bytes;
      if (!header) {
        const names = record.map((c) => c.trim());
        if (names.every((n) => known.includes(n))) {
          const twice = [...new Set(names.filter((n, i) => names.indexOf(n) !== i))];
          if (twice.length) throw new UsageError(`${input.label}:${line}: the header names ${twice.map((n) => `"${n}"`).join(', ')} more than once; each column once`, 'remove the repeated column (which of the cells would count is not for linkctl to guess)');
          header = names;
          continue;
        }
        if (bare && names.length === 1) header = [bare]; // no header: the one column, and this is its first value
        else throw new UsageError(`${input.label}:${line}: ${unknownKeys(Object.fromEntries(names.map((n) => [n, ''])), known)} (the first line must name them)`, 'the columns are listed under "Bulk input" in the command\'s --help');
      }
      if (record.length > header.length) {
        yield { line, values: {}, error: `${record.length} cells, but the header names ${header.length} columns` };
        continue;
      }
      const values: Record<string, unknown> = {};
      header.forEach((name, i) => {
        const cell = record[i];
        if (cell !== undefined && cell !== '') values[name] = cell;
      });
      yield { line, values };
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const e = error as { message?: string };
    throw new UsageError(`${input.label}:${lines.lineAt(consumed)}: not valid CSV: ${e.message ?? String(error)}`, 'a header row naming the columns, then one record a line; quote a field that holds a comma');
  }
}

/**
 * Where the file's non-blank lines start, read from the same stream the parser reads (it sees each
 * chunk first), so that a record's byte offset gives the physical line it starts on. Offsets the
 * parser has passed are dropped: the list holds at most the few chunks read ahead.
 */
class LineStarts {
  private starts: Array<[offset: number, line: number]> = [];
  private head = 0;
  private offset = 0;
  private line = 1;
  /** The current line has only "\r" so far (a blank line is skipped by the parser). */
  private blank = true;

  constructor(source: NodeJS.ReadableStream) {
    source.on('data', (chunk: Buffer) => this.scan(chunk));
  }

  private scan(chunk: Buffer): void {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (byte === 0x0a) {
        this.line++;
        this.blank = true;
      } else if (this.blank && byte !== 0x0d) {
        this.blank = false;
        this.starts.push([this.offset + i, this.line]);
        // the rest of the line: straight to its end
        const end = chunk.indexOf(0x0a, i + 1);
        if (end === -1) break;
        i = end - 1;
      }
    }
    this.offset += chunk.length;
  }

  /** The line of the first non-blank line starting at or after `offset`. */
  lineAt(offset: number): number {
    while (this.head < this.starts.length - 1 && this.starts[this.head]![0] < offset) this.head++;
    if (this.head > 1024) {
      this.starts = this.starts.slice(this.head);
      this.head = 0;
    }
    const start = this.starts[this.head];
    return start && start[0] >= offset ? start[1] : this.line;
  }
}

function objectRow(line: number, value: unknown, known: string[]): RawRow {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { line, values: {}, error: 'a record must be a JSON object of columns' };
  const values = Object.fromEntries(Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== null && v !== undefined && v !== ''));
  const error = unknownKeys(values, known);
  return error ? { line, values, error } : { line, values };
}

async function* ndjsonRows(input: InputFile, known: string[], chunk?: number): AsyncGenerator<RawRow> {
  const lines = createInterface({ input: createReadStream(input.path, { highWaterMark: chunk }), crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line++;
    const trimmed = (line === 1 ? text.replace(/^\uFEFF/, '') : text).trim();
    if (!trimmed) continue;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      yield { line, values: {}, error: 'not valid JSON' };
      continue;
    }
    yield objectRow(line, value, known);
  }
}

async function* jsonRows(input: InputFile, known: string[]): AsyncGenerator<RawRow> {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(input.path, 'utf8').replace(/^\uFEFF/, ''));
  } catch {
    throw new UsageError(`${input.label}: not valid JSON (a JSON array of objects is expected)`, 'a JSON array of objects, or NDJSON (one object a line, in a .ndjson file or with --from-format ndjson)');
  }
  if (!Array.isArray(value)) throw new UsageError(`${input.label}: a JSON array of objects is expected`, 'e.g. [{"url": "https://example.com"}], or NDJSON: one object a line');
  for (let i = 0; i < value.length; i++) yield objectRow(i + 1, value[i], known);
}
