/**
 * The real terminal paths that in-process tests fake: the built CLI runs in a pseudo-terminal
 * made by util-linux `script`, so the readline prompts of src/prompt.ts (hidden input, yes/no,
 * Ctrl-C) and the terminal table really run; and in real pipes, so `| head -1` closes stdout
 * early (EPIPE, handled in src/run.ts).
 *
 * What we write to script's stdin is typed into the pty. Each answer is written only once the
 * prompt text has appeared (readline has put the terminal in raw mode by then): typed earlier,
 * the pty itself would echo it, which says nothing about the hidden prompt. script's stdin
 * stays open until the command ends: at EOF, script types an end-of-file (Ctrl-D) into the pty,
 * which would answer a prompt. Waits are for text or conditions, never fixed sleeps.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, screen, sent, tempDir, useSandbox } from '../helpers.js';
import { startHttp, type Destinations } from './check-servers.js';

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
  /** Text that must appear in the terminal (after the previous step's), or a condition that must hold, before `send` is typed. */
  waitFor: string | (() => boolean);
  send: string;
}

interface PtyResult {
  code: number | null;
  /** Everything the terminal showed (stdout and stderr together, with \r\n line ends). */
  output: string;
}

const awaited = (step: Step) => (typeof step.waitFor === 'string' ? JSON.stringify(step.waitFor) : `the condition ${step.waitFor}`);

/** The terminal text without colours and cursor moves. */
const plain = (s: string) => s.replace(new RegExp(ANSI.source, 'g'), '');

/**
 * Runs `node bin/linkctl.js ...args` on a pseudo-terminal, typing each step's answer once its
 * text has appeared. `redirect` is appended to the shell command (e.g. `2>file`).
 */
function runPty(args: string[], options: { env: Record<string, string | undefined>; steps?: Step[]; redirect?: string; timeoutMs?: number; columns?: number }): Promise<PtyResult> {
  requireScript();
  // A pty made from pipes has no size (0 columns) unless told: `columns` gives it one, as a terminal window has.
  const size = options.columns ? `stty cols ${options.columns} rows 40; exec ` : '';
  const command = `${size}${[process.execPath, BIN, ...args].map(quote).join(' ')}${options.redirect ? ` ${options.redirect}` : ''}`;
  const steps = [...(options.steps ?? [])];
  return new Promise((resolve, reject) => {
    // The env of `script` is the env of the command in the pty. TERM as a user's terminal has it.
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: cleanEnv({ TERM: 'xterm', ...options.env }), stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    let seen = 0; // where the next step's text is looked for
    let scriptErr = '';
    const timer = setTimeout(() => {
      child.kill('SIGTERM'); // script ends the command in the pty too
      reject(new Error(`timed out${steps.length ? ` waiting for ${awaited(steps[0]!)}` : ''}; the terminal showed: ${JSON.stringify(output)}`));
    }, options.timeoutMs ?? 15_000);
    const advance = () => {
      while (steps.length) {
        const { waitFor, send } = steps[0]!;
        if (typeof waitFor === 'string') {
          const at = output.indexOf(waitFor, seen);
          if (at < 0) return;
          seen = at + waitFor.length;
        } else if (!waitFor()) return;
        steps.shift();
        child.stdin.write(send);
      }
    };
    const poll = setInterval(advance, 20); // for conditions that are not terminal text
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      output += d;
      advance();
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (scriptErr += d));
    child.on('error', (error) => {
      clearTimeout(timer);
      clearInterval(poll);
      reject(new Error(`cannot run util-linux \`script\`: ${error.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      clearInterval(poll);
      child.stdin.destroy();
      if (steps.length) reject(new Error(`the command ended (exit ${code}) before ${awaited(steps[0]!)}; the terminal showed: ${JSON.stringify(output)} ${scriptErr}`));
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

const fx = useSandbox();

describe('on a terminal', () => {
  /** A config folder of its own, so what a test saves (or does not) is its alone. */
  function freshConfig() {
    const dir = tempDir('linkctl-tty-');
    return { dir, file: join(dir, 'config.json'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
  }

  describe('auth login', () => {
    let config: ReturnType<typeof freshConfig>;
    beforeEach(() => void (config = freshConfig()));
    afterEach(() => config.cleanup());
    const login = (send: string) =>
      runPty(['auth', 'login', '--insecure-storage', '--base-url', fx.sandbox.url], { env: { LINKCTL_CONFIG_DIR: config.dir }, steps: [{ waitFor: 'API key: ', send }] });

    it('asks for the key on a hidden prompt, checks it and saves it', async () => {
      const key = fx.sandbox.key;
      const r = await login(`${key}\r`);
      expect(r.output).not.toContain(key);
      expect(plain(r.output)).toMatch(/^API key: \r\nLogged in to http:\/\/127\.0\.0\.1:\d+ as \S+ \(profile default, the default\); key \*+\w{4} in the config file\.\r\n$/);
      expect(r.code).toBe(0);
      expect(JSON.parse(readFileSync(config.file, 'utf8')).profiles.default).toEqual({ baseUrl: fx.sandbox.url, apiKey: key });
      expect(sent(fx.sandbox)).toEqual([{ method: 'GET', path: '/api/account', query: {}, body: undefined }]);
      expect(fx.sandbox.requests[0]!.headers.authorization).toBe(`Bearer ${key}`);
    });

    it('a local server typed without a scheme is offered back with http:// (not https://); Enter takes it', async () => {
      const hostPort = fx.sandbox.url.replace('http://', '');
      const offer = `Base URL [http://${hostPort}]: `;
      const r = await runPty(['auth', 'login', '--insecure-storage'], {
        env: { LINKCTL_CONFIG_DIR: config.dir },
        steps: [
          { waitFor: 'Base URL (the site root, e.g. https://links.example.com): ', send: `${hostPort}\r` },
          { waitFor: offer, send: '\r' },
          { waitFor: 'API key: ', send: `${fx.sandbox.key}\r` },
        ],
      });
      expect(r.code).toBe(0);
      expect(plain(r.output)).toContain(`"${hostPort}" has no scheme. Press Enter to use http://${hostPort}, or type the URL.`);
      expect(plain(r.output)).toMatch(new RegExp(`Logged in to http://${hostPort.replace(/\./g, '\\.')} as `));
      expect(JSON.parse(readFileSync(config.file, 'utf8')).profiles.default.baseUrl).toBe(fx.sandbox.url);
    });

    it('Ctrl-C at the prompt exits 130 on a line of its own, and saves and sends nothing', async () => {
      const r = await login('half-typed\u0003');
      expect(r.code).toBe(130);
      expect(plain(r.output)).toBe('API key: \r\nlinkctl: interrupted\r\n');
      expect(existsSync(config.file)).toBe(false);
      expect(sent(fx.sandbox)).toEqual([]);
    });

    it('Ctrl-D at the empty prompt is an empty key: exit 2, nothing saved or sent', async () => {
      const r = await login('\u0004');
      expect(r.code).toBe(2);
      expect(plain(r.output)).toBe('API key: \r\nlinkctl: API key must not be empty\r\nhint: type it at the prompt, then Enter\r\n');
      expect(existsSync(config.file)).toBe(false);
      expect(sent(fx.sandbox)).toEqual([]);
    });
  });

  describe('qr delete asks first', () => {
    const question = 'Delete QR code 1? [y/N] ';
    const deletes = () => sent(fx.sandbox).filter((q) => q.method === 'DELETE');

    it('answering n exits 2 and sends no DELETE; the answer shows, as typed', async () => {
      const r = await runPty(['qr', 'delete', '1'], { env: fx.env, steps: [{ waitFor: question, send: 'n\r' }] });
      expect(r.code).toBe(2);
      // The pty shows what readline echoes: the same check that finds no key above can fail.
      expect(plain(r.output)).toBe(`${question}n\r\r\nlinkctl: cancelled; nothing was changed\r\n`);
      expect(deletes()).toEqual([]);
    });

    it('answering y exits 0 and sends exactly one DELETE', async () => {
      const r = await runPty(['qr', 'delete', '1'], { env: fx.env, steps: [{ waitFor: question, send: 'y\r' }] });
      expect(r.code).toBe(0);
      expect(plain(r.output)).toMatch(/^Delete QR code 1\? \[y\/N\] y\r\r\n.*deleted.*\r\n$/);
      expect(deletes()).toEqual([{ method: 'DELETE', path: '/api/qr/1/delete', query: {}, body: undefined }]);
    });

    it('Ctrl-D is no: exit 2, no DELETE', async () => {
      const r = await runPty(['qr', 'delete', '1'], { env: fx.env, steps: [{ waitFor: question, send: '\u0004' }] });
      expect(r.code).toBe(2);
      expect(plain(r.output)).toBe(`${question}\r\nlinkctl: cancelled; nothing was changed\r\n`);
      expect(deletes()).toEqual([]);
    });

    it('Ctrl-C exits 130, no DELETE', async () => {
      const r = await runPty(['qr', 'delete', '1'], { env: fx.env, steps: [{ waitFor: question, send: '\u0003' }] });
      expect(r.code).toBe(130);
      expect(plain(r.output)).toBe(`${question}\r\nlinkctl: interrupted\r\n`);
      expect(deletes()).toEqual([]);
    });
  });

  it('account update --password asks on a hidden prompt and sends the password', async () => {
    const password = 'N3w-pass-phrase';
    const r = await runPty(['account', 'update', '--password'], { env: fx.env, steps: [{ waitFor: 'New password: ', send: `${password}\r` }, { waitFor: 'Repeat new password: ', send: `${password}\r` }] });
    expect(r.code).toBe(0);
    expect(r.output).not.toContain(password);
    expect(plain(r.output)).toMatch(/^New password: \r\nRepeat new password: \r\n.+\r\n$/);
    expect(sent(fx.sandbox)).toEqual([{ method: 'PUT', path: '/api/account/update', query: {}, body: { password } }]);
  });

  it('Ctrl-C while a request is in flight (a terminal sends SIGINT) exits 130', async () => {
    fx.sandbox.injectFault({ kind: 'hang' });
    const r = await runPty(['qr', 'list'], { env: fx.env, steps: [{ waitFor: () => fx.sandbox.requests.length > 0, send: '\u0003' }] });
    expect(r.code).toBe(130);
    expect(plain(r.output)).toMatch(/linkctl: interrupted\r\n$/);
    expect(r.output).not.toMatch(/unexpected error|\n\s+at /);
  });

  describe('qr list', () => {
    let config: ReturnType<typeof freshConfig>;
    beforeEach(() => void (config = freshConfig()));
    afterEach(() => config.cleanup());
    // Oldest first, as the product 7.7 lists codes (real-servers.md, fact 2); the wifi and text codes
    // count no scans: unknown, and a note says why (issue 55, 4).
    const table = /^ID {2}Name {13}Scans {4}Created {14}Image\r\n1 {3}Restaurant menu {2}128 .*\r\n2 {3}Greeting {9}unknown .*\r\n3 {3}Office wifi {6}unknown .*\r\n/;
    const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const note = 'Note: text, sms and wifi codes count no scans (their image holds the content, not a short link), so their scans are unknown; servers answer another link\'s clicks for them.';

    it('prints a table under a bold header, then the footer on stderr', async () => {
      const r = await runPty(['qr', 'list'], { env: fx.env });
      expect(r.code).toBe(0);
      expect(r.output).toMatch(/^\u001b\[1mID\u001b\[22m {2}\u001b\[1mName\u001b\[22m/);
      expect(plain(r.output)).toMatch(new RegExp(`${table.source}page 1 of 1, 3 results\\r\\n${escaped(note)}\\r\\n$`));
      // stderr to a file: the footer goes there, the table stays on the terminal.
      const errFile = join(config.dir, 'stderr.txt');
      const apart = await runPty(['qr', 'list'], { env: fx.env, redirect: `2>${quote(errFile)}` });
      expect(apart.code).toBe(0);
      expect(plain(apart.output)).toMatch(new RegExp(`${table.source}$`));
      expect(readFileSync(errFile, 'utf8')).toBe(`page 1 of 1, 3 results\n${note}\n`);
    });

    it('prints no ANSI codes with NO_COLOR', async () => {
      const r = await runPty(['qr', 'list'], { env: { ...fx.env, NO_COLOR: '1' } });
      expect(r.code).toBe(0);
      expect(r.output).not.toMatch(ANSI);
      expect(r.output).toMatch(new RegExp(`${table.source}page 1 of 1, 3 results\\r\\n${escaped(note)}\\r\\n$`));
    });
  });
});

describe('tables at 80 columns', () => {
  let dir: string;
  beforeEach(() => void (dir = tempDir('linkctl-table-')));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('link list: a column that does not fit is left out with a note naming it and the --fields that shows it; every destination keeps its scheme', async () => {
    const headers = { Authorization: `Bearer ${fx.sandbox.key}`, 'Content-Type': 'application/json' };
    // A destination far wider than 80 columns, on plain http: it is cut, but never to look like https.
    const long = 'http://shop.example.com/collections/autumn/products/a-very-long-product-name-that-goes-on-1234';
    await fetch(`${fx.sandbox.url}/api/url/add`, { method: 'POST', headers, body: JSON.stringify({ url: long, custom: 'autumn' }) });
    const errFile = join(dir, 'stderr.txt');
    const r = await runPty(['link', 'list'], { env: { ...fx.env, NO_COLOR: '1' }, columns: 80, redirect: `2>${quote(errFile)}` });
    expect(r.code).toBe(0);
    const lines = screen(r.output).filter(Boolean);
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(lines[0]).toMatch(/^ID {2}Short URL +Destination +Clicks$/);
    // Each row whole on its line: its id first, its click count last (no wrapped cell).
    expect(lines.slice(1).map((l) => /^(\d+) .* (\d+)$/.exec(l)?.[1])).toEqual(['3', '2', '1']);
    const destinations = lines.slice(1).map((l) => l.split(/ {2,}/)[2]!);
    // The seeded destinations fit and show whole; the long one keeps http:// and its end.
    expect(destinations.slice(1)).toEqual(['https://sandbox.localhost/sale', 'https://sandbox.localhost/docs']);
    expect(destinations[0]).toMatch(/^http:\/\/shop\.example\.com.*…[^…]*-1234$/);
    expect(readFileSync(errFile, 'utf8')).toBe('not shown at 80 columns: Created (--fields id,date shows it)\npage 1 of 1, 3 results\n');

    // What the note says works: the column comes back, and nothing is left out then.
    const asked = await runPty(['link', 'list', '--fields', 'id,date'], { env: { ...fx.env, NO_COLOR: '1' }, columns: 80, redirect: `2>${quote(errFile)}` });
    expect(screen(asked.output).filter(Boolean)[0]).toMatch(/^ID {2}Created$/);
    expect(readFileSync(errFile, 'utf8')).toBe('page 1 of 1, 3 results\n');
  });

  it('a table that fits shrinks nothing and says nothing (link list at 120 columns)', async () => {
    const errFile = join(dir, 'stderr.txt');
    const r = await runPty(['link', 'list'], { env: { ...fx.env, NO_COLOR: '1' }, columns: 120, redirect: `2>${quote(errFile)}` });
    expect(screen(r.output).filter(Boolean)[0]).toMatch(/^ID {2}Short URL +Destination +Clicks {2}Created$/);
    expect(r.output).not.toContain('…');
    expect(readFileSync(errFile, 'utf8')).toBe('page 1 of 1, 2 results\n');
  });
});

describe('bulk progress with stdout redirected to a file (`link add --from big.csv > out.csv`)', () => {
  const rows = (n: number) => `url\n${Array.from({ length: n }, (_, i) => `https://example.com/progress-${i + 1}`).join('\n')}\n`;
  let dir: ReturnType<typeof freshDir>;
  const freshDir = () => {
    const path = tempDir('linkctl-progress-');
    return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
  };
  beforeEach(() => void (dir = freshDir()));
  afterEach(() => dir.cleanup());

  describe('stderr the terminal: one live line', () => {
    // Five requests a second: 20 rows (and the one list request) take four windows, three waits at least.
    const limited = useSandbox({ rateLimit: { limit: 5, windowSeconds: 1 } });

    it('is cleared before other messages, moves through the waits, counts them in its ETA; the file gets only the rows', async () => {
      writeFileSync(join(dir.path, 'big.csv'), rows(20));
      const out = join(dir.path, 'out.csv');
      const r = await runPty(['link', 'add', '--from', join(dir.path, 'big.csv')], { env: limited.env, redirect: `> ${quote(out)}`, columns: 120, timeoutMs: 30_000 });
      expect(r.code).toBe(0);
      expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(20);
      expect(readFileSync(out, 'utf8')).not.toMatch(/rows|waiting|\u001b/);
      // What stays on the screen: the summary alone, at the start of its line (the live line was cleared).
      expect(screen(r.output).filter(Boolean)).toEqual([`${join(dir.path, 'big.csv')}: 20 of 20 rows done (20 created)`]);
      const frames = [...r.output.matchAll(/(\d+) of 20 rows, [\d.]+\/s(?:, ETA (?:(\d+) min )?(\d+) s)?[^\u001b\r\n]*/g)];
      // During a wait the line counts it down: one row count, several wait times.
      const waitsShown = frames.map((f) => /waiting ([\d.]+) s/.exec(f[0])?.[1]).filter(Boolean);
      expect(new Set(waitsShown).size).toBeGreaterThan(2);
      // Before the first wait the rows come at once; the ETA still counts the three windows to come.
      const early = frames.find((f) => Number(f[1]) >= 1 && Number(f[1]) <= 4 && f[3] !== undefined);
      expect(early, JSON.stringify(frames.map((f) => f[0]))).toBeDefined();
      expect(Number(early![2] ?? 0) * 60 + Number(early![3])).toBeGreaterThanOrEqual(2);
      expect(r.output).toMatch(/rate-limit waits?/);
    });
  });

  describe('stderr a file too: whole lines, at most one every 10 s', () => {
    // Five requests per 14 s window: the sixth request (the fifth row) waits 13 to 14 s, through a
    // 10 s mark with room to spare on a busy machine.
    const slow = useSandbox({ rateLimit: { limit: 5, windowSeconds: 14 } });

    it('writes a progress line during a long wait, and nothing on the terminal', async () => {
      writeFileSync(join(dir.path, 'big.csv'), rows(6));
      const [out, err] = [join(dir.path, 'out.csv'), join(dir.path, 'err.txt')];
      const r = await runPty(['link', 'add', '--from', join(dir.path, 'big.csv')], { env: slow.env, redirect: `> ${quote(out)} 2> ${quote(err)}`, columns: 120, timeoutMs: 40_000 });
      expect(r.code).toBe(0);
      expect(r.output).toBe('');
      expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(6);
      const lines = readFileSync(err, 'utf8').split('\n');
      expect(lines.at(-1)).toBe('');
      expect(lines.filter((l) => /^waiting \d+ s: the rate-limit window is used up/.test(l))).toHaveLength(1);
      const progress = lines.filter((l) => l.startsWith('progress: '));
      expect(progress).toHaveLength(1);
      expect(progress[0]).toMatch(/^progress: 4 of 6 rows, [\d.]+\/s, ETA \d+ s, 1 rate-limit wait; waiting \d(\.\d)? s: the rate-limit window is used up/);
      expect(readFileSync(err, 'utf8')).not.toMatch(/[\r\u001b]/);
      expect(lines.at(-2)).toBe(`${join(dir.path, 'big.csv')}: 6 of 6 rows done (6 created)`);
    });
  });
});

describe('apply progress', () => {
  // Five requests a second: 12 creates (after the reads) take a few windows, so the line is seen moving.
  const limited = useSandbox({ rateLimit: { limit: 5, windowSeconds: 1 } });
  let dir: string;
  beforeEach(() => void (dir = tempDir('linkctl-apply-')));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const file = () => {
    const path = join(dir, 'account.yaml');
    const links = Array.from({ length: 12 }, (_, i) => `  - alias: step-${i + 1}\n    url: https://example.com/step-${i + 1}\n`).join('');
    writeFileSync(path, `version: 1\nlinks:\n${links}`);
    return path;
  };
  const creates = () => limited.sandbox.requests.filter((q) => q.method === 'POST' && q.path === '/api/url/add');

  it('on a terminal: one line on stderr with "N of M steps", the pace and an ETA, cleared at the end', async () => {
    const out = join(dir, 'out.txt');
    const r = await runPty(['apply', '-f', file(), '--yes'], { env: limited.env, redirect: `> ${quote(out)}`, columns: 120, timeoutMs: 30_000 });
    expect(r.code, r.output).toBe(0);
    expect(creates()).toHaveLength(12);
    const frames = [...r.output.matchAll(/(\d+) of 12 steps, [\d.]+\/s(?:, ETA (?:\d+ min )?(\d+) s)?[^:\u001b\r\n]*: \+ link (step-\d+)/g)];
    // The line moves on (the spinner redraws a few times a second, so not every step is drawn): each
    // frame counts the steps finished before the link it names, and has an ETA once one step is done.
    const shown = [...new Set(frames.map((f) => f[3]))];
    expect(shown.length, JSON.stringify(frames.map((f) => f[0]))).toBeGreaterThanOrEqual(3);
    for (const f of frames) expect(`step-${Number(f[1]) + 1}`, f[0]).toBe(f[3]);
    expect(frames.filter((f) => f[1] !== '0').every((f) => f[2] !== undefined)).toBe(true);
    const counts = frames.map((f) => Number(f[1]));
    expect(counts).toEqual([...counts].sort((a, b) => a - b));
    // The line was cleared: the screen keeps the plan only; the result went to the file.
    expect(screen(r.output).filter(Boolean).some((l) => / steps, /.test(l))).toBe(false);
    expect(readFileSync(out, 'utf8')).toBe('Applied: 12 added, 0 changed, 0 deleted.\n');
  });

  it('with NO_COLOR: the progress line is drawn without colour (the spinner too), as is everything else', async () => {
    // stdout on the terminal too: ora's chalk decides colour by stdout, and would colour the spinner
    const r = await runPty(['apply', '-f', file(), '--yes'], { env: { ...limited.env, NO_COLOR: '1' }, columns: 120, timeoutMs: 30_000 });
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/\d+ of 12 steps/);
    // no SGR sequence at all (cursor moves and line clears are not colour)
    expect(r.output).not.toMatch(/\u001b\[[0-9;]*m/);
  });

  it('off a terminal: no progress line at all', async () => {
    const r = await runCli(['apply', '-f', file(), '--yes'], { env: limited.env, timeoutMs: 30_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(creates()).toHaveLength(12);
    expect(r.stderr).not.toMatch(/steps|progress|ETA/);
  });
});

describe('in a pipe that closes early (EPIPE)', () => {
  // Each pipeline reports linkctl's own exit code on stderr, after whatever linkctl wrote there.
  const status = '; echo "linkctl exit ${PIPESTATUS[0]}" >&2';

  it('`qr list --all --limit 1 -o ndjson | head -1` prints one record and no error', async () => {
    // head exits after the first line, while linkctl fetches pages 2 and 3: their lines meet a closed pipe.
    const r = await runShell(`linkctl qr list --all --limit 1 -o ndjson | head -1${status}`, fx.env);
    expect(r.stderr).toBe('linkctl exit 0\n');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!).name).toBe('Restaurant menu'); // the oldest first
  });

  it('a reader gone before the first byte (`| true`) is no error either', async () => {
    // `true` exits long before node has started, so the first write always meets a closed pipe.
    for (const args of ['qr list -o ndjson', 'qr list --help']) {
      const r = await runShell(`linkctl ${args} | true${status}`, fx.env);
      expect(r.stderr, args).toBe('linkctl exit 0\n');
    }
  });

  it('`--help | head -1` prints the usage line and no error', async () => {
    const r = await runShell(`linkctl --help | head -1${status}`, fx.env);
    expect(r.stdout).toBe('Usage: linkctl [options] [command]\n');
    expect(r.stderr).toBe('linkctl exit 0\n');
    const piped = await runShell(`linkctl --help | true${status}`, fx.env);
    expect(piped.stderr).toBe('linkctl exit 0\n');
  });
});

describe('check on a terminal, as people read it (a pseudo-terminal of 80 and of 120 columns)', () => {
  let http: Destinations;
  beforeAll(async () => {
    http = await startHttp();
  });
  afterAll(() => http?.close());
  /** A destination longer than either terminal is wide: it must be shown whole, wrapped. */
  const LONG = '/notfound?campaign=spring-sale-2025&utm_source=newsletter&utm_medium=email&utm_content=hero-banner-button-variant-b';

  async function addLinks(): Promise<void> {
    const headers = { Authorization: `Bearer ${fx.sandbox.key}`, 'Content-Type': 'application/json' };
    const call = async (path: string, method: string, body?: unknown) => {
      const res = await fetch(`${fx.sandbox.url}/api/${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const json = (await res.json()) as { error: unknown };
      if (json.error) throw new Error(`${path}: ${JSON.stringify(json)}`);
    };
    // The seeded links point at example.com: gone, so that nothing asks DNS about a real name.
    for (const id of [1, 2]) await call(`url/${id}/delete`, 'DELETE');
    for (let i = 0; i < 6; i++) await call('url/add', 'POST', { url: `${http.origin}/ok?n=${i}`, custom: `healthy-${i}` });
    await call('url/add', 'POST', { url: `${http.origin}${LONG}`, custom: 'spring-newsletter-hero' });
    await call('url/add', 'POST', { url: `http://127.0.0.2:${http.port}/admin`, custom: 'intranet' });
    await call('url/add', 'POST', { url: `${http.origin}/fail`, custom: 'checkout-flow' });
  }

  it.each([80, 120])('at %i columns: a summary, then the problems worst first with their destinations whole; no line wider than the terminal', async (columns) => {
    await addLinks();
    const r = await runPty(['check'], { env: { ...fx.env, LINKCTL_CONFIG_DIR: tempDir('linkctl-tty-'), LINKCTL_CHECK_ALLOW_PRIVATE: '127.0.0.1' }, columns, timeoutMs: 30_000 });
    expect(r.code).toBe(0);
    expect(r.output).toMatch(ANSI); // a terminal: colours
    const lines = screen(r.output);
    for (const line of lines) expect(line.length, `${JSON.stringify(line)} is wider than ${columns} columns`).toBeLessThanOrEqual(columns);
    const start = lines.findIndex((l) => l.startsWith('Checked 9 destinations of 9 links in '));
    expect(start).toBeGreaterThanOrEqual(0);
    const rest = lines.slice(start);
    const summary = rest.slice(rest.indexOf('') + 1, rest.indexOf('', rest.indexOf('') + 1));
    expect(summary.map((l) => l.trim().split(/\s+/).slice(0, 2).join(' '))).toEqual(['1 client-error', '1 server-error', '1 blocked', '6 ok', '9 insecure']);
    // The problems, the worst first, each a block: its status and link, its destination (wrapped), one line of detail.
    const blocks = rest.join('\n').split('\n\n').filter((b) => /^(server-error|client-error|blocked) /.test(b)).map((b) => b.split('\n'));
    // The first lines: the status, the link and its short URL (on the next line, under the link, when it does not fit).
    const arrow = (b: string[]) => b.findIndex((l) => l.startsWith('  → '));
    expect(blocks.map((b) => b.slice(0, arrow(b)).map((l) => l.trim()).join(' ').replace(/link \d+/, 'link N').replace(/\s+/g, ' '))).toEqual([
      `client-error link N spring-newsletter-hero ${fx.sandbox.url}/spring-newsletter-hero`,
      `server-error link N checkout-flow ${fx.sandbox.url}/checkout-flow`,
      `blocked link N intranet ${fx.sandbox.url}/intranet`,
    ]);
    // Then the destination after an arrow, wrapped over as many lines as it needs, then one line of detail.
    const destinations = blocks.map((b) => b.slice(arrow(b), -1).map((l) => l.replace(/^ {2}→ | {4}/, '')).join(''));
    expect(destinations).toEqual([`${http.origin}${LONG}`, `${http.origin}/fail`, `http://127.0.0.2:${http.port}/admin`]);
    expect(blocks.map((b) => b.at(-1)!.trim())).toEqual(['HTTP 404; flags: insecure', 'HTTP 500; flags: insecure', '127.0.0.2 is a loopback address; not requested; flags: insecure']);
    expect(blocks[0]!.length).toBeGreaterThan(3); // the long destination took more than one line
    expect(rest.join(' ').replace(/\s+/g, ' ')).toContain('6 healthy destinations are not listed: --all lists them, --json gives every field.');
  });
});
