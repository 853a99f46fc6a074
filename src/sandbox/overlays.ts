// CTA overlays and splash pages: read only, as through the product's API (src/model/overlays.ts, splash.ts).
import { list, listed, mine, num, route } from './kit.js';

export const overlayRoutes = [
  route('GET /api/overlay', (ctx) => list(ctx, ctx.quirks ? 'overlay' : 'cta', listed(ctx, mine(ctx, ctx.state.overlays)),
    (o) => ({ id: num(ctx, o.id), type: o.type, name: o.name, date: o.date }))),
  route('GET /api/splash', (ctx) => list(ctx, 'splash', listed(ctx, mine(ctx, ctx.state.splash)), (s) => ({ id: s.id, name: s.name, date: s.date }))),
];
