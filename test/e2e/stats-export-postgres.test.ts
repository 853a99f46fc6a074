/**
 * `stats export` and `stats top --group` with the history in PostgreSQL (a private cluster this
 * file starts and stops, test/postgres.ts): the six-day history of warehouse-fixture.ts, the
 * Parquet files read back by DuckDB, sums against `stats show`. Skipped, saying why, without
 * PostgreSQL.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers.js';
import { pgSkipReason as why, sql, startCluster, type Cluster } from '../postgres.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { readParquet, sixDays, type History } from './warehouse-fixture.js';

describe.skipIf(why)(`stats export and rollups on PostgreSQL${why ? ` (skipped: ${why})` : ''}`, () => {
  let cluster: Cluster | undefined;
  let sandbox: Sandbox;
  let dir: string;
  let history: History;

  beforeAll(async () => {
    cluster = await startCluster();
    sandbox = await startSandbox({ port: 0, rateLimit: null });
    dir = tempDir();
    const env = { LINKCTL_BASE_URL: sandbox.url, LINKCTL_API_KEY: sandbox.key, LINKCTL_CONFIG_DIR: join(dir, 'config') };
    const url = cluster.url;
    history = await sixDays(sandbox, env, url, async (text, params) => (await sql(url, text.replace(/\bFROM (sources|events)\b/g, 'FROM linkctl.$1').replace(/\bINTO events\b/, 'INTO linkctl.events'), params)).map((r) => Object.values(r)));
  }, 300_000);
  afterAll(async () => {
    await sandbox?.close();
    cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('day partitions an independent reader reads, per-link sums equal to stats show, a second export with the same rows, visits from the events table', async () => {
    await history.insertVisits();
    const out = join(dir, 'parquet');
    const first = await history.stats(['export', '--out', out, '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(readdirSync(join(out, 'link_clicks')).sort()).toEqual(['day=2025-06-02', 'day=2025-06-03', 'day=2025-06-04', 'day=2025-06-05', 'day=2025-06-06']);
    await history.checkSums(out);
    const count = `SELECT count(*) AS n FROM read_parquet('${out}/link_clicks/*/*.parquet')`;
    const rows = await readParquet(count);
    expect(await readParquet(`SELECT event_id FROM read_parquet('${out}/visits/*/*.parquet') ORDER BY event_id`)).toEqual([{ event_id: 'evt-1' }, { event_id: 'evt-2' }]);
    const again = await history.stats(['export', '--out', out, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(await readParquet(count)).toEqual(rows);
  });

  it('stats top --group campaign and channel: right totals, links in no campaign counted apart; the report has a section by campaign', async () => {
    const per = await history.perLink('5d');
    const c = JSON.parse((await history.stats(['top', '--group', 'campaign', '--since', '5d', '--json'])).stdout);
    expect(Object.fromEntries(c.groups.map((g: any) => [g.group, g.clicks]))).toEqual({ 'Spring launch': per.docs, 'Autumn push': per.autumn });
    expect(c.ungrouped).toMatchObject({ links: 1, clicks: per['spring-sale'] });
    const ch = JSON.parse((await history.stats(['top', '--group', 'channel', '--since', '5d', '--json'])).stdout);
    expect(Object.fromEntries(ch.groups.map((g: any) => [g.group, g.clicks]))).toEqual({ Marketing: per.docs! + per.autumn!, Press: per.docs });
    const page = join(dir, 'report.html');
    const r = await history.stats(['report', '--since', '5d', '--html', page]);
    expect(r.code, r.stderr).toBe(0);
    expect((await import('node:fs')).readFileSync(page, 'utf8')).toMatch(/<section class="block" id="group-campaign">[^]*Autumn push[^]*No campaign/);
  });

  it('stats top --group referrer and browser: what two reads of details both list is named, the rest counted apart (the same numbers as on SQLite)', async () => {
    for (const [group, named] of [['referrer', { 'Direct, email and other': 4 }], ['browser', { 'Unknown Browser': 1 }]] as const) { // the product's name (real-servers.md, fact 42)
      const g = JSON.parse((await history.stats(['top', '--group', group, '--since', '5d', '--json'])).stdout);
      expect(Object.fromEntries(g.groups.map((row: any) => [row.group, row.clicks]))).toEqual(named);
      expect(g.ungrouped.clicks + Object.values(named).reduce((a, b) => a + b, 0)).toBe(g.clicks);
    }
  });
});
