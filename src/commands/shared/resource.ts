/**
 * The mechanics every resource shares, written once: list (one page or --all), delete with
 * confirmation, and turning an answer into a result. A resource's own file says only what is
 * particular to it (paths, collection keys, columns, body fields).
 */
import type { Context } from '../../context.js';
import type { ListRequest, Page } from '../../api/pages.js';
import type { Body } from '../../api/envelope.js';
import type { Column, ListSummary, Rec, Result } from '../../output/types.js';
import type { Action } from './define.js';
import { CliError, ExitCode, NotFoundError } from '../../errors.js';

/** What a list needs: read-only resources (overlays, splash pages) are only this. */
export interface Listable {
  listPath: string;
  /** Collection keys, documented one first (real servers may use another). */
  keys: readonly string[];
  columns: Column[];
}

export interface Resource extends Listable {
  /** A singular noun for messages, e.g. `QR code`. */
  noun: string;
  /** The path of one record: `<itemPath>/update`, `<itemPath>/delete`, or itself for a read. */
  itemPath: (id: number) => string;
}

/** `list` for a resource: one page (with a footer on a terminal) or every page with --all. */
export function listAction(resource: Listable, extraQuery?: (opts: Record<string, any>) => ListRequest['query']): Action {
  return async (ctx, { opts }) => {
    const request: ListRequest = {
      path: resource.listPath,
      keys: resource.keys,
      limit: opts.limit,
      page: opts.page,
      query: extraQuery?.(opts),
    };
    return listResult(ctx, request, resource.columns, Boolean(opts.all));
  };
}

/**
 * Page size of --all when --limit is not given: the server's default of 15 would spend the
 * rate limit (30 requests a minute by default) seven times faster for the same records.
 */
export const ALL_PAGE_SIZE = 100;

export async function listResult(ctx: Context, request: ListRequest, columns: Column[], all: boolean): Promise<Result> {
  ctx.checkOutput(columns); // an unknown --fields name fails before anything is sent
  if (all && request.limit === undefined) request = { ...request, limit: ALL_PAGE_SIZE };
  if (all) (await import('../../memory.js')).keepMemoryFlat();
  const client = await ctx.client();
  const { fetchPage, allPages } = await import('../../api/pages.js');
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
    for await (const page of allPages(client, request)) {
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
export function removeAction(resource: Resource, warning?: string): Action {
  return async (ctx, { args }) => {
    const ids = idList(args[0]);
    const noun = resource.noun;
    const Noun = `${noun[0]!.toUpperCase()}${noun.slice(1)}`;
    const client = await ctx.client();
    if (warning) ctx.warn(warning);
    await ctx.confirm(ids.length === 1 ? `Delete ${noun} ${ids[0]}?` : `Delete ${ids.length} ${noun}s: ${ids.join(', ')}?`);
    return forEachId(ctx, ids, {
      send: (id) => client.request('DELETE', `${resource.itemPath(id)}/delete`, { about: `${Noun} ${id}` }),
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

/**
 * One request per id (many-id deletes and assigns): each reported, a failure not stopping the
 * others (except a bad key or Ctrl-C, which would fail them all), and the exit code of the
 * failures. One id keeps the plain answer of a single command.
 */
export async function forEachId(
  ctx: Context,
  ids: number[],
  how: { send: (id: number) => Promise<Body>; label: (id: number) => string; done: string; summary: string },
): Promise<Result> {
  if (ids.length === 1) return messageResult(await how.send(ids[0]!), `${how.label(ids[0]!)} ${how.done}.`);
  const lines: string[] = [];
  const json: Rec[] = [];
  const failures: CliError[] = [];
  for (const id of ids) {
    try {
      const body = await how.send(id);
      const message = typeof body.message === 'string' && body.message ? body.message : `${how.done}.`;
      lines.push(`${how.label(id)}: ${message}`);
      // `status` when the action tells apart what it changed from what already held (channel assign: `exists`)
      json.push({ id, [how.done]: true, message, ...(typeof body.status === 'string' ? { status: body.status } : {}) });
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
 * One record read from its list (pixels and campaigns have no read-one endpoint): pages of 100
 * until the id turns up. Updates that the API makes repeat a field use it to read that field.
 */
export async function findInList(ctx: Context, resource: Resource, id: number): Promise<Rec> {
  const client = await ctx.client();
  const { allPages } = await import('../../api/pages.js');
  for await (const page of allPages(client, { path: resource.listPath, keys: resource.keys, limit: ALL_PAGE_SIZE })) {
    const found = page.records.find((r) => String(r.id) === String(id));
    if (found) return found;
  }
  throw new NotFoundError(`${resource.noun} ${id} is not in the list of ${resource.noun}s`, `see \`linkctl ${resource.noun} list\``);
}

/** A result carrying the server's message when it sent one. JSON is the answer without its `error` flag. */
export function messageResult(body: Body, fallback: string): Result {
  return { kind: 'message', message: typeof body.message === 'string' && body.message ? body.message : fallback, json: withoutError(body) };
}

export function withoutError(body: Body): Body {
  const { error: _error, ...rest } = body;
  return rest;
}

/** Drops undefined fields so a request body carries only what the user gave. */
export function compact<T extends Record<string, unknown>>(body: T): Partial<T> {
  return Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** The first of several keys that holds a value: servers name some fields differently. */
export function firstOf(record: Rec, ...keys: string[]): unknown {
  for (const key of keys) if (record[key] !== undefined && record[key] !== null) return record[key];
  return undefined;
}
