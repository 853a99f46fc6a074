/**
 * apply through the bulk journal (issue 18): one apply per account at a time (two real
 * processes), each step recorded before it is sent, and an apply killed with a create in flight
 * followed by another that creates nothing twice. A proxy of the test's own in front of the
 * sandbox holds a chosen POST: the sandbox's request log and its records are the proof.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, tempDir, useSandbox } from '../helpers.js';

const fx = useSandbox();

/** An account file of `n` campaigns named `<prefix>-<i>`: each one create, in this order. */
function accountFile(prefix: string, n: number): string {
  const dir = tempDir();
  const path = join(dir, 'account.yaml');
  writeFileSync(path, `version: 1\ncampaigns:\n${Array.from({ length: n }, (_, i) => `  - name: ${prefix}-${i + 1}\n    public: false\n`).join('')}`);
  return path;
}

const configDir = () => {
  const dir = tempDir();
  mkdirSync(join(dir, 'config'));
  return join(dir, 'config');
};
const journals = (config: string) => {
  const dir = join(config, 'state', 'apply');
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.jsonl')).map((f) => join(dir, f)) : [];
};
const campaignPosts = (prefix: string) => fx.sandbox.requests.filter((r) => r.method === 'POST' && r.path === '/api/campaign/add' && String((r.body as { name: string }).name).startsWith(prefix));
/** The campaigns that exist on the sandbox under `prefix`: each as often as it was created. */
async function onServer(prefix: string): Promise<string[]> {
  const answer = await fetch(`${fx.sandbox.url}/api/campaigns?limit=1000`, { headers: { Authorization: `Bearer ${fx.sandbox.key}` } });
  const body = (await answer.json()) as { data: { campaigns: Array<{ name: string }> } };
  return body.data.campaigns.map((c) => c.name).filter((name) => name.startsWith(prefix)).sort();
}

/**
 * A proxy to the sandbox that, at the `nth` campaign POST, calls `arrived` and waits for `held`
 * before forwarding (`forwardFirst`: forwards it, then waits before answering).
 */
async function holdingProxy(nth: number, forwardFirst: boolean, options: { anyKey?: boolean } = {}) {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let arrived!: () => void;
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  let posts = 0;
  const proxy: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const hold = req.method === 'POST' && ++posts === nth;
    if (hold && !forwardFirst) {
      arrived();
      await held;
    }
    // anyKey: every key is let in (two users' keys on one server), sent on with the sandbox's own
    const authorization = options.anyKey ? `Bearer ${fx.sandbox.key}` : String(req.headers.authorization);
    const answer = await fetch(`${fx.sandbox.url}${req.url}`, { method: req.method, headers: { authorization, 'content-type': 'application/json' }, body: chunks.length ? Buffer.concat(chunks) : undefined });
    const text = await answer.text();
    if (hold && forwardFirst) {
      arrived();
      await held;
    }
    if (!res.destroyed) res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const close = async () => {
    release();
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
  };
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, reached, release, close };
}

describe('apply through the journal', () => {
  it('a second apply on the same account at once is refused, naming the first; nothing is created twice', async () => {
    // names as the product 7.7 stores them (a capital first letter: fact 29), so that plan reads back what it wrote
    const file = accountFile('Twice', 4);
    const config = configDir();
    const proxy = await holdingProxy(1, false);
    try {
      const env = { ...fx.env, LINKCTL_CONFIG_DIR: config, LINKCTL_BASE_URL: proxy.url };
      const first = spawn(process.execPath, [BIN, 'apply', '-f', file, '--yes', '--json'], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      first.stdout.setEncoding('utf8').on('data', (d) => (out += d));
      const exited = new Promise<number | null>((resolve) => first.on('close', resolve));
      await proxy.reached;

      const second = await runCli(['apply', '-f', file, '--yes'], { env, timeoutMs: 60_000 });
      expect(second.code).toBe(2);
      expect(second.stderr).toContain(`another linkctl is running apply on this account (pid ${first.pid}, started 20`);
      expect(second.stdout).toBe('');
      proxy.release();

      expect(await exited).toBe(0);
      const result = JSON.parse(out) as { applied: { created: number; steps: Array<{ action: string; kind: string; key: string; status: string; id: number }> } };
      expect(result.applied.created).toBe(4);
      expect(result.applied.steps.map((s) => [s.action, s.kind, s.key, s.status])).toEqual([1, 2, 3, 4].map((i) => ['create', 'campaigns', `Twice-${i}`, 'created']));
      expect(result.applied.steps.every((s) => Number.isInteger(s.id))).toBe(true);
      expect(campaignPosts('Twice')).toHaveLength(4);
      expect(await onServer('Twice')).toEqual(['Twice-1', 'Twice-2', 'Twice-3', 'Twice-4']);
      expect(journals(config)).toEqual([]); // every step done: retired
    } finally {
      await proxy.close();
    }
  });

  it('the lock and journal are per account: another user\'s apply through the same profile and base URL is not refused (issue 55, low)', async () => {
    const config = configDir();
    const proxy = await holdingProxy(1, false, { anyKey: true });
    try {
      const env = { ...fx.env, LINKCTL_CONFIG_DIR: config, LINKCTL_BASE_URL: proxy.url };
      const first = spawn(process.execPath, [BIN, 'apply', '-f', accountFile('user1', 1), '--yes'], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
      const exited = new Promise<number | null>((resolve) => first.on('close', resolve));
      await proxy.reached;
      // The same profile and base URL, another user's key: another account, its own journal.
      const second = await runCli(['apply', '-f', accountFile('user2', 1), '--yes'], { env: { ...env, LINKCTL_API_KEY: 'b'.repeat(32) }, timeoutMs: 60_000 });
      expect(second.stderr).not.toContain('another linkctl is running apply');
      expect(second.code, second.stderr).toBe(0);
      proxy.release();
      expect(await exited).toBe(0);
      expect(await onServer('User')).toEqual(['User1-1', 'User2-1']); // (the product capitalises campaign names: fact 29)
    } finally {
      await proxy.close();
    }
  });

  it('killed with a create in flight, the next apply says so and creates nothing twice', async () => {
    const file = accountFile('Killed', 4);
    const config = configDir();
    // The third create reaches the sandbox (it is made), then the answer is held and the process killed.
    const proxy = await holdingProxy(3, true);
    try {
      const env = { ...fx.env, LINKCTL_CONFIG_DIR: config, LINKCTL_BASE_URL: proxy.url };
      // One step at a time: the journal then holds exactly two steps done and the third in flight (test/e2e/pipeline.test.ts kills with 8 in flight).
      const child = spawn(process.execPath, [BIN, 'apply', '-f', file, '--yes', '--concurrency', '1'], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
      await proxy.reached;
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');

      // What the journal holds: two steps created, the third sent with no outcome.
      const [journal] = journals(config);
      expect(journal).toBeDefined();
      const entries = readFileSync(journal!, 'utf8').trim().split('\n').slice(1).map((l) => JSON.parse(l) as { row?: number; state?: string });
      const last = new Map(entries.filter((e) => e.row !== undefined).map((e) => [e.row, e.state]));
      expect([...last]).toEqual([[1, 'created'], [2, 'created'], [3, 'sending']]);
      expect(await onServer('Killed')).toEqual(['Killed-1', 'Killed-2', 'Killed-3']);

      const before = campaignPosts('Killed').length;
      // The same server again (the proxy holds nothing more).
      const again = await runCli(['apply', '-f', file, '--yes', '--json'], { env, timeoutMs: 60_000 });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain('note: an earlier apply on this account stopped before it finished (2 steps done, 1 in flight)');
      // Only the one never sent is created: the one in flight was found by its name.
      expect(campaignPosts('Killed').slice(before).map((r) => (r.body as { name: string }).name)).toEqual(['Killed-4']);
      expect(await onServer('Killed')).toEqual(['Killed-1', 'Killed-2', 'Killed-3', 'Killed-4']);
      expect(journals(config)).toEqual([]);
    } finally {
      await proxy.close();
    }
  });

  it('--dry-run takes no lock and writes no journal', async () => {
    const file = accountFile('dry', 2);
    const config = configDir();
    const r = await runCli(['apply', '-f', file, '--yes', '--dry-run'], { env: { ...fx.env, LINKCTL_CONFIG_DIR: config } });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(config, 'state', 'apply'))).toBe(false);
    expect(campaignPosts('dry')).toHaveLength(0);
  });
});
