// QR codes drawn locally with the `qrcode` package: the module matrix, and that matrix as a PNG,
// an SVG or Unicode half blocks for a terminal. Shared by `link qr` and the sandbox's QR images.
import QRCode from 'qrcode';
import { PNG } from 'pngjs';
import { rgbColor } from '../validate.js';

export type Ecc = 'L' | 'M' | 'Q' | 'H';
export const ECC_LEVELS: readonly Ecc[] = ['L', 'M', 'Q', 'H'];

export interface Matrix { size: number; dark(x: number, y: number): boolean }
export interface Rgb { r: number; g: number; b: number }

export function qrMatrix(text: string, ecc: Ecc = 'M'): Matrix {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: ecc });
  return { size: modules.size, dark: (x, y) => Boolean(modules.get(y, x)) };
}

/** `rgb(r,g,b)` or `#RRGGBB`, as `qr add` validates them (rgbColor); anything else is the fallback. */
export function parseColor(value: string | undefined, fallback: Rgb): Rgb {
  let normal: string;
  try {
    normal = rgbColor('colour', value ?? '');
  } catch {
    return fallback; // a server may store anything: draw it in the default colours
  }
  const [r, g, b] = normal.slice(4, -1).split(',').map(Number) as [number, number, number];
  return { r, g, b };
}
export const BLACK: Rgb = { r: 0, g: 0, b: 0 };
export const WHITE: Rgb = { r: 255, g: 255, b: 255 };
const hexOf = ({ r, g, b }: Rgb) => `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;

export interface ImageStyle {
  scale: number;
  margin: number;
  foreground: Rgb;
  background: Rgb;
  /** Width and height in pixels, when more than the code at `scale` needs: the rest widens the quiet zone (a print size). */
  side?: number;
}

/** A PNG with `scale` pixels per module and a quiet zone of `margin` modules (or more, up to `side` pixels). */
export function qrPng(m: Matrix, { scale, margin, foreground, background, side: wanted }: ImageStyle): Buffer {
  const drawn = (m.size + 2 * margin) * scale;
  const side = Math.max(drawn, wanted ?? 0);
  const offset = Math.floor((side - drawn) / 2);
  const png = new PNG({ width: side, height: side });
  for (let py = 0; py < side; py++) {
    const y = Math.floor((py - offset) / scale) - margin;
    for (let px = 0; px < side; px++) {
      const x = Math.floor((px - offset) / scale) - margin;
      const inside = x >= 0 && y >= 0 && x < m.size && y < m.size;
      const c = inside && m.dark(x, y) ? foreground : background;
      const i = (py * side + px) * 4;
      png.data[i] = c.r; png.data[i + 1] = c.g; png.data[i + 2] = c.b; png.data[i + 3] = 255;
    }
  }
  return PNG.sync.write(png);
}

/** An SVG of `size` pixels (scales without loss: print it at any size). */
export function qrSvg(m: Matrix, { size, margin, foreground, background }: { size: number; margin: number; foreground: Rgb; background: Rgb }): string {
  const side = m.size + 2 * margin;
  let path = '';
  for (let y = 0; y < m.size; y++) {
    for (let x = 0; x < m.size; x++) if (m.dark(x, y)) path += `M${x + margin} ${y + margin}h1v1h-1z`;
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${side} ${side}" shape-rendering="crispEdges">` +
    `<rect width="${side}" height="${side}" fill="${hexOf(background)}"/><path fill="${hexOf(foreground)}" d="${path}"/></svg>\n`;
}

/**
 * Unicode half blocks, two modules per character so the code is square. Light modules (the
 * quiet zone included) are drawn as blocks in the text colour, dark ones as spaces: on the usual
 * light-on-dark terminal that is dark-on-light, the way a QR code is printed.
 */
export function qrTerminal(m: Matrix, margin = 2): string {
  const side = m.size + 2 * margin;
  // light = true where the module is light (quiet zone included): drawn in the text colour
  const light = (x: number, y: number) => {
    const mx = x - margin;
    const my = y - margin;
    return !(mx >= 0 && my >= 0 && mx < m.size && my < m.size && m.dark(mx, my));
  };
  const rows: string[] = [];
  for (let y = 0; y < side; y += 2) {
    let row = '';
    for (let x = 0; x < side; x++) {
      const top = light(x, y);
      const bottom = y + 1 < side ? light(x, y + 1) : false;
      row += top && bottom ? '█' : top ? '▀' : bottom ? '▄' : ' ';
    }
    rows.push(row);
  }
  return `${rows.join('\n')}\n`;
}

/** The terminal drawing read back as modules (light = false): how tests check what a phone would see. */
export function terminalToMatrix(text: string): Matrix {
  const rows = text.replace(/\n$/, '').split('\n').map((r) => [...r]);
  const width = rows[0]!.length;
  const cells: boolean[][] = [];
  for (const row of rows) {
    cells.push(row.map((ch) => !(ch === '█' || ch === '▀')));
    cells.push(row.map((ch) => !(ch === '█' || ch === '▄')));
  }
  cells.length = width; // an odd side leaves half a line of padding at the bottom
  return { size: width, dark: (x, y) => cells[y]?.[x] ?? false };
}
