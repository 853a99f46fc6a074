// QR codes: the twin of src/model/qr.ts. Their images (the code's `link`) are served by visits.ts.
import {
  deleteRoute, fail, Halt, htmlPage, Raw, isHttpUrl, isObject, list, MESSAGES, must, num, ok, optString, qrStats, route, unassign,
  type Ctx, type Json,
} from './kit.js';
import { randomBytes } from 'node:crypto';
import { insert, timestamp, type Qr } from './state.js';
import { hasShortLink } from '../model/qr.js';

export const QR_TYPES = ['text', 'vcard', 'link', 'email', 'phone', 'sms', 'wifi'];
export const qrUrl = (ctx: Ctx, q: Qr) => `${ctx.base}/qr/${q.slug}`;
const qrType = (v: unknown): string => (typeof v === 'string' && QR_TYPES.includes(v) ? v : fail(MESSAGES.qrInvalid));
const noData = (data: unknown) => data === undefined || data === null || data === '';

function qrData(ctx: Ctx, type: string, data: unknown): unknown {
  if (noData(data)) fail(MESSAGES.qrInvalid);
  const invalid = (type === 'link' && !isHttpUrl(data))
    || (type === 'phone' && !(typeof data === 'string' && /^\+?[\d\s().-]+$/.test(data)))
    || (type === 'wifi' && !isObject(data));
  // real servers crash on these instead of validating
  if (invalid) throw new Halt(ctx.quirks ? htmlPage(500) : { error: 1, message: `Invalid data for a QR code of type ${type}.` });
  return data;
}
function qrStyle(body: Json) {
  const style: Partial<Pick<Qr, 'background' | 'foreground' | 'logo'>> = {};
  for (const key of ['background', 'foreground', 'logo'] as const) {
    const v = optString(body[key], key);
    if (v !== undefined) style[key] = v;
  }
  return style;
}

/**
 * A code's `scans` in the list. The product 7.7 joins a code without a short link (text, sms, wifi,
 * staticvcard) to the installation's first link (lowest id, any user), so its list `scans` are that
 * link's clicks (real-servers.md, 19).
 */
/**
 * A new code's slug (the end of its `link`): random, as the product's six hex digits are, so a
 * code made after a reset at an id another code had is not taken for it by what linkctl remembers
 * of codes (src/qr/scans.ts). Seeded codes keep `slugFor(id)`.
 */
function newSlug(ctx: Ctx): string {
  for (;;) {
    const slug = randomBytes(3).toString('hex');
    if (!ctx.state.qrs.some((q) => q.slug === slug)) return slug;
  }
}

function listedScans(ctx: Ctx, q: Qr): number {
  if (!ctx.quirks || hasShortLink(q.type)) return q.scans;
  return ctx.state.links.reduce<{ id: number; clicks: number } | undefined>((first, l) => (!first || l.id < first.id ? l : first), undefined)?.clicks ?? 0;
}

export const qrRoutes = [
  route('GET /api/qr', (ctx) => list(ctx, 'qrs', ctx.state.qrs, (q) =>
    ({ id: num(ctx, q.id), link: qrUrl(ctx, q), scans: num(ctx, listedScans(ctx, q)), name: q.name, date: q.date }))),
  route('GET /api/qr/:id', (ctx) => {
    const q = must(ctx, ctx.state.qrs, MESSAGES.qrNotFound);
    // 7.6 sends details.id and details.scans as stored: strings on most databases
    const details = { id: num(ctx, q.id), link: qrUrl(ctx, q), scans: num(ctx, q.scans), name: q.name, [ctx.quirks ? 'data' : 'date']: q.date };
    const noStats = ctx.quirks && !hasShortLink(q.type);
    return noStats ? { error: 0, details } : { error: 0, details, data: qrStats(ctx, q.stats) };
  }),
  route('POST /api/qr/add', (ctx) => {
    const type = qrType(ctx.body.type);
    const data = qrData(ctx, type, ctx.body.data);
    const name = optString(ctx.body.name, 'name') || MESSAGES.qrUnnamed;
    const q = insert(ctx.state, 'qrs', (id) => ({ id, type, data, name, slug: newSlug(ctx), scans: 0, date: timestamp(), ...qrStyle(ctx.body) }));
    // the product keeps link, phone and email codes' short links as hidden rows of the links table: link ids have gaps
    if (ctx.quirks && ['link', 'phone', 'email'].includes(type)) ctx.state.next.links++;
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
    const data = ctx.quirks && noData(ctx.body.data) ? undefined : qrData(ctx, q.type, ctx.body.data);
    Object.assign(q, data === undefined ? {} : { data }, qrStyle(ctx.body));
    return ok('QR has been updated successfully.');
  }),
  deleteRoute('DELETE /api/qr/:id/delete', 'qrs', MESSAGES.qrNotFound,
    (ctx) => (ctx.quirks ? 'QR has been deleted successfully.' : 'QR Code has been deleted successfully.'), unassign('qr')),
];

