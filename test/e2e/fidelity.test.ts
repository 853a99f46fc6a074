/**
 * "Nothing changed that was not asked, as the server decides it" (issue 20, item 2): the built CLI
 * against the sandbox in its default mode (the product's 7.6 code), and `--plan basic` (an account
 * whose plan lacks targeting, expiry, aliases...: dropped silently, the link still created).
 * Where the sandbox never answers as a case needs (another domain than asked, an item assigned to
 * its channel meanwhile), a small proxy of the test's own in front of the sandbox does.
 *
 * Covered elsewhere, not repeated here: `qr update --name` / a lone `--type` (test/e2e/qr.test.ts,
 * "qr input validation"), `channel assign` of one and many ids already in the channel
 * (test/e2e/channel.test.ts), `--alias` under 3 characters on `link add`/`link update`, and
 * `link get --short` on 7.6 and 6.x (test/e2e/link.test.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/server.js';
import { runCli, sent, testFiles, useSandbox, expectSameMembers } from '../helpers.js';

const { file } = testFiles('linkctl-fidelity-');

const FUTURE = '2035-12-31 23:59:59';
const methodsAndPaths = (sandbox: Sandbox) => sent(sandbox).map((r) => `${r.method} ${r.path}`);
/** The reads `apply` makes of an account before planning: every list, in one page each. */
const APPLY_READS = ['/api/domains', '/api/pixels', '/api/campaigns', '/api/channels', '/api/overlay', '/api/splash', '/api/urls'].map((p) => `GET ${p}`);

/**
 * A proxy on 127.0.0.1 port 0 in front of a sandbox: `before` runs before a request is passed on
 * (to change the account meanwhile, as another user would), `answer` may rewrite the JSON answer.
 * Requests reach the sandbox, so `sent(sandbox)` still shows them.
 */
async function startProxy(
  sandbox: Sandbox,
  hooks: { before?: (method: string, path: string) => Promise<void>; answer?: (method: string, path: string, body: Record<string, unknown>) => Record<string, unknown> },
): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const path = new URL(req.url!, 'http://proxy').pathname;
      await hooks.before?.(req.method!, path);
      const upstream = await fetch(sandbox.url + req.url, {
        method: req.method,
        headers: { authorization: String(req.headers.authorization ?? ''), 'content-type': String(req.headers['content-type'] ?? 'application/json') },
        body: req.method === 'GET' ? undefined : Buffer.concat(chunks),
      });
      let text = await upstream.text();
      if (hooks.answer) text = JSON.stringify(hooks.answer(req.method!, path, JSON.parse(text) as Record<string, unknown>));
      res.writeHead(upstream.status, { 'Content-Type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('--domain is checked against the account\'s domains before anything is sent', () => {
  const fx = useSandbox();
  // the product 7.7 with multiple domains off lists the account's branded domains only (real-servers.md, fact 3)
  const known = () => '(https://go.sandbox.localhost)';
  const refusal = (domain: string) =>
    `linkctl: --domain ${domain} is not one of the account's domains ${known()}; servers would put the link on the default domain instead\n` +
    'hint: see `linkctl domain list`; add the domain first with `linkctl domain add`, or leave --domain out for the default domain\n';

  it('link add: exit 2 naming the known domains; only the domain list is read, nothing created', async () => {
    const r = await runCli(['link', 'add', 'https://example.org/typo', '--domain', 'https://typo.example'], { env: fx.env });
    expect(r.stderr).toBe(refusal('https://typo.example'));
    expect(r.stdout).toBe('');
    expect(r.code).toBe(2);
    expect(sent(fx.sandbox)).toEqual([{ method: 'GET', path: '/api/domains', query: { limit: '1000', page: '1' }, body: undefined }]);
  });

  it('link update: exit 2 before the link is even read', async () => {
    const r = await runCli(['link', 'update', '1', '--domain', 'https://typo.example', '--yes'], { env: fx.env });
    expect(r.stderr).toBe(refusal('https://typo.example'));
    expect(r.code).toBe(2);
    expect(methodsAndPaths(fx.sandbox)).toEqual(['GET /api/domains']);
  });

  it('link add --from: rows on an unknown domain make the file not valid: exit 2 naming the first row and how many more; only the domain list is read', async () => {
    const csv = file('domains.csv', 'url,domain\nhttps://example.org/d1,https://go.sandbox.localhost\nhttps://example.org/d2,https://typo.example\nhttps://example.org/d3,https://go.sandbox.localhost/\nhttps://example.org/d4,https://typo.example\n');
    const r = await runCli(['link', 'add', '--from', csv, '--json'], { env: fx.env });
    expect(r.stderr).toBe(
      `linkctl: ${csv}:3 and 1 more row: ${refusal('https://typo.example').split('\n')[0]!.replace(/^linkctl: /, '')}\n` +
        'linkctl: 2 of 4 rows are not valid; nothing was changed\n' +
        'hint: fix the rows listed above, then run the same command again\n',
    );
    expect(r.stdout).toBe('');
    expect(r.code).toBe(2);
    expect(methodsAndPaths(fx.sandbox)).toEqual(['GET /api/domains']);
  });

  it('link add --from: rows on the account\'s domains are created; the domain list is read once for the run, before any row is sent', async () => {
    // written as stored: 7.7 takes no other form of a domain (real-servers.md, fact 10), so `https://go.sandbox.localhost/` would land on the default domain
    const csv = file('domains-ok.csv', 'url,domain\nhttps://example.org/d1,https://go.sandbox.localhost\nhttps://example.org/d3,https://go.sandbox.localhost\n');
    const r = await runCli(['link', 'add', '--from', csv, '--json'], { env: fx.env });
    expect(r.stderr).toBe(`${csv}: 2 of 2 rows done (2 created)\n`);
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(rows.map((row) => row.shorturl)).toEqual([expect.stringMatching(/^https:\/\/go\.sandbox\.localhost\/\w+$/), expect.stringMatching(/^https:\/\/go\.sandbox\.localhost\/\w+$/)]);
    expect(methodsAndPaths(fx.sandbox)).toEqual(['GET /api/domains', 'GET /api/urls', 'POST /api/url/add', 'POST /api/url/add']);
  });

  it('link update --from: a row on an unknown domain: exit 2 before any link is read or changed', async () => {
    const csv = file('update-domains.csv', 'id,domain\n1,https://go.sandbox.localhost\n2,https://typo.example\n');
    const r = await runCli(['link', 'update', '--from', csv, '--yes'], { env: fx.env });
    expect(r.stderr).toBe(
      `linkctl: ${csv}:3: ${refusal('https://typo.example').split('\n')[0]!.replace(/^linkctl: /, '')}\n` +
        'linkctl: 1 of 2 rows are not valid; nothing was changed\n' +
        'hint: fix the rows listed above, then run the same command again\n',
    );
    expect(r.code).toBe(2);
    expect(methodsAndPaths(fx.sandbox)).toEqual(['GET /api/domains']);
  });

  it('link update --from without --yes off a terminal: refused before the domain list is read (the refusal does not depend on it)', async () => {
    const csv = file('update-domains-noyes.csv', 'id,domain\n1,https://typo.example\n');
    const r = await runCli(['link', 'update', '--from', csv], { env: fx.env });
    expect(r.stderr).toBe(`linkctl: Change the 1 link of ${csv}: refusing without a terminal to confirm; pass --yes\n`);
    expect(r.code).toBe(2);
    expect(sent(fx.sandbox)).toEqual([]);
  });

  it('apply: a link on a domain the account lacks (and the file does not add) makes the file not valid: exit 2, only reads', async () => {
    const yaml = file('typo.yaml', 'version: 1\nlinks:\n  - alias: typo-link\n    url: https://example.org/typo\n    domain: https://typo.example\n');
    const r = await runCli(['apply', '-f', yaml, '--yes'], { env: fx.env });
    expect(r.stderr).toBe(
      'linkctl: the file is not valid:\n' +
        `  ${yaml}:5:13: links[0].domain: "https://typo.example" names no domain on the server (the file has no domains list)\n` +
        'hint: nothing was sent; see the format in schema/linkctl.schema.json and `linkctl export`\n',
    );
    expect(r.stdout).toBe('');
    expect(r.code).toBe(2);
    expect(methodsAndPaths(fx.sandbox)).toEqual(APPLY_READS);
  });
});

describe('an answer on another domain than asked is reported, never a plain success', () => {
  const fx = useSandbox();
  let proxy: Awaited<ReturnType<typeof startProxy>> | undefined;
  afterAll(() => proxy?.close());
  /** A server that accepts go.sandbox.localhost in its domain list but puts new links on its default domain. */
  const env = async () => {
    proxy ??= await startProxy(fx.sandbox, {
      answer: (method, path, body) =>
        method === 'POST' && path === '/api/url/add' && typeof body.shorturl === 'string'
          ? { ...body, shorturl: body.shorturl.replace('https://go.sandbox.localhost', fx.sandbox.url) }
          : body,
    });
    return { ...fx.env, LINKCTL_BASE_URL: proxy.url };
  };
  const host = () => new URL(fx.sandbox.url).host;

  it('link add: the link is created (its id and short URL on stdout), exit 1 saying where it went', async () => {
    const r = await runCli(['link', 'add', 'https://example.org/elsewhere', '--domain', 'https://go.sandbox.localhost'], { env: await env() });
    expect(r.stderr).toBe(`linkctl: the server put it on ${host()}, not on go.sandbox.localhost as asked (real servers replace a domain they do not accept with the default one)\n`);
    expect(r.stdout).toMatch(new RegExp(`^id\\t3\\nshorturl\\t${fx.sandbox.url.replace(/\./g, '\\.')}/\\w+\\n$`));
    expect(r.code).toBe(1);
    expect(methodsAndPaths(fx.sandbox)).toEqual(['GET /api/domains', 'GET /api/urls', 'POST /api/url/add']);
  });

  it('link add --from: the row is `created` with the difference as its error, and the run exits 1', async () => {
    const csv = file('elsewhere.csv', 'url,domain\nhttps://example.org/elsewhere-2,https://go.sandbox.localhost\n');
    const r = await runCli(['link', 'add', '--from', csv, '--json'], { env: await env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`${csv}: 1 of 1 row done (1 created); 1 not as asked (see their error)\n`);
    expect(JSON.parse(r.stdout)).toMatchObject([{ row: 2, status: 'created', id: 3, error: `the server put it on ${host()}, not on go.sandbox.localhost as asked (real servers replace a domain they do not accept with the default one)` }]);
    expect(methodsAndPaths(fx.sandbox)).toEqual(['GET /api/domains', 'GET /api/urls', 'POST /api/url/add']);
  });
});

describe('options the account\'s plan lacks (--plan basic): the link is created, the dropped options are reported', () => {
  const fx = useSandbox({ plan: 'basic' });

  it('link add --geo --expiry --pixel: exit 1 naming geo targeting and expiry (read back once), and pixels as unverifiable', async () => {
    const r = await runCli(['link', 'add', 'https://example.org/geo', '--geo', 'Canada=https://example.ca', '--expiry', FUTURE, '--pixel', '1'], { env: fx.env });
    expect(r.stderr).toBe("linkctl: created link 3, but the server dropped geo targeting and expiry: the account's plan may not include them; pixels cannot be read back, so it may be missing too\n");
    expect(r.stdout).toMatch(/^id\t3\nshorturl\thttp:\/\/127\.0\.0\.1:\d+\/\w+\n$/);
    expect(r.code).toBe(1);
    // The pixel list first: an id the account lacks is refused before sending.
    expect(methodsAndPaths(fx.sandbox)).toEqual(['GET /api/pixels', 'GET /api/urls', 'POST /api/url/add', 'GET /api/url/3']);
    expect(sent(fx.sandbox)[2]!.body).toEqual({ url: 'https://example.org/geo', expiry: FUTURE, geotarget: [{ location: 'Canada', link: 'https://example.ca' }], pixels: [1] });
  });

  it('link add --alias: the alias the server gave instead is named (no read-back needed: the answer shows it)', async () => {
    const r = await runCli(['link', 'add', 'https://example.org/alias', '--alias', 'my-promo', '--json'], { env: fx.env });
    expect(r.code).toBe(1);
    const answer = JSON.parse(r.stdout) as { id: number; shorturl: string };
    expect(answer.id).toBe(3);
    const given = answer.shorturl.split('/').pop();
    expect(given).not.toBe('my-promo');
    expect(r.stderr).toBe(`linkctl: the server gave it the alias "${given}", not "my-promo": the account's plan may not include custom aliases\n`);
    expect(methodsAndPaths(fx.sandbox)).toEqual(['POST /api/url/add']);
  });

  it('link add without plan-dependent options: success, no read-back', async () => {
    const r = await runCli(['link', 'add', 'https://example.org/plain', '--description', 'plain'], { env: fx.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(methodsAndPaths(fx.sandbox)).toEqual(['GET /api/urls', 'POST /api/url/add']);
  });

  it('link update --expiry: the update is sent, exit 1 naming expiry (the link read before and once after)', async () => {
    const r = await runCli(['link', 'update', '1', '--expiry', FUTURE, '--yes'], { env: fx.env });
    expect(r.stderr).toBe("linkctl: updated link 1, but the server dropped expiry: the account's plan may not include it\n");
    expect(r.stdout).toMatch(/^id\t1\nshorturl\thttp:\/\/127\.0\.0\.1:\d+\/docs\n$/);
    expect(r.code).toBe(1);
    expect(methodsAndPaths(fx.sandbox)).toEqual(['GET /api/url/1', 'GET /api/urls', 'PUT /api/url/1/update', 'GET /api/url/1']);
    expect(sent(fx.sandbox)[2]!.body).toMatchObject({ expiry: FUTURE });
  });

  it('link add --from without --verify: every row `created`, one POST a row and no read-back (exit 0)', async () => {
    const csv = file('plain.csv', `url,geo,expiry\nhttps://example.org/r1,Canada=https://example.ca,${FUTURE}\nhttps://example.org/r2,,${FUTURE}\n`);
    const r = await runCli(['link', 'add', '--from', csv, '--json'], { env: fx.env });
    expect(r.stderr).toBe(`${csv}: 2 of 2 rows done (2 created)\n`);
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    // rows are in flight together (--concurrency auto): the server numbers them in the order they arrive
    expect(rows.map((row) => [row.status, row.error])).toEqual([['created', null], ['created', null]]);
    expect(rows.map((row) => row.id).sort()).toEqual([3, 4]);
    expect(methodsAndPaths(fx.sandbox)).toEqual(['GET /api/urls', 'POST /api/url/add', 'POST /api/url/add']);
  });

  it('link add --from --verify: each row read back once; the dropped options are the row\'s error and the run exits 1', async () => {
    const csv = file('verify.csv', `url,geo,expiry\nhttps://example.org/v1,Canada=https://example.ca,${FUTURE}\nhttps://example.org/v2,,${FUTURE}\nhttps://example.org/v3,,\n`);
    const r = await runCli(['link', 'add', '--from', csv, '--verify', '--json'], { env: fx.env });
    expect(r.stderr).toBe(`${csv}: 3 of 3 rows done (3 created); 2 not as asked (see their error)\n`);
    expect(r.code).toBe(1);
    const rows = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    // rows are in flight together, so the server numbers them in the order they arrive: each row's error names its own link
    const [v1, v2, v3] = rows.map((row) => row.id as number);
    expect([v1, v2, v3].sort()).toEqual([3, 4, 5]);
    expect(rows.map((row) => [row.status, row.error])).toEqual([
      ['created', `created link ${v1}, but the server dropped geo targeting and expiry: the account's plan may not include them`],
      ['created', `created link ${v2}, but the server dropped expiry: the account's plan may not include it`],
      ['created', null],
    ]);
    // the third row sent nothing a plan decides: no read-back for it; each read-back comes after a create
    const seen = methodsAndPaths(fx.sandbox);
    expectSameMembers(seen, ['GET /api/urls', 'POST /api/url/add', `GET /api/url/${v1}`, 'POST /api/url/add', `GET /api/url/${v2}`, 'POST /api/url/add']);
    expect(seen[0]).toBe('GET /api/urls');
    const firstCreate = seen.indexOf('POST /api/url/add');
    expect(seen.indexOf(`GET /api/url/${v1}`)).toBeGreaterThan(firstCreate);
    expect(seen.indexOf(`GET /api/url/${v2}`)).toBeGreaterThan(firstCreate);
  });
});

describe('apply on an account whose plan lacks options (--plan basic)', () => {
  const fx = useSandbox({ plan: 'basic' });
  const yaml = (name: string) =>
    file(name, `version: 1\nlinks:\n  - alias: promo-geo\n    url: https://example.org/promo-geo\n    expiry: ${FUTURE}\n    geo:\n      Canada: https://example.ca\n`);
  const creates = (sandbox: Sandbox) => methodsAndPaths(sandbox).filter((q) => !q.startsWith('GET'));

  it('without --verify: the alias the server gave instead is reported from the answer (exit 1), with no read-back', async () => {
    const path = yaml('promo.yaml');
    const r = await runCli(['apply', '-f', path, '--yes', '--json'], { env: fx.env });
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { applied: unknown; problems: string[] };
    expect(out.applied).toEqual({ created: 1, updated: 0, deleted: 0, steps: [{ action: 'create', kind: 'links', key: 'promo-geo', id: 3, status: 'created' }] });
    expect(out.problems).toHaveLength(1);
    expect(out.problems[0]).toMatch(/^link promo-geo: the server gave it the alias "\w+", not "promo-geo": the account's plan may not include custom aliases$/);
    expect(r.stderr).toBe(`+ link promo-geo\nPlan: 1 to add, 0 to change, 0 to delete.\nlinkctl: ${out.problems[0]}\n`);
    expect(methodsAndPaths(fx.sandbox)).toEqual([...APPLY_READS, 'POST /api/url/add']);
  });

  it('with --verify: each link written is read back once, and the dropped options are named too', async () => {
    const path = yaml('promo-verify.yaml');
    const r = await runCli(['apply', '-f', path, '--yes', '--allow-clear', '--verify'], { env: fx.env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('Applied: 1 added, 0 changed, 0 deleted.\n');
    expect(r.stderr).toMatch(
      /^\+ link promo-geo\nPlan: 1 to add, 0 to change, 0 to delete\.\nlinkctl: link promo-geo: the server gave it the alias "\w+", not "promo-geo": the account's plan may not include custom aliases\n/,
    );
    expect(r.stderr).toMatch(/\nlinkctl: link promo-geo: created link 3, but the server dropped geo targeting and expiry: the account's plan may not include them\n$/);
    expect(creates(fx.sandbox)).toEqual(['POST /api/url/add']);
    expect(methodsAndPaths(fx.sandbox).at(-1)).toBe('GET /api/url/3');
  });

  it('with --verify: an update whose options were dropped is reported (the link read once after)', async () => {
    const path = file('update.yaml', `version: 1\nlinks:\n  - alias: docs\n    url: https://sandbox.localhost/docs\n    title: Example Docs\n    description: Product documentation\n    campaign: Spring launch\n    channels:\n      - Marketing\n    expiry: ${FUTURE}\n`);
    const r = await runCli(['apply', '-f', path, '--yes', '--allow-clear', '--verify'], { env: fx.env });
    expect(r.stdout).toBe('Applied: 0 added, 1 changed, 0 deleted.\n');
    expect(r.stderr).toMatch(/\nlinkctl: link docs: updated link 1, but the server dropped expiry: the account's plan may not include it\n$/);
    expect(r.code).toBe(1);
    expect(creates(fx.sandbox)).toEqual(['PUT /api/url/1/update']);
    expect(methodsAndPaths(fx.sandbox).at(-1)).toBe('GET /api/url/1');
  });
});

describe('the same options on an account whose plan has them (default mode): kept, so nothing is reported', () => {
  const fx = useSandbox();

  it('link add --geo --expiry: exit 0 after its one read-back', async () => {
    const r = await runCli(['link', 'add', 'https://example.org/geo-ok', '--geo', 'Canada=https://example.ca', '--expiry', FUTURE], { env: fx.env });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(methodsAndPaths(fx.sandbox)).toEqual(['GET /api/urls', 'POST /api/url/add', 'GET /api/url/3']);
  });

  it('link add --from --verify: rows created without an error, exit 0', async () => {
    const csv = file('verify-ok.csv', `url,expiry\nhttps://example.org/ok1,${FUTURE}\n`);
    const r = await runCli(['link', 'add', '--from', csv, '--verify', '--json'], { env: fx.env });
    expect(r.stderr).toBe(`${csv}: 1 of 1 row done (1 created)\n`);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject([{ status: 'created', id: 3, error: null }]);
    expect(methodsAndPaths(fx.sandbox)).toEqual(['GET /api/urls', 'POST /api/url/add', 'GET /api/url/3']);
  });

  it('apply --verify: the link created is read back once, exit 0', async () => {
    const path = file('kept.yaml', `version: 1\nlinks:\n  - alias: promo-kept\n    url: https://example.org/promo-kept\n    expiry: ${FUTURE}\n`);
    const r = await runCli(['apply', '-f', path, '--yes', '--allow-clear', '--verify', '--json'], { env: fx.env });
    expect(r.stderr).toBe('+ link promo-kept\nPlan: 1 to add, 0 to change, 0 to delete.\n');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ applied: { created: 1, updated: 0, deleted: 0 }, problems: [] });
    expect(methodsAndPaths(fx.sandbox)).toEqual([...APPLY_READS, 'POST /api/url/add', 'GET /api/url/3']);
  });
});

describe('aliases under 3 characters in files: exit 2, nothing sent', () => {
  const fx = useSandbox();

  it('link add --from names the file and line of the row', async () => {
    const csv = file('short-alias.csv', 'url,alias\nhttps://example.org/s1,okay\nhttps://example.org/s2,ab\n');
    const r = await runCli(['link', 'add', '--from', csv], { env: fx.env });
    expect(r.stderr).toBe(
      `linkctl: ${csv}:3: --alias must have at least 3 characters, got "ab"\n` +
        'linkctl: 1 of 2 rows are not valid; nothing was sent\n' +
        'hint: fix the rows listed above, then run the same command again\n',
    );
    expect(r.stdout).toBe('');
    expect(r.code).toBe(2);
    expect(fx.sandbox.requests).toHaveLength(0);
  });

  it('apply names the file, line and column of a link it would create; nothing is changed', async () => {
    const yaml = file('short-alias.yaml', 'version: 1\nlinks:\n  - alias: ab\n    url: https://example.org/s3\n');
    const r = await runCli(['apply', '-f', yaml, '--yes'], { env: fx.env });
    expect(r.stderr).toBe(
      'linkctl: the file is not valid:\n' +
        `  ${yaml}:3:12: links[0].alias: "ab" must have at least 3 characters for a link to be created (servers refuse shorter aliases; a link that exists is matched whatever its alias)\n` +
        'hint: nothing was sent; see the format in schema/linkctl.schema.json and `linkctl export`\n',
    );
    expect(r.code).toBe(2);
    // The account is read first (a link that exists is matched whatever its alias); no change is sent.
    expect(fx.sandbox.requests.filter((q) => q.method !== 'GET')).toHaveLength(0);
  });
});

describe('the same URL and alias again: real servers answer "That alias is taken" (the alias is checked first), never the link', () => {
  const fx = useSandbox();

  it('linkctl finds the link by its alias and follows --if-exists: return is exit 0 with the link, fail is exit 1 naming it', async () => {
    const again = await runCli(['link', 'add', 'https://sandbox.localhost/docs', '--alias', 'docs', '--if-exists', 'return', '--json'], { env: fx.env });
    expect(again.stderr).toBe(`note: link 1 (${fx.sandbox.url}/docs) already has the alias "docs" and this destination: this is it, unchanged.\n`);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ id: 1, alias: 'docs', longurl: 'https://sandbox.localhost/docs' });
    // the create refused, then one search for the alias
    expect(methodsAndPaths(fx.sandbox)).toEqual(['POST /api/url/add', 'GET /api/urls']);

    fx.sandbox.reset();
    const fail = await runCli(['link', 'add', 'https://sandbox.localhost/docs', '--alias', 'docs', '--if-exists', 'fail'], { env: fx.env });
    expect(fail.stderr).toBe(
      `linkctl: link 1 (${fx.sandbox.url}/docs) already has the alias "docs" and this destination; the server refused the alias, so the options were not applied\n` +
        'hint: pass --if-exists update to apply them to it, or --if-exists return to take it as it is\n',
    );
    expect(fail.code).toBe(1);
    expect(methodsAndPaths(fx.sandbox)).toEqual(['POST /api/url/add', 'GET /api/urls']);
  });
});

describe('apply: a link already in its channel (assigned meanwhile) is success, not an error', () => {
  const fx = useSandbox();
  let proxy: Awaited<ReturnType<typeof startProxy>> | undefined;
  afterAll(() => proxy?.close());

  it('the assign answered "already added" counts as done: exit 0, the run goes on', async () => {
    // Another user adds link 2 (spring-sale) to channel 1 (Marketing) after apply has read the account.
    let raced = false;
    proxy = await startProxy(fx.sandbox, {
      before: async (method, path) => {
        if (raced || method !== 'POST' || path !== '/api/channel/1/assign/links/2') return;
        raced = true;
        await fetch(`${fx.sandbox.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${fx.sandbox.key}` } });
      },
    });
    const yaml = file('channels.yaml', 'version: 1\nlinks:\n  - alias: spring-sale\n    url: https://sandbox.localhost/sale\n    title: Spring sale\n    channels:\n      - Marketing\n');
    const r = await runCli(['apply', '-f', yaml, '--yes', '--json'], { env: { ...fx.env, LINKCTL_BASE_URL: proxy.url } });
    expect(r.stderr).toBe('~ link spring-sale: channels (none) → ["Marketing"]\nPlan: 0 to add, 1 to change, 0 to delete.\n');
    expect(JSON.parse(r.stdout)).toMatchObject({
      applied: { created: 0, updated: 1, deleted: 0, steps: [{ action: 'assign', kind: 'links', key: 'spring-sale', id: 2, status: 'exists' }] },
      problems: [],
    });
    expect(r.code).toBe(0);
    // the other user's assign, then apply's own, answered "This item is already added to the selected channel."
    expect(methodsAndPaths(fx.sandbox).filter((q) => !q.startsWith('GET'))).toEqual(['POST /api/channel/1/assign/links/2', 'POST /api/channel/1/assign/links/2']);
    const again = await runCli(['apply', '-f', yaml], { env: fx.env });
    expect([again.code, again.stdout]).toEqual([0, 'No changes: the account matches the file.\n']);
  });
});
