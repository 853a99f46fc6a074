// CTA overlays and splash pages: read only, as through the product's API (src/model/overlays.ts, splash.ts).
import { list, num, route } from './kit.js';

export const overlayRoutes = [
  route('GET /api/overlay', (ctx) => list(ctx, ctx.quirks ? 'overlay' : 'cta', ctx.state.overlays, (o) => ({ ...o, id: num(ctx, o.id) }))),
  route('GET /api/splash', (ctx) => list(ctx, 'splash', ctx.state.splash, (s) => s)),
];
