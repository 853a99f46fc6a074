/**
 * Keys in a real system keychain: the Secret Service of gnome-keyring-daemon, started inside a
 * private D-Bus session (`dbus-run-session`), with its keyring in a temporary home. The built
 * CLI runs there as a user would; a separate process reads the store directly through
 * @napi-rs/keyring to check that the key is in it, and the config file shows it is not there.
 * Skipped when gnome-keyring-daemon, dbus-run-session or dbus-send is not installed (.ci/run installs
 * them best-effort, as apt packages gnome-keyring and dbus).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, tempDir, useSandbox } from '../helpers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const available = process.platform === 'linux' && has('dbus-run-session') && has('dbus-send') && has('gnome-keyring-daemon');

interface Step {
  code: number;
  stdout: string;
  stderr: string;
  /** The profile's entry read straight from the store after the step. */
  stored: string | null;
  /** The config file after the step. */
  config?: unknown;
}

/**
 * Runs `steps` (name, linkctl arguments, stdin) one after the other in one D-Bus session with
 * a fresh unlocked keyring; after each, `lookup` reads the profile's entry straight from the store.
 */
async function inKeyringSession(dir: string, env: Record<string, string>, steps: Array<{ name: string; args: string[]; stdin?: string }>): Promise<Record<string, Step>> {
  const out = join(dir, 'out');
  mkdirSync(out, { recursive: true });
  const lookup = join(dir, 'lookup.cjs');
  // The same entry linkctl uses: service linkctl:<config file>, account = profile.
  writeFileSync(
    lookup,
    `const { Entry } = require(${JSON.stringify(join(ROOT, 'node_modules/@napi-rs/keyring'))});
const entry = new Entry('linkctl:' + process.env.LINKCTL_CONFIG_DIR + '/config.json', 'default', { linux: { store: 'secret-service' } });
process.stdout.write(JSON.stringify(entry.getPassword()));`,
  );
  const lines = [
    'set -u',
    // A new login keyring, unlocked with a throwaway password, in the temporary home. In the
    // foreground, as a child of this script, so it is stopped at the end (daemonized, it outlives the session).
    `printf 'throwaway\\n' > "${dir}/unlock"`,
    `gnome-keyring-daemon --foreground --unlock --components=secrets < "${dir}/unlock" >/dev/null 2>&1 &`,
    'KEYRING=$!',
    'trap \'kill $KEYRING 2>/dev/null; wait $KEYRING 2>/dev/null\' EXIT',
    // Wait until it owns the Secret Service name on the bus.
    'for i in $(seq 100); do dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q true && break; sleep 0.05; done',
  ];
  for (const [i, step] of steps.entries()) {
    writeFileSync(join(out, `${i}.in`), step.stdin ?? '');
    const args = step.args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    lines.push(`"${process.execPath}" "${BIN}" ${args} < "${out}/${i}.in" > "${out}/${i}.out" 2> "${out}/${i}.err"; echo $? > "${out}/${i}.code"`);
    lines.push(`"${process.execPath}" "${lookup}" > "${out}/${i}.stored" 2>&1`);
    lines.push(`cp "${env.LINKCTL_CONFIG_DIR}/config.json" "${out}/${i}.config" 2>/dev/null || true`);
  }
  const script = join(dir, 'session.sh');
  writeFileSync(script, `${lines.join('\n')}\n`);
  const home = join(dir, 'home');
  mkdirSync(home, { recursive: true });
  // Not spawnSync: the sandbox answering the CLI runs in this process.
  await new Promise<void>((resolve, reject) => {
    const child = spawn('dbus-run-session', ['--', 'bash', script], {
      env: cleanEnv({ ...env, HOME: home, XDG_DATA_HOME: join(home, 'data'), XDG_RUNTIME_DIR: home }),
      stdio: 'ignore',
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', () => (clearTimeout(timer), resolve()));
  });
  const results: Record<string, Step> = {};
  for (const [i, step] of steps.entries()) {
    const read = (ext: string) => (existsSync(join(out, `${i}.${ext}`)) ? readFileSync(join(out, `${i}.${ext}`), 'utf8') : '');
    const stored = read('stored');
    results[step.name] = {
      code: Number(read('code')),
      stdout: read('out'),
      stderr: read('err'),
      stored: stored.startsWith('"') || stored === 'null' ? (JSON.parse(stored) as string | null) : `lookup failed: ${stored}`,
      config: read('config') ? JSON.parse(read('config')) : undefined,
    };
  }
  return results;
}

describe.skipIf(!available)('keys in a real Secret Service (gnome-keyring-daemon in dbus-run-session)', () => {
  const fx = useSandbox();
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('login stores the key in the keychain, not the file; commands read it; an old file key moves; --insecure-storage and logout take it out', async () => {
    const dir = tempDir('linkctl-keychain-');
    dirs.push(dir);
    const configDir = join(dir, 'config');
    mkdirSync(configDir, { mode: 0o700 });
    // A profile saved by an older linkctl: its key in the file.
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ defaultProfile: 'default', profiles: { default: { baseUrl: fx.sandbox.url, apiKey: fx.sandbox.key } } }), { mode: 0o600 });
    const env = { LINKCTL_CONFIG_DIR: configDir };
    const key = fx.sandbox.key;
    const r = await inKeyringSession(dir, env, [
      { name: 'old', args: ['qr', 'list', '--json'] },
      { name: 'login', args: ['auth', 'login', '--with-token'], stdin: key },
      { name: 'status', args: ['auth', 'status', '--json'] },
      { name: 'list', args: ['qr', 'list', '--json'] },
      { name: 'token', args: ['auth', 'token'] },
      { name: 'insecure', args: ['auth', 'login', '--with-token', '--insecure-storage'], stdin: key },
      { name: 'again', args: ['auth', 'login', '--with-token'], stdin: key },
      { name: 'logout', args: ['auth', 'logout'] },
    ]);

    // The old file key keeps working, and nothing was in the store yet.
    expect(r.old!.code, r.old!.stderr).toBe(0);
    expect(r.old!.stored).toBeNull();

    // Login again moves it: into the store, out of the file, and says nothing about a fallback.
    expect(r.login!.code, r.login!.stderr).toBe(0);
    expect(r.login!.stderr).toBe('');
    expect(r.login!.stdout).toMatch(/in the system keychain\.\n$/);
    expect(r.login!.stored).toBe(key);
    expect(r.login!.config).toEqual({ defaultProfile: 'default', profiles: { default: { baseUrl: fx.sandbox.url, keyStore: 'keychain' } } });
    expect(JSON.stringify(r.login!.config)).not.toContain(key);

    const status = JSON.parse(r.status!.stdout);
    expect(status.active).toMatchObject({ keySource: 'keychain', key: `****${key.slice(-4)}`, keyStatus: 'valid, user demo' });
    expect(status.profiles).toEqual([expect.objectContaining({ name: 'default', keyStore: 'keychain', key: null })]);

    // Commands read the key from the store: the sandbox got it.
    expect(r.list!.code, r.list!.stderr).toBe(0);
    expect(r.token).toMatchObject({ code: 0, stdout: `${key}\n`, stderr: '' });
    const auth = fx.sandbox.requests.map((q) => q.headers.authorization);
    expect(auth.length).toBeGreaterThanOrEqual(4);
    expect(new Set(auth)).toEqual(new Set([`Bearer ${key}`]));

    // --insecure-storage puts it back in the file and leaves no copy in the store.
    expect(r.insecure!.code, r.insecure!.stderr).toBe(0);
    expect(r.insecure!.stored).toBeNull();
    expect(r.insecure!.config).toEqual({ defaultProfile: 'default', profiles: { default: { baseUrl: fx.sandbox.url, apiKey: key } } });

    // Logout removes the key from the store with the profile.
    expect(r.again!.stored).toBe(key);
    expect(r.logout!.code, r.logout!.stderr).toBe(0);
    expect(r.logout!.stored).toBeNull();
  }, 120_000);
});
