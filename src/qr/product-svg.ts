/**
 * QR images drawn the way the product 7.7 serves them (test/fixtures/product-7.7/qr/*.svg,
 * real-servers.md "More of the product 7.7, run"): a 1000×1000 SVG with no quiet zone, the three
 * eyes as square frame-and-ball paths, and every other dark module merged into one even-odd path
 * of outlines; a background rectangle only when the code has a background colour, so a code
 * made without colours is black paths on a transparent canvas. The sandbox serves its images
 * with it so that what linkctl does with a real server's image (reading it, printing it) is
 * exercised on the same markup; test/unit/product-svg.test.ts redraws every recorded image from
 * its modules and compares the bytes.
 */
import type { Matrix, Rgb } from './render.js';

const SIZE = 1000;
const EYE = 7;

const hex = ({ r, g, b }: Rgb) => `#${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
/** A number as the product writes it: at most 3 decimals, no trailing zeros. */
const num = (v: number) => String(Math.round(v * 1000) / 1000);

/** One eye, centred on the origin of its group: a 7×7 frame with a 5×5 hole, and the 3×3 ball. */
const eyePaths = (fill: string) =>
  `<path fill-rule="evenodd" d="M-3.5 -3.5L3.5 -3.5L3.5 3.5L-3.5 3.5ZM-2.5 -2.5L-2.5 2.5L2.5 2.5L2.5 -2.5Z" fill="${fill}"/>` +
  `<path fill-rule="evenodd" d="M-1.5 -1.5L1.5 -1.5L1.5 1.5L-1.5 1.5Z" fill="${fill}"/>`;

const inEye = (size: number, x: number, y: number) => (x < EYE && y < EYE) || (x >= size - EYE && y < EYE) || (x < EYE && y >= size - EYE);

/**
 * The outlines of the dark modules outside the eyes, as the product writes them: find the first
 * dark module in reading order, walk its region's border from that module's top-left corner
 * (first step down; at each corner turn towards the side that has a dark module ahead on the
 * right, else keep on while one is ahead on the left, else turn left), invert every module the
 * outline encloses (so a hole becomes a region of its own, found later and drawn as its own
 * outline, which the even-odd rule cuts out), keep only the corners, and go on from there.
 */
function outlines(m: Matrix): string {
  const width = m.size;
  const bits = new Uint8Array(width * width);
  for (let y = 0; y < width; y++) for (let x = 0; x < width; x++) bits[y * width + x] = m.dark(x, y) && !inEye(width, x, y) ? 1 : 0;
  const dark = (x: number, y: number) => x >= 0 && y >= 0 && x < width && y < width && bits[y * width + x] === 1;

  let d = '';
  let from = 0;
  for (;;) {
    while (from < bits.length && bits[from] !== 1) from++;
    if (from === bits.length) break;
    const startX = from % width;
    const startY = Math.floor(from / width);
    // walk the border
    const points: Array<[number, number]> = [];
    let x = startX;
    let y = startY;
    let dx = 0;
    let dy = 1;
    let maxX = -1;
    for (;;) {
      points.push([x, y]);
      maxX = Math.max(maxX, x);
      x += dx;
      y += dy;
      if (x === startX && y === startY) break;
      const left = dark(x + (dx + dy - 1) / 2, y + (dy - dx - 1) / 2);
      const right = dark(x + (dx - dy - 1) / 2, y + (dy + dx - 1) / 2);
      if (right) [dx, dy] = [-dy, dx];
      else if (!left) [dx, dy] = [dy, -dx];
    }
    // invert what the outline encloses: each vertical step flips its row from there to the right edge of the outline
    let lastY = points[0]![1];
    for (let i = 1; i < points.length; i++) {
      const [px, py] = points[i]!;
      if (py === lastY) continue;
      const row = Math.min(lastY, py);
      for (let j = px; j < maxX; j++) bits[row * width + j] ^= 1;
      lastY = py;
    }
    // only the corners
    const corners = points.filter((p, i) => {
      const before = points[(i + points.length - 1) % points.length]!;
      const after = points[(i + 1) % points.length]!;
      return !((before[0] === p[0] && p[0] === after[0]) || (before[1] === p[1] && p[1] === after[1]));
    });
    d += corners.map(([cx, cy], i) => `${i === 0 ? 'M' : 'L'}${cx} ${cy}`).join('') + 'Z';
  }
  return d;
}

export interface ProductLook {
  foreground: Rgb;
  /** The code's background colour; none (a transparent canvas) for a code made without one. */
  background?: Rgb;
  /**
   * A logo over the centre, as base64 PNG. How the product places a code's logo is not recorded;
   * the sandbox lays one over the middle fifth (the code then uses high error correction).
   */
  logo?: string;
}

/** A logo over the centre of the code, about a fifth of its width, in module units. */
function logoImage(size: number, png: string): string {
  const side = Math.round(size * 0.22) | 1;
  const from = (size - side) / 2;
  return `<image x="${from}" y="${from}" width="${side}" height="${side}" href="data:image/png;base64,${png}"/>`;
}

/** The matrix as the product's SVG. */
export function productSvgOf(m: Matrix, look: ProductLook): string {
  const fill = hex(look.foreground);
  const far = num(m.size - EYE / 2);
  const eyes = [
    `<g><g transform="translate(3.5,3.5)">${eyePaths(fill)}</g></g>`,
    `<g><g transform="translate(${far},3.5)"><g transform="rotate(90)">${eyePaths(fill)}</g></g></g>`,
    `<g><g transform="translate(3.5,${far})"><g transform="rotate(-90)">${eyePaths(fill)}</g></g></g>`,
  ];
  return '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="${SIZE}" height="${SIZE}" viewBox="0 0 ${SIZE} ${SIZE}">` +
    (look.background ? `<rect x="0" y="0" width="${SIZE}" height="${SIZE}" fill="${hex(look.background)}"/>` : '') +
    `<g transform="scale(${num(SIZE / m.size)})"><g transform="translate(0,0)">` +
    eyes.join('') +
    `<path fill-rule="evenodd" d="${outlines(m)}" fill="${fill}"/>` +
    (look.logo ? logoImage(m.size, look.logo) : '') +
    '</g></g></svg>\n';
}
