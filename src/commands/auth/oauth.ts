/**
 * `auth login --oauth`: sign in through an OAuth client an admin registered, instead of pasting a
 * key. linkctl listens once on the client's loopback redirect URI, prints the authorize URL (and
 * opens a browser on a desktop), takes the one code, exchanges it with the client secret, and
 * saves the token as the profile's key. The product's flow: src/model/oauth.ts.
 */
import { spawn } from 'node:child_process';
import type { Context } from '../../context.js';
import { AuthError, NetworkError, UsageError } from '../../errors.js';
import type { Profile } from '../../config/store.js';
import type { Result } from '../../output/types.js';
import { maskKey } from '../../redact.js';
import { authorizeUrl, exchangeCode } from '../../model/oauth.js';
import { listenForCode, loopbackRedirect } from './redirect.js';
import { saveKey, verify, type ApiPlace } from './keys.js';
import { VERSION } from '../../version.js';

/** How long a person has to approve (the default of --wait). */
export const APPROVAL_SECONDS = 300;

export async function oauthLogin(
  ctx: Context,
  { name, existing, baseUrl, api, opts }: { name: string; existing?: Profile; baseUrl: string; api: ApiPlace; opts: Record<string, any> },
): Promise<Result> {
  if (opts.withToken) throw new UsageError('--oauth and --with-token exclude each other: --oauth gets a token through the browser', 'drop --with-token, or drop --oauth to paste a key');
  if (opts.verify === false) throw new UsageError('--oauth always checks what it gets: --no-verify does not apply');
  const clientId = typeof opts.clientId === 'string' ? opts.clientId.trim() : '';
  if (!clientId) throw new UsageError('--oauth needs --client-id: the id of the OAuth client an admin registered for linkctl', 'e.g. linkctl auth login --oauth --client-id ID --redirect-uri http://127.0.0.1:8765/linkctl-callback');
  if (!opts.redirectUri) throw new UsageError('--oauth needs --redirect-uri: the loopback redirect URI registered with the client', 'e.g. --redirect-uri http://127.0.0.1:8765/linkctl-callback');
  const redirect = loopbackRedirect(String(opts.redirectUri));
  if (!opts.clientSecretStdin && !ctx.interactive) {
    throw new UsageError('no terminal to ask for the client secret; pipe it in with --client-secret-stdin', 'printf %s "$CLIENT_SECRET" | linkctl auth login --oauth --client-secret-stdin ...');
  }
  const secret = await ctx.secret('the client secret', '--client-secret', Boolean(opts.clientSecretStdin));
  ctx.secrets.push(secret);

  // Sent without a key; the token exchange too (src/model/oauth.ts).
  const client = await ctx.clientFor(baseUrl, '', { apiPath: api.path });
  const approveAt = authorizeUrl(client.base, clientId, redirect.href);
  const waiting = await listenForCode(redirect, ((opts.approveWithin as number | undefined) ?? APPROVAL_SECONDS) * 1000, ctx.io.signal);
  let code: string;
  try {
    await checkAuthorizePage(ctx, client, approveAt, clientId);
    const opened = opts.browser !== false && openBrowser(ctx, approveAt);
    ctx.warn(`${opened ? 'Opened your browser at' : 'Open this URL in a browser to approve linkctl'}: ${approveAt}\nWaiting for the approval on ${redirect.href} (at most ${Math.round(((opts.approveWithin as number | undefined) ?? APPROVAL_SECONDS) / 60 * 10) / 10} minutes; Ctrl-C to stop).`);
    code = await waiting.code;
  } finally {
    await waiting.close();
  }
  ctx.secrets.push(code);
  const { token, expiresAt } = await exchangeCode(client, code, secret);
  ctx.secrets.push(token);
  // The token is used as a key: read the account with it, as `auth login` checks a key.
  const username = await verify(ctx, baseUrl, token, { ...api, given: true });
  const { store, isDefault } = await saveKey(ctx, {
    name, existing, baseUrl, key: token, apiPath: api.path, insecureStorage: Boolean(opts.insecureStorage),
    extra: { keyKind: 'oauth', oauthClient: clientId, ...(expiresAt ? { keyExpires: expiresAt } : {}) },
  });
  const where = store === 'keychain' ? 'the system keychain' : 'the config file';
  return {
    kind: 'message',
    message: `Logged in to ${baseUrl}${username ? ` as ${username}` : ''} through OAuth client ${clientId} (profile ${name}${isDefault ? ', the default' : ''}); token ${maskKey(token)} in ${where}${expiresAt ? `, expires ${expiresAt.slice(0, 10)} (it cannot be refreshed: log in again then)` : ''}.`,
    json: { profile: name, baseUrl, apiPath: api.path, username: username ?? null, default: isDefault, verified: true, keyStore: store, keyKind: 'oauth', oauthClient: clientId, expires: expiresAt ?? null },
  };
}

/**
 * The authorize page asked once without a session or key, before anyone waits on it: a server
 * that refuses the client or the redirect before sign-in says so here (exit 3 at once), instead
 * of in a browser while linkctl waits. A page that asks to sign in first, or to approve, is fine.
 */
async function checkAuthorizePage(ctx: Context, client: { download: (url: string, max?: number, peek?: { userAgent: string }) => Promise<{ status: number; bytes: Buffer }> }, url: string, clientId: string): Promise<void> {
  let answer;
  try {
    answer = await client.download(url, 256 * 1024, { userAgent: `linkctl/${VERSION}` });
  } catch (error) {
    if (error instanceof NetworkError) throw new NetworkError(`cannot reach the authorize page: ${error.message}`, error.hint);
    throw error;
  }
  if (answer.status < 400) return;
  const html = answer.bytes.toString('utf8');
  const said = (/<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(html)?.[1] ?? /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1] ?? '')
    .replace(/<[^>]*>/g, '').replace(/\s+/g, ' ').trim().slice(0, 200);
  const paragraph = /<p[^>]*>([\s\S]*?)<\/p>/i.exec(html)?.[1]?.replace(/<[^>]*>/g, '').replace(/\s+/g, ' ').trim().slice(0, 300);
  void ctx;
  throw new AuthError(
    `the server refused the authorize request of client ${clientId} (HTTP ${answer.status}${said ? `: ${said}` : ''}${paragraph ? `. ${paragraph}` : ''})`,
    answer.status === 404
      ? 'check --client-id: the admin sees the client id in the OAuth client settings'
      : 'the redirect URI must be the one registered with the client (trailing slashes aside): check --redirect-uri against the OAuth client settings',
  );
}

/**
 * Opens `url` in the desktop's browser: macOS and Windows always have one; elsewhere only with a
 * display (DISPLAY, WAYLAND_DISPLAY). False where there is none or it could not start: the URL is
 * printed either way.
 */
function openBrowser(ctx: Context, url: string): boolean {
  const env = ctx.env;
  const [command, args] =
    process.platform === 'darwin' ? ['open', [url]]
      : process.platform === 'win32' ? ['rundll32', ['url.dll,FileProtocolHandler', url]]
        : env.DISPLAY || env.WAYLAND_DISPLAY ? ['xdg-open', [url]]
          : [undefined, []];
  if (!command) return false;
  try {
    const child = spawn(command, args as string[], { detached: true, stdio: 'ignore', env: env as NodeJS.ProcessEnv });
    child.on('error', () => ctx.warn(`Could not start ${command}: open the URL yourself.`));
    child.unref();
    return true;
  } catch {
    return false;
  }
}
