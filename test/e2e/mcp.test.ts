/**
 * `linkctl mcp` as an agent meets it: the SDK's own Client over stdio, spawning the built
 * `bin/linkctl.js mcp` against a sandbox that accepts a recognisable key. The tools are checked
 * against the commands' own `--help`, so a flag added to a command without reaching its tool
 * (or the other way round) fails here.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Command } from 'commander';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import { ACCESS } from '../../src/mcp/tools.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { BIN, cleanEnv, runCli, runMain, tempDir } from '../helpers.js';

const KEY = 'sk_live_MCPSECRET_9876543210';

interface Session {
  client: Client;
  /** Everything the server wrote to stderr so far. */
  stderr: () => string;
  /** Everything the client received (tool lists and results), for the key check. */
  seen: string[];
  call(name: string, args?: Record<string, unknown>): Promise<Result>;
  names(): Promise<string[]>;
}

interface Result {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: any;
}

const text = (r: Result) => r.content.map((c) => c.text ?? '').join('\n');

let sandbox: Sandbox;
let configDir: string;
const open: Session[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, rateLimit: null, key: KEY });
  configDir = tempDir();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.client.close()));
  sandbox.reset();
});
afterAll(async () => {
  await sandbox.close();
  rmSync(configDir, { recursive: true, force: true });
});

const env = () => ({ LINKCTL_BASE_URL: sandbox.url, LINKCTL_API_KEY: KEY, LINKCTL_CONFIG_DIR: configDir });

async function connect(flags: string[] = [], extraEnv: Record<string, string> = env()): Promise<Session> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...flags], env: cleanEnv(extraEnv), stderr: 'pipe' });
  let stderr = '';
  transport.stderr!.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const client = new Client({ name: 'linkctl-test', version: '1.0.0' });
  await client.connect(transport);
  const seen: string[] = [];
  const session: Session = {
    client,
    stderr: () => stderr,
    seen,
    async call(name, args = {}) {
      const r = (await client.callTool({ name, arguments: args })) as Result;
      seen.push(JSON.stringify(r));
      return r;
    },
    async names() {
      const { tools } = await client.listTools();
      seen.push(JSON.stringify(tools));
      return tools.map((t) => t.name);
    },
  };
  open.push(session);
  return session;
}

/** Leaf commands and their paths, from the same tree the server reads. */
function leafCommands(): Array<{ path: string[]; command: Command }> {
  const quiet = { write: () => true };
  const program = buildProgram({ stdout: quiet, stderr: quiet, stdin: (async function* () {})(), env: {} }, () => async () => undefined);
  const walk = (command: Command, path: string[]): Array<{ path: string[]; command: Command }> =>
    command.commands.length ? command.commands.flatMap((sub) => walk(sub, [...path, sub.name()])) : [{ path, command }];
  return walk(program, []);
}

const changes = () => sandbox.requests.filter((r) => r.method !== 'GET');

describe('tools listed in each mode', () => {
  it('read-only by default: reading tools only', async () => {
    const s = await connect();
    const names = await s.names();
    expect(names).toEqual(expect.arrayContaining(['account_get', 'qr_list', 'qr_get', 'link_list', 'link_get', 'channel_items', 'overlay_list', 'splash_list']));
    for (const name of ['qr_add', 'link_update', 'campaign_assign', 'channel_assign', 'qr_delete', 'api', 'mcp', 'auth_login', 'sandbox_serve', 'completion']) expect(names).not.toContain(name);
  });

  it('--allow-writes adds creating and changing tools, not deletes', async () => {
    const s = await connect(['--allow-writes']);
    const names = await s.names();
    expect(names).toEqual(expect.arrayContaining(['qr_list', 'qr_add', 'qr_update', 'link_add', 'link_update', 'campaign_assign', 'channel_assign', 'account_update']));
    expect(names.filter((n) => n.endsWith('_delete'))).toEqual([]);
    expect(names).not.toContain('api');
  });

  it('--allow-deletes (with --allow-writes) adds the deletes and the raw api tool', async () => {
    const s = await connect(['--allow-writes', '--allow-deletes']);
    const names = await s.names();
    expect(names).toEqual(expect.arrayContaining(['qr_delete', 'link_delete', 'domain_delete', 'campaign_delete', 'channel_delete', 'pixel_delete', 'api', 'qr_add']));
  });

  it('--allow-deletes alone is a usage error (exit 2) naming the flag', async () => {
    const r = await runCli(['mcp', '--allow-deletes'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--allow-deletes needs --allow-writes/);
    expect(r.stdout).toBe('');
  });
});

describe('one tool per command, its schema the command\'s flags', () => {
  it('every leaf command but the skipped ones has a tool named by its path', async () => {
    const s = await connect(['--allow-writes', '--allow-deletes']);
    const names = (await s.names()).sort();
    // Skipped: auth, completion, sandbox and mcp, each with its reason in ACCESS (test/unit/mcp-tools.test.ts checks every command is there).
    const leaves = leafCommands().map(({ path }) => path);
    const skipped = leaves.filter((path) => typeof ACCESS[path.join(' ')] === 'object');
    expect(skipped.map((path) => path[0])).toEqual(expect.arrayContaining(['auth', 'completion', 'sandbox', 'mcp']));
    const expected = leaves
      .filter((path) => !skipped.includes(path))
      .map((path) => path.join('_'))
      .sort();
    expect(names).toEqual(expected);
    expect(names.length).toBeGreaterThan(30);
  });

  it('each tool takes the arguments and options its --help shows, with the same choices and required ones', async () => {
    const s = await connect(['--allow-writes', '--allow-deletes']);
    const { tools } = await s.client.listTools();
    const byPath = new Map(leafCommands().map(({ path, command }) => [path.join('_'), command]));
    for (const tool of tools) {
      const command = byPath.get(tool.name)!;
      const path = tool.name.split('_');
      const help = (await runMain([...path, '--help'])).stdout;
      const own = help.split(/\nGlobal Options:/)[0]!;
      const usage = /^Usage: linkctl .*$/m.exec(help)![0];
      // Arguments from the usage line (<required> and [optional]); options from the Options section.
      const args = [...usage.matchAll(/(<|\[)([\w-]+)(\.\.\.)?(>|\])/g)].filter((m) => m[2] !== 'options').map((m) => ({ name: m[2]!, required: m[1] === '<' }));
      // One entry per option: its line and the wrapped lines of its description.
      const optionLines = (own.split(/\nOptions:\n/)[1] ?? '').split(/\n(?=  -)/).map((entry) => entry.replace(/\s+/g, ' ')).filter((l) => /^\s*(-\w, )?--/.test(l));
      const camel = (n: string) => n.replace(/-+([a-z0-9])/g, (_, c: string) => c.toUpperCase());
      const flags = new Map<string, string>();
      for (const line of optionLines) {
        const long = /--(no-)?([\w-]+)/.exec(line)!;
        // Secrets, unbounded paging, bulk input (--from and its companions), another database (--db) and check's exit status (--fail-on) are not for tools.
        if (['help', 'password', 'password-stdin', 'paginate', 'from', 'from-format', 'stop-on-error', 'restart', 'verify', 'db', 'fail-on', 'with-clicks'].includes(long[2]!) && !long[1]) continue;
        flags.set(camel(long[2]!), line);
      }
      const props = tool.inputSchema.properties as Record<string, { type?: string; enum?: string[]; items?: { enum?: string[] } }>;
      const controls: string[] = Object.keys(props).filter((k) => k === 'dryRun' || k === 'confirm');
      const expectedControls = tool.annotations?.readOnlyHint ? [] : tool.name.endsWith('_delete') || tool.name === 'api' || tool.name === 'link_update' || tool.name === 'apply' ? ['dryRun', 'confirm'] : ['dryRun'];
      expect(controls, tool.name).toEqual(expectedControls);
      expect(Object.keys(props).filter((k) => !controls.includes(k)).sort(), tool.name).toEqual([...args.map((a) => camel(a.name)), ...flags.keys()].sort());
      // Choices shown by help are the enum; required arguments and mandatory options are required.
      for (const [name, line] of flags) {
        const choices = /\(choices: ((?:"[^"]*"(?:, )?)+)/.exec(line)?.[1]?.match(/"[^"]*"/g)?.map((c) => JSON.parse(c) as string);
        const prop = props[name]!;
        expect(prop.enum ?? prop.items?.enum, `${tool.name} ${name}`).toEqual(choices);
      }
      const mandatory = command.options.filter((o) => o.mandatory).map((o) => o.attributeName());
      expect(((tool.inputSchema.required as string[] | undefined) ?? []).sort(), tool.name).toEqual([...args.filter((a) => a.required).map((a) => camel(a.name)), ...mandatory].sort());
    }
  });
});

describe('calling tools', () => {
  it('check: a read-only tool that requests only the account\'s own destinations (it takes no URL), with the CLI\'s records', async ({ onTestFinished }) => {
    const { createServer } = await import('node:http');
    const seen: string[] = [];
    const destination = createServer((req, res) => void (seen.push(`${req.method} ${req.url}`), res.writeHead(404).end()));
    await new Promise<void>((resolve) => destination.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => destination.close(() => resolve())));
    const headers = { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' };
    // The seeded links point at example.com: gone, so that nothing asks DNS about a real name.
    for (const id of [1, 2]) await fetch(`${sandbox.url}/api/url/${id}/delete`, { method: 'DELETE', headers });
    const port = (destination.address() as { port: number }).port;
    await fetch(`${sandbox.url}/api/url/add`, { method: 'POST', headers, body: JSON.stringify({ url: `http://127.0.0.1:${port}/gone`, custom: 'gone' }) });

    const s = await connect();
    const { tools } = await s.client.listTools();
    const tool = tools.find((t) => t.name === 'check')!;
    expect(tool.annotations?.readOnlyHint).toBe(true);
    expect(Object.keys(tool.inputSchema.properties ?? {}).sort()).toEqual(['concurrency', 'deadline', 'details', 'expiring', 'qr', 'sinceLast']);
    const refused = await s.call('check', { url: 'http://127.0.0.1:1/anything' });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^check: unknown property "url"; check takes qr, details, expiring, concurrency, deadline, sinceLast\. Nothing was sent\.$/);
    const r = await s.call('check', { deadline: '30s', concurrency: 2 });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.records).toEqual([expect.objectContaining({ alias: 'gone', destination: `http://127.0.0.1:${port}/gone`, status: 'client-error', code: 404 })]);
    expect(text(r)).toMatch(/checked 1 destination of 1 link in [\d.]+ s: 1 client-error/);
    expect(seen).toEqual(['HEAD /gone', 'GET /gone']);
  });

  it('a read tool returns the --json output, as text and as structured content', async () => {
    const s = await connect();
    const r = await s.call('qr_list', { limit: 2 });
    expect(r.isError).toBeFalsy();
    const cli = await runCli(['qr', 'list', '--limit', '2', '--json'], { env: env() });
    expect(r.structuredContent).toEqual({ records: JSON.parse(cli.stdout) });
    expect(JSON.parse(r.content[0]!.text!)).toEqual(JSON.parse(cli.stdout));
    const get = await s.call('qr_get', { id: 1 });
    expect(get.structuredContent).toEqual(JSON.parse((await runCli(['qr', 'get', '1', '--json'], { env: env() })).stdout));
  });

  it('a partial page says so in the tool\'s own terms: the `all` argument, not the CLI\'s --all', async () => {
    const s = await connect();
    const r = await s.call('qr_list', { limit: 2 });
    expect(r.content).toHaveLength(2);
    expect(r.content[1]!.text).toBe('page 1 of 2 (2 of 3 records); `all: true` for every record');
    expect(text(r)).not.toContain('--all');
    const cli = await runCli(['qr', 'list', '--limit', '2', '--json'], { env: env() });
    expect(cli.stderr).toBe('page 1 of 2 (2 of 3 records); --all for every record\n');
  });

  it('an unknown id is a tool error with the server\'s message, as the CLI prints it', async () => {
    const s = await connect();
    const r = await s.call('qr_get', { id: 99999 });
    expect(r.isError).toBe(true);
    const cli = await runCli(['qr', 'get', '99999'], { env: env() });
    expect(cli.code).toBe(4);
    expect(text(r)).toBe(cli.stderr.trim());
    expect(text(r)).not.toMatch(/\n\s+at /); // no stack
  });

  it('bad input is refused before anything is sent: the CLI\'s validation, and the schema\'s', async () => {
    const s = await connect(['--allow-writes']);
    const bad = await s.call('qr_get', { id: 'abc' });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/ID must be a positive integer/);
    const unknown = await s.call('qr_list', { colour: 'red' });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toMatch(/unknown property "colour"/);
    const missing = await s.call('qr_add', { data: 'x' });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/type is required/);
    expect(sandbox.requests).toEqual([]);
  });

  it('a write without --allow-writes is impossible and sends nothing', async () => {
    const s = await connect();
    const r = await s.call('qr_add', { type: 'text', data: 'sneaky' });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/not available.*--allow-writes/);
    const d = await s.call('qr_delete', { id: 1, confirm: true });
    expect(d.isError).toBe(true);
    expect(sandbox.requests).toEqual([]);
  });

  it('dryRun returns the request and sends nothing', async () => {
    const s = await connect(['--allow-writes']);
    const r = await s.call('qr_add', { type: 'text', data: 'only a test', dryRun: true });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ dryRun: true, method: 'POST', url: `${sandbox.url}/api/qr/add` });
    expect(text(r)).toContain('dry run: nothing was sent');
    expect(changes()).toEqual([]);
  });

  it('a real create works, and the record can be read back', async () => {
    const s = await connect(['--allow-writes']);
    const r = await s.call('link_add', { url: 'https://example.com/from-an-agent', alias: 'agent', param: ['utm_source=mcp', 'utm_medium=ai'] });
    expect(r.isError, text(r)).toBeFalsy();
    const posts = changes();
    expect(posts.map((q) => `${q.method} ${q.path}`)).toEqual(['POST /api/url/add']);
    expect(posts[0]!.body).toMatchObject({ url: 'https://example.com/from-an-agent', custom: 'agent' });
    const id = r.structuredContent.id;
    expect(typeof id).toBe('number');
    const back = await s.call('link_get', { id });
    expect(back.isError, text(back)).toBeFalsy();
    expect(JSON.stringify(back.structuredContent)).toContain('from-an-agent');
  });

  it('a delete needs --allow-deletes, then confirm: the first call says what it would do and sends nothing', async () => {
    const s = await connect(['--allow-writes', '--allow-deletes']);
    const first = await s.call('pixel_delete', { id: 1 });
    expect(first.isError).toBe(true);
    expect(text(first)).toMatch(/Delete pixel 1/);
    expect(text(first)).toMatch(/confirm: true/);
    expect(changes()).toEqual([]);
    const dry = await s.call('pixel_delete', { id: 1, dryRun: true });
    expect(dry.structuredContent).toMatchObject({ dryRun: true, method: 'DELETE' });
    expect(changes()).toEqual([]);
    const second = await s.call('pixel_delete', { id: 1, confirm: true });
    expect(second.isError, text(second)).toBeFalsy();
    expect(changes().map((q) => `${q.method} ${q.path}`)).toEqual(['DELETE /api/pixel/1/delete']);
  });

  it('a link update that would clear options says what it would clear, sends no change, and goes ahead with confirm', async () => {
    const real = await startSandbox({ port: 0, rateLimit: null, key: KEY, quirks: true });
    try {
      const s = await connect(['--allow-writes'], { ...env(), LINKCTL_BASE_URL: real.url });
      const first = await s.call('link_update', { id: 1, url: 'https://example.com/moved' });
      expect(first.isError).toBe(true);
      expect(text(first)).toMatch(/clear whatever it has of: password/);
      expect(text(first)).toMatch(/confirm: true/);
      expect(real.requests.filter((r) => r.method !== 'GET')).toEqual([]);
      const second = await s.call('link_update', { id: 1, url: 'https://example.com/moved', confirm: true });
      expect(second.isError, text(second)).toBeFalsy();
      expect(real.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`)).toEqual(['PUT /api/url/1/update']);
    } finally {
      await real.close();
    }
  });

  it('a boolean pair and a negated flag: channel_update starred false sends --no-starred', async () => {
    const s = await connect(['--allow-writes']);
    const r = await s.call('channel_update', { id: 1, starred: false, dryRun: true });
    expect(r.isError, text(r)).toBeFalsy();
    expect(r.structuredContent.body).toMatchObject({ starred: false });
  });

  it('a value that starts with "-" stays a value', async () => {
    const s = await connect(['--allow-writes']);
    const r = await s.call('qr_add', { type: 'text', data: '--json', name: '-n', dryRun: true });
    expect(r.isError, text(r)).toBeFalsy();
    expect(JSON.stringify(r.structuredContent.body)).toContain('--json');
  });
});

describe('all is bounded', () => {
  it('all pages in order, the same records as --all, and says it was not cut', async () => {
    const s = await connect();
    const r = await s.call('link_list', { all: true, limit: 2 });
    expect(r.isError, text(r)).toBeFalsy();
    const cli = JSON.parse((await runCli(['link', 'list', '--all', '--json'], { env: env() })).stdout);
    expect(r.structuredContent).toEqual({ records: cli, truncated: false });
  });

  it('stops at 1,000 records and says so', async () => {
    const big = await startSandbox({ port: 0, rateLimit: null, key: KEY, seed: { links: 1100 } });
    try {
      const s = await connect([], { ...env(), LINKCTL_BASE_URL: big.url });
      const r = await s.call('link_list', { all: true });
      expect(r.isError, text(r)).toBeFalsy();
      expect(r.structuredContent.records).toHaveLength(1000);
      expect(r.structuredContent.truncated).toBe(true);
      expect(r.structuredContent.note).toMatch(/stops at 1,000 records/);
      expect(r.structuredContent.next).toEqual({ page: 2, limit: 1000 });
      expect(new Set(r.structuredContent.records.map((l: { id: number }) => l.id)).size).toBe(1000);
      expect(big.requests.length).toBe(1); // one page of 1,000: nothing past the cap is asked for
    } finally {
      await big.close();
    }
  });
});

describe('the server\'s own global options', () => {
  it('pacing carries from one call to the next: a used-up window is waited for, not sent into', async () => {
    const limited = await startSandbox({ port: 0, rateLimit: { limit: 1, windowSeconds: 60 }, key: KEY });
    try {
      const s = await connect(['--max-wait', '0.5'], { ...env(), LINKCTL_BASE_URL: limited.url });
      expect((await s.call('qr_list')).isError).toBeFalsy();
      const second = await s.call('qr_get', { id: 1 });
      expect(second.isError).toBe(true);
      expect(text(second)).toMatch(/rate limited.*longer than --max-wait/);
      expect(limited.requests).toHaveLength(1); // the second call knew the window was used up and sent nothing
    } finally {
      await limited.close();
    }
  });

  it('linkctl mcp --dry-run makes every write a dry run; --yes is not passed on', async () => {
    const s = await connect(['--allow-writes', '--allow-deletes', '--dry-run', '--yes']);
    const add = await s.call('campaign_add', { name: 'Never sent' });
    expect(add.structuredContent).toMatchObject({ dryRun: true, method: 'POST' });
    const del = await s.call('campaign_delete', { id: 1 });
    expect(del.structuredContent).toMatchObject({ dryRun: true, method: 'DELETE' });
    expect(changes()).toEqual([]);
  });
});

describe('stdout', () => {
  it('carries protocol messages only: every line is a JSON-RPC message, notes and logs go to stderr', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp', '--allow-writes'], { env: cleanEnv(env()), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const messages = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      // A dry run and a failing call: both write to linkctl's stderr.
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'qr_add', arguments: { type: 'text', data: 'x', dryRun: true } } },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'qr_get', arguments: { id: 99999 } } },
    ];
    child.stdin.end(messages.map((m) => JSON.stringify(m)).join('\n') + '\n');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, stderr).toBe(0);
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as { jsonrpc: string; id: number });
    expect(lines.map((l) => [l.jsonrpc, l.id])).toEqual([['2.0', 1], ['2.0', 2], ['2.0', 3]]);
    expect(stderr).toMatch(/^mcp: qr_add$/m);
    expect(stderr).toMatch(/^mcp: qr_get: error$/m);
  });
});

describe('the key', () => {
  it('appears in no tool list, result or stderr line, even with --debug and the raw api tool', async () => {
    const s = await connect(['--allow-writes', '--allow-deletes', '--debug']);
    await s.names();
    await s.call('account_get');
    await s.call('api', { method: 'GET', path: 'api/account' });
    await s.call('qr_get', { id: 99999 });
    await s.call('link_add', { url: 'https://example.com/k', dryRun: true });
    expect(sandbox.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`); // the key was used
    expect(s.stderr()).toContain('[REDACTED]'); // the --debug trace went to the server's stderr
    for (const seen of [...s.seen, s.stderr()]) expect(seen).not.toContain(KEY);
    expect(s.seen.join('\n')).not.toContain('[debug]'); // the trace is the operator's, not the agent's
  });
});

describe('local files', () => {
  it('without --root a tool reads and writes no file; nothing is sent', async () => {
    const dir = tempDir();
    const data = join(dir, 'data.json');
    writeFileSync(data, '"from a file"');
    const s = await connect(['--allow-writes']);
    const read = await s.call('qr_add', { type: 'text', name: 'x', dataJson: `@${data}` });
    expect(read.isError).toBe(true);
    expect(text(read)).toContain(`\`dataJson\` ${data}: this MCP server reads no local files`);
    expect(text(read)).toContain('linkctl mcp --root DIR');
    const written = await s.call('export', { file: join(dir, 'account.yaml') });
    expect(written.isError).toBe(true);
    expect(text(written)).toContain('this MCP server writes no local files');
    const saved = await s.call('qr_download', { id: 1 });
    expect(saved.isError).toBe(true);
    expect(readdirSync(dir)).toEqual(['data.json']);
    expect(changes()).toEqual([]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('with --root DIR: inside it, yes (relative paths are inside it); outside it, in the config folder or through a symlink, no', async () => {
    const dir = tempDir();
    const files = join(dir, 'files');
    const config = join(dir, 'config');
    mkdirSync(files);
    mkdirSync(config);
    writeFileSync(join(config, 'config.json'), JSON.stringify({ profiles: { default: { apiKey: 'sk_live_IN_CONFIG_0000' } } }));
    writeFileSync(join(files, 'data.json'), '"from a file"');
    symlinkSync(join(config, 'config.json'), join(files, 'innocent.json'));
    const s = await connect(['--allow-writes', '--root', dir], { ...env(), LINKCTL_CONFIG_DIR: config });

    const saved = await s.call('qr_download', { id: 1, file: 'files/menu.png' });
    expect(saved.isError, text(saved)).toBeFalsy();
    expect(saved.structuredContent).toMatchObject({ file: join(realpathSync(dir), 'files', 'menu.png'), type: 'png' });
    expect(existsSync(join(files, 'menu.png'))).toBe(true);
    const read = await s.call('qr_add', { type: 'text', name: 'from-file', dataJson: '@files/data.json', dryRun: true });
    expect(read.isError, text(read)).toBeFalsy();
    expect(text(read)).toContain('from a file');

    for (const [call, args, message] of [
      ['export', { file: '/etc/linkctl-test.yaml' }, 'outside the folder this MCP server may write'],
      ['export', { file: '../outside.yaml' }, 'outside the folder this MCP server may write'],
      ['export', { file: 'config/stolen.yaml' }, "inside linkctl's config folder, which holds keys"],
      ['qr_add', { type: 'text', name: 'x', dataJson: '@config/config.json' }, "inside linkctl's config folder, which holds keys"],
      ['qr_add', { type: 'text', name: 'x', dataJson: '@files/innocent.json' }, "inside linkctl's config folder, which holds keys"],
      ['qr_add', { type: 'text', name: 'x', dataJson: '@/etc/passwd' }, 'outside the folder this MCP server may read'],
      ['qr_download', { id: 1, file: 'files/menu.png' }, 'exists; linkctl does not replace a file unless told to'],
    ] as const) {
      const r = await s.call(call, args);
      expect(r.isError, `${call} ${JSON.stringify(args)}`).toBe(true);
      expect(text(r)).toContain(message);
      expect(text(r)).not.toContain('IN_CONFIG');
    }
    expect(existsSync('/etc/linkctl-test.yaml')).toBe(false);
    expect(existsSync(join(config, 'stolen.yaml'))).toBe(false);
    expect(changes()).toEqual([]);
    const forced = await s.call('qr_download', { id: 1, file: 'files/menu.png', force: true });
    expect(forced.isError, text(forced)).toBeFalsy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('--root must be a folder, and not the config folder: exit 2', async () => {
    const r = await runMain(['mcp', '--root', configDir], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--root ${configDir}: inside linkctl's config folder, which holds keys`);
    const missing = await runMain(['mcp', '--root', join(configDir, 'nope')], { env: env() });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('not a folder (ENOENT)');
  });
});

describe('messages the SDK would choke on', () => {
  it('a 30 MB message, a line that is not JSON and JSON that is not JSON-RPC each get an error; the server goes on serving', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp'], { env: cleanEnv(env()), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const line = (m: unknown) => `${JSON.stringify(m)}\n`;
    child.stdin.write(line({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }));
    child.stdin.write(line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    child.stdin.write('this is not JSON\n');
    child.stdin.write(line({ hello: 'world', id: 5 }));
    // 30 MB, written in pieces as a client would stream it; its id comes first, as SDK clients write it.
    child.stdin.write(`{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"qr_list","arguments":{"search":"`);
    const mb = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 30; i++) child.stdin.write(mb);
    child.stdin.write('"}}}\n');
    // A big message whose only "id" in its first bytes is a tool argument's: answered with id null, not that id.
    child.stdin.write(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"link_get","arguments":{"id":7,"x":"${'y'.repeat(5 * 1024 * 1024)}"}},"id":9}\n`);
    child.stdin.end(line({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'qr_get', arguments: { id: 1 } } }));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, stderr).toBe(0);
    const answers = stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: unknown; error?: { code: number; message: string }; result?: { isError?: boolean } });
    const byId = (id: unknown) => answers.filter((a) => a.id === id);
    expect(byId(1)[0]!.result).toBeDefined();
    expect(answers.filter((a) => a.id === null).map((a) => a.error!.code)).toEqual([-32700, -32600]);
    expect(byId(5)[0]!.error!.code).toBe(-32600);
    expect(byId('big')[0]!.error).toMatchObject({ code: -32600, message: expect.stringMatching(/over the limit of 4194304 bytes \(4 MiB\)/) });
    expect(byId(7)).toEqual([]);
    expect(byId(2)[0]!.result!.isError).toBeFalsy(); // still serving after all of that
    expect(answers).toHaveLength(6);
    expect(stderr).toContain('mcp: a message of 31457');
  });
});
