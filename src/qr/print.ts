/**
 * Print-ready files from whatever image a server serves (`qr download --format`): a PNG drawn
 * from the server's SVG at a chosen size, or an SVG (or resized PNG) rebuilt from the code
 * decoded from the image: the same text (a code's own short link stays its short link, so its
 * scans are still counted), its error-correction level, its plain colours and a quiet zone.
 */
import { BLACK, WHITE, parseColor, qrMatrix, qrPng, qrSvg } from './render.js';
import { MAX_PRINT_PIXELS } from '../model/qr-types.js';
import { PNG } from 'pngjs';
import { onPaper, pngPixels, readImage, safeSvg, svgPixelsAsync, svgSize, type ImageKind } from './image.js';

/** The quiet zone of a rebuilt code, in modules (what the QR standard asks for). */
export const REBUILT_MARGIN = 4;

export interface PrintRequest {
  format: 'png' | 'svg';
  /** Width and height of a PNG, in pixels. */
  size?: number;
  /** Dots per inch written into a PNG (its pHYs chunk), so print software knows its physical size. */
  dpi?: number;
  /** false: no quiet zone added (`--no-quiet-zone`, for designers who place the code themselves). */
  quietZone?: boolean;
  /** How long one draw of the server's SVG may take (`--timeout`; the drawer's own limit caps it). */
  drawLimitMs?: number;
}

export interface Printed {
  bytes: Buffer;
  format: 'png' | 'svg';
  /** How the file was made from the server's image. */
  made: 'as served' | 'drawn from the server\'s SVG' | 'laid on a background' | 'rebuilt from the decoded code';
  width?: number;
  /** What the rebuilt file could not keep (a gradient, a logo). */
  notes: string[];
}

/** The file asked for, from the server's image of kind `kind`. Throws an Error with the reason when it cannot be made. */
export async function printable(bytes: Buffer, kind: ImageKind, want: PrintRequest): Promise<Printed> {
  if (kind === 'jpg') throw new Error('the server serves a JPEG image, which linkctl cannot read to make another format; leave --format out to save it as it is');
  // Print-ready means printable (ISO/IEC 18004): an opaque background, the code's own or white,
  // and a quiet zone of 4 modules, whatever the server's image lacks. The product's images have
  // neither (transparent paths, no quiet zone: real-servers.md, 7.7). So the image is always
  // read first: its module count, its quiet zone and its colours say what to add.
  const read = await readImage(bytes, kind, want.drawLimitMs);
  const quiet = want.quietZone === false ? 0 : REBUILT_MARGIN;
  const add = Math.max(0, quiet - read.margin);
  const paper = read.background && read.background !== 'none' ? parseColor(read.background, WHITE) : WHITE;
  const notes: string[] = [];
  if (read.background === 'none') notes.push('the server\'s image has no background: laid on white');
  if (add > 0) notes.push(`a quiet zone of ${add} modules added around the server's image`);
  if (kind === 'svg' && want.format === 'png') {
    const safe = safeSvg(bytes);
    const { width: ownWidth } = svgSize(safe);
    const side = want.size ?? Math.min(MAX_PRINT_PIXELS, Math.max(1, Math.round(ownWidth * (read.modules + 2 * add) / read.modules)));
    const quietPx = Math.round((side * add) / (read.modules + 2 * add));
    const inner = Math.max(1, side - 2 * quietPx);
    const laidOut = onPaper(await svgPixelsAsync(safe, inner, want.drawLimitMs), quietPx, paper); // in the drawing process, within its limits
    const png = new PNG({ width: laidOut.width, height: laidOut.height });
    png.data.set(laidOut.data);
    return { bytes: withDpi(PNG.sync.write(png), want.dpi), format: 'png', made: 'drawn from the server\'s SVG', width: laidOut.width, notes };
  }
  if (kind === 'svg' && want.format === 'svg' && want.size === undefined) {
    return { bytes: Buffer.from(svgOnPaper(safeSvg(bytes), read.modules, add, paper)), format: 'svg', made: add > 0 || read.background === 'none' ? 'laid on a background' : 'as served', notes };
  }
  if (kind === 'png' && want.format === 'png' && want.size === undefined) {
    const p = pngPixels(bytes);
    const laidOut = onPaper(p, Math.round((p.width * add) / read.modules), paper);
    const png = new PNG({ width: laidOut.width, height: laidOut.height });
    png.data.set(laidOut.data);
    const same = add === 0 && [...p.data].every((v, i) => i % 4 !== 3 || v === 255);
    return { bytes: withDpi(same ? bytes : PNG.sync.write(png), want.dpi), format: 'png', made: same ? 'as served' : 'laid on a background', width: laidOut.width, notes: same ? [] : notes };
  }
  // From a PNG to an SVG or another size: the code is decoded and drawn again.
  const matrix = qrMatrix(read.text, read.ecc);
  const rebuiltNotes: string[] = [];
  const foreground = parseColor(read.foreground, BLACK);
  const background = paper;
  if (!read.foreground || !read.background) rebuiltNotes.push(`the image's colours are not plain: the code is drawn ${read.foreground ? '' : 'in black '}${read.background ? '' : 'on white'}`.replace(/ $/, ''));
  if (/logo/.test(read.notes.join(' '))) rebuiltNotes.push('the logo is not drawn again');
  const side = matrix.size + 2 * quiet;
  if (want.format === 'svg') {
    return { bytes: Buffer.from(qrSvg(matrix, { size: want.size ?? side * 10, margin: quiet, foreground, background })), format: 'svg', made: 'rebuilt from the decoded code', width: want.size ?? side * 10, notes: rebuiltNotes };
  }
  // Whole pixels a module (sharp edges); the pixels left over widen the quiet zone, so the file is the size asked for.
  const width = want.size ?? side * 10;
  const png = qrPng(matrix, { scale: Math.max(1, Math.floor(width / side)), margin: quiet, foreground, background, side: width });
  return { bytes: withDpi(png, want.dpi), format: 'png', made: 'rebuilt from the decoded code', width: Math.max(width, side), notes: rebuiltNotes };
}

/**
 * The server's SVG (made safe) on an opaque background with `add` modules of quiet zone: its own
 * drawing kept (rounded modules, a logo), placed inside a larger canvas.
 */
function svgOnPaper(safe: string, modules: number, add: number, paper: { r: number; g: number; b: number }): string {
  const { width, height } = svgSize(safe);
  const by = (width * add) / modules;
  const inner = safe.replace(/^\uFEFF?\s*<\?xml[^>]*\?>\s*/, '');
  const w = +(width + 2 * by).toFixed(3);
  const h = +(height + 2 * by).toFixed(3);
  const fill = `#${[paper.r, paper.g, paper.b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}"><rect x="0" y="0" width="${w}" height="${h}" fill="${fill}"/><g transform="translate(${+by.toFixed(3)} ${+by.toFixed(3)})">${inner}</g></svg>\n`;
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

