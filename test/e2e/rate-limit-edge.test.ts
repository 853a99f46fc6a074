/**
 * The rate limit's edge as the product 7.7 keeps it (issue 28; real-servers.md, "What the product
 * 7.7 does when run"): the window stays closed for the whole second X-RateLimit-Reset names, and a
 * refusal then says `"Retry-After": 0` with the old reset. The sandbox answers so by default; these
 * tests run linkctl through such windows, scaled down (5 requests per 2 s) so they take seconds.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { runCli, tempDir, testFiles } from '../helpers.js';

const { file } = testFiles('linkctl-rate-edge-');

describe('a sandbox limited to 5 requests per 2 s', () => {
  let sandbox: Sandbox;
  let configDir: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, rateLimit: { limit: 5, windowSeconds: 2 } });
    configDir = tempDir();
    env = { LINKCTL_BASE_URL: sandbox.url, LINKCTL_API_KEY: sandbox.key, LINKCTL_CONFIG_DIR: configDir };
  });
  afterAll(async () => {
    await sandbox.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  it('answers at the reset second with Retry-After 0 and the old reset, and lets requests through a second later', async () => {
    sandbox.reset();
    const get = () => fetch(`${sandbox.url}/api/account`, { headers: { Authorization: `Bearer ${sandbox.key}` } });
    let last!: Response;
    for (let i = 0; i < 6; i++) last = await get();
    const refused = (await last.json()) as { error: number; 'Retry-After': number };
    expect(refused.error).toBe(429);
    const reset = Number(last.headers.get('x-ratelimit-reset'));
    // Wait into the reset second itself: still refused, Retry-After 0, the same (now passed) reset.
    await new Promise((r) => setTimeout(r, Math.max(0, reset * 1000 - Date.now()) + 300));
    const atReset = await get();
    expect(((await atReset.json()) as { error: number; 'Retry-After': number })).toMatchObject({ error: 429, 'Retry-After': 0 });
    expect(atReset.headers.get('x-ratelimit-reset')).toBe(String(reset));
    await new Promise((r) => setTimeout(r, Math.max(0, (reset + 1) * 1000 - Date.now()) + 50));
    const after = await get();
    expect(((await after.json()) as { error: number }).error).toBe(0);
  });

  it('link add --from 12 rows (three windows): every row created once, exit 0, no request sent twice', async () => {
    sandbox.reset();
    const urls = Array.from({ length: 12 }, (_, i) => `https://example.com/edge-${i}`);
    const csv = file('edge.csv', `url\n${urls.join('\n')}\n`);
    const r = await runCli(['link', 'add', '--from', csv, '--json'], { env, timeoutMs: 40_000 });
    expect(r.stderr).not.toMatch(/over the rate limit/);
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as Array<{ status: string }>;
    expect(rows.map((x) => x.status)).toEqual(urls.map(() => 'created'));
    const posts = sandbox.requests.filter((q) => q.method === 'POST');
    expect(posts.map((q) => (q.body as { url: string }).url)).toEqual(urls);
    // One read of the links and a POST a row: linkctl paced itself past each reset second, so
    // nothing was refused and sent again.
    expect(sandbox.requests.length).toBe(13);
  }, 60_000);

  it('account get after a burst waits past the reset second and succeeds', async () => {
    sandbox.reset();
    for (let i = 0; i < 5; i++) await fetch(`${sandbox.url}/api/account`, { headers: { Authorization: `Bearer ${sandbox.key}` } });
    const r = await runCli(['account', 'get', '--json'], { env, timeoutMs: 20_000 });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ email: 'demo@sandbox.localhost' });
    const mine = sandbox.requests.slice(5);
    // The first was refused; linkctl waited until the window had opened (one second past its reset).
    expect(mine.length).toBeGreaterThanOrEqual(2);
    const accepted = mine[mine.length - 1]!;
    const firstAt = mine[0]!.at;
    expect(accepted.at - firstAt).toBeGreaterThanOrEqual(900);
  }, 30_000);
});
