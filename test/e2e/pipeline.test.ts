/**
 * Several requests in flight (issue 33): `--concurrency N|auto` against sandboxes that take their
 * time (`latencyMs`), as a PHP server over a network does. What is asserted is what the sandbox
 * saw, never a duration: the most API requests in flight at once (its counter, and each request's
 * count at arrival), the requests and their order, and the records on the server.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startSandbox, type RecordedRequest, type Sandbox, type SandboxOptions } from '../../src/sandbox/server.js';
import { BIN, cleanEnv, runCli, tempDir, testFiles } from '../helpers.js';

const { file } = testFiles('linkctl-pipeline-');

/** A sandbox of the test's own (closed after it) and the environment pointing the CLI at it, with a fresh config folder. */
async function sandbox(options: SandboxOptions) {
  const sb = await startSandbox({ port: 0, rateLimit: null, ...options });
  onTestFinished(() => sb.close());
  return { sb, env: { LINKCTL_BASE_URL: sb.url, LINKCTL_API_KEY: sb.key, LINKCTL_CONFIG_DIR: tempDir() } };
}

/** Links whose aliases are `<prefix>-<i>`, as a CSV of `n` rows. */
const linksCsv = (prefix: string, n: number) =>
  file(`${prefix}.csv`, `url,alias\n${Array.from({ length: n }, (_, i) => `https://example.com/${prefix}/${i},${prefix}-${i}`).join('\n')}\n`);

/** The API requests of a run, as compared: method, path, query and body, in the order they arrived. */
const sequence = (requests: RecordedRequest[]) => requests.filter((r) => r.path.startsWith('/api/')).map((r) => ({ method: r.method, path: r.path, query: r.query, body: r.body }));

/** Every link on the server: its alias and destination. */
async function linksOn(sb: Sandbox): Promise<Array<{ id: number; alias: string; longurl: string }>> {
  const answer = await fetch(`${sb.url}/api/urls?limit=1000`, { headers: { Authorization: `Bearer ${sb.key}` } });
  return ((await answer.json()) as { data: { urls: Array<{ id: number; alias: string; longurl: string }> } }).data.urls;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('--concurrency auto', () => {
  it('sends rows together where the server shows no rate limit (at most 8), and lists the results in the file\'s order', async () => {
    // Latency with jitter: answers come back in another order than the rows were sent.
    const { sb, env } = await sandbox({ latencyMs: 40, jitterMs: 35 });
    const rows = 60;
    const r = await runCli(['link', 'add', '--from', linksCsv('order', rows), '-o', 'csv'], { env });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n').slice(1).map((l) => l.split(','));
    // In the file's order, each row with its own link.
    expect(lines.map(([row]) => Number(row))).toEqual(Array.from({ length: rows }, (_, i) => i + 2));
    expect(lines.every(([row, status, , shorturl]) => status === 'created' && shorturl!.endsWith(`/order-${Number(row) - 2}`))).toBe(true);
    const posts = sb.requests.filter((q) => q.method === 'POST');
    expect(posts).toHaveLength(rows);
    expect(sb.inFlight.max).toBeGreaterThan(1);
    expect(sb.inFlight.max).toBeLessThanOrEqual(8);
    // The server created them in another order than the file's (what makes the order of the output worth checking).
    const created = (await linksOn(sb)).filter((l) => l.alias.startsWith('order-')).sort((a, b) => a.id - b.id).map((l) => Number(l.alias.slice(6)));
    expect(created).toHaveLength(rows);
    expect(created).not.toEqual([...created].sort((a, b) => a - b));
  });

  it('one at a time when the server sends rate-limit headers', async () => {
    // A limit far above what the run needs: no wait, only the headers that show there is one.
    const limited = await sandbox({ latencyMs: 20, rateLimit: { limit: 10_000, windowSeconds: 60 } });
    const r = await runCli(['link', 'add', '--from', linksCsv('headers', 30), '--json'], { env: limited.env });
    expect(r.code, r.stderr).toBe(0);
    expect(limited.sb.requests.filter((q) => q.method === 'POST')).toHaveLength(30);
    expect(limited.sb.inFlight.max).toBe(1);
    // The same file against the same server without the limit: several at once (so the count above could have shown more).
    const open = await sandbox({ latencyMs: 20 });
    expect((await runCli(['link', 'add', '--from', linksCsv('headers', 30), '--json'], { env: open.env })).code).toBe(0);
    expect(open.sb.inFlight.max).toBeGreaterThan(1);
  });

  it('back to one at the first over-limit answer (HTTP 429), for the rest of the run', async () => {
    const { sb, env } = await sandbox({ latencyMs: 30 });
    const rows = 60;
    const child = spawn(process.execPath, [BIN, 'link', 'add', '--from', linksCsv('limit', rows), '--json'], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // Once several are in flight, the next POST is answered 429 (Retry-After: 2).
    while (sb.inFlight.max < 3) await sleep(10);
    sb.injectFault({ kind: 'http-429', retryAfter: 2, method: 'POST' });
    expect(await exited).toBe(0);
    const rowsOut = JSON.parse(out) as Array<{ row: number; status: string }>;
    expect(rowsOut.map((x) => x.status)).toEqual(Array(rows).fill('created'));
    const api = sb.requests.filter((q) => q.path.startsWith('/api/'));
    const refused = api.findIndex((q) => q.fault === 'http-429');
    expect(refused).toBeGreaterThan(0);
    expect(api.slice(0, refused).some((q) => q.inFlight > 1)).toBe(true);
    // The refused row is sent again after the wait; from then on each request arrives alone.
    const url = (api[refused]!.body as { url: string }).url;
    const again = api.findIndex((q, i) => i > refused && (q.body as { url?: string } | undefined)?.url === url);
    expect(again).toBeGreaterThan(refused);
    expect(api.slice(again).map((q) => q.inFlight)).toEqual(api.slice(again).map(() => 1));
    expect(api.slice(again).length).toBeGreaterThan(1);
  });
});

describe('never twice, also in flight', () => {
  it('SIGKILL with 8 rows in flight, then the same command again: every row exactly once on the server', async () => {
    // Slow answers, so that the kill finds 8 POSTs in flight (some carried out, their answers not yet read).
    const { sb, env } = await sandbox({ latencyMs: 600 });
    const rows = 40;
    const csv = linksCsv('kill', rows);
    const child = spawn(process.execPath, [BIN, 'link', 'add', '--from', csv, '--concurrency', '8'], { env: cleanEnv(env), stdio: 'ignore' });
    const exited = new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    const posts = () => sb.requests.filter((q) => q.method === 'POST').length;
    // Some rows finished, and 8 in flight at this moment (the test's timeout guards a hang). A row
    // whose POST was answered frees its place while its ledger entry is written (issue 52): the
    // third round is in flight once the first round's rows are surely recorded as finished.
    while (!(posts() >= 24 && sb.inFlight.now === 8)) await sleep(5);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const sentBefore = posts();
    expect(sentBefore).toBeLessThan(rows);
    // The requests the killed run left on their way reach the server and are carried out, as on a network.
    while (sb.inFlight.now > 0) await sleep(10);
    const before = new Set(sb.requests.filter((q) => q.method === 'POST').map((q) => (q.body as { url: string }).url));

    const r = await runCli(['link', 'add', '--from', csv, '--json', '--concurrency', '8'], { env, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    const results = JSON.parse(r.stdout) as Array<{ row: number; status: string; id: number }>;
    expect(results.map((x) => x.row)).toEqual(Array.from({ length: rows }, (_, i) => i + 2));
    expect(results.every((x) => x.status === 'created' && x.id > 0)).toBe(true);
    expect(r.stderr).toMatch(/\d+ finished in an earlier run, not sent again/);
    // Every row exactly once on the server, and no POST sent again for a row the killed run had sent.
    const links = (await linksOn(sb)).filter((l) => l.alias.startsWith('kill-'));
    expect(links.map((l) => l.alias).sort()).toEqual(Array.from({ length: rows }, (_, i) => `kill-${i}`).sort());
    const urls = sb.requests.filter((q) => q.method === 'POST').map((q) => (q.body as { url: string }).url);
    expect(new Set(urls).size).toBe(urls.length);
    expect(urls.length).toBe(rows);
    // The 8 in flight were looked up (by alias), not sent again: the second run's POSTs are all for rows the first never sent.
    expect(urls.slice(sentBefore).filter((u) => before.has(u))).toEqual([]);
    expect(new Set(results.map((x) => x.id)).size).toBe(rows);
  });

  it('a full disk with rows in flight: the run stops, and the next sends each row once (those in flight are looked up)', async () => {
    const { sb, env } = await sandbox({ latencyMs: 40 });
    const names = Array.from({ length: 24 }, (_, i) => `disk-${i}`);
    const csv = file('codes.csv', `type,data,name\n${names.map((n) => `text,${n},${n}`).join('\n')}\n`);
    // For tests only: the journal's writer fails (ENOSPC) after 1,500 bytes, with several rows in flight.
    const first = await runCli(['qr', 'add', '--from', csv, '--json', '--concurrency', '8'], { env: { ...env, LINKCTL_TEST_JOURNAL_FAIL_AFTER: '1500' } });
    expect(first.code).toBe(1);
    expect(first.stderr).toContain('ENOSPC');
    const sentFirst = sb.requests.filter((q) => q.method === 'POST').length;
    expect(sentFirst).toBeGreaterThan(0);
    expect(sentFirst).toBeLessThan(names.length);
    const again = await runCli(['qr', 'add', '--from', csv, '--json', '--concurrency', '8'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as Array<{ status: string }>).map((x) => x.status)).toEqual(names.map(() => 'created'));
    const posted = sb.requests.filter((q) => q.method === 'POST').map((q) => (q.body as { name: string }).name);
    expect(posted.sort()).toEqual([...names].sort()); // each sent exactly once, across both runs
  });

  it('a campaign and the links assigned to it in one apply: every campaign exists before a link names it', async () => {
    const { sb, env } = await sandbox({ latencyMs: 20, seed: { empty: true } });
    const links = Array.from({ length: 24 }, (_, i) => `  - alias: camp-${i}\n    url: https://example.com/camp/${i}\n    campaign: ${i % 2 ? 'Autumn' : 'Spring'}\n`).join('');
    const account = file('account.yaml', `version: 1\ncampaigns:\n  - name: Spring\n  - name: Autumn\nlinks:\n${links}`);
    const r = await runCli(['apply', '-f', account, '--yes', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    const api = sb.requests.filter((q) => q.path.startsWith('/api/') && q.method === 'POST');
    const lastCampaign = api.findLastIndex((q) => q.path === '/api/campaign/add');
    const firstLink = api.findIndex((q) => q.path === '/api/url/add');
    expect(lastCampaign).toBe(1);
    expect(firstLink).toBeGreaterThan(lastCampaign);
    // Each link's create names the id its campaign got.
    const campaigns = ((await (await fetch(`${sb.url}/api/campaigns`, { headers: { Authorization: `Bearer ${sb.key}` } })).json()) as { data: { campaigns: Array<{ id: number; name: string }> } }).data.campaigns;
    const idOf = Object.fromEntries(campaigns.map((c) => [c.name, c.id]));
    for (const q of api.filter((x) => x.path === '/api/url/add')) {
      const body = q.body as { custom: string; campaign: number };
      expect(body.campaign).toBe(idOf[Number(body.custom.slice(5)) % 2 ? 'Autumn' : 'Spring']);
    }
    expect(sb.inFlight.max).toBeGreaterThan(1);
    // The steps are listed in the plan's order.
    const steps = (JSON.parse(r.stdout) as { applied: { steps: Array<{ kind: string; key: string; status: string }> } }).applied.steps;
    expect(steps.map((s) => s.key)).toEqual(['Spring', 'Autumn', ...Array.from({ length: 24 }, (_, i) => `camp-${i}`)]);
  });

  it('rows that name the same link keep their order: its create before its update', async () => {
    const { sb, env } = await sandbox({ latencyMs: 30, jitterMs: 25 });
    // After rows enough for auto to send several at once, a link's create and, right after it, its update.
    const rows = ['url,alias,if-exists'];
    for (let i = 0; i < 20; i++) rows.push(`https://example.com/other/${i},other-${i},fail`);
    rows.push('https://example.com/same/1,same,fail', 'https://example.com/same/2,same,update');
    for (let i = 20; i < 26; i++) rows.push(`https://example.com/other/${i},other-${i},fail`);
    // --yes: the update clears what it cannot read back, which a row would otherwise ask about.
    const r = await runCli(['link', 'add', '--from', file('same.csv', `${rows.join('\n')}\n`), '--json', '--yes'], { env });
    expect(r.code, r.stderr).toBe(0);
    const results = JSON.parse(r.stdout) as Array<{ row: number; status: string; id: number }>;
    const [create, update] = [results[20]!, results[21]!];
    expect([create.row, create.status, update.row, update.status]).toEqual([22, 'created', 23, 'updated']);
    expect(update.id).toBe(create.id);
    expect(sb.inFlight.max).toBeGreaterThan(1);
    const same = sb.requests.filter((q) => (q.method === 'POST' && q.path === '/api/url/add' && (q.body as { custom?: string }).custom === 'same') || q.method === 'PUT');
    expect(same.map((q) => q.method)).toEqual(['POST', 'PUT']);
    expect((await linksOn(sb)).find((l) => l.alias === 'same')?.longurl).toBe('https://example.com/same/2');
  });
});

describe('--concurrency 1', () => {
  /** The requests a command sends against a fresh sandbox of these options, and the most in flight. */
  async function run(args: string[], options: SandboxOptions, stdin?: string) {
    const { sb, env } = await sandbox(options);
    const r = await runCli(args, { env, stdin });
    expect(r.code, r.stderr).toBe(0);
    return { requests: sequence(sb.requests), most: sb.inFlight.max, stdout: r.stdout };
  }

  it('link add --from: exactly the requests of one at a time, in the same order (and auto sends the same ones together)', async () => {
    const csv = linksCsv('one', 12);
    const args = ['link', 'add', '--from', csv, '-o', 'csv'];
    const one = await run([...args, '--concurrency', '1'], { latencyMs: 10 });
    // Today's requests: one read of the account's links, then a POST a row in the file's order.
    expect(one.requests).toEqual([
      { method: 'GET', path: '/api/urls', query: { limit: '1000', page: '1' }, body: undefined },
      ...Array.from({ length: 12 }, (_, i) => ({ method: 'POST', path: '/api/url/add', query: {}, body: { url: `https://example.com/one/${i}`, custom: `one-${i}` } })),
    ]);
    expect(one.most).toBe(1);
    // auto against a server that shows a rate limit sends one at a time: the same requests in the same order.
    const limited = await run(args, { latencyMs: 10, rateLimit: { limit: 10_000, windowSeconds: 60 } });
    expect(limited.requests).toEqual(one.requests);
    // auto without a limit: the same requests, several at a time.
    const together = await run(args, { latencyMs: 10 });
    expect(together.requests).toHaveLength(one.requests.length);
    expect(together.requests).toEqual(expect.arrayContaining(one.requests));
    expect(together.most).toBeGreaterThan(1);
    expect(together.stdout.replace(/,\d+,http:\/\/[^,]+\//g, ',')).toBe(one.stdout.replace(/,\d+,http:\/\/[^,]+\//g, ','));
  });

  it('apply: the same requests in the same order as one at a time, for a file of campaigns, channels and links', async () => {
    const links = Array.from({ length: 10 }, (_, i) => `  - alias: step-${i}\n    url: https://example.com/step/${i}\n    campaign: Spring\n    channels: [News, Social]\n`).join('');
    const account = `version: 1\ncampaigns:\n  - name: Spring\nchannels:\n  - name: News\n  - name: Social\nlinks:\n${links}`;
    const args = ['apply', '-f', '-', '--yes', '--json'];
    const one = await run([...args, '--concurrency', '1'], { latencyMs: 10, seed: { empty: true } }, account);
    expect(one.most).toBe(1);
    const limited = await run(args, { latencyMs: 10, seed: { empty: true }, rateLimit: { limit: 10_000, windowSeconds: 60 } }, account);
    expect(limited.requests).toEqual(one.requests);
    const posts = one.requests.filter((q) => q.method === 'POST').map((q) => q.path);
    // Campaign, channels, then each link (its first channel with it), then the second channels.
    expect(posts.slice(0, 3)).toEqual(['/api/campaign/add', '/api/channel/add', '/api/channel/add']);
    expect(posts.slice(3, 13)).toEqual(Array(10).fill('/api/url/add'));
    expect(posts.slice(13)).toHaveLength(10);
    const together = await run(args, { latencyMs: 10, seed: { empty: true } }, account);
    expect(together.requests).toHaveLength(one.requests.length);
    expect(together.most).toBeGreaterThan(1);
    // The same steps, listed in the same order (the ids are the server's, given in the order the creates arrived).
    const steps = (stdout: string) => (JSON.parse(stdout) as { applied: { steps: Array<{ id: number }> } }).applied.steps.map(({ id: _id, ...step }) => step);
    expect(steps(together.stdout)).toEqual(steps(one.stdout));
  });

  it('is checked like any flag: exit 2 naming it and what is allowed, nothing sent', async () => {
    const { sb, env } = await sandbox({});
    for (const bad of ['0', '33', 'many', '2.5']) {
      const r = await runCli(['link', 'add', '--from', linksCsv('bad', 2), '--concurrency', bad], { env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('--concurrency must be auto or a whole number from 1 to 32');
    }
    expect(sb.requests).toEqual([]);
  });
});
