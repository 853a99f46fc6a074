// QR code images and QR codes' own short links, as the product 7.7 serves them (real-servers.md,
// "What the product 7.7 does when run"):
// - the images of text, sms and wifi codes hold their content; those of link, email, phone and
//   vcard codes hold the code's own short link on the site;
// - that short link answers 301 with Location set to the content (the URL, `mailto:`, `tel:`),
//   or 200 with the .vcf text, and counts a scan unless the client is a crawler (CrawlerDetect);
// - with `qrImages: 'svg'` (7.7) the code's `link` answers 302 to /content/qr/<slug>.svg, a
//   1000×1000 styled SVG without quiet zone; with 'png' (the default) it is a plain PNG there.
// No key needed, as on real servers.
import { contentText, vcardText } from '../qr/content.js';
import { BLACK, WHITE, parseColor, qrMatrix, qrPng, qrSvg } from '../qr/render.js';
import { PRODUCT_STYLE, styledSvgOf } from '../qr/styled.js';
import { slugFor, zeroStats, type Qr, type State } from './state.js';
import type { PageAnswer, Visit } from './visits.js';
import type { QrImages } from '../commands/sandbox/types.js';

export type { QrImages };

/** Types whose image holds the code's own short link (the product makes a hidden link for each). */
const SHORT_LINK_TYPES = new Set(['link', 'email', 'phone', 'vcard']);

/** The code's own short link's alias: derived from its id, apart from the image's slug. */
export const qrShortAlias = (q: Pick<Qr, 'id'>) => `q${slugFor(q.id, 1)}`;

/** What the image encodes: the content itself, or the code's own short link. */
export function qrImageText(q: Qr, base: string): string {
  return SHORT_LINK_TYPES.has(q.type) ? `${base}/${qrShortAlias(q)}` : contentText(q.type, q.data);
}

/**
 * CrawlerDetect's generic rule (jaybizzle/crawler-detect, which the product uses): after removing
 * browser tokens, a word ending in one of these, or one of the tools it lists (curl among them).
 * Only what the sandbox needs: a browser and `linkctl/0.1` are visitors, `curl/8` is not.
 */
const CRAWLER_WORDS = /[a-z0-9\-_]*(bot|crawl|archiver|transcoder|spider|uptime|validator|fetcher|cron|checker|reader|extractor|monitoring|analyzer|scraper)|\bcurl\b|\bwget\b|python-requests|go-http-client/i;
const BROWSER_TOKENS = /Safari.[\d.]*|Firefox.[\d.]*| Chrome.[\d.]*|Mozilla.[\d.]*|AppleWebKit.[\d.]*|\(KHTML, like Gecko\)|compatible|cubot/gi;
export function isCrawler(userAgent: string | undefined): boolean {
  return CRAWLER_WORDS.test((userAgent ?? '').replace(BROWSER_TOKENS, ''));
}

function image(q: Qr, base: string, kind: QrImages): PageAnswer {
  const matrix = qrMatrix(qrImageText(q, base), q.logo ? 'H' : 'M');
  const colours = { foreground: parseColor(q.foreground, BLACK), background: parseColor(q.background, WHITE) };
  if (kind === 'svg') return { status: 200, headers: { 'Content-Type': 'image/svg+xml' }, body: styledSvgOf(matrix, { ...PRODUCT_STYLE, ...colours, logo: Boolean(q.logo) }), changed: false };
  return { status: 200, headers: { 'Content-Type': 'image/png' }, body: qrPng(matrix, { ...colours, margin: 4, scale: 8 }), changed: false };
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
    return { status: 200, headers: { 'Content-Type': 'application/octet-stream', 'Content-Disposition': `attachment; filename="${name}.vcf"` }, body: v.method === 'HEAD' ? '' : vcardText(d, true), changed: counted };
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
    if (direct[2] === '.svg') return { status: 200, headers: { 'Content-Type': 'image/svg+xml' }, body: plainSvg(q, options.base), changed: false };
    if (direct[2] === '.png' || options.images === 'png') return image(q, options.base, 'png');
    return { status: 302, headers: { Location: `${options.base}/content/qr/${q.slug}.svg`, 'Content-Type': 'text/html; charset=UTF-8' }, body: '', changed: false };
  }
  const content = /^\/content\/qr\/([A-Za-z0-9_-]+)\.svg$/.exec(v.path);
  if (content) {
    const q = find(content[1]);
    return q ? image(q, options.base, 'svg') : undefined;
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
