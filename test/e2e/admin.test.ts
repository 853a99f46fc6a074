/**
 * The installation's admin (issue 51): `admin users` and `admin plans` against the sandbox's admin
 * API, a plain key's exit 3, no user's API key in any output, `--as-user`, an API served at another
 * path (`--api-path`, found by `auth login`), and `auth login --oauth` through a loopback redirect.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BIN, cleanEnv, runCli, runMain, sent, tempDir, useSandbox } from '../helpers.js';
import { InProcessTransport } from '../mcp-transport.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';

const fx = useSandbox();
const db = () => join(tempDir('linkctl-admin-db-'), 'history.db');
/** Every key of the installation: none may show anywhere. */
const keys = () => [fx.sandbox.key, fx.sandbox.userKey];
function expectNoKey(...outputs: string[]): void {
  for (const out of outputs) for (const key of keys()) expect(out.toLowerCase()).not.toContain(key.toLowerCase());
}
const asPlainUser = () => ({ ...fx.env, LINKCTL_API_KEY: fx.sandbox.userKey });

describe('admin users', () => {
  it('list: every user without their key (hasApiKey says one exists), in one request; --filter and --email', async () => {
    const r = await runCli(['admin', 'users', 'list', '--json'], { env: fx.env });
    expect(r.code).toBe(0);
    const users = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(users.map((u) => [u.id, u.username, u.hasApiKey])).toEqual([[1, 'demo', true], [2, 'user', true]]);
    for (const u of users) expect(Object.keys(u)).not.toContain('apikey');
    expect(sent(fx.sandbox)).toEqual([{ method: 'GET', path: '/api/users', query: {}, body: undefined }]);
    expectNoKey(r.stdout, r.stderr);

    const table = await runCli(['admin', 'users', 'list', '--filter', 'free', '-o', 'csv', '--fields', 'id,email,hasApiKey'], { env: fx.env });
    expect(table.stdout).toBe('id,email,hasApiKey\n2,user@sandbox.localhost,set (not shown)\n');
    const one = await runCli(['admin', 'users', 'list', '--email', 'demo@sandbox.localhost', '-q'], { env: fx.env });
    expect(one.stdout).toBe('1\n');
    expect(sent(fx.sandbox).slice(1).map((q) => q.query)).toEqual([{ filter: 'free' }, { email: 'demo@sandbox.localhost' }]);
  });

  it('get: one user; asking for the key as a field is exit 2, naming the fields there are, with nothing sent', async () => {
    const r = await runCli(['admin', 'users', 'get', '2', '--json'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 2, username: 'user', email: 'user@sandbox.localhost', status: 'free', hasApiKey: true });
    expectNoKey(r.stdout);
    const field = await runCli(['admin', 'users', 'get', '2', '--fields', 'id,apikey'], { env: fx.env });
    expect(field.code).toBe(2);
    expect(field.stderr).toMatch(/apikey/);
    expect(sent(fx.sandbox)).toHaveLength(1);
  });

  it('add: the password from stdin, checked before sending (5 characters, a username and an email the product takes); never printed or kept in the ledger', async () => {
    const password = 'correct-horse-battery';
    const env = { ...fx.env, LINKCTL_DB: db() };
    const r = await runCli(['admin', 'users', 'add', '--username', 'jane', '--email', 'jane@example.com', '--password-stdin', '--plan', '2', '--json'], { env, stdin: password });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id: 3, username: 'jane', email: 'jane@example.com', planid: 2, message: 'User has been registered.' });
    expect(sent(fx.sandbox)).toEqual([{ method: 'POST', path: '/api/user/add', query: {}, body: { username: 'jane', email: 'jane@example.com', password, planid: 2 } }]);
    const ledger = await runCli(['log', '--json'], { env });
    expect(ledger.stdout).toContain('jane@example.com');
    for (const out of [r.stdout, r.stderr, ledger.stdout]) expect(out).not.toContain(password);

    fx.sandbox.requests.length = 0;
    const short = await runCli(['admin', 'users', 'add', '--username', 'joe', '--email', 'joe@example.com', '--password-stdin'], { env: fx.env, stdin: 'abcd' });
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/at least 5 characters/);
    const name = await runCli(['admin', 'users', 'add', '--username', 'j!', '--email', 'joe@example.com', '--password-stdin'], { env: fx.env, stdin: 'abcdef' });
    expect(name.code).toBe(2);
    expect(name.stderr).toMatch(/--username must be/);
    const email = await runCli(['admin', 'users', 'add', '--username', 'joe', '--email', 'joe.example.com', '--password-stdin'], { env: fx.env, stdin: 'abcdef' });
    expect(email.code).toBe(2);
    expect(email.stderr).toMatch(/--email must be an email address/);
    expect(sent(fx.sandbox)).toEqual([]);
  });

  it('add at a terminal asks twice on a hidden prompt; without a terminal or --password-stdin it refuses', async () => {
    const r = await runMain(['admin', 'users', 'add', '--username', 'kim', '--email', 'kim@example.com'], { env: fx.env, tty: true, secret: 's3cret-pass' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.prompts).toEqual(['The password: ', 'Repeat password: ']);
    expect(r.stdout + r.stderr).not.toContain('s3cret-pass');
    const none = await runCli(['admin', 'users', 'add', '--username', 'kim', '--email', 'kim@example.com'], { env: fx.env });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--password-stdin/);
  });

  it('delete: refuses the user whose key is in use; asks first (exit 2 without a terminal or --yes); deletes with --yes', async () => {
    const own = await runCli(['admin', 'users', 'delete', '1', '--yes'], { env: fx.env });
    expect(own.code).toBe(2);
    expect(own.stderr).toMatch(/user 1 is the user whose key is in use/);
    expect(sent(fx.sandbox).map((q) => q.path)).toEqual(['/api/account']);

    fx.sandbox.requests.length = 0;
    const unasked = await runCli(['admin', 'users', 'delete', '2'], { env: fx.env });
    expect(unasked.code).toBe(2);
    expect(unasked.stderr).toMatch(/Delete user 2 \(user <user@sandbox\.localhost>\).*pass --yes/);
    expect(sent(fx.sandbox).map((q) => q.method)).toEqual(['GET', 'GET']);

    const done = await runCli(['admin', 'users', 'delete', '2', '--yes'], { env: fx.env });
    expect(done.code).toBe(0);
    expect(done.stdout).toBe('User has been deleted.\n');
    const left = await runCli(['admin', 'users', 'list', '-q'], { env: fx.env });
    expect(left.stdout).toBe('1\n');
  });

  it('login: prints the one-time sign-in URL on stdout, and on stderr until when it works and that it is a secret', async () => {
    const r = await runCli(['admin', 'users', 'login', '2'], { env: fx.env });
    expect(r.code).toBe(0);
    const url = r.stdout.trim();
    expect(url).toMatch(new RegExp(`^${fx.sandbox.url}/user/login/sso/[a-f0-9]+$`));
    expect(r.stderr).toMatch(/signs whoever opens it in as user 2, until \d\d:59:59 \(the end of the current clock hour\)\. It is a secret/);
    const json = await runCli(['admin', 'users', 'login', '2', '--json'], { env: fx.env });
    const answer = JSON.parse(json.stdout) as { url: string; expires: string };
    expect(new Date(answer.expires).getUTCMinutes()).toBe(59);
    expect(Date.parse(answer.expires) - Date.now()).toBeLessThan(3_600_000);
    // the link works once
    expect((await fetch(url)).status).toBe(200);
    expect((await fetch(url)).status).toBe(403);
  });
});

describe('admin plans', () => {
  it('list: prices and limits; subscribe: the user gets the plan', async () => {
    const r = await runCli(['admin', 'plans', 'list', '-o', 'tsv'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('id\tname\tfree\tmonthly\tyearly\tlifetime\tlinks\tclicks\tretention\tprices\tlimits');
    expect(r.stdout).toMatch(/^2\tPro\tno\t9\.99\t99\.99\t299\.00\tunlimited\tunlimited\t365\t/m);
    const sub = await runCli(['admin', 'plans', 'subscribe', '3', '2', '--type', 'yearly'], { env: fx.env });
    expect(sub.code, sub.stderr).toBe(0);
    expect(sub.stdout).toBe('User has been subscribed to this plan.\n');
    expect(sent(fx.sandbox)[1]).toEqual({ method: 'PUT', path: '/api/plan/3/user/2', query: {}, body: { type: 'yearly' } });
    const user = JSON.parse((await runCli(['admin', 'users', 'get', '2', '--json'], { env: fx.env })).stdout) as Record<string, unknown>;
    expect(user).toMatchObject({ planid: 3, status: 'pro' });
    const bad = await runCli(['admin', 'plans', 'subscribe', '3', '2', '--type', 'weekly'], { env: fx.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--type/);
  });
});

describe('a plain key', () => {
  it.each([
    [['admin', 'users', 'list']],
    [['admin', 'users', 'get', '1']],
    [['admin', 'users', 'login', '1']],
    [['admin', 'plans', 'list']],
    [['admin', 'plans', 'subscribe', '2', '2', '--type', 'monthly']],
  ])('%j: exit 3, the command needs an admin\'s key', async (args) => {
    const r = await runCli(args, { env: asPlainUser() });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/needs an admin's key, and the server refused the key in use: You do not have permission to access this endpoint\. \(HTTP 403\)/);
    expectNoKey(r.stdout, r.stderr);
  });
});

describe('no key anywhere', () => {
  it('--debug traces, --json, tables and errors of every admin read show neither key', async () => {
    const outputs: string[] = [];
    for (const args of [['admin', 'users', 'list', '--debug'], ['admin', 'users', 'get', '2', '--debug', '--json'], ['admin', 'users', 'list', '--email', 'user@sandbox.localhost', '--debug', '-o', 'ndjson'], ['--as-user', '2', 'account', 'get', '--debug']]) {
      const r = await runCli(args, { env: fx.env });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      outputs.push(r.stdout, r.stderr);
    }
    expect(outputs.join('')).toMatch(/"apikey":"\[REDACTED\]"/);
    expectNoKey(...outputs);
  });

  it('the raw `api` command prints the admin API\'s answers with every user\'s key as [REDACTED]', async () => {
    const list = await runCli(['api', 'GET', '/api/users'], { env: fx.env });
    expect(list.code, list.stderr).toBe(0);
    const users = (JSON.parse(list.stdout) as { data: Array<Record<string, unknown>> }).data;
    expect(users.map((u) => u.apikey)).toEqual(['[REDACTED]', '[REDACTED]']);
    const pages = await runCli(['api', 'GET', 'user/2'], { env: fx.env });
    expect(JSON.parse(pages.stdout).data.apikey).toBe('[REDACTED]');
    expectNoKey(list.stdout, list.stderr, pages.stdout);
  });

  it('MCP: with --allow-admin the admin reads are tools, writes only when allowed, `login` and `add` never; no answer carries a key; without it none', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--allow-writes', '--allow-deletes', '--allow-admin'], env: cleanEnv(fx.env), stderr: 'pipe' });
    const client = new Client({ name: 'linkctl-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['admin_users_list', 'admin_users_get', 'admin_users_delete', 'admin_plans_list', 'admin_plans_subscribe', 'api']));
      expect(names).not.toContain('admin_users_login');
      expect(names).not.toContain('admin_users_add');
      const seen: string[] = [];
      for (const [name, args] of [['admin_users_list', {}], ['admin_users_get', { id: 2 }], ['api', { method: 'GET', path: 'api/users' }]] as const) {
        const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ text?: string }> };
        expect(r.isError, JSON.stringify(r)).toBeFalsy();
        seen.push(JSON.stringify(r));
      }
      expect(seen.join('')).toContain('user@sandbox.localhost');
      expectNoKey(...seen);
    } finally {
      await client.close();
    }
    const readOnly = new InProcessTransport(['--allow-admin'], fx.env);
    const reader = new Client({ name: 'linkctl-test', version: '1.0.0' });
    await reader.connect(readOnly);
    try {
      const names = (await reader.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith('admin_'));
      expect(names.sort()).toEqual(['admin_plans_list', 'admin_users_get', 'admin_users_list']);
    } finally {
      await reader.close();
    }
    // Without --allow-admin: no admin tool, and a call says how the user can allow them; nothing is sent.
    const plain = new Client({ name: 'linkctl-test', version: '1.0.0' });
    await plain.connect(new InProcessTransport(['--allow-writes', '--allow-deletes'], fx.env));
    try {
      expect((await plain.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith('admin_'))).toEqual([]);
      const before = fx.sandbox.requests.length;
      const refused = (await plain.callTool({ name: 'admin_users_list', arguments: {} })) as { isError?: boolean; content: Array<{ text?: string }> };
      expect(refused.isError).toBe(true);
      expect(refused.content[0]!.text).toMatch(/linkctl mcp --allow-admin/);
      expect(fx.sandbox.requests.length).toBe(before);
    } finally {
      await plain.close();
    }
  });

  it('a --debug trace cut at 4,000 characters shows no part of a key that straddles the cut', async () => {
    const key = 'K3yStraddlingTheCut0123456789abcdef';
    // The answer's 4,000th character falls inside the key's value.
    const prefix = '{"error":0,"data":[{"id":1,"username":"x","email":"x@example.com","pad":"';
    const pad = 'p'.repeat(4000 - prefix.length - '","apikey":"'.length - 10);
    const body = `${prefix}${pad}","apikey":"${key}"}]}`;
    const server = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(body));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const r = await runCli(['admin', 'users', 'list', '--debug'], { env: { LINKCTL_BASE_URL: `http://127.0.0.1:${port}`, LINKCTL_API_KEY: 'admin-key-0123', LINKCTL_CONFIG_DIR: tempDir() } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/\.\.\. \(\d+ characters\)/);
      expect(r.stderr).not.toContain(key.slice(0, 6));
      expect(r.stdout).not.toContain(key.slice(0, 6));
    } finally {
      server.close();
    }
  });
});

describe('--as-user', () => {
  it('reads and writes in the other user\'s account with its key (never shown); the ledger records both the user and the admin\'s profile', async () => {
    const env = { ...fx.env, LINKCTL_DB: db() };
    const add = await runCli(['--as-user', 'user@sandbox.localhost', 'link', 'add', 'https://example.com/for-the-user', '--alias', 'for-the-user', '--json'], { env });
    expect(add.code, add.stderr).toBe(0);
    const created = JSON.parse(add.stdout) as { id: number };
    // the admin's key read the user's key; the user's key made the link
    const log = fx.sandbox.requests.filter((q) => q.path.startsWith('/api/'));
    expect(log[0]).toMatchObject({ method: 'GET', path: '/api/users', query: { email: 'user@sandbox.localhost' } });
    expect(log[0]!.headers.authorization).toBe(`Bearer ${fx.sandbox.key}`);
    expect(log.at(-1)).toMatchObject({ method: 'POST', path: '/api/url/add' });
    expect(log.at(-1)!.headers.authorization).toBe(`Bearer ${fx.sandbox.userKey}`);

    // the user's account has it, the admin's does not
    const theirs = await runCli(['--as-user', '2', 'link', 'list', '-q'], { env });
    expect(theirs.stdout).toBe(`${created.id}\n`);
    const mine = await runCli(['link', 'list', '--all', '-q'], { env });
    expect(mine.stdout.split('\n')).not.toContain(String(created.id));

    const ledger = await runCli(['log', '--json'], { env });
    const entries = JSON.parse(ledger.stdout) as Array<Record<string, unknown>>;
    expect(entries.at(-1)).toMatchObject({ command: 'link add', asUser: '2 <user@sandbox.localhost>', resource: 'link' });
    const verify = await runCli(['log', 'verify'], { env });
    expect(verify.code, verify.stderr).toBe(0);
    expectNoKey(add.stdout, add.stderr, theirs.stdout, theirs.stderr, ledger.stdout);
    expect(readFileSync(env.LINKCTL_DB).toString('latin1')).not.toContain(fx.sandbox.userKey);
  });

  it('policies apply as for any write', async () => {
    const policy = join(tempDir(), 'policy.yaml');
    writeFileSync(policy, 'version: 1\nrules:\n  forbid-insecure: true\n');
    const r = await runCli(['--as-user', '2', '--policy', policy, 'link', 'add', 'http://insecure.example.com/'], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/forbid-insecure/);
    expect(sent(fx.sandbox).filter((q) => q.method !== 'GET')).toEqual([]);
  });

  it('a plain key is exit 3 (reading another user\'s key needs an admin\'s); an unknown user exit 4', async () => {
    const plain = await runCli(['--as-user', '1', 'link', 'list'], { env: asPlainUser() });
    expect(plain.code).toBe(3);
    expect(plain.stderr).toMatch(/--as-user needs an admin's key/);
    const unknown = await runCli(['--as-user', 'nobody@example.com', 'link', 'list'], { env: fx.env });
    expect(unknown.code).toBe(4);
    const bad = await runCli(['--as-user', 'not a user', 'link', 'list'], { env: fx.env });
    expect(bad.code).toBe(2);
    expectNoKey(plain.stderr, unknown.stderr, bad.stderr);
  });
});

/** Starts `linkctl sandbox serve ...` (a process of its own: it runs until stopped) and resolves with what it announces. */
function serve(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, 'sandbox', 'serve', '--port', '0', '--quiet', ...args], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  const ready = new Promise<{ baseUrl: string; key: string; apiPath: string }>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (d) => {
      stdout += d;
      if (stdout.includes('\n')) resolve(JSON.parse(stdout.split('\n')[0]!));
    });
    child.on('close', () => reject(new Error('sandbox serve exited')));
  });
  return { child, ready };
}

describe('an installation with its API at /v2', () => {
  it('`sandbox serve --api-path /v2`: `auth login` finds the API on the developer page, says so, keeps it; every request goes to /v2', async ({ onTestFinished }) => {
    const dir = tempDir();
    const server = serve(['--api-path', '/v2', '--state', join(dir, 'state.json')], { LINKCTL_CONFIG_DIR: dir });
    onTestFinished(() => void server.child.kill('SIGKILL'));
    const { baseUrl, key, apiPath } = await server.ready;
    expect(apiPath).toBe('/v2');
    const env = { LINKCTL_CONFIG_DIR: tempDir() };
    const login = await runCli(['auth', 'login', '--with-token', '--base-url', baseUrl, '--insecure-storage'], { env, stdin: key });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toContain(`${baseUrl}/api/ is not this installation's API; its developer page (${baseUrl}/developers) lists the endpoints under /v2, where the key works: the profile keeps /v2 as its API path.`);
    expect(login.stdout).toMatch(/; API at \/v2\.\n$/);
    const qr = await runCli(['qr', 'list', '--json'], { env });
    expect(qr.code, qr.stderr).toBe(0);
    expect(JSON.parse(qr.stdout)).toHaveLength(3);
    const status = await runCli(['auth', 'status'], { env });
    expect(status.stdout).toMatch(/^apiPath\t\/v2, saved in the profile$/m);
    // the flag and the variable override the profile: /api is not the API here
    const wrong = await runCli(['qr', 'list', '--api-path', '/api'], { env });
    expect(wrong.code).toBe(6);
    const viaEnv = await runCli(['qr', 'list', '-q'], { env: { ...env, LINKCTL_API_PATH: 'v2/' } });
    expect(viaEnv.stdout).toBe('1\n2\n3\n');
  });

  it('the API path is one setting, applied to every request; a bad one is exit 2 naming where it came from', async () => {
    const v2 = await startSandbox({ port: 0, rateLimit: null, apiPath: '/v2' });
    try {
      const env = { LINKCTL_BASE_URL: v2.url, LINKCTL_API_KEY: v2.key, LINKCTL_CONFIG_DIR: tempDir(), LINKCTL_API_PATH: '/v2' };
      const r = await runCli(['link', 'list', '-q'], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(v2.requests.map((q) => q.path)).toEqual(['/v2/urls']);
      const bad = await runCli(['link', 'list', '--api-path', '../admin'], { env });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--api-path must be a plain path such as \/v2/);
      const badEnv = await runCli(['link', 'list'], { env: { ...env, LINKCTL_API_PATH: 'https://x.example/v2' } });
      expect(badEnv.code).toBe(2);
      expect(badEnv.stderr).toMatch(/LINKCTL_API_PATH is a path such as \/v2, not a URL/);
      expect(v2.requests).toHaveLength(1);
    } finally {
      await v2.close();
    }
  });
});

describe('auth login --oauth', () => {
  let sandbox: Sandbox;
  let port: number;
  let redirect: string;
  /** A port free now, for the client's registered redirect (linkctl listens there). */
  async function freePort(): Promise<number> {
    const probe: Server = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const p = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    return p;
  }
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, rateLimit: null, apiPath: '/v2' });
    port = await freePort();
    redirect = `http://127.0.0.1:${port}/linkctl-callback`;
    const registered = await fetch(`${sandbox.url}/__sandbox/oauth-clients`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${sandbox.key}` },
      body: JSON.stringify({ name: 'linkctl tests', clientid: 'test-client', secret: 'the-client-secret', redirect }),
    });
    expect(registered.status).toBe(200);
  });
  afterAll(() => sandbox.close());

  /** `auth login --oauth ...` in-process; `browser` acts as the person once the URL is printed. */
  async function login(extra: string[], secret: string, browser?: (authorize: string) => Promise<void>) {
    const env = { LINKCTL_CONFIG_DIR: tempDir(), LINKCTL_API_PATH: '/v2' };
    let acted = false;
    const run = await runMain(['auth', 'login', '--oauth', '--base-url', sandbox.url, '--client-id', 'test-client', '--client-secret-stdin', '--insecure-storage', ...extra], {
      env,
      stdin: secret,
      onStderr: (text) => {
        const url = /approve linkctl: (\S+)/.exec(text)?.[1];
        if (url && browser && !acted) {
          acted = true;
          void browser(url);
        }
      },
    });
    return { ...run, env };
  }
  /** What a browser does: show the page, approve, follow the redirect to linkctl's listener. */
  const approve = async (authorize: string) => {
    expect((await fetch(authorize)).status).toBe(200);
    const answer = await fetch(authorize, { method: 'POST', body: 'approve=1', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, redirect: 'manual' });
    expect(answer.status).toBe(302);
    const location = answer.headers.get('location')!;
    expect(location).toMatch(new RegExp(`^${redirect}\\?code=[a-f0-9]+$`));
    // another path of the listener is not the redirect: 404, and the wait goes on
    expect((await fetch(`http://127.0.0.1:${port}/elsewhere?code=x`)).status).toBe(404);
    expect((await fetch(location)).status).toBe(200);
    // one code only: the listener is gone
    await expect(fetch(location)).rejects.toThrow();
  };

  it('end to end: the loopback redirect takes the code, the exchange (at /v2) gives a token saved as the key; auth status says so; the token works', async () => {
    const r = await login(['--redirect-uri', redirect], 'the-client-secret', approve);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Open this URL in a browser to approve linkctl: http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?clientid=test-client&redirect=http%3A%2F%2F127\.0\.0\.1%3A\d+%2Flinkctl-callback/);
    expect(r.stdout).toMatch(/^Logged in to http:\/\/127\.0\.0\.1:\d+ as demo through OAuth client test-client \(profile default, the default\); token \*{4}\d{4} in the config file, expires \d{4}-\d\d-\d\d/);
    const exchange = sandbox.requests.find((q) => q.path === '/v2/oauth/token')!;
    expect(exchange.method).toBe('POST');
    expect(exchange.headers.authorization).toBeUndefined();
    expect(exchange.body).toEqual({ code: expect.stringMatching(/^[a-f0-9]+$/), secret: 'the-client-secret' });
    const saved = JSON.parse(readFileSync(join(r.env.LINKCTL_CONFIG_DIR, 'config.json'), 'utf8')) as { profiles: Record<string, Record<string, string>> };
    expect(saved.profiles.default).toMatchObject({ keyKind: 'oauth', oauthClient: 'test-client', apiKey: expect.stringMatching(/^[a-z0-9]+-\d{5}-[a-z]+-\d{5}$/) });
    const status = await runCli(['auth', 'status'], { env: r.env });
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^key\t\*{4}\d{4}, an OAuth token of client test-client expiring \d{4}-\d\d-\d\d, saved in the config file$/m);
    const users = await runCli(['admin', 'users', 'list', '-q'], { env: r.env });
    expect(users.stdout).toBe('1\n2\n');
    expect(r.stdout + r.stderr + status.stdout + users.stdout).not.toContain(saved.profiles.default!.apiKey);
    expect(r.stdout + r.stderr).not.toContain('the-client-secret');
  });

  it('a wrong secret: exit 3, saying the secret is not the client\'s; nothing saved', async () => {
    const r = await login(['--redirect-uri', redirect], 'not-the-secret', approve);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/the server refused the sign-in code: Invalid request: Invalid secret/);
    expect(r.stderr).toMatch(/hint: the client secret is not this client's/);
    expect(() => readFileSync(join(r.env.LINKCTL_CONFIG_DIR, 'config.json'))).toThrow();
  });

  it('a redirect not registered: exit 3 at once, from the authorize page, and the listener is closed', async () => {
    const other = await freePort();
    const started = Date.now();
    const r = await login(['--redirect-uri', `http://127.0.0.1:${other}/elsewhere`], 'the-client-secret');
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/the server refused the authorize request of client test-client \(HTTP 400: Invalid redirect URI\. The redirect URI does not match the one registered/);
    expect(r.stderr).toMatch(/hint: the redirect URI must be the one registered with the client/);
    expect(Date.now() - started).toBeLessThan(5000);
    await expect(fetch(`http://127.0.0.1:${other}/elsewhere?code=x`)).rejects.toThrow();
  });

  it('no code in time: exit 3 after --approve-within; a redirect that is not loopback is exit 2', async () => {
    const r = await login(['--redirect-uri', redirect, '--approve-within', '0.5'], 'the-client-secret');
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/no sign-in code arrived within 0.5 s; linkctl stopped listening/);
    const remote = await login(['--redirect-uri', 'https://app.example.com/callback'], 'the-client-secret');
    expect(remote.code).toBe(2);
    expect(remote.stderr).toMatch(/--redirect-uri must be a loopback URI/);
  });
});
