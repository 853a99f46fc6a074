/**
 * The sandbox draws QR images as the product 7.7 does (src/qr/product-svg.ts): each recorded
 * image (test/fixtures/product-7.7/qr/*.svg) is drawn into pixels, its modules are read back
 * from them, and drawing those modules again must give the recorded bytes exactly (root
 * attributes, groups, eye paths, the outlines' order and corners, the background rectangle only
 * where the code has a background colour).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { svgPixels } from '../../src/qr/image.js';
import { productSvgOf } from '../../src/qr/product-svg.js';
import { parseColor, qrMatrix, BLACK, type Matrix } from '../../src/qr/render.js';

const dir = new URL('../fixtures/product-7.7/qr/', import.meta.url);
const index = JSON.parse(readFileSync(new URL('index.json', dir), 'utf8')) as Array<{ file: string; created_with: string }>;
const PIXELS_PER_MODULE = 10;

/** The modules of a recorded image: the alpha at each module's centre (the canvas is transparent where no module is). */
function modulesOf(svg: string): Matrix {
  const scale = Number(/<g transform="scale\(([\d.]+)\)">/.exec(svg)![1]);
  const size = Math.round(1000 / scale);
  const pixels = svgPixels(svg.replace(/<rect [^>]*\/>/, ''), size * PIXELS_PER_MODULE);
  const at = (x: number, y: number) => pixels.data[((y * PIXELS_PER_MODULE + 5) * pixels.width + x * PIXELS_PER_MODULE + 5) * 4 + 3]!;
  return { size, dark: (x, y) => at(x, y) > 128 };
}

describe('the product\'s SVG form', () => {
  for (const entry of index) {
    it(`${entry.file} is drawn again byte for byte from its modules`, () => {
      const recorded = readFileSync(new URL(entry.file.replace(/^qr\//, ''), dir), 'utf8');
      const created = JSON.parse(entry.created_with) as { foreground?: string; background?: string };
      const look = { foreground: parseColor(created.foreground, BLACK), ...(created.background ? { background: parseColor(created.background, BLACK) } : {}) };
      expect(productSvgOf(modulesOf(recorded), look)).toBe(recorded);
    });
  }

  it('has no background rectangle and no quiet zone without a background colour', () => {
    const m = qrMatrix('Hello');
    const svg = productSvgOf(m, { foreground: BLACK });
    expect(svg).not.toMatch(/<rect|fill="#ffffff"/);
    const pixels = svgPixels(svg, 1000);
    const alpha = (x: number, y: number) => pixels.data[(y * 1000 + x) * 4 + 3]!;
    expect(alpha(1, 1)).toBe(255); // the eye's frame starts at the image's corner
    const light = [...Array(m.size).keys()].find((x) => !m.dark(x, 8))!;
    const side = 1000 / m.size;
    expect(alpha(Math.floor((light + 0.5) * side), Math.floor(8.5 * side))).toBe(0); // a light module is transparent, not white
  });

  it('has the code\'s background colour as a rectangle under the modules when it has one', () => {
    const svg = productSvgOf(qrMatrix('Hello'), { foreground: { r: 20, g: 40, b: 160 }, background: { r: 255, g: 250, b: 230 } });
    expect(svg).toMatch(/viewBox="0 0 1000 1000"><rect x="0" y="0" width="1000" height="1000" fill="#fffae6"\/><g transform="scale\(47\.619\)">/);
    expect(svgPixels(svg, 100).data[3]).toBe(255);
  });
});
