// OAuth sign-in as the product 7.6+ has it: the twin of src/model/oauth.ts. An admin registers a
// client (a name, a client id, a secret and one redirect URI); the person approves at
// `/oauth/authorize?clientid=ID&redirect=URI` (the redirect must equal the registered one, trailing
// slashes aside), and is sent to `URI?code=CODE` (no `state`, no PKCE). `POST /api/oauth/token` with
// `{code, secret}` answers `{error:false, access_token, expires_at}`; its refusals are HTTP 200 with
// `error:true`. The token acts as its user's key for a year, and cannot be refreshed.
import { randomBytes, randomInt } from 'node:crypto';
import { JSON_TYPE, Raw } from './kit.js';
import { timestamp, type OAuthClient, type OAuthState, type State, type User } from './state.js';
import { sameRedirect } from '../model/oauth.js';


/** The client the demo installation has registered (`auth login --oauth --client-id sandbox-client ...`). */
export const SANDBOX_CLIENT: OAuthClient = { name: 'linkctl', clientid: 'sandbox-client', secret: 'sandbox-client-secret', redirect: 'http://127.0.0.1:8765/linkctl-callback' };

const YEAR_MS = 365 * 86_400_000;

export type { OAuthClient };

function oauthOf(state: State): OAuthState {
  return (state.oauth ??= { clients: [{ ...SANDBOX_CLIENT }], codes: [], tokens: [] });
}

/** Registers a client (the admin's form; `POST /__sandbox/oauth-clients` in the sandbox), replacing one of the same id. */
export function registerClient(state: State, client: OAuthClient): void {
  const oauth = oauthOf(state);
  oauth.clients = [...oauth.clients.filter((c) => c.clientid !== client.clientid), client];
}

/** The user a Bearer token of this flow stands for, while it lasts. */
export function tokenUser(state: State, token: string, now: number): User | undefined {
  const found = state.oauth?.tokens.find((t) => t.token === token && t.expires > now);
  return found ? state.users.find((u) => u.id === found.user) : undefined;
}

const page = (status: number, title: string, text: string, form = '') =>
  new Raw(status, `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p>${form}</body></html>\n`);
const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * `/oauth/authorize`: GET shows the approval page (to the signed-in user: the sandbox's is the
 * demo account, user 1); POST with `approve=1` approves and redirects with a code. An unknown
 * client is a 404 page, a redirect that is not the registered one a 400 page, before anything else.
 */
export function authorizePage(state: State, method: string, query: Record<string, string>, body: string): { status: number; headers: Record<string, string>; body: string } | undefined {
  const oauth = oauthOf(state);
  const html = (r: Raw) => ({ status: r.status, headers: { 'Content-Type': r.contentType }, body: r.body });
  const client = oauth.clients.find((c) => c.clientid === query.clientid);
  if (!client) return html(page(404, 'OAuth client not found', 'No application is registered with this client id.'));
  const redirect = query.redirect ?? '';
  if (!sameRedirect(redirect, client.redirect)) return html(page(400, 'Invalid redirect URI', 'The redirect URI does not match the one registered for this application.'));
  if (method === 'GET') {
    const action = `/oauth/authorize?clientid=${encodeURIComponent(client.clientid)}&amp;redirect=${encodeURIComponent(redirect)}`;
    return html(page(200, `Authorize ${escape(client.name)}`, `${escape(client.name)} asks to use your account through the API.`,
      `<form method="post" action="${action}"><input type="hidden" name="approve" value="1"><button type="submit">Approve</button></form>`));
  }
  if (method !== 'POST') return html(page(405, 'Method Not Allowed', 'GET or POST only.'));
  if (new URLSearchParams(body).get('approve') !== '1') return html(page(200, 'Not approved', 'Nothing was shared with the application.'));
  const code = randomBytes(20).toString('hex');
  oauth.codes.push({ code, clientid: client.clientid, user: 1 });
  // The registered URI as given, with the code: no state (the product sends none).
  const to = new URL(redirect);
  to.searchParams.set('code', code);
  return { status: 302, headers: { Location: to.href, 'Content-Type': 'text/html; charset=UTF-8' }, body: '' };
}

/** `POST /api/oauth/token` (no key): the exchange of a code and the client's secret for a token. */
export function exchange(state: State, rawBody: string, now: number): Raw {
  const answer = (value: unknown) => new Raw(200, JSON.stringify(value), JSON_TYPE);
  let body: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(rawBody) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
  } catch { /* read as empty, as the product reads a body that is not JSON */ }
  const oauth = oauthOf(state);
  if (typeof body.code !== 'string' || !body.code) return answer({ error: true, message: 'Invalid request: Missing code' });
  const code = oauth.codes.find((c) => c.code === body.code && !c.used);
  if (!code) return answer({ error: true, message: 'Invalid request: Invalid code' });
  const client = oauth.clients.find((c) => c.clientid === code.clientid);
  if (!client || body.secret !== client.secret) return answer({ error: true, message: 'Invalid request: Invalid secret' });
  code.used = true;
  // `[a-z0-9]+-ddddd-[a-z]+-ddddd`, as the product's tokens are
  const five = () => String(randomInt(0, 100_000)).padStart(5, '0');
  const token = `${randomBytes(12).toString('hex')}-${five()}-oauth-${five()}`;
  const expires = now + YEAR_MS;
  oauth.tokens.push({ token, user: code.user, expires });
  return answer({ error: false, access_token: token, expires_at: timestamp(expires) });
}
