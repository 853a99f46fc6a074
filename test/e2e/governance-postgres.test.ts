/**
 * `linkctl lint`'s history-based rules (stale, broken) on a real PostgreSQL server that this file
 * starts and stops (test/postgres.ts), giving what the same history gives in an SQLite file.
 * Skipped, saying why, when there is no PostgreSQL.
 */
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, useSandbox } from '../helpers.js';
import { pgSkipReason as why, startCluster, type Cluster } from '../postgres.js';

describe.skipIf(why)(`lint's history rules in PostgreSQL${why ? ` (skipped: ${why})` : ''}`, () => {
  const fx = useSandbox({ seed: { empty: true } });
  let cluster: Cluster | undefined;
  let site: Server;
  let siteUrl: string;

  beforeAll(async () => {
    cluster = await startCluster();
    site = createServer((req, res) => res.writeHead(req.url?.startsWith('/gone') ? 404 : 200).end('x'));
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  }, 120_000);
  afterAll(async () => {
    cluster?.stop();
    await new Promise<void>((resolve) => site.close(() => resolve()));
  });

  it('stale and broken: the same findings from PostgreSQL as from an SQLite file, reading only', async () => {
    const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { env: { ...fx.env, ...env }, timeoutMs: 90_000 });
    const ids: number[] = [];
    for (const [url, alias] of [[`${siteUrl}/gone`, 'gone-page'], [`${siteUrl}/fine`, 'fine-page']]) {
      const r = await cli(['link', 'add', url!, '--alias', alias!, '--json']);
      expect(r.code, r.stderr).toBe(0);
      ids.push(JSON.parse(r.stdout).id);
    }
    const day = 86_400_000;
    const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
    const dbs = [cluster!.url, join(cluster!.dir, 'lint.db')];
    for (const db of dbs) {
      for (const at of [iso(Date.now() - 120 * day), iso(Date.now() - 3_600_000)]) {
        const s = await cli(['stats', 'snapshot', '-q', '--db', db], { LINKCTL_NOW: at });
        expect(s.code, s.stderr).toBe(0);
      }
      const c = await cli(['check', '--db', db, '--allow-private', '127.0.0.1', '--json']);
      expect([0, 1], c.stderr).toContain(c.code);
    }
    // Only the history rules: the account's other findings (plain http to the test's server) aside.
    const policy = join(cluster!.dir, 'history-only.yaml');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(policy, 'version: 1\nlint:\n  insecure-destination: off\n  expiring: off\n');
    const results = [];
    for (const db of dbs) {
      fx.sandbox.requests.length = 0;
      const r = await cli(['lint', '--json', '--db', db, '--policy', policy]);
      expect(r.code, r.stderr).toBe(1);
      // The account (to find its history) and the five lists; no change.
      expect(fx.sandbox.requests.map((q) => q.method)).toEqual(Array(6).fill('GET'));
      results.push(JSON.parse(r.stdout).findings);
    }
    expect(results[0]).toEqual(results[1]);
    const rules = (results[0] as Array<{ rule: string; record: string; message: string }>).map((f) => `${f.rule} ${f.record}`);
    expect(rules).toEqual([`broken link ${ids[0]} (gone-page)`, `stale link ${ids[0]} (gone-page)`, `stale link ${ids[1]} (fine-page)`]);
    expect((results[0] as Array<{ message: string }>)[1]!.message).toMatch(/^no clicks in 90 days \(none since \d{4}-\d\d-\d\d; history: 2 snapshots from /);
  }, 240_000);
});
