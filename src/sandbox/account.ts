// The account: the twin of src/model/account.ts.
import { fail, ok, optString, route, MESSAGES } from './kit.js';

export const accountRoutes = [
  route('GET /api/account', (ctx) => {
    const { planid, ...documented } = ctx.state.account;
    const basic = ctx.plan === 'basic';
    const data = basic ? { ...documented, status: 'free' } : documented;
    return { error: 0, data: ctx.quirks ? { ...data, planid: basic ? 1 : planid, expires: null } : data };
  }),
  route('PUT /api/account/update', (ctx) => {
    const email = optString(ctx.body.email, 'email');
    const password = optString(ctx.body.password, 'password');
    if ((email === undefined || email === ctx.state.account.email) && !password) fail(MESSAGES.accountUnchanged);
    if (email !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) fail('Please enter a valid email.');
    if (password && password.length < 5) fail('Password must be at least 5 characters.');
    if (email !== undefined) ctx.state.account.email = email; // the password is not kept: nothing reads it back
    return ok('Account has been successfully updated.');
  }),
];
