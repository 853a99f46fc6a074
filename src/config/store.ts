/**
 * Profiles on disk, through conf. The file is private (0600, folder 0700), a corrupt file
 * is reported and never reset, and writes happen under a lock with a fresh read so two
 * concurrent `auth login` runs keep both profiles.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, chmodSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConfigError } from '../errors.js';
import { CONFIG_FILE_NAME, configDir } from './paths.js';
import { join } from 'node:path';

export interface Profile {
  baseUrl?: string;
  /** The key, when it is kept in this file (--insecure-storage, no keychain, or saved by an older linkctl). */
  apiKey?: string;
  /** 'keychain': the key is in the operating system's credential store (src/config/keychain.ts). */
  keyStore?: 'keychain';
  /** `linkctl check`: private networks it may request with this profile (`all`, or `10.0.0.0/8,fd00::/8`); set by hand. */
  checkAllowPrivate?: string;
  /** Where the installation serves its API under the base URL (`/v2`), when not at `/api`: found by `auth login`, or set by hand. */
  apiPath?: string;
  /** `oauth`: the key is an OAuth access token (`auth login --oauth`), with the client it came from and when it expires. */
  keyKind?: 'oauth';
  oauthClient?: string;
  /** ISO 8601; OAuth tokens last a year and cannot be refreshed. */
  keyExpires?: string;
  /** The policy file (src/policy/) every write with this profile keeps, unless --policy or LINKCTL_POLICY names another; set by hand, relative to the config folder. */
  policy?: string;
}

export interface ConfigData {
  defaultProfile?: string;
  profiles: Record<string, Profile>;
}

type Env = Record<string, string | undefined>;

const LOCK_STALE_MS = 10_000;
/** Long enough for many parallel logins of one CI job on a loaded machine: each holds the lock only to write. */
const LOCK_TIMEOUT_MS = 30_000;

function corrupt(path: string): ConfigError {
  // The parse error would quote the file's text, which may hold a key: never pass it on.
  return new ConfigError(
    `the config file ${path} is not valid JSON or not a linkctl config; it was left untouched`,
    'fix it by hand, or move it away and run `linkctl auth login` again',
  );
}

function unreadable(path: string, error: unknown): ConfigError {
  const code = (error as NodeJS.ErrnoException)?.code ?? 'error';
  return new ConfigError(`cannot read the config file ${path} (${code})`, 'check its owner and permissions');
}

function unwritable(path: string, error: unknown): ConfigError {
  const code = (error as NodeJS.ErrnoException)?.code ?? 'error';
  return new ConfigError(`cannot write the config at ${path} (${code})`, 'check the owner and permissions of the folder, or set LINKCTL_CONFIG_DIR');
}

const isObject = (value: unknown): value is Record<string, unknown> => Boolean(value) && typeof value === 'object' && !Array.isArray(value);

/** A field of the file with a value of the wrong type: named, with what it must be (the value itself may be a key). */
function wrongField(path: string, field: string, must: string): ConfigError {
  return new ConfigError(`the config file ${path} is not usable: ${field} must be ${must}; it was left untouched`, 'fix it by hand, or run `linkctl auth login` for that profile again');
}

const typeName = (value: unknown) => (Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`);

/**
 * The profiles of a parsed file; a shape we do not know is treated as corrupt, never reset.
 * Profiles live in an object without a prototype, so a name such as `__proto__` or `valueOf`
 * is looked up among the profiles only.
 */
function normalise(raw: unknown, path: string): ConfigData {
  if (!isObject(raw)) throw corrupt(path);
  if (raw.profiles !== undefined && !isObject(raw.profiles)) throw wrongField(path, '`profiles`', `an object of profiles, not ${typeName(raw.profiles)}`);
  if (raw.defaultProfile !== undefined && typeof raw.defaultProfile !== 'string') throw wrongField(path, '`defaultProfile`', `a profile name, not ${typeName(raw.defaultProfile)}`);
  const profiles: Record<string, Profile> = Object.create(null) as Record<string, Profile>;
  for (const [name, profile] of Object.entries(raw.profiles ?? {})) {
    const field = `\`profiles.${name}\``;
    if (!isObject(profile)) throw wrongField(path, field, `an object, not ${typeName(profile)}`);
    const { apiKey, baseUrl } = profile;
    if (apiKey !== undefined && (typeof apiKey !== 'string' || !apiKey)) throw wrongField(path, `\`profiles.${name}.apiKey\``, `a non-empty string, not ${typeName(apiKey)}`);
    if (baseUrl !== undefined && (typeof baseUrl !== 'string' || !/^https?:\/\/[^/]/i.test(baseUrl))) {
      throw wrongField(path, `\`profiles.${name}.baseUrl\``, 'an http:// or https:// URL');
    }
    if (profile.checkAllowPrivate !== undefined && typeof profile.checkAllowPrivate !== 'string') {
      throw wrongField(path, `\`profiles.${name}.checkAllowPrivate\``, `"all" or networks separated by commas, not ${typeName(profile.checkAllowPrivate)}`);
    }
    for (const field of ['apiPath', 'oauthClient', 'keyExpires'] as const) {
      if (profile[field] !== undefined && (typeof profile[field] !== 'string' || !profile[field])) throw wrongField(path, `\`profiles.${name}.${field}\``, `a non-empty string, not ${typeName(profile[field])}`);
    }
    if (profile.keyKind !== undefined && profile.keyKind !== 'oauth') throw wrongField(path, `\`profiles.${name}.keyKind\``, '"oauth" or absent');
    if (profile.policy !== undefined && (typeof profile.policy !== 'string' || !profile.policy)) {
      throw wrongField(path, `\`profiles.${name}.policy\``, `the path of a policy file, not ${typeName(profile.policy)}`);
    }
    profiles[name] = profile as Profile;
  }
  return { defaultProfile: raw.defaultProfile as string | undefined, profiles };
}

/**
 * Reads the config without conf (fast, no writes at all): read-only commands use this.
 * A missing file is an empty config.
 */
export function readConfig(env: Env): { path: string; data: ConfigData } {
  const path = join(configDir(env), CONFIG_FILE_NAME);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { path, data: { profiles: {} } };
    throw unreadable(path, error);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw corrupt(path);
  }
  return { path, data: normalise(parsed, path) };
}

async function withLock<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const lock = join(dir, `${CONFIG_FILE_NAME}.lock`);
  const started = Date.now();
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx', 0o600));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw unreadable(lock, error);
      try {
        if (Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS) unlinkSync(lock);
      } catch {
        // Another process removed it first.
      }
      if (Date.now() - started > LOCK_TIMEOUT_MS) {
        throw new ConfigError(`the config file is locked by another linkctl (${lock})`, 'remove the lock file if no linkctl is running');
      }
      await sleep(20 + Math.random() * 30);
    }
  }
  try {
    return await fn();
  } finally {
    try {
      unlinkSync(lock);
    } catch {
      // Already gone.
    }
  }
}

/**
 * Changes the config: takes the lock, re-reads the file through conf, applies `change`
 * and writes it back atomically with mode 0600. When `change` returns false nothing is
 * written (a failed `auth logout` must not create or rewrite the file). Keys of the file
 * that linkctl does not know are kept.
 */
export async function updateConfig(env: Env, change: (data: ConfigData) => boolean | void): Promise<ConfigData> {
  const dir = configDir(env);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw unwritable(dir, error);
  }
  // Loaded before taking the lock: the lock is held only while reading and writing the file.
  const { default: Conf } = await import('conf');
  return withLock(dir, async () => {
    let conf: InstanceType<typeof Conf<Record<string, unknown>>>;
    const path = join(dir, CONFIG_FILE_NAME);
    try {
      conf = new Conf<Record<string, unknown>>({
        cwd: dir,
        configName: 'config',
        projectName: 'linkctl',
        configFileMode: 0o600,
        accessPropertiesByDotNotation: false,
        clearInvalidConfig: false,
      });
    } catch (error) {
      if (error instanceof SyntaxError || (error as Error)?.name === 'SyntaxError') throw corrupt(path);
      throw unreadable(path, error);
    }
    const data = normalise(conf.store, conf.path);
    if (change(data) === false) return data;
    const { defaultProfile: _old, ...others } = conf.store;
    try {
      conf.store = { ...others, profiles: { ...data.profiles }, ...(data.defaultProfile ? { defaultProfile: data.defaultProfile } : {}) };
    } catch (error) {
      throw unwritable(conf.path, error);
    }
    // A file created before by another tool may be more open than we want.
    if (existsSync(conf.path)) chmodSync(conf.path, 0o600);
    return data;
  });
}
