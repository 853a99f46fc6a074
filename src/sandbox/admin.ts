// The installation's admin API: the twin of src/model/users.ts and src/model/plans.ts. Only an
// administrator's key reaches it; a plain user's key gets the product's HTTP 403. Every user record
// carries that user's API key (`apikey`), as the product's do: linkctl must never show it.
// `GET /api/user/login/:id` gives a one-time sign-in (SSO) link that works until the end of the
// current clock hour; `ssoPage` answers it.
import { randomBytes } from 'node:crypto';
import { fail, JSON_TYPE, ok, optString, Raw, route, type Ctx, type Json, type Reply } from './kit.js';
import { ownerOf, timestamp, type State, type User } from './state.js';
import { avatarOf } from './account.js';
import { MIN_PASSWORD, USERNAME } from '../model/users.js';
import { plans as PLAN_MODEL } from '../model/plans.js';

/** The product's answer to a plain key on an admin endpoint (HTTP 403). */
export const NOT_ADMIN = { error: 1, message: 'You do not have permission to access this endpoint.' };

/** The installation's plans: a free one and two paid ones, each with its limits. */
export interface Plan {
  id: number; name: string; free: boolean;
  prices: { monthly: string; yearly: string; lifetime: string };
  limits: Json;
}
export const PLANS: readonly Plan[] = [
  { id: 1, name: 'Free', free: true, prices: { monthly: '0', yearly: '0', lifetime: '0' },
    limits: { links: 100, clicks: 10000, retention: 30, custom: { enabled: '1' }, qr: { enabled: '1', count: 10 }, domain: { enabled: '0' }, api: { enabled: '1' } } },
  { id: 2, name: 'Pro', free: false, prices: { monthly: '9.99', yearly: '99.99', lifetime: '299.00' },
    limits: { links: 'unlimited', clicks: 'unlimited', retention: 365, custom: { enabled: '1' }, qr: { enabled: '1', count: 'unlimited' }, domain: { enabled: '1', count: 5 }, api: { enabled: '1' } } },
  { id: 3, name: 'Business', free: false, prices: { monthly: '29.99', yearly: '299.99', lifetime: '899.00' },
    limits: { links: 'unlimited', clicks: 'unlimited', retention: 'unlimited', custom: { enabled: '1' }, qr: { enabled: '1', count: 'unlimited' }, domain: { enabled: '1', count: 'unlimited' }, api: { enabled: '1' } } },
];

const forbidden = () => new Raw(403, JSON.stringify(NOT_ADMIN), JSON_TYPE);

/** An admin route: a plain user's key gets the 403 whatever the route would do. */
const adminRoute = (spec: string, handler: (ctx: Ctx) => Reply) => route(spec, (ctx) => (ctx.user.admin ? handler(ctx) : forbidden()));

/** A user as the API answers it: its key included, as the product's records carry it. */
function userView(u: User): Json {
  return { id: u.id, email: u.email, username: u.username, avatar: avatarOf(u.email), status: u.plan, planid: u.planid, expires: u.expires, registered: u.registered, apikey: u.key };
}

function userOr(ctx: Ctx, id: number): User {
  return ctx.state.users.find((u) => u.id === id) ?? fail('User does not exist.');
}

/** The end of the clock hour `ms` is in (UTC hours: every whole-hour zone agrees). */
export const endOfHour = (ms: number): number => Math.floor(ms / 3_600_000) * 3_600_000 + 3_600_000 - 1000;

/** Ids of the users' records: one sequence across users, as the product has (a new user's id after the largest). */
const nextUserId = (state: State) => Math.max(0, ...state.users.map((u) => u.id)) + 1;

export const adminRoutes = [
  adminRoute('GET /api/users', (ctx) => {
    const filter = ctx.query.filter;
    const email = ctx.query.email?.trim().toLowerCase();
    const users = ctx.state.users.filter((u) =>
      (filter === 'admin' ? u.admin : filter === 'free' ? u.plan === 'free' : filter === 'pro' ? u.plan === 'pro' : true)
      && (!email || u.email.toLowerCase() === email));
    return { error: 0, data: users.map(userView) };
  }),
  adminRoute('GET /api/user/:id', (ctx) => ({ error: 0, data: userView(userOr(ctx, ctx.id)) })),
  adminRoute('POST /api/user/add', (ctx) => {
    const username = optString(ctx.body.username, 'username')?.trim() ?? '';
    const email = optString(ctx.body.email, 'email')?.trim() ?? '';
    const password = optString(ctx.body.password, 'password') ?? '';
    if (!USERNAME.test(username)) fail('Please enter a valid username.');
    if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) fail('Please enter a valid email.');
    if (password.length < MIN_PASSWORD) fail(`Password must be at least ${MIN_PASSWORD} characters.`);
    if (ctx.state.users.some((u) => u.email.toLowerCase() === email.toLowerCase())) fail('An account is already associated with this email.');
    if (ctx.state.users.some((u) => u.username.toLowerCase() === username.toLowerCase())) fail('This username is already taken.');
    const planid = ctx.body.planid === undefined ? 1 : Number(ctx.body.planid);
    const plan = PLANS.find((p) => p.id === planid) ?? fail('Plan does not exist.');
    const expiration = optString(ctx.body.expiration, 'expiration');
    const id = nextUserId(ctx.state);
    // the password is not kept: nothing reads it back
    ctx.state.users.push({
      id, email, username, key: `sandbox-user${id}-${randomBytes(8).toString('hex')}`, admin: false,
      plan: plan.free ? 'free' : 'pro', planid: plan.id, expires: expiration ?? null, registered: timestamp(ctx.now()),
    });
    return { error: 0, message: 'User has been registered.', userid: id };
  }),
  adminRoute('DELETE /api/user/:id/delete', (ctx) => {
    const user = userOr(ctx, ctx.id);
    ctx.state.users = ctx.state.users.filter((u) => u !== user);
    // everything the user owned goes with them
    for (const coll of ['qrs', 'domains', 'overlays', 'campaigns', 'channels', 'splash', 'pixels', 'links'] as const) {
      (ctx.state as unknown as Record<string, Array<{ owner?: number }>>)[coll] = ctx.state[coll].filter((r) => ownerOf(r) !== user.id);
    }
    return ok('User has been deleted.');
  }),
  adminRoute('GET /api/user/login/:id', (ctx) => {
    const user = userOr(ctx, ctx.id);
    const token = randomBytes(16).toString('hex');
    (ctx.state.sso ??= []).push({ token, user: user.id, until: endOfHour(ctx.now()) });
    // links of past hours are of no use: dropped as new ones are made
    ctx.state.sso = ctx.state.sso.filter((s) => s.until >= ctx.now() && !s.used);
    return { error: 0, url: `${ctx.base}/user/login/sso/${token}` };
  }),
  adminRoute('GET /api/plans', () => ({ error: 0, data: PLANS })),
  adminRoute('PUT /api/plan/:planid/user/:userid', (ctx) => {
    const plan = PLANS.find((p) => p.id === ctx.ids.planid) ?? fail('Plan does not exist.');
    const user = userOr(ctx, ctx.ids.userid!);
    const type = optString(ctx.body.type, 'type');
    if (!type || !(PLAN_MODEL.types as readonly string[]).includes(type)) fail('Please choose a valid subscription type: monthly, yearly or lifetime.');
    const expiration = optString(ctx.body.expiration, 'expiration');
    const months = type === 'monthly' ? 1 : type === 'yearly' ? 12 : 0;
    const end = new Date(ctx.now());
    end.setUTCMonth(end.getUTCMonth() + months);
    user.planid = plan.id;
    user.plan = plan.free ? 'free' : 'pro';
    user.expires = expiration ?? (months ? timestamp(end.getTime()) : null);
    return ok('User has been subscribed to this plan.');
  }),
];

/** `GET /user/login/sso/TOKEN`: signs its user in once, until the end of the hour it was made in. */
export function ssoPage(state: State, path: string, now: number): Raw | undefined {
  const m = /^\/user\/login\/sso\/([a-f0-9]+)$/.exec(path);
  if (!m) return undefined;
  const sso = state.sso?.find((s) => s.token === m[1]);
  const page = (status: number, title: string) => new Raw(status, `<!DOCTYPE html><html><head><title>${title}</title></head><body><h1>${title}</h1></body></html>\n`);
  if (!sso || sso.used || sso.until < now) return page(403, 'This sign-in link has expired or was used already.');
  sso.used = true;
  const user = state.users.find((u) => u.id === sso.user);
  return page(200, `Signed in as ${user?.username ?? 'a deleted user'}.`);
}
