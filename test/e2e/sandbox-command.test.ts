/** `linkctl sandbox serve|reset` and `--sandbox`, as a newcomer uses them. */
import { spawn } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, tempDir } from '../helpers.js';

describe('--sandbox (embedded emulator, state in the config folder)', () => {
  it('lint finds something to show a newcomer: spring-sale expires within its window (issue 53, 8); after sandbox reset too', async () => {
    const env = { LINKCTL_CONFIG_DIR: tempDir() };
    const r = await runCli(['--sandbox', 'lint', '--json'], { env });
    expect(r.code).toBe(1); // findings
    expect(JSON.parse(r.stdout).findings).toEqual([expect.objectContaining({ rule: 'expiring', severity: 'warning', record: expect.stringContaining('spring-sale') })]);
    expect((await runCli(['sandbox', 'reset'], { env })).code).toBe(0);
    expect((await runCli(['--sandbox', 'lint', '--json'], { env })).code).toBe(1);
  });

  it('keeps what one command creates for the next, until `sandbox reset`', async () => {
    const env = { LINKCTL_CONFIG_DIR: tempDir() };
    const add = await runCli(['--sandbox', 'qr', 'add', '--type', 'text', '--data', 'hello', '--name', 'Kept', '--json'], { env });
    expect(add.stderr).toBe('');
    expect(add.code).toBe(0);
    const id = JSON.parse(add.stdout).id;

    const list = await runCli(['qr', 'list', '--json'], { env: { ...env, LINKCTL_SANDBOX: '1' } });
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).map((q: { id: number; name: string }) => [q.id, q.name])).toContainEqual([id, 'Kept']);

    const stateFile = join(env.LINKCTL_CONFIG_DIR, 'sandbox-state.json');
    expect(statSync(stateFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(stateFile, 'utf8')).toContain('Kept');

    const reset = await runCli(['sandbox', 'reset'], { env });
    expect(reset.code).toBe(0);
    expect(reset.stdout).toMatch(/Sandbox state reset/);
    const after = await runCli(['--sandbox', 'qr', 'list', '--json'], { env });
    expect(JSON.parse(after.stdout).map((q: { name: string }) => q.name)).not.toContain('Kept');
  });

  it('answers as real servers do; LINKCTL_SANDBOX_DOCUMENTED=1 gives the documented shapes, LINKCTL_SANDBOX_QUIRKS=1 still real ones; LINKCTL_SANDBOX_STRING_IDS=1 older PHP\'s string ids', async () => {
    const dir = tempDir();
    // `api` prints the server's answer as sent (the other commands' --json make ids numbers)
    const answer = async (path: string, extra: Record<string, string>) => JSON.parse((await runCli(['--sandbox', 'api', 'GET', path], { env: { LINKCTL_CONFIG_DIR: dir, ...extra } })).stdout).data;
    // real servers name the overlay collection `overlay`, the document `cta`
    const collection = async (extra: Record<string, string>) => Object.keys(await answer('api/overlay', extra)).filter((k) => k === 'overlay' || k === 'cta');
    expect(await collection({})).toEqual(['overlay']);
    expect(await collection({ LINKCTL_SANDBOX_QUIRKS: '1' })).toEqual(['overlay']);
    expect(await collection({ LINKCTL_SANDBOX_DOCUMENTED: '1' })).toEqual(['cta']);
    const ids = async (extra: Record<string, string>) => (await answer('api/pixels', extra)).pixels.map((p: { id: unknown }) => p.id);
    expect(await ids({})).toEqual([1]); // PHP 8, as the product 7.7 runs
    expect(await ids({ LINKCTL_SANDBOX_STRING_IDS: '1' })).toEqual(['1']);
    const status = await runCli(['sandbox', 'status', '--json'], { env: { LINKCTL_CONFIG_DIR: dir, LINKCTL_SANDBOX_DOCUMENTED: '1' } });
    expect(JSON.parse(status.stdout)).toEqual({ serve: false, baseUrl: null, pid: null, quirks: false, plan: 'pro', stateFile: join(dir, 'sandbox-state.json') });
  });

  it('takes the plan and a rate limit from LINKCTL_SANDBOX_PLAN and LINKCTL_SANDBOX_RATE_LIMIT (none by default)', async () => {
    const env = { LINKCTL_CONFIG_DIR: tempDir() };
    const account = await runCli(['--sandbox', 'api', 'GET', 'api/account'], { env: { ...env, LINKCTL_SANDBOX_PLAN: 'basic' } });
    expect(JSON.parse(account.stdout).data).toMatchObject({ status: 'free', planid: 1 });
    // link add sends two requests (a lookup, then the POST): the second is over a limit of 1
    const limited = await runCli(['--sandbox', 'link', 'add', 'https://example.com/paced', '--max-wait', '1'], { env: { ...env, LINKCTL_SANDBOX_RATE_LIMIT: '1/60' } });
    expect(limited.code).toBe(5);
    const bad = await runCli(['--sandbox', 'qr', 'list'], { env: { ...env, LINKCTL_SANDBOX_PLAN: 'gold' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^linkctl: LINKCTL_SANDBOX_PLAN must be one of pro, basic, no-api; got "gold"\nhint: /);
  });

  it('needs no key or base URL, and says so in auth status', async () => {
    const r = await runCli(['--sandbox', 'auth', 'status'], { env: { LINKCTL_CONFIG_DIR: tempDir() } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/built-in sandbox/);
  });
});

/** Starts `linkctl sandbox serve ...` and resolves with its announced address once it listens. */
function serve(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, 'sandbox', 'serve', '--port', '0', ...args], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const ready = new Promise<{ baseUrl: string; key: string; userKey: string; quirks: boolean }>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (d) => {
      stdout += d;
      if (stdout.includes('\n')) resolve(JSON.parse(stdout.split('\n')[0]!));
    });
    child.on('close', () => reject(new Error(`sandbox serve exited: ${stderr}`)));
  });
  return { child, ready, exited, stderr: () => stderr };
}

describe('sandbox serve', () => {
  it('--seed: an installation of two users with the seed\'s keys (--key and --user-key win), named in the JSON line; each key its own account; a bad seed is exit 2 naming --seed', async ({ onTestFinished }) => {
    const dir = tempDir();
    const seed = join(dir, 'seed.json');
    writeFileSync(seed, JSON.stringify({ users: [
      { id: 1, email: 'admin@example.com', username: 'admin', key: 'seed-admin-key' },
      { id: 2, email: 'user2@example.com', username: 'user2', key: 'seed-user-key' },
    ] }));
    const server = serve(['--seed', seed, '--user-key', 'given-user-key', '--quiet'], {});
    onTestFinished(() => void server.child.kill('SIGKILL'));
    const line = await server.ready;
    expect([line.key, line.userKey]).toEqual(['seed-admin-key', 'given-user-key']);
    const account = async (key: string) => JSON.parse((await runCli(['account', 'get', '--json'], { env: { LINKCTL_BASE_URL: line.baseUrl, LINKCTL_API_KEY: key, LINKCTL_CONFIG_DIR: dir } })).stdout);
    expect((await account('seed-admin-key')).email).toBe('admin@example.com');
    expect((await account('given-user-key')).email).toBe('user2@example.com');
    server.child.kill('SIGINT');
    expect(await server.exited).toBe(0);

    writeFileSync(seed, '{"users": []}');
    const bad = await runCli(['sandbox', 'serve', '--port', '0', '--seed', seed], { env: { LINKCTL_CONFIG_DIR: dir } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(`linkctl: --seed: ${seed}: users must be a list of at least one user\nhint: see docs/sandbox.md, "Seeds", for the format\n`);
  });

  it('--plan and --rate-limit win over LINKCTL_SANDBOX_PLAN and LINKCTL_SANDBOX_RATE_LIMIT, which are then not read (a bad one does not stop it)', async ({ onTestFinished }) => {
    const server = serve(['--plan', 'basic', '--rate-limit', 'off', '--state', join(tempDir(), 'state.json')], { LINKCTL_SANDBOX_PLAN: 'gold', LINKCTL_SANDBOX_RATE_LIMIT: 'fast' });
    onTestFinished(() => void server.child.kill('SIGKILL'));
    await server.ready;
    while (!server.stderr().includes('Ctrl-C')) await new Promise((r) => setTimeout(r, 20)); // the line comes when it comes (the test's timeout guards a hang)
    expect(server.stderr()).toMatch(/sandbox listening on http:\/\/127\.0\.0\.1:\d+ \(real-server shapes, basic plan, no rate limit\)/);
  });

  it('serves the API to other linkctl processes, with quirks and a rate limit, until Ctrl-C (exit 0)', async ({ onTestFinished }) => {
    const server = serve(['--quirks', '--rate-limit', '2/60', '--state', join(tempDir(), 'state.json')], {});
    onTestFinished(() => void server.child.kill('SIGKILL')); // a failed assertion must not leave a server running
    const { baseUrl, key, quirks } = await server.ready;
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(quirks).toBe(true);
    while (!server.stderr().includes('Ctrl-C')) await new Promise((r) => setTimeout(r, 20)); // the line comes when it comes (the test's timeout guards a hang)
    expect(server.stderr()).toMatch(/sandbox listening on http:\/\/127\.0\.0\.1:\d+ \(real-server shapes, pro plan, rate limit 2\/60 s\)/);
    const env = { LINKCTL_BASE_URL: baseUrl, LINKCTL_API_KEY: key, LINKCTL_CONFIG_DIR: tempDir() };

    // (--fields without scans: one request a list, no read of each code: issue 55, 4)
    const list = await runCli(['qr', 'list', '--json', '--fields', 'id,name'], { env });
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)[0].id).toEqual(expect.any(Number)); // real servers send string ids; --json makes them numbers
    // The third request in the window is over the limit: the client waits for the window, past --max-wait here.
    await runCli(['qr', 'list', '--json', '--fields', 'id,name'], { env });
    const limited = await runCli(['qr', 'list', '--json', '--fields', 'id,name', '--max-wait', '1'], { env });
    expect(limited.code).toBe(5);

    // one line per request on stderr: method, path, status, ms
    expect(server.stderr()).toMatch(/^GET \/api\/qr 200 \d+\.\d ms$/m);
    server.child.kill('SIGINT');
    expect(await server.exited).toBe(0);
  });

  it('answers as real servers do by default, in the documented shapes with --documented; --quiet logs nothing', async ({ onTestFinished }) => {
    const real = serve(['--state', join(tempDir(), 'a.json')], {});
    const doc = serve(['--documented', '--quiet', '--plan', 'basic', '--state', join(tempDir(), 'b.json')], {});
    onTestFinished(() => { real.child.kill('SIGKILL'); doc.child.kill('SIGKILL'); });
    const [r, d] = [await real.ready, await doc.ready];
    expect([r.quirks, d.quirks]).toEqual([true, false]);
    // no rate limit unless asked; the plan as asked
    expect([r, d]).toMatchObject([{ plan: 'pro', rateLimit: null }, { plan: 'basic', rateLimit: null }]);
    // its key is published: a request addressed to another host name (DNS rebinding) is refused
    const rebound = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
      const { port } = new URL(r.baseUrl);
      request({ host: '127.0.0.1', port, path: '/api/account', headers: { Host: `rebind.example:${port}`, Authorization: `Bearer ${r.key}` } }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c) => (body += c)).on('end', () => resolve({ status: res.statusCode, body }));
      }).on('error', reject).end();
    });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).message).toMatch(/^The sandbox answers only requests addressed to localhost, 127\.0\.0\.1 or \[::1\], not to "rebind\.example:\d+"/);
    const overlays = async (baseUrl: string) => {
      const out = await runCli(['api', 'GET', 'api/overlay'], { env: { LINKCTL_BASE_URL: baseUrl, LINKCTL_API_KEY: r.key, LINKCTL_CONFIG_DIR: tempDir() } });
      return Object.keys(JSON.parse(out.stdout).data).filter((k) => k === 'overlay' || k === 'cta');
    };
    expect(await overlays(r.baseUrl)).toEqual(['overlay']);
    expect(await overlays(d.baseUrl)).toEqual(['cta']);
    doc.child.kill('SIGINT');
    expect(await doc.exited).toBe(0);
    expect(doc.stderr()).toBe(''); // --quiet: no banner, no request log
    real.child.kill('SIGINT');
    expect(await real.exited).toBe(0);
  });

  it('exits 2 with a hint when the port is in use', async ({ onTestFinished }) => {
    const first = serve(['--state', join(tempDir(), 'a.json')], {});
    onTestFinished(() => void first.child.kill('SIGKILL'));
    const port = new URL((await first.ready).baseUrl).port;
    const r = await runCli(['sandbox', 'serve', '--port', port, '--state', join(tempDir(), 'b.json')], { env: { LINKCTL_CONFIG_DIR: tempDir() } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--port ${port}: the port is in use`);
    expect(r.stderr).toMatch(/--port 0/);
    expect(r.stderr).not.toMatch(/unexpected error|    at /);
  });

  it('is used by --sandbox commands on the same config folder while it runs, as `sandbox status` says', async ({ onTestFinished }) => {
    const env = { LINKCTL_CONFIG_DIR: tempDir() };
    const before = await runCli(['sandbox', 'status', '--json'], { env });
    expect(JSON.parse(before.stdout)).toMatchObject({ serve: false, baseUrl: null });
    const server = serve([], env);
    onTestFinished(() => void server.child.kill('SIGKILL'));
    const { baseUrl } = await server.ready;
    const status = await runCli(['sandbox', 'status'], { env });
    expect(status.stdout).toContain(`uses the running \`sandbox serve\` at ${baseUrl}`);
    const add = await runCli(['--sandbox', 'link', 'add', 'https://example.com/served', '--json'], { env });
    expect(add.code).toBe(0);
    const { shorturl } = JSON.parse(add.stdout);
    expect(shorturl.startsWith(`${baseUrl}/`)).toBe(true); // a URL that answers while the server runs
    const res = await fetch(shorturl, { redirect: 'manual' });
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('https://example.com/served');
    server.child.kill('SIGINT');
    expect(await server.exited).toBe(0);
    const after = await runCli(['sandbox', 'status', '--json'], { env });
    expect(JSON.parse(after.stdout)).toMatchObject({ serve: false });
  });

  it('rejects a malformed --rate-limit with exit 2', async () => {
    const r = await runCli(['sandbox', 'serve', '--port', '0', '--rate-limit', 'fast'], { env: { LINKCTL_CONFIG_DIR: tempDir() } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--rate-limit must be N\/SECONDS such as 30\/60, or off/);
  });
});

describe('--sandbox state shared by concurrent commands', () => {
  it('keeps the links of 6 parallel `--sandbox link add` commands', async () => {
    const env = { LINKCTL_CONFIG_DIR: tempDir() };
    const urls = Array.from({ length: 6 }, (_, i) => `https://example.com/${i + 1}`);
    const adds = await Promise.all(urls.map((url) => runCli(['--sandbox', 'link', 'add', url, '--json'], { env })));
    for (const add of adds) {
      expect(add.stderr).toBe('');
      expect(add.code).toBe(0);
    }
    expect(adds.map((a) => JSON.parse(a.stdout).id).sort((x: number, y: number) => x - y)).toEqual([3, 4, 5, 6, 7, 8]);

    const list = await runCli(['--sandbox', 'link', 'list', '--all', '--json'], { env });
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout).map((l: { longurl: string }) => l.longurl).sort())
      .toEqual([...urls, 'https://sandbox.localhost/docs', 'https://sandbox.localhost/sale'].sort());
    expect(statSync(join(env.LINKCTL_CONFIG_DIR, 'sandbox-state.json')).mode & 0o777).toBe(0o600);
  });

  it('reports a corrupt state file with exit 7 and the way out, which `sandbox reset` is', async () => {
    const env = { LINKCTL_CONFIG_DIR: tempDir() };
    const file = join(env.LINKCTL_CONFIG_DIR, 'sandbox-state.json');
    writeFileSync(file, '{"qrs": [{"name": "secret-ish"');
    const broken = await runCli(['--sandbox', 'qr', 'list'], { env });
    expect(broken.code).toBe(7);
    expect(broken.stdout).toBe('');
    expect(broken.stderr).toContain(file);
    expect(broken.stderr).toMatch(/linkctl sandbox reset/);
    expect(broken.stderr).not.toMatch(/unexpected error|secret-ish|    at /);
    expect(readFileSync(file, 'utf8')).toBe('{"qrs": [{"name": "secret-ish"'); // not reset behind the user's back

    const reset = await runCli(['sandbox', 'reset'], { env });
    expect(reset.code).toBe(0);
    const fixed = await runCli(['--sandbox', 'qr', 'list', '--json'], { env });
    expect(fixed.code).toBe(0);
    expect(JSON.parse(fixed.stdout).map((q: { name: string }) => q.name)).toEqual(['Restaurant menu', 'Greeting', 'Office wifi']); // oldest first, as 7.7 lists them
  });
});
