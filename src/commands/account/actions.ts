import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import type { Column, Result } from '../../output/types.js';
import type { ActionInput } from '../shared/define.js';
import { email } from '../../validate.js';
import { compact, messageResult } from '../shared/resource.js';
import { ACCOUNT_PATH, ACCOUNT_UPDATE_PATH } from '../../model/account.js';

const COLUMNS: Column[] = [
  { key: 'id', header: 'ID' },
  { key: 'username', header: 'Username' },
  { key: 'email', header: 'Email' },
  { key: 'status', header: 'Plan' },
  { key: 'expires', header: 'Expires', show: (r) => r.expires ?? 'never' },
  { key: 'registered', header: 'Registered' },
  { key: 'planid', header: 'Plan id', optional: true },
  { key: 'avatar', header: 'Avatar', optional: true },
];

export async function get(ctx: Context): Promise<Result> {
  const client = await ctx.client();
  const body = await client.request('GET', ACCOUNT_PATH, { expect: ['data'] });
  return { kind: 'record', record: body.data as Record<string, unknown>, columns: COLUMNS };
}

export async function update(ctx: Context, { opts }: ActionInput): Promise<Result> {
  const address = opts.email === undefined ? undefined : email('--email', String(opts.email));
  if (address === undefined && !opts.password && !opts.passwordStdin) {
    throw new UsageError('nothing to change: give --email, --password or --password-stdin', 'e.g. linkctl account update --email me@example.com');
  }
  const client = await ctx.client();
  const password = await ctx.password(opts, 'new password');
  const body = await client.request('PUT', ACCOUNT_UPDATE_PATH, { json: compact({ email: address, password }) });
  return messageResult(body, 'Account updated.');
}
