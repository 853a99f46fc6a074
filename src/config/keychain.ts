/**
 * API keys in the operating system's credential store (macOS Keychain, Windows Credential
 * Manager, the Secret Service on Linux) through @napi-rs/keyring, as gh does. The native addon
 * is loaded only when a profile's key is read from or written to the store: a key from
 * LINKCTL_API_KEY, or a key kept in the config file, loads nothing.
 *
 * On Linux the entry is pinned to the Secret Service: the kernel keyring (the library's
 * fallback) forgets everything at logout, so without a Secret Service the key goes to the
 * config file instead, and `auth login` says so.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { CONFIG_FILE_NAME, configDir } from './paths.js';

type Env = Record<string, string | undefined>;

interface Entry {
  getPassword(): string | null;
  setPassword(password: string): void;
  deletePassword(): boolean;
}
type EntryClass = new (service: string, account: string, options?: { linux?: { store?: 'secret-service' | 'keyutils' } }) => Entry;

/** The store could not be used (none on this machine, locked, refused); `reason` is the library's. */
export class KeychainUnavailable extends Error {}

let EntryCtor: EntryClass | undefined;

/**
 * The entry of a profile. The service names the config file, so two config folders
 * (LINKCTL_CONFIG_DIR, as tests use) never share a profile's key.
 */
function entry(env: Env, profile: string): Entry {
  try {
    EntryCtor ??= (createRequire(import.meta.url)('@napi-rs/keyring') as { Entry: EntryClass }).Entry;
    return new EntryCtor(`linkctl:${join(configDir(env), CONFIG_FILE_NAME)}`, profile, { linux: { store: 'secret-service' } });
  } catch (error) {
    throw new KeychainUnavailable(reason(error));
  }
}

function reason(error: unknown): string {
  const message = (error as Error)?.message ?? String(error);
  return message.split('\n')[0]!.slice(0, 200);
}

/** The key stored for a profile, undefined when there is none; throws KeychainUnavailable. */
export function readKeychain(env: Env, profile: string): string | undefined {
  const store = entry(env, profile);
  try {
    return store.getPassword() ?? undefined;
  } catch (error) {
    throw new KeychainUnavailable(reason(error));
  }
}

/** Stores a profile's key; throws KeychainUnavailable when no store takes it. */
export function writeKeychain(env: Env, profile: string, key: string): void {
  const store = entry(env, profile);
  try {
    store.setPassword(key);
    // A store that accepts and forgets (no persistent collection) is no store.
    if (store.getPassword() !== key) throw new Error('the stored key did not read back');
  } catch (error) {
    throw new KeychainUnavailable(reason(error));
  }
}

/** Removes a profile's key; true when one was removed. Throws KeychainUnavailable. */
export function deleteKeychain(env: Env, profile: string): boolean {
  const store = entry(env, profile);
  try {
    return store.deletePassword();
  } catch (error) {
    throw new KeychainUnavailable(reason(error));
  }
}
