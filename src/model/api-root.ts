/**
 * Where an installation serves its API. The product's `apiroute` defaults to `/api`; an
 * installation may set another (`/v2`). Its developer page, `{base}/developers`, lists every
 * endpoint with its full URL, so the API path can be read there: the part of those URLs between
 * the base URL and an endpoint this model knows (`account`, `urls`, ...). `GET {apiroute}/` itself
 * has no handler, so the path is tried with the account's endpoint.
 */
import { ACCOUNT_PATH } from './account.js';
import { MODELS } from './index.js';
import { users } from './users.js';

/** The site page that lists the API's endpoints. Not an API path: served beside the API. */
export const DEVELOPER_PAGE = 'developers';

/** Endpoints the model knows, as the part after the API path (`account`, `urls`, `qr/add`). */
function knownEndpoints(): string[] {
  const paths = [ACCOUNT_PATH, users.list, ...Object.values(MODELS).flatMap((m) => [m.list, m.add].filter((p): p is string => Boolean(p)))];
  return [...new Set(paths.map((p) => p.replace(/^api\//, '')))];
}

/**
 * The API path a developer page names (`/v2`), from its URLs under `base`: the path before an
 * endpoint the model knows, the one most URLs agree on. Undefined when the page names none.
 */
export function apiPathFromDeveloperPage(html: string, base: URL): string | undefined {
  const tails = knownEndpoints();
  const votes = new Map<string, number>();
  const basePath = base.pathname.replace(/\/+$/, '');
  for (const match of html.matchAll(/https?:\/\/[^\s"'<>`]+/gi)) {
    let url: URL;
    try {
      url = new URL(match[0].replace(/&amp;/g, '&'));
    } catch {
      continue;
    }
    if (url.origin !== base.origin || !url.pathname.startsWith(`${basePath}/`)) continue;
    const rest = url.pathname.slice(basePath.length).replace(/\/+$/, '');
    const tail = tails.find((t) => rest.endsWith(`/${t}`));
    if (!tail) continue;
    const path = rest.slice(0, rest.length - tail.length - 1);
    if (!path) continue;
    votes.set(path, (votes.get(path) ?? 0) + 1);
  }
  return [...votes.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}
