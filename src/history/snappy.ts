/**
 * Snappy compression (the raw format, Parquet's SNAPPY codec), written into a buffer the caller
 * keeps. The algorithm is snappyjs's compressor (MIT, Zhipeng Jia), the one hyparquet-writer
 * carries too: 64 KB blocks, a hash table of 4-byte sequences, literals and copies. What differs
 * is where it writes: hyparquet-writer's copy appends each byte through a growing writer (a
 * DataView call and a bounds check a byte, the buffer doubled and copied as it grows, a new one
 * for each page), which made Snappy a third of `stats export`'s encoding (issue 52's profile);
 * here the output is a Uint8Array sized once for the worst case and reused page after page.
 */

const BLOCK = 1 << 16;
const MAX_HASH_TABLE_BITS = 14;
const tables: Uint16Array[] = [];

/** The most bytes `n` bytes can take compressed (Snappy's own bound). */
export const maxCompressedLength = (n: number) => 32 + n + Math.floor(n / 6);

/** Compresses `input` into `out` from `at` (room for maxCompressedLength(input.length) is the caller's); returns where it ended. */
export function snappyInto(input: Uint8Array, out: Uint8Array, at: number): number {
  let op = at;
  // the uncompressed length, a varint
  let n = input.length;
  while (n >= 0x80) {
    out[op++] = (n & 0x7f) | 0x80;
    n >>>= 7;
  }
  out[op++] = n;
  for (let pos = 0; pos < input.length; pos += BLOCK) op = compressBlock(input, pos, Math.min(input.length - pos, BLOCK), out, op);
  return op;
}

const hash = (key: number, shift: number) => Math.imul(key, 0x1e35a7bd) >>> shift;
const load32 = (a: Uint8Array, i: number) => a[i]! | (a[i + 1]! << 8) | (a[i + 2]! << 16) | (a[i + 3]! << 24);

/** One block of at most 64 KB: every copy's offset fits in two bytes. */
function compressBlock(input: Uint8Array, base: number, size: number, out: Uint8Array, op: number): number {
  let bits = 1;
  while (1 << bits <= size && bits <= MAX_HASH_TABLE_BITS) bits++;
  bits--;
  const shift = 32 - bits;
  const table = (tables[bits] ??= new Uint16Array(1 << bits));
  table.fill(0);
  const end = base + size;
  let ip = base;
  let nextEmit = base;
  const MARGIN = 15;
  if (size >= MARGIN) {
    const limit = end - MARGIN;
    ip++;
    let nextHash = hash(load32(input, ip), shift);
    outer: for (;;) {
      // look for a match, skipping faster the longer none is found
      let skip = 32;
      let nextIp = ip;
      let candidate: number;
      do {
        ip = nextIp;
        const h = nextHash;
        nextIp = ip + (skip++ >>> 5);
        if (ip > limit) break outer;
        nextHash = hash(load32(input, nextIp), shift);
        candidate = base + table[h]!;
        table[h] = ip - base;
      } while (load32(input, ip) !== load32(input, candidate));
      op = literal(input, nextEmit, ip - nextEmit, out, op);
      // copies for as long as the bytes after one match again
      do {
        const start = ip;
        let matched = 4;
        while (ip + matched < end && input[ip + matched] === input[candidate + matched]) matched++;
        ip += matched;
        op = copy(out, op, start - candidate, matched);
        nextEmit = ip;
        if (ip >= limit) break outer;
        table[hash(load32(input, ip - 1), shift)] = ip - 1 - base;
        const h = hash(load32(input, ip), shift);
        candidate = base + table[h]!;
        table[h] = ip - base;
      } while (load32(input, ip) === load32(input, candidate));
      nextHash = hash(load32(input, ++ip), shift);
    }
  }
  if (nextEmit < end) op = literal(input, nextEmit, end - nextEmit, out, op);
  return op;
}

function literal(input: Uint8Array, from: number, length: number, out: Uint8Array, op: number): number {
  const n = length - 1;
  if (n < 60) out[op++] = n << 2;
  else if (n < 0x100) {
    out[op++] = 60 << 2;
    out[op++] = n;
  } else {
    out[op++] = 61 << 2;
    out[op++] = n & 0xff;
    out[op++] = n >>> 8;
  }
  if (length > 32) out.set(input.subarray(from, from + length), op);
  else for (let k = 0; k < length; k++) out[op + k] = input[from + k]!;
  return op + length;
}

function copy(out: Uint8Array, op: number, offset: number, length: number): number {
  while (length >= 68) {
    op = shortCopy(out, op, offset, 64);
    length -= 64;
  }
  if (length > 64) {
    op = shortCopy(out, op, offset, 60);
    length -= 60;
  }
  return shortCopy(out, op, offset, length);
}

/** A copy of 4 to 64 bytes. */
function shortCopy(out: Uint8Array, op: number, offset: number, length: number): number {
  if (length < 12 && offset < 2048) {
    out[op] = 1 + ((length - 4) << 2) + ((offset >>> 8) << 5);
    out[op + 1] = offset & 0xff;
    return op + 2;
  }
  out[op] = 2 + ((length - 1) << 2);
  out[op + 1] = offset & 0xff;
  out[op + 2] = offset >>> 8;
  return op + 3;
}
