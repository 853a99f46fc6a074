/**
 * The Thrift (compact protocol) parts of the Parquet files parquet.ts writes: page headers and the
 * footer, for its one shape of file (flat OPTIONAL columns, one row group, SNAPPY). The fields and
 * their ids are those of parquet-format's parquet.thrift, written as hyparquet-writer's
 * `writeMetadata` and `writePageHeader` write them; written here field by field because those
 * build a JavaScript object per struct and find each field's id and type from its key and value
 * (`Object.entries`, a regular expression, `parseInt`), which was an eighth of `stats export`'s
 * run for the 728 footers and 9,000 page headers of a year (issue 52's profile). The schema, the
 * same in every file of a table, is encoded once (`FileSchema`).
 */
import { ByteWriter } from 'hyparquet-writer';

// compact protocol types
const TRUE = 1;
const FALSE = 2;
const I32 = 5;
const I64 = 6;
const BINARY = 8;
const LIST = 9;
const STRUCT = 12;

// parquet.thrift's enums, by their number
export const TYPE = { BOOLEAN: 0, INT32: 1, INT64: 2, BYTE_ARRAY: 6 } as const;
export const ENCODING = { PLAIN: 0, RLE: 3, RLE_DICTIONARY: 8 } as const;
const CONVERTED = { UTF8: 0, DATE: 6, TIMESTAMP_MILLIS: 9 } as const;
const PAGE = { DICTIONARY_PAGE: 2, DATA_PAGE_V2: 3 } as const;
const OPTIONAL = 1;
const SNAPPY = 1;

/** A column of the schema as parquet.ts takes it. */
export interface SchemaColumn {
  name: string;
  type: keyof typeof TYPE;
  converted_type?: keyof typeof CONVERTED;
  /** Only TIMESTAMP in milliseconds, adjusted to UTC, is written (the export's times). */
  logical_type?: { type: 'TIMESTAMP'; isAdjustedToUTC: boolean; unit: 'MILLIS' };
}

/** Writes compact-protocol fields into a ByteWriter, keeping each open struct's last field id. */
class Compact {
  private last = 0;
  private readonly outer: number[] = [];
  constructor(readonly out: ByteWriter) {}

  private header(id: number, type: number): void {
    const delta = id - this.last;
    if (delta > 0 && delta <= 15) this.out.appendUint8((delta << 4) | type);
    else {
      this.out.appendUint8(type);
      this.varint(id * 2); // zigzag of a positive i16
    }
    this.last = id;
  }
  /** An unsigned varint of a number up to 2^53 (no BigInt). */
  varint(v: number): void {
    while (v >= 0x80) {
      this.out.appendUint8((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    this.out.appendUint8(v);
  }
  private zigzag(v: number): void {
    this.varint(v >= 0 ? v * 2 : -v * 2 - 1);
  }
  i32(id: number, v: number): void {
    this.header(id, I32);
    this.zigzag(v);
  }
  i64(id: number, v: number): void {
    this.header(id, I64);
    this.zigzag(v);
  }
  bool(id: number, v: boolean): void {
    this.header(id, v ? TRUE : FALSE);
  }
  binary(id: number, bytes: Uint8Array): void {
    this.header(id, BINARY);
    this.varint(bytes.length);
    this.out.appendBytes(bytes);
  }
  /** A field holding a list of `size` elements of `type` (its elements follow). */
  list(id: number, type: number, size: number): void {
    this.header(id, LIST);
    if (size < 15) this.out.appendUint8((size << 4) | type);
    else {
      this.out.appendUint8(0xf0 | type);
      this.varint(size);
    }
  }
  /** A struct field (id > 0) or a struct element of a list (id 0): its fields follow, then end(). */
  begin(id = 0): void {
    if (id) this.header(id, STRUCT);
    this.outer.push(this.last);
    this.last = 0;
  }
  end(): void {
    this.out.appendUint8(0);
    this.last = this.outer.pop()!;
  }
  /** Bytes encoded before, at this point of the struct being written, its last field id then `last`. */
  raw(bytes: Uint8Array, last: number): void {
    this.out.appendBytes(bytes);
    this.last = last;
  }
}

const utf8 = new TextEncoder();

/** A table's schema, encoded once: the footer's field 2 and what each column's metadata repeats. */
export class FileSchema {
  /** The footer's version (field 1) and schema (field 2), encoded. */
  readonly head: Uint8Array;
  readonly names: Uint8Array[];
  /** The footer's created_by. */
  readonly createdBy: Uint8Array;
  constructor(readonly columns: readonly SchemaColumn[], createdBy: string) {
    this.createdBy = utf8.encode(createdBy);
    const out = new ByteWriter(256);
    const t = new Compact(out);
    t.i32(1, 2); // version
    t.list(2, STRUCT, columns.length + 1);
    t.begin();
    t.binary(4, utf8.encode('root'));
    t.i32(5, columns.length);
    t.end();
    for (const c of columns) {
      t.begin();
      t.i32(1, TYPE[c.type]);
      t.i32(3, OPTIONAL);
      t.binary(4, utf8.encode(c.name));
      if (c.converted_type) t.i32(6, CONVERTED[c.converted_type]);
      if (c.logical_type) {
        t.begin(10); // LogicalType
        t.begin(8); // TIMESTAMP
        t.bool(1, c.logical_type.isAdjustedToUTC);
        t.begin(2); // TimeUnit
        t.begin(1); // MILLIS
        t.end();
        t.end();
        t.end();
        t.end();
      }
      t.end();
    }
    this.head = out.getBytes().slice();
    this.names = columns.map((c) => utf8.encode(c.name));
  }
}

/** What the footer says of one column chunk. */
export interface ChunkMeta {
  type: number;
  /** The encodings of its pages, as parquet.thrift numbers them (dictionary first). */
  encodings: number[];
  numValues: number;
  uncompressed: number;
  compressed: number;
  fileOffset: number;
  dataPageOffset: number;
  dictionaryPageOffset?: number;
  statistics?: { nulls: number; min?: Uint8Array; max?: Uint8Array };
  /** Its pages: [page type, encoding]. */
  pages: Array<[number, number]>;
}

/** A DICTIONARY_PAGE's header. */
export function dictionaryPageHeader(out: ByteWriter, uncompressed: number, compressed: number, values: number): void {
  const t = new Compact(out);
  t.begin();
  t.i32(1, PAGE.DICTIONARY_PAGE);
  t.i32(2, uncompressed);
  t.i32(3, compressed);
  t.begin(7);
  t.i32(1, values);
  t.i32(2, ENCODING.PLAIN);
  t.end();
  t.end();
}

/** A DATA_PAGE_V2's header (its values compressed: is_compressed left at its default, true). */
export function dataPageHeader(out: ByteWriter, uncompressed: number, compressed: number, v2: { values: number; nulls: number; rows: number; encoding: number; levelsLength: number }): void {
  const t = new Compact(out);
  t.begin();
  t.i32(1, PAGE.DATA_PAGE_V2);
  t.i32(2, uncompressed);
  t.i32(3, compressed);
  t.begin(8);
  t.i32(1, v2.values);
  t.i32(2, v2.nulls);
  t.i32(3, v2.rows);
  t.i32(4, v2.encoding);
  t.i32(5, v2.levelsLength);
  t.i32(6, 0);
  t.end();
  t.end();
}

/** The footer (FileMetaData) of a file of one row group. */
export function footer(out: ByteWriter, schema: FileSchema, rows: number, chunks: readonly ChunkMeta[]): void {
  const t = new Compact(out);
  t.begin();
  t.raw(schema.head, 2);
  t.i64(3, rows);
  t.list(4, STRUCT, 1);
  t.begin(); // RowGroup
  t.list(1, STRUCT, chunks.length);
  let uncompressed = 0;
  let compressed = 0;
  chunks.forEach((c, j) => {
    uncompressed += c.uncompressed;
    compressed += c.compressed;
    t.begin(); // ColumnChunk
    t.i64(2, c.fileOffset);
    t.begin(3); // ColumnMetaData
    t.i32(1, c.type);
    t.list(2, I32, c.encodings.length);
    for (const e of c.encodings) t.varint(e * 2);
    t.list(3, BINARY, 1);
    t.varint(schema.names[j]!.length);
    out.appendBytes(schema.names[j]!);
    t.i32(4, SNAPPY);
    t.i64(5, c.numValues);
    t.i64(6, c.uncompressed);
    t.i64(7, c.compressed);
    t.i64(9, c.dataPageOffset);
    if (c.dictionaryPageOffset !== undefined) t.i64(11, c.dictionaryPageOffset);
    if (c.statistics) {
      t.begin(12);
      t.i64(3, c.statistics.nulls);
      if (c.statistics.max) t.binary(5, c.statistics.max);
      if (c.statistics.min) t.binary(6, c.statistics.min);
      t.end();
    }
    t.list(13, STRUCT, c.pages.length);
    for (const [page, encoding] of c.pages) {
      t.begin(); // PageEncodingStats
      t.i32(1, page);
      t.i32(2, encoding);
      t.i32(3, 1);
      t.end();
    }
    t.end();
    t.end();
  });
  t.i64(2, uncompressed);
  t.i64(3, rows);
  t.i64(6, compressed);
  t.end();
  t.binary(6, schema.createdBy);
  t.list(7, STRUCT, schema.columns.length); // column orders: each column's type order
  for (let j = 0; j < schema.columns.length; j++) {
    t.begin();
    t.begin(1);
    t.end();
    t.end();
  }
  t.end();
}
