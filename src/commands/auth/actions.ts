import type { Context } from '../../context.js';
import { AuthError, CliError, ConfigError, ExitCode, UsageError } from '../../errors.js';
import { maskKey } from '../../redact.js';
import { readConfig, updateConfig, type ConfigData } from '../../config/store.js';
import { activeProfile, keyLooksValid } from '../../config/settings.js';
import type { Result } from '../../output/types.js';
import type { ActionInput } from '../shared/define.js';
import { normaliseBaseUrl } from '../../api/client.js';

function profileName(ctx: Context): string {
  return activeProfile(ctx.globals, ctx.env, readConfig(ctx.env).data).value;
}

export async function login(ctx: Context, { opts }: ActionInput): Promise<Result> {
  // Without --profile, login renews the key of the profile in use (the default one).
  const name = profileName(ctx);
  const existing = readConfig(ctx.env).data.profiles[name];
  const rawUrl = ctx.globals.baseUrl || ctx.env.LINKCTL_BASE_URL || existing?.baseUrl;
  if (!rawUrl) throw new UsageError('--base-url is required for a new profile (the site root, e.g. https://links.example.com)');
  const baseUrl = normaliseBaseUrl(rawUrl).href.replace(/\/$/, '');
  let key: string;
  if (opts.withToken) {
    key = (await ctx.readStdin()).trim();
    if (!key) throw new UsageError('--with-token: stdin was empty; pipe the key in, e.g. `echo "$KEY" | linkctl auth login --with-token`');
  } else {
    if (!ctx.interactive) throw new UsageError('no terminal to ask for the key; pipe it in with --with-token');
    key = (await ctx.secret('API key', '--with-token', false)).trim();
  }
  if (!keyLooksValid(key)) throw new UsageError('the key contains white space or control characters; paste it again');

  let username: string | undefined;
  if (opts.verify !== false) {
    const client = await ctx.clientFor(baseUrl, key);
    const body = await client.request('GET', 'api/account', { expect: ['data'] });
    username = (body.data as Record<string, unknown>)?.username as string | undefined;
  }
  const saved = await updateConfig(ctx.env, (data) => {
    data.profiles[name] = { baseUrl, apiKey: key };
    if (!data.defaultProfile || !data.profiles[data.defaultProfile]) data.defaultProfile = name;
  });
  const isDefault = saved.defaultProfile === name;
  return {
    kind: 'message',
    message: `Logged in to ${baseUrl}${username ? ` as ${username}` : ''} (profile ${name}${isDefault ? ', the default' : ''}); key ${maskKey(key)}${opts.verify === false ? ', not checked' : ''}.`,
    json: { profile: name, baseUrl, username: username ?? null, default: isDefault, verified: opts.verify !== false },
  };
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
  let check: { valid: boolean; detail: string; exitCode?: number };
  if (!settings.apiKey) check = { valid: false, detail: 'no API key', exitCode: ExitCode.auth };
  else if (!settings.baseUrl) check = { valid: false, detail: 'no base URL', exitCode: ExitCode.config };
  else if (opts.verify === false) check = { valid: true, detail: 'not checked (--no-verify)' };
  else {
    try {
      const client = await ctx.client();
      const body = await client.request('GET', 'api/account', { expect: ['data'] });
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
    keyStatus: check.detail,
  };
  const profiles = Object.entries(data.profiles).map(([name, p]) => ({
    name,
    active: name === active,
    default: name === data.defaultProfile,
    baseUrl: p.baseUrl ?? null,
    key: maskKey(p.apiKey),
  }));
  const lines = profiles.map((p) => `${p.active ? '*' : ' '} ${p.name.padEnd(12)} ${(p.baseUrl ?? '').padEnd(36)} ${p.key}${p.default ? '  (default)' : ''}`);
  return {
    kind: 'record',
    record,
    columns: [
      { key: 'profile', header: 'Profile', show: (r) => `${r.profile} (from ${r.profileSource})` },
      { key: 'baseUrl', header: 'Base URL', show: (r) => (r.baseUrl ? `${r.baseUrl} (from ${r.baseUrlSource})` : '(none)') },
      { key: 'key', header: 'Key', show: (r) => (r.key ? `${r.key} (from ${r.keySource})` : '(none)') },
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
  await updateConfig(ctx.env, (data) => {
    if (!data.profiles[name]) return false;
    delete data.profiles[name];
    removed = true;
    if (data.defaultProfile === name) data.defaultProfile = Object.keys(data.profiles)[0];
  });
  if (!removed) throw new ConfigError(`unknown profile "${name}"`, 'run `linkctl auth status` to see the profiles');
  return { kind: 'message', message: `Removed profile ${name} and its key.`, json: { profile: name, removed: true } };
}

export async function switchProfile(ctx: Context, { args }: ActionInput): Promise<Result> {
  const name = String(args[0]);
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
