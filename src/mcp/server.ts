/**
 * `linkctl mcp`: a Model Context Protocol server over stdio (the official SDK, loaded only by
 * this command). Each tool call runs linkctl's own `main()` in-process with `--json` and
 * streams held in memory, so validation, dry runs, confirmations, pacing, retries, redaction
 * and the JSON shapes are exactly the CLI's. Calls run one at a time. Nothing but protocol
 * messages goes to stdout; a line per call goes to stderr.
 */
import type { Readable, Writable } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { buildProgram, main } from '../cli.js';
import type { Context } from '../context.js';
import type { IO } from '../io.js';
import { VERSION } from '../version.js';
import { FULL_READ } from '../http/pages.js';
import { LineTransport } from './lines.js';
import { ALL_CAP, argvOf, forMode, checkArguments, inputSchema, inToolTerms, toolsOf, type Mode, type Tool } from './tools.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Serves until the client closes stdin (returns) or Ctrl-C (the signal; returns too). Tools read
 * and write local files only inside `root` (never in the config folder); none when it is null.
 */
export async function serveMcp(ctx: Context, mode: Mode, root: string | null = null): Promise<void> {
  const quiet = { write: () => true };
  const program = buildProgram({ stdout: quiet, stderr: quiet, stdin: empty(), env: {} }, () => async () => undefined);
  const every = toolsOf(program);
  const listed = new Map(forMode(every, mode).map((t) => [t.name, t]));
  const globals = globalArgv(ctx);
  const session: Pick<IO, 'pacing'> = { pacing: {} };

  const run = async (argv: string[]): Promise<Run> => {
    let stdout = '';
    let stderr = '';
    const io: IO = {
      stdout: { write: (s: string) => ((stdout += s), true) },
      stderr: { write: (s: string) => ((stderr += s), true) },
      stdin: empty(),
      env: ctx.io.env,
      signal: ctx.io.signal,
      files: { root },
      agent: true,
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
    return { code, stdout, stderr };
  };

  const server = new Server({ name: 'linkctl', version: VERSION }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [...listed.values()].map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: inputSchema(tool),
      annotations: { readOnlyHint: tool.access === 'read', destructiveHint: tool.access === 'delete' || tool.access === 'confirm', openWorldHint: true },
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
      const needs = known.access === 'delete' ? '--allow-writes --allow-deletes' : '--allow-writes';
      return failure(`${name} is not available: this server is ${mode.writes ? 'without deletes' : 'read-only'}; the user can start it with \`linkctl mcp ${needs}\`. Nothing was sent.`);
    }
    const gated = every.find((t) => t.name === name)!.params.find((p) => p.name in args && !tool.params.includes(p));
    if (gated) return failure(`${name}: ${gated.name} is not available on this server; the user can start it with \`linkctl mcp --allow-writes${gated.access === 'delete' ? ' --allow-deletes' : ''}\`. Nothing was sent.`);
    const wrong = checkArguments(tool, args);
    if (wrong) return failure(`${name}: ${wrong}. Nothing was sent.`);
    try {
      if (tool.paginated && args.all === true) return await allRecords(tool, args);
      const r = await run(argvOf(tool, args));
      return r.code === 0 ? success(tool, r) : refusal(tool, args, r);
    } catch (error) {
      return failure(`${name}: ${(error as Error).message}`);
    }
  }

  /** `all: true`, bounded: pages in order until an empty one, or ALL_CAP records. */
  async function allRecords(tool: Tool, args: Record<string, unknown>): Promise<CallToolResult> {
    // Pages as large as a full read's first, which is also where `all` stops: one request for up to ALL_CAP records.
    const limit = Number(args.limit ?? Math.min(FULL_READ.first, ALL_CAP));
    const records: unknown[] = [];
    let previousFirst: string | undefined;
    let truncated = false;
    let next = 0;
    for (let page = Number(args.page ?? 1); ; page++) {
      const r = await run(argvOf(tool, args, { page, limit, all: false }));
      if (r.code !== 0) {
        const partial = records.length ? `\n(stopped at page ${page} after ${records.length} records; none of them is returned)` : '';
        return refusal(tool, args, { ...r, stderr: `${r.stderr.trimEnd()}${partial}` });
      }
      const got = JSON.parse(r.stdout) as unknown[];
      const first = JSON.stringify(got[0]);
      // An empty page ends the list; so does a server that ignores `page` and answers the same page again.
      if (got.length === 0 || first === previousFirst) break;
      previousFirst = first;
      records.push(...got);
      if (records.length >= ALL_CAP) {
        truncated = true;
        // Cut inside a page: that page again (its first records repeat), else the one after.
        next = records.length > ALL_CAP ? page : page + 1;
        records.length = ALL_CAP;
        break;
      }
      if (got.length < limit) break; // a short page is the last one
    }
    const structured = truncated
      ? { records, truncated, next: { page: next, limit }, note: `all stops at ${ALL_CAP.toLocaleString('en')} records; there may be more: ask for page ${next} with limit ${limit} and on` }
      : { records, truncated };
    return { content: [{ type: 'text', text: JSON.stringify(structured, null, 2) }], structuredContent: structured };
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

function success(tool: Tool, r: Run): CallToolResult {
  let data: unknown;
  try {
    data = JSON.parse(r.stdout);
  } catch {
    return { content: [{ type: 'text', text: r.stdout }] };
  }
  const structured = Array.isArray(data) ? { records: data } : data && typeof data === 'object' ? (data as Record<string, unknown>) : { value: data };
  const content: CallToolResult['content'] = [{ type: 'text', text: r.stdout.trim() }];
  // Notes a person would see on stderr (a rewritten alias, options a server will clear, "dry run:
  // nothing was sent"), with the CLI's flags named as this tool's arguments (`--all` is `all: true`).
  if (r.stderr.trim()) content.push({ type: 'text', text: inToolTerms(tool, r.stderr.trim()) });
  return { content, structuredContent: structured };
}

/**
 * A failed call: the message and hint a user would see (already redacted by main), in the tool's
 * terms. A confirmation refused for want of a terminal (exit 2, "--yes") becomes a request to confirm.
 */
function refusal(tool: Tool, args: Record<string, unknown>, r: Run): CallToolResult {
  const said = r.stderr.trim();
  // The message and its hint name the CLI's flags: in the tool's own terms, as a success's notes are.
  const text = said ? inToolTerms(tool, said) : `linkctl exited with code ${r.code}`;
  if (r.code === 2 && args.confirm !== true && tool.params.some((p) => p.name === 'confirm') && /--yes\b/.test(said)) {
    return failure(`${text}\nNothing was changed. To go ahead, call ${tool.name} again with the same arguments and confirm: true.`);
  }
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
    ...(g.sandbox ? ['--sandbox'] : []),
    ...(g.insecureHttp ? ['--insecure-http'] : []),
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
