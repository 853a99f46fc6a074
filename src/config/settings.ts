/**
 * Effective settings: flag > environment > profile > default. Each value remembers where it
 * came from so `auth status` can say so. A key from LINKCTL_API_KEY with a base URL from a
 * flag or the environment never touches the config file.
 */
import { ConfigError, UsageError } from '../errors.js';
import { KeychainUnavailable, readKeychain } from './keychain.js';
import { readConfig, type ConfigData, type Profile } from './store.js';
import { DEFAULT_API_PATH, normaliseApiPath } from '../http/api-path.js';

/** Where a value came from; 'profile' is the config file, 'keychain' the system's credential store. */
export type Source = 'flag' | 'environment' | 'profile' | 'keychain' | 'default' | 'sandbox';

export interface Sourced<T> {
  value: T;
  source: Source;
}

export interface GlobalFlags {
  profile?: string;
  baseUrl?: string;
  apiPath?: string;
}

export interface Settings {
  profile: Sourced<string>;
  baseUrl?: Sourced<string>;
  apiKey?: Sourced<string>;
  /** Where the installation serves its API under the base URL (`/api` by default; src/http/api-path.ts). */
  apiPath: Sourced<string>;
  /** The profile's `checkAllowPrivate` (`linkctl check`: private networks it may request); the flag and environment are check's own. */
  checkAllowPrivate?: Sourced<string>;
}

export const DEFAULT_PROFILE = 'default';

type Env = Record<string, string | undefined>;

/** Keys are printable ASCII without spaces; anything else cannot go in an HTTP header and is a paste gone wrong. */
export function keyLooksValid(key: string): boolean {
  return /^[\x21-\x7e]+$/.test(key);
}

const PROFILE_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** A profile name: letters, digits, `-`, `_` and `.`, at most 64. Anything else is refused (exit 2) before use. */
export function checkProfileName(name: string, where: string): string {
  if (!PROFILE_NAME.test(name)) {
    throw new UsageError(`${where}: a profile name is 1 to 64 letters, digits, "-", "_" or ".", got ${JSON.stringify(name.slice(0, 80))}`, 'choose a name such as work, ci or client-a.prod');
  }
  return name;
}

/** The profile in use: flag > environment > the config's default > "default". The one rule for every command. */
export function activeProfile(flags: GlobalFlags, env: Env, config?: ConfigData): Sourced<string> {
  if (flags.profile) return { value: checkProfileName(flags.profile, '--profile'), source: 'flag' };
  if (env.LINKCTL_PROFILE) return { value: checkProfileName(env.LINKCTL_PROFILE, 'LINKCTL_PROFILE'), source: 'environment' };
  if (config?.defaultProfile) return { value: config.defaultProfile, source: 'profile' };
  return { value: DEFAULT_PROFILE, source: 'default' };
}

export function resolveSettings(flags: GlobalFlags, env: Env): Settings {
  const envKey = env.LINKCTL_API_KEY || undefined;
  const flagOrEnvUrl: Sourced<string> | undefined = flags.baseUrl
    ? { value: flags.baseUrl, source: 'flag' }
    : env.LINKCTL_BASE_URL
      ? { value: env.LINKCTL_BASE_URL, source: 'environment' }
      : undefined;
  const explicit = Boolean(flags.profile || env.LINKCTL_PROFILE);
  const flagOrEnvPath: Sourced<string> | undefined = flags.apiPath
    ? { value: normaliseApiPath(flags.apiPath, '--api-path'), source: 'flag' }
    : env.LINKCTL_API_PATH
      ? { value: normaliseApiPath(env.LINKCTL_API_PATH, 'LINKCTL_API_PATH'), source: 'environment' }
      : undefined;
  const defaultPath: Sourced<string> = { value: DEFAULT_API_PATH, source: 'default' };

  // Everything needed is outside the config file: do not read it.
  if (envKey && flagOrEnvUrl && !explicit) {
    return { profile: activeProfile(flags, env), baseUrl: flagOrEnvUrl, apiKey: { value: envKey, source: 'environment' }, apiPath: flagOrEnvPath ?? defaultPath };
  }

  const config = readConfig(env);
  const profile = activeProfile(flags, env, config.data);
  const stored = config.data.profiles[profile.value];
  if (explicit && !stored && !(envKey && flagOrEnvUrl)) {
    const known = Object.keys(config.data.profiles);
    throw new ConfigError(
      `unknown profile "${profile.value}"${known.length ? ` (known: ${known.join(', ')})` : ' (no profiles yet)'}`,
      `run \`linkctl auth login --profile ${profile.value}\` to create it`,
    );
  }
  return {
    profile,
    baseUrl: flagOrEnvUrl ?? (stored?.baseUrl ? { value: stored.baseUrl, source: 'profile' } : undefined),
    apiKey: envKey ? { value: envKey, source: 'environment' } : storedKey(env, profile.value, stored),
    apiPath: flagOrEnvPath ?? (stored?.apiPath ? { value: profileApiPath(stored.apiPath, profile.value), source: 'profile' } : defaultPath),
    ...(stored?.checkAllowPrivate ? { checkAllowPrivate: { value: stored.checkAllowPrivate, source: 'profile' as const } } : {}),
  };
}

/** A profile's `apiPath`: one that is not a path is the config file's fault (exit 7), named. */
function profileApiPath(value: string, name: string): string {
  try {
    return normaliseApiPath(value, `the apiPath of profile "${name}"`);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    throw new ConfigError(error.message, `fix it in the config file, or run \`linkctl auth login --profile ${name}\` again`);
  }
}

/** A profile's own key: from the keychain when it is kept there (loading the keychain library only then), else from the file. */
export function storedKey(env: Env, name: string, stored: Profile | undefined): Sourced<string> | undefined {
  if (stored?.keyStore === 'keychain') {
    let key: string | undefined;
    try {
      key = readKeychain(env, name);
    } catch (error) {
      if (!(error instanceof KeychainUnavailable)) throw error;
      throw new ConfigError(
        `cannot read the key of profile "${name}" from the system keychain (${error.message})`,
        'unlock the keychain and try again, or set LINKCTL_API_KEY, or run `linkctl auth login --insecure-storage` to keep the key in the config file',
      );
    }
    return key ? { value: key, source: 'keychain' } : undefined;
  }
  return stored?.apiKey ? { value: stored.apiKey, source: 'profile' } : undefined;
}
