/** Profiles, keys and the config file, through the built CLI as a user runs it. */
import { chmodSync, existsSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, runMain, sent, tempDir, useSandbox } from '../helpers.js';

const fx = useSandbox();

function configOf(dir: string) {
  return JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
}

describe('auth login', () => {
  it('checks the key with GET /api/account, then saves a private profile that becomes the default', async () => {
    const dir = tempDir();
    const r = await runCli(['auth', 'login', '--with-token', '--insecure-storage', '--base-url', fx.sandbox.url], { env: { LINKCTL_CONFIG_DIR: dir }, stdin: `${fx.sandbox.key}\n` });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Logged in to http:\/\/127\.0\.0\.1:\d+ as demo \(profile default, the default\); key \*{4}\w{4} in the config file\.$/m);
    expect(r.stdout).not.toContain(fx.sandbox.key);
    expect(sent(fx.sandbox)).toEqual([{ method: 'GET', path: '/api/account', query: {}, body: undefined }]);
    expect(fx.sandbox.requests[0]!.headers.authorization).toBe(`Bearer ${fx.sandbox.key}`);
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(configOf(dir)).toEqual({ defaultProfile: 'default', profiles: { default: { baseUrl: fx.sandbox.url, apiKey: fx.sandbox.key } } });

    // A second profile does not take the default away from the first.
    const second = await runCli(['auth', 'login', '--with-token', '--no-verify', '--profile', 'work', '--base-url', 'https://links.example.com'], { env: { LINKCTL_CONFIG_DIR: dir }, stdin: 'k-work-123456789' });
    expect(second.code).toBe(0);
    expect(configOf(dir).defaultProfile).toBe('default');
    expect(configOf(dir).profiles.work).toEqual({ baseUrl: 'https://links.example.com', apiKey: 'k-work-123456789' });
  });

  it('saves nothing when the server rejects the key (exit 3)', async () => {
    const dir = tempDir();
    const r = await runCli(['auth', 'login', '--with-token', '--base-url', fx.sandbox.url], { env: { LINKCTL_CONFIG_DIR: dir }, stdin: 'wrong-key-0000' });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/A valid API key is required/);
    expect(r.stderr).toMatch(/auth status/);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  it('needs a key: empty stdin, or no terminal without --with-token, is exit 2', async () => {
    const dir = tempDir();
    const empty = await runCli(['auth', 'login', '--with-token', '--base-url', fx.sandbox.url], { env: { LINKCTL_CONFIG_DIR: dir }, stdin: '' });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/--with-token: stdin was empty/);
    const noTty = await runCli(['auth', 'login', '--base-url', fx.sandbox.url], { env: { LINKCTL_CONFIG_DIR: dir } });
    expect(noTty.code).toBe(2);
    expect(noTty.stderr).toMatch(/--with-token/);
    expect(fx.sandbox.requests).toHaveLength(0);
  });

  it('asks on a hidden prompt on a terminal', async () => {
    const dir = tempDir();
    const r = await runMain(['auth', 'login', '--base-url', fx.sandbox.url], { env: { LINKCTL_CONFIG_DIR: dir }, tty: true, secret: fx.sandbox.key });
    expect(r.code).toBe(0);
    expect(r.prompts).toEqual(['API key: ']);
    expect(configOf(dir).profiles.default.apiKey).toBe(fx.sandbox.key);
  });

  it('keeps both profiles when two logins run at the same time', async () => {
    const dir = tempDir();
    const names = ['alpha', 'beta', 'gamma', 'delta'];
    const results = await Promise.all(
      names.map((name) => runCli(['auth', 'login', '--with-token', '--no-verify', '--profile', name, '--base-url', 'https://links.example.com'], { env: { LINKCTL_CONFIG_DIR: dir }, stdin: `key-${name}-123456` })),
    );
    expect(results.map((r) => r.code)).toEqual([0, 0, 0, 0]);
    expect(Object.keys(configOf(dir).profiles).sort()).toEqual([...names].sort());
  });
});

describe('auth login: the base URL at the prompt', () => {
  let dir: string;
  beforeEach(() => void (dir = tempDir()));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const first = 'Base URL (the site root, e.g. https://links.example.com): ';

  it('offers https:// + a host typed without a scheme; Enter takes it', async () => {
    const r = await runMain(['auth', 'login', '--insecure-storage', '--no-verify'], { env: { LINKCTL_CONFIG_DIR: dir }, tty: true, answers: ['links.example.com', ''], secret: 'key-abcd-12345678' });
    expect(r.code, r.stderr).toBe(0);
    expect(r.prompts).toEqual([first, 'Base URL [https://links.example.com]: ', 'API key: ']);
    expect(r.stderr).toBe('"links.example.com" has no scheme. Press Enter to use https://links.example.com, or type the URL.\n');
    expect(configOf(dir).profiles.default).toEqual({ baseUrl: 'https://links.example.com', apiKey: 'key-abcd-12345678' });
    expect(fx.sandbox.requests).toHaveLength(0);
  });

  it('takes another URL typed instead of the offer, and checks the key there', async () => {
    const r = await runMain(['auth', 'login', '--insecure-storage'], { env: { LINKCTL_CONFIG_DIR: dir }, tty: true, answers: ['links.example.com', fx.sandbox.url], secret: fx.sandbox.key });
    expect(r.code, r.stderr).toBe(0);
    expect(r.prompts).toEqual([first, 'Base URL [https://links.example.com]: ', 'API key: ']);
    expect(configOf(dir).profiles.default.baseUrl).toBe(fx.sandbox.url);
    expect(sent(fx.sandbox)).toEqual([{ method: 'GET', path: '/api/account', query: {}, body: undefined }]);
  });

  it('offers http:// for a host of this machine (a local sandbox has no certificate); Enter takes it and the key is checked there', async () => {
    const hostPort = fx.sandbox.url.replace('http://', '');
    const r = await runMain(['auth', 'login', '--insecure-storage'], { env: { LINKCTL_CONFIG_DIR: dir }, tty: true, answers: [hostPort, ''], secret: fx.sandbox.key });
    expect(r.code, r.stderr).toBe(0);
    expect(r.prompts).toEqual([first, `Base URL [http://${hostPort}]: `, 'API key: ']);
    expect(configOf(dir).profiles.default.baseUrl).toBe(fx.sandbox.url);
    expect(sent(fx.sandbox)).toEqual([{ method: 'GET', path: '/api/account', query: {}, body: undefined }]);
  });

  it('--base-url without a scheme: exit 2, and the hint offers http:// for this machine, https:// elsewhere; nothing sent', async () => {
    for (const [typed, offer] of [['127.0.0.1:8787', 'http://127.0.0.1:8787'], ['sandbox.localhost:8787', 'http://sandbox.localhost:8787'], ['links.example.com', 'https://links.example.com']]) {
      const r = await runCli(['auth', 'login', '--base-url', typed], { env: { LINKCTL_CONFIG_DIR: dir } });
      expect(r.code, typed).toBe(2);
      expect(r.stderr, typed).toContain(`hint: did you mean --base-url ${offer}?\n`);
    }
    expect(fx.sandbox.requests).toHaveLength(0);
  });

  it('asks again after a URL that is not http(s), three tries, naming no flag', async () => {
    const r = await runMain(['auth', 'login', '--insecure-storage'], { env: { LINKCTL_CONFIG_DIR: dir }, tty: true, answers: ['ftp://files.example.com', '', 'https://links.example.com?x=1'], secret: 'never-asked-1234' });
    expect(r.code).toBe(2);
    expect(r.prompts).toEqual([first, first, first]);
    expect(r.stderr).toBe(
      'The base URL must start with https:// or http://, got "ftp://files.example.com". Try again.\n' +
        'The base URL is needed: the site root of your server, e.g. https://links.example.com. Try again.\n' +
        'linkctl: the base URL must not carry a query or fragment, got "https://links.example.com?x=1"\n' +
        'hint: run `linkctl auth login` again and type the URL with https:// (or http://)\n',
    );
    expect(r.stderr).not.toMatch(/--base-url/);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
    expect(fx.sandbox.requests).toHaveLength(0);
  });

  it('names where a bad base URL came from: the flag, LINKCTL_BASE_URL, or the profile', async () => {
    const fromEnv = await runMain(['auth', 'login', '--with-token', '--no-verify'], { env: { LINKCTL_CONFIG_DIR: dir, LINKCTL_BASE_URL: 'links.example.com' }, stdin: 'key-abcd-12345678' });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toMatch(/^linkctl: LINKCTL_BASE_URL must be an http\(s\) URL such as https:\/\/example.com, got "links.example.com"\nhint: /);
    const fromFlag = await runMain(['auth', 'login', '--with-token', '--no-verify', '--base-url', 'links.example.com'], { env: { LINKCTL_CONFIG_DIR: dir }, stdin: 'key-abcd-12345678' });
    expect(fromFlag.stderr).toMatch(/^linkctl: --base-url must be an http\(s\) URL such as https:\/\/example.com, got "links.example.com"\nhint: did you mean --base-url https:\/\/links\.example\.com\?\n$/);
    const none = await runMain(['auth', 'login', '--with-token', '--no-verify'], { env: { LINKCTL_CONFIG_DIR: dir }, stdin: 'key-abcd-12345678' });
    expect(none.code).toBe(2);
    expect(none.stderr).toBe('linkctl: a new profile needs the base URL of its server (the site root)\nhint: give it with --base-url https://links.example.com, or run `linkctl auth login` at a terminal to be asked\n');
  });
});

describe('auth login at the prompt (in-process, pretending a terminal)', () => {
  it('asks for the base URL when none is given', async () => {
    const dir = tempDir();
    const r = await runMain(['auth', 'login', '--insecure-storage'], { env: { LINKCTL_CONFIG_DIR: dir }, tty: true, answers: [fx.sandbox.url], secret: fx.sandbox.key });
    expect(r.code, r.stderr).toBe(0);
    expect(r.prompts).toEqual(['Base URL (the site root, e.g. https://links.example.com): ', 'API key: ']);
    expect(configOf(dir).profiles.default).toEqual({ baseUrl: fx.sandbox.url, apiKey: fx.sandbox.key });
  });

  it('lets a rejected key be typed again, three tries in all', async () => {
    const dir = tempDir();
    const env = { LINKCTL_CONFIG_DIR: dir };
    const third = await runMain(['auth', 'login', '--insecure-storage', '--base-url', fx.sandbox.url], { env, tty: true, secret: ['wrong-one-0000', 'has space', fx.sandbox.key] });
    expect(third.code, third.stderr).toBe(0);
    expect(third.prompts).toEqual(['API key: ', 'API key: ', 'API key: ']);
    expect(third.stderr).toMatch(/^A valid API key is required.*\. Try again \(2 tries left\)\.\nThe key contains white space.*\. Try again \(1 try left\)\.\n$/);
    expect(configOf(dir).profiles.default.apiKey).toBe(fx.sandbox.key);

    const other = tempDir();
    const never = await runMain(['auth', 'login', '--insecure-storage', '--base-url', fx.sandbox.url], { env: { LINKCTL_CONFIG_DIR: other }, tty: true, secret: ['wrong-1-0000', 'wrong-2-0000', 'wrong-3-0000'] });
    expect(never.code).toBe(3);
    expect(never.prompts).toHaveLength(3);
    expect(existsSync(join(other, 'config.json'))).toBe(false);
  });

  it('asks before replacing a different key at the prompt; --with-token replaces without asking', async () => {
    const dir = tempDir();
    const env = { LINKCTL_CONFIG_DIR: dir };
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ defaultProfile: 'default', profiles: { default: { baseUrl: fx.sandbox.url, apiKey: 'old-key-12345678' } } }));
    const declined = await runMain(['auth', 'login', '--insecure-storage'], { env, tty: true, secret: fx.sandbox.key, confirm: false });
    expect(declined.code).toBe(2);
    expect(declined.prompts).toEqual(['API key: ', 'Profile "default" already has a different key. Replace it?']);
    expect(configOf(dir).profiles.default.apiKey).toBe('old-key-12345678');

    const accepted = await runMain(['auth', 'login', '--insecure-storage'], { env, tty: true, secret: fx.sandbox.key, confirm: true });
    expect(accepted.code).toBe(0);
    expect(configOf(dir).profiles.default.apiKey).toBe(fx.sandbox.key);

    // The same key again: nothing to confirm.
    const same = await runMain(['auth', 'login', '--insecure-storage'], { env, tty: true, secret: fx.sandbox.key, confirm: false });
    expect(same.code).toBe(0);
    expect(same.prompts).toEqual(['API key: ']);

    const ci = await runCli(['auth', 'login', '--with-token', '--insecure-storage', '--no-verify'], { env, stdin: 'ci-key-87654321' });
    expect(ci.code, ci.stderr).toBe(0);
    expect(configOf(dir).profiles.default.apiKey).toBe('ci-key-87654321');
  });
});

// Without DBUS_SESSION_BUS_ADDRESS (cleanEnv leaves it out), Linux has no Secret Service to reach.
describe.skipIf(process.platform !== 'linux')('without a system keychain (Linux without a D-Bus session; elsewhere the OS always has one)', () => {
  it('login keeps the key in the 0600 config file and says so once', async () => {
    const dir = tempDir();
    const r = await runCli(['auth', 'login', '--with-token', '--base-url', fx.sandbox.url], { env: { LINKCTL_CONFIG_DIR: dir }, stdin: fx.sandbox.key });
    expect(r.code).toBe(0);
    // A calm sentence, not an error: no `linkctl:`, no D-Bus message (that is for --debug).
    expect(r.stderr).toBe(`There is no system keychain here, so the key is saved in ${join(dir, 'config.json')}, which only you can read.\n`);
    const debug = await runCli(['auth', 'login', '--with-token', '--debug', '--base-url', fx.sandbox.url], { env: { LINKCTL_CONFIG_DIR: tempDir() }, stdin: fx.sandbox.key });
    expect(debug.stderr).toMatch(/^\[debug\] keychain: .+\n/m);
    expect(r.stdout).toMatch(/in the config file\.\n$/);
    expect(configOf(dir).profiles.default).toEqual({ baseUrl: fx.sandbox.url, apiKey: fx.sandbox.key });
    expect(statSync(join(dir, 'config.json')).mode & 0o777).toBe(0o600);
    // Using the key says nothing more (a campaign list: one request, no note of its own).
    const list = await runCli(['campaign', 'list', '--json'], { env: { LINKCTL_CONFIG_DIR: dir } });
    expect(list.code).toBe(0);
    expect(list.stderr).toBe('');
  });
});

describe('auth token', () => {
  it('prints the active key and nothing else; LINKCTL_API_KEY first', async () => {
    const dir = tempDir();
    const env = { LINKCTL_CONFIG_DIR: dir };
    expect((await runCli(['auth', 'login', '--with-token', '--insecure-storage', '--no-verify', '--base-url', 'https://links.example.com'], { env, stdin: 'saved-key-1234abcd' })).code).toBe(0);
    const saved = await runCli(['auth', 'token'], { env });
    expect(saved).toEqual({ code: 0, stdout: 'saved-key-1234abcd\n', stderr: '' });
    const fromEnv = await runCli(['auth', 'token'], { env: { ...env, LINKCTL_API_KEY: 'env-key-99998888' } });
    expect(fromEnv).toEqual({ code: 0, stdout: 'env-key-99998888\n', stderr: '' });
  });

  it('exits 3 when there is no key, printing nothing on stdout', async () => {
    const r = await runCli(['auth', 'token'], { env: { LINKCTL_CONFIG_DIR: tempDir() } });
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^linkctl: no API key for profile "default"\nhint: run `linkctl auth login`/);
  });
});

describe('auth status, switch and logout', () => {
  async function loggedIn() {
    const dir = tempDir();
    const env = { LINKCTL_CONFIG_DIR: dir };
    await runCli(['auth', 'login', '--with-token', '--insecure-storage', '--base-url', fx.sandbox.url], { env, stdin: fx.sandbox.key });
    await runCli(['auth', 'login', '--with-token', '--insecure-storage', '--no-verify', '--profile', 'work', '--base-url', 'https://links.example.com'], { env, stdin: 'work-key-abcdWXYZ' });
    fx.sandbox.reset();
    return { dir, env };
  }

  it('says where each value came from in plain words', async () => {
    const { env } = await loggedIn();
    const r = await runMain(['auth', 'status'], { env: { ...env, NO_COLOR: '1' }, tty: true });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Profile {3}default, the default profile$/m);
    expect(r.stdout).toMatch(new RegExp(`^Base URL {2}${fx.sandbox.url}, saved in the profile$`, 'm'));
    expect(r.stdout).toMatch(/^Key {7}\*{4}\w{4}, saved in the config file$/m);
    expect(r.stdout).not.toMatch(/\(from /);
    const chosen = await runMain(['auth', 'status', '--no-verify', '--profile', 'work', '--base-url', 'https://other.example.com'], { env: { ...env, LINKCTL_API_KEY: 'env-key-00001111', NO_COLOR: '1' }, tty: true });
    expect(chosen.stdout).toMatch(/^Profile {3}work, chosen with --profile$/m);
    expect(chosen.stdout).toMatch(/^Base URL {2}https:\/\/other\.example\.com, given with --base-url$/m);
    expect(chosen.stdout).toMatch(/^Key {7}\*{4}1111, from LINKCTL_API_KEY$/m);
  });

  it('shows every profile, the active one, masked keys and where values came from', async () => {
    const { env } = await loggedIn();
    const r = await runCli(['auth', 'status'], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^key\\t\\*{4}${fx.sandbox.key.slice(-4)}, saved in the config file$`, 'm'));
    // The list of profiles is for people: on stderr in a pipe, keys masked too, and where each lives.
    expect(r.stderr).toMatch(/^\* default .* \*{4}\w{4} in the config file {2}\(default\)$/m);
    expect(r.stderr).toMatch(/^ {2}work .*\*{4}WXYZ in the config file$/m);
    expect(r.stdout + r.stderr).not.toContain(fx.sandbox.key);
    expect(r.stdout + r.stderr).not.toContain('work-key-abcdWXYZ');
    const json = JSON.parse((await runCli(['auth', 'status', '--json'], { env })).stdout);
    expect(json.active).toMatchObject({ profile: 'default', profileSource: 'profile', baseUrlSource: 'profile', keySource: 'profile' });
    expect(json.profiles.map((p: { name: string }) => p.name)).toEqual(['default', 'work']);

    const fromEnv = JSON.parse((await runCli(['auth', 'status', '--json', '--no-verify'], { env: { ...env, LINKCTL_API_KEY: 'env-key-00001111', LINKCTL_PROFILE: 'work' } })).stdout);
    expect(fromEnv.active).toMatchObject({ profile: 'work', profileSource: 'environment', key: '****1111', keySource: 'environment', baseUrlSource: 'profile' });
  });

  it('exits 3 when the active profile has no valid key', async () => {
    const { env } = await loggedIn();
    const rejected = await runCli(['auth', 'status'], { env: { ...env, LINKCTL_API_KEY: 'revoked-key-9999' } });
    expect(rejected.code).toBe(3);
    expect(rejected.stdout).toMatch(/rejected/);
    const none = await runCli(['auth', 'status'], { env: { LINKCTL_CONFIG_DIR: tempDir() } });
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(/No saved profiles/);
  });

  it('switches the default and logs out', async () => {
    const { dir, env } = await loggedIn();
    expect((await runCli(['auth', 'switch', 'work'], { env })).code).toBe(0);
    expect(configOf(dir).defaultProfile).toBe('work');
    const unknown = await runCli(['auth', 'switch', 'nope'], { env });
    expect(unknown.code).toBe(7);
    expect(unknown.stderr).toMatch(/unknown profile "nope" \(known: default, work\)/);
    expect((await runCli(['auth', 'logout'], { env })).code).toBe(0);
    expect(configOf(dir)).toEqual({ defaultProfile: 'default', profiles: { default: expect.any(Object) } });
    expect((await runCli(['auth', 'logout', '--profile', 'work'], { env })).code).toBe(7);
  });

  it('uses the chosen profile for requests, and rejects an unknown one with exit 7', async () => {
    const { env } = await loggedIn();
    const r = await runCli(['campaign', 'list', '--json', '--profile', 'default'], { env });
    expect(r.code).toBe(0);
    expect(fx.sandbox.requests).toHaveLength(1);
    const unknown = await runCli(['qr', 'list', '-p', 'staging'], { env });
    expect(unknown.code).toBe(7);
    expect(unknown.stderr).toMatch(/unknown profile "staging"/);
  });
});

describe('the config file', () => {
  it('reports a corrupt file with exit 7, naming the path, never echoing it, never resetting it', async () => {
    const dir = tempDir();
    const file = join(dir, 'config.json');
    const text = '{"profiles": {"default": {"apiKey": "sk_live_LEAKME_42", ';
    writeFileSync(file, text, { mode: 0o600 });
    for (const args of [['qr', 'list'], ['auth', 'status'], ['auth', 'login', '--with-token', '--no-verify', '--base-url', 'https://x.example']]) {
      const r = await runCli(args, { env: { LINKCTL_CONFIG_DIR: dir }, stdin: 'new-key-1234567' });
      expect(r.code).toBe(7);
      expect(r.stderr).toContain(file);
      expect(r.stderr).toMatch(/not valid JSON/);
      expect(r.stderr + r.stdout).not.toContain('LEAKME');
    }
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('reports an unreadable file with exit 7', async () => {
    if (process.getuid?.() === 0) {
      // root reads any file: make the path a directory instead, which no one can read as a file.
      const dir = tempDir();
      mkdirSync(join(dir, 'config.json'));
      const r = await runCli(['qr', 'list'], { env: { LINKCTL_CONFIG_DIR: dir } });
      expect(r.code).toBe(7);
      expect(r.stderr).toMatch(/cannot read the config file .*config\.json \(EISDIR\)/);
      return;
    }
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), '{}');
    chmodSync(join(dir, 'config.json'), 0);
    const r = await runCli(['qr', 'list'], { env: { LINKCTL_CONFIG_DIR: dir } });
    expect(r.code).toBe(7);
  });

  it('is never written by read-only commands', async () => {
    const dir = tempDir();
    const env = { LINKCTL_CONFIG_DIR: dir };
    await runCli(['auth', 'login', '--with-token', '--base-url', fx.sandbox.url], { env, stdin: fx.sandbox.key });
    const file = join(dir, 'config.json');
    const before = { text: readFileSync(file, 'utf8'), mtime: statSync(file).mtimeMs };
    for (const args of [['qr', 'list'], ['account', 'get'], ['auth', 'status'], ['qr', 'get', '1']]) {
      expect((await runCli(args, { env })).code).toBe(0);
    }
    expect(readFileSync(file, 'utf8')).toBe(before.text);
    expect(statSync(file).mtimeMs).toBe(before.mtime);
  });

  it('without a key anywhere, says how to get one (exit 3)', async () => {
    const r = await runCli(['qr', 'list'], { env: { LINKCTL_CONFIG_DIR: tempDir(), LINKCTL_BASE_URL: fx.sandbox.url } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/no API key/);
    expect(r.stderr).toMatch(/auth login|LINKCTL_API_KEY/);
  });
});

describe('account', () => {
  it('gets the account', async () => {
    const r = await runCli(['account', 'get', '--json'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 1, username: 'demo', email: 'demo@sandbox.localhost' });
    const table = await runCli(['account', 'get'], { env: fx.env });
    expect(table.stdout).toMatch(/^email\tdemo@sandbox\.localhost$/m);
  });

  it('updates the email and prints the server message', async () => {
    const r = await runCli(['account', 'update', '--email', 'new@example.com'], { env: fx.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Account has been successfully updated.\n');
    expect(sent(fx.sandbox)).toEqual([{ method: 'PUT', path: '/api/account/update', query: {}, body: { email: 'new@example.com' } }]);
  });

  it('reads a new password from stdin, never from argv, and never shows it', async () => {
    const r = await runCli(['account', 'update', '--password-stdin', '--debug'], { env: fx.env, stdin: 'hunter2-Very-Secret\n' });
    expect(r.code).toBe(0);
    expect(sent(fx.sandbox)).toEqual([{ method: 'PUT', path: '/api/account/update', query: {}, body: { password: 'hunter2-Very-Secret' } }]);
    expect(r.stdout + r.stderr).not.toContain('hunter2-Very-Secret');
  });

  it('asks for a password on a hidden prompt', async () => {
    const r = await runMain(['account', 'update', '--password'], { env: fx.env, tty: true, secret: 'pw-from-prompt' });
    expect(r.code).toBe(0);
    expect(r.prompts).toEqual(['New password: ', 'Repeat new password: ']);
    expect(fx.sandbox.requests.at(-1)!.body).toEqual({ password: 'pw-from-prompt' });
  });

  it('refuses two different answers to the password prompt (exit 2, nothing sent)', async () => {
    const r = await runMain(['account', 'update', '--password'], { env: fx.env, tty: true, secret: ['pw-one-1234', 'pw-two-1234'] });
    expect(r.code).toBe(2);
    expect(r.prompts).toEqual(['New password: ', 'Repeat new password: ']);
    expect(r.stderr).toMatch(/^linkctl: the two entries of new password differ; nothing was changed\nhint: /);
    expect(r.stderr).not.toContain('pw-one');
    expect(fx.sandbox.requests).toHaveLength(0);
  });

  it.each([
    [['account', 'update'], /nothing to change/],
    [['account', 'update', '--email', 'not-an-email'], /--email must be an email address/],
    [['account', 'update', '--password', 'inline-secret'], /too many arguments|unknown/i],
    [['account', 'update', '--password'], /needs a terminal/],
  ])('%j exits 2 and sends nothing', async (args, message) => {
    const r = await runCli(args, { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(fx.sandbox.requests).toHaveLength(0);
  });
});

describe('account against real-server shapes (quirks)', () => {
  const real = useSandbox({ quirks: true });

  it('shows a plan without expiry as never, and keeps planid in JSON', async () => {
    const table = await runCli(['account', 'get'], { env: real.env });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^expires\tnever$/m);
    const json = JSON.parse((await runCli(['account', 'get', '--json'], { env: real.env })).stdout);
    expect(json).toMatchObject({ username: 'demo', expires: null });
    expect(json).toHaveProperty('planid');
  });

  it('updates the email with the same request and message', async () => {
    const r = await runCli(['account', 'update', '--email', 'new@example.com'], { env: real.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Account has been successfully updated.\n');
    expect(sent(real.sandbox)).toEqual([{ method: 'PUT', path: '/api/account/update', query: {}, body: { email: 'new@example.com' } }]);
  });

  it('logs in against a real-shaped server', async () => {
    const dir = tempDir();
    const r = await runCli(['auth', 'login', '--with-token', '--base-url', real.sandbox.url], { env: { LINKCTL_CONFIG_DIR: dir }, stdin: real.sandbox.key });
    expect(r.code).toBe(0);
    expect(configOf(dir).profiles.default.apiKey).toBe(real.sandbox.key);
  });
});

describe('a plan without the API (7.7 with pro mode on)', () => {
  const noApi = useSandbox({ plan: 'no-api' });

  it('is exit 3 with the server\'s words and a hint about the plan, not the key; one request, not retried', async () => {
    const r = await runCli(['account', 'get'], { env: noApi.env });
    expect(r.code).toBe(3);
    expect(r.stderr).toBe('linkctl: You do not have the permission to use the API. (HTTP 403)\nhint: the key was accepted, but your plan on this server does not include the API: an admin of the site can add the API to the plan (admins always have it)\n');
    expect(r.stdout).toBe('');
    expect(sent(noApi.sandbox)).toEqual([{ method: 'GET', path: '/api/account', query: {}, body: undefined }]);
  });
});
