// QR codes: the twin of src/model/qr.ts. Their images (the code's `link`) are served by qr-images.ts.
import { createHash } from 'node:crypto';
import { contentText } from '../qr/content.js';
import { cleanedText, phpString } from '../model/rewrites.js';
import {
  add, deleteRoute, fail, Halt, htmlPage, Raw, isHttpUrl, isObject, list, listed, mine, MESSAGES, must, nowStamp, num, ok, optString, qrStats, route,
  type Ctx, type Json,
} from './kit.js';
import { slugFor, type Link, type Qr } from './state.js';
import { hasShortLink } from '../model/qr.js';

/** The types of the documented mode (link-api.md). */
export const QR_TYPES = ['text', 'vcard', 'link', 'email', 'phone', 'sms', 'wifi'];
/** The types 7.7 takes, in any letter case (fact 22). */
const PRODUCT_QR_TYPES = ['text', 'link', 'email', 'phone', 'sms', 'smsonly', 'whatsapp', 'vcard', 'staticvcard', 'wifi', 'geo', 'crypto', 'event', 'application', 'file', 'oauth'];
/** Types whose code gets no hidden link (fact 18): exactly these, in lower case (a `TEXT` code gets one). */
const WITHOUT_LINK = ['text', 'sms', 'wifi', 'staticvcard'];

export const qrUrl = (ctx: Ctx, q: Qr) => `${ctx.base}/qr/${q.slug}`;
const crash = (ctx: Ctx, type: string): never => {
  // real servers crash on these instead of validating (fact 20)
  throw new Halt(ctx.quirks ? htmlPage(500) : { error: 1, message: `Invalid data for a QR code of type ${type}.` });
};
const isPhone = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0) || (typeof v === 'string' && /^\+?\d+$/.test(v.trim()));

/**
 * The data of a code of `type` (its stored type on update), or an HTTP 500 page where 7.7 fails on it
 * (fact 20): text that is empty, over 4296 bytes or not text; a link that is not a URL; a phone that
 * is not digits (a JSON number is); an SMS or WhatsApp phone that is not a number; a vCard without
 * fields or given as text; wifi data given as text.
 */
function qrData(ctx: Ctx, type: string, data: unknown): unknown {
  const t = type.toLowerCase();
  if (!ctx.quirks) {
    const invalid = (t === 'link' && !isHttpUrl(data))
      || (t === 'phone' && !(typeof data === 'string' && /^\+?[\d\s().-]+$/.test(data)))
      || (t === 'wifi' && !isObject(data));
    return invalid ? crash(ctx, type) : data;
  }
  const scalar = typeof data === 'string' || typeof data === 'number';
  const object = isObject(data) && !Array.isArray(data);
  const invalid = (t === 'text' && (!scalar || phpString(data) === '' || Buffer.byteLength(phpString(data)) > 4296))
    || (t === 'link' && !isHttpUrl(data))
    || (t === 'phone' && !isPhone(data))
    || (['sms', 'smsonly', 'whatsapp'].includes(t) && !(object && isPhone((data as Json).phone)))
    || (['vcard', 'staticvcard'].includes(t) && !(object && Object.keys(data as Json).length > 0))
    || (t === 'wifi' && !object);
  return invalid ? crash(ctx, type) : data;
}
function qrStyle(ctx: Ctx, body: Json) {
  const style: Partial<Pick<Qr, 'background' | 'foreground' | 'logo'>> = {};
  for (const key of ['background', 'foreground', 'logo'] as const) {
    const v = optString(body[key], key);
    if (v !== undefined) style[key] = v;
  }
  // 7.7 takes a logo whose URL ends in .png or .jpg, on create and update (fact 21); it is not fetched here
  if (ctx.quirks && style.logo && !/\.(png|jpg)$/i.test(style.logo)) fail('Logo must be either a PNG or a JPEG (Max 500kb).');
  return style;
}
/** The product's slug of a code: 6 hex digits, its image's name and its hidden link's alias (fact 18); derived from the id, so seeds stay reproducible. */
function qrSlug(ctx: Ctx, id: number): string {
  const taken = (slug: string) => ctx.state.qrs.some((q) => q.slug === slug) || ctx.state.links.some((l) => l.alias.toLowerCase() === slug);
  for (let salt = 0; ; salt++) {
    const slug = createHash('sha256').update(`qr:${id}:${salt}`).digest('hex').slice(0, 6);
    if (!taken(slug)) return slug;
  }
}
/** The hidden link's destination: what a phone is sent to (the URL, `mailto:`, `tel:`, the vCard text). */
const hiddenDestination = (q: Qr) => contentText(q.type.toLowerCase(), q.data);
export const hiddenLinkOf = (ctx: Ctx, q: Qr): Link | undefined => ctx.state.links.find((l) => l.qr === q.id);

/**
 * A code's `scans` in the list. The product 7.7 joins a code without a short link (text, sms, wifi,
 * staticvcard) to the installation's first link (lowest id, any user, a hidden one too), so its
 * list `scans` are that link's clicks (real-servers.md, 19).
 */
function listedScans(ctx: Ctx, q: Qr): number {
  if (!ctx.quirks || hasShortLink(q.type)) return q.scans;
  return ctx.state.links.reduce<{ id: number; clicks: number } | undefined>((first, l) => (!first || l.id < first.id ? l : first), undefined)?.clicks ?? 0;
}

export const qrRoutes = [
  route('GET /api/qr', (ctx) => list(ctx, 'qrs', listed(ctx, mine(ctx, ctx.state.qrs)), (q) =>
    ({ id: num(ctx, q.id), link: qrUrl(ctx, q), scans: num(ctx, listedScans(ctx, q)), name: q.name, date: q.date }))),
  route('GET /api/qr/:id', (ctx) => {
    const q = must(ctx, ctx.state.qrs, MESSAGES.qrNotFound);
    // 7.6 sends details.id and details.scans as stored: strings on most databases
    const details = { id: num(ctx, q.id), link: qrUrl(ctx, q), scans: num(ctx, q.scans), name: q.name, [ctx.quirks ? 'data' : 'date']: q.date };
    const noStats = ctx.quirks && WITHOUT_LINK.includes(q.type);
    return noStats ? { error: 0, details } : { error: 0, details, data: qrStats(ctx, q.stats) };
  }),
  route('POST /api/qr/add', (ctx) => {
    const rawType = ctx.body.type;
    const known = ctx.quirks ? PRODUCT_QR_TYPES : QR_TYPES;
    const type = typeof rawType === 'string' && known.includes(ctx.quirks ? rawType.toLowerCase() : rawType) ? rawType : fail(MESSAGES.qrInvalid);
    const given = ctx.body.data;
    if (given === undefined || given === null || (!ctx.quirks && given === '')) fail(MESSAGES.qrInvalid);
    const data = qrData(ctx, type, given);
    const style = qrStyle(ctx, ctx.body);
    // a name: absent is "Via API", anything else as text, cleaned (fact 23); over 191 characters the database refuses it (fact 14)
    const name = ctx.quirks
      ? (ctx.body.name === undefined || ctx.body.name === null ? MESSAGES.qrUnnamed : cleanedText(phpString(ctx.body.name)))
      : optString(ctx.body.name, 'name') || MESSAGES.qrUnnamed;
    if (ctx.quirks && [...name].length > 191) throw new Halt(htmlPage(500));
    const id = ctx.state.next.qrs;
    const slug = ctx.quirks ? qrSlug(ctx, id) : slugFor(id);
    const date = nowStamp(ctx);
    const made = { id, type, data, name, slug, scans: 0, date, ...style };
    // 7.7 makes the code's hidden link just before the code: it takes the next link id (fact 18)
    if (ctx.quirks && !WITHOUT_LINK.includes(type)) {
      add(ctx, 'links', (linkId) => ({ id: linkId, alias: slug, longurl: hiddenDestination(made as Qr), title: '', clicks: 0, uniqueclicks: 0, date, qr: id }));
    }
    const q = add(ctx, 'qrs', () => made);
    return { error: 0, id: q.id, link: qrUrl(ctx, q) };
  }),
  route('PUT /api/qr/:id/update', (ctx) => {
    const q = must(ctx, ctx.state.qrs, MESSAGES.qrNotFound);
    // `type` and `name` are ignored: the API cannot change them. `data` is optional on 7.6
    // (required by the document) and read as data of the code's own type.
    // 7.7 assigns the colours into a colour object that a code created without colours never got:
    // an empty HTTP 500, nothing changed (real-servers.md, "QR updates")
    const addsColour = ['foreground', 'background'].some((k) => ctx.body[k] !== undefined && ctx.body[k] !== null && ctx.body[k] !== '');
    if (ctx.quirks && addsColour && q.foreground === undefined && q.background === undefined) throw new Halt(new Raw(500, ''));
    const noData = ctx.body.data === undefined || ctx.body.data === null || ctx.body.data === '';
    // the document requires data with every update
    if (!ctx.quirks && noData) fail(MESSAGES.qrInvalid);
    const data = noData ? undefined : qrData(ctx, q.type, ctx.body.data);
    const style = qrStyle(ctx, ctx.body);
    Object.assign(q, data === undefined ? {} : { data }, style);
    // a link code's printed image holds its hidden link: the update changes where that leads
    const hidden = data === undefined ? undefined : hiddenLinkOf(ctx, q);
    if (hidden) hidden.longurl = hiddenDestination(q);
    return ok('QR has been updated successfully.');
  }),
  // the code's hidden link goes with it; a channel keeps counting the code's row, without listing it (fact 24)
  deleteRoute('DELETE /api/qr/:id/delete', 'qrs', MESSAGES.qrNotFound,
    (ctx) => (ctx.quirks ? 'QR has been deleted successfully.' : 'QR Code has been deleted successfully.'), (ctx, q) => {
      const hidden = ctx.state.links.findIndex((l) => l.qr === q.id);
      if (hidden >= 0) ctx.state.links.splice(hidden, 1);
      if (!ctx.quirks) for (const ch of ctx.state.channels) ch.items = ch.items.filter((it) => !(it.type === 'qr' && it.id === q.id));
    }),
];
