/**
 * The package a user installs: `npm pack` of a copy of the repository (so this test never
 * empties the dist/ other tests read), checked by `npm publish --dry-run`, installed with
 * `npm install -g --prefix` into a temporary folder, then run as `linkctl` and through
 * `npx <tarball>` in a clean folder with an empty npm cache (as on a user's machine: the runtime
 * dependencies come from the registry, nothing is built). Slow (a build and two installs);
 * needs npm's cache or the registry.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, tempDir } from './helpers.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const SLOW = 240_000;

const dir = tempDir('linkctl-package-');
const copy = join(dir, 'src');
const prefix = join(dir, 'prefix');
let tarball = '';
let packed: { files: Array<{ path: string }>; unpackedSize: number };

function npm(args: string[], cwd: string) {
  // npm's own environment (cache, registry, proxy) is kept: this is how the user runs it.
  const r = spawnSync(NPM, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' }, timeout: SLOW });
  if (r.status !== 0) throw new Error(`npm ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r;
}

function installed(args: string[]) {
  return spawnSync(join(prefix, 'bin', 'linkctl'), args, {
    encoding: 'utf8',
    env: cleanEnv({ LINKCTL_CONFIG_DIR: join(dir, 'config') }),
    timeout: 60_000,
  });
}

beforeAll(() => {
  cpSync(ROOT, copy, {
    recursive: true,
    filter: (src) => !/(^|\/)(node_modules|\.git|dist|\.vitest-cache)$/.test(src.slice(ROOT.length - 1)) && !src.endsWith('.tgz'),
  });
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  // A chunk left by an older build: packing must not ship it.
  mkdirSync(join(copy, 'dist', 'chunks'), { recursive: true });
  writeFileSync(join(copy, 'dist', 'chunks', 'stale-OLD.js'), 'export {};\n');
  const r = npm(['pack', '--json', '--pack-destination', dir], copy);
  packed = (JSON.parse(r.stdout) as Array<typeof packed & { filename: string }>)[0]!;
  tarball = join(dir, (JSON.parse(r.stdout) as Array<{ filename: string }>)[0]!.filename);
}, SLOW);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the npm package', () => {
  it('ships the built CLI, completions, README and LICENSE; no sources, tests or stale chunks; under 4 MB', () => {
    const files = packed.files.map((f) => f.path);
    for (const f of ['bin/linkctl.js', 'dist/linkctl.js', 'dist/complete.cjs', 'dist/help.txt', 'completions/linkctl.bash', 'man/linkctl.1', 'man/linkctl-link-add.1', 'README.md', 'LICENSE', 'package.json']) {
      expect(files).toContain(f);
    }
    // Only what users run: no sources, tests, build scripts, the action, the skill, source maps, or the build-time help renderer.
    expect(files.filter((f) => /^(src|test|scripts|\.ci|action|skills|examples)\//.test(f) || /\.ts$|\.map$|tsconfig|vitest|action\.yml|help-templates/.test(f))).toEqual([]);
    expect(files.filter((f) => f.includes('stale-OLD'))).toEqual([]);
    expect(packed.unpackedSize).toBeLessThan(4 * 1024 * 1024);
    // Packing changes nothing in the checkout but dist/.
    expect(readFileSync(join(copy, 'package.json'), 'utf8')).toBe(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  });

  it('npm publish --dry-run passes and would publish the same files', () => {
    // --ignore-scripts: the build npm pack made is the one checked (prepack would make it again).
    const r = npm(['publish', '--dry-run', '--ignore-scripts', '--json'], copy);
    const published = JSON.parse(r.stdout.slice(r.stdout.indexOf('{'))) as Record<string, { name: string; version: string; files: Array<{ path: string }> }>;
    const entry = Object.values(published)[0] ?? (published as unknown as { name: string; version: string; files: Array<{ path: string }> });
    expect(entry).toMatchObject({ name: 'linkctl', version: '0.1.0' });
    expect(entry.files.map((f) => f.path).sort()).toEqual(packed.files.map((f) => f.path).sort());
    // What npm says besides its notices: at most that a dry run is not logged in.
    expect(r.stderr.split('\n').filter((line) => /npm warn/i.test(line) && !/requires you to be logged in/.test(line))).toEqual([]);
  }, SLOW);

  it('LICENSE is the license package.json names', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { license: string };
    expect(pkg.license).toBe('MIT');
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
  });

  it('installs with npm install -g --prefix, running no install script, and the installed linkctl works', () => {
    const r = npm(['install', '-g', '--prefix', prefix, tarball, '--prefer-offline', '--no-audit', '--no-fund'], dir);
    expect(r.stderr).not.toMatch(/install script|install-scripts/i);
    const manifest = JSON.parse(readFileSync(join(prefix, 'lib', 'node_modules', 'linkctl', 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) expect(manifest.scripts?.[script], script).toBeUndefined();
    // Only what runs is installed: the bundled packages are not.
    const modules = join(prefix, 'lib', 'node_modules', 'linkctl', 'node_modules');
    expect(existsSync(join(modules, 'undici'))).toBe(true);
    for (const bundled of ['commander', 'ky', 'conf', 'chalk', 'ora', 'cli-table3']) expect(existsSync(join(modules, bundled)), bundled).toBe(false);

    // The man pages package.json lists are linked where man finds them (`man linkctl-link-add`).
    for (const page of ['linkctl.1', 'linkctl-link-add.1']) expect(existsSync(join(prefix, 'share', 'man', 'man1', page)), page).toBe(true);

    const version = installed(['--version']);
    expect(version.status, version.stderr).toBe(0);
    expect(version.stdout).toBe('0.1.0\n');
    const help = installed(['--help']);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^Usage: linkctl /);
    const list = installed(['--sandbox', 'qr', 'list', '--json']);
    expect(list.status, list.stderr).toBe(0);
    expect(Array.isArray(JSON.parse(list.stdout))).toBe(true);
    // The click history's SQLite (libsql, outside the bundle, with its prebuilt binary) works installed.
    expect(existsSync(join(modules, 'libsql'))).toBe(true);
    const snapshot = installed(['--sandbox', 'stats', 'snapshot', '--json']);
    expect(snapshot.status, snapshot.stderr).toBe(0);
    expect(JSON.parse(snapshot.stdout)).toMatchObject({ links: 2, qrs: 3, campaigns: 1, first: true });
    // The QR readers (resvg with its prebuilt binary, zxing-wasm with its .wasm) work installed: a code's content read from its SVG image.
    for (const reader of ['@resvg/resvg-js', 'zxing-wasm']) expect(existsSync(join(modules, reader)), reader).toBe(true);
    const read = installed(['--sandbox', 'qr', 'get', '3', '--json']);
    expect(read.status, read.stderr).toBe(0);
    expect(JSON.parse(read.stdout).content).toMatchObject({ type: 'wifi', data: { ssid: 'Guest' } });
  }, SLOW);

  it('the tarball npm pack leaves in a clone is ignored by git', () => {
    const name = tarball.slice(dir.length + 1);
    const r = spawnSync('git', ['check-ignore', '--no-index', name], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status, `${name} is not in .gitignore`).toBe(0);
  });

  it('runs with npx <tarball> in a clean folder with an empty npm cache, building nothing', () => {
    const clean = join(dir, 'clean');
    mkdirSync(clean);
    const env = { ...process.env, npm_config_update_notifier: 'false', npm_config_cache: join(dir, 'empty-cache'), npm_config_prefer_offline: 'false' };
    const npx = (args: string[]) => spawnSync(NPM, ['exec', '--yes', '--package', tarball, '--', 'linkctl', ...args], { cwd: clean, encoding: 'utf8', env: { ...env, LINKCTL_CONFIG_DIR: join(dir, 'npx-config') }, timeout: SLOW });
    const version = npx(['--version']);
    expect(version.status, version.stderr).toBe(0);
    expect(version.stdout.trim().split('\n').at(-1)).toBe('0.1.0');
    expect(version.stderr).not.toMatch(/npm warn|install-scripts|prepare|build/i);
    // The CLI itself (dist/ and its chunks, libsql from the registry) runs from the tarball as packed.
    const snapshot = npx(['--sandbox', 'stats', 'snapshot', '--json']);
    expect(snapshot.status, snapshot.stderr).toBe(0);
    expect(JSON.parse(snapshot.stdout)).toMatchObject({ links: 2, first: true });
    expect(existsSync(join(clean, 'node_modules'))).toBe(false);
  }, SLOW);
});
