/**
 * `stats export` and `stats top --group` (issue 43), against the sandbox: a six-day history of
 * links in two campaigns and one channel, with a missed snapshot. The Parquet files are read
 * back by DuckDB (an independent reader: the writer is hyparquet-writer) and their sums checked
 * against `stats show --json`. The same on PostgreSQL in stats-export-postgres.test.ts.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { BIN, cleanEnv, runCli, runMain, tempDir } from '../helpers.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { sixDays, readParquet, type History } from './warehouse-fixture.js';

const { default: Database } = { default: createRequire(import.meta.url)('libsql') as new (file: string) => { prepare(sql: string): { all(...p: unknown[]): unknown[]; run(...p: unknown[]): unknown; raw(on: boolean): unknown }; close(): void } };

describe('stats export and rollups on SQLite', () => {
  let sandbox: Sandbox;
  let dir: string;
  let history: History;
  beforeAll(async () => {
    // a sandbox of this file's own, not reset between tests: the channels are read from it when the commands run
    sandbox = await startSandbox({ port: 0, rateLimit: null });
    dir = tempDir();
    const env = { LINKCTL_BASE_URL: sandbox.url, LINKCTL_API_KEY: sandbox.key, LINKCTL_CONFIG_DIR: join(dir, 'config') };
    const file = join(dir, 'history.db');
    history = await sixDays(sandbox, env, file, async (sql, params) => {
      const db = new Database(file);
      try {
        const statement = db.prepare(sql.replace(/\$\d+/g, '?'));
        if (/^\s*select/i.test(sql)) {
          statement.raw(true);
          return statement.all(...params) as unknown[][];
        }
        statement.run(...params);
        return [];
      } finally {
        db.close();
      }
    });
  }, 300_000); // a six-day history through the CLI: minutes on a loaded machine
  afterAll(async () => {
    await sandbox?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes day partitions that an independent reader reads, whose per-link sums equal stats show, and a second export replaces them', async () => {
    const out = join(dir, 'parquet');
    const first = await history.stats(['export', '--out', out, '--json']);
    expect(first.code, first.stderr).toBe(0);
    const days = readdirSync(join(out, 'link_clicks')).sort();
    expect(days).toEqual(['day=2025-06-02', 'day=2025-06-03', 'day=2025-06-04', 'day=2025-06-05', 'day=2025-06-06']);
    for (const day of days) expect(readdirSync(join(out, 'link_clicks', day))).toEqual(['part-0.parquet']);
    await history.checkSums(out);
    const rows = await readParquet(`SELECT count(*) AS n FROM read_parquet('${out}/link_clicks/*/*.parquet')`);
    // typed columns, as the schema says
    const types = await readParquet(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('${out}/link_clicks/*/*.parquet', hive_partitioning = false))`);
    expect(Object.fromEntries(types.map((t) => [t.column_name, t.column_type]))).toMatchObject({ date: 'DATE', link_id: 'BIGINT', clicks: 'BIGINT', unique_clicks: 'BIGINT', estimated: 'BOOLEAN', alias: 'VARCHAR', campaign: 'VARCHAR', channel: 'VARCHAR' });
    // the day of the missed snapshot is estimated; campaign and channel names are there
    const est = await readParquet(`SELECT day::VARCHAR AS day, bool_or(estimated) AS e FROM read_parquet('${out}/link_clicks/*/*.parquet', hive_partitioning = true) GROUP BY day ORDER BY day`);
    expect(est.map((r) => [r.day, r.e])).toEqual([['2025-06-02', false], ['2025-06-03', false], ['2025-06-04', true], ['2025-06-05', true], ['2025-06-06', false]]);
    const docs = await readParquet(`SELECT DISTINCT campaign, channel, domain FROM read_parquet('${out}/link_clicks/*/*.parquet') WHERE alias = 'docs'`);
    expect(docs).toEqual([{ campaign: 'Spring launch', channel: 'Marketing, Press', domain: expect.stringMatching(/^127\.0\.0\.1:\d+$/) }]);

    const again = await history.stats(['export', '--out', out, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(await readParquet(`SELECT count(*) AS n FROM read_parquet('${out}/link_clicks/*/*.parquet')`)).toEqual(rows);
    expect(JSON.parse(again.stdout).tables).toEqual(JSON.parse(first.stdout).tables);
    expect(readdirSync(join(out, 'link_clicks', 'day=2025-06-02')).filter((f) => f.includes('tmp'))).toEqual([]);
  });

  it('deletes only what an export wrote: a folder holding other files is refused (nothing deleted); in its own folder a day now empty loses only the export\'s file', async () => {
    const foreign = join(dir, 'foreign');
    mkdirSync(join(foreign, 'link_clicks', 'day=2025-06-02'), { recursive: true });
    writeFileSync(join(foreign, 'link_clicks', 'day=2025-06-02', 'part-7.parquet'), 'someone else\'s');
    writeFileSync(join(foreign, 'notes.txt'), 'mine');
    const refused = await history.stats(['export', '--out', foreign]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--out .*foreign holds files no linkctl stats export wrote/);
    expect(readdirSync(join(foreign, 'link_clicks', 'day=2025-06-02'))).toEqual(['part-7.parquet']);
    expect(readdirSync(foreign).sort()).toEqual(['link_clicks', 'notes.txt']);

    const own = join(dir, 'own');
    expect((await history.stats(['export', '--out', own])).code).toBe(0);
    expect(existsSync(join(own, '.linkctl-export'))).toBe(true);
    // The first snapshot's day has no rows: an old partition of it goes, but only the export's file.
    const empty = join(own, 'link_clicks', 'day=2025-06-01');
    mkdirSync(empty);
    copyFileSync(join(own, 'link_clicks', 'day=2025-06-02', 'part-0.parquet'), join(empty, 'part-0.parquet'));
    writeFileSync(join(empty, 'keep.txt'), 'a note of mine');
    writeFileSync(join(own, 'link_clicks', 'day=2025-06-02', 'part-3.parquet'), 'mine too');
    const again = await history.stats(['export', '--out', own, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(readdirSync(empty)).toEqual(['keep.txt']);
    expect(readdirSync(join(own, 'link_clicks', 'day=2025-06-02')).sort()).toEqual(['part-0.parquet', 'part-3.parquet']);
  });

  it('visits from the events table and QR scans are tables of their own; --format csv writes the same rows', async () => {
    await history.insertVisits();
    const out = join(dir, 'visits');
    const r = await history.stats(['export', '--out', out, '--since', '2025-06-05', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(join(out, 'link_clicks')).sort()).toEqual(['day=2025-06-05', 'day=2025-06-06']);
    const visits = await readParquet(`SELECT event_id, alias, country, CAST("at" AS VARCHAR) AS t FROM read_parquet('${out}/visits/*/*.parquet') ORDER BY "at"`);
    expect(visits).toEqual([
      { event_id: 'evt-1', alias: 'docs', country: 'Canada', at: '2025-06-05 10:00:00+00' },
      { event_id: 'evt-2', alias: 'spring-sale', country: 'Germany', at: '2025-06-06 01:30:00+00' },
    ].map(({ at, ...v }) => ({ ...v, t: expect.stringMatching(new RegExp(`^${at.slice(0, 19)}`)) })));
    const full = join(dir, 'parquet');
    expect(await readParquet(`SELECT name, strftime("date", '%Y-%m-%d') AS d, scans FROM read_parquet('${full}/qr_scans/*/*.parquet', hive_partitioning = false)`)).toEqual([{ name: 'Restaurant menu', d: '2025-06-03', scans: 2 }]);

    const csvOut = join(dir, 'csv');
    const c = await history.stats(['export', '--out', csvOut, '--format', 'csv', '--json']);
    expect(c.code, c.stderr).toBe(0);
    const csv = readFileSync(join(csvOut, 'link_clicks', 'day=2025-06-06', 'part-0.csv'), 'utf8').trim().split('\r\n');
    expect(csv[0]).toBe('date,link_id,alias,short_url,campaign_id,campaign,channel,domain,clicks,unique_clicks,estimated,server,account');
    const csvSum = await readParquet(`SELECT sum(clicks)::INT AS clicks FROM read_csv('${csvOut}/link_clicks/*/*.csv')`);
    const pqSum = await readParquet(`SELECT sum(clicks)::INT AS clicks FROM read_parquet('${join(dir, 'parquet')}/link_clicks/*/*.parquet')`);
    expect(csvSum).toEqual(pqSum);
  });

  // Issue 50, item 5: link_clicks held the snapshot differences with the events taken off and
  // never added them back (docs: 2 clicks in Parquet, 11 in stats show), some rows had more
  // unique clicks than clicks, and the query in docs/warehouse.md disagreed with `stats top --group`.
  it('with listen\'s events: rows add up to stats show and top, unique clicks never exceed clicks, and the docs\' query gives top --group campaign\'s numbers', async () => {
    const file = join(dir, 'with-events.db');
    const original = new Database(history.env.LINKCTL_DB!);
    original.prepare(`VACUUM INTO '${file}'`).run();
    original.close();
    const db = new Database(file);
    const one = (sql: string, ...p: unknown[]) => {
      const s = db.prepare(sql);
      s.raw(true);
      return s.all(...p) as unknown[][];
    };
    const [[source]] = one('SELECT id FROM sources') as number[][];
    const item = (alias: string) => (one("SELECT id, url FROM items WHERE kind = 'link' AND alias = ?", alias) as [number, string][])[0]!;
    // a run of listen over the 5th and 6th, and visits as it stores them (each tied to its link's item)
    db.prepare('INSERT INTO listen_runs (source_id, started_at, alive_at) VALUES (?, ?, ?)').run(source, '2025-06-04T12:00:00.000Z', '2025-06-06T06:59:00.000Z');
    const visits: Array<[string, string]> = [['docs', '2025-06-04T20:00:00.000Z'], ['docs', '2025-06-05T02:00:00.000Z'], ['docs', '2025-06-05T12:00:00.000Z'], ['docs', '2025-06-05T20:00:00.000Z'], ['docs', '2025-06-06T03:00:00.000Z'], ['autumn', '2025-06-06T05:00:00.000Z'], ['spring-sale', '2025-06-05T23:00:00.000Z']];
    visits.forEach(([alias, at], i) => {
      const [id, url] = item(alias);
      db.prepare("INSERT INTO events (source_id, event_id, kind, at, received_at, item_id, short_url, alias) VALUES (?, ?, 'link.clicked', ?, ?, ?, ?, ?)").run(source, `evt-live-${i}`, at, at, id, url, alias);
    });
    db.close();
    // this copy's own database (history.stats names the fixture's with --db)
    const stats = (args: string[]) => runCli(['stats', ...args], { env: { ...history.env, LINKCTL_DB: file }, timeoutMs: 60_000 });
    const out = join(dir, 'with-events');
    const r = await stats(['export', '--out', out, '--json']);
    expect(r.code, r.stderr).toBe(0);

    // per link and day, and in all, what stats show says (events included)
    const show = JSON.parse((await stats(['show', '--since', '10d', '--by', 'day', '--link', 'docs', '--link', 'spring-sale', '--link', 'autumn', '--json'])).stdout) as { series: Array<{ label: string; clicks: number }>; points: Array<{ label: string; start: string; clicks: number | null; uniqueClicks: number | null }> };
    const exported = await readParquet(`SELECT alias, strftime("date", '%Y-%m-%d') AS d, sum(clicks)::INT AS clicks, sum(unique_clicks)::INT AS u FROM read_parquet('${out}/link_clicks/*/*.parquet', hive_partitioning = false) GROUP BY alias, d ORDER BY alias, d`);
    const fromShow = show.points.filter((p) => p.clicks).map((p) => ({ alias: p.label, d: p.start.slice(0, 10), clicks: p.clicks, u: p.uniqueClicks })).sort((a, b) => a.alias.localeCompare(b.alias) || a.d.localeCompare(b.d));
    expect(exported).toEqual(fromShow);
    const docs = show.series.find((s) => s.label === 'docs')!;
    expect(exported.filter((e) => e.alias === 'docs').reduce((a, e) => a + e.clicks, 0)).toBe(docs.clicks);
    expect(docs.clicks).toBeGreaterThanOrEqual(7); // the 5 events count, on their own days
    expect(await readParquet(`SELECT count(*)::INT AS n FROM read_parquet('${out}/link_clicks/*/*.parquet') WHERE unique_clicks > clicks`)).toEqual([{ n: 0 }]);
    const top = JSON.parse((await stats(['top', '--since', '10d', '--json'])).stdout);
    const total = await readParquet(`SELECT sum(clicks)::INT AS clicks FROM read_parquet('${out}/link_clicks/*/*.parquet')`);
    expect(total).toEqual([{ clicks: top.clicks ?? top.links.reduce((a: number, l: { clicks: number }) => a + l.clicks, 0) }]);

    // the query docs/warehouse.md gives, as written there, against `stats top --group campaign` over the same days
    const guide = readFileSync(new URL('../../docs/warehouse.md', import.meta.url), 'utf8');
    const query = /```sql\n(CREATE OR REPLACE TABLE link_clicks AS[\s\S]*?)```/.exec(guide)![1]!.replaceAll("'warehouse/", `'${out}/`);
    const statements = query.split(';').map((q) => q.trim()).filter(Boolean);
    const since = /date >= DATE '(\d{4}-\d\d-\d\d)'/.exec(statements[1]!)![1]!;
    const byCampaign = await readParquet(`${statements[0]}; ${statements[1]}`);
    const grouped = JSON.parse((await stats(['top', '--group', 'campaign', '--since', since, '--json'])).stdout);
    const fromTop = Object.fromEntries([...grouped.groups.map((g: { group: string; clicks: number }) => [g.group, g.clicks]), ['null', grouped.ungrouped.clicks]]);
    expect(Object.fromEntries(byCampaign.map((row) => [String(row.campaign), row['sum(clicks)']]))).toEqual(fromTop);
  });

  // Issue 50, item 11: the temporary file was `.part-0.csv.<pid>.tmp`, opened with 'w': a symlink
  // planted at that name had its target overwritten. In-process, so the pid is this one.
  it('a symlink planted at a temporary file\'s name is never written through', async () => {
    const out = join(dir, 'planted');
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'keep me\n');
    // the folder an earlier export made (an export writes only into its own), links planted in it since
    expect((await runMain(['stats', 'export', '--out', out, '--format', 'csv', '--db', history.env.LINKCTL_DB!], { env: history.env })).code).toBe(0);
    for (const table of ['link_clicks', 'visits', 'qr_scans']) {
      for (const day of ['02', '03', '04', '05', '06']) {
        const folder = join(out, table, `day=2025-06-${day}`);
        mkdirSync(folder, { recursive: true });
        for (const ext of ['csv', 'parquet']) symlinkSync(victim, join(folder, `.part-0.${ext}.${process.pid}.tmp`));
      }
    }
    for (const format of ['csv', 'parquet']) {
      const r = await runMain(['stats', 'export', '--out', out, '--format', format, '--db', history.env.LINKCTL_DB!], { env: history.env });
      expect(r.code, r.stderr).toBe(0);
    }
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n');
    expect(readdirSync(join(out, 'link_clicks', 'day=2025-06-02')).filter((f) => f.endsWith('.tmp') && !f.includes(String(process.pid)))).toEqual([]);
  });

  it('stats top --group campaign and channel: right totals, links in none counted apart, a link in two channels counted in each', async () => {
    const byCampaign = await history.stats(['top', '--group', 'campaign', '--since', '5d', '--json']);
    expect(byCampaign.code, byCampaign.stderr).toBe(0);
    const c = JSON.parse(byCampaign.stdout);
    const per = await history.perLink('5d');
    expect(c.groups.map((g: any) => [g.group, g.links, g.clicks])).toEqual([['Spring launch', 1, per.docs], ['Autumn push', 1, per.autumn]].sort((a, b) => (b[2] as number) - (a[2] as number)));
    expect(c.ungrouped).toMatchObject({ links: 1, clicks: per['spring-sale'] });
    expect(c.clicks).toBe(per.docs! + per.autumn! + per['spring-sale']!);

    const byChannel = await history.stats(['top', '--group', 'channel', '--since', '5d', '--json']);
    expect(byChannel.code, byChannel.stderr).toBe(0);
    const ch = JSON.parse(byChannel.stdout);
    expect(ch.groups.map((g: any) => [g.group, g.clicks, g.shared])).toEqual([['Marketing', per.docs! + per.autumn!, 1], ['Press', per.docs, 1]]);
    expect(ch.ungrouped).toMatchObject({ links: 1, clicks: per['spring-sale'] });
    expect(byChannel.stderr).toMatch(/1 link is in more than one channel: its clicks count in each/);

    const table = await history.stats(['top', '--group', 'campaign', '--since', '5d'], { COLUMNS: '80' });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/\(no campaign\)/);
    expect(table.stdout.split('\n').every((l) => l.length <= 80)).toBe(true);
  });

  it('stats top --group browser, os, referrer and country: visits named where snapshots read details, the rest counted apart, adding up to the total', async () => {
    const per = await history.perLink('5d');
    const total = per.docs! + per.autumn! + per['spring-sale']!;
    for (const group of ['browser', 'os', 'referrer', 'country']) {
      const r = await history.stats(['top', '--group', group, '--since', '5d', '--json']);
      expect(r.code, r.stderr).toBe(0);
      const g = JSON.parse(r.stdout);
      expect(g.clicks).toBe(total);
      const named = g.groups.reduce((sum: number, row: { clicks: number }) => sum + row.clicks, 0);
      // only what two snapshots with details both list is named here (no events): the rest is apart, never dropped
      expect(named).toBeGreaterThan(0);
      expect(named + g.ungrouped.clicks).toBe(total);
      expect(g.ungrouped.links).toBeGreaterThan(0);
      expect(r.stderr).toContain(`${named} of the ${total} clicks`);
      expect(g.shared).toBe(0);
    }
    // the same numbers on PostgreSQL (stats-export-postgres.test.ts)
    for (const [group, named] of [['referrer', { 'Direct, email and other': 4 }], ['browser', { 'Unknown Browser': 1 }]] as const) { // the product's name (real-servers.md, fact 42)
      const g = JSON.parse((await history.stats(['top', '--group', group, '--since', '5d', '--json'])).stdout);
      expect(Object.fromEntries(g.groups.map((row: any) => [row.group, row.clicks]))).toEqual(named);
    }
    const table = await history.stats(['top', '--group', 'referrer', '--since', '5d'], { COLUMNS: '80' });
    expect(table.stdout).toMatch(/Direct, email and other/);
    expect(table.stdout).toMatch(/\(no referrer read\)/);
  });

  it('MCP stats_top takes group and gives the CLI\'s answer', async () => {
    const cli = JSON.parse((await history.stats(['top', '--group', 'campaign', '--since', '5d', '--json'])).stdout);
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: cleanEnv(history.env), stderr: 'pipe' });
    const client = new Client({ name: 'linkctl-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const top = (await client.callTool({ name: 'stats_top', arguments: { since: '5d', group: 'campaign' } })) as { isError?: boolean; content: Array<{ text: string }> };
      expect(top.isError).toBeFalsy();
      expect(JSON.parse(top.content[0]!.text)).toEqual(cli);
      expect(cli.ungrouped.links).toBe(1);
    } finally {
      await client.close();
    }
  });

  it('the report has a section by campaign and by channel, and says what part of the clicks the breakdowns cover', async () => {
    const page = join(dir, 'report.html');
    const r = await history.stats(['report', '--since', '5d', '--html', page, '--force']);
    expect(r.code, r.stderr).toBe(0);
    const html = readFileSync(page, 'utf8');
    expect(html).toMatch(/id="group-campaign"/);
    expect(html).toMatch(/By campaign/);
    expect(html).toMatch(/Autumn push/);
    expect(html).toMatch(/No campaign/);
    expect(html).not.toMatch(/`/);
    // each breakdown says what part of the window's clicks it covers, and that one snapshot read no details
    expect(html).toMatch(/<p class="muted coverage">\d+ of 19 clicks: those of the 2 links with details, 2 of them read in only some snapshots<\/p>/);
    expect(html).toMatch(/id="qrs"/);
    // in print, every chart keeps its numbers; headings stay with what follows them
    expect(html.match(/<p class="print-only numbers">Clicks per day: 2 Jun: \d+/g)?.length).toBeGreaterThanOrEqual(1);
    expect(html).toMatch(/<div class="keep"><h2>By campaign<\/h2>/);

    // a window without scans: no empty "Most scanned QR codes" box
    const quiet = await history.stats(['report', '--since', '1d', '--html', page, '--force']);
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(readFileSync(page, 'utf8')).not.toMatch(/Most scanned QR codes|id="qrs"/);
  });

  it('bad input: no --out, a file as --out, a bad --format or --group: exit 2, nothing sent', async () => {
    sandbox.requests.length = 0;
    for (const [args, flag] of [[['export'], /--out/], [['export', '--out', join(dir, 'history.db')], /--out/], [['export', '--out', dir, '--format', 'xlsx'], /--format/], [['top', '--group', 'color'], /--group/]] as const) {
      const r = await history.stats([...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(flag);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
    expect(sandbox.requests).toEqual([]);
    expect(existsSync(join(dir, 'parquet'))).toBe(true);
  });
});
