import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import type { Context } from '../../context.js';
import { sandboxQuirks } from '../../context.js';
import { ConfigError, NotFoundError, UsageError } from '../../errors.js';
import type { Result } from '../../output/types.js';
import type { ActionInput } from '../shared/define.js';
import { configDir } from '../../config/paths.js';
import { startSandbox, resetStateFile, SANDBOX_KEY } from '../../sandbox/server.js';
import { announce, defaultStateFile, findRunning } from '../../sandbox/running.js';
import { loadState, saveState, seedState, withStateLock } from '../../sandbox/state.js';
import { readSeed } from '../../sandbox/seed.js';
import { simulateVisits, type Visit } from '../../sandbox/visits.js';
import { postVisits } from '../../sandbox/webhooks.js';
import type { Link, State } from '../../sandbox/state.js';
import { parseRateLimit, sandboxPlan, sandboxQrImages, sandboxRateLimit, sandboxStringIds } from '../../sandbox/settings.js';
import type { Plan, QrImages } from '../../sandbox/types.js';
import { DEFAULT_API_PATH, normaliseApiPath } from '../../http/api-path.js';
import { thousands } from '../../numbers.js';

function stateFile(ctx: Context, given: unknown): string {
  if (typeof given === 'string' && given) return given;
  const dir = configDir(ctx.env);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return join(dir, 'sandbox-state.json');
}

export async function serve(ctx: Context, { opts }: ActionInput): Promise<Result> {
  // flags over LINKCTL_SANDBOX_PLAN and LINKCTL_SANDBOX_RATE_LIMIT; no limit and every feature by default
  const rateLimit = opts.rateLimit === undefined ? sandboxRateLimit(ctx.env) : parseRateLimit(String(opts.rateLimit));
  const plan = opts.plan === undefined ? sandboxPlan(ctx.env) : (opts.plan as Plan); // checked by its enumOption
  const qrImages = opts.qrImages === undefined ? sandboxQrImages(ctx.env) : (opts.qrImages as QrImages);
  if (opts.quirks && opts.documented) throw new UsageError('--quirks and --documented exclude each other: real-server shapes are the default, --documented gives those of link-api.md', 'drop --quirks: real-server shapes are the default');
  const quirks = opts.documented ? false : opts.quirks ? true : sandboxQuirks(ctx.env);
  // a seed that cannot be read is bad input, named by its flag (exit 2), before anything listens
  if (opts.seed) {
    try {
      readSeed(String(opts.seed), () => '2000-01-01 00:00:00');
    } catch (err) {
      if (err instanceof ConfigError) throw new UsageError(`--seed: ${err.message}`, err.hint ?? 'see docs/sandbox.md, "Seeds"');
      throw err;
    }
  }
  // a seed keeps its installation in memory, unless a state file is named: the shared demo state is not replaced by it
  const file = opts.seed && !opts.state ? undefined : stateFile(ctx, opts.state);
  // The global --api-path (or LINKCTL_API_PATH): serve the API there, as an installation whose `apiroute` is not /api.
  const apiPath = ctx.globals.apiPath ? normaliseApiPath(ctx.globals.apiPath) : ctx.env.LINKCTL_API_PATH ? normaliseApiPath(ctx.env.LINKCTL_API_PATH, 'LINKCTL_API_PATH') : undefined;
  const quiet = Boolean(ctx.globals.quiet);
  // A server is often started with `&`: it must not reset the terminal's modes when it stops.
  ctx.io.releaseTerminal?.();
  let sandbox;
  try {
    sandbox = await startSandbox({
      host: opts.host,
      port: opts.port,
      stateFile: file,
      key: opts.key,
      userKey: opts.userKey,
      seedFile: opts.seed,
      rateLimit,
      rateLimitHeaders: opts.rateLimitHeaders !== false,
      quirks,
      stringIds: Boolean(opts.stringIds) || sandboxStringIds(ctx.env),
      plan,
      qrImages,
      apiPath,
      latencyMs: opts.latency as number | undefined,
      jitterMs: opts.jitter as number | undefined,
      seed: { demo: true },
      webhooks: opts.webhookCreated || opts.webhookVisits ? { created: opts.webhookCreated, visits: opts.webhookVisits } : undefined,
      onRequest: quiet ? undefined : (method, path, status, ms) => ctx.warn(`${method} ${path} ${status} ${ms.toFixed(1)} ms`),
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UsageError(`--port ${opts.port}: the port is in use on ${opts.host}`, 'choose another with --port, or --port 0 for any free port');
    if (code === 'EADDRNOTAVAIL' || code === 'EACCES') throw new UsageError(`--host ${opts.host} --port ${opts.port}: cannot listen there (${code})`, 'try --host 127.0.0.1 --port 0');
    throw err;
  }
  const dir = configDir(ctx.env);
  const shared = file === defaultStateFile(dir) && sandbox.key === SANDBOX_KEY;
  const unannounce = shared ? announce(dir, { url: sandbox.url, pid: process.pid, stateFile: file!, quirks, plan, ...(apiPath ? { apiPath } : {}) }) : () => {};
  try {
    // A server in the foreground has to say where it is before it returns, so this action writes
    // its address itself; everything else goes through the output layer.
    ctx.io.stdout.write(`${JSON.stringify({ baseUrl: sandbox.url, apiPath: sandbox.apiPath, key: sandbox.key, userKey: sandbox.userKey, quirks, plan, rateLimit, qrImages, latencyMs: opts.latency ?? 0, jitterMs: opts.jitter ?? 0 })}\n`);
    // --quiet: no banner and no request log (a server in the background of a terminal says nothing there).
    if (!quiet) {
      const limit = rateLimit ? `rate limit ${rateLimit.limit}/${rateLimit.windowSeconds} s` : 'no rate limit';
      const latency = opts.latency || opts.jitter ? `, ${opts.latency ?? 0} ms a request${opts.jitter ? ` ± ${opts.jitter} ms` : ''}` : '';
      ctx.warn(`sandbox listening on ${sandbox.url}${sandbox.apiPath === DEFAULT_API_PATH ? '' : `, API at ${sandbox.apiPath}`} (${quirks ? 'real-server shapes' : 'documented shapes'}, ${plan} plan, ${limit}${latency}${qrImages === 'png' ? ', QR images as plain PNG' : ''})\n` +
        `try:  LINKCTL_BASE_URL=${sandbox.url}${sandbox.apiPath === DEFAULT_API_PATH ? '' : ` LINKCTL_API_PATH=${sandbox.apiPath}`} LINKCTL_API_KEY=${sandbox.key} linkctl qr list\n` +
        `      (a plain user of the same installation: LINKCTL_API_KEY=${sandbox.userKey})\n` +
        (shared ? '      or linkctl --sandbox qr list (uses this server while it runs)\n' : '') +
        'press Ctrl-C to stop');
    }
    await new Promise<void>((resolve) => {
      if (ctx.io.signal?.aborted) return resolve();
      ctx.io.signal?.addEventListener('abort', () => resolve(), { once: true });
    });
  } finally {
    unannounce();
    await sandbox.close();
  }
  // Ctrl-C is how a foreground server is meant to stop: not a failure
  return { kind: 'message', message: 'sandbox stopped', json: { stopped: true } };
}

export async function status(ctx: Context): Promise<Result> {
  const dir = configDir(ctx.env);
  const running = findRunning(dir);
  const mode = (quirks: boolean) => (quirks ? 'real-server shapes' : 'documented shapes');
  if (running) {
    return {
      kind: 'message',
      message: `--sandbox uses the running \`sandbox serve\` at ${running.url} (pid ${running.pid}, ${mode(running.quirks)}, ${running.plan ?? 'pro'} plan, state ${running.stateFile})`,
      json: { serve: true, baseUrl: running.url, pid: running.pid, quirks: running.quirks, plan: running.plan ?? 'pro', stateFile: running.stateFile },
    };
  }
  const quirks = sandboxQuirks(ctx.env);
  const plan = sandboxPlan(ctx.env);
  return {
    kind: 'message',
    message: `no \`sandbox serve\` is running on this config folder: --sandbox starts an embedded sandbox for each command (${mode(quirks)}, ${plan} plan, state ${defaultStateFile(dir)}); its URLs answer only while that command runs`,
    json: { serve: false, baseUrl: null, pid: null, quirks, plan, stateFile: defaultStateFile(dir) },
  };
}

export async function reset(ctx: Context, { opts }: ActionInput): Promise<Result> {
  const file = stateFile(ctx, opts.state);
  await resetStateFile(file, { demo: true });
  return { kind: 'message', message: `Sandbox state reset (${file}).`, json: { reset: true, stateFile: file } };
}

/** Visits counted into the state file under its lock: a running `sandbox serve` sees them at its next request. */
export async function visits(ctx: Context, { opts }: ActionInput): Promise<Result> {
  const file = stateFile(ctx, opts.state);
  const made: Array<{ link: Link; visit: Visit }> = [];
  let saved: State | undefined;
  const link = await withStateLock(file, () => {
    const state = loadState(file) ?? seedState();
    const visited = simulateVisits(state, String(opts.link).trim(), {
      count: opts.count, visitors: opts.visitors, country: opts.country, referrer: opts.referrer, userAgent: opts.userAgent,
    }, (l, visit) => made.push({ link: l, visit }));
    if (visited) saveState(file, state);
    saved = state;
    return visited;
  });
  // counted and saved first; then the product's visit webhook, one post each (none when no URL is set)
  if (link && saved) await postVisits(saved, made);
  if (!link) throw new NotFoundError(`no link "${opts.link}" in the sandbox (${file})`, 'see `linkctl --sandbox link list`');
  const from = [opts.country && `from ${opts.country}`, opts.referrer && `via ${opts.referrer}`].filter(Boolean).join(' ');
  return {
    kind: 'message',
    message: `Link ${link.id} (${link.alias}): ${opts.count} visit${opts.count === 1 ? '' : 's'}${from ? ` ${from}` : ''}; now ${thousands(link.clicks)} click${link.clicks === 1 ? '' : 's'}, ${thousands(link.uniqueclicks)} unique.`,
    json: { link: link.id, alias: link.alias, visits: opts.count, clicks: link.clicks, uniqueClicks: link.uniqueclicks, stateFile: file },
  };
}
