/**
 * The six-day history of issue 43's checks, for stats-export.test.ts (SQLite) and
 * stats-export-postgres.test.ts: links in two campaigns (docs in "Spring launch", autumn in
 * "Autumn push"), spring-sale in none; docs and autumn in the channel Marketing, docs in Press
 * too; snapshots on 2025-06-01, 02, 03, 05 and 06 (the 4th missed: its clicks spread, estimated)
 * with visits between. And DuckDB, the independent reader of the Parquet files.
 */
import { createRequire } from 'node:module';
import { expect } from 'vitest';
import { runCli, type RunResult } from '../helpers.js';
import type { Sandbox } from '../../src/sandbox/server.js';
import { qrShortAlias } from '../../src/sandbox/qr-images.js';

export interface History {
  /** The CLI's environment for this history (server, key, database, clock). */
  env: Record<string, string>;
  stats(args: string[], env?: Record<string, string>): Promise<RunResult>;
  /** Each link's clicks over `since` as `stats show --json` counts them (alias -> clicks). */
  perLink(since: string): Promise<Record<string, number>>;
  /** Compares the exported daily clicks per link with `stats show --json --by day`. */
  checkSums(out: string): Promise<void>;
  /** Two visits in the events table, as `linkctl listen` stores them. */
  insertVisits(): Promise<void>;
}

export const NOW = '2025-06-06T07:00:00Z';

export async function sixDays(sandbox: Sandbox, env: Record<string, string>, db: string, query: (sql: string, params: unknown[]) => Promise<unknown[][]>): Promise<History> {
  const cli = async (args: string[], extra: Record<string, string> = {}) => runCli(args, { env: { ...env, ...extra }, timeoutMs: 60_000 });
  const must = async (args: string[], extra?: Record<string, string>) => {
    const r = await cli(args, extra);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return r;
  };
  await must(['campaign', 'add', '--name', 'Autumn push']);
  await must(['link', 'add', 'https://example.com/autumn', '--alias', 'autumn', '--campaign', 'Autumn push', '--channel', 'Marketing']);
  const press = JSON.parse((await must(['channel', 'add', '--name', 'Press', '--json'])).stdout);
  await must(['channel', 'assign', String(press.id), 'links', '1']);
  const visit = async (alias: string, n: number) => {
    for (let i = 0; i < n; i++) await fetch(`${sandbox.url}/${alias}`, { redirect: 'manual', headers: { 'User-Agent': `export-test/${alias}/${i}/${Math.random()}` } });
  };
  // the details of the 2 most clicked links, read in every snapshot but the one of the 3rd
  const snapshot = (day: string) => must(['stats', 'snapshot', '-q', ...(day === '03' ? [] : ['--details', '2']), '--db', db], { LINKCTL_NOW: `2025-06-${day}T06:00:00Z` });
  await snapshot('01');
  await visit('docs', 3);
  await visit('autumn', 2);
  await snapshot('02');
  await visit('spring-sale', 4);
  await visit('docs', 1);
  await visit(qrShortAlias({ id: 1 }), 2); // two scans of the QR code "Restaurant menu"
  await snapshot('03');
  await visit('autumn', 5);
  await visit('docs', 2);
  await snapshot('05'); // the 4th missed: spread over the 4th and the 5th
  await visit('spring-sale', 1);
  await visit('autumn', 1);
  await snapshot('06');

  const stats = (args: string[], extra: Record<string, string> = {}) => cli(['stats', ...args, '--db', db], { LINKCTL_NOW: NOW, ...extra });
  const show = async (since: string) => {
    const r = await stats(['show', '--since', since, '--by', 'day', '--link', 'docs', '--link', 'spring-sale', '--link', 'autumn', '--json']);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as { series: Array<{ label: string; clicks: number }>; points: Array<{ label: string; start: string; clicks: number | null }> };
  };
  return {
    env: { ...env, LINKCTL_DB: db, LINKCTL_NOW: NOW },
    stats,
    async perLink(since) {
      return Object.fromEntries((await show(since)).series.map((s) => [s.label, s.clicks]));
    },
    async checkSums(out) {
      const shown = await show('10d');
      const exported = await readParquet(`SELECT alias, strftime("date", '%Y-%m-%d') AS d, sum(clicks)::INT AS clicks FROM read_parquet('${out}/link_clicks/*/*.parquet', hive_partitioning = false) GROUP BY alias, d ORDER BY alias, d`);
      const fromShow = shown.points.filter((p) => p.clicks).map((p) => ({ alias: p.label, d: p.start.slice(0, 10), clicks: p.clicks })).sort((a, b) => a.alias.localeCompare(b.alias) || a.d.localeCompare(b.d));
      expect(exported).toEqual(fromShow);
      const totals = await readParquet(`SELECT alias, sum(clicks)::INT AS clicks FROM read_parquet('${out}/link_clicks/*/*.parquet') GROUP BY alias ORDER BY alias`);
      expect(totals).toEqual(shown.series.filter((s) => s.clicks).map((s) => ({ alias: s.label, clicks: s.clicks })).sort((a, b) => a.alias.localeCompare(b.alias)));
      expect(totals.map((t) => t.clicks)).toEqual([2 + 5 + 1, 3 + 1 + 2, 4 + 1]); // autumn, docs, spring-sale
    },
    async insertVisits() {
      const [[source]] = (await query("SELECT id FROM sources WHERE base_url = 'sandbox' OR base_url LIKE 'http%'", [])) as number[][];
      for (const [id, alias, at, country] of [['evt-1', 'docs', '2025-06-05T10:00:00.000Z', 'Canada'], ['evt-2', 'spring-sale', '2025-06-06T01:30:00.000Z', 'Germany'], ['evt-3', 'docs', '2025-06-06T02:00:00.000Z', null]]) {
        await query(
          'INSERT INTO events (source_id, event_id, kind, at, received_at, short_url, alias, country) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
          [source, id, id === 'evt-3' ? 'link.created' : 'link.clicked', at, at, `${sandbox.url}/${alias}`, alias, country],
        );
      }
    },
  };
}

interface DuckDb {
  DuckDBInstance: { create(path: string): Promise<{ connect(): Promise<{ runAndReadAll(sql: string): Promise<{ getRowObjectsJson(): Array<Record<string, unknown>> }>; closeSync(): void }> }> };
}
const duckdb = createRequire(import.meta.url)('@duckdb/node-api') as DuckDb;

/** Rows of a DuckDB query (the independent reader), as JSON values (BIGINT as numbers when they fit). */
export async function readParquet(sql: string): Promise<Array<Record<string, any>>> {
  const instance = await duckdb.DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const rows = (await connection.runAndReadAll(sql)).getRowObjectsJson();
    return rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'string' && /^-?\d+$/.test(v) && k !== 'day' ? Number(v) : v])));
  } finally {
    connection.closeSync();
  }
}
