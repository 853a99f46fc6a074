/**
 * `linkctl listen`: the receiver in the foreground. It reads the account once (events are kept
 * per account, as snapshots are), opens the history database (created when missing), starts
 * the door (src/listen/server.ts), prints the two URLs to paste into the product, and then one
 * line per stored event: JSON with --json, a readable tail otherwise. Ctrl-C stops it; what was
 * acknowledged is stored already.
 */
import type { Context } from '../../context.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import type { Result } from '../../output/types.js';
import type { ActionInput } from '../shared/define.js';
import { openHistory } from '../../history/store.js';
import { readAccount } from '../../history/read.js';
import { safeStringify, safeText } from '../../output/safe-text.js';
import { wrapMessage } from '../../output/wrap.js';
import { eventJson, type ListenEvent } from '../../listen/payload.js';
import { EventStore } from '../../listen/store.js';
import type { Door } from '../../listen/server.js';
import { startDoorThread } from '../../listen/door-worker.js';
import { profileSecrets, SECRET_ENV } from '../../listen/secrets.js';
import { Forwarder } from '../../listen/forward.js';
import { tailLine } from '../../listen/tail.js';
import { LinkPoller } from '../../listen/poll.js';
import { journalDir, makeJournalDir } from '../../listen/journal.js';
import { JournalFeed, storeLeftEvents } from '../../listen/journal-feed.js';
import { thousands } from '../../numbers.js';

const HEARTBEAT_MS = 30_000;

export async function listen(ctx: Context, { opts }: ActionInput): Promise<Result> {
  const json = ctx.format === 'json' || ctx.format === 'ndjson';
  if (!json && ctx.format !== 'table') throw new UsageError(`listen prints a stream of events: --json (one JSON line each) or the readable tail, not -o ${ctx.format}`, 'use --json for scripts');
  const targets = [...new Set((opts.forwardTo as string[] | undefined) ?? [])];
  const profile = ctx.sandboxMode ? 'sandbox' : ctx.settings().profile.value;
  const given = (opts.secret as string | undefined) ?? (ctx.env[SECRET_ENV] || undefined);
  if (given !== undefined) ctx.secrets.push(given);
  const secrets = profileSecrets(ctx.env, profile, targets.length > 0 && given === undefined);
  const signing = given ?? secrets.signing;

  if (opts.poll !== undefined) {
    for (const [flag, given] of [['--forward-to', targets.length > 0], ['--public-url', opts.publicUrl !== undefined], ['--secret', opts.secret !== undefined]] as const) {
      if (given) throw new UsageError(`${flag} is for the webhook receiver; --poll only prints what the link list shows`, `leave out ${flag}, or --poll to receive the product's webhooks`);
    }
    return poll(ctx, opts.poll as number, json);
  }
  const source = await readAccount(ctx);
  const history = await openHistory(ctx, { db: opts.db, create: true });
  let door: Door | undefined;
  const forwarders: Forwarder[] = [];
  let heartbeat: NodeJS.Timeout | undefined;
  let store: EventStore | undefined;
  let feed: JournalFeed | undefined;
  ctx.io.releaseTerminal?.();
  // Ctrl-C, or SIGTERM (systemd, docker stop): stop taking posts, finish storing and forwarding what
  // came. Listened for from the start: a SIGTERM right after the URLs were printed (or before) must
  // not find the default action, which ends the process where it stands.
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
    if (ctx.io.signal?.aborted) return resolve();
    ctx.io.signal?.addEventListener('abort', () => resolve(), { once: true });
    process.once('SIGTERM', () => resolve());
  });
  try {
    store = await EventStore.open(history, source);
    const color = ctx.outputOptions().color; // a terminal, and no NO_COLOR or --no-color
    const width = ctx.io.stdout.columns || 80;
    // stdout's reader gone (`listen --json | head -1`): stop, and say so (it ended without a word)
    let outClosed: string | undefined;
    ctx.io.onStdoutClosed?.((code) => {
      outClosed = code;
      stop();
    });
    // the lines of the events stored together, written at once (one write a batch, not one an event)
    let lines: string[] | undefined;
    const show = (event: ListenEvent) => {
      if (outClosed) return;
      if (!lines) {
        lines = [];
        queueMicrotask(() => {
          const text = lines!.join('');
          lines = undefined;
          if (!outClosed) ctx.io.stdout.write(text);
        });
      }
      lines.push(json ? `${safeStringify(eventJson(event))}\n` : `${tailLine(event, width, color)}\n`);
    };
    const log = {
      delivered: () => {},
      failed: (target: string, event: ListenEvent | undefined, why: string, retryInMs: number) => ctx.warn(`forward to ${target}: ${event ? `${event.id} not taken` : 'stopped'} (${why}); again in ${Math.round(retryInMs / 1000)} s`),
    };
    const events = store;
    const stored = (event: ListenEvent) => {
      show(event);
      for (const f of forwarders) f.poke();
    };
    // An SQLite history: the door syncs each event to a journal beside it before its 2xx (journal.ts);
    // what a listen that stopped (kill -9) left there is stored first
    const dir = history.db.dialect === 'sqlite' ? journalDir(history.db.where, events.sourceId) : undefined;
    if (dir) {
      makeJournalDir(dir);
      const left = await storeLeftEvents(events, dir);
      if (left.added) ctx.warn(`listen: stored ${thousands(left.added)} event${left.added === 1 ? '' : 's'} that a listen which stopped had answered and not yet put in the history`);
      if (left.refused) throw new CliError(`listen: ${thousands(left.refused)} events answered by a listen which stopped cannot be stored in the history (${left.why}); they stay in ${dir}`, ExitCode.config, 'make the history writable (free space, end the process that holds it) and start listen again');
      await events.journaled();
      // before the door opens: posts are taken from its first moment (warm-up included)
      feed = new JournalFeed(events, dir, (upTo) => door?.durable?.(upTo), { stored, failed: (count, why) => ctx.warn(`listen: ${thousands(count)} event${count === 1 ? '' : 's'} answered 2xx cannot be stored in the history yet (${why}); kept in the journal and tried again every 2 s`) });
    }
    let doorFailed: ((error: Error) => void) | undefined;
    let failure: Error | undefined;
    try {
      door = await startDoorThread({
        host: opts.host,
        port: opts.port,
        secret: secrets.path,
        store: (event) => events.add(event),
        stored,
        journal: dir && feed ? { dir, journaled: (event, seq) => feed!.take(event, seq) } : undefined,
        refused: ctx.globals.debug ? (status, why) => ctx.warn(`refused a post: ${status} ${why}`) : undefined,
        failed: (error) => {
          failure = error;
          doorFailed?.(error);
        },
      });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE') throw new UsageError(`--port ${opts.port}: the port is in use on ${opts.host}`, 'is another linkctl listen running? Choose another with --port (the URLs in the product name the port)');
      if (code === 'EADDRNOTAVAIL' || code === 'EACCES') throw new UsageError(`--host ${opts.host} --port ${opts.port}: cannot listen there (${code})`, 'try --host 127.0.0.1');
      throw err;
    }
    // events stored in an earlier run that a target has not taken yet: said at start (issue 53)
    const waiting = new Map(await Promise.all(targets.map(async (target) => [target, await events.waitingFor(target)] as const)));
    for (const target of targets) forwarders.push(new Forwarder(events, target, signing!, log));
    heartbeat = setInterval(() => void events.heartbeat().catch((e: Error) => ctx.warn(`listen: cannot mark the run alive: ${e.message}`)), HEARTBEAT_MS);
    heartbeat.unref();

    const hostPart = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
    const base = (opts.publicUrl as string | undefined)?.replace(/\/+$/, '') ?? `http://${hostPart}:${door.port}`;
    const created = `${base}/${secrets.path}/created`;
    const visits = `${base}/${secrets.path}/visits`;
    if (ctx.sandboxMode) {
      // the sandbox has no web interface to paste them into: set them in its state for the user
      const [{ configDir }, { defaultStateFile, findRunning }, { pointSandboxAt }] = await Promise.all([import('../../config/paths.js'), import('../../sandbox/running.js'), import('../../sandbox/webhooks.js')]);
      const dir = configDir(ctx.env);
      const running = findRunning(dir);
      await pointSandboxAt(running?.stateFile ?? defaultStateFile(dir), { created, visits, base: running?.url });
    }
    ctx.secrets.push(secrets.path);
    // The URLs hold the secret: they go to stderr for the person (never into a log of stdout), and
    // are the only place it is shown. Prose wrapped at the terminal's width (80 off a terminal);
    // each URL and secret alone on an indented line, whole, to copy.
    const told = [
      `linkctl listen: receiving on http://${hostPart}:${door.port} for ${safeText(source.name ?? source.account)} at ${safeText(source.baseUrl)}, storing in ${history.db.where}`,
      ctx.sandboxMode
        ? 'The sandbox posts its webhooks here now (set in its state; try `linkctl sandbox visits --link docs`). On the product, the first URL goes in the field for new links and the second in the one for visits (Tools, Integrations):'
        : "Paste these into the product (Tools, Integrations): the first in the field for new links, the second in the one for visits; the API cannot set them.",
      `  ${created}`,
      `  ${visits}`,
      ...(opts.host === '127.0.0.1' || opts.host === '::1' || opts.host === 'localhost' ? ['Listening on loopback only: the product must run on this machine, or reach it through a reverse proxy (--public-url).'] : []),
      ...(targets.length ? ['Forwarding each event, signed (Linkctl-Signature), to:', ...targets.flatMap((t) => [`  ${safeText(t)}`, ...waitingNote(waiting.get(t) ?? 0)])] : []),
      ...(secrets.madeSigning && given === undefined ? [`Signing secret (shown this once; kept with profile ${profile}):`, `  ${secrets.signing}`] : []),
      'Press Ctrl-C to stop.',
    ];
    ctx.io.stderr.write(`${wrapMessage(told.join('\n'), (ctx.io.stderr.isTTY && ctx.io.stderr.columns) || 80)}\n`);
    doorFailed = () => stop();
    if (failure || outClosed) stop();
    await stopped;
    if (failure) throw new CliError(`listen: the door stopped receiving posts (${failure.message}); what it acknowledged is stored`, ExitCode.config, 'start linkctl listen again: it keeps the same secret and URLs');
    if (outClosed) throw new CliError(`listen stopped: its output was closed (${outClosed}: the program reading stdout ended), so it no longer takes posts; every post it answered 2xx is stored`, ExitCode.api, 'start it again; to keep some of the lines, filter with a program that reads on (grep, jq), not head');
  } finally {
    if (heartbeat) clearInterval(heartbeat);
    await door?.close();
    const left = await feed?.stop();
    if (left?.unstored) ctx.warn(`listen: ${thousands(left.unstored)} event${left.unstored === 1 ? '' : 's'} answered 2xx are not in the history (${left.why}); they stay in the journal, and the next start stores them`);
    await store?.flush();
    await Promise.all(forwarders.map((f) => f.stop()));
    // what the targets have not taken yet waits in the history; the next start with the same --forward-to sends it
    for (const f of forwarders) {
      const count = await store?.waitingFor(f.target).catch(() => 0);
      if (count) ctx.warn(`listen: ${thousands(count)} event${count === 1 ? '' : 's'} not yet forwarded to ${f.target} wait${count === 1 ? 's' : ''} in the history; the next \`linkctl listen --forward-to ${f.target}\` delivers ${count === 1 ? 'it' : 'them'} first, in order`);
    }
    await store?.heartbeat().catch(() => undefined);
    await history.close();
  }
  // stdout carried the events: nothing after them
  ctx.warn('listen stopped');
  return { kind: 'none' };
}

/** After a forward target at start: the events an earlier run stored that it has not taken yet. */
function waitingNote(count: number): string[] {
  if (!count) return [];
  return [`    first the ${thousands(count)} event${count === 1 ? '' : 's'} stored while it did not take ${count === 1 ? 'it' : 'them'}`];
}

/** `--poll`: link changes from the link list, printed as they are found; no clicks, nothing stored. */
async function poll(ctx: Context, everyMs: number, json: boolean): Promise<Result> {
  const poller = new LinkPoller(await ctx.client());
  ctx.io.releaseTerminal?.();
  ctx.warn(`linkctl listen --poll: reading the link list every ${everyMs / 1000} s and printing link.created, link.updated and link.deleted. It sees no clicks: visits reach linkctl only through the product's webhooks (run listen without --poll, and paste its URLs into Tools, Integrations). Press Ctrl-C to stop.`);
  const stopped = new Promise<void>((resolve) => {
    if (ctx.io.signal?.aborted) return resolve();
    ctx.io.signal?.addEventListener('abort', () => resolve(), { once: true });
    process.once('SIGTERM', () => resolve());
  });
  let stop = false;
  void stopped.then(() => (stop = true));
  let first = true;
  while (!stop) {
    const { events, links } = await poller.poll();
    if (first) ctx.warn(`starting point: ${thousands(links)} links`);
    first = false;
    for (const e of events) {
      ctx.io.stdout.write(json ? `${safeStringify(e)}\n` : `${safeText(`${e.at.slice(11, 19)}  ${e.type.slice(5).padEnd(7)}  ${(e.alias ?? String(e.linkId)).padEnd(14)} ${e.longUrl ? `→ ${e.longUrl}` : ''}`).slice(0, (ctx.io.stdout.columns || 80) - 1)}\n`);
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, everyMs);
      void stopped.then(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
  ctx.warn('listen stopped');
  return { kind: 'none' };
}
