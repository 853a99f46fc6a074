/**
 * Parquet files of a flat table whose columns are known in advance (`stats export`'s tables),
 * written a column at a time from typed arrays.
 *
 * Written here because hyparquet-writer, a general writer (any schema, any JavaScript value), spent
 * 1.3 s of the export's 2.7 s on it (issue 52's profile; its best settings measured: text already
 * UTF-8, required columns, pages unlimited, dictionaries forced, statistics off: 0.6-0.85 s for the
 * encoding alone, where the target left about 0.4 s for building and encoding the rows): a BigInt
 * made and range-checked for every INT64, a string encoded to UTF-8 for every row, a size
 * estimated and a view made for every value, a dictionary tried and thrown away for columns of
 * unique values, Snappy and Thrift through a writer growing a byte at a time. Here numbers come in
 * a Float64Array and are written as 64-bit integers without a BigInt, text comes UTF-8 in one
 * buffer (the caller encodes a link's once, not once a day), the caller says which columns a
 * dictionary suits, and the page headers and footer of this one shape of file are written field by
 * field (./parquet-thrift.ts), Snappy into a buffer kept from page to page (./snappy.ts).
 * hyparquet-writer's RLE/bit-packing (levels, dictionary indexes) and its byte writer are used as
 * they are.
 *
 * The files are what hyparquet-writer wrote for the same columns: one row group, for each column
 * an optional dictionary page (PLAIN) and one DATA_PAGE_V2 (RLE definition levels, then the
 * values: PLAIN, RLE_DICTIONARY, or RLE for booleans), Snappy, statistics (min, max, nulls) where
 * asked. Every column is OPTIONAL.
 */
import { ByteWriter } from 'hyparquet-writer';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { ENCODING, TYPE, dataPageHeader, dictionaryPageHeader, footer, FileSchema, type ChunkMeta, type SchemaColumn } from './parquet-thrift.js';
import { maxCompressedLength, snappyInto } from './snappy.js';

export { FileSchema, type SchemaColumn };

/** A BOOLEAN column's null. */
export const NULL_BOOLEAN = 2;

/**
 * Texts as UTF-8 in one buffer: text k is `bytes[start[k]]` for `length[k]` bytes. One buffer,
 * not an array per text: a day's rows read their texts from a few hundred kilobytes instead of
 * from objects spread over the heap (a cache miss each: the slowest part of a page before).
 */
export interface Texts {
  readonly bytes: Uint8Array;
  readonly start: Int32Array;
  readonly length: Int32Array;
}

/** A text column: each row's text by its number in `texts`, -1 for null. Equal numbers are one dictionary entry. */
export interface TextColumn {
  texts: Texts;
  ids: Int32Array;
}

/**
 * A column's values, one per row:
 * - INT32 and INT64 (dates as days, times as milliseconds): integers in a Float64Array, NaN for null;
 * - BOOLEAN: 0 or 1 in a Uint8Array, NULL_BOOLEAN for null;
 * - BYTE_ARRAY (text): a TextColumn.
 */
export type ColumnValues = Float64Array | Uint8Array | TextColumn;

const rowsOf = (values: ColumnValues) => (values instanceof Float64Array || values instanceof Uint8Array ? values.length : values.ids.length);

export interface ParquetColumn {
  values: ColumnValues;
  /** Dictionary-encode the values (columns of a few distinct values: a day, a count, a name). */
  dictionary?: boolean;
  /** Write min and max (and the nulls) in the footer, for readers that skip files by them. */
  statistics?: boolean;
}

const MAGIC = 0x31524150; // "PAR1"
const TWO_32 = 4294967296;

// Kept from file to file (one export writes hundreds, each a few pages a column): the file being
// written, a page's values, its runs (levels, indexes, booleans) and its compressed bytes. A
// file's bytes are valid until the next file is written.
const out = new ByteWriter(1 << 16);
const runs = new ByteWriter(1 << 12);
const levelRuns = new ByteWriter(1 << 10);
let pageValues = new Uint8Array(1 << 16);
let compressed = new Uint8Array(1 << 16);

/** The buffer kept for a page's values, `size` bytes of it (valid until the next page). */
function valuesBuffer(size: number): Uint8Array {
  if (size > pageValues.length) pageValues = new Uint8Array(Math.max(size, 2 * pageValues.length));
  return pageValues.subarray(0, size);
}

/** A typed array of `n` elements from a buffer kept for it (valid until its next use). */
function kept<T extends Int32Array | Uint8Array>(type: new (n: number) => T): (n: number) => T {
  let buffer = new type(1 << 10);
  return (n) => {
    if (n > buffer.length) buffer = new type(Math.max(n, 2 * buffer.length));
    return buffer.subarray(0, n) as T;
  };
}
const flagsBuffer = kept(Uint8Array);
const bitsBuffer = kept(Uint8Array);
const indexesBuffer = kept(Int32Array);

/** A kept ByteWriter, emptied. */
function emptied(writer: ByteWriter): ByteWriter {
  writer.index = 0;
  writer.offset = 0;
  return writer;
}

/** `page` compressed, in the buffer kept for it (valid until the next page). */
function compress(page: Uint8Array): Uint8Array {
  const room = maxCompressedLength(page.length);
  if (room > compressed.length) compressed = new Uint8Array(Math.max(room, 2 * compressed.length));
  return compressed.subarray(0, snappyInto(page, compressed, 0));
}

/**
 * One Parquet file of `schema` holding `rows` rows of `columns` (in the schema's order), as bytes:
 * valid until the next call (the buffer is reused).
 */
export function parquetFile(schema: FileSchema, columns: readonly ParquetColumn[], rows: number): Uint8Array {
  if (columns.length !== schema.columns.length) throw new Error(`internal: ${columns.length} columns for a schema of ${schema.columns.length}`);
  out.index = 0;
  out.offset = 0;
  out.appendUint32(MAGIC);
  const chunks = columns.map((column, j) => {
    if (rowsOf(column.values) !== rows) throw new Error(`internal: column ${schema.columns[j]!.name} has ${rowsOf(column.values)} values for ${rows} rows`);
    return writeChunk(schema.columns[j]!.type, column, rows);
  });
  const start = out.offset;
  footer(out, schema, rows, chunks);
  out.appendUint32(out.offset - start);
  out.appendUint32(MAGIC);
  return out.getBytes();
}

/** Writes one column chunk: its dictionary page (if any) and its data page. */
function writeChunk(type: SchemaColumn['type'], column: ParquetColumn, n: number): ChunkMeta {
  const { values } = column;
  const start = out.offset;
  const present = presence(type, values);
  const nonNull = present.count;

  let encoding: number;
  let page: Uint8Array;
  let dictionaryPageOffset: number | undefined;
  let uncompressed = 0;
  const pages: ChunkMeta['pages'] = [];
  const encodings: number[] = [];
  if (type === 'BOOLEAN') {
    // RLE, as hyparquet-writer and other writers write booleans: a length, then runs and bit-packed groups
    const bits = bitsBuffer(nonNull);
    const v = values as Uint8Array;
    for (let i = 0, j = 0; i < n; i++) if (v[i] !== NULL_BOOLEAN) bits[j++] = v[i]!;
    const rle = emptied(runs);
    rle.appendUint32(0); // the runs' length, once known
    writeRleBitPackedHybrid(rle, bits, 1);
    rle.view.setUint32(0, rle.offset - 4, true);
    page = rle.getBytes();
    encoding = ENCODING.RLE;
  } else if (column.dictionary) {
    const { dictionary, indexes } = type === 'BYTE_ARRAY' ? textDictionary((values as TextColumn).ids, nonNull) : numberDictionary(values as Float64Array, nonNull);
    dictionaryPageOffset = out.offset;
    const plain = type === 'BYTE_ARRAY' ? plainText({ texts: (values as TextColumn).texts, ids: Int32Array.from(dictionary) }, dictionary.length) : plainNumbers(type, Float64Array.from(dictionary), dictionary.length);
    const packed = compress(plain);
    const headerStart = out.offset;
    dictionaryPageHeader(out, plain.length, packed.length, dictionary.length);
    uncompressed += out.offset - headerStart + plain.length;
    out.appendBytes(packed);
    encodings.push(ENCODING.PLAIN);
    pages.push([2, ENCODING.PLAIN]);
    // the indexes: their bit width in a byte, then runs and bit-packed groups
    const bitWidth = dictionary.length > 1 ? 32 - Math.clz32(dictionary.length - 1) : 0;
    const rle = emptied(runs);
    rle.appendUint8(bitWidth);
    writeRleBitPackedHybrid(rle, indexes, bitWidth);
    page = rle.getBytes();
    encoding = ENCODING.RLE_DICTIONARY;
  } else {
    page = type === 'BYTE_ARRAY' ? plainText(values as TextColumn, nonNull) : plainNumbers(type, values as Float64Array, nonNull);
    encoding = ENCODING.PLAIN;
  }
  encodings.push(encoding);
  pages.push([3, encoding]);

  // the data page: definition levels (not compressed in a v2 page), then the values, compressed
  const levels = definitionLevels(present, n);
  const packed = compress(page);
  const dataPageOffset = out.offset;
  const headerStart = out.offset;
  dataPageHeader(out, levels.length + page.length, levels.length + packed.length, { values: n, nulls: n - nonNull, rows: n, encoding, levelsLength: levels.length });
  uncompressed += out.offset - headerStart + levels.length + page.length;
  out.appendBytes(levels);
  out.appendBytes(packed);

  return {
    type: TYPE[type],
    encodings,
    numValues: n,
    uncompressed,
    compressed: out.offset - start,
    fileOffset: start,
    dataPageOffset,
    dictionaryPageOffset,
    statistics: column.statistics ? statistics(type, values, n - nonNull) : undefined,
    pages,
  };
}

interface Presence {
  /** 1 where a row has a value; undefined: every row has one. */
  flags?: Uint8Array;
  count: number;
}

function presence(type: string, values: ColumnValues): Presence {
  // 1 where row i has a value, in a loop of its own for each kind of column (no call a row)
  const n = rowsOf(values);
  const flags = flagsBuffer(n);
  let count = 0;
  if (type === 'BOOLEAN') {
    const v = values as Uint8Array;
    for (let i = 0; i < n; i++) count += flags[i] = v[i] === NULL_BOOLEAN ? 0 : 1;
  } else if (type === 'BYTE_ARRAY') {
    const ids = (values as TextColumn).ids;
    for (let i = 0; i < n; i++) count += flags[i] = ids[i]! < 0 ? 0 : 1;
  } else {
    const v = values as Float64Array;
    for (let i = 0; i < n; i++) count += flags[i] = Number.isNaN(v[i]) ? 0 : 1;
  }
  return count === n ? { count } : { flags, count };
}

/** The definition levels (0: null, 1: a value) as RLE/bit-packed runs of width 1. */
function definitionLevels(present: Presence, n: number): Uint8Array {
  const levels = emptied(levelRuns);
  if (present.flags) writeRleBitPackedHybrid(levels, present.flags, 1);
  else if (n > 0) {
    // one run of n ones
    levels.appendVarInt(n << 1);
    levels.appendUint8(1);
  }
  return levels.getBytes();
}

/** Numbers (NaN: none) as PLAIN INT32 or INT64, little-endian, nulls left out. */
function plainNumbers(type: SchemaColumn['type'], values: Float64Array, nonNull: number, bytes = valuesBuffer(nonNull * (type === 'INT32' ? 4 : 8))): Uint8Array {
  const size = type === 'INT32' ? 4 : 8;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  let o = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (Number.isNaN(v)) continue;
    if (!Number.isSafeInteger(v)) throw new Error(`internal: ${v} is not an integer Parquet can hold exactly`);
    if (size === 4) view.setInt32(o, v, true);
    else {
      // the two 32-bit halves of a safe integer, two's complement: no BigInt per value
      const high = Math.floor(v / TWO_32);
      view.setUint32(o, v - high * TWO_32, true);
      view.setInt32(o + 4, high, true);
    }
    o += size;
  }
  return bytes;
}

/** Texts as PLAIN BYTE_ARRAY: each a 4-byte length and its bytes, nulls left out. */
function plainText({ texts, ids }: TextColumn, nonNull: number): Uint8Array {
  const { bytes: from, start, length } = texts;
  let size = 4 * nonNull;
  for (let i = 0; i < ids.length; i++) if (ids[i]! >= 0) size += length[ids[i]!]!;
  const bytes = valuesBuffer(size);
  let o = 0;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if (id < 0) continue;
    const l = length[id]!;
    bytes[o] = l & 0xff;
    bytes[o + 1] = (l >>> 8) & 0xff;
    bytes[o + 2] = (l >>> 16) & 0xff;
    bytes[o + 3] = l >>> 24;
    o += 4;
    // a short text byte by byte (set() has a cost of its own per call), a long one at once
    const s = start[id]!;
    if (l > 64) bytes.set(from.subarray(s, s + l), o);
    else for (let k = 0; k < l; k++) bytes[o + k] = from[s + k]!;
    o += l;
  }
  return bytes;
}

function numberDictionary(values: Float64Array, nonNull: number): { dictionary: number[]; indexes: Int32Array } {
  const dictionary: number[] = [];
  const index = new Map<number, number>();
  const indexes = indexesBuffer(nonNull);
  let j = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (Number.isNaN(v)) continue;
    let k = index.get(v);
    if (k === undefined) {
      index.set(v, (k = dictionary.length));
      dictionary.push(v);
    }
    indexes[j++] = k;
  }
  return { dictionary, indexes };
}

/** The distinct text numbers in first-seen order, and each non-null row's index among them. */
function textDictionary(ids: Int32Array, nonNull: number): { dictionary: number[]; indexes: Int32Array } {
  const dictionary: number[] = [];
  const index = new Map<number, number>();
  const indexes = indexesBuffer(nonNull);
  let j = 0;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if (id < 0) continue;
    let k = index.get(id);
    if (k === undefined) {
      index.set(id, (k = dictionary.length));
      dictionary.push(id);
    }
    indexes[j++] = k;
  }
  return { dictionary, indexes };
}

/** Min, max (little-endian, as the column's type) and the count of nulls. */
function statistics(type: SchemaColumn['type'], values: ColumnValues, nulls: number): NonNullable<ChunkMeta['statistics']> {
  if (type === 'BYTE_ARRAY') return { nulls }; // min and max of text: not asked for (see docs/warehouse.md)
  const numbers = values as Float64Array | Uint8Array;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < numbers.length; i++) {
    const v = numbers[i]!;
    if (type === 'BOOLEAN' ? v === NULL_BOOLEAN : Number.isNaN(v)) continue;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  if (min > max) return { nulls }; // every value null: no bounds
  if (type === 'BOOLEAN') return { nulls, min: Uint8Array.of(min), max: Uint8Array.of(max) };
  const bound = (v: number) => plainNumbers(type, Float64Array.of(v), 1, new Uint8Array(type === 'INT32' ? 4 : 8));
  return { nulls, min: bound(min), max: bound(max) };
}
