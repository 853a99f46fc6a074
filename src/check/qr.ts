/**
 * `check --qr`: what a printed QR code leads to. Neither the QR list nor a QR code's detail
 * gives its data (link-api.md: id, link, scans, name, date), so the data is read where a phone
 * reads it: from the image the code's `link` serves, PNG or SVG (src/qr/read.ts, which also
 * follows a code's own short link to its content without counting a scan). A link code's URL is
 * a destination to check; other content (text, wifi, a vCard, a phone number) is not.
 */
import type { ApiClient } from '../http/client.js';
import type { Body } from '../http/envelope.js';
import { toInt } from '../http/envelope.js';

export type QrData = { id: number | null; name: string | null; link: string | null } & ({ url: string } | { text: string } | { unreadable: string });

/** The data of each QR code, read from its image. */
export async function readQrData(client: ApiClient, qrs: Body[], progress: (done: number) => void): Promise<QrData[]> {
  const { readCodes } = await import('../qr/read.js');
  const codes = qrs.map((record) => ({
    id: toInt(record.id) ?? null,
    name: typeof record.name === 'string' ? record.name : null,
    link: typeof record.link === 'string' && record.link ? record.link : null,
  }));
  const reads = await readCodes(client, codes, progress);
  return reads.map(({ content, unreadable, ...code }) => {
    if (!content) return { ...code, unreadable: unreadable! };
    return content.type === 'link' ? { ...code, url: String(content.data) } : { ...code, text: typeof content.data === 'string' ? content.data : JSON.stringify(content.data) };
  });
}
