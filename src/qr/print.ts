/**
 * Print-ready files from whatever image a server serves (`qr download --format`): a PNG drawn
 * from the server's SVG at a chosen size, or an SVG (or resized PNG) rebuilt from the code
 * decoded from the image: the same text (a code's own short link stays its short link, so its
 * scans are still counted), its error-correction level, its plain colours and a quiet zone.
 */
import { BLACK, WHITE, parseColor, qrMatrix, qrPng, qrSvg } from './render.js';
import { MAX_PRINT_PIXELS } from '../commands/qr/types.js';
import { readImage, svgSize, svgToPng, type ImageKind } from './image.js';

/** The quiet zone of a rebuilt code, in modules (what the QR standard asks for). */
export const REBUILT_MARGIN = 4;

export interface PrintRequest {
  format: 'png' | 'svg';
  /** Width and height of a PNG, in pixels. */
  size?: number;
  /** Dots per inch written into a PNG (its pHYs chunk), so print software knows its physical size. */
  dpi?: number;
}

export interface Printed {
  bytes: Buffer;
  format: 'png' | 'svg';
  /** How the file was made from the server's image. */
  made: 'as served' | 'drawn from the server\'s SVG' | 'rebuilt from the decoded code';
  width?: number;
  /** What the rebuilt file could not keep (a gradient, a logo). */
  notes: string[];
}

/** The file asked for, from the server's image of kind `kind`. Throws an Error with the reason when it cannot be made. */
export async function printable(bytes: Buffer, kind: ImageKind, want: PrintRequest): Promise<Printed> {
  if (kind === want.format && want.size === undefined) return { bytes: kind === 'png' ? withDpi(bytes, want.dpi) : bytes, format: kind, made: 'as served', notes: [] };
  if (kind === 'svg' && want.format === 'png') {
    const width = want.size ?? Math.min(MAX_PRINT_PIXELS, Math.max(1, Math.round(svgSize(bytes).width)));
    const png = svgToPng(bytes, width);
    return { bytes: withDpi(png, want.dpi), format: 'png', made: 'drawn from the server\'s SVG', width, notes: [] };
  }
  if (kind === 'jpg') throw new Error('the server serves a JPEG image, which linkctl cannot read to make another format; leave --format out to save it as it is');
  // From a PNG (or an SVG to an SVG of another size): the code is decoded and drawn again.
  const read = await readImage(bytes, kind);
  const matrix = qrMatrix(read.text, read.ecc);
  const notes: string[] = [];
  const foreground = parseColor(read.foreground, BLACK);
  const background = parseColor(read.background, WHITE);
  if (!read.foreground || !read.background) notes.push(`the image's colours are not plain: the code is drawn ${read.foreground ? '' : 'in black '}${read.background ? '' : 'on white'}`.replace(/ $/, ''));
  if (/logo/.test(read.notes.join(' '))) notes.push('the logo is not drawn again');
  const side = matrix.size + 2 * REBUILT_MARGIN;
  if (want.format === 'svg') {
    return { bytes: Buffer.from(qrSvg(matrix, { size: want.size ?? side * 10, margin: REBUILT_MARGIN, foreground, background })), format: 'svg', made: 'rebuilt from the decoded code', width: want.size ?? side * 10, notes };
  }
  // Whole pixels a module (sharp edges); the pixels left over widen the quiet zone, so the file is the size asked for.
  const width = want.size ?? side * 10;
  const png = qrPng(matrix, { scale: Math.max(1, Math.floor(width / side)), margin: REBUILT_MARGIN, foreground, background, side: width });
  return { bytes: withDpi(png, want.dpi), format: 'png', made: 'rebuilt from the decoded code', width: Math.max(width, side), notes };
}

// ---------------------------------------------------------------- PNG physical size

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A PNG with a pHYs chunk (pixels per metre) after its header, so that it prints at its size; unchanged without dpi. */
export function withDpi(png: Buffer, dpi: number | undefined): Buffer {
  if (dpi === undefined) return png;
  const perMetre = Math.round(dpi / 0.0254);
  const data = Buffer.alloc(9);
  data.writeUInt32BE(perMetre, 0);
  data.writeUInt32BE(perMetre, 4);
  data[8] = 1; // the unit is the metre
  const type = Buffer.from('pHYs', 'latin1');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(9);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([type, data])));
  const headerEnd = 8 + 4 + 4 + 13 + 4; // signature, then IHDR: length, type, 13 bytes, CRC
  return Buffer.concat([png.subarray(0, headerEnd), length, type, data, crc, png.subarray(headerEnd)]);
}

/** Pixels for a print size at a resolution: `30mm` at 300 dpi is 354 pixels. */
export function printPixels(size: { value: number; unit: 'mm' | 'cm' | 'in' }, dpi: number): number {
  const inches = size.unit === 'in' ? size.value : size.unit === 'cm' ? size.value / 2.54 : size.value / 25.4;
  return Math.round(inches * dpi);
}

