/**
 * `linkctl import`: each format's fixture (test/fixtures/import/, made from the columns each vendor
 * documents) becomes a file that `plan` accepts as it is and `apply` brings into an empty account;
 * collisions, bad input, determinism, domains and tags. In-process against the sandbox, with one
 * spawned run for the streamed stdout.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { runCli, runMain, sent, tempDir, useSandbox } from '../helpers.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/import/', import.meta.url));
const fixture = (name: string) => join(FIXTURES, name);
const dir = tempDir('linkctl-import-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const empty = useSandbox({ seed: { empty: true } });
const writes = () => sent(empty.sandbox).filter((r) => r.method !== 'GET');

interface Expected {
  args: string[];
  links: Record<string, { url: string; title?: string; description?: string; tags?: string[] }>;
  /** The campaigns or channels the tags become. */
  groups?: { kind: 'campaign' | 'channel'; names: string[] };
}

const ROUND_TRIPS: Record<string, Expected> = {
  bitly: {
    args: ['bitly', fixture('bitly.csv'), '--tags-to', 'campaign'],
    links: {
      // A custom back-half is the alias; the generated one stays in a comment.
      'spring-sale': { url: 'https://sandbox.localhost/sale', title: 'Spring sale', tags: ['Spring'] },
      '4kLmNop': { url: 'https://example.com/docs/getting-started', title: 'Docs, getting started', tags: ['Docs'] },
      // (an alias the product reserves, such as `pricing`, cannot be imported: see the collisions)
      plans: { url: 'https://example.com/pricing', title: 'Pricing' },
    },
    // the product 7.7 stores a campaign name with a capital first letter (real-servers.md, fact 29)
    groups: { kind: 'campaign', names: ['Docs', 'Spring'] },
  },
  shlink: {
    args: ['shlink', fixture('shlink.csv'), '--tags-to', 'channel'],
    links: {
      launch: { url: 'https://example.com/launch', title: 'Launch day', tags: ['launch', 'product'] },
      'blog-2024': { url: 'https://example.com/blog/2024', tags: ['blog'] },
      careers: { url: 'https://example.com/jobs', title: 'We are hiring' },
    },
    groups: { kind: 'channel', names: ['blog', 'launch', 'product'] },
  },
  yourls: {
    // "gh" is shorter than servers allow: renamed.
    args: ['yourls', fixture('yourls.csv'), '--on-collision', 'suffix'],
    links: {
      'gh-2': { url: 'https://github.com/example', title: 'Example on GitHub' },
      newsletter: { url: 'https://example.com/newsletter?ref=yourls', title: 'Newsletter sign-up' },
      talk2024: { url: 'https://example.com/talks/2024', title: 'Talk slides, 2024' },
    },
  },
  kutt: {
    args: ['kutt', fixture('kutt.json')],
    links: {
      summer: { url: 'https://example.com/summer', description: 'Summer campaign landing page' },
      'promo-code': { url: 'https://example.com/promo?code=KUTT' },
      questions: { url: 'https://example.com/help/faq', description: 'Questions, answered' },
    },
  },
  dub: {
    // The domain's root link (https://dub.sh) has no back-half and is left out.
    args: ['dub', fixture('dub.csv'), '--tags-to', 'campaign'],
    links: {
      webinar: { url: 'https://example.com/webinar?utm_source=dub', tags: ['Events'] },
      'pricing-page': { url: 'https://example.com/pricing', tags: ['-internal'] },
      demo: { url: 'https://example.com/demo', tags: ['Events'] },
    },
    groups: { kind: 'campaign', names: ['-internal', 'Events'] },
  },
  shortio: {
    args: ['shortio', fixture('shortio.csv')],
    links: {
      app: { url: 'https://example.com/app', title: 'Get the app' },
      'contact-us': { url: 'https://example.com/contact', title: 'Contact us' },
      status: { url: 'https://example.com/status' },
    },
  },
  rebrandly: {
    args: ['rebrandly', fixture('rebrandly.csv')],
    links: {
      'q3-report': { url: 'https://example.com/reports/q3', title: 'Quarterly report' },
      video: { url: 'https://example.com/media/video.mp4', title: 'Product video' },
    },
  },
  csv: {
    args: ['csv', fixture('links.csv'), '--map', 'url=Destination,alias=Back-half,title=Name,tags=Labels', '--tags-to', 'channel'],
    links: {
      store: { url: 'https://example.com/store', title: 'Online store', tags: ['shop'] },
      'gift-cards': { url: 'https://example.com/store/gift-cards', title: 'Gift cards', tags: ['gifts', 'shop'] },
    },
    groups: { kind: 'channel', names: ['gifts', 'shop'] },
  },
};

type Rec = Record<string, unknown>;
async function listOf(what: string): Promise<Rec[]> {
  const r = await runMain([what, 'list', '--all', '--json'], { env: empty.env });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Rec[];
}

describe('each format into an empty account', () => {
  for (const [format, expected] of Object.entries(ROUND_TRIPS)) {
    it(`${format}: import, plan, apply, and plan has nothing left`, async () => {
      const file = join(dir, `${format}.yaml`);
      const imported = await runMain(['import', ...expected.args, '--file', file], { env: empty.env });
      expect(imported.code, imported.stderr).toBe(0);
      expect(imported.stdout).toMatch(new RegExp(`^Imported ${Object.keys(expected.links).length} links from .* to ${file}`));
      // The account is read once, before the file is written: its domains, then its links (an empty account: one page).
      expect(sent(empty.sandbox).map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/domains', 'GET /api/urls']);

      const plan = await runMain(['plan', '-f', file, '--json'], { env: empty.env });
      expect(plan.code, plan.stderr).toBe(0);
      const groups = expected.groups?.names.length ?? 0;
      const changes = JSON.parse(plan.stdout).changes as Array<{ action: string; kind: string; key: string }>;
      expect(changes.every((c) => c.action === 'create')).toBe(true);
      expect(changes.filter((c) => c.kind === 'links').map((c) => c.key).sort()).toEqual(Object.keys(expected.links).sort());
      expect(changes.length).toBe(Object.keys(expected.links).length + groups);

      empty.sandbox.requests.length = 0;
      const apply = await runMain(['apply', '-f', file, '--yes'], { env: empty.env });
      expect(apply.code, apply.stderr).toBe(0);
      // One create a record; a link's first channel goes with its create, each other one is an assign.
      const assigns = expected.groups?.kind === 'channel' ? Object.values(expected.links).reduce((n, l) => n + Math.max(0, (l.tags?.length ?? 0) - 1), 0) : 0;
      expect(writes().length).toBe(changes.length + assigns);

      // A description arrives as the link's note, which only the create carries (no answer returns it).
      const notes = new Map(writes().filter((w) => w.path === '/api/url/add').map((w) => [(w.body as { custom: string }).custom, (w.body as { description?: string }).description]));
      const links = await listOf('link');
      const groupList = expected.groups ? await listOf(expected.groups.kind) : [];
      const nameOf = new Map(groupList.map((g) => [Number(g.id), String(g.name)]));
      expect(groupList.map((g) => g.name).sort()).toEqual(expected.groups?.names ?? []);
      const got = Object.fromEntries(
        links.map((l) => {
          const ids = expected.groups?.kind === 'campaign' ? (l.campaign === null ? [] : [Number(l.campaign)]) : ((l.channel as unknown[]) ?? []).map(Number);
          const tags = ids.map((id) => nameOf.get(id)!).sort();
          const note = notes.get(String(l.alias));
          return [l.alias, { url: l.longurl, ...(l.title ? { title: l.title } : {}), ...(note ? { description: note } : {}), ...(tags.length ? { tags } : {}) }];
        }),
      );
      expect(got).toEqual(expected.links);

      const again = await runMain(['plan', '-f', file, '--detailed-exitcode'], { env: empty.env });
      expect(again.stdout).toBe('No changes: the account matches the file.\n');
      expect(again.code).toBe(0);
    });
  }
});

describe('the file', () => {
  it('is the same bytes for the same input, on stdout (streamed) as in --file', async () => {
    const file = join(dir, 'twice.yaml');
    const a = await runCli(['import', 'shlink', fixture('shlink.csv'), '--tags-to', 'channel'], { env: empty.env });
    const b = await runCli(['import', 'shlink', fixture('shlink.csv'), '--tags-to', 'channel'], { env: empty.env });
    expect(a.code, a.stderr).toBe(0);
    expect(a.stderr).toBe('');
    expect(b.stdout).toBe(a.stdout);
    expect((await runMain(['import', 'shlink', fixture('shlink.csv'), '--tags-to', 'channel', '--file', file], { env: empty.env })).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(a.stdout);
  });

  it('keeps the source id, creation date, clicks, domain and tags in comments, and the same values when parsed', async () => {
    const r = await runMain(['import', 'bitly', fixture('bitly.csv')], { env: empty.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('  # Bitly line 2 · id bit.ly/3xYzAbc · created 2024-03-01T10:00:00+0000 · on bit.ly · tags spring, sale\n  # also https://bit.ly/3xYzAbc in Bitly\n  - alias: spring-sale\n');
    expect(r.stdout).toContain('# archived in Bitly\n  - alias: plans\n');
    // --tags-to none (the default): tags stay comments, and the file names no campaign or channel.
    expect(parse(r.stdout)).toEqual({
      version: 1,
      links: [
        { alias: 'spring-sale', url: 'https://sandbox.localhost/sale', title: 'Spring sale' },
        { alias: '4kLmNop', url: 'https://example.com/docs/getting-started', title: 'Docs, getting started' },
        { alias: 'plans', url: 'https://example.com/pricing', title: 'Pricing' },
      ],
    });
  });

  it('holds any text a source puts in a title as that text, and no raw control character or line break in a comment', async () => {
    const input = join(dir, 'hostile.csv');
    const title = 'Line one\nline two: "quoted" #not-a-comment \u001b[31mred\u001b[0m \u202eevil';
    writeFileSync(input, `Destination,Alias,Title,Tags\nhttps://example.com/x,hostile,"${title.replace(/"/g, '""')}","a\nb"\n`);
    const r = await runMain(['import', 'csv', input, '--map', 'url=Destination,alias=Alias,title=Title,tags=Tags'], { env: empty.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/[\u001b\u202e]/);
    expect(r.stdout).toContain('tags a\\x0ab');
    expect(parse(r.stdout).links).toEqual([{ alias: 'hostile', url: 'https://example.com/x', title }]);
    const plan = await runMain(['plan', '-f', '-'], { env: empty.env, stdin: r.stdout });
    expect(plan.code, plan.stderr).toBe(0);
  });

  it('keeps a domain the account has with --keep-domains (the domains are read anyway), and says so of the others', async () => {
    const seeded = await import('../../src/sandbox/server.js').then((m) => m.startSandbox({ port: 0, rateLimit: null }));
    try {
      const env = { ...empty.env, LINKCTL_BASE_URL: seeded.url, LINKCTL_API_KEY: seeded.key };
      // the account as the Bitly file's owner would have it: the file's branded domain
      const call = (method: string, path: string, body: unknown) =>
        fetch(`${seeded.url}${path}`, { method, headers: { Authorization: `Bearer ${seeded.key}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      expect((await call('POST', '/api/domain/add', { domain: 'https://go.example.com' })).status).toBe(200);
      seeded.requests.length = 0;
      const r = await runMain(['import', 'bitly', fixture('bitly.csv'), '--keep-domains'], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(seeded.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /api/domains', 'GET /api/urls']);
      // The seeded account has spring-sale for the same destination: nothing to do for it.
      expect(r.stdout).toContain('# already in the account with this destination: nothing to do');
      expect(r.stdout).toContain('  - alias: plans\n    domain: https://go.example.com\n');
      expect(r.stdout).toContain('· on bit.ly, which the target account does not have · tags spring, sale');
      const plan = await runMain(['plan', '-f', '-', '--json'], { env, stdin: r.stdout });
      expect(plan.code, plan.stderr).toBe(0);
      expect(JSON.parse(plan.stdout).changes.map((c: { key: string }) => c.key)).toContain('https://go.example.com/plans');
    } finally {
      await seeded.close();
    }
  });
});

describe('collisions', () => {
  const input = join(dir, 'collide.csv');
  writeFileSync(
    input,
    [
      'Destination,Alias',
      'https://example.com/1,spring', // line 2
      'https://example.com/2,ab', // line 3: too short
      'https://example.com/3,bad alias!', // line 4: the server stores it as bad-alias: said, not a collision
      'https://example.com/4,Spring', // line 5: the same as line 2, without case
      'https://example.com/5,spring-2', // line 6: taken already, so line 5 becomes spring-3
      'https://example.com/6,keep-me', // line 7
    ].join('\n'),
  );
  const args = ['import', 'csv', input, '--map', 'url=Destination,alias=Alias'];

  it('fail (the default): every collision with its line, exit 2, nothing written', async () => {
    const file = join(dir, 'collide-fail.yaml');
    const r = await runMain([...args, '--file', file], { env: empty.env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`linkctl: 2 links cannot keep their alias:
  ${input}:3: alias "ab" is shorter than 3 characters, which servers refuse
  ${input}:5: alias "Spring" is also at line 2, with another destination (this row: https://example.com/4)
hint: nothing was written; --on-collision suffix renames them`);
    expect(existsSync(file)).toBe(false);
    expect(sent(empty.sandbox).map((q) => q.method)).toEqual(['GET', 'GET']); // the account's domains and links, nothing written
  });

  it('suffix: renamed, each said with its line, and the file applies', async () => {
    const r = await runMain([...args, '--on-collision', 'suffix'], { env: empty.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      [
        `note: ${input}:3: renamed to "ab-2": alias "ab" is shorter than 3 characters, which servers refuse`,
        `note: ${input}:4: alias "bad alias!" is stored as "bad-alias" by the server (it turns spaces, most punctuation and _ into -)`,
        `note: ${input}:5: renamed to "Spring-3": alias "Spring" is also at line 2, with another destination (this row: https://example.com/4)`,
        `imported 6 links from ${input} (4 new, 2 links renamed, 1 alias rewritten as the server stores it)`,
        '',
      ].join('\n'),
    );
    expect(parse(r.stdout).links.map((l: Rec) => l.alias)).toEqual(['spring', 'ab-2', 'bad-alias', 'Spring-3', 'spring-2', 'keep-me']);
    expect(r.stdout).toContain('  # renamed from "Spring": alias "Spring" is also at line 2, with another destination (this row: https://example.com/4)\n  - alias: Spring-3\n');
    expect((await runMain(['apply', '-f', '-', '--yes'], { env: empty.env, stdin: r.stdout })).code).toBe(0);
    expect((await listOf('link')).map((l) => l.alias).sort()).toEqual(['ab-2', 'bad-alias', 'keep-me', 'spring', 'spring-2', 'Spring-3'].sort());
  });

  it('skip: left out, each said with its line', async () => {
    const r = await runMain([...args, '--on-collision', 'skip'], { env: empty.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`note: ${input}:5: skipped: alias "Spring" is also at line 2`);
    expect(r.stderr.match(/skipped/g)).toHaveLength(2);
    expect(parse(r.stdout).links.map((l: Rec) => l.alias)).toEqual(['spring', 'bad-alias', 'spring-2', 'keep-me']);
  });

  it('aliases the product reserves for its pages (any letter case) or refuses for a word of its filter: named with their lines before anything is written (issue 55, 6)', async () => {
    const reserved = join(dir, 'reserved.csv');
    writeFileSync(reserved, 'url,alias\nhttps://example.com/faq,FAQ\nhttps://example.com/p,Pricing\nhttps://example.com/b,dickens-books\nhttps://example.com/f,fine-one\n');
    const r = await runMain(['import', 'csv', reserved, '--map', 'url=url,alias=alias'], { env: empty.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`linkctl: 3 links cannot keep their alias:
  ${reserved}:2: alias "FAQ" is reserved for a page of the product's own, which servers refuse ("That alias is reserved.")
  ${reserved}:3: alias "Pricing" is reserved for a page of the product's own, which servers refuse ("That alias is reserved.")
  ${reserved}:4: alias "dickens-books" holds "dick", a word of the product's alias filter, which servers refuse ("Inappropriate aliases are not allowed.")
`);
    expect(sent(empty.sandbox).filter((q) => q.method !== 'GET')).toEqual([]);
  });
});

describe('csv as people write it (issue 55, low)', () => {
  it('a header naming the parts needs no --map; an expiry part; a column no part takes is said, not dropped in silence', async () => {
    const input = join(dir, 'plain.csv');
    writeFileSync(input, 'url,alias,title,Expires,Owner\nhttps://example.com/a,plain-a,A,2031-01-02,ann\nhttps://example.com/b,plain-b,B,,bob\n');
    const r = await runMain(['import', 'csv', input], { env: empty.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`note: ${input}: not imported, as no part of the map takes them: "Expires", "Owner"; the parts are url, alias, short, domain, title, description, tags, id, created, clicks, expiry (--map "url=...,alias=...,expiry=Expires").`);
    expect(parse(r.stdout).links).toEqual([{ alias: 'plain-a', url: 'https://example.com/a', title: 'A' }, { alias: 'plain-b', url: 'https://example.com/b', title: 'B' }]);
    const mapped = await runMain(['import', 'csv', input, '--map', 'url=url,alias=alias,title=title,expiry=Expires'], { env: empty.env });
    expect(mapped.code, mapped.stderr).toBe(0);
    expect(mapped.stderr).toContain('"Owner"');
    expect(parse(mapped.stdout).links[0]).toEqual({ alias: 'plain-a', url: 'https://example.com/a', title: 'A', expiry: '2031-01-02 00:00:00' });
    const bad = join(dir, 'bad-expiry.csv');
    writeFileSync(bad, 'url,alias,expiry\nhttps://example.com/c,plain-c,next week\n');
    const refused = await runMain(['import', 'csv', bad], { env: empty.env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${bad}:2: the expiry "next week" is not a date: give YYYY-MM-DD HH:MM:SS (or YYYY-MM-DD)`);
  });
});

describe('bad input: file:line, exit 2, nothing written, nothing sent', () => {
  const attempt = async (args: string[], stdin?: string) => {
    const file = join(dir, 'bad.yaml');
    const r = await runMain(['import', ...args, '--file', file], { env: empty.env, stdin });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(existsSync(file)).toBe(false);
    expect(sent(empty.sandbox)).toEqual([]);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    return r.stderr;
  };

  it('the wrong format', async () => {
    expect(await attempt(['bitly', fixture('shlink.csv')])).toContain(`${fixture('shlink.csv')}:1: not a Bitly export: no link or id or custom_bitlinks column (its columns are id, link, long_url, title, created_at, tags, custom_bitlinks, archived)`);
    expect(await attempt(['kutt', fixture('bitly.csv')])).toContain(`${fixture('bitly.csv')}:1: not valid JSON`);
    expect(await attempt(['yourls', fixture('kutt.json')])).toContain(`${fixture('kutt.json')}:1: not a YOURLS export: this is JSON, and a YOURLS export is CSV with a header row`);
  });

  it('rows without a destination, or with one that is not a URL: each named', async () => {
    const input = join(dir, 'rows.csv');
    writeFileSync(input, 'keyword,url,title\nfirst,https://example.com/1,One\nsecond,,Two\nthird,ftp://example.com/3,Three\nfourth,"not a url",Four\n');
    const stderr = await attempt(['yourls', input]);
    expect(stderr).toContain(`the YOURLS export cannot be imported: 3 rows are not valid:\n  ${input}:3: no destination (the url column is empty)\n  ${input}:4: destination must start with http:// or https://, got "ftp://example.com/3"\n  ${input}:5: destination must be a URL starting with http:// or https://, got "not a url"\n`);
  });

  it('a Kutt link without its target, by the line it starts on', async () => {
    const input = join(dir, 'kutt-bad.json');
    writeFileSync(input, JSON.stringify({ total: 2, data: [{ address: 'fine', target: 'https://example.com/' }, { address: 'no-target' }] }, null, 2));
    expect(await attempt(['kutt', input])).toContain(`${input}:8: no target (the fields of a Kutt link are`);
  });

  it('--map: unknown parts, missing url or alias, and columns the file lacks', async () => {
    expect(await attempt(['csv', fixture('links.csv')])).toContain('csv needs --map');
    expect(await attempt(['csv', fixture('links.csv'), '--map', 'url=Destination,slug=Back-half'])).toContain('--map: unknown part "slug"; the parts are url, alias, short');
    expect(await attempt(['csv', fixture('links.csv'), '--map', 'alias=Back-half'])).toContain('--map must name the destination column');
    expect(await attempt(['csv', fixture('links.csv'), '--map', 'url=Target,alias=Back-half'])).toContain(`${fixture('links.csv')}:1: not a CSV export: no Target column (as --map names)`);
    expect(await attempt(['bitly', fixture('bitly.csv'), '--map', 'url=long_url'])).toContain('--map is for `linkctl import csv`');
  });

  it('an unknown format, a missing file', async () => {
    expect(await attempt(['tinyurl', fixture('bitly.csv')])).toMatch(/bitly, shlink, yourls, kutt, dub, shortio, rebrandly, csv/);
    expect(await attempt(['bitly', join(dir, 'missing.csv')])).toContain('cannot read');
  });

  it('the account is read only once the input is known to be good (--keep-domains too)', async () => {
    expect(await attempt(['bitly', fixture('shlink.csv'), '--keep-domains'])).toContain('not a Bitly export');
  });
});
