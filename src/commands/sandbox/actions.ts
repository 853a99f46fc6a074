import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import type { Context } from '../../context.js';
import { InterruptedError, UsageError } from '../../errors.js';
import type { Result } from '../../output/types.js';
import type { ActionInput } from '../shared/define.js';
import { configDir } from '../../config/paths.js';
import { startSandbox, resetStateFile } from '../../sandbox/server.js';

function stateFile(ctx: Context, given: unknown): string {
  if (typeof given === 'string' && given) return given;
  const dir = configDir(ctx.env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return join(dir, 'sandbox-state.json');
}

export function parseRateLimit(raw: string): { limit: number; windowSeconds: number } | null {
  if (raw === 'off' || raw === 'none') return null;
  const match = /^(\d{1,6})\/(\d{1,6})$/.exec(raw.trim());
  if (!match || Number(match[1]) < 1 || Number(match[2]) < 1) throw new UsageError(`--rate-limit must be N/SECONDS such as 30/60, or off; got "${raw}"`);
  return { limit: Number(match[1]), windowSeconds: Number(match[2]) };
}

export async function serve(ctx: Context, { opts }: ActionInput): Promise<Result> {
  const rateLimit = parseRateLimit(String(opts.rateLimit));
  const sandbox = await startSandbox({
    host: opts.host,
    port: opts.port,
    stateFile: stateFile(ctx, opts.state),
    key: opts.key,
    rateLimit,
    rateLimitHeaders: opts.rateLimitHeaders !== false,
    quirks: Boolean(opts.quirks),
  });
  // A server in the foreground has to say where it is before it returns, so this action writes
  // its address itself; everything else goes through the output layer.
  ctx.io.stdout.write(`${JSON.stringify({ baseUrl: sandbox.url, key: sandbox.key, quirks: Boolean(opts.quirks), rateLimit })}\n`);
  ctx.warn(`sandbox listening on ${sandbox.url}${opts.quirks ? ' (real-server quirks)' : ''}\n` +
    `try:  LINKCTL_BASE_URL=${sandbox.url} LINKCTL_API_KEY=${sandbox.key} linkctl qr list\n` +
    'press Ctrl-C to stop');
  await new Promise<void>((resolve) => {
    if (ctx.io.signal?.aborted) return resolve();
    ctx.io.signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  await sandbox.close();
  throw new InterruptedError();
}

export async function reset(ctx: Context, { opts }: ActionInput): Promise<Result> {
  const file = stateFile(ctx, opts.state);
  await resetStateFile(file);
  return { kind: 'message', message: `Sandbox state reset (${file}).`, json: { reset: true, stateFile: file } };
}
