/**
 * The installation's API path: where under the base URL its API is served. The product's
 * `apiroute` setting defaults to `/api`, but an installation may serve its API at `/v2` or
 * anywhere else. One setting (`--api-path`, LINKCTL_API_PATH, a profile's `apiPath`), applied
 * in one place: the client puts it in place of the `api` that the model's paths start with
 * (src/http/client.ts, `fromBase`). No dependency here: settings read it at start-up.
 */
import { UsageError } from '../errors.js';

export const DEFAULT_API_PATH = '/api';

/** A segment of a path as the product's routes have them: no `.`/`..`, no query, fragment or white space. */
const SEGMENT = /^[A-Za-z0-9_~!$&'()*+,;=:@%.-]+$/;

/**
 * `/v2`, `v2/` or ` /v2 ` as the one form `/v2` (several segments too); anything that is not a path of one or
 * more segments is exit 2 naming where it came from.
 */
export function normaliseApiPath(raw: string, flag = '--api-path'): string {
  const hint = 'the API path is where the installation serves its API under the base URL, e.g. /api (the default) or /v2';
  const trimmed = raw.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) throw new UsageError(`${flag} is a path such as /v2, not a URL (got "${raw}")`, `${hint}; the site itself is the base URL (--base-url)`);
  const segments = trimmed.split('/').filter((s) => s !== '');
  if (!segments.length) throw new UsageError(`${flag} must name a path such as /api or /v2, got "${raw}"`, hint);
  for (const segment of segments) {
    if (segment === '.' || segment === '..' || !SEGMENT.test(segment)) {
      throw new UsageError(`${flag} must be a plain path such as /v2, without ".", "..", a query or spaces; got "${raw}"`, hint);
    }
  }
  return `/${segments.join('/')}`;
}
