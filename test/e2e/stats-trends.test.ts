/**
 * Click history as a new user meets it over weeks (issue 31), with the clock the test's own
 * (LINKCTL_NOW): a missed day, a weekend without snapshots, `stats top` over a window longer
 * than the history and over a stale one, imported totals into an account with a history, one
 * history for `--sandbox` and a profile on the same `sandbox serve`, and MCP giving the CLI's
 * answers. The built CLI against a server of the test's own (test/history-server.ts) or the sandbox.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, tempDir, useSandbox, type RunResult } from '../helpers.js';
import { plainState, startHistoryServer, type HistoryServer } from '../history-server.js';
import { SANDBOX_KEY } from '../../src/sandbox/server.js';

const dir = tempDir('linkctl-trends-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = (ext = 'db') => join(dir, `h${++n}.${ext}`);
const at = (d: number, hour = 6) => new Date(Date.UTC(2025, 5, d, hour)).toISOString(); // June 2025: the 2nd is a Monday

const servers: HistoryServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});
async function server(): Promise<HistoryServer> {
  const configDir = join(dir, `config-${++n}`);
  mkdirSync(configDir);
  const s = await startHistoryServer(plainState(), configDir);
  servers.push(s);
  return s;
}

const ok = (r: RunResult) => {
  expect(r.code, r.stderr).toBe(0);
  return r;
};
function stats(env: Record<string, string>, db: string) {
  return (args: string[], now: string) => runCli(['stats', ...args], { env: { ...env, LINKCTL_DB: db, LINKCTL_NOW: now }, timeoutMs: 60_000 });
}

/** Daily snapshots at 06:00 on `days`, the links' totals set by `totals(day)` before each. */
async function history(s: HistoryServer, db: string, days: number[], totals: (d: number) => { docs: number; spring: number; scans?: number }) {
  for (const d of days) {
    const t = totals(d);
    s.state.links[0]!.clicks = String(t.docs);
    s.state.links[1]!.clicks = String(t.spring);
    if (t.scans !== undefined) s.state.qrs[0]!.scans = String(t.scans);
    ok(await stats(s.env, db)(['snapshot', '-q'], at(d)));
  }
}

describe('honest periods', () => {
  it('a missed day: its clicks are spread over it and the day after, estimated; a link falling steadily never peaks there', async () => {
    const s = await server();
    const db = fresh();
    // docs falls steadily: 20 clicks on the 2nd, 19 on the 3rd, ... (cumulative totals); no snapshot on the 8th
    const daily = (d: number) => 22 - d;
    const total = (d: number) => Array.from({ length: d - 1 }, (_, i) => daily(i + 2)).reduce((a, b) => a + b, 0);
    await history(s, db, [1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12], (d) => ({ docs: 100 + total(d), spring: 5 }));
    const out = JSON.parse(ok(await stats(s.env, db)(['show', '--since', '2025-06-02', '--link', 'docs', '--json'], at(12, 7))).stdout);
    const points = out.points as Array<{ period: string; clicks: number; estimated: boolean }>;
    expect(points.map((p) => p.period)).toEqual(['2025-06-02', '2025-06-03', '2025-06-04', '2025-06-05', '2025-06-06', '2025-06-07', '2025-06-08', '2025-06-09', '2025-06-10', '2025-06-11', '2025-06-12']);
    expect(points.filter((p) => p.estimated).map((p) => p.period)).toEqual(['2025-06-08', '2025-06-09']);
    const clicks = points.map((p) => p.clicks);
    expect(clicks[6]! + clicks[7]!).toBe(daily(8) + daily(9)); // 14 + 13, shared
    expect(Math.max(...clicks)).toBe(clicks[0]); // the highest point is where it started
    for (let i = 1; i < clicks.length; i++) expect(clicks[i]!, points[i]!.period).toBeLessThanOrEqual(clicks[i - 1]! + 1);
    expect(out.series[0]).toMatchObject({ clicks: total(12) - total(2) + daily(2), estimated: 2, gaps: 0 });
    // the same in a table: the two estimated days as shades, no spike
    const table = ok(await stats(s.env, db)(['show', '--since', '2025-06-02', '--link', 'docs', '-o', 'csv'], at(12, 7)));
    expect(table.stdout.split('\n')[0]).toBe('series,label,link,qr,campaign,period,start,clicks,uniqueClicks,gap,reset,estimated,from,to');
    expect(table.stderr).toContain('estimated: spread evenly over the periods a missed snapshot left between two others: estimates, not counts');
  });

  it('a weekend without snapshots: --by week counts each week whole, --by day spreads Friday to Monday over Saturday, Sunday and Monday', async () => {
    const s = await server();
    const db = fresh();
    const weekdays = [2, 3, 4, 5, 6, 9, 10, 11, 12, 13, 16, 17, 18, 19, 20]; // Mondays to Fridays, 2 to 20 June
    await history(s, db, weekdays, (d) => ({ docs: 10 * d, spring: 5 }));
    const weeks = JSON.parse(ok(await stats(s.env, db)(['show', '--by', 'week', '--since', '2025-06-09', '--link', 'docs', '--json'], at(20, 7))).stdout);
    expect(weeks.points.map((p: { period: string; clicks: number; estimated: boolean; gap: boolean }) => [p.period, p.clicks, p.estimated, p.gap])).toEqual([
      ['2025-W24', 70, false, false], // Friday 6th to Friday 13th
      ['2025-W25', 70, false, false],
    ]);
    const days = JSON.parse(ok(await stats(s.env, db)(['show', '--since', '2025-06-14', '--until', '2025-06-16T12:00Z', '--link', 'docs', '--json'], at(20, 7))).stdout);
    expect(days.points.map((p: { period: string; clicks: number; estimated: boolean }) => [p.period, p.clicks, p.estimated])).toEqual([
      ['2025-06-14', 10, true], ['2025-06-15', 10, true], ['2025-06-16', 10, true],
    ]);
  });
});

describe('stats top that answers', () => {
  it('a window longer than the history: ranked by the days it covers, said so; never an empty stdout when links have clicks', async () => {
    const s = await server();
    const db = fresh();
    await history(s, db, [1, 2, 3, 4, 5], (d) => ({ docs: 100 + 2 * d, spring: 5 + 5 * d }));
    const r = ok(await stats(s.env, db)(['top', '--since', '30d'], at(5, 7)));
    expect(r.stdout).toBe('1\t2\tspring\t20\t-\t-\t-\n2\t1\tdocs\t8\t-\t-\t-\n');
    expect(r.stderr).toBe("the history covers 4 days of the 30 days asked (2025-06-02 to 2025-06-05; the history starts 2025-06-01 06:00 UTC): ranked by those 4 days' clicks; no comparison: the history does not cover the 4 days before\n");
  });

  it('a stale history (newest snapshot 4 days old): ranked by the days it covers, compared with as many days before, said so', async () => {
    const s = await server();
    const db = fresh();
    // spring gets 10 a day all along; docs 1 a day until the 7th, then 9 a day
    await history(s, db, Array.from({ length: 10 }, (_, i) => i + 1), (d) => ({ docs: 100 + d + 8 * Math.max(0, d - 7), spring: 10 * d }));
    const r = JSON.parse(ok(await stats(s.env, db)(['top', '--since', '7d', '--json'], at(14, 7))).stdout);
    expect(r.window).toEqual({ from: '2025-06-08T00:00:00.000Z', to: '2025-06-15T00:00:00.000Z', periods: 7 });
    expect(r.covered).toEqual({ from: '2025-06-08T00:00:00.000Z', to: '2025-06-11T00:00:00.000Z', periods: 3 });
    expect(r.comparison).toEqual({ from: '2025-06-05T00:00:00.000Z', to: '2025-06-08T00:00:00.000Z', periods: 3 });
    expect(r.note).toBe("the history covers 3 days of the 7 days asked (2025-06-08 to 2025-06-10; the newest snapshot is from 2025-06-10 06:00 UTC): ranked by those 3 days' clicks; compared with the 3 days before (2025-06-05 to 2025-06-07)");
    expect(r.links.map((l: { alias: string; clicks: number; previous: number; direction: string }) => [l.alias, l.clicks, l.previous, l.direction])).toEqual([
      ['spring', 30, 30, 'same'], // not "down" for want of the days the history lacks
      ['docs', 27, 3, 'up'],
    ]);
  });

  it('two snapshots today: ranked by what happened between them, no comparison, said so', async () => {
    const s = await server();
    const db = fresh();
    await history(s, db, [10], () => ({ docs: 100, spring: 5 }));
    s.state.links[1]!.clicks = '9';
    ok(await stats(s.env, db)(['snapshot', '-q'], at(10, 9)));
    const r = ok(await stats(s.env, db)(['top', '--since', '7d'], at(10, 10)));
    expect(r.stdout).toBe('1\t2\tspring\t4\t-\t-\t-\n');
    expect(r.stderr).toBe("the history covers 1 day of the 7 days asked (2025-06-10; the history starts 2025-06-10 06:00 UTC): ranked by that day's clicks; no comparison: the history does not cover the day before\n");
  });

  it('MCP stats_top and stats_show give the CLI\'s answers, coverage included', async () => {
    const s = await server();
    const db = fresh();
    await history(s, db, [1, 2, 3, 5, 6], (d) => ({ docs: 100 + 3 * d, spring: 5 + d }));
    const cli = JSON.parse(ok(await stats(s.env, db)(['top', '--since', '2d', '--json'], at(6, 7))).stdout);
    const show = JSON.parse(ok(await stats(s.env, db)(['show', '--since', '5d', '--json'], at(6, 7))).stdout);
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: cleanEnv({ ...s.env, LINKCTL_DB: db, LINKCTL_NOW: at(6, 7) }), stderr: 'pipe' });
    const client = new Client({ name: 'linkctl-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const top = (await client.callTool({ name: 'stats_top', arguments: { since: '2d' } })) as { isError?: boolean; content: Array<{ text: string }> };
      expect(top.isError).toBeFalsy();
      expect(JSON.parse(top.content[0]!.text)).toEqual(cli); // the tool's one payload: the --json output as text
      expect(cli.note).toBe('clicks in the 2 days 2025-06-05 to 2025-06-06; compared with the 2 days before (2025-06-03 to 2025-06-04); 1 day spread evenly over a missed snapshot (estimates)');
      const series = (await client.callTool({ name: 'stats_show', arguments: { since: '5d' } })) as { content: Array<{ text: string }> };
      expect(JSON.parse(series.content[0]!.text)).toEqual(show);
    } finally {
      await client.close();
    }
  });
});

describe('imported totals are a starting point, never clicks', () => {
  const fx = useSandbox();

  it('import --with-clicks into an account with a history: a link with one keeps it, no clicks invented, no "+230 %"', async () => {
    const db = fresh();
    const env = { ...fx.env, LINKCTL_DB: db };
    ok(await stats(env, db)(['snapshot', '-q'], at(1)));
    ok(await stats(env, db)(['snapshot', '-q'], at(2)));
    // an export from another shortener naming docs (57 clicks here) with 161, and a link new here
    const file = join(dir, `yourls-${++n}.csv`);
    writeFileSync(file, 'keyword,url,title,timestamp,ip,clicks\ndocs,https://sandbox.localhost/docs,Docs,2024-01-01 10:00:00,203.0.113.7,161\nfresh,https://example.com/fresh,Fresh,2024-01-02 10:00:00,203.0.113.7,40\n');
    const imported = await runCli(['import', 'yourls', file, '--with-clicks', '--on-collision', 'suffix', '--file', join(dir, `account-${n}.yaml`)], { env: { ...env, LINKCTL_NOW: at(3, 5) } });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain(`recorded the click totals of 1 link as the starting point of their click history (${db}); \`linkctl stats snapshot\` after \`apply\` goes on from them; 1 link with a history of its own kept it: imported totals are never clicks`);
    ok(await stats(env, db)(['snapshot', '-q'], at(3)));
    const show = JSON.parse(ok(await stats(env, db)(['show', '--since', '2d', '--link', 'docs', '--json'], at(3, 7))).stdout);
    expect(show.series[0]).toMatchObject({ clicks: 0, resets: 0, total: 57 });
    const top = JSON.parse(ok(await stats(env, db)(['top', '--since', '1d', '--json'], at(3, 7))).stdout);
    expect(top.links).toEqual([]); // nobody clicked: nothing invented
    expect(top.note).toBe('clicks in the day 2025-06-03; compared with the day before (2025-06-02)');
  });
});

describe('one history per server and account', () => {
  it('--sandbox and a profile pointing at the same `sandbox serve` share one history', async ({ onTestFinished }) => {
    const config = join(dir, `serve-${++n}`);
    mkdirSync(config);
    const db = join(config, 'history.db');
    const child = spawn(process.execPath, [BIN, 'sandbox', 'serve', '--port', '0'], { env: cleanEnv({ LINKCTL_CONFIG_DIR: config }), stdio: ['ignore', 'pipe', 'pipe'] });
    onTestFinished(() => void child.kill('SIGKILL'));
    const { baseUrl } = await new Promise<{ baseUrl: string }>((resolve, reject) => {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (d) => {
        out += d;
        if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!));
      });
      child.on('close', () => reject(new Error('sandbox serve exited')));
    });
    const sandbox = { LINKCTL_CONFIG_DIR: config, LINKCTL_DB: db };
    const profile = { LINKCTL_CONFIG_DIR: config, LINKCTL_DB: db, LINKCTL_BASE_URL: baseUrl, LINKCTL_API_KEY: SANDBOX_KEY };
    ok(await runCli(['--sandbox', 'stats', 'snapshot', '-q'], { env: { ...sandbox, LINKCTL_NOW: at(1) } }));
    ok(await runCli(['sandbox', 'visits', '--link', 'docs', '--count', '3'], { env: sandbox }));
    ok(await runCli(['stats', 'snapshot', '-q'], { env: { ...profile, LINKCTL_NOW: at(2) } }));
    for (const env of [sandbox, profile]) {
      const r = JSON.parse(ok(await runCli([...(env === sandbox ? ['--sandbox'] : []), 'stats', 'show', '--since', '1d', '--link', 'docs', '--json'], { env: { ...env, LINKCTL_NOW: at(2, 7) } })).stdout);
      expect(r).toMatchObject({ account: { baseUrl: 'sandbox', name: 'demo' }, snapshots: 2 });
      expect(r.series[0].clicks).toBe(3);
    }
  }, 60_000);
});
