/**
 * `admin users` and `admin plans`: columns and the steps of each command. Paths, the records
 * (without any user's API key) and the product's rules are in src/model/users.ts and plans.ts.
 */
import type { Context } from '../../context.js';
import { AuthError, UsageError } from '../../errors.js';
import type { Column, Rec, Result } from '../../output/types.js';
import type { ActionInput } from '../shared/define.js';
import { ACCOUNT_PATH } from '../../model/account.js';
import { addUser, checkNewUser, deleteUser, endOfHour, getUser, listUsers, signInUrl, type UserFilter } from '../../model/users.js';
import { listPlans, subscribe, type SubscriptionType } from '../../model/plans.js';
import { messageResult } from '../shared/resource.js';

const yesNo = (v: unknown) => (v === true || v === 1 || v === '1' ? 'yes' : v === false || v === 0 || v === '0' ? 'no' : v);

const USER_COLUMNS: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'username', header: 'Username' },
  { key: 'email', header: 'Email' },
  { key: 'status', header: 'Status' },
  { key: 'planid', header: 'Plan' },
  { key: 'expires', header: 'Expires', show: (r) => r.expires ?? 'never' },
  { key: 'registered', header: 'Registered', optional: true },
  // Never the key itself (src/model/users.ts drops it): whether the user has one.
  { key: 'hasApiKey', header: 'API key', show: (r) => (r.hasApiKey ? 'set (not shown)' : 'none'), optional: true },
  { key: 'avatar', header: 'Avatar', optional: true },
];

const PLAN_COLUMNS: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'name', header: 'Name' },
  { key: 'free', header: 'Free', show: (r) => yesNo(r.free) },
  { key: 'monthly', header: 'Monthly' },
  { key: 'yearly', header: 'Yearly' },
  { key: 'lifetime', header: 'Lifetime' },
  { key: 'links', header: 'Links' },
  { key: 'clicks', header: 'Clicks' },
  { key: 'retention', header: 'Retention', optional: true },
];

/**
 * The admin API answers a plain key HTTP 403 "You do not have permission to access this
 * endpoint.": said as what it is, the command needs an admin's key (exit 3, as any 403).
 */
async function asAdmin<T>(ctx: Context, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof AuthError && /permission to access this endpoint/i.test(error.message)) {
      throw new AuthError(`linkctl ${ctx.command ?? 'admin'} needs an admin's key, and the server refused the key in use: ${error.message}`, 'use the profile of an admin of this installation: `linkctl auth status` shows the one in use');
    }
    throw error;
  }
}

/** A list that the API gives whole (no paging): one page for the output layer. */
function wholeList(records: Rec[], columns: Column[]): Result {
  const pages = async function* () {
    yield records;
  };
  return { kind: 'list', pages: pages(), columns, summary: () => ({ shown: records.length, all: true }) };
}

export async function usersList(ctx: Context, { opts }: ActionInput): Promise<Result> {
  ctx.checkOutput(USER_COLUMNS);
  const client = await ctx.client();
  const records = await asAdmin(ctx, listUsers(client, { filter: opts.filter as UserFilter | undefined, email: opts.email as string | undefined }));
  return wholeList(records, USER_COLUMNS);
}

export async function usersGet(ctx: Context, { args }: ActionInput): Promise<Result> {
  ctx.checkOutput(USER_COLUMNS);
  const client = await ctx.client();
  const record = await asAdmin(ctx, getUser(client, args[0] as number));
  return { kind: 'record', record, columns: USER_COLUMNS };
}

const CREATED_COLUMNS: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'username', header: 'Username' },
  { key: 'email', header: 'Email' },
  { key: 'planid', header: 'Plan', optional: true },
];

export async function usersAdd(ctx: Context, { opts }: ActionInput): Promise<Result> {
  ctx.checkOutput(CREATED_COLUMNS);
  if (opts.password && opts.passwordStdin) throw new UsageError('give --password or --password-stdin, not both', '--password asks on the terminal; --password-stdin reads a pipe: keep the one that fits');
  const user = { username: String(opts.username), email: String(opts.email), password: '', planid: opts.plan as number | undefined, expiration: opts.expiration as string | undefined };
  if (user.expiration && !user.planid) throw new UsageError('--expiration is the end of a plan: give --plan with it', 'e.g. --plan 2 --expiration "2027-01-01 00:00:00"');
  // Flags first (a name the server would refuse is said before the password is asked for).
  checkNewUser({ ...user, password: 'x'.repeat(5) });
  user.password = await ctx.secret('the password', '--password', Boolean(opts.passwordStdin), true);
  ctx.secrets.push(user.password); // never in a message, a trace or the ledger
  checkNewUser(user);
  const client = await ctx.client();
  const created = await asAdmin(ctx, addUser(client, user));
  const record = { id: created.id ?? null, username: user.username, email: user.email, ...(user.planid ? { planid: user.planid } : {}) };
  return { kind: 'record', record, columns: CREATED_COLUMNS, json: { ...record, message: created.message ?? null } };
}

export async function usersDelete(ctx: Context, { args }: ActionInput): Promise<Result> {
  const id = args[0] as number;
  const client = await ctx.client();
  // The account of the key in use: deleting it would delete the key this command runs with.
  const account = await client.request('GET', ACCOUNT_PATH, { expect: ['data'] });
  const own = Number((account.data as Rec | undefined)?.id);
  if (own === id) {
    throw new UsageError(`user ${id} is the user whose key is in use: linkctl does not delete it (the key would go with it); nothing was deleted`, 'delete it from another admin\'s profile, or in the site\'s admin panel');
  }
  const user = await asAdmin(ctx, getUser(client, id));
  const named = [user.username, user.email ? `<${String(user.email)}>` : undefined].filter(Boolean).join(' ');
  await ctx.confirm(`Delete user ${id}${named ? ` (${named})` : ''} and everything they own (links, QR codes, domains)?`);
  const body = await asAdmin(ctx, deleteUser(client, id));
  return messageResult(body, `User ${id} deleted.`);
}

export async function usersLogin(ctx: Context, { args }: ActionInput): Promise<Result> {
  const id = args[0] as number;
  const client = await ctx.client();
  const url = await asAdmin(ctx, signInUrl(client, id));
  // The product's rule: valid until the end of the clock hour it was made in, by the server's clock.
  const until = endOfHour(new Date(client.serverTime ?? Date.now()));
  const time = until.toTimeString().slice(0, 8);
  ctx.warn(`This URL signs whoever opens it in as user ${id}, until ${time} (the end of the current clock hour). It is a secret: do not paste it where others can read it.`);
  return { kind: 'message', message: url, json: { id, url, expires: until.toISOString(), secret: true } };
}

export async function plansList(ctx: Context): Promise<Result> {
  ctx.checkOutput(PLAN_COLUMNS);
  const client = await ctx.client();
  return wholeList(await asAdmin(ctx, listPlans(client)), PLAN_COLUMNS);
}

export async function plansSubscribe(ctx: Context, { args, opts }: ActionInput): Promise<Result> {
  const [planId, userId] = args as [number, number];
  const client = await ctx.client();
  const body = await asAdmin(ctx, subscribe(client, planId, userId, { type: opts.type as SubscriptionType, expiration: opts.expiration as string | undefined }));
  return messageResult(body, `User ${userId} subscribed to plan ${planId} (${String(opts.type)}).`);
}
