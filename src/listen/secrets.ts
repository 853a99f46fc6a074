/**
 * The two secrets of `linkctl listen`, kept per profile in `listen.json` in linkctl's state
 * folder (mode 0600, beside the bulk journals; never the API key):
 *
 * - `path`: the long random part of the URLs pasted into the product. The product can carry no
 *   other authentication, so whoever knows the URL can post events: it is 32 random bytes, and
 *   the same after a restart (the product keeps the URLs it was given).
 * - `signing`: the HMAC key of `--forward-to`'s `Linkctl-Signature` header, unless `--secret` or
 *   LINKCTL_LISTEN_SECRET gives one. Made on first use and printed once, for the receiver.
 */
import { randomBytes } from 'node:crypto';
import { fsyncSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { replaceFile } from '../files/temp.js';
import { stateDir } from '../config/paths.js';
import { ConfigError } from '../errors.js';

export interface ListenSecrets {
  path: string;
  signing?: string;
}

export const SECRET_ENV = 'LINKCTL_LISTEN_SECRET';

export const listenFile = (env: Record<string, string | undefined>) => join(stateDir(env), 'listen.json');

const newSecret = () => randomBytes(32).toString('base64url');

function read(file: string): Record<string, ListenSecrets> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code})`, 'check its permissions');
  }
  try {
    const data = JSON.parse(text) as unknown;
    if (typeof data === 'object' && data !== null && !Array.isArray(data)) return data as Record<string, ListenSecrets>;
  } catch {
    // below
  }
  throw new ConfigError(`${file} is damaged (not the JSON linkctl listen writes)`, 'remove it: listen makes new URLs (paste them into the product again) and a new signing secret');
}

/** Written whole to a temporary file, synced, then renamed over: a crash leaves the old file or the new one. */
function write(file: string, data: Record<string, ListenSecrets>): void {
  mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
  replaceFile(file, (fd) => {
    writeFileSync(fd, `${JSON.stringify(data, null, 2)}\n`);
    fsyncSync(fd);
  });
}

/**
 * The profile's secrets, made and stored when missing. `madeSigning` says the signing secret was
 * made now (listen prints it once).
 */
export function profileSecrets(env: Record<string, string | undefined>, profile: string, needSigning: boolean): ListenSecrets & { madeSigning: boolean } {
  const file = listenFile(env);
  const all = read(file);
  const mine = { ...all[profile] } as ListenSecrets;
  let changed = false;
  if (typeof mine.path !== 'string' || mine.path.length < 32) {
    mine.path = newSecret();
    changed = true;
  }
  let madeSigning = false;
  if (needSigning && typeof mine.signing !== 'string') {
    mine.signing = newSecret();
    madeSigning = changed = true;
  }
  if (changed) write(file, { ...all, [profile]: mine });
  return { ...mine, madeSigning };
}
