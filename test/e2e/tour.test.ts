/**
 * The tour of docs/getting-started.md as a person runs it: an interactive bash on a pseudo-terminal (util-linux
 * `script`, else python3's pty module), with `linkctl` on PATH, each line typed once the prompt
 * is back. What it guards: a `sandbox serve` in the background must leave the terminal's modes
 * as the shell had them (Node restores at exit the modes it found at start-up, which for a
 * background job are the line editor's, without echo: nodejs/node#35536).
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, screen, tempDir } from '../helpers.js';

const has = (command: string, args: string[]) => spawnSync(command, args, { stdio: 'ignore' }).status === 0;
const hasScript = has('script', ['--version']);
const hasPython = !hasScript && has('python3', ['-c', 'import pty']);
const hasBash = has('bash', ['--version']);
const noPty = !hasBash ? 'bash is not installed' : !hasScript && !hasPython ? 'neither util-linux `script` nor python3 (pty module) is installed to make a pseudo-terminal' : '';

/** The prompt carries the exit code of the line before: `[tour:0]$ `. */
const PS1 = '[tour:$?]$ ';
const PROMPT = /\[tour:(\d+)\]\$ /g;
/** python3's pty.spawn copies our stdin to the terminal and the terminal to our stdout, as `script` does. */
const PY_PTY = 'import pty, sys; pty.spawn(sys.argv[1:])';

/** An interactive bash on a pseudo-terminal; `type` sends a line once the prompt is back and resolves with what the line printed. */
function ptyShell(env: Record<string, string>, rcfile: string, cwd?: string) {
  const shell = ['bash', '--noprofile', '--rcfile', rcfile, '-i'];
  const child = hasScript
    ? spawn('script', ['-qec', shell.map((a) => `'${a}'`).join(' '), '/dev/null'], { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn('python3', ['-c', PY_PTY, ...shell], { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  let seen = 0;
  let waiter: (() => void) | undefined;
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    output += d;
    waiter?.();
  });
  /** Resolves with the terminal's text up to `text` (a string or a global pattern), once it has appeared, and what matched. */
  const shown = (text: string | RegExp, timeoutMs: number) =>
    new Promise<{ before: string; match: RegExpExecArray | undefined }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${String(text)} within ${timeoutMs} ms; the terminal showed: ${JSON.stringify(output.slice(seen))}`)), timeoutMs);
      waiter = () => {
        let at: number;
        let match: RegExpExecArray | undefined;
        if (typeof text === 'string') at = output.indexOf(text, seen);
        else {
          text.lastIndex = seen;
          match = text.exec(output) ?? undefined;
          at = match ? match.index : -1;
        }
        if (at < 0) return;
        const before = output.slice(seen, at);
        seen = at + (match ? match[0].length : (text as string).length);
        clearTimeout(timer);
        waiter = undefined;
        resolve({ before, match });
      };
      waiter();
    });
  const clean = (text: string) => text.replace(/\u001b\[\?2004[hl]/g, '').replace(/\r\n/g, '\n');
  return {
    // These limits guard against a hang; a loaded machine can take many seconds to start a shell and a CLI.
    ready: () => shown(PROMPT, 60_000),
    /** Waits, typing nothing, until `text` shows (a background job's output). */
    waitFor: (text: string) => shown(text, 60_000),
    /** Types `line` and Enter; resolves with the terminal's text up to the next prompt (the echoed line included). */
    async type(line: string, timeoutMs = 60_000): Promise<string> {
      return (await this.run(line, timeoutMs)).text;
    },
    /** Types `line` and Enter; the terminal's text up to the next prompt, and the line's exit code (from the prompt). */
    async run(line: string, timeoutMs = 60_000): Promise<{ text: string; code: number }> {
      child.stdin.write(`${line}\r`);
      const { before, match } = await shown(PROMPT, timeoutMs);
      return { text: clean(before), code: Number(match![1]) };
    },
    close: () =>
      new Promise<void>((resolve) => {
        child.on('close', () => resolve());
        child.stdin.write('exit\r');
        setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      }),
  };
}

/** The terminal's local modes from `stty -a`: whether echo and canonical input are on. */
const modes = (stty: string) => ({ echo: /(^|[\s;])echo([\s;]|$)/m.test(stty), icanon: /(^|[\s;])icanon([\s;]|$)/m.test(stty) });

describe.skipIf(Boolean(noPty))(`a terminal after the tour${noPty ? ` (skipped: ${noPty})` : ''}`, () => {
  let dir: string;
  let env: Record<string, string>;
  let rcfile: string;
  beforeAll(() => {
    dir = tempDir('linkctl-tour-');
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    // `linkctl` as an installed one is: a program on PATH, so `kill %1` reaches node itself.
    writeFileSync(join(bin, 'linkctl'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
    chmodSync(join(bin, 'linkctl'), 0o755);
    env = cleanEnv({ PATH: `${bin}:${process.env.PATH}`, LINKCTL_CONFIG_DIR: join(dir, 'config'), TERM: 'xterm' });
    // The prompt from an rc file of its own: a non-interactive bash between us and the shell (a python shim) drops PS1 from the environment.
    rcfile = join(dir, 'bashrc');
    writeFileSync(rcfile, `PS1='${PS1}'\nHISTFILE=/dev/null\n`);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps echo on after `sandbox serve &` ... `kill %1`', async () => {
    const shell = ptyShell(env, rcfile);
    try {
      await shell.ready();
      expect(modes(await shell.type('stty -a'))).toEqual({ echo: true, icanon: true });
      // The job starts once the shell is back at its prompt, with its line editor's modes (no
      // echo) on the terminal: what a person typing the next line gives, here every time.
      const started = await shell.type('(sleep 0.3; exec linkctl sandbox serve --port 0 --quiet) &');
      expect(started).toMatch(/^\[1\] \d+/m);
      await shell.waitFor('{"baseUrl":"http://127.0.0.1:');
      expect(await shell.type('linkctl sandbox status')).toMatch(/--sandbox uses the running `sandbox serve`/);
      // Killed while the shell runs a command: whatever the job restores at exit stays, and the
      // shell's line editor takes it as the terminal's own for every later command.
      const after = await shell.type('kill %1; while kill -0 $! 2>/dev/null; do sleep 0.05; done; stty -a');
      expect(modes(after)).toEqual({ echo: true, icanon: true });
      expect(modes(await shell.type('stty -a'))).toEqual({ echo: true, icanon: true });
    } finally {
      await shell.close();
    }
  });

  const hasCurl = has('curl', ['--version']);
  it.skipIf(!hasCurl)(`runs the getting-started tour as written, line by line: each line exits 0 and shows what the README shows; echo stays on${hasCurl ? '' : ' (skipped: curl is not installed)'}`, async () => {
    const port = await freePort();
    const cwd = join(dir, 'tour');
    mkdirSync(cwd);
    // A config folder of its own, as a new user has: no announcement left by another test's server.
    const config = join(dir, 'tour-config');
    const shell = ptyShell({ ...env, LINKCTL_CONFIG_DIR: config }, rcfile, cwd);
    try {
      await shell.ready();
      await shell.run('stty cols 100 rows 40');
      for (const step of readmeTour()) {
        const line = step.line.replaceAll('8787', String(port));
        const { text, code } = await shell.run(line, 60_000);
        expect(code, `${line}\n${text}`).toBe(0);
        const lines = screen(text).map((l) => l.trimEnd());
        for (const shows of step.shows) expect(lines, line).toContain(shows.replaceAll('8787', String(port)));
        // A server started with & is there when a person types the next line: wait for it to announce itself.
        if (line.endsWith('&') || /&\s+#/.test(line)) await until(() => existsSync(join(config, 'sandbox-serve.json')));
      }
      expect(existsSync(join(cwd, 'qr-2-greeting.png'))).toBe(true);
      expect(modes((await shell.run('stty -a')).text)).toEqual({ echo: true, icanon: true });
    } finally {
      await shell.close();
    }
  });
});

/** The tour of docs/getting-started.md: its command lines (after `$ `), each with the output lines shown under it (`...` left out). */
function readmeTour(): Array<{ line: string; shows: string[] }> {
  const readme = readFileSync(new URL('../../docs/getting-started.md', import.meta.url), 'utf8');
  const block = /### A two-minute tour[\s\S]*?```console\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error('docs/getting-started.md has no ```console block under "### A two-minute tour"');
  const steps: Array<{ line: string; shows: string[] }> = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('$ ')) steps.push({ line: line.slice(2).trimEnd(), shows: [] });
    else if (line && line !== '...') steps.at(-1)!.shows.push(line);
  }
  return steps;
}

/** A port nothing listens on now (the README's 8787 may be taken on a shared machine). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Resolves once `condition` holds, checking every 50 ms, for at most 10 s. */
async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition(); waited += 50) {
    if (waited > 10_000) throw new Error(`still waiting for ${condition}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
