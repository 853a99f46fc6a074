/**
 * The bulk engine behind `--from FILE`: the command's own action, once per row.
 *
 * 1. Every row is turned into the `opts` commander would give (src/bulk/rows.ts) and run through
 *    the action with a client that stops at the first request: every check the action makes
 *    (flags, combinations) runs on every row, and nothing is sent. Any bad row: exit 2, all listed.
 * 2. The rows are run one at a time through the shared API client (it paces by the rate-limit
 *    headers and waits out over-limit answers), each recorded in a journal before and after
 *    (src/bulk/journal.ts), a result per row streamed to the output.
 */
import type { Command } from 'commander';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from '../context.js';
import { AuthError, ConfigError, InterruptedError, NetworkError, NotFoundError, RateLimitError, UsageError } from '../errors.js';
import type { Column, Rec, Result } from '../output/types.js';
import { bulkColumns, type Action, type ActionInput, type ActionModule, type BulkFormat } from '../commands/shared/define.js';
import { firstOf } from '../model/values.js';
import { AccountReader } from '../model/reader.js';
import type { ApiClient } from '../http/client.js';
import { stateDir } from '../config/paths.js';
import { hashFile, openInput, readRows, spoolStdin, type InputFile } from './input.js';
import { rowInput } from './rows.js';
import { FINISHED, Journal, type Entry, type RowStatus } from './journal.js';
import { canLookUp, lookUp } from './lookup.js';
import { Progress } from '../output/progress.js';

/** Thrown by the validation client at the first request: the row passed every check before it. */
const REACHED = Symbol('reached a request');

const BULK_FLAGS = ['from', 'fromFormat', 'stopOnError', 'restart'];
/** Errors that would fail every following row as well: the run stops. */
const FATAL = [AuthError, ConfigError, InterruptedError, RateLimitError];

const STATUS_OF: Record<string, RowStatus> = { add: 'created', update: 'updated', remove: 'deleted' };

interface Outcome {
  status: RowStatus;
  id?: unknown;
  shorturl?: unknown;
  link?: unknown;
  error?: string;
}

/**
 * A context for one row: its notes name the row, the output is the engine's. A command confirmed
 * once for the whole file (delete, update) does not ask again; any other confirmation a row
 * needs (`link add --if-exists update` clearing what it cannot read back) is asked as usual.
 */
function rowContext(ctx: Context, where: string, validating: boolean, confirmed = false): Context {
  const row = Object.create(ctx) as Context;
  const stub = new Proxy({}, { get: (_target, key) => (key === 'then' ? undefined : () => Promise.reject(REACHED)) });
  Object.assign(row, {
    warn: (message: string) => (validating ? undefined : ctx.warn(`${where}: ${message}`)),
    confirm: validating || confirmed ? async () => undefined : (question: string, hint?: string) => ctx.confirm(`${where}: ${question}`, hint),
    checkOutput: () => undefined,
    status: () => undefined,
    client: validating ? async () => stub : () => ctx.client(),
    // A row being checked reads nothing either: its reader stops at the first request too.
    reader: validating ? async () => new AccountReader(stub as ApiClient) : () => ctx.reader(),
    readStdin: async () => {
      throw new UsageError('stdin cannot be read by a row: it is the --from input', 'put the value in the file itself, or read --from from a file rather than stdin');
    },
  });
  return row;
}

/**
 * What a row runs: `<name>Row` when the actions module has one (a command whose outcome is more
 * than "done", e.g. a link that already existed), else the command's own action.
 */
export type RowAction = (ctx: Context, input: ActionInput) => Promise<{ status?: RowStatus; record: Rec; problems?: string[] }>;

function rowAction(module: ActionModule, name: string): RowAction {
  const own = module[`${name}Row`];
  if (typeof own === 'function') return own as RowAction;
  const action = module[name] as Action;
  return async (ctx, input) => {
    const result = await action(ctx, input);
    return { record: result.kind === 'record' ? result.record : {} };
  };
}

/** The row's id argument; a command that takes several ids (`delete 3 4`) has a list of one. */
function givenId(input: ActionInput): unknown {
  const [first] = input.args;
  return Array.isArray(first) && first.length === 1 ? first[0] : first;
}

/** A row's outcome; what the server did differently from what was asked (another domain, dropped options) is its error. */
function outcomeOf({ status, record, problems }: { status?: RowStatus; record: Rec; problems?: string[] }, fallback: RowStatus, input: ActionInput): Outcome {
  const outcome: Outcome = { status: status ?? fallback, id: record.id ?? givenId(input), shorturl: firstOf(record, 'shorturl', 'short'), link: record.link };
  if (problems?.length) outcome.error = problems.join('; ');
  return outcome;
}

function errorText(error: unknown): string {
  const e = error as { message?: string; hint?: string };
  return `${e.message ?? String(error)}${e.hint ? ` (${e.hint})` : ''}`;
}

export function bulkAction(command: Command, name: string, module: ActionModule): Action {
  const action = rowAction(module, name);
  return async (ctx, { args, opts }) => {
    const path = `${command.parent!.name()} ${command.name()}`;
    const noun = command.parent!.name();
    if (args.some((a) => a !== undefined && !(Array.isArray(a) && a.length === 0))) {
      throw new UsageError(`--from replaces the ${command.registeredArguments.map((a) => a.name().toUpperCase()).join(' ')} argument: give one or the other`, `drop the argument: the file's ${command.registeredArguments[0]?.name() ?? 'first'} column gives it for each row`);
    }
    if (opts.password || opts.passwordStdin) throw new UsageError('--password and --password-stdin ask once, so they cannot be used with --from', 'set a password link by link afterwards, with `linkctl link update ID --password`');
    const linkish = noun === 'link' && name !== 'remove';
    const columns: Column[] = [
      { key: 'row', header: 'Row' },
      { key: 'status', header: 'Status' },
      { key: 'id', header: 'ID' },
      ...(linkish ? [{ key: 'shorturl', header: 'Short URL' }] : path === 'qr add' ? [{ key: 'link', header: 'Image' }] : []),
      { key: 'error', header: 'Error' },
    ];
    ctx.checkOutput(columns);
    const base = Object.fromEntries(Object.entries(opts).filter(([k]) => !BULK_FLAGS.includes(k)));
    // Rows read their link back only with --verify (a single command always does): one more request a row.
    if (command.options.some((o) => o.long === '--verify')) base.verify = Boolean(opts.verify);
    const spec = bulkColumns(command);
    const known = spec.map((c) => c.name);
    const bare = spec.length === 1 && spec[0]!.argument ? spec[0]!.name : undefined;
    const { collectGarbage, keepMemoryFlat } = await import('../memory.js');
    keepMemoryFlat();

    const state = stateDir(ctx.env);
    const from = String(opts.from);
    const temp = from === '-' ? await spoolStdin(ctx.io.stdin, state) : undefined;
    const cleanup = () => temp && rmSync(temp, { force: true });
    let started = false;
    try {
      const input = openInput(from, temp ?? from, opts.fromFormat as BulkFormat | undefined);

      // ------------------------------------------------ 1. validate every row, send nothing
      const problems: string[] = [];
      let total = 0;
      const validating = rowContext(ctx, '', true); // one for every row: it says nothing and sends nothing
      for await (const raw of readRows(input, known, bare)) {
        total++;
        if (total % 5000 === 0) collectGarbage();
        const where = `${input.label}:${raw.line}`;
        if (raw.error) {
          problems.push(`${where}: ${raw.error}`);
          continue;
        }
        try {
          await action(validating, rowInput(spec, raw.values, base));
        } catch (error) {
          if (error === REACHED) continue;
          if (!(error instanceof UsageError)) throw error;
          problems.push(`${where}: ${error.message}`);
        }
      }
      if (total === 0) throw new UsageError(`--from: ${input.label} holds no rows`, 'a CSV file needs a header row and at least one record under it');
      if (problems.length) {
        for (const problem of problems) ctx.warn(`linkctl: ${problem}`);
        throw new UsageError(`${problems.length} of ${total} row${total === 1 ? ' is' : 's are'} not valid; nothing was sent`, 'fix the rows listed above, then run the same command again');
      }
      if (ctx.globals.dryRun) {
        const message = `dry run: ${total} row${total === 1 ? '' : 's'} valid; ${total} request${total === 1 ? '' : 's'} would change something (one per row); nothing was sent`;
        return { kind: 'message', message, json: { dryRun: true, rows: total, requests: total } };
      }
      const confirmedOnce = name === 'remove' || name === 'update';
      if (confirmedOnce) await ctx.confirm(`${name === 'remove' ? 'Delete' : 'Change'} the ${total} ${noun}${total === 1 ? '' : 's'} of ${input.label}?`);

      // ------------------------------------------------ 2. run, one row at a time, journaled
      const client = await ctx.client();
      const reader = await ctx.reader();
      const journal = new Journal(
        join(state, 'bulk'),
        {
          profile: ctx.sandboxMode ? 'sandbox' : ctx.settings().profile.value,
          baseUrl: ctx.sandboxMode ? 'sandbox' : client.base.href,
          command: path,
          inputHash: await hashFile(input.path),
        },
        Boolean(opts.restart),
      );
      // A command may make its lookups once for the whole file (`<name>Prepare`, e.g. link add's index of links).
      const prepare = module[`${name}Prepare`];
      if (typeof prepare === 'function') {
        const finished = [...journal.previous.values()].filter((entry) => FINISHED.has(entry.state)).length;
        await (prepare as (ctx: Context, rows: number) => Promise<void>)(ctx, total - finished);
      }
      const result: Result = { kind: 'list', columns, pages: run() };
      started = true;

      async function* run(): AsyncGenerator<Rec[]> {
        const counts = new Map<RowStatus, number>();
        let earlier = 0;
        let done = 0;
        let stoppedAt: number | undefined;
        /** Rows done, but not as asked (an error beside a status other than failed). */
        let differed = 0;
        const progress = new Progress(ctx, total);
        try {
          for await (const raw of readRows(input, known, bare)) {
            const where = `${input.label}:${raw.line}`;
            const previous = journal.previous.get(raw.line);
            let outcome: Outcome;
            if (previous && FINISHED.has(previous.state)) {
              earlier++;
              outcome = { ...previous, status: previous.state as RowStatus };
            } else {
              outcome = await runRow(rowInput(spec, raw.values, base), raw.line, where, previous?.state === 'sending');
            }
            done++;
            if (done % 5000 === 0) collectGarbage();
            counts.set(outcome.status, (counts.get(outcome.status) ?? 0) + 1);
            if (outcome.error && outcome.status !== 'failed') differed++;
            progress.tick(done);
            yield [{ row: raw.line, status: outcome.status, id: outcome.id ?? null, ...(linkish ? { shorturl: outcome.shorturl ?? null } : path === 'qr add' ? { link: outcome.link ?? null } : {}), error: outcome.error ?? null }];
            if (outcome.status === 'failed' && opts.stopOnError) {
              stoppedAt = raw.line;
              break;
            }
          }
        } finally {
          progress.end();
          journal.close();
          cleanup();
          const parts = [...counts].map(([status, n]) => `${n} ${status}`);
          const failed = (counts.get('failed') ?? 0) + differed;
          ctx.warn(
            `${input.label}: ${done} of ${total} row${total === 1 ? '' : 's'} done${parts.length ? ` (${parts.join(', ')})` : ''}` +
              `${earlier ? `; ${earlier} finished in an earlier run, not sent again` : ''}` +
              `${differed ? `; ${differed} not as asked (see their error)` : ''}` +
              `${stoppedAt !== undefined ? `; stopped at row ${stoppedAt} (--stop-on-error), ${total - done} not attempted` : done < total ? `; ${total - done} not attempted` : ''}`,
          );
          result.exitCode = failed > 0 || done < total ? 1 : 0;
        }
      }

      /** One row: resolve an unknown outcome of an earlier run first, then send, journaled before and after. */
      async function runRow(input: ActionInput, line: number, where: string, unknownBefore: boolean): Promise<Outcome> {
        const status = STATUS_OF[name] ?? 'created';
        const record = (outcome: Outcome): Outcome => (journal.record({ row: line, state: outcome.status, ...pick(outcome) }), outcome);
        if (unknownBefore && canLookUp(path)) {
          let found: Rec | null | undefined;
          try {
            found = await lookUp(reader, path, input);
          } catch (error) {
            if (FATAL.some((type) => error instanceof type)) throw error;
            return { status: 'failed', error: `the earlier run may or may not have created it, and looking it up failed: ${errorText(error)}` };
          }
          if (found) return record({ status, id: found.id, shorturl: firstOf(found, 'shorturl', 'short'), link: found.link });
          if (found === undefined) return { status: 'failed', error: 'the earlier run may or may not have created it, and the row gives nothing to look it up by (a name); check, then run with --restart' };
        }
        for (let attempt = 1; ; attempt++) {
          journal.record({ row: line, state: 'sending' });
          try {
            return record(outcomeOf(await action(rowContext(ctx, where, false, confirmedOnce), input), status, input));
          } catch (error) {
            if (FATAL.some((type) => error instanceof type)) throw error;
            // A delete sent again after an earlier run lost its answer: already gone means done.
            if (unknownBefore && name === 'remove' && error instanceof NotFoundError) return record({ status: 'deleted', id: givenId(input) });
            const unknown = error instanceof NetworkError && /may or may not have been created/.test(error.message);
            if (unknown && canLookUp(path) && attempt === 1) {
              const found: Rec | null | undefined = await lookUp(reader, path, input).catch(() => undefined);
              if (found) return record({ status, id: found.id, shorturl: firstOf(found, 'shorturl', 'short'), link: found.link });
              if (found === null) continue; // provably absent: send again, once
            }
            // An unknown outcome stays "sending" in the journal: the next run looks it up first.
            if (unknown) return { status: 'failed', error: errorText(error) };
            return record({ status: 'failed', error: errorText(error) });
          }
        }
      }

      return result;
    } finally {
      if (!started) cleanup();
    }
  };
}

function pick(outcome: Outcome): Partial<Entry> {
  const out: Partial<Entry> = {};
  if (outcome.id !== undefined) out.id = outcome.id;
  if (outcome.shorturl !== undefined) out.shorturl = outcome.shorturl;
  if (outcome.link !== undefined) out.link = outcome.link;
  if (outcome.error !== undefined) out.error = outcome.error;
  return out;
}
