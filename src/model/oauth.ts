/**
 * OAuth sign-in (the product 7.6+). An admin registers a client: a name, a client id, a secret and
 * one redirect URI. The user approves at `{base}/oauth/authorize?clientid=ID&redirect=URI` (a site
 * page, not the API; the redirect must equal the registered one, trailing slashes aside); the
 * product then redirects to `URI?code=CODE`, with no `state` and no PKCE. `POST api/oauth/token`
 * with `{code, secret}` answers `{error:false, access_token, expires_at}`; its errors are HTTP 200
 * with `error:true` ("Invalid request: Missing code", "… Invalid code", "… Invalid secret"). The
 * token is sent as a key (`Authorization: Bearer`), lasts a year and cannot be refreshed.
 */
import type { ApiClient } from '../http/client.js';
import { ApiError, AuthError, NetworkError } from '../errors.js';

export const OAUTH_TOKEN_PATH = 'api/oauth/token';
/** The approval page, under the site root (not the API path). */
export const AUTHORIZE_PAGE = 'oauth/authorize';

/** The URL a person opens to approve `clientId` sending its code to `redirect`. */
export function authorizeUrl(base: URL, clientId: string, redirect: string): string {
  const url = new URL(AUTHORIZE_PAGE, base);
  url.searchParams.set('clientid', clientId);
  url.searchParams.set('redirect', redirect);
  return url.href;
}

/** Whether two redirect URIs are the same to the product: equal, trailing slashes aside. */
export const sameRedirect = (a: string, b: string): boolean => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

/** What each refusal of the exchange means, and what to do. */
const REFUSALS: Array<{ message: RegExp; hint: string }> = [
  { message: /invalid secret/i, hint: 'the client secret is not this client\'s: copy it again from the admin who registered the client, and run `linkctl auth login --oauth` again' },
  { message: /invalid code/i, hint: 'the code was refused (used already, or for another client): run `linkctl auth login --oauth` again and approve once more' },
  { message: /missing code/i, hint: 'no code reached the server: run `linkctl auth login --oauth` again' },
];

/**
 * `POST api/oauth/token`: the access token and when it expires (ISO 8601, or undefined when the
 * server does not say). Sent without a key, and not a change to the account (no ledger entry).
 * A refusal is exit 3, saying why.
 */
export async function exchangeCode(client: ApiClient, code: string, secret: string): Promise<{ token: string; expiresAt?: string }> {
  let body;
  try {
    body = await client.request('POST', OAUTH_TOKEN_PATH, { json: { code, secret }, notAChange: true });
  } catch (error) {
    if (error instanceof ApiError || error instanceof AuthError) {
      const known = REFUSALS.find((r) => r.message.test(error.message));
      throw new AuthError(`the server refused the sign-in code: ${error.message}`, known?.hint ?? 'run `linkctl auth login --oauth` again');
    }
    throw error;
  }
  const token = body.access_token;
  if (typeof token !== 'string' || !/^[\x21-\x7e]+$/.test(token)) throw new NetworkError('the server answered the code without a usable `access_token`', 'run again with --debug to see the answer (the token is redacted)');
  return { token, expiresAt: expiryOf(body.expires_at) };
}

/** `expires_at` as the product sends it (`YYYY-MM-DD HH:MM:SS`, or a Unix time) as ISO 8601. */
function expiryOf(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return new Date(value < 1e12 ? value * 1000 : value).toISOString();
  if (typeof value !== 'string' || !value.trim()) return undefined;
  const text = value.trim();
  const t = Date.parse(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(text) ? `${text.replace(' ', 'T')}Z` : text);
  return Number.isFinite(t) ? new Date(t).toISOString() : undefined;
}
