/**
 * The key never shows: every leaf command of the program, run as a user would with --debug and
 * a recognisable key, against a sandbox that accepts that key. The commands are found by walking
 * the commander tree, so a new command without an entry in MINIMAL fails here until it gets one.
 */
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { afterAll, describe, expect, it, type TestContext } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import type { IO } from '../../src/io.js';
import { startSandbox } from '../../src/sandbox/server.js';
import { SANDBOX_USER_KEY } from '../../src/sandbox/state.js';
import { BIN, cleanEnv, runCli, tempDir, type RunResult } from '../helpers.js';

const KEY = 'sk_live_SECRETKEY_1234567890';
const ACCOUNT_PASSWORD = 'n3w-Acc0unt-Passw0rd';
const LINK_PASSWORD = 'l1nk-Passw0rd-42';

interface Entry {
  /** Arguments after the command path; --debug and --yes are added. */
  args: string[];
  stdin?: string;
  /** Commands run first (same environment), e.g. a login before `auth switch`. */
  setup?: { args: string[]; stdin?: string }[];
  /** The command talks to no API (completion, the sandbox's own commands). */
  offline?: boolean;
  /** A foreground server: stopped with SIGINT once it says it is listening. */
  server?: boolean;
  /** The command prints the key on stdout by design (auth token): only that, and nowhere else. */
  printsKey?: boolean;
  /** Other secrets the command handles, which must not show either. */
  secrets?: string[];
}

/** Where `qr download` saves (not the current folder). */
const DOWNLOADS = tempDir();
const BITLY_EXPORT = fileURLToPath(new URL('../fixtures/import/bitly.csv', import.meta.url));
/** An account file with nothing to find in it, for lint. */
const CLEAN_ACCOUNT = join(DOWNLOADS, 'clean.yaml');
writeFileSync(CLEAN_ACCOUNT, 'version: 1\n');
/** A first snapshot, so that the history commands have something to show. */
const SNAPSHOT = [{ args: ['stats', 'snapshot'] }];

/** Minimal valid arguments for every leaf command, by command path (ids exist in the seeded sandbox). */
const MINIMAL: Record<string, Entry> = {
  'auth login': { args: ['--with-token'], stdin: `${KEY}\n` },
  'auth status': { args: [] },
  'auth token': { args: [], offline: true, printsKey: true },
  'auth logout': { args: [], setup: [{ args: ['auth', 'login', '--with-token'], stdin: KEY }], offline: true },
  'auth switch': { args: ['work'], setup: [{ args: ['auth', 'login', '--with-token', '--profile', 'work'], stdin: KEY }], offline: true },
  'account get': { args: [] },
  'account update': { args: ['--password-stdin'], stdin: ACCOUNT_PASSWORD, secrets: [ACCOUNT_PASSWORD] },
  'qr list': { args: [] },
  'qr get': { args: ['1'] },
  'qr add': { args: ['--type', 'text', '--data', 'hello'] },
  'qr update': { args: ['2', '--type', 'text', '--data', 'hello again'] },
  'qr delete': { args: ['1'] },
  'qr download': { args: ['1', '--file', join(DOWNLOADS, 'qr.png'), '--force'] /* run by two describes: the second replaces the first's file */ },
  'link list': { args: [] },
  'link get': { args: ['1'] },
  'link add': { args: ['https://example.com/new', '--password-stdin'], stdin: LINK_PASSWORD, secrets: [LINK_PASSWORD] },
  'link update': { args: ['1', '--url', 'https://example.com/moved'] },
  'link delete': { args: ['1'] },
  'link qr': { args: ['1'] },
  'domain list': { args: [] },
  'domain add': { args: ['https://brand.example.com'] },
  'domain update': { args: ['1', '--redirect-root', 'https://example.com/home'] },
  'domain delete': { args: ['1'] },
  'campaign list': { args: [] },
  'campaign add': { args: ['--name', 'Summer'] },
  'campaign update': { args: ['1', '--name', 'Autumn'] },
  'campaign assign': { args: ['1', '2'] },
  'campaign delete': { args: ['1'] },
  'channel list': { args: [] },
  'channel items': { args: ['1'] },
  'channel add': { args: ['--name', 'Sales'] },
  'channel update': { args: ['1', '--name', 'Support'] },
  'channel delete': { args: ['1'] },
  'channel assign': { args: ['1', 'link', '2'] },
  'pixel list': { args: [] },
  'pixel add': { args: ['--type', 'gapixel', '--name', 'Analytics', '--tag', 'G-XYZ12345'] },
  'pixel update': { args: ['1', '--tag', 'G-NEW12345'] },
  'pixel delete': { args: ['1'] },
  'overlay list': { args: [] },
  'splash list': { args: [] },
  export: { args: [] },
  plan: { args: ['-f', '-'], stdin: 'version: 1\ncampaigns:\n  - name: Autumn\n' },
  apply: { args: ['-f', '-'], stdin: 'version: 1\ncampaigns:\n  - name: Autumn\n' },
  api: { args: ['GET', 'api/account'] },
  completion: { args: ['bash'], offline: true },
  __complete: { args: ['profiles'], offline: true },
  'sandbox serve': { args: ['--port', '0'], offline: true, server: true },
  'sandbox reset': { args: [], offline: true },
  // stdin is empty: the server starts, sees its input end, and stops (test/e2e/mcp.test.ts covers its tools).
  mcp: { args: ['--allow-writes'], offline: true },
  'sandbox status': { args: [], offline: true },
  'sandbox visits': { args: ['--link', '1'], offline: true },
  // import reads a file and, without --keep-domains, no account
  import: { args: ['bitly', BITLY_EXPORT], offline: true },
  'stats snapshot': { args: [] },
  'stats show': { args: [], setup: SNAPSHOT, offline: true },
  'stats top': { args: [], setup: SNAPSHOT, offline: true },
  'stats report': { args: ['--html', join(DOWNLOADS, 'report.html'), '--force'], setup: SNAPSHOT, offline: true },
  'stats forget': { args: ['--snapshot', '1', '--yes'], setup: SNAPSHOT, offline: true },
  'stats migrate': { args: [], setup: SNAPSHOT, offline: true },
  // the history as Parquet: the snapshot's history; --no-channels reads nothing from the server
  'stats export': { args: ['--out', join(DOWNLOADS, 'warehouse'), '--no-channels'], setup: SNAPSHOT, offline: true },
  // a clean account file: lint reads it and sends nothing
  lint: { args: ['-f', CLEAN_ACCOUNT], offline: true },
  listen: { args: ['--port', '0'], offline: true, server: true },
  // the ledger holds what its setup sent (a ledger with no entry is an error: issue 50): read, never sent
  'log verify': { args: [], setup: [{ args: ['link', 'add', 'https://sandbox.localhost/ledgered'] }], offline: true },
  // the seeded links lead to the sandbox's own pages: nothing here asks DNS about a name
  check: { args: [] },
  // the admin API (issue 51): every user record carries that user's key; the plain user's must not show either
  'admin users list': { args: [], secrets: [SANDBOX_USER_KEY] },
  'admin users get': { args: ['2'], secrets: [SANDBOX_USER_KEY] },
  'admin users add': { args: ['--username', 'jane', '--email', 'jane@example.com', '--password-stdin'], stdin: ACCOUNT_PASSWORD, secrets: [ACCOUNT_PASSWORD] },
  'admin users delete': { args: ['2'], secrets: [SANDBOX_USER_KEY] },
  'admin users login': { args: ['2'], secrets: [SANDBOX_USER_KEY] },
  'admin plans list': { args: [] },
  'admin plans subscribe': { args: ['2', '2', '--type', 'monthly'] },
};

/** Paths of the leaf commands (hidden ones included: they run too). */
function leafCommands(): string[] {
  const quiet = { write: () => true };
  const io = { stdout: quiet, stderr: quiet, stdin: [] as unknown as IO['stdin'], env: {} } satisfies IO;
  const program = buildProgram(io, () => async () => undefined);
  const walk = (command: Command, path: string[]): string[] =>
    command.commands.length ? command.commands.flatMap((sub) => walk(sub, [...path, sub.name()])) : [path.join(' ')];
  return walk(program, []);
}

const configDirs: string[] = [];
afterAll(() => {
  for (const dir of configDirs) rmSync(dir, { recursive: true, force: true });
});

async function setup({ onTestFinished }: TestContext) {
  const sandbox = await startSandbox({ port: 0, rateLimit: null, key: KEY });
  onTestFinished(() => sandbox.close());
  const configDir = tempDir();
  configDirs.push(configDir);
  return { sandbox, env: { LINKCTL_BASE_URL: sandbox.url, LINKCTL_API_KEY: KEY, LINKCTL_CONFIG_DIR: configDir } };
}

/** Spawns a foreground server command, and stops it with SIGINT once it says it listens. */
function runServer(args: string[], env: Record<string, string>): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let interrupted = false;
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => {
      stderr += d;
      // Once: a second SIGINT that lands while the process is already exiting would kill it by signal.
      if (/Ctrl-C/.test(stderr) && !interrupted) interrupted = child.kill('SIGINT');
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The key, and any other secret, is in no byte of stdout or stderr. */
function expectNoSecrets(r: RunResult, secrets: string[]) {
  for (const secret of secrets) {
    expect(r.stdout).not.toContain(secret);
    expect(r.stderr).not.toContain(secret);
  }
}

describe.concurrent('no command shows the key, even with --debug', () => {
  const leaves = leafCommands();

  it('finds the commands (the walk works)', () => {
    expect(leaves).toContain('qr list');
    expect(leaves.length).toBeGreaterThan(20);
  });

  for (const path of leaves) {
    it(path, async (t) => {
      const entry = MINIMAL[path];
      if (!entry) expect.fail(`no entry for "${path}" in MINIMAL (test/e2e/secrets.test.ts): add its minimal valid arguments so it is covered`);
      const { sandbox, env } = await setup(t);
      for (const step of entry.setup ?? []) expect((await runCli(step.args, { env, stdin: step.stdin })).code).toBe(0);
      const requestsBefore = sandbox.requests.length;
      const args = [...path.split(' '), ...entry.args, '--debug', '--yes'];
      const r = entry.server ? await runServer(args, env) : await runCli(args, { env, stdin: entry.stdin });
      if (entry.printsKey) {
        expect(r.stdout).toBe(`${KEY}\n`);
        expectNoSecrets({ ...r, stdout: '' }, [KEY]);
      } else expectNoSecrets(r, [KEY, ...(entry.secrets ?? [])]);
      expect(r.code, r.stderr).toBe(0); // a foreground server stopped by Ctrl-C exits 0
      if (!entry.offline) {
        // The command did use the key: the sandbox received it, and the trace shows it redacted.
        expect(sandbox.requests.length).toBeGreaterThan(requestsBefore);
        // (the last API request: a QR code's image and short link are read without the key)
        expect(sandbox.requests.filter((q) => q.path.startsWith('/api/')).at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
        expect(r.stderr).toContain('[debug] > Authorization: Bearer [REDACTED]');
      }
    });
  }
});

describe.concurrent('every command prints valid JSON with --json', () => {
  // __complete answers the completion scripts in their own line format; it is hidden and not for people or scripts.
  // mcp's stdout is the protocol (JSON-RPC messages, one a line), with no result of its own.
  for (const path of leafCommands().filter((p) => p !== '__complete' && p !== 'mcp' && !MINIMAL[p]?.server)) {
    it(path, async (t) => {
      const entry = MINIMAL[path]!;
      const { env } = await setup(t);
      for (const step of entry.setup ?? []) expect((await runCli(step.args, { env, stdin: step.stdin })).code).toBe(0);
      const r = await runCli([...path.split(' '), ...entry.args, '--json', '--yes'], { env, stdin: entry.stdin });
      expect(r.code, r.stderr).toBe(0);
      expect(() => JSON.parse(r.stdout), r.stdout).not.toThrow();
    });
  }
});

describe.concurrent('a key saved in a profile, not in the environment', () => {
  for (const command of [['auth', 'status'], ['qr', 'list'], ['api', 'GET', 'api/nothing-here']]) {
    it(command.join(' '), async (t) => {
      const { sandbox, env } = await setup(t);
      const { LINKCTL_API_KEY: _fromEnv, ...profileEnv } = env;
      expect((await runCli(['auth', 'login', '--with-token'], { env: profileEnv, stdin: KEY })).code).toBe(0);
      const r = await runCli([...command, '--debug'], { env: profileEnv });
      expectNoSecrets(r, [KEY]);
      expect(r.stderr).toContain('[debug] > Authorization: Bearer [REDACTED]');
      expect(sandbox.requests.at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(r.code).toBe(command[2] === 'api/nothing-here' ? 6 : 0);
    });
  }
});

describe.concurrent('a server that echoes the key back', () => {
  /** A server that puts the key it received in its answers: a message, a Location, an HTML page. */
  async function echoing(t: TestContext, answer: (res: ServerResponse, auth: string) => void) {
    const server = createServer((req: IncomingMessage, res) => answer(res, String(req.headers.authorization)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.onTestFinished(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
    const configDir = tempDir();
    configDirs.push(configDir);
    return { LINKCTL_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, LINKCTL_API_KEY: KEY, LINKCTL_CONFIG_DIR: configDir };
  }

  it('in an error message (exit 1)', async (t) => {
    const env = await echoing(t, (res, auth) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: 1, message: `Key ${auth.slice(7)} is not allowed here.` })));
    const r = await runCli(['qr', 'list', '--debug'], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^linkctl: Key \[REDACTED\] is not allowed here\.$/m);
    expectNoSecrets(r, [KEY]);
  });

  it('in auth status and auth login, which print the server message themselves', async (t) => {
    const env = await echoing(t, (res, auth) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: 1, message: `Key ${auth.slice(7)} is not allowed here.` })));
    const status = await runCli(['auth', 'status'], { env });
    expect(status.stdout).toMatch(/not checked: Key \[REDACTED\] is not allowed here\./);
    expectNoSecrets(status, [KEY]);
    const login = await runCli(['auth', 'login', '--with-token', '--base-url', env.LINKCTL_BASE_URL], { env: { LINKCTL_CONFIG_DIR: env.LINKCTL_CONFIG_DIR }, stdin: KEY });
    expect(login.code).toBe(1);
    expectNoSecrets(login, [KEY]);
  });

  it('in a redirect target (exit 6)', async (t) => {
    const env = await echoing(t, (res) => res.writeHead(302, { Location: `https://login.example.com/?key=${encodeURIComponent(KEY)}` }).end());
    const r = await runCli(['account', 'get', '--debug'], { env });
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('to https://login.example.com/?key=[REDACTED]');
    expectNoSecrets(r, [KEY, encodeURIComponent(KEY)]);
  });

  it('in an HTML page printed by --debug (exit 6)', async (t) => {
    const env = await echoing(t, (res, auth) => res.writeHead(404, { 'Content-Type': 'text/html' }).end(`<html><pre>Authorization: ${auth}</pre><p>${KEY}</p></html>`));
    const r = await runCli(['qr', 'get', '1', '--debug', '--json'], { env });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/\[debug\] < <html>/);
    expectNoSecrets(r, [KEY]);
  });
});
