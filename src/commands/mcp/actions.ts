import { allowanceOf } from '../../config/allow-private.js';
import type { AllowPrivate } from '../../http/networks.js';
import type { Context } from '../../context.js';
import { InterruptedError, UsageError } from '../../errors.js';
import type { Result } from '../../output/types.js';
import type { ActionInput } from '../shared/define.js';
import { realpathSync, statSync } from 'node:fs';
import { relative, isAbsolute } from 'node:path';
import { configDir } from '../../config/paths.js';

/** --root DIR: an existing folder, by its real path, that is not the config folder nor inside it. */
function filesRoot(ctx: Context, dir: string): string {
  let real: string;
  try {
    real = realpathSync(dir);
    if (!statSync(real).isDirectory()) throw Object.assign(new Error(), { code: 'ENOTDIR' });
  } catch (error) {
    throw new UsageError(`--root ${dir}: not a folder (${(error as NodeJS.ErrnoException).code ?? 'error'})`, 'give an existing folder for the files tools may read and write');
  }
  let config = configDir(ctx.env);
  try {
    config = realpathSync(config);
  } catch {
    // not created yet
  }
  const rel = relative(config, real);
  if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))) throw new UsageError(`--root ${dir}: inside linkctl's config folder, which holds keys`, 'give a folder of its own for the files tools may read and write');
  return real;
}

export async function serve(ctx: Context, { opts }: ActionInput): Promise<Result> {
  if (opts.allowOverride && !opts.allowWrites) throw new UsageError('--allow-override needs --allow-writes too', 'run `linkctl mcp --allow-writes --allow-override`');
  if (opts.allowDeletes && !opts.allowWrites) throw new UsageError('--allow-deletes needs --allow-writes too', 'run `linkctl mcp --allow-writes --allow-deletes`');
  const root = opts.root === undefined ? null : filesRoot(ctx, String(opts.root));
  const { serveMcp } = await import('../../mcp/server.js');
  // the user's allowance, read once at start (flag, env, profile): the check tool's, never a tool argument's
  const allowance = allowanceOf(opts.allowPrivate as AllowPrivate | true | undefined, ctx, ' of linkctl mcp');
  await serveMcp(ctx, { writes: Boolean(opts.allowWrites), deletes: Boolean(opts.allowDeletes), override: Boolean(opts.allowOverride), admin: Boolean(opts.allowAdmin) }, root, allowance);
  if (ctx.io.signal?.aborted) throw new InterruptedError();
  return { kind: 'none' };
}
