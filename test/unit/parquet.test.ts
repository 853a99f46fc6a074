/**
 * src/history/parquet.ts, the column-at-a-time Parquet writer of `stats export`: random tables of
 * every column type it takes (nulls, negative and large integers, text of any Unicode, a column of
 * one value, dictionary and plain), each written to a file and read back by DuckDB (an
 * independent reader), values and footer statistics compared, the footer byte for byte the one
 * hyparquet-writer writes for the same metadata. And its Snappy (src/history/snappy.ts)
 * against hyparquet's decompressor, on data of every shape.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { FileSchema, NULL_BOOLEAN, parquetFile, type ParquetColumn } from '../../src/history/parquet.js';
import { maxCompressedLength, snappyInto } from '../../src/history/snappy.js';
import { parquetMetadata, snappyUncompress } from 'hyparquet';
import { ByteWriter } from 'hyparquet-writer';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';

interface Connection { runAndReadAll(sql: string): Promise<{ getRowObjectsJson(): Array<Record<string, unknown>> }>; closeSync(): void }
const duckdb = createRequire(import.meta.url)('@duckdb/node-api') as { DuckDBInstance: { create(path: string): Promise<{ connect(): Promise<Connection> }> } };

const MAX = Number.MAX_SAFE_INTEGER;
const int64 = fc.oneof(fc.integer({ min: -5, max: 40 }), fc.integer(), fc.constantFrom(-MAX, MAX, 2 ** 32, -(2 ** 32), 2 ** 32 - 1, -1, 0), fc.double({ min: -MAX, max: MAX, noNaN: true }).map(Math.trunc));
const maybe = <T>(a: fc.Arbitrary<T>, nulls: boolean) => (nulls ? fc.option(a, { nil: null, freq: 3 }) : a);

const table = fc.integer({ min: 1, max: 300 }).chain((rows) =>
  fc.record({
    rows: fc.constant(rows),
    nulls: fc.boolean(),
    dictionary: fc.boolean(),
    oneValue: fc.boolean(),
  }).chain(({ rows, nulls, dictionary, oneValue }) => {
    const column = <T>(a: fc.Arbitrary<T>) => (oneValue ? a.map((v) => Array<T>(rows).fill(v)) : fc.array(a, { minLength: rows, maxLength: rows }));
    return fc.record({
      rows: fc.constant(rows),
      dictionary: fc.constant(dictionary),
      date: column(maybe(fc.integer({ min: -100_000, max: 100_000 }), nulls)),
      n: column(maybe(int64, nulls)),
      t: column(maybe(fc.integer({ min: -(2 ** 40), max: 2 ** 42 }), nulls)),
      b: column(maybe(fc.boolean(), nulls)),
      s: column(maybe(fc.oneof(fc.constantFrom('', 'a', 'Zürich', '東京', 'emoji 🎉', 'a, "quoted"\nline'), fc.string({ unit: 'binary' })), nulls)),
    });
  }),
);

let dir: string;
let connection: Connection;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'linkctl-parquet-'));
  connection = await (await duckdb.DuckDBInstance.create(':memory:')).connect();
});
afterAll(() => {
  connection?.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

describe('parquetFile', () => {
  it('writes files DuckDB reads back value for value, with the footer statistics of the values', async () => {
    const encoder = new TextEncoder();
    let file = 0;
    await fc.assert(
      fc.asyncProperty(table, async ({ rows, dictionary, date, n, t, b, s }) => {
        // the texts in one buffer, each distinct text once, as the export passes them (a dictionary entry each)
        const distinct = [...new Set(s.filter((v): v is string => v !== null))].map((v) => encoder.encode(v));
        const length = Int32Array.from(distinct, (b) => b.length);
        const start = new Int32Array(distinct.length);
        for (let k = 1; k < distinct.length; k++) start[k] = start[k - 1]! + length[k - 1]!;
        const bytes = new Uint8Array(length.reduce((a, b) => a + b, 0));
        distinct.forEach((b, k) => bytes.set(b, start[k]!));
        const numberOf = new Map([...new Set(s.filter((v): v is string => v !== null))].map((v, k) => [v, k]));
        const numbers = (values: Array<number | null>) => Float64Array.from(values, (v) => (v === null ? NaN : v));
        const schema = new FileSchema([
          { name: 'date', type: 'INT32', converted_type: 'DATE' },
          { name: 'n', type: 'INT64' },
          { name: 't', type: 'INT64', converted_type: 'TIMESTAMP_MILLIS', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' } },
          { name: 'b', type: 'BOOLEAN' },
          { name: 's', type: 'BYTE_ARRAY', converted_type: 'UTF8' },
        ], 'test');
        const columns: ParquetColumn[] = [
          { values: numbers(date), dictionary, statistics: true },
          { values: numbers(n), dictionary: !dictionary, statistics: true },
          { values: numbers(t), dictionary, statistics: true },
          { values: Uint8Array.from(b, (v) => (v === null ? NULL_BOOLEAN : v ? 1 : 0)), statistics: true },
          { values: { texts: { bytes, start, length }, ids: Int32Array.from(s, (v) => (v === null ? -1 : numberOf.get(v)!)) }, dictionary },
        ];
        const path = join(dir, `${file++}.parquet`);
        const written = parquetFile(schema, columns, rows);
        writeFileSync(path, written);
        // the footer is the one hyparquet-writer writes for the same metadata (as hyparquet reads it back)
        const footerLength = new DataView(written.buffer, written.byteOffset).getUint32(written.length - 8, true);
        const meta: Partial<ReturnType<typeof parquetMetadata>> = parquetMetadata(written.slice().buffer);
        delete meta.metadata_length;
        const theirs = new ByteWriter();
        writeMetadata(theirs, meta as ReturnType<typeof parquetMetadata>);
        expect(Buffer.from(written.subarray(written.length - 8 - footerLength, written.length)).equals(Buffer.concat([theirs.getBytes(), Buffer.from('PAR1')]))).toBe(true); // (writeMetadata writes the footer's length after it)
        const read = (await connection.runAndReadAll(
          `SELECT CAST(date - DATE '1970-01-01' AS VARCHAR) AS date, CAST(n AS VARCHAR) AS n, CAST(epoch_ms(t) AS VARCHAR) AS t, b, s FROM read_parquet('${path}', file_row_number = true) ORDER BY file_row_number`,
        )).getRowObjectsJson();
        const text = (v: number | null) => (v === null ? null : String(v));
        // a lone surrogate is not UTF-8: TextEncoder writes U+FFFD for it, and that is what comes back
        const decoded = (v: string | null) => (v === null ? null : new TextDecoder().decode(encoder.encode(v)));
        expect(read).toEqual(Array.from({ length: rows }, (_, i) => ({ date: text(date[i] ?? null), n: text(n[i] ?? null), t: text(t[i] ?? null), b: b[i] ?? null, s: decoded(s[i] ?? null) })));

        const stats = Object.fromEntries((await connection.runAndReadAll(`SELECT path_in_schema AS c, stats_min_value AS lo, stats_max_value AS hi, CAST(stats_null_count AS VARCHAR) AS nulls FROM parquet_metadata('${path}')`)).getRowObjectsJson().map((r) => [r.c, r]));
        const present = n.filter((v): v is number => v !== null);
        expect(stats.n).toEqual({ c: 'n', lo: present.length ? String(Math.min(...present)) : null, hi: present.length ? String(Math.max(...present)) : null, nulls: String(rows - present.length) });
        expect(stats.s!.nulls).toBeNull(); // no statistics asked for text
      }),
      { numRuns: 40 },
    );
  }, 60_000);

  it('says which column is short of rows', () => {
    expect(() => parquetFile(new FileSchema([{ name: 'n', type: 'INT64' }], 'test'), [{ values: new Float64Array(2) }], 3)).toThrow(/column n has 2 values for 3 rows/);
  });
});

describe('snappyInto', () => {
  // bytes of every shape: random, runs, repeated phrases (matches near and 60 KB back), across 64 KB blocks
  const noise = (seed: number, n: number) => {
    let x = seed | 1;
    return Uint8Array.from({ length: n }, () => ((x = Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 24));
  };
  const data = fc.oneof(
    fc.uint8Array({ maxLength: 3000 }),
    // noise, then a piece of it again: a copy from up to 60 KB back in the same block
    fc.tuple(fc.integer(), fc.integer({ min: 8, max: 60_000 }), fc.integer({ min: 4, max: 5000 })).map(([seed, distance, again]) => {
      const first = noise(seed, distance);
      return Uint8Array.from([...first, ...first.subarray(0, Math.min(again, distance))]);
    }),
    fc.array(fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 1, max: 300 })), { maxLength: 60 }).map((runs) => Uint8Array.from(runs.flatMap(([b, n]) => Array<number>(n).fill(b)))),
    fc.tuple(fc.array(fc.string({ unit: 'binary', maxLength: 40 }), { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 200_000 })).map(([words, size]) => {
      const text = new TextEncoder().encode(Array.from({ length: Math.ceil(size / 8) }, (_, i) => words[(i * 7919) % words.length]).join(' '));
      return text.subarray(0, size);
    }),
  );
  it('compresses what a Snappy decompressor gives back byte for byte, within Snappy\'s bound, from any offset of its output', () => {
    fc.assert(
      fc.property(data, fc.integer({ min: 0, max: 9 }), (input, at) => {
        const out = new Uint8Array(at + maxCompressedLength(input.length));
        const end = snappyInto(input, out, at);
        expect(end).toBeLessThanOrEqual(out.length);
        const back = new Uint8Array(input.length);
        snappyUncompress(out.subarray(at, end), back);
        expect(Buffer.from(back).equals(Buffer.from(input))).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('compresses repeated text (as a day of short URLs is) to a fraction of it', () => {
    const input = new TextEncoder().encode(Array.from({ length: 2000 }, (_, i) => `https://go.example.invalid/link-${i}`).join(''));
    const out = new Uint8Array(maxCompressedLength(input.length));
    expect(snappyInto(input, out, 0)).toBeLessThan(input.length / 2);
  });
});
