// Branded domains: the twin of src/model/domains.ts.
import { cleanedText } from '../model/rewrites.js';
import { add, deleteRoute, fail, failEmptyInQuirks, isHttpUrl, list, listed, mine, MESSAGES, must, num, ok, route, type Ctx } from './kit.js';
import type { Domain } from './state.js';

/**
 * The redirects of a create or update. 7.7 answers a field that is present but not a URL (the empty
 * string too, on update) with an empty HTTP 200 and changes nothing (fact 27); a URL is stored cleaned.
 */
function redirects(ctx: Ctx, updating: boolean) {
  const out: { redirectroot?: string; redirect404?: string } = {};
  for (const key of ['redirectroot', 'redirect404'] as const) {
    const v = ctx.body[key];
    if (v === undefined || v === null || (v === '' && !(updating && ctx.quirks))) continue;
    out[key] = isHttpUrl(v) ? (ctx.quirks ? cleanedText(v) : v) : failEmptyInQuirks(ctx, `${key} must be a URL starting with http:// or https://.`);
  }
  return out;
}

/**
 * A domain name as 7.7 takes it (fact 28): a URL with a scheme (any: `ftp://` too) and a host, stored as
 * sent (letter case, a path, a trailing slash). The documented mode keeps http(s) without the slash.
 */
function domainName(ctx: Ctx, v: unknown): string {
  if (!ctx.quirks) return isHttpUrl(v) ? v.replace(/\/+$/, '') : fail(MESSAGES.domainInvalid);
  return typeof v === 'string' && /^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]+/i.test(v) ? v : fail(MESSAGES.domainInvalid);
}

/**
 * Whether a domain of any user of the installation holds `name` (fact 28): one that is `http://` or
 * `https://` followed by the name without its own `http(s)://`, ignoring letter case. So
 * `http://mixed.x` after `https://Mixed.X` is taken, but `https://x/` and `https://x` are two domains.
 */
function taken(ctx: Ctx, name: string): boolean {
  if (!ctx.quirks) return ctx.state.domains.some((d) => d.domain.toLowerCase() === name.toLowerCase());
  const bare = name.replace(/^https?:\/\//i, '').toLowerCase();
  return ctx.state.domains.some((d) => [`http://${bare}`, `https://${bare}`].includes(d.domain.toLowerCase()));
}

const domainView = (ctx: Ctx, d: Domain) => ({
  id: num(ctx, d.id), domain: d.domain,
  ...(ctx.quirks ? { redirectroot: d.redirectroot || null, redirect404: d.redirect404 || null } : { redirectroot: d.redirectroot, redirect404: d.redirect404 }),
});

export const domainRoutes = [
  route('GET /api/domains', (ctx) => {
    const own = listed(ctx, mine(ctx, ctx.state.domains));
    // an installation with multiple domains on lists the site's own after the user's (id null); 7.7 with them off does not (fact 3)
    const system = { id: null, domain: ctx.base, redirectroot: '', redirect404: '' };
    if (!(ctx.quirks && ctx.systemDomains)) return list(ctx, 'domains', own, (d) => domainView(ctx, d));
    return list(ctx, 'domains', [...own, system], (d) => (d.id === null ? d : domainView(ctx, d as Domain)));
  }),
  route('POST /api/domain/add', (ctx) => {
    const domain = domainName(ctx, ctx.body.domain);
    const extra = redirects(ctx, false);
    if (taken(ctx, domain)) fail(MESSAGES.domainUsed);
    const d = add(ctx, 'domains', (id) => ({ id, domain, redirectroot: '', redirect404: '', ...extra }));
    // 7.7 answers the new id as a string (PHP's lastInsertId), whatever the PHP version (the recording)
    return { error: 0, id: ctx.quirks ? String(d.id) : num(ctx, d.id) };
  }),
  route('PUT /api/domain/:id/update', (ctx) => {
    const d = must(ctx, ctx.state.domains, MESSAGES.domainNotFound, ctx.id, true);
    if (ctx.quirks && ctx.body.redirectroot === undefined && ctx.body.redirect404 === undefined) fail('No data sent.');
    Object.assign(d, redirects(ctx, true));
    return ok('Domain has been updated successfully.');
  }),
  // links made on the domain keep their short URLs on it (the recording)
  deleteRoute('DELETE /api/domain/:id/delete', 'domains', MESSAGES.domainNotFound, () => 'Domain has been deleted successfully.'),
];
