/**
 * Reading a QR code from its image, as a phone does: PNG pixels (pngjs) or an SVG drawn into
 * pixels (@resvg/resvg-js), decoded with ZXing (zxing-wasm), and the plain colours of the code
 * read from the pixels where the decoder says the modules are. Chosen by measurement on styled
 * codes like the product's (README, Install): zxing-wasm read every one, jsQR two in three.
 * Loaded only by the commands that read images.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { PNG } from 'pngjs';
import { DRAW_TIME_LIMIT_MS, DrawFailure, drawSvg } from './drawer.js';
import type { Ecc, Rgb } from './render.js';

export type ImageKind = 'png' | 'svg' | 'jpg';

/** What the bytes are, judged by their start; undefined = not an image linkctl knows. */
export function imageKind(bytes: Buffer): ImageKind | undefined {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpg';
  // SVG: optional BOM, XML declaration, comments and doctype, then the <svg element
  const head = bytes.subarray(0, 4096).toString('utf8').replace(/^\uFEFF/, '');
  if (/^\s*(<\?xml[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*|<!DOCTYPE svg[^>]*>\s*)*<svg[\s>]/i.test(head)) return 'svg';
  return undefined;
}

export interface Pixels { data: Uint8ClampedArray; width: number; height: number }

/** Larger images are refused before they are decoded: 4096×4096 RGBA is already 64 MiB. */
const MAX_SIDE = 4096;

/** An image that cannot be read, with the reason (said per code, never guessed around). */
export class UnreadableImage extends Error {}

/**
 * An SVG as a server sent it, made safe to draw, or refused with the reason (issue 39):
 * - a DOCTYPE (and so any entity) is refused: a QR code's SVG never needs one, and entities
 *   expanded thousands of times took minutes of CPU in the SVG parser;
 * - filters are refused: they are never part of a QR code, and one feMorphology of radius
 *   1000 took minutes to draw;
 * - references to anything but inline `data:` images (or `#` fragments of the SVG itself) are
 *   removed, whatever the namespace prefix (`xlink:href`, `href`, or `q:href` with
 *   `xmlns:q` bound to XLink), so that a server's SVG cannot make linkctl read a local file
 *   into the pixels (or a PNG it writes). resvg fetches nothing from the network.
 */
export function safeSvg(svg: string | Buffer): string {
  const text = String(svg);
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new UnreadableImage('the SVG declares a DOCTYPE or entities, which a QR code\'s image never needs; refused (entities can take unbounded time to expand)');
  if (/<(?:[\w.-]+:)?filter[\s>/]|[\s;"']filter\s*[=:]/i.test(text)) throw new UnreadableImage('the SVG uses filters, which are never part of a QR code; refused (a filter can take unbounded time to draw)');
  return text.replace(/\s(?:[\w.-]+:)?href\s*=\s*("[^"]*"|'[^']*')/gi, (whole, value: string) => (/^["']\s*(data:|#)/i.test(value) ? whole : ''));
}
const inlineOnly = safeSvg;

let resvgModule: typeof import('@resvg/resvg-js') | undefined;
const resvg = () => (resvgModule ??= createRequire(import.meta.url)('@resvg/resvg-js') as typeof import('@resvg/resvg-js'));

/** An SVG's own size in pixels (its width and height, or its viewBox). */
export function svgSize(svg: string | Buffer): { width: number; height: number } {
  try {
    const doc = new (resvg().Resvg)(inlineOnly(String(svg)), { font: { loadSystemFonts: false }, logLevel: 'off' });
    return { width: doc.width, height: doc.height };
  } catch (error) {
    throw new UnreadableImage(`the SVG could not be read (${String((error as Error).message ?? error).split('\n')[0]!.slice(0, 120)})`);
  }
}

const drawOptions = (width: number) => ({ fitTo: { mode: 'width' as const, value: width }, font: { loadSystemFonts: false }, logLevel: 'off' as const });
const drawError = (error: unknown) => (error instanceof UnreadableImage ? error : new UnreadableImage(`the SVG could not be drawn (${String((error as Error).message ?? error).split('\n')[0]!.slice(0, 120)})`));
const pixelsOf = (image: { pixels: Buffer; width: number; height: number }): Pixels => ({ data: new Uint8ClampedArray(image.pixels.buffer, image.pixels.byteOffset, image.pixels.length), width: image.width, height: image.height });

/** An SVG drawn `width` pixels wide (its own aspect), RGBA. */
export function svgPixels(svg: string | Buffer, width: number): Pixels {
  try {
    const doc = new (resvg().Resvg)(inlineOnly(String(svg)), drawOptions(width));
    if (!(doc.width > 0 && doc.height > 0) || doc.height / doc.width > 4 || doc.width / doc.height > 4) throw new UnreadableImage(`the SVG is ${doc.width}×${doc.height}, not the square-ish image of a QR code`);
    return pixelsOf(doc.render());
  } catch (error) {
    throw drawError(error);
  }
}

export { DRAW_TIME_LIMIT_MS };

/**
 * An SVG drawn `width` pixels wide in the run's drawing process (drawer.ts), within
 * DRAW_TIME_LIMIT_MS and a pixel budget (its side at most MAX_SIDE, its height at most 4 times
 * its width): every SVG from a server is drawn this way. `safe` is the SVG after safeSvg.
 */
export async function svgPixelsAsync(safe: string, width: number, limitMs?: number): Promise<Pixels> {
  const budget = Math.min(width, MAX_SIDE) * Math.min(width, MAX_SIDE) * 4 * 4 + 4096;
  try {
    return pixelsOf(await drawSvg(safe, width, budget, limitMs));
  } catch (error) {
    if (!(error instanceof DrawFailure)) throw error;
    if (error.reason !== 'failed') throw new UnreadableImage(error.message);
    throw new UnreadableImage(/^not square: /.test(error.message) ? `the SVG is ${error.message.slice(12).replace('x', '×')}, not the square-ish image of a QR code` : `the SVG could not be drawn (${error.message})`);
  }
}

/** An SVG as a PNG `width` pixels wide (print sizes: `qr download --format png`). */
export function svgToPng(svg: string | Buffer, width: number): Buffer {
  const p = svgPixels(svg, width);
  const png = new PNG({ width: p.width, height: p.height });
  png.data.set(p.data);
  return PNG.sync.write(png);
}

/** A PNG's pixels, after checking its size in the header (a small file may claim a huge image). */
export function pngPixels(bytes: Buffer): Pixels {
  // a PNG's header (IHDR) ends at byte 33; anything shorter is cut off
  if (bytes.length < 33) throw new UnreadableImage(`the PNG is cut off: ${bytes.length} bytes, shorter than a PNG's header (33 bytes)`);
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  if (width > MAX_SIDE || height > MAX_SIDE) throw new UnreadableImage(`the PNG is ${width}×${height} pixels; linkctl reads QR images up to ${MAX_SIDE}×${MAX_SIDE}`);
  let png;
  try {
    png = PNG.sync.read(bytes);
  } catch (error) {
    throw new UnreadableImage(`the PNG could not be decoded (${(error as Error).message})`);
  }
  return { data: new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), width: png.width, height: png.height };
}

/**
 * The pixels laid on white with a quiet zone `by` pixels wide, opaque, as a phone sees a code
 * printed on paper. The product's images are paths on a transparent canvas with no quiet zone
 * (real-servers.md, 7.7): seen raw, transparent pixels are black to the decoder, which then
 * finds a black square. An image with its own background keeps it (its pixels are opaque).
 */
export function onPaper(p: Pixels, by: number, paper: Rgb = { r: 255, g: 255, b: 255 }): Pixels {
  const width = p.width + 2 * by;
  const height = p.height + 2 * by;
  const data = new Uint8ClampedArray(width * height * 4);
  for (let i = 0; i < data.length; i += 4) {
    data[i] = paper.r;
    data[i + 1] = paper.g;
    data[i + 2] = paper.b;
    data[i + 3] = 255;
  }
  for (let y = 0; y < p.height; y++) {
    for (let x = 0; x < p.width; x++) {
      const from = (y * p.width + x) * 4;
      const to = ((y + by) * width + x + by) * 4;
      const alpha = p.data[from + 3]! / 255;
      data[to] = p.data[from]! * alpha + paper.r * (1 - alpha);
      data[to + 1] = p.data[from + 1]! * alpha + paper.g * (1 - alpha);
      data[to + 2] = p.data[from + 2]! * alpha + paper.b * (1 - alpha);
    }
  }
  return { data, width, height };
}

/** Pixels to decode, and the image as drawn (with its transparency) `offset` pixels inside them. */
interface Laid { pixels: Pixels; drawn: Pixels; offset: number }
const laid = (drawn: Pixels, by: number): Laid => ({ pixels: onPaper(drawn, by), drawn, offset: by });

interface Found {
  text: string;
  /** Corners of the symbol, in the pixels it was found in. */
  topLeft: { x: number; y: number };
  topRight: { x: number; y: number };
  bottomLeft: { x: number; y: number };
  /** Modules: 0 = dark, row by row. */
  symbol: { data: Uint8ClampedArray; width: number };
  ecc: Ecc;
}

type ReadBarcodes = typeof import('zxing-wasm/reader').readBarcodes;
let zxing: Promise<ReadBarcodes> | undefined;
/** ZXing's reader, its WebAssembly read from the installed package (never from the network, its default). */
function reader(): Promise<ReadBarcodes> {
  zxing ??= (async () => {
    const module = await import('zxing-wasm/reader');
    const wasm = readFileSync(createRequire(import.meta.url).resolve('zxing-wasm/reader/zxing_reader.wasm'));
    await module.prepareZXingModule({ overrides: { wasmBinary: wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer }, fireImmediately: true });
    return module.readBarcodes;
  })();
  return zxing;
}

async function find(p: Pixels): Promise<Found | undefined> {
  const read = await reader();
  const [result] = await read({ data: p.data, width: p.width, height: p.height, colorSpace: 'srgb' } as unknown as Parameters<ReadBarcodes>[0], { formats: ['QRCode'], maxNumberOfSymbols: 1, tryHarder: true });
  if (!result?.isValid) return undefined;
  return { text: result.text, ...result.position, symbol: result.symbol, ecc: (['L', 'M', 'Q', 'H'] as const).find((l) => l === result.ecLevel) ?? 'M' };
}

export interface ReadImage {
  text: string;
  kind: ImageKind;
  /** Its error-correction level (a code drawn again keeps it: a logo needs H). */
  ecc: Ecc;
  /** Modules a side (21 for version 1): a print-ready file's quiet zone is 4 of them. */
  modules: number;
  /** Modules of quiet zone the image already has around the code (the product's: 0). */
  margin: number;
  /** `rgb(r,g,b)`, when the modules (or the background) are of one plain colour; the background is `none` when transparent. */
  foreground?: string;
  background?: string;
  /** What could not be read about the look of the code (a gradient, a logo). */
  notes: string[];
}

/**
 * The code in an image. Tried at the sizes that read best in measurement (an SVG drawn 300 and
 * 500 pixels wide, on a quiet zone; then 1,000 as drawn), so a hard image costs more time, an
 * easy one little. Throws UnreadableImage with the reason.
 */
export async function readImage(bytes: Buffer, kind = imageKind(bytes), drawLimitMs?: number): Promise<ReadImage> {
  if (kind === 'jpg') throw new UnreadableImage('a JPEG image; linkctl reads QR codes from PNG and SVG images');
  if (!kind) throw new UnreadableImage('not an image (neither PNG nor SVG)');
  let png: Pixels | undefined;
  const pngOnce = () => (png ??= pngPixels(bytes));
  let attempts: Array<() => Laid | Promise<Laid>>;
  let logo = false;
  if (kind === 'svg') {
    const safe = inlineOnly(bytes.toString('utf8'));
    logo = /<image[\s>]/i.test(safe);
    const draw = (width: number) => svgPixelsAsync(safe, width, drawLimitMs);
    attempts = [async () => laid(await draw(300), 30), async () => laid(await draw(500), 50), async () => laid(await draw(1000), 100)];
  } else {
    attempts = [() => laid(pngOnce(), 0), () => laid(pngOnce(), Math.max(8, Math.round(pngOnce().width / 10)))];
  }
  for (const attempt of attempts) {
    const { pixels, drawn, offset } = await attempt();
    const found = await find(pixels);
    if (!found) continue;
    const inDrawn = shifted(found, -offset);
    const look = colours(drawn, inDrawn);
    if (logo) look.notes.push('a logo is drawn over the code; its image cannot be read back');
    return { text: found.text, kind, ecc: found.ecc, modules: found.symbol.width, margin: marginOf(drawn, inDrawn), ...look };
  }
  throw new UnreadableImage(`no QR code was found in the ${kind.toUpperCase()} image`);
}

const shifted = (f: Found, by: number): Found => {
  const move = (c: { x: number; y: number }) => ({ x: c.x + by, y: c.y + by });
  return { ...f, topLeft: move(f.topLeft), topRight: move(f.topRight), bottomLeft: move(f.bottomLeft) };
};

/** The quiet zone around a found code, in whole modules: the least distance from the symbol to an edge of the image. */
function marginOf(p: Pixels, f: Found): number {
  const modulePx = Math.hypot(f.topRight.x - f.topLeft.x, f.topRight.y - f.topLeft.y) / f.symbol.width;
  if (!(modulePx > 0)) return 0;
  const least = Math.min(f.topLeft.x, f.topLeft.y, f.topRight.y, f.bottomLeft.x, p.width - f.topRight.x, p.height - f.bottomLeft.y);
  return Math.max(0, Math.floor(least / modulePx + 0.25));
}

/** The colour key of a transparent pixel: the background is then `none`, not black (or white). */
const TRANSPARENT = -1;
const rgbText = ({ r, g, b }: Rgb) => `rgb(${r},${g},${b})`;
const key = (p: Pixels, x: number, y: number): number | undefined => {
  const px = Math.floor(x);
  const py = Math.floor(y);
  if (px < 0 || py < 0 || px >= p.width || py >= p.height) return undefined;
  const i = (py * p.width + px) * 4;
  // a (mostly) transparent pixel has no colour of its own; a half-covered one is seen on white, as a page shows it
  if (p.data[i + 3]! < 128) return TRANSPARENT;
  const a = p.data[i + 3]! / 255;
  const c = (v: number) => Math.round(v * a + 255 * (1 - a));
  return (c(p.data[i]!) << 16) | (c(p.data[i + 1]!) << 8) | c(p.data[i + 2]!);
};
const rgbOf = (k: number): Rgb => ({ r: k >> 16, g: (k >> 8) & 255, b: k & 255 });

/**
 * The colours of the modules: each module's centre pixel, where the decoder placed the module
 * grid. Plain when nine in ten dark modules (and nine in ten light ones) have the same colour;
 * otherwise it is a gradient or a pattern, which is said instead. A logo over the centre covers
 * fewer than one module in ten, so it does not hide the colours.
 */
function colours(p: Pixels, f: Found): { foreground?: string; background?: string; notes: string[] } {
  const n = f.symbol.width;
  const at = (u: number, v: number) => key(p,
    f.topLeft.x + ((f.topRight.x - f.topLeft.x) * u + (f.bottomLeft.x - f.topLeft.x) * v) / n,
    f.topLeft.y + ((f.topRight.y - f.topLeft.y) * u + (f.bottomLeft.y - f.topLeft.y) * v) / n);
  const dark = new Map<number, number>();
  const light = new Map<number, number>();
  for (let v = 0; v < n; v++) {
    for (let u = 0; u < n; u++) {
      const c = at(u + 0.5, v + 0.5);
      if (c === undefined) continue;
      const counts = f.symbol.data[v * n + u] === 0 ? dark : light;
      counts.set(c, (counts.get(c) ?? 0) + 1);
    }
  }
  const plain = (counts: Map<number, number>) => {
    let best: [number, number] | undefined;
    let all = 0;
    for (const entry of counts) {
      all += entry[1];
      if (!best || entry[1] > best[1]) best = entry;
    }
    return best && best[1] >= 0.9 * all ? (best[0] === TRANSPARENT ? 'none' : rgbText(rgbOf(best[0]))) : undefined;
  };
  const foreground = plain(dark);
  const background = plain(light);
  const notes: string[] = [];
  if (!foreground) notes.push('the modules are not of one plain colour (a gradient?): the foreground colour is not read');
  if (!background) notes.push('the background is not of one plain colour: the background colour is not read');
  return { foreground, background, notes };
}
