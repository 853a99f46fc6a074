/**
 * Effective settings: flag > environment > profile > default. Each value remembers where it
 * came from so `auth status` can say so. A key from LINKCTL_API_KEY with a base URL from a
 * flag or the environment never touches the config file.
 */
import { ConfigError } from '../errors.js';
import { readConfig, type ConfigData } from './store.js';

export type Source = 'flag' | 'environment' | 'profile' | 'default' | 'sandbox';

export interface Sourced<T> {
  value: T;
  source: Source;
}

export interface GlobalFlags {
  profile?: string;
  baseUrl?: string;
}

export interface Settings {
  profile: Sourced<string>;
  baseUrl?: Sourced<string>;
  apiKey?: Sourced<string>;
  /** The config as read, when it had to be read. */
  config?: { path: string; data: ConfigData };
}

export const DEFAULT_PROFILE = 'default';

type Env = Record<string, string | undefined>;

export function resolveSettings(flags: GlobalFlags, env: Env): Settings {
  const envKey = env.LINKCTL_API_KEY || undefined;
  const flagOrEnvUrl: Sourced<string> | undefined = flags.baseUrl
    ? { value: flags.baseUrl, source: 'flag' }
    : env.LINKCTL_BASE_URL
      ? { value: env.LINKCTL_BASE_URL, source: 'environment' }
      : undefined;
  const explicitProfile: Sourced<string> | undefined = flags.profile
    ? { value: flags.profile, source: 'flag' }
    : env.LINKCTL_PROFILE
      ? { value: env.LINKCTL_PROFILE, source: 'environment' }
      : undefined;

  // Everything needed is outside the config file: do not read it.
  if (envKey && flagOrEnvUrl && !explicitProfile) {
    return {
      profile: { value: DEFAULT_PROFILE, source: 'default' },
      baseUrl: flagOrEnvUrl,
      apiKey: { value: envKey, source: 'environment' },
    };
  }

  const config = readConfig(env);
  const profile: Sourced<string> = explicitProfile ?? (config.data.defaultProfile
    ? { value: config.data.defaultProfile, source: 'profile' }
    : { value: DEFAULT_PROFILE, source: 'default' });
  const stored = config.data.profiles[profile.value];
  if (explicitProfile && !stored && !(envKey && flagOrEnvUrl)) {
    const known = Object.keys(config.data.profiles);
    throw new ConfigError(
      `unknown profile "${profile.value}"${known.length ? ` (known: ${known.join(', ')})` : ' (no profiles yet)'}`,
      `run \`linkctl auth login --profile ${profile.value}\` to create it`,
    );
  }
  return {
    profile,
    baseUrl: flagOrEnvUrl ?? (stored?.baseUrl ? { value: stored.baseUrl, source: 'profile' } : undefined),
    apiKey: envKey ? { value: envKey, source: 'environment' } : stored?.apiKey ? { value: stored.apiKey, source: 'profile' } : undefined,
    config,
  };
}
