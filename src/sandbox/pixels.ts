// Tracking pixels: the twin of src/model/pixels.ts.
import { deleteRoute, fail, list, MESSAGES, minLength, must, num, ok, optString, route } from './kit.js';
import { insert, timestamp } from './state.js';

const PIXEL_TYPES = ['gtmpixel', 'gapixel', 'fbpixel', 'adwordspixel', 'linkedinpixel', 'twitterpixel', 'adrollpixel',
  'quorapixel', 'pinterest', 'bing', 'snapchat', 'reddit', 'tiktok'];
const pixelTag = (v: unknown) => minLength(v, 3, MESSAGES.pixelTag);

export const pixelRoutes = [
  route('GET /api/pixels', (ctx) => list(ctx, 'pixels', ctx.state.pixels, (p) => ({ ...p, id: num(ctx, p.id) }))),
  route('POST /api/pixel/add', (ctx) => {
    const type = typeof ctx.body.type === 'string' && PIXEL_TYPES.includes(ctx.body.type) ? ctx.body.type : fail(MESSAGES.pixelType);
    const name = minLength(ctx.body.name, 1, 'Pixel name is required.');
    const tag = pixelTag(ctx.body.tag);
    if (type === 'gtmpixel' && !/^GTM-[A-Z0-9]+$/i.test(tag)) fail(MESSAGES.pixelGtm);
    const p = insert(ctx.state, 'pixels', (id) => ({ id, type, name, tag, date: timestamp() }));
    // 7.7 answers the new id as a string (PHP's lastInsertId), whatever the PHP version (the recording)
    return { error: 0, id: ctx.quirks ? String(p.id) : num(ctx, p.id) };
  }),
  route('PUT /api/pixel/:id/update', (ctx) => {
    const p = must(ctx, ctx.state.pixels, MESSAGES.pixelNotFound, ctx.id, true);
    const tag = pixelTag(ctx.body.tag);
    const name = optString(ctx.body.name, 'name');
    Object.assign(p, { tag }, name ? { name } : {});
    return ok('Pixel has been updated successfully.');
  }),
  deleteRoute('DELETE /api/pixel/:id/delete', 'pixels', MESSAGES.pixelNotFound, () => 'Pixel has been deleted successfully.',
    (state, id) => { for (const l of state.links) if (l.pixels?.includes(id)) l.pixels = l.pixels.filter((p) => p !== id); }),
];
