/**
 * The product 7.7's own QR images (recorded in test/fixtures/product-7.7/qr/) read as a phone
 * reads them: SVG paths on a transparent canvas with no quiet zone (real-servers.md, "More of
 * the product 7.7, run"). Before linkctl laid images on white with a quiet zone, none of the
 * uncoloured ones could be read ("no QR code was found in the SVG image").
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PNG } from 'pngjs';
import { onPaper, readImage, svgPixels, UnreadableImage } from '../../src/qr/image.js';
import { madeWithoutColours } from '../../src/qr/read.js';
import { readContent } from '../../src/qr/content.js';

const dir = new URL('../fixtures/product-7.7/qr/', import.meta.url);
const index = JSON.parse(readFileSync(new URL('index.json', dir), 'utf8')) as Array<{ file: string; created_with: string }>;
const exchanges = JSON.parse(readFileSync(new URL('../exchanges.json', dir), 'utf8')) as { exchanges: Array<{ request: { method: string; path: string; body?: unknown }; response: { body: unknown; raw?: string } }> };
/** The recording's own address (its {BASE}), as the raw answers spell it. */
const BASE = /"link":"(http:\\\/\\\/[^"]+?)\\\/qr\\\//.exec(exchanges.exchanges.find((e) => e.request.path === '/api/qr/add' && e.response.raw?.includes('"link"'))!.response.raw!)![1]!.replaceAll('\\/', '/');

/** The code's own short link: its image link `{BASE}/qr/HASH` is `{BASE}/HASH` (what link, email, phone and vCard images hold). */
function shortLinkOf(createdWith: string): string {
  const added = exchanges.exchanges.find((e) => e.request.path === '/api/qr/add' && JSON.stringify(e.request.body) === createdWith)!;
  const link = (added.response.body as { link: string }).link;
  return link.replace('{BASE}/qr/', `${BASE}/`);
}

/** What the code holds now: the data it was created with, or that of a later successful update (the text code was updated before its image was recorded). */
function dataNow(createdWith: string, created: { data: unknown }): unknown {
  const added = exchanges.exchanges.find((e) => e.request.path === '/api/qr/add' && JSON.stringify(e.request.body) === createdWith)!;
  const id = (added.response.body as { id: number }).id;
  const updates = exchanges.exchanges.filter((e) => e.request.path === `/api/qr/${id}/update` && (e.response.body as { error?: number } | undefined)?.error === 0 && (e.request.body as { data?: unknown }).data !== undefined);
  return updates.length ? (updates.at(-1)!.request.body as { data: unknown }).data : created.data;
}

describe('the product 7.7\'s QR images', () => {
  it('has the recording this test reads', () => {
    expect(index).toHaveLength(8);
    expect(BASE).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  for (const entry of index) {
    it(`${entry.file} decodes to what the code was created with`, async () => {
      const created = JSON.parse(entry.created_with) as { type: string; data: unknown; foreground?: string; background?: string };
      const read = await readImage(readFileSync(new URL(entry.file.replace(/^qr\//, ''), dir)));
      if (['link', 'email', 'phone', 'vcard'].includes(created.type)) {
        expect(read.text).toBe(shortLinkOf(entry.created_with));
      } else {
        const content = readContent(read.text);
        expect(content.type).toBe(created.type);
        expect(content.data).toEqual(dataNow(entry.created_with, created));
      }
      if (created.foreground) {
        expect(read.foreground).toBe(created.foreground);
        expect(read.background).toBe(created.background);
        expect(madeWithoutColours(read)).toBe(false);
      } else {
        // no background is `none`, not black
        expect(read.foreground).toBe('rgb(0,0,0)');
        expect(read.background).toBe('none');
        expect(madeWithoutColours(read)).toBe(true);
      }
    });
  }

  it('a transparent PNG without a quiet zone is read, its background `none`', async () => {
    const drawn = svgPixels(readFileSync(new URL('text.svg', dir)), 300);
    expect(drawn.data[3 + 4 * (150 * 300 + 2)]).toBeDefined();
    expect([...drawn.data].some((v, i) => i % 4 === 3 && v === 0)).toBe(true); // transparent pixels
    const png = new PNG({ width: drawn.width, height: drawn.height });
    png.data.set(drawn.data);
    const read = await readImage(PNG.sync.write(png));
    expect(read.text).toBe(dataNow(index[0]!.created_with, JSON.parse(index[0]!.created_with) as { data: unknown }));
    expect(read.text).toBe('Hello again');
    expect(read.background).toBe('none');
  });

  it('onPaper lays transparent pixels on white and leaves opaque ones', () => {
    const p = onPaper({ data: new Uint8ClampedArray([10, 20, 30, 255, 0, 0, 0, 0]), width: 2, height: 1 }, 1);
    expect(p.width).toBe(4);
    expect(p.height).toBe(3);
    const at = (x: number, y: number) => [...p.data.subarray((y * 4 + x) * 4, (y * 4 + x) * 4 + 4)];
    expect(at(1, 1)).toEqual([10, 20, 30, 255]);
    expect(at(2, 1)).toEqual([255, 255, 255, 255]);
    expect(at(0, 0)).toEqual([255, 255, 255, 255]);
  });

  it('a 10-byte PNG is refused with a clear reason, not Node\'s "offset is out of range"', async () => {
    const ten = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);
    await expect(readImage(ten)).rejects.toThrow(UnreadableImage);
    await expect(readImage(ten)).rejects.toThrow(/the PNG is cut off: 10 bytes/);
  });
});
