/**
 * The bulk engine behind `--from FILE`: the command's own action, once per row.
 *
 * 1. Every row is turned into the `opts` commander would give (src/bulk/rows.ts) and run through
 *    the action with a client that stops at the first request: every check the action makes
 *    (flags, combinations) runs on every row, and nothing is sent. Then what the rows name in the
 *    account (`<name>Names`: a link's domain) is looked up, each name once, with the reads the run
 *    makes anyway. Any bad row: exit 2, all listed, nothing changed.
 * 2. The rows are run through the shared API client (it paces by the rate-limit headers and waits
 *    out over-limit answers), as many at a time as --concurrency allows (auto: one at a time while
 *    the server shows a rate limit, src/http/concurrency.ts), rows that share a key (a link's
 *    alias or destination, an id) one after the other; each is recorded in the journal before it
 *    is sent and with its outcome after (src/journal/journal.ts), and the results are streamed to the
 *    output in the file's order, whatever order the rows finish in.
 */
import type { Command } from 'commander';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Context } from '../context.js';
import { AuthError, ConfigError, InterruptedError, NetworkError, NotFoundError, RateLimitError, UsageError } from '../errors.js';
import type { Column, Rec, Result } from '../output/types.js';
import { bulkColumns, type AccountName, type Action, type ActionInput, type ActionModule, type BulkFormat } from '../commands/shared/define.js';
import { firstOf } from '../model/values.js';
import { AccountReader } from '../model/reader.js';
import type { ApiClient } from '../http/client.js';
import { stateDir } from '../config/paths.js';
import { hashFile, openInput, readRows, spoolStdin, type RawRow } from './input.js';
import { rowInput } from './rows.js';
import { FINISHED, Journal, JournalWriteError, journalAccount, type Entry, type RowStatus } from '../journal/journal.js';
import { canLookUp, lookUp, rowKeys } from './lookup.js';
import type { ConcurrencySetting } from '../http/concurrency.js';
import { Progress } from '../output/progress.js';

/** Thrown by the validation client at the first request: the row passed every check before it. */
const REACHED = Symbol('reached a request');

const BULK_FLAGS = ['from', 'fromFormat', 'stopOnError', 'restart', 'concurrency'];
/**
 * The most rows started and not yet given to the output: a row that takes long (a lookup, a
 * question) holds up the output, and this bounds what waits behind it.
 */
const WINDOW = 64;
/** A `--from` file larger than this keeps memory flat (memory.ts); see the run below. */
const FLAT_FROM_BYTES = 1024 * 1024;
/** Errors that would fail every following row as well: the run stops. */
const FATAL = [AuthError, ConfigError, InterruptedError, RateLimitError];

const STATUS_OF: Record<string, RowStatus> = { add: 'created', update: 'updated', remove: 'deleted' };

/** A row started, in the file's order: settled once it has an outcome (or stopped on an error, without one). */
interface Slot {
  raw: RawRow;
  settled: boolean;
  outcome?: Outcome;
}

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
    // Rows in flight together ask one after the other (Context.confirm keeps the turn).
    confirm: validating || confirmed ? async () => undefined : (question: string, hint?: string) => ctx.confirm(`${where}: ${question}`, hint),
    checkOutput: () => undefined,
    status: () => undefined,
    client: validating ? async () => stub : () => ctx.client(),
    // A row being checked reads nothing either: its reader stops at the first request too.
    reader: validating ? async () => new AccountReader(stub as ApiClient) : () => ctx.reader(),
    // A row's cells are data: `@file` in a cell is never read (it could name the config file with every key).
    files: { ...ctx.files, noReads: 'the cells of a --from file are data, not file names: linkctl reads no file a row names (put the JSON itself in the cell)' },
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

    const state = stateDir(ctx.env);
    const from = String(opts.from);
    const temp = from === '-' ? await spoolStdin(ctx.io.stdin, state) : undefined;
    const cleanup = () => temp && rmSync(temp, { force: true });
    let started = false;
    try {
      const input = openInput(from, temp ?? from, opts.fromFormat as BulkFormat | undefined);
      // Memory flat over a large file (memory.ts). A small one ends before V8's young generation
      // grows far, and holding it at its first size cost a 400-row run ~0.15 s of CPU in
      // collections (issue 52); 1 MB of rows is some 20,000.
      if (input.bytes > FLAT_FROM_BYTES) keepMemoryFlat();

      // ------------------------------------------------ 1. validate every row, send nothing
      const problems: string[] = [];
      let total = 0;
      let invalid = 0;
      const validating = rowContext(ctx, '', true); // one for every row: it says nothing and sends nothing
      // What the rows name in the account (a domain), each name once, with the rows that give it.
      const namesOf = module[`${name}Names`] as ((input: ActionInput, ctx: Context) => AccountName[]) | undefined;
      const named = new Map<string, { name: AccountName; where: string; rows: number }>();
      for await (const raw of readRows(input, known, bare)) {
        total++;
        if (total % 5000 === 0) collectGarbage();
        const where = `${input.label}:${raw.line}`;
        if (raw.error) {
          problems.push(`${where}: ${raw.error}`);
          invalid++;
          continue;
        }
        let row: ActionInput | undefined;
        try {
          row = rowInput(spec, raw.values, base);
          await action(validating, row);
        } catch (error) {
          if (error !== REACHED) {
            if (!(error instanceof UsageError)) throw error;
            problems.push(`${where}: ${error.message}`);
            invalid++;
            continue;
          }
        }
        for (const accountName of (row && namesOf?.(row, ctx)) ?? []) {
          const key = `${accountName.flag}\u0000${accountName.value}`;
          const seen = named.get(key);
          if (seen) seen.rows++;
          else named.set(key, { name: accountName, where, rows: 1 });
        }
      }
      if (total === 0) throw new UsageError(`--from: ${input.label} holds no rows`, 'a CSV file needs a header row and at least one record under it');
      const notValid = (read: boolean) => {
        for (const problem of problems) ctx.warn(`linkctl: ${problem}`);
        return new UsageError(`${invalid} of ${total} row${total === 1 ? ' is' : 's are'} not valid; nothing was ${read ? 'changed' : 'sent'}`, 'fix the rows listed above, then run the same command again');
      };
      if (problems.length) throw notValid(false);
      // Asked before any request: off a terminal without --yes, the refusal costs nothing.
      const confirmedOnce = name === 'remove' || name === 'update';
      if (confirmedOnce && !ctx.globals.dryRun) await ctx.confirm(`${name === 'remove' ? 'Delete' : 'Change'} the ${total} ${noun}${total === 1 ? '' : 's'} of ${input.label}?`);
      // What the rows name is looked up in the account (reads, each list once for the run, as the
      // rows would make them), so that no row is sent if any names what the account lacks.
      const read = named.size > 0;
      if (read) {
        const reader = await ctx.reader();
        for (const { name: accountName, where, rows } of named.values()) {
          try {
            await accountName.check(reader);
          } catch (error) {
            if (!(error instanceof UsageError)) throw error;
            problems.push(`${where}${rows > 1 ? ` and ${rows - 1} more row${rows === 2 ? '' : 's'}` : ''}: ${error.message}`);
            invalid += rows;
          }
        }
        if (problems.length) throw notValid(true);
      }
      if (ctx.globals.dryRun) {
        const message = `dry run: ${total} row${total === 1 ? '' : 's'} valid; ${total} request${total === 1 ? '' : 's'} would change something (one per row); nothing was ${read ? 'changed' : 'sent'}`;
        return { kind: 'message', message, json: { dryRun: true, rows: total, requests: total } };
      }

      // ------------------------------------------------ 2. run, --concurrency rows at a time, journaled
      const client = await ctx.client();
      client.prepareWrites(); // the ledger opens while the run's first request is out
      // Then, while that request is still out (a read of the links, link add's `Prepare`), the file's
      // first rows are read again for sending, and the output's module loads: they are no longer
      // done between the read's answer and the first row's request (~7 ms of a 400-row run, issue 52).
      let ahead: { rows: AsyncIterator<RawRow>; first: Promise<IteratorResult<RawRow>> } | undefined;
      let reading = false;
      client.whileNextIsOut(() => {
        void import('../output/render.js').catch(() => undefined);
        if (reading) return; // the run reads already (its first request was a row's)
        const rows = readRows(input, known, bare, true)[Symbol.asyncIterator]();
        ahead = { rows, first: rows.next() };
        ahead.first.catch(() => undefined); // seen by the run, which reports it
      });
      const reader = await ctx.reader();
      const journal = Journal.open({
        dir: join(state, 'bulk'),
        key: {
          ...journalAccount(ctx, client),
          command: path,
          inputHash: await hashFile(input.path),
        },
        // Every flag given for all rows changes what is sent: an unfinished run is resumed only with the same ones.
        settings: flagSettings(base),
        restart: Boolean(opts.restart),
        label: `${path} --from ${input.label}`,
        // link add finds an existing link (alias, destination) before creating one; an update sent again changes nothing more.
        flushEachSend: !(path === 'link add' || path === 'link update'),
        failAfterBytes: testFailAfter(ctx.env),
      });
      try {
        // A command may make its lookups once for the whole file (`<name>Prepare`, e.g. link add's index of links).
        const prepare = module[`${name}Prepare`];
        if (typeof prepare === 'function') {
          const finished = [...journal.previous.values()].filter((entry) => FINISHED.has(entry.state)).length;
          await (prepare as (ctx: Context, rows: number) => Promise<void>)(ctx, total - finished);
        }
      } catch (error) {
        journal.close();
        void ahead?.rows.return?.(undefined)?.catch(() => undefined);
        throw error;
      }
      /** An outcome the journal could not take (a full disk): the row is reported, then the run stops. */
      let unrecorded: JournalWriteError | undefined;
      // How many rows are sent at a time: --concurrency N, or what the client judges of the server (auto, src/http/concurrency.ts).
      const setting = (opts.concurrency as ConcurrencySetting | undefined) ?? 'auto';
      const limit = () => client.inFlight.limit(setting);
      const result: Result = { kind: 'list', columns, pages: run() };
      started = true;

      async function* run(): AsyncGenerator<Rec[]> {
        const counts = new Map<RowStatus, number>();
        let earlier = 0;
        let done = 0;
        let stoppedAt: number | undefined;
        /** Rows done, but not as asked (an error beside a status other than failed). */
        let differed = 0;
        let completed = false;
        let tornAfter = journal.tornAfter;
        const progress = new Progress(ctx, total);
        let rows: AsyncIterator<RawRow> | undefined;
        /** Rows started and not yet given to the output, in the file's order. */
        const pending: Slot[] = [];
        /** Rows sending now (or waiting for an earlier row that shares a key with them). */
        let running = 0;
        /** The first error that stops the run (a fatal one, the input unreadable, a bug): thrown once the rows in flight are in. */
        let fatal: { error: unknown } | undefined;
        /** Whether a row failed with --stop-on-error: no row is started after it. */
        let stopping = false;
        /** The latest row of each key still running (rows that share a key keep the file's order). */
        const lastOfKey = new Map<string, Promise<void>>();
        let wake = () => {};
        const settled = () => new Promise<void>((resolve) => (wake = resolve));

        /** Starts a row (or takes its outcome from an earlier run): its slot is settled when it has an outcome or an error. */
        const start = (raw: RawRow) => {
          const slot: Slot = { raw, settled: false };
          pending.push(slot);
          const previous = journal.previous.get(raw.line);
          if (previous && FINISHED.has(previous.state)) {
            earlier++;
            slot.outcome = { ...previous, status: previous.state as RowStatus };
            slot.settled = true;
            return;
          }
          let unknown = previous?.state === 'sending';
          if (tornAfter !== undefined && raw.line > tornAfter) {
            // The earlier run's last line was torn before it named its row: this row, the next it would have sent.
            tornAfter = undefined;
            unknown = true;
            journal.record({ row: raw.line, state: 'sending' });
          }
          const row = rowInput(spec, raw.values, base);
          const keys = rowKeys(path, row);
          const before = keys.map((key) => lastOfKey.get(key)).filter((p): p is Promise<void> => p !== undefined);
          running++;
          const sent: Promise<void> = (async () => {
            if (before.length) await Promise.all(before);
            slot.outcome = await runRow(row, raw.line, `${input.label}:${raw.line}`, unknown);
            if (slot.outcome.status === 'failed' && opts.stopOnError) stopping = true;
          })()
            .catch((error: unknown) => void (fatal ??= { error }))
            .finally(() => {
              running--;
              slot.settled = true;
              for (const key of keys) if (lastOfKey.get(key) === sent) lastOfKey.delete(key);
              wake();
            });
          for (const key of keys) lastOfKey.set(key, sent);
        };
        // A row whose write is done and whose ledger entry is being written is no longer at the
        // server: with several in flight, the next row may start (the client holds the requests at
        // the server to `limit()` itself). One at a time stays one row at a time.
        const mayStart = () => !fatal && !unrecorded && !stopping && pending.length < WINDOW && running - (limit() > 1 ? client.recording : 0) < limit();
        client.bound = limit;
        client.freed = () => wake();

        try {
          // A command may read ahead for the next row while this one is sent (`<name>Prefetch`,
          // e.g. link update's read of the next link) when it cannot start yet: the same requests,
          // in half the time one at a time against a server without a limit; a rate limit paces them all the same.
          const prefetch = module[`${name}Prefetch`] as ((ctx: Context, input: ActionInput) => void) | undefined;
          reading = true;
          rows = ahead?.rows ?? readRows(input, known, bare, true)[Symbol.asyncIterator]();
          let first = ahead?.first;
          let next: IteratorResult<RawRow> | undefined;
          const readNext = async () => {
            try {
              const read = first ?? rows!.next();
              first = undefined;
              next = await read;
            } catch (error) {
              fatal ??= { error }; // the rows in flight are seen through first
              next = undefined;
            }
          };
          await readNext();
          const hasNext = () => Boolean(next && !next.done);
          for (;;) {
            while (hasNext() && mayStart()) {
              const raw = next!.value!;
              // The row after it is read while this one starts; when it cannot start too, its read-ahead is sent.
              const reading = readNext().then(() => {
                if (!prefetch || !hasNext() || mayStart() || journal.previous.has(next!.value!.line)) return;
                const ahead = next!.value!;
                try {
                  prefetch(rowContext(ctx, `${input.label}:${ahead.line}`, false), rowInput(spec, ahead.values, base));
                } catch {
                  // the row's own run reports whatever is wrong with it
                }
              });
              start(raw);
              await reading;
            }
            // The finished rows at the head, in the file's order: the output lists them so, whatever
            // order they finished in. A row stopped by an error has no result: once no row is in
            // flight any more, the rows after it that finished are listed.
            while (pending.length && pending[0]!.settled) {
              const { raw, outcome } = pending[0]!;
              if (!outcome && running > 0) break;
              pending.shift();
              if (!outcome) continue;
              done++;
              if (done % 5000 === 0) collectGarbage();
              counts.set(outcome.status, (counts.get(outcome.status) ?? 0) + 1);
              if (outcome.error && outcome.status !== 'failed') differed++;
              if (outcome.status === 'failed' && opts.stopOnError) stoppedAt ??= raw.line;
              progress.tick(done);
              yield [{ row: raw.line, status: outcome.status, id: outcome.id ?? null, ...(linkish ? { shorturl: outcome.shorturl ?? null } : path === 'qr add' ? { link: outcome.link ?? null } : {}), error: outcome.error ?? null }];
            }
            if (running === 0) {
              if (fatal) throw fatal.error;
              if (unrecorded) throw unrecorded;
              if (!hasNext() || stopping) break;
              continue;
            }
            await settled(); // a row in flight finishes: its result, or room for the next row
          }
          completed = true;
        } finally {
          // Stopped early (--stop-on-error, an error, the output gone): rows in flight are seen through, so that the journal records their outcomes.
          while (running > 0) await settled();
          client.bound = client.freed = undefined;
          void rows?.return?.(undefined)?.catch(() => undefined);
          progress.end();
          const failed = counts.get('failed') ?? 0;
          // Every row finished: the journal has done its work (running the file again is a new run).
          if (completed && done === total && failed === 0) journal.retire();
          else journal.close();
          cleanup();
          const parts = [...counts].map(([status, n]) => `${n} ${status}`);
          ctx.warn(
            `${input.label}: ${done} of ${total} row${total === 1 ? '' : 's'} done${parts.length ? ` (${parts.join(', ')})` : ''}` +
              `${earlier ? `; ${earlier} finished in an earlier run, not sent again` : ''}` +
              `${differed ? `; ${differed} not as asked (see their error)` : ''}` +
              `${stoppedAt !== undefined ? `; stopped at row ${stoppedAt} (--stop-on-error), ${total - done} not attempted` : done < total ? `; ${total - done} not attempted` : ''}`,
          );
          result.exitCode = failed + differed > 0 || done < total ? 1 : 0;
        }
      }

      /** One row: resolve an unknown outcome of an earlier run first, then send, journaled before and after. */
      async function runRow(input: ActionInput, line: number, where: string, unknownBefore: boolean): Promise<Outcome> {
        const status = STATUS_OF[name] ?? 'created';
        const record = (outcome: Outcome): Outcome => {
          try {
            journal.record({ row: line, state: outcome.status, ...pick(outcome) });
          } catch (error) {
            if (!(error instanceof JournalWriteError)) throw error;
            unrecorded ??= new JournalWriteError(`${error.message}: row ${line} was ${outcome.status} but the journal could not record it (the next run looks it up); the run stopped there`, error.hint!, error.cause);
          }
          return outcome;
        };
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
          try {
            await journal.sending(line); // on disk before the request (rows in flight together share the flush)
          } catch (error) {
            if (!(error instanceof JournalWriteError)) throw error;
            throw new JournalWriteError(`${error.message}: row ${line} was not sent, and the run stopped there`, error.hint!, error.cause);
          }
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

/** The flags given for every row, as people write them (`--description`), for the journal to compare on resume. */
function flagSettings(base: Record<string, unknown>): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value === undefined) continue;
    settings[`--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return settings;
}

/** LINKCTL_TEST_JOURNAL_FAIL_AFTER=N, for tests only: the journal's writer fails (ENOSPC) after N bytes, as on a full disk. */
function testFailAfter(env: Record<string, string | undefined>): number | undefined {
  const value = env.LINKCTL_TEST_JOURNAL_FAIL_AFTER;
  return value !== undefined && /^\d+$/.test(value) ? Number(value) : undefined;
}

function pick(outcome: Outcome): Partial<Entry> {
  const out: Partial<Entry> = {};
  if (outcome.id !== undefined) out.id = outcome.id;
  if (outcome.shorturl !== undefined) out.shorturl = outcome.shorturl;
  if (outcome.link !== undefined) out.link = outcome.link;
  if (outcome.error !== undefined) out.error = outcome.error;
  return out;
}
