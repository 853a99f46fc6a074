/**
 * Start-up loads little (design.md, "Import lazily"): `--version`, `--help` and
 * `completion bash` load none of ky, conf, ora, cli-table3, chalk or the sandbox, and a
 * command given its key and base URL in the environment never loads conf. Not timed:
 * `npm run bench` times start-up.
 *
 * How: the built CLI runs under a module `load` hook (module.register, `--import`) that
 * appends every module URL it loads to a file. A loaded dist/ chunk is mapped to the source
 * files bundled into it through its own source map (written beside it by every build, so
 * the mapping always matches the chunk that ran, even while someone else rebuilds).
 * Run after a build (`npm test` builds first).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, tempDir, useSandbox } from './helpers.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// node_modules anywhere in the path: a linked or hoisted node_modules resolves outside the repository.
// The MCP SDK (and zod, which it uses) load only for `linkctl mcp`; the keychain only when a profile's key is in it.
// The click-history database drivers (libsql, pg) and its code load only for `stats` and `check` (src/history/kinds.ts: names the definitions show); the QR readers (resvg, zxing-wasm) only for commands that read QR images.
// The sandbox's enumerations (src/sandbox/types.ts: plans, QR image forms) are data its help shows, not sandbox code.
const FORBIDDEN = [/(^|\/)node_modules\/(ky|conf|ora|cli-table3|chalk|@napi-rs\/keyring|@modelcontextprotocol\/sdk|zod|libsql|@libsql\/[^/]+|pg|jsqr|@resvg\/[^/]+|zxing-wasm|yaml|csv-parse|hyparquet[^/]*)\//, /^src\/sandbox\/(?!types\.ts$)/, /^src\/mcp\//, /^src\/history\/(?!kinds\.ts$)/];
const fromPackage = (files: string[], name: string) => files.some((f) => f.includes(`node_modules/${name}/`));

// The hook runs off the main thread (Node 20), so it appends to a file rather than sharing memory.
const dir = tempDir('linkctl-startup-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(
  join(dir, 'hooks.mjs'),
  `import { appendFileSync } from 'node:fs';
let file;
export function initialize(data) { file = data.file; }
export async function load(url, context, next) { appendFileSync(file, url + '\\n'); return next(url, context); }
`,
);
// require() (the keychain's native addon is loaded with createRequire) does not pass the ESM
// hook on Node 20: Module._load is wrapped to log it too.
writeFileSync(
  join(dir, 'register.mjs'),
  `import Module, { register } from 'node:module';
import { appendFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const file = process.env.LINKCTL_TEST_LOADED_LOG;
register('./hooks.mjs', import.meta.url, { data: { file } });
const load = Module._load;
Module._load = function (request, parent, isMain) {
  const result = load.apply(this, arguments);
  try { if (!Module.isBuiltin(request) && !request.endsWith('.json')) appendFileSync(file, pathToFileURL(Module._resolveFilename(request, parent, isMain)).href + '\\n'); } catch {}
  return result;
};
`,
);

let runs = 0;

interface Loaded {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Files that ran, relative to the repository: dist/ chunks and their bundled sources, node_modules, bin. */
  files: string[];
}

/** Runs `node <args>` (the CLI) in a clean environment under the hook; reports what it loaded. */
function loading(args: string[], env: Record<string, string | undefined> = {}, stdin?: string): Promise<Loaded> {
  const log = join(dir, `loaded-${++runs}.txt`);
  writeFileSync(log, '');
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, ['--import', pathToFileURL(join(dir, 'register.mjs')).href, ...args], {
      cwd: ROOT,
      env: cleanEnv({ ...env, LINKCTL_TEST_LOADED_LOG: log }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.end(stdin ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const urls = readFileSync(log, 'utf8').split('\n').filter((u) => u.startsWith('file:'));
      done({ code, stdout, stderr, files: [...new Set(urls.flatMap(sourcesOf))] });
    });
  });
}

/** A loaded file, or for a dist/ chunk the chunk and every source file bundled into it. */
function sourcesOf(url: string): string[] {
  const file = fileURLToPath(url);
  const rel = relative(ROOT, file);
  if (!rel.startsWith('dist/')) return [rel];
  const mapFile = `${file}.map`;
  if (!existsSync(mapFile)) throw new Error(`${rel} has no source map: rebuild (node scripts/build.mjs)`);
  const map = JSON.parse(readFileSync(mapFile, 'utf8')) as { sources: string[]; sourceRoot?: string };
  return [rel, ...map.sources.map((s) => relative(ROOT, resolve(dirname(file), map.sourceRoot ?? '', s)))];
}

const forbidden = (files: string[]) => files.filter((f) => FORBIDDEN.some((re) => re.test(f)));

/** The CLI's own top-level help, rendered without bin/linkctl.js (so without its fast path). */
const CLI_HELP = ['--input-type=module', '-e', "const { run } = await import('./dist/linkctl.js'); await run(['--help']);"];

describe('start-up loads only what the command needs', () => {
  it('--version and -V load nothing of the CLI at all', async () => {
    for (const flag of ['--version', '-V']) {
      const r = await loading([BIN, flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}\n`);
      expect(r.files.filter((f) => f !== 'bin/linkctl.js')).toEqual([]);
    }
  });

  it('--help and -h print the help rendered at build time, identical to the CLI\'s, loading nothing of the CLI', async () => {
    const cli = await loading(CLI_HELP);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(/^Usage: linkctl /);
    for (const flag of ['--help', '-h']) {
      const r = await loading([BIN, flag]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(cli.stdout); // a stale dist/help.txt fails here: rebuild
      expect(r.files.filter((f) => f !== 'bin/linkctl.js')).toEqual([]);
    }
  });

  it('the CLI\'s own help (the fallback when dist/help/ is missing) loads commander and the definitions only', async () => {
    const cliHelp = (argv: string[]) => ['--input-type=module', '-e', `const { run } = await import('./dist/linkctl.js'); await run(${JSON.stringify(argv)});`];
    for (const args of [CLI_HELP, cliHelp(['qr', '--help']), cliHelp(['link', 'list', '--help']), cliHelp(['mcp', '--help'])]) {
      const r = await loading(args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^Usage: linkctl/);
      expect(fromPackage(r.files, 'commander')).toBe(true); // the hook and the mapping see into the bundle
      expect(forbidden(r.files), `${args.at(-1)}: loaded at start-up`).toEqual([]);
    }
  });

  it('a command\'s help (--help, -h, help <command>) is served from dist/help/, loading nothing of the CLI', async () => {
    for (const args of [['qr', '--help'], ['link', 'list', '-h'], ['help', 'qr', 'add']]) {
      const r = await loading([BIN, ...args]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^Usage: linkctl (qr|link list\|ls|qr add) /);
      expect(r.files.filter((f) => f !== 'bin/linkctl.js')).toEqual([]);
    }
  });

  it('completion bash loads none of the API, output, config or sandbox modules', async () => {
    const r = await loading([BIN, 'completion', 'bash']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('linkctl');
    expect(fromPackage(r.files, 'commander')).toBe(true);
    expect(forbidden(r.files), 'loaded at start-up').toEqual([]);
  });
});

describe('the MCP server', () => {
  it('linkctl mcp loads the SDK (the control: the mapping sees it), and stops when its stdin ends', async () => {
    const r = await loading([BIN, 'mcp'], { LINKCTL_SANDBOX: '1', LINKCTL_CONFIG_DIR: join(dir, 'mcp-config') });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(''); // no client spoke: nothing but protocol messages goes to stdout
    expect(fromPackage(r.files, '@modelcontextprotocol/sdk')).toBe(true);
    expect(r.files).toContain('src/mcp/server.ts');
  });
});

describe('a key and base URL from the environment', () => {
  const fx = useSandbox();

  it('qr list loads ky but never conf (nor the sandbox, chalk, ora or cli-table3 for --json)', async () => {
    const r = await loading([BIN, 'qr', 'list', '--json'], { ...fx.env, LINKCTL_CONFIG_DIR: join(dir, 'no-config') });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toBeTruthy();
    // the list, then each code read once to learn whether it counts scans (issue 55, 4; src/qr/scans.ts)
    expect(fx.sandbox.requests.map((q) => `${q.method} ${q.path}`).sort()).toEqual(['GET /api/qr', 'GET /api/qr/1', 'GET /api/qr/2', 'GET /api/qr/3']);
    // ky is the control: the hook and the mapping do see lazily loaded packages.
    expect(fromPackage(r.files, 'ky')).toBe(true);
    expect(forbidden(r.files).filter((f) => !f.includes('node_modules/ky/')), 'loaded by qr list').toEqual([]);
    expect(existsSync(join(dir, 'no-config'))).toBe(false);
  });

  it('the history database library loads for `stats` only (the control: the mapping sees it)', async () => {
    const db = join(dir, 'history.db');
    const snapshot = await loading([BIN, 'stats', 'snapshot', '-q'], { ...fx.env, LINKCTL_DB: db, LINKCTL_CONFIG_DIR: join(dir, 'stats-config') });
    expect(snapshot.code, snapshot.stderr).toBe(0);
    expect(fromPackage(snapshot.files, 'libsql')).toBe(true);
    expect(snapshot.files).toContain('src/history/store.ts');
    expect(fromPackage(snapshot.files, 'pg')).toBe(false); // PostgreSQL's driver only for a postgres:// --db
  });

  it('a write without a policy does not load the YAML parser; with a policy file it does (the control)', async () => {
    const add = (extra: Record<string, string>) => loading([BIN, 'link', 'add', 'https://example.org/startup', '--json'], { ...fx.env, LINKCTL_CONFIG_DIR: join(dir, 'yaml-config'), ...extra });
    const plain = await add({});
    expect(plain.code, plain.stderr).toBe(0);
    expect(fromPackage(plain.files, 'yaml')).toBe(false);
    const policy = join(dir, 'policy.yaml');
    writeFileSync(policy, 'version: 1\nrules:\n  forbid-insecure: true\n');
    const governed = await add({ LINKCTL_POLICY: policy });
    expect(governed.code, governed.stderr).toBe(0);
    expect(fromPackage(governed.files, 'yaml')).toBe(true);
  });

  it('the keychain library loads only to read or write a key in the keychain', async () => {
    const config = join(dir, 'keychain-config');
    // The control: logging in tries the keychain (without a D-Bus session it falls back to the file).
    const login = await loading([BIN, 'auth', 'login', '--with-token', '--no-verify', '--base-url', fx.sandbox.url], { LINKCTL_CONFIG_DIR: config }, fx.sandbox.key);
    expect(login.code, login.stderr).toBe(0);
    expect(fromPackage(login.files, '@napi-rs/keyring')).toBe(true);
    // A key from the environment, or one kept in the file, loads nothing of it.
    const env = await loading([BIN, 'qr', 'list', '--json'], { ...fx.env, LINKCTL_CONFIG_DIR: config });
    expect(env.code, env.stderr).toBe(0);
    expect(fromPackage(env.files, '@napi-rs/keyring')).toBe(false);
    const file = await loading([BIN, 'qr', 'list', '--json'], { LINKCTL_CONFIG_DIR: config });
    expect(file.code, file.stderr).toBe(0);
    expect(fromPackage(file.files, '@napi-rs/keyring')).toBe(false);
    // A profile whose key is in the keychain, with LINKCTL_API_KEY set: the base URL comes from the file, the key is not looked up.
    const keychainConfig = join(dir, 'keychain-profile');
    mkdirSync(keychainConfig);
    writeFileSync(join(keychainConfig, 'config.json'), JSON.stringify({ defaultProfile: 'default', profiles: { default: { baseUrl: fx.sandbox.url, keyStore: 'keychain' } } }));
    const envKey = await loading([BIN, 'qr', 'list', '--json'], { LINKCTL_CONFIG_DIR: keychainConfig, LINKCTL_API_KEY: fx.sandbox.key });
    expect(envKey.code, envKey.stderr).toBe(0);
    expect(fromPackage(envKey.files, '@napi-rs/keyring')).toBe(false);
    // Without it, the key is looked up (and, with no keychain reachable here, that is exit 7 naming the profile).
    const lookedUp = await loading([BIN, 'qr', 'list', '--json'], { LINKCTL_CONFIG_DIR: keychainConfig });
    expect(fromPackage(lookedUp.files, '@napi-rs/keyring')).toBe(true);
    if (process.platform === 'linux') {
      expect(lookedUp.code).toBe(7);
      expect(lookedUp.stderr).toMatch(/^linkctl: cannot read the key of profile "default" from the system keychain \(.+\)\nhint: /);
    }
  });
});
