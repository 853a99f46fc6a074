/**
 * What `auth login` does with a key, with a pasted key and an OAuth token alike: check it (and find
 * where the API is), and save it in a profile (the keychain where there is one).
 */
import type { Context } from '../../context.js';
import { NetworkError } from '../../errors.js';
import { readConfig, updateConfig, type Profile } from '../../config/store.js';
import { deleteKeychain, KeychainUnavailable, writeKeychain } from '../../config/keychain.js';
import { DEFAULT_API_PATH } from '../../http/api-path.js';
import { ACCOUNT_PATH } from '../../model/account.js';
import { apiPathFromDeveloperPage, DEVELOPER_PAGE } from '../../model/api-root.js';
import { VERSION } from '../../version.js';

/** Where the API is, as known so far: `given` by --api-path or LINKCTL_API_PATH (then never looked for elsewhere). */
export interface ApiPlace {
  path: string;
  given: boolean;
}

/**
 * Saves a profile's key (or OAuth token): the system keychain first, the 0600 config file when
 * there is none (or `insecureStorage`). The profile's other settings stay; `extra` (an OAuth
 * token's client and expiry) replaces what the last login said of its key.
 */
export async function saveKey(
  ctx: Context,
  how: { name: string; existing?: Profile; baseUrl: string; key: string; apiPath: string; insecureStorage: boolean; extra?: Pick<Profile, 'keyKind' | 'oauthClient' | 'keyExpires'> },
): Promise<{ store: 'keychain' | 'file'; isDefault: boolean }> {
  const { name, existing, baseUrl, key } = how;
  let store: 'keychain' | 'file' = 'file';
  let noKeychain: string | undefined;
  if (!how.insecureStorage) {
    try {
      writeKeychain(ctx.env, name, key);
      store = 'keychain';
    } catch (error) {
      if (!(error instanceof KeychainUnavailable)) throw error;
      noKeychain = error.message;
    }
  }
  const saved = await updateConfig(ctx.env, (data) => {
    // The profile's other settings (checkAllowPrivate) stay; its key, where it is kept and what kind it is are replaced.
    const { apiKey: _key, keyStore: _store, baseUrl: _url, apiPath: _path, keyKind: _kind, oauthClient: _client, keyExpires: _expires, ...kept } = data.profiles[name] ?? {};
    const place = { baseUrl, ...(how.apiPath === DEFAULT_API_PATH ? {} : { apiPath: how.apiPath }), ...how.extra };
    data.profiles[name] = store === 'keychain' ? { ...kept, ...place, keyStore: 'keychain' } : { ...kept, ...place, apiKey: key };
    if (!data.defaultProfile || !data.profiles[data.defaultProfile]) data.defaultProfile = name;
  });
  // A key that moves back to the file leaves no copy in the keychain.
  if (store === 'file' && existing?.keyStore === 'keychain') forget(ctx, name);
  if (noKeychain !== undefined) {
    // The keychain library's own words (a D-Bus message on Linux) are for --debug only.
    if (ctx.globals.debug) ctx.warn(`[debug] keychain: ${noKeychain}`);
    ctx.warn(`There is no system keychain here, so the key is saved in ${readConfig(ctx.env).path}, which only you can read.`);
  }
  return { store, isDefault: saved.defaultProfile === name };
}

/**
 * Checks a key by reading the account; the username, when the server gives one. When the API is
 * not where `api` says (an HTML page or an empty answer instead of the API's JSON) and no
 * --api-path was given, the installation's developer page is read for the path its endpoints are
 * at, that path is tried, and what was found is said; `api.path` is then the path found.
 */
export async function verify(ctx: Context, baseUrl: string, key: string, api: ApiPlace): Promise<string | undefined> {
  const read = async (path: string) => {
    const client = await ctx.clientFor(baseUrl, key, { apiPath: path });
    const body = await client.request('GET', ACCOUNT_PATH, { expect: ['data'] });
    return (body.data as Record<string, unknown>)?.username as string | undefined;
  };
  try {
    return await read(api.path);
  } catch (error) {
    if (api.given || !(error instanceof NetworkError) || !notTheApi(error)) throw error;
    const found = await findApiPath(ctx, baseUrl, key);
    if (!found || found === api.path) {
      throw new NetworkError(error.message, `${baseUrl}${api.path}/ is not this installation's API, and its developer page (${baseUrl}/${DEVELOPER_PAGE}) names no other place: give the API path with --api-path (the \`apiroute\` of the installation's app/config/app.php), or check the base URL`);
    }
    const username = await read(found);
    ctx.warn(`${baseUrl}${api.path}/ is not this installation's API; its developer page (${baseUrl}/${DEVELOPER_PAGE}) lists the endpoints under ${found}, where the key works: the profile keeps ${found} as its API path.`);
    api.path = found;
    return username;
  }
}

/** An answer that says the path is not the API (a page, an empty body, not the API's JSON), rather than a failure of the API. */
function notTheApi(error: NetworkError): boolean {
  return /sent an HTML page|answer that is not JSON|an empty answer|has no `error` field|not from this API/.test(error.message);
}

/** The API path the installation's developer page names, or undefined (no page, or no endpoint on it). No key is sent. */
async function findApiPath(ctx: Context, baseUrl: string, key: string): Promise<string | undefined> {
  const client = await ctx.clientFor(baseUrl, key);
  let page;
  try {
    page = await client.download(new URL(DEVELOPER_PAGE, client.base).href, 2 * 1024 * 1024, { userAgent: `linkctl/${VERSION}` });
  } catch (error) {
    if (error instanceof NetworkError) return undefined;
    throw error;
  }
  if (page.status !== 200) return undefined;
  return apiPathFromDeveloperPage(page.bytes.toString('utf8'), client.base);
}

/** Removes a profile's key from the keychain; a keychain that cannot be reached is said, not fatal. */
export function forget(ctx: Context, name: string): void {
  try {
    deleteKeychain(ctx.env, name);
  } catch (error) {
    if (!(error instanceof KeychainUnavailable)) throw error;
    if (ctx.globals.debug) ctx.warn(`[debug] keychain: ${error.message}`);
    ctx.warn(`The key of profile "${name}" could not be removed from the system keychain. If the keychain still lists it, remove it there.`);
  }
}

