/**
 * --all against a rate-limited sandbox (5 requests per 2 seconds) with more pages than one
 * window allows: every record exactly once, in each output format, paced by the headers
 * without provoking the over-limit answer, and still correct when the server sends no headers.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { runCli, useSandbox } from '../helpers.js';

const RECORDS = 3 + 40; // seeded codes plus generated ones
const PER_PAGE = 6; // 8 pages: more than the 5 requests a window allows

/** Requests beyond one per page: each is an over-limit answer that had to be retried. */
function overLimitAnswers(requests: unknown[], runs = 1): number {
  return requests.length - runs * Math.ceil(RECORDS / PER_PAGE);
}

describe('--all with rate-limit headers', () => {
  const fx = useSandbox({ seed: { qrs: 40 }, rateLimit: { limit: 5, windowSeconds: 2 } });

  it('returns every record once as one JSON array, never receiving the over-limit answer', async () => {
    // (--fields without scans: only the pages, no read of each code to learn whether it counts scans)
    const r = await runCli(['qr', 'list', '--all', '--limit', String(PER_PAGE), '--json', '--fields', 'id,name,link'], { env: fx.env });
    expect(r.code).toBe(0);
    const records = JSON.parse(r.stdout) as Array<{ id: number | string }>;
    expect(records).toHaveLength(RECORDS);
    expect(new Set(records.map((q) => String(q.id))).size).toBe(RECORDS);
    expect(overLimitAnswers(fx.sandbox.requests)).toBe(0);
    expect(fx.sandbox.requests.map((q) => q.query.page)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
  });

  it('streams ndjson, csv and tsv that parse', async () => {
    const nd = await runCli(['qr', 'list', '--all', '--limit', String(PER_PAGE), '-o', 'ndjson', '--fields', 'id,name,link'], { env: fx.env });
    expect(nd.code).toBe(0);
    const lines = nd.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toHaveLength(RECORDS);

    const csv = await runCli(['qr', 'list', '--all', '--limit', String(PER_PAGE), '-o', 'csv', '--fields', 'id,name,link'], { env: fx.env });
    expect(csv.code).toBe(0);
    const rows = parseCsv(csv.stdout, { columns: true }) as Array<Record<string, string>>;
    expect(rows).toHaveLength(RECORDS);
    expect(Object.keys(rows[0]!)).toEqual(['id', 'name', 'link']);

    const tsv = await runCli(['qr', 'list', '--all', '--limit', String(PER_PAGE), '-o', 'tsv', '--no-header', '--fields', 'id,name,link'], { env: fx.env });
    expect(tsv.stdout.trim().split('\n')).toHaveLength(RECORDS);
    expect(overLimitAnswers(fx.sandbox.requests, 3)).toBe(0);
  });
});

describe('--all without rate-limit headers', () => {
  const fx = useSandbox({ seed: { qrs: 40 }, rateLimit: { limit: 5, windowSeconds: 2 }, rateLimitHeaders: false });

  it('waits out the over-limit answers and still returns every record once', async () => {
    const r = await runCli(['qr', 'list', '--all', '--limit', String(PER_PAGE), '--json', '--fields', 'id,name,link'], { env: fx.env }); // no scans: no read of each code's type (issue 55), only the list's pages
    expect(r.code).toBe(0);
    const records = JSON.parse(r.stdout) as Array<{ id: number }>;
    expect(new Set(records.map((q) => String(q.id))).size).toBe(RECORDS);
    expect(records).toHaveLength(RECORDS);
    expect(overLimitAnswers(fx.sandbox.requests)).toBeGreaterThan(0);
    expect(r.stderr).toMatch(/waiting .* rate limit/);
  });

  it('gives up with exit 5 when the wait is longer than --max-wait', async () => {
    const r = await runCli(['qr', 'list', '--all', '--limit', '1', '--json', '--max-wait', '0.2'], { env: fx.env });
    expect(r.code).toBe(5);
    expect(r.stderr).toMatch(/resets at .*--max-wait/);
    expect(r.stdout).toBe('');
  });
});

describe('list output on a pipe', () => {
  const fx = useSandbox();

  it('prints [] for an empty list in JSON, nothing in a table', async () => {
    const empty = await runCli(['qr', 'list', '--page', '9', '--json'], { env: fx.env });
    expect(empty.code).toBe(0);
    expect(JSON.parse(empty.stdout)).toEqual([]);
    const table = await runCli(['qr', 'list', '--page', '9'], { env: fx.env });
    expect(table.code).toBe(0);
    expect(table.stdout).toBe('');
  });

  it('prints only ids with -q, for xargs', async () => {
    const r = await runCli(['qr', 'list', '-q'], { env: fx.env });
    expect(r.stdout).toBe('1\n2\n3\n'); // oldest first, as the product 7.7 lists codes (real-servers.md, fact 2)
  });

  it('rejects an unknown --fields name with exit 2 listing the known ones, before sending', async () => {
    const r = await runCli(['qr', 'list', '--fields', 'id,colour'], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown field "colour"; known fields: id, name, scans, date, link/);
    expect(fx.sandbox.requests).toHaveLength(0);
  });
});
