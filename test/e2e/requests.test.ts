/**
 * Requests per job (issue 18): each job of the table in the README's "Requests per job" sends
 * the fewest requests the API allows, counted by the sandbox, which records every request. Counts
 * are stable, so each is asserted exactly, next to the least a job needs worked out from what the
 * job must do (a full read of N records is `fullReadRequests(N)` requests; one request per change).
 * `npm run bench` runs the same jobs on an account of 10,000 links and prints the table.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { fullReadRequests } from '../../src/model/reader.js';
import { runCli, useSandbox, type SandboxFixture } from '../helpers.js';

/** The demo account's own records besides the generated ones (src/sandbox/state.ts seedState). */
const DEMO = { links: 2, campaigns: 1, channels: 1 };
const LINKS = 2_500;
const CAMPAIGNS = 20;
const CHANNELS = 20;
/** Kinds export reads besides links: domains, pixels, campaigns, channels, QR codes, overlays, splash pages (one page each here). */
const OTHER_KINDS = 7;

const requests = (fx: SandboxFixture) => fx.sandbox.requests.filter((r) => r.path.startsWith('/api/'));
const writes = (fx: SandboxFixture) => requests(fx).filter((r) => r.method !== 'GET');
const clear = (fx: SandboxFixture) => (fx.sandbox.requests.length = 0);

/** The job took no more than 1.05 times the least it needs, and exactly `count` requests. */
function expectRequests(fx: SandboxFixture, count: number, least: number): void {
  expect(requests(fx).length).toBe(count);
  expect(count).toBeLessThanOrEqual(Math.ceil(least * 1.05));
}

describe('requests per job on a big account', { timeout: 120_000 }, () => {
  const fx = useSandbox({ seed: { links: LINKS, campaigns: CAMPAIGNS, channels: CHANNELS } });
  const links = LINKS + DEMO.links;
  const read = fullReadRequests(links);

  it('reads a whole list in large pages (link list --all)', async () => {
    expect(read).toBe(3); // pages of 1,000, 1,000 and 2,000 records
    const r = await runCli(['link', 'list', '--all', '--json'], { env: fx.env, timeoutMs: 100_000 });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(links);
    expectRequests(fx, read, Math.ceil(links / 1000));
    expect(requests(fx).map((q) => q.query.limit)).toEqual(['1000', '1000', '2000']);
  });

  it('--limit given by the user still sets the page size', async () => {
    const r = await runCli(['campaign', 'list', '--all', '--limit', '5', '-q'], { env: fx.env, timeoutMs: 100_000 });
    expect(r.stdout.trim().split('\n')).toHaveLength(CAMPAIGNS + DEMO.campaigns);
    expect(requests(fx).map((q) => q.query.limit)).toEqual(Array(Math.ceil((CAMPAIGNS + DEMO.campaigns) / 5)).fill('5'));
  });

  it('export, and plan of the export with no change, read each collection once', async () => {
    const file = join(fx.configDir, 'account.yaml');
    expect((await runCli(['export', '--file', file], { env: fx.env, timeoutMs: 100_000 })).code).toBe(0);
    expectRequests(fx, read + OTHER_KINDS, read + OTHER_KINDS);
    clear(fx);
    const plan = await runCli(['plan', '-f', file, '--detailed-exitcode'], { env: fx.env, timeoutMs: 100_000 });
    expect(plan.stdout).toContain('No changes');
    expect(plan.code).toBe(0);
    expectRequests(fx, read + OTHER_KINDS, read + OTHER_KINDS);
  });

  it('apply after editing one link, and after editing 100: the reads, then one read and one update a link', async () => {
    const file = join(fx.configDir, 'edit.yaml');
    expect((await runCli(['export', '--file', file], { env: fx.env, timeoutMs: 100_000 })).code).toBe(0);
    const account = parse(readFileSync(file, 'utf8')) as { links: Array<Record<string, unknown>> };
    for (const [edited, rows] of [[1, account.links.slice(0, 1)], [100, account.links.slice(1, 101)]] as const) {
      for (const link of rows) link.title = `edited ${String(link.alias)}`;
      writeFileSync(file, stringify(account));
      clear(fx);
      // (the wifi code's password travels as ${env:WIFI_PASSWORD_OFFICE_WIFI}: issue 53, 3)
      const r = await runCli(['apply', '-f', file, '--yes', '--allow-clear'], { env: { ...fx.env, WIFI_PASSWORD_OFFICE_WIFI: 'welcome123' }, timeoutMs: 100_000 });
      expect(r.stderr).toContain(`Plan: 0 to add, ${edited} to change, 0 to delete.`);
      expect(r.code).toBe(0);
      // Each update reads the link's details (targeting, expiry: the list lacks them) and sends it back.
      expectRequests(fx, read + OTHER_KINDS + 2 * edited, read + OTHER_KINDS + 2 * edited);
      expect(writes(fx)).toHaveLength(edited);
    }
  });

  it('link update --from reads the link list once for every row, then one read and one update a row', async () => {
    const rows = 50;
    const file = join(fx.configDir, 'ids.csv');
    writeFileSync(file, `id\n${Array.from({ length: rows }, (_, i) => DEMO.links + 1 + i).join('\n')}\n`);
    const r = await runCli(['link', 'update', '--from', file, '--meta-description', 'bulk preview', '--yes', '-q'], { env: fx.env, timeoutMs: 100_000 });
    expect(r.code).toBe(0);
    // The full read (its first page says it is cheaper than 50 searches), then each row.
    expectRequests(fx, read + 2 * rows, read + 2 * rows);
    expect(requests(fx).filter((q) => q.path === '/api/urls' && q.query.q !== undefined)).toEqual([]);
  });

  it('a single link add of a URL that every link contains sends two requests, not a search through them all', async () => {
    const r = await runCli(['link', 'add', 'https://example.com/', '--json'], { env: fx.env, timeoutMs: 100_000 });
    expect(r.code).toBe(0);
    // The newest link's id (one link of the list), then the create.
    expect(requests(fx).map((q) => `${q.method} ${q.path}${q.query.limit ? `?limit=${q.query.limit}` : ''}`)).toEqual(['GET /api/urls?limit=1', 'POST /api/url/add']);
    expectRequests(fx, 2, 3);
  });

  it('import reads the account once (its domains, then its links in large pages) however many rows, and sends nothing else', async () => {
    // 1,000 rows: 500 links the account has (same destination), one it has for another destination, the rest new.
    // (The seeded links bulk<id> start after the demo's.)
    const id = (i: number) => i + DEMO.links + 1;
    const rows = Array.from({ length: 1000 }, (_, i) => (i < 500 ? `bulk${id(i)},https://sandbox.localhost/bulk/${id(i)}` : i === 500 ? `bulk${id(i)},https://acme.example/elsewhere` : `fresh${i},https://example.com/fresh/${i}`));
    const file = join(fx.configDir, 'import.csv');
    writeFileSync(file, ['keyword,url', ...rows].join('\n'));
    const refused = await runCli(['import', 'yourls', file], { env: fx.env, timeoutMs: 100_000 });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${file}:502: alias "bulk${id(500)}" is taken in the account by https://sandbox.localhost/bulk/${id(500)}`);
    expectRequests(fx, 1 + read, 1 + read);
    clear(fx);
    const r = await runCli(['import', 'yourls', file, '--on-collision', 'suffix', '--file', join(fx.configDir, 'imported.yaml')], { env: fx.env, timeoutMs: 100_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('(499 new, 500 links already there, 1 link renamed)');
    expectRequests(fx, 1 + read, 1 + read);
    expect(writes(fx)).toEqual([]);
  });

  it('export --redirects reads the link list once', async () => {
    const r = await runCli(['export', '--redirects', 'nginx'], { env: fx.env, timeoutMs: 100_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.match(/^ {4}"/gm)).toHaveLength(links);
    expectRequests(fx, read, read);
  });
});

describe('requests per job: export --details and plan of a --details file', { timeout: 120_000 }, () => {
  const size = 150;
  const fx = useSandbox({ seed: { links: size } });

  it('reads each link once for its details, and no more', async () => {
    const links = size + DEMO.links;
    const file = join(fx.configDir, 'details.yaml');
    expect((await runCli(['export', '--details', '--file', file], { env: fx.env, timeoutMs: 100_000 })).code).toBe(0);
    expectRequests(fx, 1 + OTHER_KINDS + links, 1 + OTHER_KINDS + links);
    clear(fx);
    const plan = await runCli(['plan', '-f', file], { env: fx.env, timeoutMs: 100_000 });
    expect(plan.stdout).toContain('No changes');
    // Only links whose record sets targeting or expiry are read one by one (the demo's spring-sale).
    const detailed = (parse(readFileSync(file, 'utf8')) as { links: Array<Record<string, unknown>> }).links.filter((l) => l.geo || l.device || l.expiry).length;
    expect(detailed).toBeGreaterThan(0);
    expectRequests(fx, 1 + OTHER_KINDS + detailed, 1 + OTHER_KINDS + detailed);
  });
});

describe('requests per job: a migration (export | apply to an empty account)', { timeout: 120_000 }, () => {
  const size = 330;
  const source = useSandbox({ seed: { links: size, campaigns: CAMPAIGNS, channels: CHANNELS } });
  const target = useSandbox({ seed: { empty: true } });

  it('creates each link with its campaign and first channel in one request; only further channels are assigned', async () => {
    const exported = await runCli(['export'], { env: source.env, timeoutMs: 100_000 });
    expect(exported.code).toBe(0);
    const account = parse(exported.stdout) as Record<string, Array<Record<string, unknown>>>;
    const creates = ['domains', 'pixels', 'campaigns', 'channels', 'links', 'qr'].reduce((n, kind) => n + (account[kind] ?? []).filter((r) => kind !== 'qr' || r.type !== undefined).length, 0);
    const extraChannels = account.links!.reduce((n, l) => n + Math.max(0, ((l.channels as unknown[] | undefined) ?? []).length - 1), 0);
    expect(extraChannels).toBeGreaterThan(0);
    const r = await runCli(['apply', '-f', '-', '--yes'], { env: { ...target.env, WIFI_PASSWORD_OFFICE_WIFI: 'welcome123' }, stdin: exported.stdout, timeoutMs: 100_000 });
    expect(r.code).toBe(0);
    const least = 8 /* one empty page per kind */ + creates + extraChannels;
    expectRequests(target, least, least);
    const assigns = requests(target).filter((q) => /^\/api\/channel\/\d+\/assign\//.test(q.path));
    expect(assigns).toHaveLength(extraChannels);
    // And the target now holds what the source held.
    const plan = await runCli(['plan', '-f', '-'], { env: target.env, stdin: exported.stdout, timeoutMs: 100_000 });
    expect(plan.stdout).toContain('No changes');
  });
});
