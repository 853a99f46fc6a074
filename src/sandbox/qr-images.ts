// QR code images and QR codes' own short links, as the product 7.7 serves them (real-servers.md,
// "What the product 7.7 does when run" and "More of the product 7.7, run"):
// - the images of text, sms and wifi codes hold their content; those of link, email, phone and
//   vcard codes hold the code's own short link on the site;
// - that short link answers 301 with Location set to the content (the URL, `mailto:`, `tel:`),
//   or 200 with the .vcf text, and counts a scan unless the client is a crawler (CrawlerDetect);
// - with `qrImages: 'svg'` (the default: the product's form) the code's `link` answers the image
//   itself (200, image/svg+xml) the first time it is asked, as the product draws and stores it
//   then, and a 302 to the stored /content/qr/<slug>.svg every time after: a 1000×1000 SVG of
//   paths without quiet zone, on a transparent canvas unless the code was made with colours
//   (src/qr/product-svg.ts); with 'png' (the sandbox's older form) a plain PNG on white with a
//   quiet zone, at the code's link.
// No key needed, as on real servers.
import { createHash } from 'node:crypto';
import { contentText, productText, productVcard } from '../qr/content.js';
import { productSvgOf } from '../qr/product-svg.js';
import { BLACK, WHITE, parseColor, qrMatrix, qrPng, qrSvg } from '../qr/render.js';
import { logoPng } from '../qr/styled.js';
import { slugFor, zeroStats, type Qr, type State } from './state.js';
import type { PageAnswer, Visit } from './visits.js';
import { isCrawler } from './crawlers.js';
import type { QrImages } from './types.js';

export type { QrImages };
export { isCrawler };

/** Types whose image holds the code's own short link (the product makes a hidden link for each). */
const SHORT_LINK_TYPES = new Set(['link', 'email', 'phone', 'vcard']);

/** The code's own short link's alias: derived from its id, apart from the image's slug. */
export const qrShortAlias = (q: Pick<Qr, 'id'>) => `q${slugFor(q.id, 1)}`;

/** What the image encodes: the content itself as the product writes it (real-servers.md, 23b), or the code's own short link. */
export function qrImageText(q: Qr, base: string): string {
  return SHORT_LINK_TYPES.has(q.type) ? `${base}/${qrShortAlias(q)}` : productText(q.type, q.data);
}

const SVG_HEADERS = { 'Content-Type': 'image/svg+xml' };

/**
 * The product's SVG of the code. A code made without colours has no background (a transparent
 * canvas); one made with them has its background under the paths (recorded). One made with a
 * foreground only is not recorded: the product then keeps a colour object for it (real-servers.md,
 * "QR updates": colours can be updated), so the sandbox draws it on white, as a code with colours.
 */
function productImage(q: Qr, base: string): string {
  const matrix = qrMatrix(qrImageText(q, base), q.logo ? 'H' : 'M');
  const coloured = q.foreground !== undefined || q.background !== undefined;
  return productSvgOf(matrix, {
    foreground: parseColor(q.foreground, BLACK),
    ...(coloured ? { background: parseColor(q.background, WHITE) } : {}),
    ...(q.logo ? { logo: logoPng() } : {}),
  });
}

/** The sandbox's older form: a plain PNG on the code's background (else white) with a 4-module quiet zone. */
function pngImage(q: Qr, base: string): PageAnswer {
  const matrix = qrMatrix(qrImageText(q, base), q.logo ? 'H' : 'M');
  const colours = { foreground: parseColor(q.foreground, BLACK), background: parseColor(q.background, WHITE) };
  return { status: 200, headers: { 'Content-Type': 'image/png' }, body: qrPng(matrix, { ...colours, margin: 4, scale: 8 }), changed: false };
}

/**
 * What the image is drawn from (the text it holds, its colours, its logo), as a short digest.
 * The product draws a code's image on the first request for its link and stores it; the recording
 * does not show whether an update makes it draw again. The sandbox decides that it does when the
 * image would change (new data of a text, sms or wifi code, new colours, a new logo, or the
 * sandbox's own address, which link-type images hold), since the stored image must show what an
 * update set; an update that changes nothing drawn (a link code's destination: its image holds
 * its short link) keeps the stored file and its 302.
 */
function drawingOf(q: Qr, base: string): string {
  return createHash('sha256').update(JSON.stringify([qrImageText(q, base), q.foreground ?? null, q.background ?? null, q.logo ?? null])).digest('hex').slice(0, 16);
}

/**
 * The code's link in the product's form: the first GET draws and stores the image and answers it
 * (200); later ones answer 302 to the stored file. A HEAD answers as a GET would but stores
 * nothing: the server changes state only under its lock, taken for GET and POST (server.ts), and
 * the product's answer to a HEAD is not recorded.
 */
function productLink(q: Qr, v: Visit, base: string): PageAnswer {
  const drawing = drawingOf(q, base);
  if (q.drawn === drawing) return { status: 302, headers: { Location: `${base}/content/qr/${q.slug}.svg`, 'Content-Type': 'text/html; charset=UTF-8' }, body: '', changed: false };
  const body = productImage(q, base);
  if (v.method === 'HEAD') return { status: 200, headers: SVG_HEADERS, body, changed: false };
  q.drawn = drawing;
  return { status: 200, headers: SVG_HEADERS, body, changed: true };
}

/** A scan, as the product counts one: the code's scans and its statistics' clicks. */
function countScan(q: Qr): void {
  q.scans += 1;
  const stats = q.stats ? { ...q.stats } : zeroStats();
  stats.clicks += 1;
  q.stats = stats;
}

function shortLink(q: Qr, v: Visit): PageAnswer {
  const counted = v.method === 'GET' && !isCrawler(v.headers['user-agent']);
  if (counted) countScan(q);
  if (q.type === 'vcard') {
    const d = (q.data && typeof q.data === 'object' ? q.data : {}) as Record<string, unknown>;
    const name = [d.fname, d.lname].filter(Boolean).join('-').replace(/[^A-Za-z0-9-]+/g, '') || 'contact';
    return { status: 200, headers: { 'Content-Type': 'application/octet-stream', 'Content-Disposition': `attachment; filename="${name}.vcf"` }, body: v.method === 'HEAD' ? '' : productVcard(d, true), changed: counted };
  }
  // The product writes the subject as given and the body percent-encoded; contentText encodes both, which reads the same.
  return { status: 301, headers: { Location: contentText(q.type, q.data), 'Content-Type': 'text/html; charset=UTF-8' }, body: '', changed: counted };
}

/**
 * The answer for a QR image or a QR code's own short link; undefined = not one (the caller goes on
 * to short links of links, then 404). A link with the same alias as a code's short link wins.
 */
export function qrPage(state: State, v: Visit, options: { base: string; images: QrImages }): PageAnswer | undefined {
  if (v.method !== 'GET' && v.method !== 'HEAD') return undefined;
  const find = (slug: string | undefined) => (slug ? state.qrs.find((x) => x.slug === slug) : undefined);
  const direct = /^\/qr\/([A-Za-z0-9_-]+)(\.svg|\.png)?$/.exec(v.path);
  if (direct) {
    const q = find(direct[1]);
    if (!q) return undefined;
    if (direct[2] === '.svg') return { status: 200, headers: SVG_HEADERS, body: plainSvg(q, options.base), changed: false };
    if (direct[2] === '.png' || options.images === 'png') return pngImage(q, options.base);
    return productLink(q, v, options.base);
  }
  // The stored image. The product serves it as a static file, which exists only once the code's link
  // was asked; the sandbox draws it on any request (a client never asks for it before the link
  // sends it there).
  const content = /^\/content\/qr\/([A-Za-z0-9_-]+)\.svg$/.exec(v.path);
  if (content) {
    const q = find(content[1]);
    return q ? { status: 200, headers: SVG_HEADERS, body: productImage(q, options.base), changed: false } : undefined;
  }
  const alias = /^\/(q[a-z0-9]+)$/.exec(v.path)?.[1];
  if (!alias) return undefined;
  const q = state.qrs.find((x) => SHORT_LINK_TYPES.has(x.type) && qrShortAlias(x) === alias);
  if (!q || state.links.some((l) => l.alias === alias)) return undefined;
  return shortLink(q, v);
}

/** `link.svg`: the code as a plain SVG (300 pixels, quiet zone), as the sandbox served it before 7.7's styled images. */
function plainSvg(q: Qr, base: string): string {
  return qrSvg(qrMatrix(qrImageText(q, base), 'M'), { size: 300, margin: 4, foreground: parseColor(q.foreground, BLACK), background: parseColor(q.background, WHITE) });
}
