/**
 * `--db postgres://...` against a real PostgreSQL server that this file starts in a temporary
 * folder and stops (test/postgres.ts). Skipped, saying why, when there is none.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runMain, spawnCli, useSandbox, type SandboxFixture } from '../helpers.js';
import { freePort, pgSkipReason as why, sql, startCluster, type Cluster } from '../postgres.js';

describe.skipIf(why)(`click history in PostgreSQL${why ? ` (skipped: ${why})` : ''}`, () => {
  const fx = useSandbox();
  let cluster: Cluster | undefined;
  let dir: string;
  let url: string;

  beforeAll(async () => {
    cluster = await startCluster();
    ({ dir, url } = cluster);
  }, 120_000);
  afterAll(() => cluster?.stop());

  const stats = (db: string, now: string, args: string[]) => runMain(['stats', ...args, '--db', db], { env: { ...fx.env, LINKCTL_NOW: now } });
  async function visit(sandbox: SandboxFixture, alias: string, n: number) {
    for (let i = 0; i < n; i++) await fetch(`${sandbox.sandbox.url}/${alias}`, { redirect: 'manual', headers: { 'User-Agent': `pg-test/${i}/${Math.random()}` } });
  }

  it('the same snapshots give the same series in PostgreSQL as in the SQLite file, from the same tables', async () => {
    const file = join(dir, 'same.db');
    const both = async (now: string, args: string[]) => {
      const a = await stats(url, now, args);
      const b = await stats(file, now, args);
      expect(a.code, a.stderr).toBe(0);
      expect(b.code, b.stderr).toBe(0);
      return [a.stdout, b.stdout];
    };
    await both('2025-06-01T06:00:00Z', ['snapshot', '-q', '--details', '2']);
    await visit(fx, 'docs', 3);
    await both('2025-06-02T06:00:00Z', ['snapshot', '-q', '--details', '2']);
    await visit(fx, 'spring-sale', 2);
    await both('2025-06-04T06:00:00Z', ['snapshot', '-q', '--details', '2']);
    const [postgres, sqlite] = await both('2025-06-04T07:00:00Z', ['show', '--since', '3d', '--link', 'docs', '--link', 'spring-sale', '--json']);
    expect(JSON.parse(postgres!)).toEqual(JSON.parse(sqlite!));
    expect(JSON.parse(postgres!).series.map((s: { clicks: number }) => s.clicks)).toEqual([3, 2]);
    const [top, topSqlite] = await both('2025-06-04T07:00:00Z', ['top', '--since', '2d', '--json']);
    expect(JSON.parse(top!)).toEqual(JSON.parse(topSqlite!));
    expect(JSON.parse(top!).links.map((m: { alias: string }) => m.alias)).toEqual(['spring-sale']);

    const tables = await sql<{ table_name: string }>(url, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'linkctl' ORDER BY table_name");
    expect(tables.map((t) => t.table_name)).toEqual(['check_results', 'check_runs', 'click_changes', 'counts', 'detail_counts', 'detail_reads', 'event_forwards', 'events', 'items', 'ledger', 'listen_runs', 'meta', 'schema_migrations', 'snapshots', 'sources']);
    const changes = await sql(url, "SELECT taken_at, clicks, clicks_change FROM linkctl.click_changes WHERE alias = 'docs' ORDER BY taken_at");
    expect(changes).toEqual([{ taken_at: '2025-06-01T06:00:00.000Z', clicks: '57', clicks_change: null }, { taken_at: '2025-06-02T06:00:00.000Z', clicks: '60', clicks_change: '3' }]);
  });

  it('two snapshots at once from two processes: one stores every record, the other finds nothing changed', async () => {
    await sql(url, 'CREATE DATABASE parallel');
    const db = url.replace(/\/postgres$/, '/parallel');
    const env = { ...fx.env, LINKCTL_NOW: '2025-06-01T06:00:00Z' };
    const runs = await Promise.all([1, 2].map(() => spawnCli(['stats', 'snapshot', '--json', '--db', db], { env, timeoutMs: 90_000 }))); // two processes: what is tested
    const out = runs.map((r) => {
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { changed: number; first: boolean };
    });
    // 2 links, the menu's QR code and the campaign: the greeting and the wifi code count no scans (issue 55: unknown, not stored)
    expect(out.map((o) => o.changed).sort((a, b) => a - b)).toEqual([0, 4]);
    expect((await sql(db, 'SELECT count(*)::int AS n FROM linkctl.counts'))[0]).toEqual({ n: 4 });
    expect((await sql(db, 'SELECT count(*)::int AS n FROM linkctl.schema_migrations'))[0]).toEqual({ n: 7 }); // click history, link health (its results, then their flags), live events, the ledger, who a write was made as (--as-user), items found by short URL
  }, 120_000);

  it('a schema "linkctl" of something else is refused, nothing written; an unreachable server is exit 6 without the password', async () => {
    await sql(url, 'CREATE DATABASE other');
    const other = url.replace(/\/postgres$/, '/other');
    await sql(other, 'CREATE SCHEMA linkctl; CREATE TABLE linkctl.customers (id int)');
    const r = await runCli(['stats', 'snapshot', '--db', other], { env: fx.env });
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/is not a linkctl click-history database \(its schema "linkctl" holds other tables: customers\); nothing was written to it\n/);
    expect((await sql<{ table_name: string }>(other, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'linkctl'")).map((t) => t.table_name)).toEqual(['customers']);
    expect(fx.sandbox.requests).toEqual([]);

    const closed = await freePort();
    const away = await runCli(['stats', 'show', '--db', `postgres://linkctl:s3cret-pw@127.0.0.1:${closed}/postgres`], { env: fx.env });
    expect(away.code).toBe(6);
    expect(away.stderr).toMatch(/^linkctl: cannot reach the click-history database postgres:\/\/.*127\.0\.0\.1:\d+\/postgres \(ECONNREFUSED\)\n/);
    expect(away.stderr).not.toContain('s3cret-pw');
  });
});
