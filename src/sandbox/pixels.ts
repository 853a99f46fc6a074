// Tracking pixels: the twin of src/model/pixels.ts. Tags are checked by the model's rules per
// provider (pixelTagRefusal), names and tags cleaned as the product stores them.
import { PIXEL_TYPES } from '../model/pixel-types.js';
import { pixelTagRefusal } from '../model/pixels.js';
import { cleanedText, phpString, phpTruthy } from '../model/rewrites.js';
import { add, deleteRoute, fail, list, listed, mine, MESSAGES, minLength, must, nowStamp, num, ok, optString, route, type Ctx } from './kit.js';
import type { Pixel } from './state.js';

const known = (type: unknown): type is string => typeof type === 'string' && (PIXEL_TYPES as readonly string[]).includes(type);
/** A field the product reads as missing: PHP's empty (`""`, `"0"`, null, absent). */
const missing = (v: unknown) => !phpTruthy(v);
const stored = (v: unknown) => cleanedText(phpString(v));

/**
 * A create, checked in the product's order (facts 35, 36): the type, the name and the tag present,
 * the provider supported, then the tag: 3 bytes at least, not a duplicate of the user's pixel of that
 * provider, then the provider's own rule.
 */
function created(ctx: Ctx): Omit<Pixel, 'id' | 'date'> {
  const b = ctx.body;
  if (missing(b.type)) fail('Missing type parameter. Pixel provider is required.');
  if (missing(b.name)) fail('Missing name parameter. Pixel name is required.');
  if (missing(b.tag)) fail('Missing tag parameter. Pixel tag is required.');
  if (!known(b.type)) fail(MESSAGES.pixelType);
  const type = b.type as string;
  const tag = stored(b.tag);
  if (Buffer.byteLength(tag) < 3) fail(MESSAGES.pixelTag);
  if (mine(ctx, ctx.state.pixels).some((p) => p.type === type && p.tag === tag)) fail('A pixel with this provider and tag already exists.');
  const refusal = pixelTagRefusal(type, tag);
  if (refusal) fail(refusal);
  return { type, name: stored(b.name), tag };
}

/** The documented mode: a known type, a name, a tag of 3 characters (and a GTM tag that looks like one). */
function documented(ctx: Ctx): Omit<Pixel, 'id' | 'date'> {
  const type = known(ctx.body.type) ? ctx.body.type : fail(MESSAGES.pixelType);
  const name = minLength(ctx.body.name, 1, 'Pixel name is required.');
  const tag = minLength(ctx.body.tag, 3, MESSAGES.pixelTag);
  if (type === 'gtmpixel' && !/^GTM-[A-Z0-9]+$/i.test(tag)) fail(MESSAGES.pixelGtm);
  return { type, name, tag };
}

const pixelView = (ctx: Ctx, p: Pixel) => ({ id: num(ctx, p.id), type: p.type, name: p.name, tag: p.tag, date: p.date });

export const pixelRoutes = [
  route('GET /api/pixels', (ctx) => list(ctx, 'pixels', listed(ctx, mine(ctx, ctx.state.pixels)), (p) => pixelView(ctx, p))),
  route('POST /api/pixel/add', (ctx) => {
    const fields = ctx.quirks ? created(ctx) : documented(ctx);
    const p = add(ctx, 'pixels', (id) => ({ id, ...fields, date: nowStamp(ctx) }));
    // 7.7 answers the new id as a string (PHP's lastInsertId), whatever the PHP version (the recording)
    return { error: 0, id: ctx.quirks ? String(p.id) : num(ctx, p.id) };
  }),
  route('PUT /api/pixel/:id/update', (ctx) => {
    // an unknown pixel, or another user's, is an empty HTTP 200 on real servers
    const p = must(ctx, ctx.state.pixels, MESSAGES.pixelNotFound, ctx.id, true);
    if (!ctx.quirks) {
      const tag = minLength(ctx.body.tag, 3, MESSAGES.pixelTag);
      const name = optString(ctx.body.name, 'name');
      Object.assign(p, { tag }, name ? { name } : {});
      return ok('Pixel has been updated successfully.');
    }
    // the tag rules of the pixel's stored provider (a `type` sent is ignored), no duplicate check; a name only when not empty (fact 35)
    if (missing(ctx.body.tag)) fail('Missing tag parameter. Pixel tag is required.');
    const tag = stored(ctx.body.tag);
    const refusal = pixelTagRefusal(p.type, tag);
    if (refusal) fail(refusal);
    const name = missing(ctx.body.name) ? undefined : stored(ctx.body.name);
    Object.assign(p, { tag }, name ? { name } : {});
    return ok('Pixel has been updated successfully.');
  }),
  deleteRoute('DELETE /api/pixel/:id/delete', 'pixels', MESSAGES.pixelNotFound, () => 'Pixel has been deleted successfully.',
    (ctx, p) => { for (const l of ctx.state.links) if (l.pixels?.includes(p.id)) l.pixels = l.pixels.filter((id) => id !== p.id); }),
];
