/**
 * Test helpers: run the built CLI as a user would (a subprocess with a clean environment), or
 * call main() in-process with fake streams; both against a sandbox on 127.0.0.1, port 0.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { main } from '../src/cli.js';
import type { IO } from '../src/io.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../src/sandbox/server.js';
import { CsvReader } from '../src/import/csv.js';

export const BIN = fileURLToPath(new URL('../bin/linkctl.js', import.meta.url));

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  stdin?: string;
  timeoutMs?: number;
  cwd?: string;
}

/** The folders tempDir made for this file's tests. */
const madeDirs: string[] = [];
// registered when a test file imports this one, so it runs after the file's own afterAll hooks
// (vitest runs them in reverse order): every run of the suite left ~300 folders in the temp
// folder before, and a temp folder of thousands slowed file creation in it 5 to 10 times
afterAll(() => {
  for (const dir of madeDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh config folder, removed after the file's tests. */
export function tempDir(prefix = 'linkctl-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  madeDirs.push(dir);
  return dir;
}

/** The environment a user's shell would give, without this machine's extras (proxies, CA bundle). */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir(), LANG: 'C.UTF-8' };
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) env[key] = value;
  return env;
}

/**
 * Spawns `node bin/linkctl.js ...args` as a process of its own, with no terminal: for what only a
 * process shows (signals, exit codes on a crash, pipes closed early, the packaged bin's fast paths,
 * a server that runs until stopped).
 */
export function spawnCli(args: string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(options.env), cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    // A guard against a hang (a loaded machine can take seconds to start one CLI, never a minute).
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
}

/** The built CLI's entry (what bin/linkctl.js loads), imported by Node itself, not through vitest's transform. */
const DIST_ENTRY = new URL('../dist/linkctl.js', import.meta.url).href;
// vitest.config.ts marks dist/ external: Node loads the bundle itself, as bin does, untransformed.
const nativeImport = (specifier: string) => import(/* @vite-ignore */ specifier) as Promise<{ main: typeof main }>;
let built: Promise<{ main: typeof main }> | undefined;
/** Runs in flight in this process, and whether one of them changed the working folder. */
let inProcess = 0;
let cwdChanged = false;

/**
 * Runs the built CLI as a user would (`linkctl ...args` with no terminal, a clean environment and
 * the given stdin) but in this process: the bundle bin/linkctl.js loads, through its main(), with
 * stdout and stderr collected. Starting a Node process for each command cost the suite most of its
 * time, and adds nothing to what these tests check; spawnCli keeps a real process where one matters.
 * A run in another folder (`cwd`) changes this process's folder for its time, so it runs alone: one
 * that would overlap another run goes to a process of its own.
 */
export async function runCli(args: string[], options: RunOptions = {}): Promise<RunResult> {
  if (options.cwd ? inProcess > 0 : cwdChanged) return spawnCli(args, options);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const collect = (into: Buffer[]) => ({ write: (chunk: string | Uint8Array) => (into.push(Buffer.from(chunk)), true), isTTY: false });
  const stdin = Readable.from(options.stdin ? [Buffer.from(options.stdin)] : []);
  const before = process.cwd();
  inProcess++;
  if (options.cwd) {
    process.chdir(options.cwd);
    cwdChanged = true;
  }
  try {
    const code = await startCli(args, { env: options.env, stdin, stdout: collect(out), stderr: collect(err) });
    return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
  } finally {
    inProcess--;
    if (options.cwd) {
      process.chdir(before);
      cwdChanged = false;
    }
  }
}

/**
 * The built CLI's main() in this process with streams of the caller's (a command that keeps
 * reading its stdin and writing its stdout, such as `linkctl mcp`), none a terminal, the
 * environment clean: the exit code when it ends.
 */
export async function startCli(args: string[], streams: { env?: Record<string, string | undefined>; stdin: Readable; stdout: IO['stdout']; stderr: IO['stderr'] }): Promise<number> {
  const { main: builtMain } = await (built ??= nativeImport(DIST_ENTRY));
  return builtMain(args, { stdout: streams.stdout, stderr: streams.stderr, stdin: streams.stdin as unknown as IO['stdin'], env: cleanEnv(streams.env) });
}

export interface MainOptions {
  env?: Record<string, string | undefined>;
  stdin?: string;
  /** Pretend stdout/stderr/stdin are terminals. */
  tty?: boolean;
  /** stdout a terminal or not, when it differs from `tty` (`linkctl ... | head`: stdout a pipe, stderr the terminal). */
  stdoutTty?: boolean;
  confirm?: boolean;
  /** What the hidden prompt answers: the same each time, or one per prompt in order. */
  secret?: string | string[];
  /** What visible text prompts answer, one per prompt in order. */
  answers?: string[];
  signal?: AbortSignal;
  /** Called with everything written to stderr so far, after each write (a test that waits for what a person would see). */
  onStderr?: (stderr: string) => void;
}

/** Calls main() in-process with string streams. */
export async function runMain(args: string[], options: MainOptions = {}): Promise<RunResult & { prompts: string[] }> {
  let stdout = '';
  let stderr = '';
  const prompts: string[] = [];
  const secrets = Array.isArray(options.secret) ? [...options.secret] : [];
  const answers = [...(options.answers ?? [])];
  const stdin = Readable.from(options.stdin === undefined ? [] : [options.stdin]) as unknown as IO['stdin'];
  stdin.isTTY = options.tty;
  const io: IO = {
    stdout: { write: (s: string) => ((stdout += s), true), isTTY: options.stdoutTty ?? options.tty, columns: 100 },
    // A terminal stderr also needs the cursor moves ora uses to redraw its spinner.
    stderr: Object.assign({ write: (s: string) => ((stderr += s), options.onStderr?.(stderr), true), isTTY: options.tty, columns: 100 }, options.tty ? { cursorTo: () => true, moveCursor: () => true, clearLine: () => true } : {}),
    stdin,
    env: cleanEnv(options.env),
    signal: options.signal,
    confirm: async (q) => (prompts.push(q), options.confirm ?? false),
    promptSecret: async (q) => (prompts.push(q), Array.isArray(options.secret) ? (secrets.shift() ?? '') : (options.secret ?? '')),
    prompt: async (q) => (prompts.push(q), answers.shift() ?? ''),
  };
  const code = await main(args, io);
  return { code, stdout, stderr, prompts };
}

export interface SandboxFixture {
  sandbox: Sandbox;
  configDir: string;
  /** Environment that points the CLI at the sandbox with its key. */
  env: Record<string, string>;
}

/**
 * Starts a sandbox before the file's tests and stops it after; requests and faults are
 * cleared after each test, and its state reset, so tests do not depend on each other.
 */
export function useSandbox(options: SandboxOptions = {}): SandboxFixture {
  const fixture = {} as SandboxFixture;
  beforeAll(async () => {
    fixture.sandbox = await startSandbox({ port: 0, rateLimit: null, ...options });
    fixture.configDir = tempDir();
    fixture.env = { LINKCTL_BASE_URL: fixture.sandbox.url, LINKCTL_API_KEY: fixture.sandbox.key, LINKCTL_CONFIG_DIR: fixture.configDir };
  });
  afterEach(() => fixture.sandbox.reset());
  afterAll(async () => {
    await fixture.sandbox?.close();
    rmSync(fixture.configDir, { recursive: true, force: true });
  });
  return fixture;
}

/**
 * The same members, in any order: what several requests in flight together (--concurrency auto
 * against a server without a rate limit) send, which the server sees in whatever order they arrive.
 */
export function expectSameMembers(actual: unknown[], expected: unknown[]): void {
  expect(actual).toHaveLength(expected.length);
  expect(actual).toEqual(expect.arrayContaining(expected));
}

/** The API requests the sandbox received, in a compact form for assertions. */
export function sent(sandbox: Sandbox) {
  return sandbox.requests.map((r) => ({ method: r.method, path: r.path, query: r.query, body: r.body }));
}

/**
 * A 6.x server, for linkctl tests where 6.x differs from 7.6: the sandbox in real-server shapes,
 * ignoring `?short=` (it answers the first page of the list instead) and letting
 * X-RateLimit-Remaining go negative (pass a `rateLimit` to see it).
 */
export function useSixServer(options: SandboxOptions = {}): SandboxFixture {
  return useSandbox({ ...options, quirks: true, version: '6' });
}

/**
 * What a terminal shows once `raw` has been written to it, line by line: carriage returns, line
 * feeds, cursor to column 1 and erase to the end of the line applied; other escapes (colours,
 * the cursor shown or hidden, synchronized output, hyperlinks) dropped.
 */
export function screen(raw: string): string[] {
  const lines: string[] = [''];
  let column = 0;
  const text = raw.replace(/\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g, ''); // OSC: titles, hyperlinks
  for (const token of text.match(/\u001b\[[?0-9;]*[A-Za-z]|\r|\n|[^\u001b\r\n]+/g) ?? []) {
    const row = lines.length - 1;
    if (token === '\r' || token === '\u001b[1G' || token === '\u001b[G') column = 0;
    else if (token === '\n') {
      lines.push('');
      column = 0;
    } else if (token === '\u001b[0K' || token === '\u001b[K') lines[row] = lines[row]!.slice(0, column);
    else if (!token.startsWith('\u001b')) {
      lines[row] = lines[row]!.slice(0, column).padEnd(column) + token + lines[row]!.slice(column + token.length);
      column += token.length;
    }
  }
  return lines;
}

/**
 * Input files of a test file's own, each in a folder of its own (bulk journals are keyed by the
 * input's content and path, so no test carries another's over); all removed after the file's tests.
 */
export function testFiles(prefix: string): { root: string; file: (name: string, text: string) => string } {
  const root = tempDir(prefix);
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  let n = 0;
  return {
    root,
    file(name, text) {
      const dir = join(root, `file-${++n}`);
      mkdirSync(dir);
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
  };
}

/** CSV text as records, by linkctl's own reader (which the import test of quotes holds to its lines). */
export function csvRecords(text: string): string[][] {
  const out: string[][] = [];
  const reader = new CsvReader(',', (r) => out.push(r.cells), (f) => {
    throw new Error(`line ${f.line}: ${f.message}`);
  });
  reader.push(text);
  reader.end();
  return out;
}
