// The account: the twin of src/model/account.ts. Each key answers its own user's account.
import { createHash } from 'node:crypto';
import { fail, ok, optString, route, MESSAGES, type Ctx } from './kit.js';
import type { User } from './state.js';

/**
 * The avatar the product answers (fact 38): Gravatar's URL for the email as stored (trimmed, its letter
 * case kept), computed at each answer, so it follows an email change. Only a URL: nothing fetches it.
 */
export const avatarOf = (email: string): string =>
  `https://www.gravatar.com/avatar/${createHash('md5').update(email.trim()).digest('hex')}?s=200&d=identicon`;

function accountView(ctx: Ctx, u: User) {
  const basic = ctx.plan === 'basic';
  const documented = { id: u.id, email: u.email, username: u.username, avatar: avatarOf(u.email), status: basic ? 'free' : u.plan, expires: u.expires, registered: u.registered };
  return ctx.quirks ? { ...documented, planid: basic ? 1 : u.planid, expires: null } : documented;
}

export const accountRoutes = [
  route('GET /api/account', (ctx) => ({ error: 0, data: accountView(ctx, ctx.user) })),
  // the product answers `/api/account/` as well (fact 41)
  route('GET /api/account/', (ctx) => ({ error: 0, data: accountView(ctx, ctx.user) })),
  route('PUT /api/account/update', (ctx) => {
    const email = optString(ctx.body.email, 'email');
    const password = optString(ctx.body.password, 'password');
    // only an email or a password is a change; other fields (username, name) are not read (fact 37)
    if (email === undefined && !password) return ok(MESSAGES.accountUnchanged);
    if (email !== undefined) {
      if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) fail('Please enter a valid email.');
      // emails are unique across the installation's users (fact 39); the user's own is no conflict
      const lower = email.toLowerCase();
      if (ctx.state.users.some((u) => u.id !== ctx.user.id && u.email.toLowerCase() === lower)) fail('An account is already associated with this email.');
    }
    if (password && password.length < 5) fail('Password must be at least 5 characters.');
    if (email !== undefined) ctx.user.email = email; // the password is not kept: nothing reads it back
    return ok('Account has been successfully updated.');
  }),
];
