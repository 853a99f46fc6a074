// Branded domains: the twin of src/model/domains.ts.
import { deleteRoute, fail, failEmptyInQuirks, isHttpUrl, list, MESSAGES, must, num, ok, route, type Ctx } from './kit.js';
import { insert } from './state.js';

function redirects(ctx: Ctx) {
  const out: { redirectroot?: string; redirect404?: string } = {};
  for (const key of ['redirectroot', 'redirect404'] as const) {
    const v = ctx.body[key];
    if (v === undefined || v === null || v === '') continue;
    out[key] = isHttpUrl(v) ? v : failEmptyInQuirks(ctx, `${key} must be a URL starting with http:// or https://.`);
  }
  return out;
}

export const domainRoutes = [
  route('GET /api/domains', (ctx) => {
    // quirks: a system domain (id null) comes after the user's; the list is read backwards, so it goes first here
    const system = { id: null, domain: ctx.base, redirectroot: '', redirect404: '' };
    return list(ctx, 'domains', ctx.quirks ? [system, ...ctx.state.domains] : ctx.state.domains,
      (d) => (d.id === null ? d : { ...d, id: num(ctx, d.id), ...(ctx.quirks ? { redirectroot: d.redirectroot || null, redirect404: d.redirect404 || null } : {}) }));
  }),
  route('POST /api/domain/add', (ctx) => {
    const domain = isHttpUrl(ctx.body.domain) ? ctx.body.domain.replace(/\/+$/, '') : fail(MESSAGES.domainInvalid);
    const extra = redirects(ctx);
    if (ctx.state.domains.some((d) => d.domain.toLowerCase() === domain.toLowerCase())) fail(MESSAGES.domainUsed);
    const d = insert(ctx.state, 'domains', (id) => ({ id, domain, redirectroot: '', redirect404: '', ...extra }));
    // 7.7 answers the new id as a string (PHP's lastInsertId), whatever the PHP version (the recording)
    return { error: 0, id: ctx.quirks ? String(d.id) : num(ctx, d.id) };
  }),
  route('PUT /api/domain/:id/update', (ctx) => {
    const d = must(ctx, ctx.state.domains, MESSAGES.domainNotFound, ctx.id, true);
    Object.assign(d, redirects(ctx));
    return ok('Domain has been updated successfully.');
  }),
  deleteRoute('DELETE /api/domain/:id/delete', 'domains', MESSAGES.domainNotFound, () => 'Domain has been deleted successfully.'),
];
