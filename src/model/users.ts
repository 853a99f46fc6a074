/**
 * The installation's users (the admin API: an admin's key only; a plain key gets HTTP 403).
 * `GET api/users` lists them all, no paging (`?filter=admin|free|pro`, `?email=`), `GET
 * api/user/:id` reads one, `POST api/user/add` creates one (`{error:0, message, userid}`), `DELETE
 * api/user/:id/delete` deletes one, `GET api/user/login/:id` gives a one-time sign-in link that
 * works until the end of the current clock hour.
 *
 * Every user record the API sends carries that user's API key (`apikey`). No key is ever shown:
 * the records leave this file through `userRecord`, which drops it and says only whether there is
 * one, and the one reader of a key (`actAs`, for `--as-user`) hands it to the caller that makes a
 * client of it, never to an output.
 */
import type { ApiClient } from '../http/client.js';
import type { Body } from '../http/envelope.js';
import { toInt } from '../http/envelope.js';
import { AuthError, NetworkError, NotFoundError, UsageError } from '../errors.js';
import { email as checkEmail } from '../validate.js';
import { USER_KEY_FIELD } from '../redact.js';
import { compact, type Rec } from './values.js';

export const users = {
  noun: 'user',
  command: 'admin users',
  list: 'api/users',
  item: (id: number) => `api/user/${id}`,
  add: 'api/user/add',
  remove: (id: number) => `api/user/${id}/delete`,
  login: (id: number) => `api/user/login/${id}`,
  /** The groups `?filter=` picks. */
  filters: ['admin', 'free', 'pro'] as const,
  listFields: ['id', 'username', 'email', 'status', 'planid', 'expires', 'registered', 'hasApiKey'],
} as const;

export type UserFilter = (typeof users.filters)[number];

/** What the product refuses on `user/add` (the sandbox answers by the same rules): checked before sending. */
export const MIN_PASSWORD = 5;
export const USERNAME = /^[A-Za-z0-9_-]{3,}$/;

/** The field that carries a user's key in the API's records: read here only (src/redact.ts names it). */
const KEY_FIELD = USER_KEY_FIELD;

/** A user record without its key: `hasApiKey` says whether it has one. The only way a user record leaves the model. */
export function userRecord(raw: unknown): Rec {
  const record = (raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Rec;
  const { [KEY_FIELD]: key, ...rest } = record;
  // Any other field that looks like a key (a server that names it otherwise) goes too.
  for (const name of Object.keys(rest)) if (/^(api[_-]?key|key|token|access_?token|secret)$/i.test(name)) delete rest[name];
  return { ...rest, hasApiKey: typeof key === 'string' && key !== '' };
}

/** The records of `GET api/users` (an array under `data`, or a list envelope's `users`), keys dropped. */
function recordsOf(body: Body): Rec[] {
  const data = body.data;
  const list = Array.isArray(data) ? data : data && typeof data === 'object' && Array.isArray((data as Rec).users) ? ((data as Rec).users as unknown[]) : undefined;
  if (!list) throw new NetworkError("the server's answer to the user list lacks the `data` list of users");
  return list.map(userRecord);
}

/** `GET api/users`, every user (the API has no paging), or a group, or the one with an email. */
export async function listUsers(client: ApiClient, query: { filter?: UserFilter; email?: string } = {}): Promise<Rec[]> {
  return recordsOf(await client.request('GET', users.list, { query: compact(query) as Record<string, string>, expect: ['data'] }));
}

/** `GET api/user/:id`, without its key. */
export async function getUser(client: ApiClient, id: number): Promise<Rec> {
  return userRecord((await readUser(client, id)).data);
}

function readUser(client: ApiClient, id: number): Promise<Body> {
  return client.request('GET', users.item(id), { expect: ['data'], about: `user ${id}` });
}

/** What `user/add` takes. */
export interface NewUser {
  username: string;
  email: string;
  password: string;
  planid?: number;
  expiration?: string;
}

/** The refusals the product would answer, found before sending: each names the flag. */
export function checkNewUser(user: NewUser): void {
  if (!USERNAME.test(user.username)) throw new UsageError(`--username must be at least 3 letters, digits, "-" or "_", got "${user.username}"`, 'e.g. --username jane_doe');
  checkEmail('--email', user.email);
  if (user.password.length < MIN_PASSWORD) throw new UsageError(`the password must be at least ${MIN_PASSWORD} characters (the server refuses shorter ones)`, 'choose a longer password');
}

/** `POST api/user/add`: the new user's id (`userid`). */
export async function addUser(client: ApiClient, user: NewUser): Promise<{ id: number | undefined; message?: string; body: Body }> {
  const body = await client.request('POST', users.add, { json: compact({ ...user }), checkWith: `linkctl ${users.command} list --email ${user.email}` });
  const id = toInt(body.userid ?? body.id ?? (body.data && typeof body.data === 'object' ? (body.data as Rec).id : undefined));
  const { password: _password, ...safe } = body as Rec;
  return { id, message: typeof body.message === 'string' ? body.message : undefined, body: userRecord(safe) };
}

/** `DELETE api/user/:id/delete`. */
export function deleteUser(client: ApiClient, id: number): Promise<Body> {
  return client.request('DELETE', users.remove(id), { about: `User ${id}` });
}

/** `GET api/user/login/:id`: the one-time sign-in URL. */
export async function signInUrl(client: ApiClient, id: number): Promise<string> {
  const body = await client.request('GET', users.login(id), { expect: ['url'], about: `user ${id}` });
  if (typeof body.url !== 'string') throw new NetworkError('the server answered a sign-in link that is not text');
  return body.url;
}

/** The end of the clock hour `now` is in: when a sign-in link made now stops working (the product's rule). */
export function endOfHour(now = new Date()): Date {
  const end = new Date(now);
  end.setMinutes(59, 59, 0);
  return end;
}

/** A user named on the command line: an id, or an email (found with `?email=`). */
export function userRef(raw: string, flag: string): { id: number } | { email: string } {
  const text = raw.trim();
  if (/^\d+$/.test(text) && Number(text) > 0) return { id: Number(text) };
  if (text.includes('@')) return { email: checkEmail(flag, text) };
  throw new UsageError(`${flag} must be a user's id or email address, got "${raw}"`, 'see `linkctl admin users list`');
}

/**
 * `--as-user`: the user's key, read through the admin API with the admin's client, for a client
 * of its own. The key goes to the caller only; `label` names the user in messages and the ledger.
 * A plain key gets exit 3 saying that this needs an admin's key.
 */
export async function actAs(admin: ApiClient, who: string): Promise<{ id: number; label: string; key: string }> {
  const ref = userRef(who, '--as-user');
  let raw: Rec | undefined;
  try {
    if ('id' in ref) raw = (await readUser(admin, ref.id)).data as Rec;
    else {
      const body = await admin.request('GET', users.list, { query: { email: ref.email }, expect: ['data'] });
      const list = (Array.isArray(body.data) ? body.data : []) as Rec[];
      // `?email=` is an exact match on the product; a server that ignores it sends everyone.
      raw = list.find((u) => typeof u.email === 'string' && u.email.toLowerCase() === ref.email.toLowerCase());
    }
  } catch (error) {
    if (error instanceof AuthError) throw new AuthError(`--as-user needs an admin's key: ${error.message}`, 'use a profile with an admin\'s key (`linkctl auth status` shows the one in use), or drop --as-user');
    throw error;
  }
  if (!raw || typeof raw !== 'object') throw new NotFoundError(`--as-user: no user ${'id' in ref ? ref.id : `with the email ${ref.email}`} on this server`, 'see `linkctl admin users list`');
  const key = raw[KEY_FIELD];
  const id = toInt(raw.id) ?? ('id' in ref ? ref.id : 0);
  if (typeof key !== 'string' || !/^[\x21-\x7e]+$/.test(key)) throw new AuthError(`--as-user: the server gave no usable API key for user ${id}`, 'the user may have no key yet: they can make one on their developer page');
  const email = typeof raw.email === 'string' ? ` <${raw.email}>` : '';
  return { id, label: `${id}${email}`, key };
}
