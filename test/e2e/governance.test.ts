/**
 * Hygiene and governance (issue 41, items 1 to 3): `linkctl lint` against a fresh sandbox account
 * that the CLI fills, and the policy file stopping writes before anything is sent, through the
 * built CLI and `linkctl mcp`. History-based rules on SQLite here; on PostgreSQL in
 * governance-postgres.test.ts.
 */
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, runCli, testFiles, useSandbox } from '../helpers.js';

const fx = useSandbox({ seed: { empty: true } });
const files = testFiles('linkctl-governance-');
const writes = () => fx.sandbox.requests.filter((r) => r.method !== 'GET');
const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { env: { ...fx.env, ...env } });

/** A destination server of the test's own: /gone answers 404, the rest 200. */
let site: Server;
let siteUrl: string;
beforeAll(async () => {
  site = createServer((req, res) => {
    res.writeHead(req.url?.startsWith('/gone') ? 404 : 200, { 'Content-Type': 'text/plain' }).end('x');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => site.close(() => resolve())));

async function add(url: string, alias: string, ...more: string[]): Promise<number> {
  const r = await cli(['link', 'add', url, '--alias', alias, '--json', ...more]);
  expect(r.code, r.stderr).toBe(0);
  return Number(JSON.parse(r.stdout).id);
}

type Found = { rule: string; severity: string; record: string; message: string; fix: string };

describe('linkctl lint', () => {
  it('a clean account: exit 0, no findings, reading only (the lists links name, then each link for its expiry)', async () => {
    await add('https://shop.invalid/one?utm_source=news', 'first-link');
    await add('https://shop.invalid/two?utm_source=news', 'other-page');
    fx.sandbox.requests.length = 0;
    const r = await cli(['lint', '--json', '--db', join(files.root, 'none.db')]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ findings: [], summary: { links: 2, error: 0, warning: 0, info: 0 } });
    expect(r.stderr).toMatch(/no click history yet: .*none\.db does not exist: stale and broken not judged/);
    // domains, pixels, campaigns, channels, links, then the two links' own reads: nothing else, nothing written.
    expect(fx.sandbox.requests.map((q) => q.method)).toEqual(Array(7).fill('GET'));
    expect(fx.sandbox.requests.filter((q) => /api\/url\/\d+$/.test(q.path))).toHaveLength(2);
    const text = await cli(['lint', '--db', join(files.root, 'none.db')]);
    expect(text.stdout).toBe('No findings in 2 links.\n');
  });

  it('finds each problem, names the rule, the record and the fix, worst first in 80 columns; exit 1', async () => {
    const db = join(files.root, 'lint.db');
    const insecure = await add('http://shop.invalid/plain', 'plain-page');
    const summer = await add('https://shop.invalid/same?utm_source=Newsletter', 'summer-sale');
    await add('https://shop.invalid/same?utm_source=newsletter', 'summer-sa1e');
    const caps = [await add('https://shop.invalid/caps?UTM_Source=newsletter', 'caps-param'), await add('https://shop.invalid/caps?UTM_Source=newsletter', 'caps-again')];
    // Times from the real clock: the server refuses a past expiry.
    const day = 86_400_000;
    const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
    const soon = new Date(Date.now() + 5 * day - 3_600_000).toISOString().slice(0, 19).replace('T', ' ');
    const expiring = await add('https://shop.invalid/soon', 'soon-gone', '--expiry', soon);
    const broken = await add(`${siteUrl}/gone`, 'broken-one');
    // The click history: two snapshots 100 days apart with no click between; a health check.
    const first = iso(Date.now() - 100 * day);
    for (const at of [first, iso(Date.now() - 3_600_000)]) {
      const s = await cli(['stats', 'snapshot', '-q', '--db', db], { LINKCTL_NOW: at });
      expect(s.code, s.stderr).toBe(0);
    }
    const c = await cli(['check', '--db', db, '--allow-private', '127.0.0.1', '--json']);
    expect([0, 1], c.stderr).toContain(c.code);

    fx.sandbox.requests.length = 0;
    const env = {};
    const r = await cli(['lint', '--json', '--db', db], env);
    expect(r.code, r.stderr).toBe(1);
    const found = JSON.parse(r.stdout).findings as Found[];
    const rules = (rule: string) => found.filter((f) => f.rule === rule);
    // The broken link's test server is plain http too.
    expect(rules('insecure-destination').map((f) => f.record).sort()).toEqual([`link ${broken} (broken-one)`, `link ${insecure} (plain-page)`].sort());
    expect(rules('insecure-destination').find((f) => f.record === `link ${insecure} (plain-page)`)).toMatchObject({ severity: 'error', fix: 'point it at https://shop.invalid/plain if that site serves it' });
    // Every destination under .invalid is broken too (dns): never looked up, by the special-use rules.
    expect(rules('broken').find((f) => f.record === `link ${broken} (broken-one)`)).toMatchObject({ severity: 'error', message: expect.stringMatching(/ client-error/) });
    expect(rules('broken').find((f) => f.record === `link ${insecure} (plain-page)`)).toMatchObject({ message: expect.stringMatching(/ dns: /) });
    expect(rules('duplicate-destination').map((f) => f.record)).toEqual([expect.stringMatching(/caps-param.*caps-again/)]);
    expect(rules('lookalike-alias').map((f) => f.message)).toEqual(['"summer-sale" and "summer-sa1e" look alike']);
    // Each names the links to fix, with each one's destination as it should be.
    expect(rules('utm-spelling')).toEqual(expect.arrayContaining([
      expect.objectContaining({
        record: `link ${caps[0]} (caps-param), link ${caps[1]} (caps-again)`,
        message: 'the parameter utm_source is written 2 ways: UTM_Source (2 links), utm_source (2 links); analytics count each spelling apart',
        fix: `write it utm_source: link ${caps[0]} (caps-param): https://shop.invalid/caps?utm_source=newsletter; link ${caps[1]} (caps-again): https://shop.invalid/caps?utm_source=newsletter`,
      }),
      // Values count across the parameter's spellings.
      expect.objectContaining({
        record: `link ${summer} (summer-sale)`,
        message: 'the value of utm_source is written 2 ways: newsletter (3 links), Newsletter (1 link)',
        fix: `write it newsletter: link ${summer} (summer-sale): https://shop.invalid/same?utm_source=newsletter`,
      }),
    ]));
    expect(rules('expiring')).toEqual([expect.objectContaining({ record: `link ${expiring} (soon-gone)`, message: `expires ${soon} UTC, in 5 days` })]);
    const stale = rules('stale');
    expect(stale.length).toBe(7);
    expect(stale[0]!.message).toBe(`no clicks in 90 days (none since ${first.slice(0, 10)}; history: 2 snapshots from ${first.slice(0, 10)} to ${iso(Date.now() - 3_600_000).slice(0, 10)})`);
    // Worst first.
    const order = found.map((f) => ['error', 'warning', 'info'].indexOf(f.severity));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // Read only: the account, its lists, each link's own read; nothing written.
    expect(writes()).toEqual([]);
    expect(fx.sandbox.requests).toHaveLength(1 + 5 + 7);

    const text = await cli(['lint', '--db', db], env);
    expect(text.code).toBe(1);
    for (const line of text.stdout.trimEnd().split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
    expect(text.stdout).toMatch(/^ERROR {3}broken: link \d+ \((broken-one|plain-page)\)\n/); // errors first; within a rule, in the list's order
    expect(text.stdout).toMatch(/\n {8}fix: /);
    expect(text.stdout).toMatch(/\n\d+ findings in 7 links: \d+ errors, 5 warnings, 7 infos\n$/);

    // The policy turns rules off, sets severities and windows.
    const policy = files.file('quiet.yaml', 'version: 1\nlint:\n  stale: off\n  broken: off\n  expiring: {severity: error, days: 3}\n  utm-spelling: info\n');
    const quiet = await cli(['lint', '--json', '--db', db, '--policy', policy], env);
    const q = JSON.parse(quiet.stdout).findings as Found[];
    expect(q.map((f) => f.rule)).not.toContain('stale');
    expect(q.map((f) => f.rule)).not.toContain('broken');
    expect(q.map((f) => f.rule)).not.toContain('expiring');
    expect(q.filter((f) => f.rule === 'utm-spelling').every((f) => f.severity === 'info')).toBe(true);
  }, 120_000);

  it('-f FILE lints an account file, sending nothing; a bad policy is exit 2 naming file and line', async () => {
    const file = files.file('account.yaml', 'version: 1\nlinks:\n  - alias: promo-one\n    url: http://shop.invalid/a\n  - alias: promo-0ne\n    url: https://shop.invalid/b\n');
    const r = await cli(['lint', '-f', file, '--json']);
    expect(r.code, r.stderr).toBe(1);
    expect((JSON.parse(r.stdout).findings as Found[]).map((f) => f.rule).sort()).toEqual(['insecure-destination', 'lookalike-alias']);
    expect(fx.sandbox.requests).toEqual([]);

    const bad = files.file('bad.yaml', 'version: 1\nrules:\n  require-params: utm_source\n');
    const b = await cli(['lint', '-f', file, '--policy', bad]);
    expect(b.code).toBe(2);
    expect(b.stderr).toBe(`linkctl: policy ${bad}:3:19: \`require-params\` must be a list of non-empty strings\nhint: see the format in schema/policy.schema.json and docs/governance.md\n`);
  });
});

describe('a policy enforced before sending', () => {
  const policyText = 'version: 1\nrules:\n  require-params: [utm_campaign]\n  forbid-insecure: true\n  alias-pattern: "^[a-z0-9-]+$"\n';

  it('stops link add and link update naming the rule and the value, nothing sent; --override passes', async () => {
    const policy = files.file('policy.yaml', policyText);
    const r = await cli(['link', 'add', 'https://shop.invalid/x?utm_source=a', '--alias', 'spring'], { LINKCTL_POLICY: policy });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('linkctl: link add: policy rule require-params: the destination https://shop.invalid/x?utm_source=a lacks utm_campaign');
    expect(r.stderr).toContain('nothing was sent');
    expect(fx.sandbox.requests).toEqual([]);

    const ok = await cli(['--policy', policy, 'link', 'add', 'https://shop.invalid/x?utm_campaign=spring', '--alias', 'spring', '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    const id = JSON.parse(ok.stdout).id as number;
    fx.sandbox.requests.length = 0;

    const u = await cli(['--policy', policy, 'link', 'update', String(id), '--url', 'http://shop.invalid/y?utm_campaign=s', '--yes']);
    expect(u.code).toBe(2);
    expect(u.stderr).toContain(`link update ${id}: policy rule forbid-insecure: the destination http://shop.invalid/y?utm_campaign=s is plain http://`);
    expect(fx.sandbox.requests).toEqual([]);

    const over = await cli(['--policy', policy, '--override', 'legacy partner, approved by Dana', 'link', 'add', 'https://shop.invalid/legacy', '--alias', 'Legacy', '--json']);
    expect(over.code, over.stderr).toBe(0);
    expect(over.stderr).toContain('note: overridden ("legacy partner, approved by Dana"): link add: policy rule require-params');
    expect(writes()).toHaveLength(1);
    expect(writes()[0]!.body).toMatchObject({ url: 'https://shop.invalid/legacy', custom: 'Legacy' });

    const empty = await cli(['--policy', policy, '--override', ' ', 'link', 'add', 'https://shop.invalid/legacy2']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/--override needs a reason/);
  });

  it('--from: a row that breaks the policy stops the file before any row is sent', async () => {
    const policy = files.file('policy-bulk.yaml', policyText);
    const rows = files.file('rows.csv', 'url,alias\nhttps://shop.invalid/a?utm_campaign=x,good-row\nhttps://shop.invalid/b,bad-row\n');
    const r = await cli(['--policy', policy, 'link', 'add', '--from', rows]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('policy rule require-params: the destination https://shop.invalid/b lacks utm_campaign');
    expect(writes()).toEqual([]);
  });

  it('qr add of a link code keeps the destination rules', async () => {
    const policy = files.file('policy-qr.yaml', policyText);
    const r = await cli(['--policy', policy, 'qr', 'add', '--type', 'link', '--data', 'http://shop.invalid/menu?utm_campaign=q', '--name', 'Menu']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('qr add: policy rule forbid-insecure');
    expect(fx.sandbox.requests).toEqual([]);
  });

  it('linkctl api keeps the same rules for a link or link code it writes; other writes and reads pass', async () => {
    const policy = files.file('policy-api.yaml', policyText);
    const refused = await cli(['--policy', policy, 'api', 'POST', '/api/url/add', '-f', 'url=http://shop.invalid/raw?utm_campaign=r', '-f', 'custom=raw-link']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('api POST /api/url/add: policy rule forbid-insecure: the destination http://shop.invalid/raw?utm_campaign=r is plain http://');
    const code = await runCli(['--policy', policy, 'api', 'POST', 'qr/add', '--input', '-'], { env: fx.env, stdin: JSON.stringify({ type: 'link', data: 'https://shop.invalid/menu', name: 'Menu' }) });
    expect(code.code).toBe(2);
    expect(code.stderr).toContain('api POST /api/qr/add: policy rule require-params');
    const update = await cli(['--policy', policy, 'api', 'PUT', 'url/1/update', '-f', 'url=http://shop.invalid/y?utm_campaign=s']);
    expect(update.code).toBe(2);
    expect(writes()).toEqual([]);

    const campaign = await cli(['--policy', policy, 'api', 'POST', 'campaign/add', '-f', 'name=Raw campaign']);
    expect(campaign.code, campaign.stderr).toBe(0);
    const over = await cli(['--policy', policy, '--override', 'raw import, approved', 'api', 'POST', 'url/add', '-f', 'url=https://shop.invalid/raw', '-f', 'custom=raw-link']);
    expect(over.code, over.stderr).toBe(0);
    expect(over.stderr).toContain('note: overridden ("raw import, approved"): api POST /api/url/add: policy rule require-params');
    expect(writes().map((w) => w.path)).toEqual(['/api/campaign/add', '/api/url/add']);
  });

  it('linkctl api: no spelling of the path gets past the policy (dot segments, %2e, case); an empty segment or a path out of the API is refused; the CLI and the MCP api tool alike', async () => {
    const policy = files.file('policy-api-paths.yaml', policyText);
    const id = await add('https://shop.invalid/kept?utm_campaign=k', 'kept-link');
    fx.sandbox.requests.length = 0;
    const body = ['-f', 'url=http://evil.invalid/?utm_campaign=e', '-f', 'data=http://evil.invalid/?utm_campaign=e'];
    for (const [method, path, judged] of [
      ['POST', 'api/url/./add', '/api/url/add'], ['POST', 'api/x/../url/add', '/api/url/add'], ['POST', './url/add', '/api/url/add'],
      ['POST', 'qr/./add', '/api/qr/add'], ['PUT', `url/${id}/./update`, `/api/url/${id}/update`], ['POST', 'api/url/%2e/add', '/api/url/add'],
      ['POST', 'api/URL/add', '/api/URL/add'],
    ] as const) {
      const r = await cli(['--policy', policy, 'api', method, path, ...body]);
      expect(r.code, `${method} ${path}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(`api ${method} ${judged}: policy rule forbid-insecure: the destination http://evil.invalid/?utm_campaign=e is plain http://`);
    }
    for (const path of ['/api//url/add', 'url//add', '../url/add', 'api/x/../../url/add']) {
      const r = await cli(['--policy', policy, 'api', 'POST', path, ...body]);
      expect(r.code, path).toBe(2);
      expect(r.stderr).toMatch(/empty segment|outside the API/);
    }
    expect(fx.sandbox.requests).toEqual([]);

    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, '--policy', policy, 'mcp', '--allow-writes', '--allow-deletes'], env: cleanEnv(fx.env), stderr: 'pipe' });
    const agent = new Client({ name: 'governance-test', version: '1.0.0' });
    await agent.connect(transport);
    try {
      for (const path of ['api/url/./add', 'api/x/../url/add', './url/add']) {
        const r = (await agent.callTool({ name: 'api', arguments: { method: 'POST', path, rawField: ['url=http://evil.invalid/?utm_campaign=e'], confirm: true } })) as { isError?: boolean; content: Array<{ text: string }> };
        expect(r.isError, path).toBe(true);
        expect(r.content[0]!.text).toContain('policy rule forbid-insecure');
      }
    } finally {
      await agent.close();
    }
    expect(fx.sandbox.requests).toEqual([]);
  }, 60_000);

  it('plan lists violations beside each change (text, --json, markdown); apply refuses them, --override applies', async () => {
    const policy = files.file('policy-plan.yaml', policyText);
    const file = files.file('plan.yaml', 'version: 1\nlinks:\n  - alias: fine-one\n    url: https://shop.invalid/f?utm_campaign=a\n  - alias: bad-one\n    url: https://shop.invalid/b\n');
    const env = { LINKCTL_POLICY: policy };
    const text = await cli(['plan', '-f', file], env);
    expect(text.code, text.stderr).toBe(0);
    // Wrapped at 80 columns off a terminal, the continuation under the rule's text.
    expect(text.stdout).toContain('+ link bad-one\n    ! policy require-params: the destination https://shop.invalid/b lacks\n      utm_campaign\n');
    expect(text.stdout.split('\n').filter((l) => l.length > 80)).toEqual([]);
    const json = JSON.parse((await cli(['plan', '-f', file, '--json'], env)).stdout);
    expect(json.changes.find((c: { key: string }) => c.key === 'bad-one').violations).toEqual(['require-params: the destination https://shop.invalid/b lacks utm_campaign']);
    expect(json.changes.find((c: { key: string }) => c.key === 'fine-one').violations).toBeUndefined();
    const md = await cli(['plan', '-f', file, '-o', 'markdown'], env);
    expect(md.stdout).toContain('1 change **break the policy**');
    expect(md.stdout).toContain('- **add** link `bad-one`: **breaks the policy**: `require-params: the destination https://shop.invalid/b lacks utm_campaign`');

    const apply = await cli(['apply', '-f', file, '--yes'], env);
    expect(apply.code).toBe(2);
    expect(apply.stderr).toContain('the plan breaks the policy in 1 change:\n  link bad-one: policy rule require-params');
    expect(writes()).toEqual([]);

    const over = await cli(['apply', '-f', file, '--yes', '--override', 'import of the old site, agreed', '--json'], env);
    expect(over.code, over.stderr).toBe(0);
    expect(writes()).toHaveLength(2);
  });

  it('every destination a write carries is checked (geo, device, language targets, deep links): link add, --from, apply and MCP link_add; lint reports them too', async () => {
    const policy = files.file('policy-targets.yaml', 'version: 1\nrules:\n  forbid-insecure: true\n');
    const env = { LINKCTL_POLICY: policy };
    for (const [flag, value, where] of [['--geo', 'Canada=http://evil.invalid/ca', 'geo target Canada'], ['--device', 'iPhone=http://evil.invalid/ios', 'device target iPhone'], ['--language', 'fr=http://evil.invalid/fr', 'language target fr'], ['--deeplink-apple', 'http://evil.invalid/app', 'Apple deep link'], ['--deeplink-google', 'http://evil.invalid/play', 'Google deep link']] as const) {
      const r = await cli(['link', 'add', 'https://shop.invalid/t', '--alias', 'targeted', flag, value], env);
      expect(r.code, flag).toBe(2);
      expect(r.stderr).toContain(`link add: policy rule forbid-insecure: the ${where}'s destination ${value.replace(/^[^=]*=/, '')} is plain http://`);
    }
    const rows = files.file('targets.csv', 'url,alias,geo\nhttps://shop.invalid/a,row-a,Canada=https://shop.invalid/ca\nhttps://shop.invalid/b,row-b,Germany=http://evil.invalid/de\n');
    const bulk = await cli(['link', 'add', '--from', rows], env);
    expect(bulk.code).toBe(2);
    expect(bulk.stderr).toContain("the geo target Germany's destination http://evil.invalid/de is plain http://");
    const file = files.file('targets.yaml', 'version: 1\nlinks:\n  - alias: filed\n    url: https://shop.invalid/f\n    geo: {Canada: "http://evil.invalid/ca"}\n    deeplink: {google: "http://evil.invalid/play"}\n');
    const plan = (await cli(['plan', '-f', file], env)).stdout.replace(/\s+/g, ' ');
    expect(plan).toContain("! policy forbid-insecure: the geo target Canada's destination http://evil.invalid/ca is plain http://");
    expect(plan).toContain("! policy forbid-insecure: the Google deep link's destination http://evil.invalid/play is plain http://");
    expect((await cli(['apply', '-f', file, '--yes'], env)).code).toBe(2);
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, '--policy', policy, 'mcp', '--allow-writes'], env: cleanEnv(fx.env), stderr: 'pipe' });
    const agent = new Client({ name: 'governance-test', version: '1.0.0' });
    await agent.connect(transport);
    try {
      const r = (await agent.callTool({ name: 'link_add', arguments: { url: 'https://shop.invalid/m', geo: ['Canada=http://evil.invalid/ca'] } })) as { isError?: boolean; content: Array<{ text: string }> };
      expect(r.isError).toBe(true);
      expect(r.content[0]!.text).toContain("the geo target Canada's destination http://evil.invalid/ca is plain http://");
    } finally {
      await agent.close();
    }
    expect(writes()).toEqual([]);
    // Made before the policy: lint names the target.
    await add('https://shop.invalid/old', 'old-target', '--geo', 'Canada=http://evil.invalid/ca');
    const lint = await cli(['lint', '--json'], env);
    const found = JSON.parse(lint.stdout).findings as Found[];
    expect(found).toEqual(expect.arrayContaining([
      expect.objectContaining({ rule: 'forbid-insecure', message: "the geo target canada's destination http://evil.invalid/ca is plain http://" }),
      expect.objectContaining({ rule: 'insecure-destination', message: 'its geo target canada goes to plain http: http://evil.invalid/ca' }),
    ]));
    const fileLint = await cli(['lint', '-f', file, '--json'], env);
    expect((JSON.parse(fileLint.stdout).findings as Found[]).filter((f) => f.rule === 'insecure-destination').map((f) => f.message)).toEqual([
      'its geo target Canada goes to plain http: http://evil.invalid/ca', 'its Google deep link goes to plain http: http://evil.invalid/play',
    ]);
  }, 60_000);

  it('rules scoped to a campaign hold for the campaign a link will be in after the write: update, campaign assign, api, update --from, apply and MCP', async () => {
    const policy = files.file('policy-scope.yaml', 'version: 1\nscopes:\n  - campaign: Spring\n    rules:\n      forbid-insecure: true\n');
    const env = { LINKCTL_POLICY: policy };
    const made = await cli(['campaign', 'add', '--name', 'Spring', '--json']);
    const campaign = JSON.parse(made.stdout).id as number;
    const legacy = await add('http://legacy.invalid/', 'legacy');
    const inside = await add('https://inside.invalid/', 'inside', '--campaign', 'Spring');
    const plainInside = await add('http://inside.invalid/plain', 'plain-inside', '--campaign', 'Spring', '--meta-title', 'Plain');
    fx.sandbox.requests.length = 0;
    for (const args of [
      ['link', 'update', String(legacy), '--campaign', 'Spring', '--yes'],
      ['link', 'update', String(inside), '--url', 'http://inside.invalid/x', '--yes'],
      ['link', 'update', String(inside), '--geo', 'Canada=http://evil.invalid/ca', '--yes'],
      ['campaign', 'assign', String(campaign), String(legacy)],
      ['api', 'POST', `campaign/${campaign}/assign/${legacy}`],
    ]) {
      const r = await cli(args, env);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/policy rule forbid-insecure: the (geo target Canada's )?destination http:\/\/\S+ is plain http:\/\//);
    }
    expect(writes()).toEqual([]);
    const rows = files.file('scope-rows.csv', `id,campaign\n${legacy},Spring\n`);
    const bulk = await cli(['link', 'update', '--from', rows, '--yes'], env);
    // The row names only a campaign: its link is read (the run's own read) and judged before any row is sent.
    expect(bulk.code).toBe(2);
    expect(bulk.stderr).toContain('policy rule forbid-insecure: the destination http://legacy.invalid/ is plain http://');
    expect(bulk.stderr).toContain('1 of 1 row is not valid; nothing was changed');
    expect(writes()).toEqual([]);
    // apply: a link moved into the campaign, and one already in it whose URL the file does not change.
    const file = files.file('scope.yaml', 'version: 1\nlinks:\n  - alias: legacy\n    url: "http://legacy.invalid/"\n    campaign: Spring\n  - alias: plain-inside\n    url: "http://inside.invalid/plain"\n    title: Plain renamed\n');
    const plan = await cli(['plan', '-f', file, '--json'], env);
    const violations = (JSON.parse(plan.stdout).changes as Array<{ key: string; violations?: string[] }>).map((c) => [c.key, c.violations]);
    expect(violations).toEqual([
      ['legacy', ['forbid-insecure: the destination http://legacy.invalid/ is plain http://']],
      ['plain-inside', ['forbid-insecure: the destination http://inside.invalid/plain is plain http://']],
    ]);
    expect((await cli(['apply', '-f', file, '--yes'], env)).code).toBe(2);
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, '--policy', policy, 'mcp', '--allow-writes'], env: cleanEnv(fx.env), stderr: 'pipe' });
    const agent = new Client({ name: 'governance-test', version: '1.0.0' });
    await agent.connect(transport);
    try {
      for (const [name, args] of [['link_update', { id: legacy, campaign: 'Spring', confirm: true }], ['campaign_assign', { campaignId: campaign, linkId: [legacy] }]] as const) {
        const r = (await agent.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ text: string }> };
        expect(r.isError, `${name}: ${r.content[0]?.text}`).toBe(true);
        expect(r.content[0]!.text).toContain('policy rule forbid-insecure');
      }
    } finally {
      await agent.close();
    }
    expect(writes()).toEqual([]);
    void plainInside;
  }, 90_000);

  it('MCP link_add: an error in the tool\'s terms, nothing sent; override only when the user started the server with --allow-override', async () => {
    const policy = files.file('policy-mcp.yaml', policyText);
    const connect = async (flags: string[]) => {
      const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, '--policy', policy, 'mcp', '--allow-writes', ...flags], env: cleanEnv(fx.env), stderr: 'pipe' });
      const client = new Client({ name: 'governance-test', version: '1.0.0' });
      await client.connect(transport);
      return client;
    };
    type R = { isError?: boolean; content: Array<{ text: string }> };
    const plain = await connect([]);
    try {
      const r = (await plain.callTool({ name: 'link_add', arguments: { url: 'https://shop.invalid/agent', alias: 'agent' } })) as R;
      expect(r.isError).toBe(true);
      expect(r.content[0]!.text).toContain('policy rule require-params: the destination https://shop.invalid/agent lacks utm_campaign');
      const sneaky = (await plain.callTool({ name: 'link_add', arguments: { url: 'https://shop.invalid/agent', alias: 'agent', override: 'I am sure' } })) as R;
      expect(sneaky.isError).toBe(true);
      expect(sneaky.content[0]!.text).toContain('override is not available on this server');
      expect(writes()).toEqual([]);
    } finally {
      await plain.close();
    }
    const allowed = await connect(['--allow-override']);
    try {
      const r = (await allowed.callTool({ name: 'link_add', arguments: { url: 'https://shop.invalid/agent', alias: 'agent', override: 'the user said so in chat' } })) as R;
      expect(r.isError, r.content[0]?.text).toBeFalsy();
      expect(writes()).toHaveLength(1);
    } finally {
      await allowed.close();
    }
  }, 60_000);
});
