// The sandbox's API: dispatch to the routes of each resource (a file per resource, the twin of
// src/model/<resource>.ts). Handlers are plain functions from a request context to a reply;
// server.ts does transport, auth, rate limiting and faults. `quirks` switches from the
// documented shapes (link-api.md) to what real servers send (real-servers.md); where the
// document says nothing (short links, error messages), both modes answer as the product does.
import { accountRoutes } from './account.js';
import { adminRoutes } from './admin.js';
import { campaignRoutes } from './campaigns.js';
import { channelRoutes } from './channels.js';
import { domainRoutes } from './domains.js';
import { Halt, htmlPage, isObject, phpNumeric, Raw, type Env, type Json, type Reply, type Route } from './kit.js';
import type { User } from './state.js';
import { linkRoutes } from './links.js';
import { overlayRoutes } from './overlays.js';
import { pixelRoutes } from './pixels.js';
import { qrRoutes } from './qr.js';

export { htmlPage, JSON_TYPE, MESSAGES, Raw, type Env, type Json, type Plan, type Reply, type ServerVersion } from './kit.js';

const routes: Route[] = [...accountRoutes, ...domainRoutes, ...overlayRoutes, ...pixelRoutes, ...qrRoutes, ...campaignRoutes, ...channelRoutes, ...linkRoutes, ...adminRoutes];

/** Every endpoint as `METHOD /api/...` with its parameters (`:id`): the developer page lists them (developers.ts). */
export const ENDPOINTS: ReadonlyArray<{ method: string; path: string }> = routes.map((r) => ({ method: r.method, path: r.segments.join('/') }));

const decode = (s: string) => { try { return decodeURIComponent(s); } catch { return s; } };

/** The product's page for a request its router does not take on a domain that points at it: a 200. */
const domainPage = () => '<!DOCTYPE html>\n<html lang="en"><head><title>Great! Your domain is working.</title></head><body><h6>Custom domain working</h6></body></html>\n';

/**
 * An id segment as the product reads it (fact 41): anything numeric in PHP's sense is an id (`-1`
 * and `1e3` are ids that exist nowhere: "does not exist"); beyond 64 bits, or not numeric at all, the
 * database fails and the answer is an HTML 500 page. The documented mode takes digits only.
 */
function idOf(env: Env, value: string): number | Reply {
  if (!env.quirks) return /^\d+$/.test(value) ? Number(value) : { error: 1, message: 'Invalid id.' };
  // characters its router does not take (`{{l3}}`) fall through to the site's page for a working domain, with a 200 (the recording)
  if (/[^\w.+\-~ ]/.test(value)) return new Raw(200, domainPage());
  if (!phpNumeric(value)) return htmlPage(500);
  const n = Number(value);
  if (/^\s*[+-]?\d+\s*$/.test(value) && BigInt(value.trim()) > 9223372036854775807n) return htmlPage(500);
  return Number.isSafeInteger(n) ? n : -1;
}

/** Routes one authenticated, rate-limit-cleared API request of `user`. */
export function dispatch(env: Env, user: User, method: string, path: string, query: Record<string, string>, rawBody: string): Reply {
  const segments = path.split('/');
  let pathKnown = false;
  for (const r of routes) {
    if (r.segments.length !== segments.length) continue;
    const params: Record<string, string> = {};
    if (!r.segments.every((s, i) => (s.startsWith(':') ? ((params[s.slice(1)] = decode(segments[i]!)), true) : s === segments[i]))) continue;
    pathKnown = true;
    if (r.method !== method) continue;

    const ids: Record<string, number> = {};
    for (const [name, value] of Object.entries(params)) {
      if (!name.endsWith('id')) continue;
      const id = idOf(env, value);
      if (typeof id !== 'number') return id;
      ids[name] = id;
    }
    let body: unknown = {};
    if (method !== 'GET' && rawBody.trim() !== '') {
      // whatever its content type says (text/plain is read as JSON; a form or a byte order mark is not JSON: fact 36, the recording)
      try { body = JSON.parse(rawBody); } catch { body = undefined; }
      // the product reads a body that is not a JSON object as empty (the recording: "Missing required parameter: url")
      if (env.quirks && (!isObject(body) || Array.isArray(body))) body = {};
      else if (!isObject(body) || Array.isArray(body)) return { error: 1, message: 'Invalid JSON body.' };
    }
    try {
      return r.handler({ ...env, user, params, ids, id: ids.id ?? 0, query, body: body as Json });
    } catch (err) {
      if (err instanceof Halt) return err.reply;
      throw err;
    }
  }
  return htmlPage(pathKnown ? 405 : 404);
}
