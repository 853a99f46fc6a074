import { ACCOUNT_PATH } from '../../model/account.js';
import type { Context } from '../../context.js';
import { AuthError, CliError, ConfigError, ExitCode, UsageError } from '../../errors.js';
import { maskKey } from '../../redact.js';
import { readConfig, updateConfig, type ConfigData, type Profile } from '../../config/store.js';
import { activeProfile, checkProfileName, keyLooksValid, storedKey } from '../../config/settings.js';
import type { Result } from '../../output/types.js';
import type { ActionInput } from '../shared/define.js';
import { normaliseBaseUrl } from '../../http/client.js';
import { withLikelyScheme } from '../../http/loopback.js';
import { DEFAULT_API_PATH, normaliseApiPath } from '../../http/api-path.js';
import { forget, saveKey, verify, type ApiPlace } from './keys.js';

function profileName(ctx: Context): string {
  return activeProfile(ctx.globals, ctx.env, readConfig(ctx.env).data).value;
}

const KEY_TRIES = 3;

/** How `auth status` says where each value came from, in words (the sources stay as data in --json). */
const PROFILE_FROM: Record<string, string> = { flag: 'chosen with --profile', environment: 'chosen with LINKCTL_PROFILE', profile: 'the default profile', default: 'none chosen, so "default"' };
const BASE_URL_FROM: Record<string, string> = { flag: 'given with --base-url', environment: 'from LINKCTL_BASE_URL', profile: 'saved in the profile' };
const API_PATH_FROM: Record<string, string> = { flag: 'given with --api-path', environment: 'from LINKCTL_API_PATH', profile: 'saved in the profile' };
const KEY_FROM: Record<string, string> = { environment: 'from LINKCTL_API_KEY', profile: 'saved in the config file', keychain: 'saved in the system keychain' };

export async function login(ctx: Context, { opts }: ActionInput): Promise<Result> {
  // Without --profile, login renews the key of the profile in use (the default one).
  const name = profileName(ctx);
  const existing = readConfig(ctx.env).data.profiles[name];
  // A bad base URL is named where it came from: a flag, the environment, the profile (never a flag not typed).
  const given: Array<[string | undefined, string]> = [
    [ctx.globals.baseUrl, '--base-url'],
    [ctx.env.LINKCTL_BASE_URL, 'LINKCTL_BASE_URL'],
    [existing?.baseUrl, `the base URL of profile "${name}"`],
  ];
  const [rawUrl, source] = given.find(([value]) => value) ?? [];
  let baseUrl: string;
  if (rawUrl) baseUrl = normaliseBaseUrl(rawUrl, source).href.replace(/\/$/, '');
  else if (!opts.withToken && ctx.interactive) baseUrl = await askBaseUrl(ctx);
  else throw new UsageError('a new profile needs the base URL of its server (the site root)', 'give it with --base-url https://links.example.com, or run `linkctl auth login` at a terminal to be asked');

  // The API path: --api-path or LINKCTL_API_PATH as given; else the profile's, or /api, and found on the developer page when the API is not there.
  const givenPath = ctx.globals.apiPath ? normaliseApiPath(ctx.globals.apiPath) : ctx.env.LINKCTL_API_PATH ? normaliseApiPath(ctx.env.LINKCTL_API_PATH, 'LINKCTL_API_PATH') : undefined;
  const api: ApiPlace = { path: givenPath ?? (existing?.apiPath ? normaliseApiPath(existing.apiPath, `the apiPath of profile "${name}"`) : DEFAULT_API_PATH), given: givenPath !== undefined };
  if (opts.oauth) return (await import('./oauth.js')).oauthLogin(ctx, { name, existing, baseUrl, api, opts });
  const oauthOnly = [['--client-id', opts.clientId], ['--client-secret-stdin', opts.clientSecretStdin], ['--redirect-uri', opts.redirectUri], ['--no-browser', opts.browser === false], ['--approve-within', opts.approveWithin]].find(([, v]) => v);
  if (oauthOnly) throw new UsageError(`${oauthOnly[0]} goes with --oauth`, 'add --oauth to sign in through an OAuth client, or leave it out to paste a key');

  let key: string;
  let username: string | undefined;
  if (opts.withToken) {
    key = (await ctx.readStdin()).trim();
    if (!key) throw new UsageError('--with-token: stdin was empty; pipe the key in, e.g. `echo "$KEY" | linkctl auth login --with-token`', 'pipe the key in: echo "$KEY" | linkctl auth login --with-token');
    if (!keyLooksValid(key)) throw new UsageError('the key contains white space or control characters; paste it again', 'copy the key again from the developer page, without line breaks');
    if (opts.verify !== false) username = await verify(ctx, baseUrl, key, api);
  } else {
    if (!ctx.interactive) throw new UsageError('no terminal to ask for the key; pipe it in with --with-token', 'echo "$KEY" | linkctl auth login --with-token');
    // At the prompt, a mistyped or rejected key can be typed again.
    for (let attempt = 1; ; attempt++) {
      key = (await ctx.secret('API key', '--with-token', false)).trim();
      try {
        if (!keyLooksValid(key)) throw new UsageError('the key contains white space or control characters; paste it again', 'copy the key again from the developer page, without line breaks');
        if (opts.verify !== false) username = await verify(ctx, baseUrl, key, api);
        break;
      } catch (error) {
        if (attempt >= KEY_TRIES || !(error instanceof UsageError || error instanceof AuthError)) throw error;
        ctx.warn(`${error.message[0]!.toUpperCase()}${error.message.slice(1).replace(/\.$/, '')}. Try again (${KEY_TRIES - attempt} ${KEY_TRIES - attempt === 1 ? 'try' : 'tries'} left).`);
      }
    }
    // Typed at the prompt over a different key: ask first (--with-token replaces, as gh does, so CI can log in again).
    const previous = existing ? previousKey(ctx, name, existing) : undefined;
    if (previous !== undefined && previous !== key) await ctx.confirm(`Profile "${name}" already has a different key. Replace it?`);
  }

  const { store, isDefault } = await saveKey(ctx, { name, existing, baseUrl, key, apiPath: api.path, insecureStorage: Boolean(opts.insecureStorage) });
  const where = store === 'keychain' ? 'the system keychain' : 'the config file';
  return {
    kind: 'message',
    message: `Logged in to ${baseUrl}${username ? ` as ${username}` : ''} (profile ${name}${isDefault ? ', the default' : ''}); key ${maskKey(key)} in ${where}${opts.verify === false ? ', not checked' : ''}${api.path === DEFAULT_API_PATH ? '' : `; API at ${api.path}`}.`,
    json: { profile: name, baseUrl, apiPath: api.path, username: username ?? null, default: isDefault, verified: opts.verify !== false, keyStore: store },
  };
}

const URL_TRIES = 3;

/**
 * The base URL typed at the prompt. A host without a scheme (`links.example.com`) is offered
 * back as `https://links.example.com` (this machine's as `http://127.0.0.1:8787`: a local server
 * rarely has a certificate), taken with Enter; anything else that is not an http(s)
 * URL is asked again, up to three tries.
 */
async function askBaseUrl(ctx: Context): Promise<string> {
  const ask = ctx.io.prompt ?? (await import('../../prompt.js')).promptText(ctx.io);
  let offer: string | undefined;
  for (let attempt = 1; ; attempt++) {
    const typed = (await ask(offer ? `Base URL [${offer}]: ` : 'Base URL (the site root, e.g. https://links.example.com): ')).trim();
    const answer = typed || offer || '';
    try {
      if (!answer) throw new UsageError('the base URL is needed: the site root of your server, e.g. https://links.example.com', 'type the site root of your server');
      return normaliseBaseUrl(answer, 'the base URL').href.replace(/\/$/, '');
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      if (attempt >= URL_TRIES) throw new UsageError(error.message, 'run `linkctl auth login` again and type the URL with https:// (or http://)');
      offer = withLikelyScheme(answer);
      ctx.warn(offer ? `"${answer}" has no scheme. Press Enter to use ${offer}, or type the URL.` : `${error.message[0]!.toUpperCase()}${error.message.slice(1)}. Try again.`);
    }
  }
}

/** The key a profile has now; '' (differs from any key) when it is in a keychain that cannot be read. */
function previousKey(ctx: Context, name: string, profile: Profile): string | undefined {
  try {
    return storedKey(ctx.env, name, profile)?.value;
  } catch {
    return '';
  }
}

export async function status(ctx: Context, { opts }: ActionInput): Promise<Result> {
  if (ctx.sandboxMode) {
    return { kind: 'message', message: 'Using the built-in sandbox (--sandbox): no profile or key needed.', json: { sandbox: true } };
  }
  const settings = ctx.settings(); // fails (exit 7) when the settings need a config file that is corrupt
  // With everything from the environment, a bad config file only hides the profile list.
  let data: ConfigData = { profiles: {} };
  let configProblem: string | undefined;
  try {
    data = readConfig(ctx.env).data;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    configProblem = error.message;
  }
  const active = settings.profile.value;
  // An OAuth token (auth login --oauth) is the profile's key: said, with its client and expiry.
  const stored = settings.apiKey && settings.apiKey.source !== 'environment' ? data.profiles[active] : undefined;
  const oauth = stored?.keyKind === 'oauth' ? { client: stored.oauthClient ?? null, expires: stored.keyExpires ?? null } : undefined;
  const expired = oauth?.expires ? Date.parse(oauth.expires) <= Date.now() : false;
  let check: { valid: boolean; detail: string; exitCode?: number };
  if (!settings.apiKey) check = { valid: false, detail: 'no API key', exitCode: ExitCode.auth };
  else if (!settings.baseUrl) check = { valid: false, detail: 'no base URL', exitCode: ExitCode.config };
  else if (expired) check = { valid: false, detail: `the OAuth token expired on ${oauth!.expires!.slice(0, 10)} (tokens cannot be refreshed: run \`linkctl auth login --oauth\` again)`, exitCode: ExitCode.auth };
  else if (opts.verify === false) check = { valid: true, detail: 'not checked (--no-verify)' };
  else {
    try {
      const client = await ctx.client();
      const body = await client.request('GET', ACCOUNT_PATH, { expect: ['data'] });
      const user = (body.data as Record<string, unknown>)?.username;
      check = { valid: true, detail: `valid${user ? `, user ${String(user)}` : ''}` };
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      check = { valid: false, detail: `${error instanceof AuthError ? 'rejected' : 'not checked'}: ${error.message}`, exitCode: error.exitCode };
    }
  }
  const record = {
    profile: active,
    profileSource: settings.profile.source,
    baseUrl: settings.baseUrl?.value ?? null,
    baseUrlSource: settings.baseUrl?.source ?? null,
    key: settings.apiKey ? maskKey(settings.apiKey.value) : null,
    keySource: settings.apiKey?.source ?? null,
    keyKind: settings.apiKey ? (oauth ? 'oauth' : 'key') : null,
    ...(oauth ? { oauthClient: oauth.client, expires: oauth.expires } : {}),
    apiPath: settings.apiPath.value,
    apiPathSource: settings.apiPath.source,
    keyStatus: check.detail,
  };
  const profiles = Object.entries(data.profiles).map(([name, p]) => ({
    name,
    active: name === active,
    default: name === data.defaultProfile,
    baseUrl: p.baseUrl ?? null,
    // A keychain key is not read for the list (the keychain may ask the user for each one).
    key: p.keyStore === 'keychain' ? null : p.apiKey ? maskKey(p.apiKey) : null,
    keyStore: p.keyStore === 'keychain' ? 'keychain' : p.apiKey ? 'file' : null,
    keyKind: p.keyKind === 'oauth' ? 'oauth' : p.apiKey || p.keyStore ? 'key' : null,
    ...(p.keyExpires ? { expires: p.keyExpires } : {}),
  }));
  const lines = profiles.map(
    (p) => `${p.active ? '*' : ' '} ${p.name.padEnd(12)} ${(p.baseUrl ?? '').padEnd(36)} ${!p.keyKind ? 'no key' : `${p.keyKind === 'oauth' ? 'OAuth token' : 'key'}${p.keyStore === 'keychain' ? ' in the system keychain' : ` ${p.key} in the config file`}`}${p.default ? '  (default)' : ''}`,
  );
  return {
    kind: 'record',
    record,
    columns: [
      { key: 'profile', header: 'Profile', show: (r) => `${r.profile}, ${PROFILE_FROM[String(r.profileSource)] ?? `from ${r.profileSource}`}` },
      { key: 'baseUrl', header: 'Base URL', show: (r) => (r.baseUrl ? `${r.baseUrl}, ${BASE_URL_FROM[String(r.baseUrlSource)] ?? `from ${r.baseUrlSource}`}` : 'none') },
      { key: 'apiPath', header: 'API path', show: (r) => `${r.apiPath}${r.apiPathSource === 'default' ? ' (the default)' : `, ${API_PATH_FROM[String(r.apiPathSource)] ?? `from ${r.apiPathSource}`}`}` },
      {
        key: 'key',
        header: 'Key',
        show: (r) => (r.key ? `${r.key}${r.keyKind === 'oauth' ? `, an OAuth token of client ${String(r.oauthClient ?? '?')}${r.expires ? ` expiring ${String(r.expires).slice(0, 10)}` : ''}` : ''}, ${KEY_FROM[String(r.keySource)] ?? `from ${r.keySource}`}` : 'none'),
      },
      { key: 'keyStatus', header: 'Status' },
    ],
    json: { active: record, profiles },
    note: configProblem ?? (profiles.length ? `Profiles (* = active):\n${lines.join('\n')}` : 'No saved profiles. Run `linkctl auth login --base-url URL`.'),
    exitCode: check.exitCode,
  };
}

/** The active key on stdout and nothing else, for `curl -H "Authorization: Bearer $(linkctl auth token)"`. */
export async function token(ctx: Context): Promise<Result> {
  const settings = ctx.settings();
  if (!settings.apiKey) {
    throw new AuthError(`no API key for profile "${settings.profile.value}"`, 'run `linkctl auth login`, or set LINKCTL_API_KEY');
  }
  return { kind: 'message', message: settings.apiKey.value, json: { profile: settings.profile.value, key: settings.apiKey.value, keySource: settings.apiKey.source } };
}

export async function logout(ctx: Context): Promise<Result> {
  const name = profileName(ctx);
  let removed = false;
  let inKeychain = false;
  await updateConfig(ctx.env, (data) => {
    if (!data.profiles[name]) return false;
    inKeychain = data.profiles[name].keyStore === 'keychain';
    delete data.profiles[name];
    removed = true;
    if (data.defaultProfile === name) data.defaultProfile = Object.keys(data.profiles)[0];
  });
  if (!removed) throw new ConfigError(`unknown profile "${name}"`, 'run `linkctl auth status` to see the profiles');
  if (inKeychain) forget(ctx, name);
  return { kind: 'message', message: `Removed profile ${name} and its key.`, json: { profile: name, removed: true } };
}

export async function switchProfile(ctx: Context, { args }: ActionInput): Promise<Result> {
  const name = checkProfileName(String(args[0]), 'auth switch');
  let found = false;
  await updateConfig(ctx.env, (data) => {
    found = Boolean(data.profiles[name]);
    if (!found) return false;
    data.defaultProfile = name;
  });
  if (!found) {
    const known = Object.keys(readConfig(ctx.env).data.profiles);
    throw new ConfigError(`unknown profile "${name}"${known.length ? ` (known: ${known.join(', ')})` : ''}`, `run \`linkctl auth login --profile ${name}\` to create it`);
  }
  return { kind: 'message', message: `Profile ${name} is now the default.`, json: { profile: name, default: true } };
}
