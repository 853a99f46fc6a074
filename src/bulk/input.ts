/**
 * Reading a bulk input: CSV with a header row, NDJSON, or a JSON array, streamed record by record
 * with the line each came from (the position in the array for JSON), so that messages can say
 * `links.csv:4: ...` and a 100,000-row file never sits in memory (CSV and NDJSON).
 */
import { createHash } from 'node:crypto';
import { createReadStream, openSync, readSync, closeSync, createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { extname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { UsageError } from '../errors.js';
import type { InStream } from '../io.js';
import type { BulkFormat } from '../commands/shared/define.js';

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
}

const EXTENSIONS: Record<string, BulkFormat> = { '.csv': 'csv', '.ndjson': 'ndjson', '.jsonl': 'ndjson', '.json': 'json' };

/** stdin is copied to a file first: it is read twice (validation, then execution) and hashed. */
export async function spoolStdin(stdin: InStream, dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `stdin-${process.pid}-${Date.now()}.tmp`);
  await pipeline(Readable.from(stdin as AsyncIterable<Buffer | string>), createWriteStream(path, { mode: 0o600 }));
  return path;
}

export function openInput(label: string, path: string, given: BulkFormat | undefined): InputFile {
  let head = '';
  try {
    const fd = openSync(path, 'r');
    const buffer = Buffer.alloc(4096);
    const n = readSync(fd, buffer, 0, buffer.length, 0);
    closeSync(fd);
    head = buffer.subarray(0, n).toString('utf8');
  } catch (error) {
    throw new UsageError(`--from: cannot read ${label} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, 'check the path and that the file can be read; - reads stdin');
  }
  // The extension decides; without a known one, the first character (`[` JSON, `{` NDJSON, else CSV).
  const first = head.replace(/^\uFEFF/, '').trimStart()[0];
  const format = given ?? EXTENSIONS[extname(label).toLowerCase()] ?? (first === '[' ? 'json' : first === '{' ? 'ndjson' : 'csv');
  return { label: label === '-' ? 'stdin' : label, path, format };
}

export async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * The records of the input. `known` are the column names; `bare` is the one column a CSV without
 * a header may hold (ids piped from `list -q` into a delete).
 */
export async function* readRows(input: InputFile, known: string[], bare?: string): AsyncGenerator<RawRow> {
  if (input.format === 'csv') yield* csvRows(input, known, bare);
  else if (input.format === 'ndjson') yield* ndjsonRows(input, known);
  else yield* jsonRows(input, known);
}

function unknownKeys(values: Record<string, unknown>, known: string[]): string | undefined {
  const unknown = Object.keys(values).filter((k) => !known.includes(k));
  return unknown.length ? `unknown column${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `"${k}"`).join(', ')}; the columns are ${known.join(', ')}` : undefined;
}

async function* csvRows(input: InputFile, known: string[], bare?: string): AsyncGenerator<RawRow> {
  const { parse } = await import('csv-parse');
  const parser = createReadStream(input.path).pipe(parse({ bom: true, skip_empty_lines: true, info: true, relax_column_count: true }));
  let header: string[] | undefined;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      const line = info.lines;
      if (!header) {
        const names = record.map((c) => c.trim());
        if (names.every((n) => known.includes(n))) {
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
    const e = error as { lines?: number; message?: string };
    throw new UsageError(`${input.label}:${e.lines ?? '?'}: not valid CSV: ${e.message ?? String(error)}`, 'a header row naming the columns, then one record a line; quote a field that holds a comma');
  }
}

function objectRow(line: number, value: unknown, known: string[]): RawRow {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { line, values: {}, error: 'a record must be a JSON object of columns' };
  const values = Object.fromEntries(Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== null && v !== undefined && v !== ''));
  const error = unknownKeys(values, known);
  return error ? { line, values, error } : { line, values };
}

async function* ndjsonRows(input: InputFile, known: string[]): AsyncGenerator<RawRow> {
  const lines = createInterface({ input: createReadStream(input.path), crlfDelay: Infinity });
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
