import type { Context } from '../../context.js';
import { InterruptedError, UsageError } from '../../errors.js';
import type { Result } from '../../output/types.js';
import type { ActionInput } from '../shared/define.js';

export async function serve(ctx: Context, { opts }: ActionInput): Promise<Result> {
  if (opts.allowDeletes && !opts.allowWrites) throw new UsageError('--allow-deletes needs --allow-writes too', 'run `linkctl mcp --allow-writes --allow-deletes`');
  const { serveMcp } = await import('../../mcp/server.js');
  await serveMcp(ctx, { writes: Boolean(opts.allowWrites), deletes: Boolean(opts.allowDeletes) });
  if (ctx.io.signal?.aborted) throw new InterruptedError();
  return { kind: 'none' };
}
