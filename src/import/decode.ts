/**
 * An export's bytes as text, streamed. Exports come as Excel and older tools write them: UTF-8
 * with or without a byte-order mark, UTF-16 with one, or a legacy code page (Windows-1252 from
 * Excel or YOURLS). The byte-order mark decides; without one the file must be UTF-8, and a file
 * that is not is refused naming its first bad byte, never decoded into U+FFFD in silence.
 * `--encoding` names another (any label of the WHATWG Encoding Standard that Node's TextDecoder
 * knows: windows-1252, latin1, iso-8859-15, shift_jis, ...), decoded by Node's own TextDecoder.
 */
import { createReadStream } from 'node:fs';
import { TextDecoder } from 'node:util';
import { UsageError } from '../errors.js';

/** A fault of the input as a whole: `file:line: message`, with a hint for the refusal. */
export class InputError extends Error {
  constructor(
    readonly line: number,
    message: string,
    readonly hint?: string,
    readonly column?: number,
  ) {
    super(message);
  }
}

const BOMS: Array<{ bytes: number[]; encoding: string; name: string }> = [
  { bytes: [0xef, 0xbb, 0xbf], encoding: 'utf-8', name: 'UTF-8' },
  { bytes: [0xff, 0xfe], encoding: 'utf-16le', name: 'UTF-16 (little-endian)' },
  { bytes: [0xfe, 0xff], encoding: 'utf-16be', name: 'UTF-16 (big-endian)' },
];

/** `--encoding`: checked before anything is read. The canonical name, as TextDecoder has it. */
export function encodingOption(label: string): string {
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    throw new UsageError(`--encoding: "${label}" is not an encoding linkctl knows`, 'for example --encoding windows-1252 (Excel on Windows), latin1, iso-8859-15, utf-16le, shift_jis; the names are those of the WHATWG Encoding Standard');
  }
}

const READ_SIZE = 64 * 1024;

/**
 * The file as text, chunk by chunk. `encoding` is the canonical name from `encodingOption`, or
 * undefined to detect it. Throws InputError for a file that is not UTF-8 and does not say otherwise.
 */
export async function* decodedText(path: string, encoding?: string): AsyncGenerator<string> {
  const input = createReadStream(path, { highWaterMark: READ_SIZE });
  let decoder: TextDecoder | undefined;
  let strict = false;
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      let bytes = chunk;
      if (!decoder) {
        // The first chunk holds the byte-order mark, if any (64 KiB: it always holds the first 3 bytes).
        const bom = BOMS.find((b) => b.bytes.every((x, i) => bytes[i] === x));
        if (bom && encoding && encoding !== bom.encoding) {
          throw new UsageError(`--encoding: the file starts with a ${bom.name} byte-order mark, so it is ${bom.name}, not ${encoding}`, 'leave --encoding out: linkctl reads the byte-order mark');
        }
        if (bom) bytes = bytes.subarray(bom.bytes.length);
        else if (encoding && !UNICODE.has(encoding)) {
          // A legacy code page decodes any byte: UTF-8 rows of a mixed file would be garbled in silence.
          const garbled = await utf8Lines(path, encoding);
          if (garbled) throw garbled;
        } else if (!encoding) {
          strict = true;
          const hint = utf16Hint(bytes);
          if (hint) throw new InputError(1, 'this looks like UTF-16 text without a byte-order mark (every other byte is 0)', hint);
        }
        decoder = new TextDecoder(bom?.encoding ?? encoding ?? 'utf-8', { fatal: strict, ignoreBOM: true });
      }
      let text: string;
      try {
        text = decoder.decode(bytes, { stream: true });
      } catch {
        throw await notUtf8(path);
      }
      if (text) yield text;
    }
    if (decoder) {
      let rest: string;
      try {
        rest = decoder.decode();
      } catch {
        throw await notUtf8(path);
      }
      if (rest) yield rest;
    }
  } finally {
    input.destroy();
  }
}

const UNICODE = new Set(['utf-8', 'utf-16le', 'utf-16be']);
/** Lines named in a message, at most. */
const NAMED_LINES = 10;

/**
 * The lines of a file that are UTF-8 (they hold characters beyond ASCII, every one well formed),
 * which `encoding` (a legacy code page) would garble: refused, naming them, with one shown as it
 * would be read. Undefined when there are none. One pass over the bytes, only with `--encoding`.
 */
async function utf8Lines(path: string, encoding: string): Promise<InputError | undefined> {
  const lines: number[] = [];
  let count = 0;
  let otherLines = 0;
  let line = 1;
  let wide = false; // the line holds a well-formed multi-byte character
  let bad = false; // the line holds a byte that is not UTF-8
  let need = 0;
  let current: number[] = [];
  let sample: Buffer | undefined;
  const endLine = () => {
    if (need) bad = true; // a character the line ends inside
    if (wide && !bad) {
      count++;
      if (lines.length < NAMED_LINES) lines.push(line);
      sample ??= Buffer.from(current);
    } else if (bad) otherLines++;
    wide = bad = false;
    need = 0;
    current = [];
  };
  for await (const chunk of createReadStream(path, { highWaterMark: READ_SIZE }) as AsyncIterable<Buffer>) {
    for (const b of chunk) {
      if (b === 0x0a) {
        endLine();
        line++;
        continue;
      }
      if (!sample && current.length < 400) current.push(b);
      if (need) {
        if (b >= 0x80 && b <= 0xbf) {
          if (--need === 0) wide = true;
        } else {
          bad = true;
          need = 0;
        }
        continue;
      }
      if (b < 0x80) continue;
      if (b >= 0xc2 && b <= 0xdf) need = 1;
      else if (b >= 0xe0 && b <= 0xef) need = 2;
      else if (b >= 0xf0 && b <= 0xf4) need = 3;
      else bad = true;
    }
  }
  endLine();
  if (!count) return undefined;
  const word = sample ? /[^\s,;"]*[^\x00-\x7f][^\s,;"]*/u.exec(sample.toString('utf8'))?.[0] : undefined;
  const shown = word ? `: "${word}" would be read as "${new TextDecoder(encoding).decode(Buffer.from(word, 'utf8'))}"` : '';
  const which = `line${count === 1 ? '' : 's'} ${lines.join(', ')}${count > lines.length ? ` and ${count - lines.length} more` : ''}`;
  return new InputError(
    lines[0]!,
    `--encoding ${encoding} would garble ${count} ${count === 1 ? 'line that is' : 'lines that are'} UTF-8 (${which})${shown}`,
    otherLines
      ? `the file mixes encodings (${otherLines} line${otherLines === 1 ? ' is' : 's are'} not UTF-8): save it again in one encoding, UTF-8 best, and import it without --encoding`
      : 'the file is UTF-8: leave --encoding out',
  );
}

/** UTF-16 without a byte-order mark: the zero bytes of ASCII text in two-byte units. */
function utf16Hint(bytes: Buffer): string | undefined {
  const sample = bytes.subarray(0, 512);
  if (sample.length < 4) return undefined;
  let evenZeros = 0;
  let oddZeros = 0;
  for (let i = 0; i < sample.length; i++) if (sample[i] === 0) (i % 2 ? oddZeros++ : evenZeros++);
  const half = sample.length / 2;
  if (oddZeros > half * 0.6 && evenZeros === 0) return 'read it with --encoding utf-16le, or save it as UTF-8';
  if (evenZeros > half * 0.6 && oddZeros === 0) return 'read it with --encoding utf-16be, or save it as UTF-8';
  return undefined;
}

/**
 * Where the file stops being UTF-8: read again from the start (only on this path) with a validator
 * that counts lines, so the message names the line, the byte and its place in the line.
 */
async function notUtf8(path: string): Promise<InputError> {
  const bad = await firstInvalidUtf8(path);
  const where = bad ? `byte 0x${bad.byte.toString(16).toUpperCase().padStart(2, '0')}, the ${ordinal(bad.column)} byte of the line, ${bad.truncated ? 'starts a character the file ends inside' : 'is not UTF-8'}` : 'it is not UTF-8';
  const as1252 = bad && bad.byte >= 0x80 ? new TextDecoder('windows-1252').decode(Uint8Array.of(bad.byte)) : undefined;
  return new InputError(
    bad?.line ?? 1,
    `not UTF-8 text: ${where}${as1252 ? ` (in Windows-1252 it would be "${as1252}")` : ''}`,
    'read it with --encoding windows-1252 (what Excel on Windows and many older tools write) or the encoding it was saved in, or save it as UTF-8',
  );
}

function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th';
  return `${n}${suffix}`;
}

/** The first byte at which the file is not UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF). */
export async function firstInvalidUtf8(path: string): Promise<{ line: number; column: number; byte: number; truncated: boolean } | undefined> {
  let line = 1;
  let column = 0; // bytes of the line so far
  let need = 0; // continuation bytes still expected
  let low = 0x80; // the range the next continuation byte must be in
  let high = 0xbf;
  let lead = { line: 1, column: 0, byte: 0 };
  let first = true;
  for await (const chunk of createReadStream(path, { highWaterMark: READ_SIZE }) as AsyncIterable<Buffer>) {
    let i = 0;
    if (first && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) i = 3;
    first = false;
    for (; i < chunk.length; i++) {
      const b = chunk[i]!;
      column++;
      if (need) {
        if (b < low || b > high) return { ...lead, truncated: false };
        need--;
        low = 0x80;
        high = 0xbf;
        continue;
      }
      if (b < 0x80) {
        if (b === 0x0a) {
          line++;
          column = 0;
        }
        continue;
      }
      lead = { line, column, byte: b };
      if (b >= 0xc2 && b <= 0xdf) need = 1;
      else if (b >= 0xe0 && b <= 0xef) {
        need = 2;
        if (b === 0xe0) low = 0xa0;
        if (b === 0xed) high = 0x9f;
      } else if (b >= 0xf0 && b <= 0xf4) {
        need = 3;
        if (b === 0xf0) low = 0x90;
        if (b === 0xf4) high = 0x8f;
      } else return { ...lead, truncated: false };
    }
  }
  return need ? { ...lead, truncated: true } : undefined;
}
