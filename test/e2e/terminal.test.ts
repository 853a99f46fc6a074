/**
 * The real terminal paths that in-process tests fake: the built CLI runs in a pseudo-terminal
 * made by util-linux `script`, so the readline prompts of src/prompt.ts (hidden input, yes/no,
 * Ctrl-C) and the terminal table really run; and in real pipes, so `| head -1` closes stdout
 * early (EPIPE, handled in src/run.ts).
 *
 * What we write to script's stdin is typed into the pty. Each answer is written only once the
 * prompt text has appeared, and only then is the terminal in raw mode with echo off: typing
 * earlier would be echoed by the pty itself, which is not what a hidden prompt is about.
 * script's stdin stays open until the command ends (at EOF script would end the session).
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, sent, tempDir, useSandbox } from '../helpers.js';

const ANSI = /\u001b\[[0-9;]*[A-Za-z]/;

let scriptChecked = false;
/** `script` is part of util-linux, on every Linux this runs on: without it, fail and say why. */
function requireScript(): void {
  if (scriptChecked) return;
  let version = '';
  try {
    version = execFileSync('script', ['--version'], { encoding: 'utf8' });
  } catch (error) {
    throw new Error(`the terminal tests need util-linux \`script\` on PATH to make a pseudo-terminal (${(error as Error).message}); install util-linux`);
  }
  if (!/util-linux/.test(version)) throw new Error(`the terminal tests need util-linux \`script\`, found: ${version.trim()}`);
  scriptChecked = true;
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

interface Step {
  /** Text that must appear in the terminal (after the previous step's) before `send` is typed. */
  waitFor: string;
  send: string;
}

interface PtyResult {
  code: number | null;
  /** Everything the terminal showed (stdout and stderr together, with \r\n line ends). */
  output: string;
}

/**
 * Runs `node bin/linkctl.js ...args` on a pseudo-terminal, typing each step's answer once its
 * text has appeared. `redirect` is appended to the shell command (e.g. `2>file`).
 */
function runPty(args: string[], options: { env: Record<string, string | undefined>; steps?: Step[]; redirect?: string; timeoutMs?: number }): Promise<PtyResult> {
  requireScript();
  const command = `${[process.execPath, BIN, ...args].map(quote).join(' ')}${options.redirect ? ` ${options.redirect}` : ''}`;
  const steps = [...(options.steps ?? [])];
  return new Promise((resolve, reject) => {
    // The env of `script` is the env of the command in the pty. TERM as a user's terminal has it.
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: cleanEnv({ TERM: 'xterm', ...options.env }), stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    let seen = 0; // where the next step's text is looked for
    let scriptErr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out${steps.length ? ` waiting for ${JSON.stringify(steps[0]!.waitFor)}` : ''}; the terminal showed: ${JSON.stringify(output)}`));
    }, options.timeoutMs ?? 15_000);
    const advance = () => {
      while (steps.length) {
        const at = output.indexOf(steps[0]!.waitFor, seen);
        if (at < 0) return;
        const step = steps.shift()!;
        seen = at + step.waitFor.length;
        child.stdin.write(step.send);
      }
    };
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      output += d;
      advance();
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (scriptErr += d));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`cannot run util-linux \`script\`: ${error.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      child.stdin.destroy();
      if (steps.length) reject(new Error(`the command ended (exit ${code}) before ${JSON.stringify(steps[0]!.waitFor)} appeared; terminal: ${JSON.stringify(output)} ${scriptErr}`));
      else resolve({ code, output });
    });
  });
}

/** Runs a shell pipeline (bash, no pipefail) with the CLI as `linkctl`; stdout and stderr apart. */
function runShell(script: string, env: Record<string, string | undefined>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const linkctl = `${quote(process.execPath)} ${quote(BIN)}`;
    const child = spawn('bash', ['-c', `set +o pipefail; linkctl() { ${linkctl} "$@"; }; ${script}`], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('on a terminal', () => {
  const fx = useSandbox();

  /** A config folder of its own, so what a test saves (or does not) is its alone. */
  function freshConfig() {
    const dir = tempDir('linkctl-tty-');
    return { dir, file: join(dir, 'config.json'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
  }

  it('auth login asks for the key on a hidden prompt, checks it and saves it', async () => {
    const config = freshConfig();
    try {
      const key = fx.sandbox.key;
      const r = await runPty(['auth', 'login', '--base-url', fx.sandbox.url], {
        env: { LINKCTL_CONFIG_DIR: config.dir },
        steps: [{ waitFor: 'API key: ', send: `${key}\r` }],
      });
      expect(r.output).toContain('API key: ');
      expect(r.output).not.toContain(key);
      expect(r.output).toMatch(/Logged in to http:\/\/127\.0\.0\.1:\d+ as \S+ \(profile default, the default\); key \*+/);
      expect(r.code).toBe(0);
      const saved = JSON.parse(readFileSync(config.file, 'utf8'));
      expect(saved.profiles.default).toEqual({ baseUrl: fx.sandbox.url, apiKey: key });
      expect(sent(fx.sandbox)).toEqual([{ method: 'GET', path: '/api/account', query: {}, body: undefined }]);
      expect(fx.sandbox.requests[0]!.headers.authorization).toBe(`Bearer ${key}`);
    } finally {
      config.cleanup();
    }
  });

  it('Ctrl-C at the key prompt exits 130 and saves nothing', async () => {
    const config = freshConfig();
    try {
      const r = await runPty(['auth', 'login', '--base-url', fx.sandbox.url], {
        env: { LINKCTL_CONFIG_DIR: config.dir },
        steps: [{ waitFor: 'API key: ', send: 'half-typed\u0003' }],
      });
      expect(r.code).toBe(130);
      expect(r.output).not.toContain('half-typed');
      expect(r.output).not.toMatch(/unexpected error|\n\s+at /);
      expect(existsSync(config.file)).toBe(false);
      expect(sent(fx.sandbox)).toEqual([]);
    } finally {
      config.cleanup();
    }
  });

  it.each([
    ['n', 2, 0],
    ['y', 0, 1],
  ])('qr delete asks first; answering %s exits %i with %i DELETE sent', async (answer, code, deletes) => {
    const r = await runPty(['qr', 'delete', '1'], { env: fx.env, steps: [{ waitFor: 'Delete QR code 1? [y/N] ', send: `${answer}\r` }] });
    expect(r.output).toContain('Delete QR code 1? [y/N] ');
    expect(r.code).toBe(code);
    expect(sent(fx.sandbox).filter((q) => q.method === 'DELETE')).toEqual(deletes ? [{ method: 'DELETE', path: '/api/qr/1/delete', query: {}, body: undefined }] : []);
    if (answer === 'n') expect(r.output).toContain('cancelled; nothing was changed');
  });

  it('account update --password asks on a hidden prompt and sends the password', async () => {
    const password = 'N3w-pass-phrase';
    const r = await runPty(['account', 'update', '--password'], { env: fx.env, steps: [{ waitFor: 'New password: ', send: `${password}\r` }] });
    expect(r.code).toBe(0);
    expect(r.output).toContain('New password: ');
    expect(r.output).not.toContain(password);
    expect(sent(fx.sandbox)).toEqual([{ method: 'PUT', path: '/api/account/update', query: {}, body: { password } }]);
  });

  it('qr list prints a table under a bold header, and the footer on stderr', async () => {
    const config = freshConfig();
    try {
      const errFile = join(config.dir, 'stderr.txt');
      const r = await runPty(['qr', 'list'], { env: fx.env });
      expect(r.code).toBe(0);
      expect(r.output).toMatch(/\u001b\[1mID\u001b\[22m/);
      expect(r.output).toContain('Office wifi');
      expect(r.output).toContain('page 1 of 1, 3 results');
      // The same with stderr to a file: the footer goes there, the table stays on the terminal.
      const apart = await runPty(['qr', 'list'], { env: fx.env, redirect: `2>${quote(errFile)}` });
      expect(apart.code).toBe(0);
      expect(apart.output).toContain('Office wifi');
      expect(apart.output).not.toContain('page 1 of 1');
      expect(readFileSync(errFile, 'utf8')).toBe('page 1 of 1, 3 results\n');
    } finally {
      config.cleanup();
    }
  });

  it('qr list with NO_COLOR prints the table without ANSI codes', async () => {
    const r = await runPty(['qr', 'list'], { env: { ...fx.env, NO_COLOR: '1' } });
    expect(r.code).toBe(0);
    expect(r.output).toContain('Office wifi');
    expect(r.output).toContain('page 1 of 1, 3 results');
    expect(r.output).not.toMatch(ANSI);
  });
});

describe('in a pipe that closes early', () => {
  const fx = useSandbox();

  it('`qr list --all --limit 1 -o ndjson | head -1` prints one record and no error', async () => {
    const r = await runShell('linkctl qr list --all --limit 1 -o ndjson | head -1; echo "linkctl exit ${PIPESTATUS[0]}" >&2', fx.env);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!).name).toBe('Office wifi');
    expect(r.stderr).toBe('linkctl exit 0\n');
  });

  it('`--help | head -1` prints the usage line and no error', async () => {
    const r = await runShell('linkctl --help | head -1; echo "linkctl exit ${PIPESTATUS[0]}" >&2', fx.env);
    expect(r.stdout).toBe('Usage: linkctl [options] [command]\n');
    expect(r.stderr).toBe('linkctl exit 0\n');
  });
});
