/**
 * `check --qr`: what a printed QR code leads to. Neither the QR list nor a QR code's detail
 * gives its data (link-api.md: id, link, scans, name, date), so the data is read where a phone
 * reads it: from the image the code's `link` serves. A PNG is decoded (jsQR); text that is an
 * http(s) URL is a destination to check; other text (wifi, vCard, phone) is not a destination.
 * An SVG, a page, or a redirect elsewhere cannot be read: the code is reported unreadable.
 */
import type { ApiClient } from '../http/client.js';
import type { Body } from '../http/envelope.js';
import { toInt } from '../http/envelope.js';
import { CliError, InterruptedError } from '../errors.js';

export type QrData = { id: number | null; name: string | null; link: string | null } & ({ url: string } | { text: string } | { unreadable: string });

type Decode = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;

async function decoder(): Promise<(bytes: Buffer) => string | undefined> {
  const [jsqr, pngjs] = await Promise.all([import('jsqr'), import('pngjs')]);
  // Both are CommonJS: named exports under one loader, under .default under another.
  const { PNG } = (pngjs as unknown as { default?: typeof pngjs }).default ?? pngjs;
  // jsqr is a CommonJS bundle: its function is the default export under one loader and .default.default under another
  const m = jsqr as unknown as { default: Decode | { default: Decode } };
  const decode: Decode = typeof m.default === 'function' ? m.default : m.default.default;
  return (bytes) => {
    const png = PNG.sync.read(bytes);
    return decode(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
  };
}

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The data of each QR code, read from its image (one download a code, from the API's server). */
export async function readQrData(client: ApiClient, qrs: Body[], progress: (done: number) => void): Promise<QrData[]> {
  const decode = await decoder();
  const out: QrData[] = [];
  for (const [i, record] of qrs.entries()) {
    progress(i);
    const id = toInt(record.id) ?? null;
    const name = typeof record.name === 'string' ? record.name : null;
    const link = typeof record.link === 'string' && record.link ? record.link : null;
    const base = { id, name, link };
    if (!link) {
      out.push({ ...base, unreadable: 'the server gives no link to its image' });
      continue;
    }
    let text: string | undefined;
    try {
      const got = await client.download(link, 2 * 1024 * 1024);
      if (got.status !== 200) throw new Error(`${got.url} answered HTTP ${got.status}`);
      if (!got.bytes.subarray(0, 8).equals(PNG_MAGIC)) throw new Error(`${got.url} serves ${got.contentType.split(';')[0] || 'something'} that is not a PNG; linkctl reads codes from PNG images only`);
      text = decode(got.bytes);
      if (text === undefined) throw new Error(`no QR code was found in the image at ${got.url}`);
    } catch (error) {
      if (error instanceof InterruptedError) throw error;
      out.push({ ...base, unreadable: error instanceof CliError || error instanceof Error ? error.message : String(error) });
      continue;
    }
    out.push(/^https?:\/\//i.test(text.trim()) ? { ...base, url: text.trim() } : { ...base, text });
  }
  progress(qrs.length);
  return out;
}
