/**
 * `linkctl mcp` as an agent meets it: the SDK's own Client speaking to the built CLI's `mcp`
 * against a sandbox that accepts a recognisable key. Most sessions run the server in this process
 * (test/mcp-transport.ts: its stdin and stdout joined to the client in memory); the first test, and
 * those of stdout and of hostile messages, spawn `bin/linkctl.js mcp` and speak over real pipes. The tools are checked
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
import { isList } from '../../src/commands/shared/define.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { BIN, cleanEnv, runCli, runMain, tempDir } from '../helpers.js';
import { InProcessTransport } from '../mcp-transport.js';

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
/** The data of an answer: its first text, the --json output (compact). */
const data = (r: Result) => JSON.parse(r.content[0]!.text!);
/** The size of an answer as the client receives it: every text of it. */
const bytes = (r: Result) => Buffer.byteLength(r.content.map((c) => c.text ?? '').join(''));

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

/** A session with `linkctl mcp FLAGS`: in this process, or (`process`) a process of its own over stdio pipes. */
async function connect(flags: string[] = [], extraEnv: Record<string, string> = env(), how: 'in-process' | 'process' = 'in-process'): Promise<Session> {
  let stderr: () => string;
  let transport: StdioClientTransport | InProcessTransport;
  if (how === 'process') {
    let written = '';
    transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...flags], env: cleanEnv(extraEnv), stderr: 'pipe' });
    transport.stderr!.on('data', (d: Buffer) => (written += d.toString('utf8')));
    stderr = () => written;
  } else {
    const inProcess = new InProcessTransport(flags, extraEnv);
    transport = inProcess;
    stderr = () => inProcess.stderr;
  }
  const client = new Client({ name: 'linkctl-test', version: '1.0.0' });
  await client.connect(transport);
  const seen: string[] = [];
  const session: Session = {
    client,
    stderr,
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
  it('read-only by default: reading tools only (a process of its own, over stdio pipes)', async () => {
    const s = await connect([], env(), 'process');
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
    const s = await connect(['--allow-writes', '--allow-deletes', '--allow-admin']);
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
      // Its own options: up to the blank line that ends their section.
      const own = help.slice(0, help.indexOf('\n\n', help.indexOf('\nOptions:\n') + 1));
      const usage = /^Usage: linkctl .*$/m.exec(help)![0];
      // Arguments from the usage line (<required> and [optional]); options from the Options section.
      const args = [...usage.matchAll(/(<|\[)([\w-]+)(\.\.\.)?(>|\])/g)].filter((m) => m[2] !== 'options').map((m) => ({ name: m[2]!, required: m[1] === '<' }));
      // One entry per option: its line and the wrapped lines of its description.
      const optionLines = (own.split(/\nOptions:\n/)[1] ?? '').split(/\n(?=  -)/).map((entry) => entry.replace(/\s+/g, ' ')).filter((l) => /^\s*(-\w, )?--/.test(l));
      const camel = (n: string) => n.replace(/-+([a-z0-9])/g, (_, c: string) => c.toUpperCase());
      const flags = new Map<string, string>();
      for (const line of optionLines) {
        const long = /--(no-)?([\w-]+)/.exec(line)!;
        // Secrets, unbounded paging, bulk input (--from and its companions), another database (--db), check's exit status (--fail-on),
        // its private networks (--allow-private) and its terminal view (check --all) are not for tools.
        if (['help', 'password', 'password-stdin', 'paginate', 'from', 'from-format', 'stop-on-error', 'restart', 'verify', 'db', 'fail-on', 'with-clicks', 'allow-private'].includes(long[2]!) && !long[1]) continue;
        if (tool.name === 'check' && long[2] === 'all') continue;
        // An exit status for scripts (plan), and the folder of --from - (qr download): not for tools either.
        if ((tool.name === 'plan' && long[2] === 'detailed-exitcode') || (tool.name === 'qr_download' && long[2] === 'dir')) continue;
        // --concurrency paces a job's many requests; where they come from --from (no tool takes it), a tool call sends one.
        if (long[2] === 'concurrency' && optionLines.some((l) => /^\s*--from </.test(l))) continue;
        flags.set(camel(long[2]!), line);
      }
      const props = tool.inputSchema.properties as Record<string, { type?: string; enum?: string[]; items?: { enum?: string[] } }>;
      // The MCP layer's own: dryRun and confirm for changes; paging for tools that list (limit too where the command has none).
      const lists = isList(command);
      const listControls = lists ? [...(flags.has('limit') ? [] : ['limit']), 'cursor', 'maxBytes', 'fields'] : [];
      const controls: string[] = Object.keys(props).filter((k) => ['dryRun', 'confirm', ...listControls].includes(k));
      const expectedControls = tool.annotations?.readOnlyHint ? [] : tool.name.endsWith('_delete') || tool.name === 'api' || tool.name === 'link_update' || tool.name === 'apply' ? ['dryRun', 'confirm'] : ['dryRun'];
      expect(controls, tool.name).toEqual([...listControls, ...expectedControls]);
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
  it('check: a read-only tool that requests only the account\'s own destinations (it takes no URL), a private address only as the user allowed when starting the server (never by a tool argument), with the CLI\'s records; problemsOnly leaves out the healthy ones', async ({ onTestFinished }) => {
    const { createServer } = await import('node:http');
    const seen: string[] = [];
    const destination = createServer((req, res) => void (seen.push(`${req.method} ${req.url}`), res.writeHead(200).end()));
    // A forward proxy answering for the public destinations itself (nothing leaves this machine): the one way a test reaches a non-private one.
    const proxied: string[] = [];
    const proxy = createServer((req, res) => void (proxied.push(`${req.method} ${req.url}`), res.writeHead(req.url?.endsWith('/gone') ? 404 : 200).end()));
    await Promise.all([destination, proxy].map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))));
    onTestFinished(() => Promise.all([destination, proxy].map((server) => new Promise<void>((resolve) => server.close(() => resolve())))).then(() => undefined));
    const headers = { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' };
    // The seeded links point at example.com: gone, so that nothing asks DNS about a real name.
    for (const id of [1, 2]) await fetch(`${sandbox.url}/api/url/${id}/delete`, { method: 'DELETE', headers });
    const port = (destination.address() as { port: number }).port;
    const add = (url: string, custom: string) => fetch(`${sandbox.url}/api/url/add`, { method: 'POST', headers, body: JSON.stringify({ url, custom }) });
    await add(`http://127.0.0.1:${port}/internal`, 'internal');
    await add('http://shop.test/fine', 'fine');
    await add('http://shop.test/gone', 'gone');

    const proxyEnv = { HTTP_PROXY: `http://127.0.0.1:${(proxy.address() as { port: number }).port}` };
    const s = await connect([], { ...env(), ...proxyEnv });
    const { tools } = await s.client.listTools();
    const tool = tools.find((t) => t.name === 'check')!;
    expect(tool.annotations?.readOnlyHint).toBe(true);
    // The command's options, and the paging every list tool has (limit, cursor, maxBytes, fields).
    expect(Object.keys(tool.inputSchema.properties ?? {}).sort()).toEqual(['concurrency', 'cursor', 'deadline', 'details', 'expiring', 'fields', 'limit', 'maxBytes', 'problemsOnly', 'qr', 'sinceLast']);
    const refused = await s.call('check', { url: 'http://127.0.0.1:1/anything' });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^check: unknown property "url"; check takes qr, details, expiring, concurrency, deadline, sinceLast, problemsOnly, limit, cursor, maxBytes, fields\. Nothing was sent\.$/);
    for (const name of ['allowPrivate', 'all']) expect(text(await s.call('check', { [name]: true }))).toMatch(new RegExp(`^check: unknown property "${name}"`));
    const r = await s.call('check', { deadline: '30s', concurrency: 2 });
    expect(r.isError).toBeFalsy();
    // in the list's order, which for links made within a second or across seconds differs: compared by alias
    expect(data(r).records.map((x: { alias: string; status: string; error: string | null }) => [x.alias, x.status, x.error]).sort()).toEqual([
      ['fine', 'ok', null],
      ['gone', 'client-error', 'HTTP 404'],
      ['internal', 'blocked', '127.0.0.1 is a loopback address; not requested'],
    ]);
    expect(text(r)).toMatch(/checked 3 destinations of 3 links in [\d.]+ s: 1 client-error, 1 blocked, 1 ok; flags: 3 insecure/);
    expect(text(r)).toContain("1 destination blocked: a private, loopback or link-local address was not requested: the user can allow private networks when starting the server (linkctl mcp --allow-private [networks], LINKCTL_CHECK_ALLOW_PRIVATE, or the profile's checkAllowPrivate); no tool argument can");
    expect(text(r)).not.toContain('allowPrivate');
    expect(seen).toEqual([]);
    expect(proxied.sort()).toEqual(['GET http://shop.test/fine', 'GET http://shop.test/gone', 'HEAD http://shop.test/fine', 'HEAD http://shop.test/gone']);

    const problems = await s.call('check', { problemsOnly: true });
    expect(data(problems).records.map((x: { alias: string }) => x.alias).sort()).toEqual(['gone', 'internal']);
    expect(JSON.stringify(problems).length).toBeLessThan(JSON.stringify(r).length);

    // The user's allowance, given when the server starts: the environment, the flag of linkctl mcp, the profile.
    const profileConfig = tempDir();
    writeFileSync(join(profileConfig, 'config.json'), JSON.stringify({ defaultProfile: 'team', profiles: { team: { baseUrl: sandbox.url, checkAllowPrivate: '127.0.0.1' } } }), { mode: 0o600 });
    for (const [flags, extra, from] of [
      [[], { LINKCTL_CHECK_ALLOW_PRIVATE: '127.0.0.1' }, 'LINKCTL_CHECK_ALLOW_PRIVATE of linkctl mcp'],
      [['--allow-private', '127.0.0.0/8'], {}, '--allow-private of linkctl mcp'],
      [[], { LINKCTL_CONFIG_DIR: profileConfig, LINKCTL_PROFILE: 'team' }, 'checkAllowPrivate of profile "team"'],
    ] as const) {
      seen.length = 0;
      const allowed = await connect([...flags], { ...env(), ...proxyEnv, ...extra });
      const a = await allowed.call('check', { deadline: '30s' });
      expect(a.isError, `${from}: ${text(a)}`).toBeFalsy();
      expect(data(a).records.find((x: { alias: string }) => x.alias === 'internal'), from).toMatchObject({ status: 'ok' });
      expect(seen.length, from).toBeGreaterThan(0);
      expect(text(a)).toContain(`private addresses allowed by ${from}`);
    }
  });

  it('check whose run cannot be stored: the records all the same, with a note that they were not stored (not a tool error)', async () => {
    const headers = { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' };
    for (const id of [1, 2]) await fetch(`${sandbox.url}/api/url/${id}/delete`, { method: 'DELETE', headers });
    await fetch(`${sandbox.url}/api/url/add`, { method: 'POST', headers, body: JSON.stringify({ url: 'http://10.1.2.3/intranet', custom: 'intranet' }) }); // blocked: nothing is requested
    const db = join(tempDir(), 'history.db');
    const first = await runCli(['check', '--json', '--db', db], { env: env() });
    expect(first.code, first.stderr).toBe(0);
    const { openHistory } = await import('../../src/history/store.js');
    const history = await openHistory({ env: {} }, { db, write: true });
    await history.db.exec("CREATE TRIGGER no_room BEFORE INSERT ON check_runs BEGIN SELECT RAISE(ABORT, 'no room left for this run'); END;");
    await history.close();
    const s = await connect([], { ...env(), LINKCTL_DB: db });
    const r = await s.call('check', {});
    expect(r.isError).toBeFalsy();
    expect(data(r).records).toEqual([expect.objectContaining({ alias: 'intranet', status: 'blocked' })]);
    expect(text(r)).toContain(`the results of this check were not stored (${db}: no room left for this run)`);
  });

  it('a read tool returns the --json output once, as one compact text, and no structuredContent', async () => {
    const s = await connect();
    const get = await s.call('qr_get', { id: 1 });
    expect(get.isError).toBeFalsy();
    expect(get.structuredContent).toBeUndefined();
    expect(get.content).toHaveLength(1);
    const cli = await runCli(['qr', 'get', '1', '--json'], { env: env() });
    expect(get.content[0]!.text).toBe(JSON.stringify(JSON.parse(cli.stdout)));
    // A list: a summary first, the --json records, and where to go on.
    const r = await s.call('qr_list', { limit: 2 });
    expect(r.structuredContent).toBeUndefined();
    expect(Object.keys(data(r))).toEqual(['summary', 'records', 'nextCursor']);
    expect(data(r).records).toEqual(JSON.parse((await runCli(['qr', 'list', '--limit', '2', '--json'], { env: env() })).stdout));
  });

  it('text from the server stays safe: C1 controls and bidi overrides are escapes in the JSON text, as --json writes them', async () => {
    const headers = { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' };
    await fetch(`${sandbox.url}/api/pixel/add`, { method: 'POST', headers, body: JSON.stringify({ type: 'gtmpixel', name: 'evil\u009b2J\u202ename', tag: 'GTM-ABC1234' }) });
    const s = await connect();
    const r = await s.call('pixel_list', {});
    expect(r.isError, text(r)).toBeFalsy();
    expect(text(r)).not.toMatch(/[\u0080-\u009f\u202a-\u202e]/);
    expect(text(r)).toContain('evil\\u009b2J\\u202ename');
    expect(data(r).records.map((p: { name: string }) => p.name)).toContain('evil\u009b2J\u202ename'); // the same value, losslessly
  });

  it('a partial page says so in the tool\'s own terms: a summary and a cursor, not the CLI\'s --all', async () => {
    const s = await connect();
    const r = await s.call('qr_list', { limit: 2 });
    // the CLI's "page 1 of 2 ...; --all for every record" is the summary here; the one note left says
    // why the wifi and text codes' scans are null (issue 55, 4)
    expect(r.content.slice(1).map((c) => c.text)).toEqual(["Note: text, sms and wifi codes count no scans (their image holds the content, not a short link), so their scans are unknown; servers answer another link's clicks for them."]);
    expect(data(r).summary).toBe('records 1–2 of 3; more: call qr_list with {"cursor": nextCursor}');
    expect(data(r).records.map((q: { scans: unknown }) => q.scans)).toEqual([128, null]); // the menu (a link code), the greeting (text): 7.7's order, oldest first
    expect(text(r)).not.toContain('--all');
    const rest = await s.call('qr_list', { cursor: data(r).nextCursor });
    // codes oldest first, as the product 7.7 lists them (real-servers.md, fact 2)
    expect(data(rest)).toEqual({ summary: 'records 3–3 of 3; the end of the list', records: [expect.objectContaining({ id: 3 })] });
    const cli = await runCli(['qr', 'list', '--limit', '2', '--json'], { env: env() });
    expect(cli.stderr).toBe(`page 1 of 2 (2 of 3 records); --all for every record\n${r.content[1]!.text}\n`);
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
    expect(text(bad)).toMatch(/^linkctl: `id` must be a positive integer, got "abc"/); // the tool's name for the argument
    const unknown = await s.call('qr_list', { colour: 'red' });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toMatch(/unknown property "colour"/);
    const missing = await s.call('qr_add', { data: 'x' });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/type is required/);
    expect(sandbox.requests).toEqual([]);
  });

  it('errors name the tool\'s parameters, not the CLI\'s flags: `file` (not -f), `id` (not ID), `campaign`, `fields`', async () => {
    const dir = tempDir();
    try {
      const s = await connect(['--allow-writes', '--root', dir]);
      const plan = await s.call('plan', { file: 'missing.yaml' });
      expect(plan.isError).toBe(true);
      expect(text(plan)).toBe('linkctl: `file`: cannot read missing.yaml (ENOENT)');
      const cli = await runCli(['plan', '-f', join(dir, 'missing.yaml')], { env: env() });
      expect(cli.stderr).toBe(`linkctl: -f: cannot read ${join(dir, 'missing.yaml')} (ENOENT)\n`); // the same message, in the CLI's terms
      const outside = await s.call('plan', { file: '/etc/linkctl-nothing.yaml' });
      expect(text(outside)).toMatch(/^linkctl: `file` \/etc\/linkctl-nothing\.yaml: outside the folder this MCP server may read/);
      // (a link's id may be its alias too: an id that is no integer is one only for other resources)
      const id = await s.call('qr_get', { id: 'twelve' });
      expect(text(id)).toMatch(/^linkctl: `id` must be a positive integer, got "twelve"/);
      const campaign = await s.call('link_add', { url: 'https://example.com/bf', campaign: 'Black Friday', dryRun: true });
      expect(text(campaign)).toBe('linkctl: `campaign` "Black Friday": no campaign has this name ("Spring launch")\nhint: give the id, or the name as `linkctl campaign list` shows it (any case)');
      // An id the account lacks, which the product would drop in silence: refused before anything is sent.
      const unknown = await s.call('link_add', { url: 'https://example.com/bf', campaign: 987654 });
      expect(unknown.isError).toBe(true);
      expect(text(unknown)).toMatch(/^linkctl: `campaign: 987654`: the account has no campaign with this id; the product drops a campaign id that is not the account's and answers success, so nothing was sent\n/);
      const fields = await s.call('link_list', { fields: ['id', 'nope'] });
      expect(text(fields)).toMatch(/^linkctl: `fields`: unknown field "nope"; known fields: id, /);
      expect(changes()).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a campaign, channel and pixels by name, as the command line takes them: sent as their ids', async () => {
    const s = await connect(['--allow-writes']);
    const { tools } = await s.client.listTools();
    const schema = tools.find((t) => t.name === 'link_add')!.inputSchema.properties as Record<string, { type: string; items?: { type: string } }>;
    expect(schema.campaign!.type).toBe('string');
    expect(schema.channel!.type).toBe('string');
    expect(schema.pixel!.items!.type).toBe('string');
    const r = await s.call('link_add', { url: 'https://example.com/black-friday', alias: 'black-friday', campaign: 'spring launch', channel: 'Marketing', pixel: ['Main analytics'] });
    expect(r.isError, text(r)).toBeFalsy();
    const posts = changes();
    expect(posts.map((q) => `${q.method} ${q.path}`)).toEqual(['POST /api/url/add']);
    expect(posts[0]!.body).toMatchObject({ url: 'https://example.com/black-friday', custom: 'black-friday', campaign: 1, channel: 1, pixels: [1] });
    // Each list read once to find the names (and the link's own checks).
    const reads = sandbox.requests.filter((q) => q.method === 'GET').map((q) => q.path);
    for (const path of ['/api/campaigns', '/api/channels', '/api/pixels']) expect(reads.filter((p) => p === path), path).toHaveLength(1);
    // The same by id, and the CLI by name: the same body.
    const cli = await runCli(['link', 'add', 'https://example.com/bf2', '--campaign', 'Spring launch', '--dry-run', '--json'], { env: env() });
    expect(JSON.parse(cli.stdout).body).toMatchObject({ campaign: 1 });
    const byId = await s.call('link_add', { url: 'https://example.com/bf3', campaign: 1, dryRun: true });
    expect(data(byId).body).toMatchObject({ campaign: 1 });
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
    expect(data(r)).toMatchObject({ dryRun: true, method: 'POST', url: `${sandbox.url}/api/qr/add` });
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
    const id = data(r).id;
    expect(typeof id).toBe('number');
    const back = await s.call('link_get', { id });
    expect(back.isError, text(back)).toBeFalsy();
    expect(JSON.stringify(data(back))).toContain('from-an-agent');
  });

  it('a delete needs --allow-deletes, then confirm: the first call says what it would do and sends nothing', async () => {
    const s = await connect(['--allow-writes', '--allow-deletes']);
    const first = await s.call('pixel_delete', { id: 1 });
    expect(first.isError).toBe(true);
    expect(text(first)).toBe('linkctl: Delete pixel 1 (not done: it needs `confirm: true`)\nNothing was changed. To go ahead, call pixel_delete again with the same arguments and `confirm: true`.');
    // The CLI says it for a terminal and --yes.
    expect((await runCli(['pixel', 'delete', '1'], { env: env() })).stderr).toBe('linkctl: Delete pixel 1: refusing without a terminal to confirm; pass --yes\n');
    expect(changes()).toEqual([]);
    const dry = await s.call('pixel_delete', { id: 1, dryRun: true });
    expect(data(dry)).toMatchObject({ dryRun: true, method: 'DELETE' });
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
      // In the tool's terms: `confirm: true` and `clear`, never the CLI's --yes, --clear or its terminal.
      expect(text(first)).toMatch(/\(not done: it needs `confirm: true`\)\nhint: .*name each with `clear`, give `private: true`, or pass `confirm: true`\nNothing was changed\. To go ahead, call link_update again with the same arguments and `confirm: true`\.$/);
      expect(text(first)).not.toMatch(/--yes|--clear|terminal/);
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
    expect(data(r).body).toMatchObject({ starred: false });
  });

  it('a value that starts with "-" stays a value', async () => {
    const s = await connect(['--allow-writes']);
    const r = await s.call('qr_add', { type: 'text', data: '--json', name: '-n', dryRun: true });
    expect(r.isError, text(r)).toBeFalsy();
    expect(JSON.stringify(data(r).body)).toContain('--json');
  });
});

/** Calls `name` with `args`, then with each answer's cursor to the end: the answers, in order. */
async function toTheEnd(s: Session, name: string, args: Record<string, unknown>): Promise<Result[]> {
  const answers: Result[] = [];
  for (let next: Record<string, unknown> | undefined = args; next; ) {
    const r = await s.call(name, next);
    expect(r.isError, text(r)).toBeFalsy();
    answers.push(r);
    next = data(r).nextCursor ? { cursor: data(r).nextCursor } : undefined;
    expect(answers.length).toBeLessThan(200); // a cursor that never ends fails here
  }
  return answers;
}

describe('long lists: answers under a size cap, a summary first, a cursor to go on', () => {
  const urlsRead = (server: Sandbox) => server.requests.filter((q) => q.method === 'GET' && q.path === '/api/urls');

  it('300 links: every answer under 25,000 bytes, the cursor goes through all of them in order, 3 requests of 100', async () => {
    const big = await startSandbox({ port: 0, rateLimit: null, key: KEY, seed: { links: 298 } }); // and the 2 seeded: 300
    try {
      const s = await connect([], { ...env(), LINKCTL_BASE_URL: big.url });
      const answers = await toTheEnd(s, 'link_list', {});
      // Pages of 100 read once each: answers within a page come from memory.
      expect(urlsRead(big).map((q) => [q.query.page, q.query.limit])).toEqual([['1', '100'], ['2', '100'], ['3', '100']]);
      const records = answers.flatMap((r) => data(r).records as Array<{ id: number }>);
      const cli = JSON.parse((await runCli(['link', 'list', '--all', '--json'], { env: { ...env(), LINKCTL_BASE_URL: big.url } })).stdout) as Array<{ id: number }>;
      expect(records.map((l) => l.id)).toEqual(cli.map((l) => l.id));
      expect(records).toHaveLength(300);
      for (const r of answers) expect(bytes(r)).toBeLessThanOrEqual(25_000);
      // More than one answer (300 records do not fit 25 KB), fewer than one a record.
      expect(answers.length).toBeGreaterThan(3);
      expect(answers.length).toBeLessThan(30);
      expect(data(answers[0]!).summary).toMatch(/^records 1–\d+ of 300; the rest did not fit 25,000 bytes \(maxBytes\); more: call link_list with \{"cursor": nextCursor\}$/);
      expect(data(answers.at(-1)!).summary).toMatch(/^records \d+–300 of 300; the end of the list$/);
      expect(data(answers.at(-1)!).nextCursor).toBeUndefined();
    } finally {
      await big.close();
    }
  });

  it('limit: that many records an answer, one request each; maxBytes: more in one answer', async () => {
    const big = await startSandbox({ port: 0, rateLimit: null, key: KEY, seed: { links: 118 } }); // and the 2 seeded: 120
    try {
      const s = await connect([], { ...env(), LINKCTL_BASE_URL: big.url });
      const answers = await toTheEnd(s, 'link_list', { limit: 25 });
      expect(answers.map((r) => data(r).records.length)).toEqual([25, 25, 25, 25, 20]);
      expect(urlsRead(big)).toHaveLength(5);
      big.requests.length = 0;
      const one = await s.call('link_list', { limit: 120, maxBytes: 1_000_000 });
      expect(data(one).records).toHaveLength(120);
      expect(data(one).summary).toBe('records 1–120 of 120; the end of the list');
      expect(urlsRead(big)).toHaveLength(1);
      // fields: only those keys, so many more fit.
      const slim = await s.call('link_list', { fields: ['id', 'shorturl'] });
      expect(data(slim).records).toHaveLength(100);
      expect(Object.keys(data(slim).records[0])).toEqual(['id', 'shorturl']);
    } finally {
      await big.close();
    }
  });

  it('all: one read of up to 1,000 records, answered in pieces from memory; the cursor goes on past 1,000 from the server', async () => {
    const big = await startSandbox({ port: 0, rateLimit: null, key: KEY, seed: { links: 1098 } }); // and the 2 seeded: 1,100
    try {
      const s = await connect([], { ...env(), LINKCTL_BASE_URL: big.url });
      const first = await s.call('link_list', { all: true });
      expect(first.content[1]!.text).toBe('all stops at 1,000 records; the cursor goes on past them, page by page');
      expect(urlsRead(big)).toHaveLength(1); // one page of 1,000: nothing past the cap is asked for
      const rest = await toTheEnd(s, 'link_list', { cursor: data(first).nextCursor });
      const ids = [first, ...rest].flatMap((r) => data(r).records.map((l: { id: number }) => l.id));
      expect(ids).toHaveLength(1100);
      expect(new Set(ids).size).toBe(1100);
      for (const r of [first, ...rest]) expect(bytes(r)).toBeLessThanOrEqual(25_000);
      // The 1,000 from memory, then page 2 of 1,000 for the last 100: two requests in all.
      expect(urlsRead(big).map((q) => [q.query.page, q.query.limit])).toEqual([['1', '1000'], ['2', '1000']]);
    } finally {
      await big.close();
    }
  });

  it('check: one run, answered in pieces from memory; the destinations are requested once', async ({ onTestFinished }) => {
    const { createServer } = await import('node:http');
    let requests = 0;
    // MCP never requests a private address: the destinations are public names, answered by a forward proxy on loopback.
    const proxy = createServer((_req, res) => void (requests++, res.writeHead(404).end()));
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
    const headers = { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' };
    for (const id of [1, 2]) await fetch(`${sandbox.url}/api/url/${id}/delete`, { method: 'DELETE', headers });
    for (let i = 1; i <= 30; i++) await fetch(`${sandbox.url}/api/url/add`, { method: 'POST', headers, body: JSON.stringify({ url: `http://shop.test/gone-${i}`, custom: `gone-${i}` }) });
    const s = await connect([], { ...env(), HTTP_PROXY: `http://127.0.0.1:${(proxy.address() as { port: number }).port}` });
    const first = await s.call('check', { deadline: '60s', maxBytes: 1_500 });
    // Another limit with the cursor: the same list, from memory.
    const two = await s.call('check', { cursor: data(first).nextCursor, limit: 2 });
    expect(data(two).records).toHaveLength(2);
    const answers = [first, two, ...(await toTheEnd(s, 'check', { cursor: data(two).nextCursor }))];
    const records = answers.flatMap((r) => data(r).records as Array<{ destination: string }>);
    expect(records.map((r) => r.destination).sort()).toEqual(Array.from({ length: 30 }, (_, i) => `http://shop.test/gone-${i + 1}`).sort());
    expect(answers.length).toBeGreaterThan(2);
    for (const r of answers) expect(bytes(r)).toBeLessThanOrEqual(1_500);
    expect(requests).toBe(60); // HEAD and GET of each destination, once: the later answers ran no check
    // The check's own note comes with the first answer.
    expect(answers[0]!.content[1]!.text).toMatch(/checked 30 destinations of 30 links/);
  });

  it('a cursor goes on with the call that made it: another argument, another tool or a made-up cursor is refused, naming it', async () => {
    const s = await connect();
    const first = await s.call('link_list', { limit: 1, search: 'localhost' });
    const cursor = data(first).nextCursor;
    const other = await s.call('link_list', { cursor, search: 'x' });
    expect(other.isError).toBe(true);
    expect(text(other)).toMatch(/^link_list: `search` is not what it was in the call that gave this cursor \("localhost"\)/);
    const same = await s.call('link_list', { cursor, search: 'localhost' });
    expect(same.isError, text(same)).toBeFalsy();
    expect(data(same).summary).toBe('records 2–2 of 2; the end of the list');
    const elsewhere = await s.call('qr_list', { cursor });
    expect(text(elsewhere)).toMatch(/^qr_list: `cursor` goes on with a list of link_list, not of qr_list/);
    const made = await s.call('link_list', { cursor: 'not-a-cursor' });
    expect(text(made)).toMatch(/^link_list: `cursor` is not one this server gave/);
    const big = await s.call('qr_list', { maxBytes: 10 });
    expect(text(big)).toMatch(/^qr_list: `maxBytes` must be a whole number from 1000 to 4194304, got 10/);
    // A record larger than the cap still comes, alone, and the summary says so.
    const headers = { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' };
    await fetch(`${sandbox.url}/api/url/add`, { method: 'POST', headers, body: JSON.stringify({ url: 'https://example.com/long', metadescription: 'x'.repeat(3_000) }) });
    const alone = await s.call('link_list', { maxBytes: 1_000 });
    expect(data(alone).records).toHaveLength(1);
    expect(data(alone).summary).toBe('records 1–1 of 3; the rest did not fit 1,000 bytes (maxBytes); more: call link_list with {"cursor": nextCursor}; this record alone is over maxBytes (1,000)');
  });
});

describe('the server\'s own global options', () => {
  it('pacing carries from one call to the next: a used-up window is waited for, not sent into', async () => {
    const limited = await startSandbox({ port: 0, rateLimit: { limit: 1, windowSeconds: 60 }, key: KEY });
    try {
      const s = await connect(['--max-wait', '0.5'], { ...env(), LINKCTL_BASE_URL: limited.url });
      // a list of one request (a QR list reads codes it does not know yet: src/qr/scans.ts)
      expect((await s.call('campaign_list')).isError).toBeFalsy();
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
    expect(data(add)).toMatchObject({ dryRun: true, method: 'POST' });
    const del = await s.call('campaign_delete', { id: 1 });
    expect(data(del)).toMatchObject({ dryRun: true, method: 'DELETE' });
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

describe('concurrency in tool calls', () => {
  it('apply, export and stats_snapshot take concurrency as a number or "auto" (a string in the schema, as the flag); another word is refused naming the parameter', async () => {
    const s = await connect(['--allow-writes']);
    const { tools } = await s.client.listTools();
    for (const name of ['apply', 'export', 'stats_snapshot']) {
      const prop = (tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, { type: string; description: string }>).concurrency!;
      expect(prop.type, name).toBe('string');
      expect(prop.description, name).toMatch(/auto/);
    }
    const auto = await s.call('export', { concurrency: 'auto', details: true });
    expect(auto.isError, text(auto)).toBeFalsy();
    const two = await s.call('export', { concurrency: 2 });
    expect(two.isError, text(two)).toBeFalsy();
    const fast = await s.call('export', { concurrency: 'fast' });
    expect(fast.isError).toBe(true);
    expect(text(fast)).toMatch(/`concurrency` must be auto or/);
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
    expect(data(saved)).toMatchObject({ file: join(realpathSync(dir), 'files', 'menu.png'), type: 'png' });
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

  it('stats_export obeys the same file policy: no folder without --root; with it, nothing outside it or in the config folder; nothing written', async () => {
    const dir = tempDir();
    const config = join(dir, 'config');
    mkdirSync(config);
    const plain = await connect(['--allow-writes'], { ...env(), LINKCTL_CONFIG_DIR: config });
    const none = await plain.call('stats_export', { out: join(dir, 'warehouse') });
    expect(none.isError).toBe(true);
    expect(text(none)).toContain('this MCP server writes no local files');
    mkdirSync(join(dir, 'root'));
    const rooted = await connect(['--allow-writes', '--root', join(dir, 'root')], { ...env(), LINKCTL_CONFIG_DIR: config });
    for (const [out, message] of [['../escape', 'outside the folder this MCP server may write'], [join(dir, 'elsewhere'), 'outside the folder this MCP server may write']] as const) {
      const r = await rooted.call('stats_export', { out });
      expect(r.isError, out).toBe(true);
      expect(text(r)).toContain(message);
    }
    const inConfig = await connect(['--allow-writes', '--root', dir], { ...env(), LINKCTL_CONFIG_DIR: config });
    for (const out of ['config', 'config/state/warehouse']) {
      const r = await inConfig.call('stats_export', { out });
      expect(r.isError, out).toBe(true);
      expect(text(r)).toMatch(/inside linkctl's (config|state) folder/);
    }
    expect(readdirSync(dir).sort()).toEqual(['config', 'root']);
    expect(readdirSync(config)).toEqual([]);
    expect(readdirSync(join(dir, 'root'))).toEqual([]);
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
