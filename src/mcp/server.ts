/**
 * `linkctl mcp`: a Model Context Protocol server over stdio (the official SDK, loaded only by
 * this command). Each tool call runs linkctl's own `main()` in-process with `--json` and
 * streams held in memory, so validation, dry runs, confirmations, pacing, retries, redaction
 * and the JSON shapes are exactly the CLI's. Calls run one at a time. Nothing but protocol
 * messages goes to stdout; a line per call goes to stderr.
 */
import type { Allowance } from '../http/networks.js';
import type { Readable, Writable } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from '../context.js';
import type { IO } from '../io.js';
import { VERSION } from '../version.js';
import { FULL_READ } from '../http/pages.js';
import { UNCONFIRMED } from '../errors.js';
import type { ListSummary } from '../output/types.js';
import { partialNote } from '../output/render.js';
import { safeStringify } from '../output/safe-text.js';
import { LineTransport } from './lines.js';
import { boundJson, boundText, type Bounded } from './bounded.js';
import { ALL_CAP, argvOf, PAGING, FINDINGS_EXIT, forMode, isAdminTool, checkArguments, inputSchema, inToolTerms, MAX_BYTES, MAX_BYTES_RANGE, PAGE_SIZE, toolsOf, type Mode, type Tool } from './tools.js';
import { decodeCursor, encodeCursor, Held, type Cursor } from './pages.js';
import { thousands } from '../numbers.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** What a list said of itself (page, pages, records in all), when the command printed one. */
  listed?: ListSummary;
}

/**
 * Serves until the client closes stdin (returns) or Ctrl-C (the signal; returns too). Tools read
 * and write local files only inside `root` (never in the config folder); none when it is null.
 */
export async function serveMcp(ctx: Context, mode: Mode, root: string | null = null, checkAllowPrivate?: Allowance): Promise<void> {
  // The CLI's entry points come with the context (main() gives them): this module never imports src/cli.ts.
  if (!ctx.cli) throw new Error('internal: linkctl mcp runs from main(), which gives the context the CLI');
  const { buildProgram, main } = ctx.cli;
  const quiet = { write: () => true };
  const program = buildProgram({ stdout: quiet, stderr: quiet, stdin: empty(), env: {} }, () => async () => undefined);
  const every = toolsOf(program);
  const listed = new Map(forMode(every, mode).map((t) => [t.name, t]));
  const globals = globalArgv(ctx);
  const session: Pick<IO, 'pacing'> = { pacing: {} };

  const run = async (argv: string[]): Promise<Run> => {
    let stdout = '';
    let stderr = '';
    let listed: ListSummary | undefined;
    const io: IO = {
      listed: (summary) => (listed = summary),
      stdout: { write: (s: string) => ((stdout += s), true) },
      stderr: { write: (s: string) => ((stderr += s), true) },
      stdin: empty(),
      env: ctx.io.env,
      signal: ctx.io.signal,
      files: { root },
      agent: true,
      checkAllowPrivate,
      ...session,
    };
    const code = await main([...globals, ...argv], io);
    if (ctx.globals.debug) {
      // The trace is for the person running the server: its log, not the agent's result.
      const lines = stderr.split('\n');
      const trace = lines.filter((l) => l.startsWith('[debug]'));
      if (trace.length) ctx.io.stderr.write(`${trace.join('\n')}\n`);
      stderr = lines.filter((l) => !l.startsWith('[debug]')).join('\n');
    }
    return { code, stdout, stderr, listed };
  };

  const server = new Server({ name: 'linkctl', version: VERSION }, { capabilities: { tools: {} }, instructions: PAGING });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [...listed.values()].map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: inputSchema(tool),
      // MCP's defaults say the rest: openWorldHint is true, and destructiveHint counts only for a tool that is not read-only.
      annotations: tool.access === 'read' ? { readOnlyHint: true } : { readOnlyHint: false, destructiveHint: tool.access === 'delete' || tool.access === 'confirm' },
    })),
  }));

  // One call at a time: the rate limit is the account's, and the sandbox shares one state file.
  let queue: Promise<unknown> = Promise.resolve();
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const { name, arguments: args = {} } = request.params;
    const next = queue.then(async () => {
      const result = await call(name, args);
      ctx.warn(`mcp: ${name}${result.isError ? ': error' : ''}`);
      return result;
    });
    queue = next.catch(() => undefined);
    return next;
  });

  async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const tool = listed.get(name);
    if (!tool) {
      const known = every.find((t) => t.name === name);
      if (!known) return failure(`unknown tool "${name}"`);
      if (isAdminTool(known) && !mode.admin) return failure(`${name} is not available: this server lists no admin tools; the user can start it with \`linkctl mcp --allow-admin\`. Nothing was sent.`);
      const needs = known.access === 'delete' ? '--allow-writes --allow-deletes' : '--allow-writes';
      return failure(`${name} is not available: this server is ${mode.writes ? 'without deletes' : 'read-only'}; the user can start it with \`linkctl mcp ${needs}${isAdminTool(known) ? ' --allow-admin' : ''}\`. Nothing was sent.`);
    }
    if ('override' in args && !tool.params.some((p) => p.name === 'override')) {
      return failure(`${name}: override is not available on this server: only the user can let writes through the policy, by starting \`linkctl mcp --allow-override\`. Nothing was sent.`);
    }
    const gated = every.find((t) => t.name === name)!.params.find((p) => p.name in args && !tool.params.includes(p));
    if (gated) return failure(`${name}: ${gated.name} is not available on this server; the user can start it with \`linkctl mcp --allow-writes${gated.access === 'delete' ? ' --allow-deletes' : ''}\`. Nothing was sent.`);
    const wrong = checkArguments(tool, args);
    if (wrong) return failure(`${name}: ${wrong}. Nothing was sent.`);
    try {
      if (tool.lists) return await listAnswer(tool, args);
      const r = await run(argvOf(tool, args));
      // `lint` exits 1 when it finds something: its findings are the answer, not a failure.
      const found = r.code === 1 && FINDINGS_EXIT.has(tool.name) && r.stdout.trim() !== '';
      return r.code === 0 || found ? success(tool, r) : refusal(tool, args, r);
    } catch (error) {
      return failure(`${name}: ${(error as Error).message}`);
    }
  }

  /** Lists read but not yet answered in full, for the cursors that go on through them (the last few). */
  const held = new Held<HeldList>();

  /**
   * A list tool's answer: `{summary, records, nextCursor}`, under `maxBytes`. The records come
   * from a list held since an earlier call (the cursor names it), else from one page of the
   * server (paged tools: `limit` records, PAGE_SIZE by default; `all: true` reads every page up
   * to ALL_CAP), else from one run of the command (`check`): what does not fit is held for the
   * next cursor. A cursor is the list's position (the index of its next record) and the call's
   * arguments; a paged list no longer held is read again from that position.
   */
  async function listAnswer(tool: Tool, given: Record<string, unknown>): Promise<CallToolResult> {
    let args = given;
    let at = 0;
    let cursor: Cursor | undefined;
    if (given.cursor !== undefined && given.cursor !== null) {
      const decoded = decodeCursor(String(given.cursor), tool);
      if (typeof decoded === 'string') return failure(`${tool.name}: ${decoded}. Nothing was sent.`);
      cursor = decoded;
      // What a cursor carries is checked as a call's arguments are (a cursor could be made by hand).
      const wrong = checkArguments(tool, cursor.a);
      if (wrong) return failure(`${tool.name}: \`cursor\` is not one this server gave (${wrong}). Nothing was sent.`);
      // The cursor carries the call's arguments; others given again must be the same (page and all only said where to start).
      for (const [name, value] of Object.entries(given)) {
        if (['cursor', 'maxBytes', 'limit', 'page', 'all'].includes(name) || value === undefined || value === null) continue;
        if (JSON.stringify(value) !== JSON.stringify(cursor.a[name])) {
          return failure(`${tool.name}: \`${name}\` is not what it was in the call that gave this cursor (${cursor.a[name] === undefined ? 'not given' : JSON.stringify(cursor.a[name])}); give the cursor alone (with limit or maxBytes if you like) to go on, or call without cursor to start again. Nothing was sent.`);
        }
      }
      args = { ...cursor.a, ...(given.limit !== undefined && given.limit !== null ? { limit: given.limit } : {}) };
      at = cursor.o;
    }
    // The size asked for, by this call or the one that gave the cursor.
    const asked = given.maxBytes ?? cursor?.m;
    const maxBytes = asked === undefined || asked === null ? MAX_BYTES : Number(asked);
    if (!Number.isInteger(maxBytes) || maxBytes < MAX_BYTES_RANGE.min || maxBytes > MAX_BYTES_RANGE.max) {
      return failure(`${tool.name}: \`maxBytes\` must be a whole number from ${MAX_BYTES_RANGE.min} to ${MAX_BYTES_RANGE.max}, got ${JSON.stringify(asked)}. Nothing was sent.`);
    }
    const m = asked === undefined || asked === null ? undefined : maxBytes;
    const limit = args.limit === undefined || args.limit === null ? undefined : Number(args.limit);
    // What the cursor goes on with: the call's arguments without where it started.
    const { page: _page, all: _all, cursor: _cursor, maxBytes: _maxBytes, ...kept } = args;

    // Where the records come from: a list held for this cursor, one page of the server, or one run.
    // A held list is these arguments' list whatever the records an answer takes (`limit`).
    const { limit: _limit, ...which } = kept;
    let list: HeldList | undefined = cursor?.h ? held.get(cursor.h, tool.name, which) : undefined;
    let notes = '';
    if (!list && cursor?.h && !tool.paginated) {
      return failure(`${tool.name}: the records of this cursor are no longer held (this server keeps the last ${Held.SIZE} lists it has not answered in full); call ${tool.name} again without cursor. Nothing was sent.`);
    }
    if (!list) {
      const read = tool.paginated ? await readPages(tool, args, cursor ? { at, pageSize: cursor.l } : undefined) : await readWhole(tool, args);
      if (read.refused) return read.refused;
      ({ list, notes } = read);
      if (!cursor && tool.paginated) at = list.start;
    }
    const extra = at === list.start ? list.extra : undefined;
    // JSON as the CLI writes it: control characters and bidi overrides escaped (a client may show it on a terminal).
    const json = (value: unknown) => safeStringify(value);

    // As many records from `at` on as fit: the notes, the summary and the cursor take their share first.
    const reserve = Buffer.byteLength(notes) + Buffer.byteLength(json(extra ?? {})) + 400 + encodeCursor({ t: tool.name, a: kept, o: 1e9, l: list.pageSize, h: 'x'.repeat(12), m }).length;
    const records: unknown[] = [];
    let size = 0;
    for (let i = at - list.start; i >= 0 && i < list.records.length; i++) {
      if (limit !== undefined && records.length >= limit) break;
      const bytes = Buffer.byteLength(json(list.records[i])) + 1;
      if (records.length > 0 && size + bytes > maxBytes - reserve) break;
      records.push(list.records[i]);
      size += bytes;
    }
    const end = at + records.length;
    let nextCursor: string | undefined;
    if (end < list.start + list.records.length) {
      nextCursor = encodeCursor({ t: tool.name, a: kept, o: end, l: list.pageSize, h: held.keep(list, tool.name, which), m });
    } else if (list.more && list.pageSize) {
      nextCursor = encodeCursor({ t: tool.name, a: kept, o: end, l: list.pageSize, m });
    }
    const cut = nextCursor !== undefined && (limit === undefined || records.length < limit) && end < list.start + list.records.length;
    let summary = summaryOf(tool, at, end, list, nextCursor !== undefined, cut ? maxBytes : undefined);
    // One record is always given, even one larger than the cap: said, so that nobody waits for a smaller answer.
    if (records.length === 1 && size > maxBytes - reserve) summary += `; this record alone is over maxBytes (${thousands(maxBytes)})`;
    const answer = { summary, ...extra, records, ...(nextCursor ? { nextCursor } : {}) };
    const content: CallToolResult['content'] = [{ type: 'text', text: json(answer) }];
    if (notes) content.push({ type: 'text', text: notes });
    return { content };
  }

  /**
   * One page of a paged list tool: the first page the call asks for, or where a cursor goes on (the
   * page that holds record `at`, in the cursor's page size unless `limit` is given); with `all:
   * true` (and no cursor) every page up to ALL_CAP records.
   */
  async function readPages(tool: Tool, args: Record<string, unknown>, from: { at: number; pageSize?: number } | undefined): Promise<Read> {
    if (args.all === true && from === undefined) return readAll(tool, args);
    const pageSize = args.limit === undefined || args.limit === null ? (from?.pageSize ?? PAGE_SIZE) : Number(args.limit);
    const page = from === undefined ? Number(args.page ?? 1) : Math.floor(from.at / pageSize) + 1;
    const r = await run(argvOf(tool, args, { page, limit: pageSize, all: false }));
    if (r.code !== 0) return { refused: refusal(tool, args, r) };
    const records = JSON.parse(r.stdout) as unknown[];
    const more = r.listed?.maxpage !== undefined && r.listed.page !== undefined ? r.listed.page < r.listed.maxpage : records.length === pageSize;
    const total = r.listed?.result ?? (more ? undefined : (page - 1) * pageSize + records.length);
    return { list: { records, start: (page - 1) * pageSize, pageSize, more, total }, notes: listNotes(tool, r) };
  }

  /** `all: true`, bounded: pages in order until an empty one, or ALL_CAP records. */
  async function readAll(tool: Tool, args: Record<string, unknown>): Promise<Read> {
    // Pages as large as a full read's first, which is also where `all` stops: one request for up to ALL_CAP records.
    const pageSize = Number(args.limit ?? Math.min(FULL_READ.first, ALL_CAP));
    const first = Number(args.page ?? 1);
    const records: unknown[] = [];
    let previousFirst: string | undefined;
    let truncated = false;
    let total: number | undefined;
    let notes = '';
    for (let page = first; ; page++) {
      const r = await run(argvOf(tool, args, { page, limit: pageSize, all: false }));
      if (r.code !== 0) {
        const partial = records.length ? `\n(stopped at page ${page} after ${records.length} records; none of them is returned)` : '';
        return { refused: refusal(tool, args, { ...r, stderr: `${r.stderr.trimEnd()}${partial}` }) };
      }
      notes ||= listNotes(tool, r);
      total = r.listed?.result ?? total;
      const got = JSON.parse(r.stdout) as unknown[];
      const head = JSON.stringify(got[0]);
      // An empty page ends the list; so does a server that ignores `page` and answers the same page again.
      if (got.length === 0 || head === previousFirst) break;
      previousFirst = head;
      records.push(...got);
      if (records.length >= ALL_CAP) {
        truncated = records.length > ALL_CAP || got.length === pageSize;
        records.length = ALL_CAP;
        break;
      }
      if (got.length < pageSize) break; // a short page is the last one
    }
    const note = truncated ? `all stops at ${thousands(ALL_CAP)} records; the cursor goes on past them, page by page` : '';
    return { list: { records, start: (first - 1) * pageSize, pageSize, more: truncated, total: truncated ? total : (first - 1) * pageSize + records.length }, notes: [notes, note].filter(Boolean).join('\n') };
  }

  /** A list made by one run of the command (`check`): every record at once. */
  async function readWhole(tool: Tool, args: Record<string, unknown>): Promise<Read> {
    const r = await run(argvOf(tool, args));
    if (r.code !== 0) return { refused: refusal(tool, args, r) };
    let data: unknown;
    try {
      data = JSON.parse(r.stdout);
    } catch {
      return { refused: success(tool, r) }; // not a list after all: the answer as it is
    }
    // A list, or an object whose `records` are the list (its other fields come with the first answer).
    const { records: inside, ...extra } = data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : { records: data };
    const records = Array.isArray(inside) ? inside : [data];
    return { list: { records, start: 0, more: false, total: records.length, extra: Array.isArray(inside) ? extra : undefined }, notes: listNotes(tool, r) };
  }

  // Our own line reader in front of the SDK: an oversized or malformed line is answered, and the server goes on.
  const transport = new LineTransport(ctx.io.stdin as unknown as Readable, ctx.io.stdout as unknown as Writable, (message) => ctx.warn(message));
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    const stdin = ctx.io.stdin as unknown as Readable;
    // A client that sends its requests and closes its end (a script, a pipe) still gets every answer.
    stdin.once?.('end', () => void drained().then(() => transport.close()));
    if (ctx.io.signal?.aborted) resolve();
    ctx.io.signal?.addEventListener('abort', () => void transport.close(), { once: true });
  });
  /** Every call received so far has answered (answers are sent a tick after their handler ends). */
  async function drained(): Promise<void> {
    const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
    await tick();
    for (let seen: Promise<unknown> | undefined; seen !== queue; ) {
      seen = queue;
      await seen;
      await tick();
    }
  }

  await server.connect(transport);
  ctx.warn(`linkctl mcp: serving ${listed.size} tools over stdio (${mode.deletes ? 'writes and deletes allowed' : mode.writes ? 'writes allowed, no deletes' : 'read-only'})`);
  await closed;
  await queue;
  await server.close();
}

/** A list read for an answer, or the answer that ends the call instead (an error). */
type Read = { list: HeldList; notes: string; refused?: undefined } | { refused: CallToolResult };

/** A list's position and what is known of the rest of it. */
interface HeldList {
  records: unknown[];
  /** The index in the whole list of `records[0]`. */
  start: number;
  /** The page size asked of the server (paged tools): a cursor past these records reads on from the server. */
  pageSize?: number;
  /** The server has records after these. */
  more: boolean;
  /** Records in the whole list, when known. */
  total?: number;
  /** A list that came as an object's `records`: its other fields, for the first answer. */
  extra?: Record<string, unknown>;
}

/**
 * `records 1–40 of 1,100; more: call link_list with {"cursor": nextCursor}` (and why it stopped
 * there: `limit`, or the size the answer is kept under).
 */
function summaryOf(tool: Tool, at: number, end: number, list: HeldList, more: boolean, cutAt: number | undefined): string {
  const n = (x: number) => thousands(x);
  const of = list.total !== undefined ? ` of ${n(list.total)}` : '';
  const which = end > at ? `records ${n(at + 1)}–${n(end)}${of}` : at === 0 ? 'no records' : `no records after ${n(at)}${of}`;
  const why = cutAt !== undefined ? `; the rest did not fit ${n(cutAt)} bytes (maxBytes)` : '';
  return more ? `${which}${why}; more: call ${tool.name} with {"cursor": nextCursor}` : `${which}; the end of the list`;
}

/**
 * A list's notes from stderr, in the tool's terms, without the CLI's "page 1 of 4 ...; --all for
 * every record": the summary and the cursor say that here.
 */
function listNotes(tool: Tool, r: Run): string {
  const paging = r.listed && partialNote(r.listed);
  const lines = r.stderr.split('\n').filter((line) => line.trim() && line !== paging);
  return inToolTerms(tool, lines.join('\n').trim());
}

/**
 * A tool's answer: the `--json` output as one text (compact: an agent pays for every byte), and
 * the notes a person would see on stderr as a second one. No `structuredContent`: clients read one
 * or the other (Claude Code gives the model only structuredContent when there is one, dropping the
 * notes; many read only the text), and both would be the payload twice (README, "AI agents").
 */
function success(tool: Tool, r: Run): CallToolResult {
  let bounded: Bounded;
  try {
    bounded = boundJson(JSON.parse(r.stdout), (v) => safeStringify(v));
  } catch {
    // not JSON (an exported file, a document): as it is, within its own bound
    bounded = boundText(r.stdout.trim());
  }
  const content: CallToolResult['content'] = [{ type: 'text', text: bounded.text }];
  // What was cut, and how to get it whole: the user runs the same command (its output is not bounded).
  if (bounded.cut) content.push({ type: 'text', text: `Cut: ${bounded.cut}. To get it whole, ask the user to run \`linkctl ${tool.path.join(' ')} ... --json\` with the same arguments.` });
  // Notes a person would see on stderr (a rewritten alias, options a server will clear, "dry run:
  // nothing was sent"), with the CLI's flags named as this tool's arguments (`--all` is `all: true`).
  if (r.stderr.trim()) content.push({ type: 'text', text: inToolTerms(tool, r.stderr.trim()) });
  return { content };
}

/**
 * A failed call: the message and hint a user would see (already redacted by main), in the tool's
 * terms: its arguments, not the CLI's flags. A confirmation refused for want of a terminal becomes
 * a request to call again with `confirm: true`.
 */
function refusal(tool: Tool, args: Record<string, unknown>, r: Run): CallToolResult {
  let said = r.stderr.trim();
  const asks = r.code === 2 && args.confirm !== true && tool.params.some((p) => p.name === 'confirm') && said.includes(`: ${UNCONFIRMED}`);
  if (asks) said = said.replace(`: ${UNCONFIRMED}`, ` (not done: it needs \`confirm: true\`)`);
  const text = said ? inToolTerms(tool, said) : `linkctl exited with code ${r.code}`;
  if (asks) return failure(`${text}\nNothing was changed. To go ahead, call ${tool.name} again with the same arguments and \`confirm: true\`.`);
  return failure(text);
}

function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** The global options the server was started with, given again to every call. */
function globalArgv(ctx: Context): string[] {
  const g = ctx.globals;
  return [
    ...(g.profile ? [`--profile=${g.profile}`] : []),
    ...(g.baseUrl ? [`--base-url=${g.baseUrl}`] : []),
    ...(g.apiPath ? [`--api-path=${g.apiPath}`] : []),
    // `linkctl mcp --as-user 7`: every call acts as that user (the user chose it; a call cannot).
    ...(g.asUser ? [`--as-user=${g.asUser}`] : []),
    ...(g.sandbox ? ['--sandbox'] : []),
    ...(g.insecureHttp ? ['--insecure-http'] : []),
    // The user's policy holds for every call (--override is never passed on: only `override`, where allowed).
    ...(g.policy ? [`--policy=${g.policy}`] : []),
    ...(g.debug ? ['--debug'] : []),
    // `linkctl mcp --dry-run`: every write is a dry run. --yes is never passed on: confirm: true is per call.
    ...(g.dryRun ? ['--dry-run'] : []),
    `--timeout=${g.timeout}`,
    `--max-wait=${g.maxWait}`,
  ];
}

/** stdin of a call: empty, and not a terminal, so nothing waits for a person. */
function empty(): IO['stdin'] {
  return (async function* () {})();
}
