/**
 * A QR code's content, read where a phone reads it: the image its `link` serves (following the
 * product's 302 to an .svg on the same site), decoded locally (./image.ts). On the product the
 * images of link, email, phone and vcard codes hold the code's own short link, which answers
 * with the content (a 301 to the URL, `mailto:` or `tel:`, or the .vcf text) and counts a scan
 * unless the client is a crawler: that link is asked once, without following it, under a User-Agent
 * the product's crawler detection (CrawlerDetect) recognises, so reading never counts a scan.
 * Image requests are not API requests (no rate limit), but bounded: a size cap, the --timeout,
 * and at most 2 at a time to one host (4 in all).
 */
import type { ApiClient } from '../http/client.js';
import { CliError, InterruptedError } from '../errors.js';
import { VERSION } from '../version.js';
import { readContent, type Data } from './content.js';
import type { ImageKind } from './image.js';
import type { QrType } from '../model/qr-types.js';

/**
 * Recognised by CrawlerDetect's generic rule (a word ending in `bot` or `reader`), as the
 * product's scan counter uses it (real-servers.md): the request is not counted as a scan.
 */
export const READER_USER_AGENT = `linkctl-qr-reader/${VERSION} (bot; reads QR content, counts no scan)`;

/** QR images are small; a server that sends more is not sending a QR image. */
const MAX_IMAGE_BYTES = 2 * 1024 * 1024;
/** A vCard behind a short link. */
const MAX_VCARD_BYTES = 64 * 1024;

export interface QrCode { id: number | null; name: string | null; link: string | null }

export interface CodeContent {
  type: QrType;
  data: Data;
  /** `rgb(r,g,b)`, when plain. */
  foreground?: string;
  background?: string;
  /** `image`: the image holds the content; `short link`: the image holds the code's own short link, which gave it. */
  from: 'image' | 'short link';
  shortLink?: string;
  image: ImageKind;
  /** What could not be read, or is uncertain (a gradient, a logo, vCard fields a code cannot carry). */
  notes: string[];
}

export type CodeRead = QrCode & ({ content: CodeContent; unreadable?: undefined } | { unreadable: string; content?: undefined });

export interface ReadOptions {
  /** Short URLs of the account's links: a text code may hold one, and it is then not the code's own short link. */
  linkShortUrls?: ReadonlySet<string>;
}

/** A short link of the site itself: one path segment under the base URL's path, on its origin. */
function ownShortLink(client: ApiClient, text: string, options: ReadOptions): URL | undefined {
  if (!/^https?:\/\/\S+$/i.test(text.trim())) return undefined;
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return undefined;
  }
  const base = client.base;
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname) || url.search || url.hash) return undefined;
  if (!/^[^/]+$/.test(url.pathname.slice(base.pathname.length))) return undefined;
  if (options.linkShortUrls?.has(url.href.replace(/\/+$/, '').toLowerCase())) return undefined;
  return url;
}

const message = (error: unknown) => (error instanceof CliError || error instanceof Error ? error.message : String(error));

/** One code's content, or why it cannot be read. */
export async function readCode(client: ApiClient, code: QrCode, options: ReadOptions = {}): Promise<CodeRead> {
  if (!code.link) return { ...code, unreadable: 'the server gives no link to its image' };
  const { readImage, imageKind } = await import('./image.js');
  let image;
  try {
    const got = await client.download(code.link, MAX_IMAGE_BYTES);
    if (got.status !== 200) return { ...code, unreadable: `its image ${got.url} answered HTTP ${got.status}` };
    const kind = imageKind(got.bytes);
    if (!kind) return { ...code, unreadable: `${got.url} serves ${got.contentType.split(';')[0] || 'something'} that is not an image` };
    // a draw gets no longer than a request would (--timeout), and never more than the drawer's own limit
    image = await readImage(got.bytes, kind, client.attemptTimeoutMs);
  } catch (error) {
    if (error instanceof InterruptedError) throw error;
    return { ...code, unreadable: message(error) };
  }
  const look = { foreground: image.foreground, background: image.background, image: image.kind };
  const short = ownShortLink(client, image.text, options);
  if (!short) {
    const content = readContent(image.text);
    return { ...code, content: { type: content.type, data: content.data, ...look, from: 'image', image: image.kind, notes: [...image.notes, ...content.notes] } };
  }
  // The code's own short link: asked once, not followed, as a crawler (no scan counted).
  let answer;
  try {
    answer = await client.download(short.href, MAX_VCARD_BYTES, { userAgent: READER_USER_AGENT });
  } catch (error) {
    if (error instanceof InterruptedError) throw error;
    return { ...code, unreadable: `its image holds its short link ${short.href}, which could not be read: ${message(error)}` };
  }
  let text: string | undefined;
  if (answer.status >= 300 && answer.status < 400 && answer.location) text = answer.location;
  else if (answer.status === 200 && /^\s*BEGIN:VCARD/i.test(answer.bytes.subarray(0, 64).toString('utf8'))) text = answer.bytes.toString('utf8');
  if (text === undefined) {
    const what = answer.status >= 300 && answer.status < 400 ? `HTTP ${answer.status} without a Location` : answer.status === 200 ? `HTTP 200 with ${answer.contentType.split(';')[0] || 'a body'} that is not a vCard` : `HTTP ${answer.status}`;
    return { ...code, unreadable: `its image holds its short link ${short.href}, which answered ${what}` };
  }
  // A relative Location is on the site itself.
  if (/^\//.test(text)) text = new URL(text, short).href;
  const content = readContent(text, true);
  return { ...code, content: { type: content.type, data: content.data, ...look, from: 'short link', shortLink: short.href, image: image.kind, notes: [...image.notes, ...content.notes] } };
}

/**
 * Many codes' contents, in their order: at most `concurrency` reads at a time and `perHost` to
 * one host. `progress` gets the number done.
 */
export async function readCodes(client: ApiClient, codes: QrCode[], progress: (done: number) => void = () => {}, options: ReadOptions & { concurrency?: number; perHost?: number } = {}): Promise<CodeRead[]> {
  const concurrency = options.concurrency ?? 4;
  const perHost = options.perHost ?? 2;
  const out: CodeRead[] = new Array(codes.length);
  const hostOf = (c: QrCode) => {
    try {
      return c.link ? new URL(c.link, client.base).host : '';
    } catch {
      return '';
    }
  };
  const waiting = codes.map((code, i) => ({ code, i, host: hostOf(code) }));
  const busy = new Map<string, number>();
  let done = 0;
  let failed: unknown;
  progress(0);
  await new Promise<void>((resolve) => {
    let running = 0;
    const next = () => {
      if (failed !== undefined && running === 0) return resolve();
      if (failed === undefined) {
        while (running < concurrency) {
          const at = waiting.findIndex((w) => (busy.get(w.host) ?? 0) < perHost);
          if (at < 0) break;
          const [job] = waiting.splice(at, 1);
          running++;
          busy.set(job!.host, (busy.get(job!.host) ?? 0) + 1);
          readCode(client, job!.code, options).then((read) => {
            out[job!.i] = read;
            progress(++done);
          }, (error: unknown) => {
            failed ??= error;
          }).finally(() => {
            running--;
            busy.set(job!.host, busy.get(job!.host)! - 1);
            next();
          });
        }
      }
      if (running === 0 && (waiting.length === 0 || failed !== undefined)) resolve();
    };
    next();
  });
  if (failed !== undefined) throw failed;
  return out;
}

/**
 * Whether a code was made without colours, as read from its image: the product draws such a code
 * in black paths on a transparent canvas (background `none`); a code made with colours has them
 * in its paths and a background (real-servers.md, 7.7; recorded qr/link-colours.svg). The qr
 * record itself holds no colours. Colours cannot be added to such a code by an update (an empty
 * HTTP 500 from the product): see `qr update`.
 */
export function madeWithoutColours(look: { foreground?: string; background?: string }): boolean {
  return look.background === 'none' && (look.foreground === undefined || look.foreground === 'rgb(0,0,0)');
}

/** A code's content under stable keys (`qr get --json`): every key always there, null when not read. */
export function contentJson(read: CodeRead): Record<string, unknown> {
  const c = read.content;
  return {
    type: c?.type ?? null,
    data: c?.data ?? null,
    foreground: c?.foreground ?? null,
    background: c?.background ?? null,
    readFrom: c ? (c.from === 'image' ? 'image' : 'short link') : null,
    unreadable: read.unreadable ?? null,
    notes: c?.notes ?? [],
  };
}

/** A code's data on one line: the string, or an object's fields as `key=value`. */
export function dataLine(data: unknown): string {
  if (data === null || data === undefined) return '';
  if (typeof data !== 'object') return String(data);
  return Object.entries(data).map(([k, v]) => `${k}=${String(v)}`).join(', ');
}
