/**
 * The mechanics every resource's commands share, written once: list (one page or --all), delete
 * with confirmation, many ids, and turning an answer into a result. Paths and keys come from the
 * resource's model (src/model/); a command's own file says only how it looks and what its flags mean.
 */
import type { Context } from '../../context.js';
import type { ListRequest, Page } from '../../http/pages.js';
import type { Body } from '../../http/envelope.js';
import type { Column, ListSummary, Rec, Result } from '../../output/types.js';
import type { Kind, Model } from '../../model/index.js';
import type { Action } from './define.js';
import { CliError, ExitCode, NotFoundError } from '../../errors.js';
export { compact, firstOf } from '../../model/values.js';

/** `list` for a resource: one page (with a footer on a terminal) or every page with --all. */
export function listAction(kind: Kind, columns: Column[], extraQuery?: (opts: Record<string, any>) => ListRequest['query']): Action {
  return async (ctx, { opts }) => {
    const { MODELS } = await import('../../model/index.js');
    const model = MODELS[kind];
    const request: ListRequest = { path: model.list, keys: model.keys, limit: opts.limit, page: opts.page, query: extraQuery?.(opts) };
    return listResult(ctx, request, columns, Boolean(opts.all));
  };
}

/**
 * One page, or with `all` every page: in large pages when --limit is not given (FULL_READ in
 * src/http/pages.ts), in pages of --limit from --page when it is.
 */
export async function listResult(ctx: Context, request: ListRequest, columns: Column[], all: boolean): Promise<Result> {
  ctx.checkOutput(columns); // an unknown --fields name fails before anything is sent
  if (all) (await import('../../memory.js')).keepMemoryFlat();
  const client = await ctx.client();
  const { fetchPage, allPages, fullRead } = await import('../../http/pages.js');
  let summary: ListSummary | undefined;
  const pages = async function* (): AsyncGenerator<Rec[]> {
    if (!all) {
      const page: Page = await fetchPage(client, request);
      summary = { page: page.currentpage ?? request.page ?? 1, maxpage: page.maxpage, result: page.result, shown: page.records.length, all: false };
      yield page.records;
      return;
    }
    let shown = 0;
    let pagesRead = 0;
    const large = request.limit === undefined && request.page === undefined;
    for await (const page of large ? fullRead(client, request) : allPages(client, request)) {
      shown += page.records.length;
      pagesRead++;
      ctx.status(`${shown}${page.result ? ` of ${page.result}` : ''} records, ${pagesRead} page${pagesRead === 1 ? '' : 's'}`);
      yield page.records;
    }
    summary = { shown, all: true };
  };
  return { kind: 'list', pages: pages(), columns, summary: () => summary };
}

/**
 * `delete ID...`: one confirmation naming every id, then one request per id, each reported
 * (successes on stdout, failures on stderr). Any failure makes the exit non-zero: its own code
 * when all failures share it, else 1.
 */
export function removeAction(kind: Kind, warning?: string): Action {
  return async (ctx, { args }) => {
    const ids = idList(args[0]);
    const [{ MODELS }, { remove }] = await Promise.all([import('../../model/index.js'), import('../../model/model.js')]);
    const model = MODELS[kind];
    const noun = model.noun;
    const Noun = `${noun[0]!.toUpperCase()}${noun.slice(1)}`;
    const client = await ctx.client();
    if (warning) ctx.warn(warning);
    await ctx.confirm(ids.length === 1 ? `Delete ${noun} ${ids[0]}?` : `Delete ${ids.length} ${noun}s: ${ids.join(', ')}?`);
    return forEachId(ctx, ids, {
      send: (id) => remove(client, model, id),
      label: (id) => `${Noun} ${id}`,
      done: 'deleted',
      summary: `${noun}s not deleted`,
    });
  };
}

/** The ids of a variadic `<id...>` argument, each once, in the order given. */
export function idList(value: unknown): number[] {
  return [...new Set((Array.isArray(value) ? value : [value]) as number[])];
}

/** What one id's request came to: done, or already so (an assign of an item already there). */
export type IdOutcome = Body & { exists?: boolean };

/**
 * One request per id (many-id deletes and assigns): each reported, a failure not stopping the
 * others (except a bad key or Ctrl-C, which would fail them all), and the exit code of the
 * failures. One id keeps the plain answer of a single command.
 */
export async function forEachId(
  ctx: Context,
  ids: number[],
  how: { send: (id: number) => Promise<IdOutcome>; label: (id: number) => string; done: string; summary: string },
): Promise<Result> {
  if (ids.length === 1) {
    const body = await how.send(ids[0]!);
    const result = messageResult(body, `${how.label(ids[0]!)} ${how.done}.`);
    return body.exists && result.kind === 'message' ? { ...result, json: { ...(result.json as Rec), status: 'exists' } } : result;
  }
  const lines: string[] = [];
  const json: Rec[] = [];
  const failures: CliError[] = [];
  for (const id of ids) {
    try {
      const body = await how.send(id);
      const message = typeof body.message === 'string' && body.message ? body.message : `${how.done}.`;
      lines.push(`${how.label(id)}: ${message}`);
      json.push({ id, [how.done]: true, ...(body.exists ? { status: 'exists' } : {}), message });
    } catch (error) {
      if (!(error instanceof CliError) || error.exitCode === ExitCode.auth || error.exitCode === ExitCode.interrupted) throw error;
      ctx.warn(`linkctl: ${error.message}`);
      failures.push(error);
      json.push({ id, [how.done]: false, message: error.message });
    }
  }
  const codes = new Set(failures.map((e) => e.exitCode));
  if (failures.length) ctx.warn(`linkctl: ${failures.length} of ${ids.length} ${how.summary}`);
  return { kind: 'message', message: lines.join('\n'), json, exitCode: failures.length ? (codes.size === 1 ? failures[0]!.exitCode : ExitCode.api) : undefined };
}

/**
 * One record of a resource without a single read (pixels, campaigns), from the run's read of its
 * list. Updates that the API makes repeat a field use it to read that field.
 */
export async function findInList(ctx: Context, model: Model, id: number): Promise<Rec> {
  const found = await (await ctx.reader()).byId(model.kind, id);
  if (!found) throw new NotFoundError(`${model.noun} ${id} is not in the list of ${model.noun}s`, `see \`linkctl ${model.command} list\``);
  return found;
}

/** A result carrying the server's message when it sent one. JSON is the answer without its `error` flag. */
export function messageResult(body: Body, fallback: string): Result {
  return { kind: 'message', message: typeof body.message === 'string' && body.message ? body.message : fallback, json: withoutError(body) };
}

export function withoutError(body: Body): Body {
  const { error: _error, exists: _exists, ...rest } = body;
  return rest;
}
