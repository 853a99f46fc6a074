/**
 * QR codes drawn the way the product draws them (real-servers.md: 1000×1000 SVG, no quiet zone,
 * styled modules): rounded or dotted modules, custom eyes, a centre logo, a gradient. The
 * sandbox serves its SVG images with it, and tests and the bench make their styled fixtures with
 * it, so that reading a code is measured on what real servers send, not on plain squares.
 */
import { PNG } from 'pngjs';
import { qrMatrix, type Ecc, type Matrix, type Rgb } from './render.js';

export type ModuleShape = 'square' | 'rounded' | 'dots';
export type EyeShape = 'square' | 'rounded' | 'circle' | 'leaf';

export interface Style {
  modules: ModuleShape;
  eyes: EyeShape;
  foreground: Rgb;
  background: Rgb;
  /** A second foreground colour: the modules are filled with a gradient from `foreground` to it. */
  gradient?: Rgb;
  /** A logo drawn over the centre (a PNG of two colours, as a data: URI), covering about a fifth of the width. */
  logo?: boolean;
  /** Quiet zone in modules; the product's images have none. */
  margin: number;
  /** Width and height in pixels. */
  size: number;
}

export const PRODUCT_STYLE: Style = { modules: 'rounded', eyes: 'rounded', foreground: { r: 0, g: 0, b: 0 }, background: { r: 255, g: 255, b: 255 }, margin: 0, size: 1000 };

const hex = ({ r, g, b }: Rgb) => `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;

/** Whether (x, y) is inside one of the three 7×7 finder patterns ("eyes"). */
function inEye(size: number, x: number, y: number): boolean {
  return (x < 7 && y < 7) || (x >= size - 7 && y < 7) || (x < 7 && y >= size - 7);
}

/** One eye at (ex, ey): a 7×7 frame one module thick and a 3×3 ball, in the chosen shape. */
function eye(shape: EyeShape, ex: number, ey: number, fill: string, background: string): string {
  const frame = (r: number) => `<rect x="${ex}" y="${ey}" width="7" height="7" rx="${r}" fill="${fill}"/><rect x="${ex + 1}" y="${ey + 1}" width="5" height="5" rx="${Math.max(0, r - 1)}" fill="${background}"/>`;
  switch (shape) {
    case 'square':
      return `${frame(0)}<rect x="${ex + 2}" y="${ey + 2}" width="3" height="3" fill="${fill}"/>`;
    case 'rounded':
      return `${frame(2)}<rect x="${ex + 2}" y="${ey + 2}" width="3" height="3" rx="1" fill="${fill}"/>`;
    case 'circle':
      return `<circle cx="${ex + 3.5}" cy="${ey + 3.5}" r="3.5" fill="${fill}"/><circle cx="${ex + 3.5}" cy="${ey + 3.5}" r="2.5" fill="${background}"/><circle cx="${ex + 3.5}" cy="${ey + 3.5}" r="1.5" fill="${fill}"/>`;
    case 'leaf': {
      // Two opposite corners round, two square (a common "leaf" eye).
      const leaf = (x: number, y: number, w: number, r: number, color: string) =>
        `<path fill="${color}" d="M${x} ${y}h${w - r}a${r} ${r} 0 0 1 ${r} ${r}v${w - r}h${-(w - r)}a${r} ${r} 0 0 1 ${-r} ${-r}z"/>`;
      return leaf(ex, ey, 7, 2.5, fill) + leaf(ex + 1, ey + 1, 5, 1.5, background) + leaf(ex + 2, ey + 2, 3, 1, fill);
    }
  }
}

/** A 2-colour PNG (a ring and a bar), as a logo stands over the centre of many printed codes; 64×64, scaled up; base64. */
export function logoPng(): string {
  logoCache ??= (() => {
    const side = 64;
    const png = new PNG({ width: side, height: side });
    for (let y = 0; y < side; y++) {
      for (let x = 0; x < side; x++) {
        const d = Math.hypot(x - 31.5, y - 31.5);
        const ink = (d > 18 && d < 28) || (Math.abs(x - 31.5) < 5 && y > 14 && y < 50);
        const i = (y * side + x) * 4;
        png.data[i] = ink ? 220 : 255; png.data[i + 1] = ink ? 40 : 255; png.data[i + 2] = ink ? 60 : 255; png.data[i + 3] = 255;
      }
    }
    return PNG.sync.write(png).toString('base64');
  })();
  return logoCache;
}
let logoCache: string | undefined;

/** The SVG of a matrix in a style. */
export function styledSvgOf(m: Matrix, style: Style): string {
  const side = m.size + 2 * style.margin;
  const fg = hex(style.foreground);
  const bg = hex(style.background);
  const fill = style.gradient ? 'url(#fg)' : fg;
  const parts: string[] = [];
  parts.push(`<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${style.size}" height="${style.size}" viewBox="0 0 ${side} ${side}">`);
  if (style.gradient) parts.push(`<defs><linearGradient id="fg" gradientUnits="userSpaceOnUse" x1="0" y1="0" x2="${side}" y2="${side}"><stop offset="0" stop-color="${fg}"/><stop offset="1" stop-color="${hex(style.gradient)}"/></linearGradient></defs>`);
  parts.push(`<rect width="${side}" height="${side}" fill="${bg}"/>`);
  parts.push(`<g transform="translate(${style.margin} ${style.margin})">`);
  // The logo's square (and a module around it) is left empty, as the product leaves it.
  const logoSide = style.logo ? Math.round(m.size * 0.22) | 1 : 0;
  const logoFrom = (m.size - logoSide) / 2;
  const underLogo = (x: number, y: number) => style.logo && x >= logoFrom - 1 && x < logoFrom + logoSide + 1 && y >= logoFrom - 1 && y < logoFrom + logoSide + 1;
  let path = '';
  for (let y = 0; y < m.size; y++) {
    for (let x = 0; x < m.size; x++) {
      if (!m.dark(x, y) || inEye(m.size, x, y) || underLogo(x, y)) continue;
      if (style.modules === 'square') path += `M${x} ${y}h1v1h-1z`;
      else if (style.modules === 'dots') path += `M${x + 0.5} ${y + 0.05}a0.45 0.45 0 1 1 0 0.9a0.45 0.45 0 1 1 0 -0.9z`;
      else path += `M${x + 0.3} ${y}h0.4a0.3 0.3 0 0 1 0.3 0.3v0.4a0.3 0.3 0 0 1 -0.3 0.3h-0.4a0.3 0.3 0 0 1 -0.3 -0.3v-0.4a0.3 0.3 0 0 1 0.3 -0.3z`;
    }
  }
  parts.push(`<path fill="${fill}" d="${path}"/>`);
  for (const [ex, ey] of [[0, 0], [m.size - 7, 0], [0, m.size - 7]] as const) parts.push(eye(style.eyes, ex, ey, fill, bg));
  if (style.logo) parts.push(`<image x="${logoFrom}" y="${logoFrom}" width="${logoSide}" height="${logoSide}" xlink:href="data:image/png;base64,${logoPng()}"/>`);
  parts.push('</g></svg>\n');
  return parts.join('');
}

/** The text as a styled SVG; a logo needs the high error correction that covers it. */
export function styledSvg(text: string, style: Style, ecc: Ecc = style.logo ? 'H' : 'M'): string {
  return styledSvgOf(qrMatrix(text, ecc), style);
}
