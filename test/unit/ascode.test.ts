/**
 * The account file: every mistake named by file:line:column and field, exit 2, nothing sent;
 * the shipped schema is the one the link command's options give, and no flag lacks a field.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { linkFlags, specs } from '../../src/ascode/model.js';
import { buildSchema } from '../../src/ascode/schema.js';
import { aliasErrors, escapeLiteral, readAccountFile } from '../../src/ascode/file.js';
import { runMain, tempDir, useSandbox } from '../helpers.js';
import { makePlan, readState, unchangedAsFileRecord, type Current, type State } from '../../src/ascode/engine.js';
import { applyPlan } from '../../src/ascode/apply.js';
import { NetworkError } from '../../src/errors.js';
import type { ApiClient } from '../../src/http/client.js';
import { AccountReader } from '../../src/model/reader.js';
import { rateWindowSeconds, yamlScalar } from '../../src/ascode/actions.js';
import fc from 'fast-check';
import { parse } from 'yaml';
import { recordedRewrites, type RecordedRewrite } from '../recording.js';

const fx = useSandbox();

const HEAD = 'version: 1\ncampaigns:\n  - name: Spring\n';

describe('invalid account files', () => {
  const cases: Array<[name: string, text: string, message: string]> = [
    ['bad YAML', `${HEAD}links:\n  - alias: promo\n    url: [https://example.com\n`, 'account.yaml:7:1: not valid YAML'],
    ['an unknown field', `${HEAD}links:\n  - alias: promo\n    url: https://example.com\n    colour: red\n`, 'account.yaml:7:5: links[0].colour: unknown field; a link has url, alias,'],
    ['a wrong type', `${HEAD}links:\n  - alias: promo\n    url: https://example.com\n    public: "yes"\n`, 'account.yaml:7:13: links[0].public: must be true or false'],
    ['a value the flag refuses', `${HEAD}links:\n  - alias: promo\n    url: https://example.com\n    expiry: tomorrow\n`, 'account.yaml:7:13: links[0].expiry: --expiry must be a date and time'],
    ['a choice not in the list', `${HEAD}links:\n  - alias: promo\n    url: https://example.com\n    redirect: meta\n`, 'account.yaml:7:15: links[0].redirect: must be one of direct, frame, splash; got "meta"'],
    ['a dangling reference', `${HEAD}links:\n  - alias: promo\n    url: https://example.com\n    campaign: Autumn\n`, 'account.yaml:7:15: links[0].campaign: "Autumn" is not in the file\'s campaigns'],
    ['a dangling list reference', `version: 1\npixels: []\nlinks:\n  - alias: promo\n    url: https://example.com\n    pixels: [Analytics]\n`, 'account.yaml:6:13: links[0].pixels: "Analytics" is not in the file\'s pixels'],
    ['fields that contradict each other', `${HEAD}links:\n  - alias: promo\n    url: https://example.com\n    redirect: frame\n    splash: Welcome\nsplash:\n  - name: Welcome\n`, 'account.yaml:5:5: links[0]: --redirect and --splash each set the redirect type; give one of them'],
    ['a duplicate key in a record', `${HEAD}links:\n  - alias: promo\n    url: https://example.com\n    url: https://example.org\n`, 'account.yaml:7:5: duplicate key'],
    ['a duplicate record', `${HEAD}links:\n  - alias: promo\n    url: https://example.com\n  - alias: Promo\n    url: https://example.org\n`, 'account.yaml:7:5: links[1]: duplicate link "Promo" (also at account.yaml:5:5)'],
    ['a missing key field', `${HEAD}links:\n  - url: https://example.com\n`, 'account.yaml:5:5: links[0]: missing alias'],
    ['a secret written in the file', `${HEAD}links:\n  - alias: promo\n    url: https://example.com\n    password: hunter22\n`, 'account.yaml:7:15: links[0].password: a secret is given as a reference to the environment'],
    ['an unknown top-level list', 'version: 1\nbiopages: []\n', 'account.yaml:2:1: biopages: unknown field'],
    ['a missing version', 'links: []\n', 'version: missing'],
  ];

  it.each(cases)('%s: exit 2 naming the line, nothing sent', async (_name, text, message) => {
    const dir = tempDir();
    const file = join(dir, 'account.yaml');
    writeFileSync(file, text);
    const r = await runMain(['plan', '-f', file], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message.replace(/account\.yaml/g, file));
    expect(r.stdout).toBe('');
    expect(fx.sandbox.requests).toEqual([]);
  });

  it('resolves a reference against the server when the file has no list of that kind, before sending anything', async () => {
    const dir = tempDir();
    const file = join(dir, 'links.yaml');
    writeFileSync(file, 'version: 1\nlinks:\n  - alias: autumn\n    url: https://example.com/autumn\n    campaign: Spring launch\n  - alias: winter\n    url: https://example.com/winter\n    campaign: Winter\n');
    const r = await runMain(['apply', '-f', file, '--yes'], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}:8:15: links[1].campaign: "Winter" names no campaign on the server (the file has no campaigns list)`);
    expect(fx.sandbox.requests.filter((q) => q.method !== 'GET')).toEqual([]);
    writeFileSync(file, 'version: 1\nlinks:\n  - alias: autumn\n    url: https://example.com/autumn\n    campaign: Spring launch\n');
    const ok = await runMain(['apply', '-f', file, '--yes'], { env: fx.env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(fx.sandbox.requests.find((q) => q.method === 'POST')?.body).toMatchObject({ url: 'https://example.com/autumn', custom: 'autumn', campaign: 1 });
  });

  it('with --detailed-exitcode, an invalid file is exit 1 (2 means changes pending)', async () => {
    const dir = tempDir();
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'version: 2\n');
    const r = await runMain(['plan', '-f', file, '--detailed-exitcode'], { env: fx.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${file}:1:10: version: must be 1`);
  });

  it('reports every mistake at once', () => {
    expect(() => readAccountFile(`${HEAD}links:\n  - alias: aaa\n    url: nope\n  - alias: bbb\n    url: https://x.example\n    geo: {Canada: ftp://x}\n`, 'f.yaml')).toThrow(
      /f\.yaml:6:10: links\[0\]\.url: url must be a URL starting with http:\/\/ or https:\/\/, got "nope"\n {2}f\.yaml:9:19: links\[1\]\.geo\.Canada: --geo must start/,
    );
  });

  it('reads aliases under 3 characters (a link that exists may have one); aliasErrors refuses them for links to be created, by file:line:column', () => {
    const { file, where } = readAccountFile(`${HEAD}links:\n  - alias: ab\n    url: https://x.example/1\n  - alias: b\n    url: https://x.example/2\n  - alias: abc\n    url: https://x.example/3\n`, 'f.yaml');
    expect(file.links!.map((l) => l.alias)).toEqual(['ab', 'b', 'abc']);
    const exists = (record: Record<string, unknown>) => record.alias === 'b';
    expect(aliasErrors(file, where, exists)).toEqual([
      'f.yaml:5:12: links[0].alias: "ab" must have at least 3 characters for a link to be created (servers refuse shorter aliases; a link that exists is matched whatever its alias)',
    ]);
  });

  it('reads JSON too, and resolves ${env:NAME} only when asked', () => {
    const text = JSON.stringify({ version: 1, links: [{ alias: 'xyz', url: 'https://example.com', password: '${env:P}' }] });
    expect(readAccountFile(text, 'f.json').file.links![0]!.password).toBe('${env:P}');
    expect(readAccountFile(text, 'f.json', { env: { P: 'secret' } }).file.links![0]!.password).toBe('secret');
  });
});

describe('the schema', () => {
  it('is the one shipped in schema/linkctl.schema.json (regenerate: linkctl export --schema > schema/linkctl.schema.json)', () => {
    const shipped = JSON.parse(readFileSync(new URL('../../schema/linkctl.schema.json', import.meta.url), 'utf8'));
    expect(shipped).toEqual(buildSchema());
  });

  it('has a link field for every option of `link add`, so a new flag appears in the file', () => {
    const fields = specs().links.fields;
    const covered = new Set(Object.values(fields).flatMap((f) => [...(f.flags ?? []), ...Object.values(f.properties ?? {}).flatMap((p) => p.flags ?? [])]));
    // Other spellings of a field: --private is `public: false`, --password-stdin is `password`.
    const spelled = new Set(['--private', '--password-stdin', '--password']);
    const missing = linkFlags().map((o) => o.long!).filter((flag) => !covered.has(flag) && !spelled.has(flag));
    expect(missing).toEqual([]);
    expect(linkFlags().length).toBeGreaterThan(20);
    const schema = buildSchema() as { properties: { links: { items: { properties: Record<string, unknown> } } } };
    expect(Object.keys(schema.properties.links.items.properties)).toEqual(Object.keys(fields));
    expect(Object.keys(fields)).toEqual(expect.arrayContaining(['url', 'alias', 'domain', 'description', 'title', 'expiry', 'geo', 'device', 'language', 'campaign', 'channels', 'pixels', 'redirect', 'public', 'params', 'deeplink', 'password']));
  });
});

describe('apply never creates twice', () => {
  /** A client whose create's outcome is unknown (the connection dropped after the server made the record). */
  function flakyClient(madeAnyway: boolean) {
    const campaigns: Array<Record<string, unknown>> = [];
    const calls: string[] = [];
    const client = {
      // One change at a time: what --concurrency would decide is not this test's concern.
      inFlight: { limit: () => 1 },
      async request(method: string, path: string) {
        calls.push(`${method} ${path}`);
        if (method === 'POST') {
          if (madeAnyway) campaigns.push({ id: 7, name: 'Autumn', public: false, rotator: false });
          throw new NetworkError('the connection was reset after the request was sent: the outcome is unknown');
        }
        const key = path.split('/').pop()!;
        const records = key === 'campaigns' ? campaigns : [];
        return { error: 0, data: { [({ urls: 'urls', qr: 'qrs', overlay: 'cta' } as Record<string, string>)[key] ?? key]: records, maxpage: 1, currentpage: 1 } };
      },
    };
    return { client: client as unknown as ApiClient, calls };
  }
  const file = readAccountFile('version: 1\ncampaigns:\n  - name: Autumn\n', 'f.yaml').file;

  it('looks the record up by its key after an unknown outcome, and goes on with its id', async () => {
    const { client, calls } = flakyClient(true);
    const reader = new AccountReader(client);
    const state = await readState(reader);
    const applied = await applyPlan(reader, { warn: () => undefined }, makePlan(file, state, false), state, () => undefined);
    expect(applied).toMatchObject({ created: 1, updated: 0, deleted: 0 });
    expect(calls.filter((c) => c.startsWith('POST'))).toEqual(['POST api/campaign/add']);
  });

  it('reports the unknown outcome when the lookup does not find it, without sending it again', async () => {
    const { client, calls } = flakyClient(false);
    const reader = new AccountReader(client);
    const state = await readState(reader);
    await expect(applyPlan(reader, { warn: () => undefined }, makePlan(file, state, false), state, () => undefined)).rejects.toThrow(/outcome is unknown/);
    expect(calls.filter((c) => c.startsWith('POST'))).toEqual(['POST api/campaign/add']);
  });
});

describe('apply reads what the server stored from its answer (issue 54, 2)', () => {
  it('a value stored otherwise than sent and predicted is a problem of the run, naming the record', async () => {
    const client = {
      inFlight: { limit: () => 1 },
      async request(method: string, path: string) {
        // A server that answers a create with a name neither sent nor predicted, and a public campaign made private.
        if (method === 'POST') return { error: 0, id: 7, campaign: 'Autumn sale', public: false, rotator: false };
        const key = path.split('/').pop()!;
        return { error: 0, data: { [({ urls: 'urls', qr: 'qrs' } as Record<string, string>)[key] ?? key]: [], maxpage: 1, currentpage: 1 } };
      },
    } as unknown as ApiClient;
    const reader = new AccountReader(client);
    const state = await readState(reader);
    const problems: string[] = [];
    const wanted = readAccountFile('version: 1\ncampaigns:\n  - name: autumn deals\n    public: true\n', 'f.yaml').file;
    await applyPlan(reader, { warn: () => undefined }, makePlan(wanted, state, false), state, () => undefined, undefined, undefined, { problems });
    expect(problems).toEqual([
      'campaign autumn deals: the server stored name as "Autumn sale", not "Autumn deals" as sent and predicted',
      'campaign autumn deals: the server stored public as false, not true as sent',
    ]);
  });
});

describe('a link write\'s read-back compares the text the product rewrites with the prediction (--verify)', () => {
  it('names a meta title stored otherwise than sent and predicted; the predicted one passes', async () => {
    const stored: Record<string, string> = {};
    const client = {
      inFlight: { limit: () => 1 },
      base: new URL('http://127.0.0.1:1/'),
      async request(method: string, path: string, options: { json?: Record<string, unknown> } = {}) {
        if (method === 'POST') {
          stored.title = options.json!.metatitle === 'Plain' ? 'Plain' : options.json!.metatitle === 'Fish & "Chips"' ? 'Fish & &quot;Chips&quot;' : 'Something else';
          return { error: 0, id: 7, shorturl: 'http://127.0.0.1:1/x' };
        }
        if (path === 'api/url/7') return { error: 0, details: { id: 7, title: stored.title, expiry: '2035-01-01 00:00:00' } };
        return { error: 0, data: { urls: [], maxpage: 1, currentpage: 1 } };
      },
    } as unknown as ApiClient;
    const { addLink } = await import('../../src/model/link-writes.js');
    const write = (title: string) => addLink({ reader: new AccountReader(client), ui: { warn: () => undefined, confirm: async () => undefined }, verify: true }, { url: 'https://dest.invalid/x', metatitle: title, expiry: '2035-01-01 00:00:00' }, 'fail');
    expect((await write('Fish & "Chips"')).problems).toEqual([]);
    expect((await write('Plain')).problems).toEqual([]);
    expect((await write('<b>Odd</b>')).problems).toEqual(['created link 7, but the server stored the meta title as "Something else", not "Odd"']);
  });
});

describe('a plan keeps an unchanged link as its file record (src/ascode/engine.ts, unchangedAsFileRecord)', () => {
  const empty = (): State => ({ domains: [], pixels: [], campaigns: [], channels: [], links: [], qr: [], overlays: [], splash: [] });
  const outcome = (file: Parameters<typeof makePlan>[0], state: State) => {
    try {
      return makePlan(file, state, true);
    } catch (error) {
      return (error as Error).message;
    }
  };
  const alias = fc.constantFrom('promo', 'Promo', 'sale', 'spring');
  const title = fc.option(fc.constantFrom('Spring', 'Sale'), { nil: undefined });
  const channels = fc.option(fc.subarray(['Email', 'Social']), { nil: undefined });

  it('makes the same plan, notes and errors as the whole records do (pruning too)', () => {
    const server = fc.array(fc.record({ alias, title, channels, geo: fc.boolean() }), { maxLength: 5 });
    const wanted = fc.array(fc.record({ alias, title, channels, id: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }), geo: fc.boolean() }), { maxLength: 5 });
    fc.assert(
      fc.property(server, wanted, (serverLinks, fileLinks) => {
        const links: Current[] = serverLinks.map((l, i) => ({ id: i + 1, record: { alias: l.alias, url: 'https://example.com/', ...(l.title ? { title: l.title } : {}), ...(l.channels?.length ? { channels: l.channels } : {}) }, item: { id: i + 1 } }));
        const file = { version: 1 as const, links: fileLinks.map((l) => ({ alias: l.alias, url: 'https://example.com/', ...(l.title ? { title: l.title } : {}), ...(l.channels ? { channels: l.channels } : {}), ...(l.id ? { id: l.id } : {}), ...(l.geo ? { geo: { ca: 'https://example.ca/' } } : {}) })) };
        const whole = { ...empty(), links };
        const kept = { ...empty(), links: links.map(unchangedAsFileRecord(file.links)) };
        expect(outcome(file, kept)).toEqual(outcome(file, whole));
      }),
      { numRuns: 400 },
    );
  });

  it('stands in only for a link the file would not change', () => {
    const file = readAccountFile('version: 1\nchannels:\n  - name: Email\n  - name: Social\nlinks:\n  - alias: same\n    url: https://example.com/a\n  - alias: retitled\n    url: https://example.com/b\n    title: New\n  - alias: extra\n    url: https://example.com/c\n    channels: [Email]\n  - alias: targeted\n    url: https://example.com/d\n    geo:\n      Canada: https://example.ca\n', 'f.yaml').file;
    const server: Current[] = [
      { id: 1, record: { alias: 'same', url: 'https://example.com/a', title: 'Kept' }, item: { id: 1 } },
      { id: 2, record: { alias: 'retitled', url: 'https://example.com/b', title: 'Old' }, item: { id: 2 } },
      { id: 3, record: { alias: 'extra', url: 'https://example.com/c', channels: ['Email', 'Social'] }, item: { id: 3 } },
      { id: 4, record: { alias: 'targeted', url: 'https://example.com/d' }, item: { id: 4 } },
      { id: 5, record: { alias: 'gone', url: 'https://example.com/e' }, item: { id: 5 } },
    ];
    const kept = server.map(unchangedAsFileRecord(file.links!));
    expect(kept[0]).toEqual({ id: 1, record: file.links![0] });
    expect(kept.slice(1)).toEqual(server.slice(1));
  });
});

describe('the rate-limit window in export\'s note (rateWindowSeconds)', () => {
  it('takes a measured window within a second of whole minutes as those minutes, and any other as measured', () => {
    const cases: Array<[ms: number, seconds: number]> = [
      [60_000, 60], [59_999, 60], [59_000, 60], [58_999, 60], [58_000, 58], [119_200, 120], [30_000, 30], [29_100, 30], [400, 1], [0, 1], [61_000, 61],
    ];
    expect(cases.map(([ms]) => rateWindowSeconds(ms))).toEqual(cases.map(([, seconds]) => seconds));
  });
});

describe('the YAML export writes', () => {
  it('reads back every string as the same string (plain only when unambiguous)', () => {
    const tricky = ['true', 'No', 'null', '123', '1e3', '- a', 'a: b', 'a #b', '#1e88e5', ' lead', 'trail ', 'Spring launch', 'https://example.com/a?b=c&d', "it's", '', '@x', 'multi\nline', '${env:X}', '~'];
    fc.assert(fc.property(fc.oneof(fc.constantFrom(...tricky), fc.string(), fc.string({ unit: 'grapheme' })), (s) => {
      expect(parse(`k: ${yamlScalar(s)}\n`)).toEqual({ k: s });
    }), { numRuns: 500 });
    expect(yamlScalar('Spring launch')).toBe('Spring launch');
  });

  it('a literal `${` is escaped as `$${` and reads back as it was: text is never a reference outside a secret field', () => {
    const dollars = fc.string({ unit: fc.constantFrom('$', '{', '}', 'env:', 'X', ' ') });
    fc.assert(fc.property(fc.oneof(dollars, fc.string()), (s) => {
      const text = `version: 1\nlinks:\n  - alias: xyz\n    url: https://example.com\n    description: ${yamlScalar(escapeLiteral(s))}\n`;
      expect(readAccountFile(text, 'f.yaml', { env: { X: 'resolved' } }).file.links![0]!.description).toBe(s);
    }), { numRuns: 500 });
    expect(escapeLiteral('${env:X}')).toBe('$${env:X}');
    expect(yamlScalar('https://example.com/a?b=c')).toBe('https://example.com/a?b=c');
  });
});

describe('the fast reader of block-style records (src/ascode/block-yaml.ts)', () => {
  const scalarText = fc.oneof(
    fc.constantFrom('true', 'False', 'null', '~', '12', '-3', '1e3', '0x1A', '.5', 'yes', 'a: b', 'a #b', '#1e88e5', "'it''s'", '"q\\"uote"', '"tab\\t"', 'https://example.com/a?b=c#d', '2035-01-01 00:00:00', 'Spring launch', '- x', '[a]', '{a: 1}', '&a x', '*a', '!!str x', '|', '>'),
    fc.string().map(yamlScalar),
    fc.string({ unit: 'grapheme' }).map(yamlScalar),
  );
  const key = fc.oneof(fc.constantFrom('alias', 'url', 'title', 'Canada', 'United States', '"quoted key"'), fc.stringMatching(/^[a-z][a-zA-Z0-9]{0,8}$/));
  const record = fc.array(
    fc.oneof(
      fc.tuple(key, scalarText).map(([k, v]) => [`${k}: ${v}`]),
      fc.tuple(key, fc.array(scalarText, { minLength: 1, maxLength: 3 })).map(([k, vs]) => [`${k}:`, ...vs.map((v) => `  - ${v}`)]),
      fc.tuple(key, fc.array(fc.tuple(key, scalarText), { minLength: 1, maxLength: 3 })).map(([k, kvs]) => [`${k}:`, ...kvs.map(([kk, v]) => `  ${kk}: ${v}`)]),
    ),
    { minLength: 1, maxLength: 5 },
  );

  it('gives what the yaml package gives, or leaves the record to it', async () => {
    const { blockItem } = await import('../../src/ascode/block-yaml.js');
    let fast = 0;
    fc.assert(
      fc.property(record, (entries) => {
        const lines = entries.flat();
        const text = `  - ${lines[0]}\n${lines.slice(1).map((l) => `    ${l}`).join('\n')}\n`;
        let expected: unknown;
        try {
          expected = parse(text, { uniqueKeys: true });
        } catch {
          expected = undefined; // not valid YAML: the fast reader must leave it to the yaml package
        }
        const got = blockItem(text);
        if (got === undefined) return;
        fast++;
        expect(expected).toBeDefined();
        expect(got.toJSON()).toEqual(expected);
      }),
      { numRuns: 2000 },
    );
    expect(fast).toBeGreaterThan(200); // most records of export's style take the fast path
  });

  it('reads a file of exported records with the same result and positions as the yaml package', () => {
    const text = 'version: 1\nlinks:\n  # a comment\n  - alias: promo\n    url: https://example.com/promo\n    channels:\n      - Marketing\n    geo:\n      Canada: https://example.ca\n  - alias: two\n    url: "https://example.com/it\'s"\n    colour: red\n';
    expect(() => readAccountFile(text, 'f.yaml')).toThrow(/f\.yaml:12:5: links\[1\]\.colour: unknown field/);
    const ok = readAccountFile(text.replace('    colour: red\n', ''), 'f.yaml').file;
    expect(ok.links).toEqual(parse(text.replace('    colour: red\n', '')).links);
  });
});

describe('plan predicts what the product stores (issue 54: the StateFuncs of src/model/*.ts)', () => {
  const empty = (): State => ({ domains: [], pixels: [], campaigns: [], channels: [], links: [], qr: [], overlays: [], splash: [] });
  /** A record of `kind` with `field` set to `value` (and what the kind needs besides, the same on both sides). */
  const recordWith = (kind: Pair['kind'], field: string, value: string): Record<string, unknown> => {
    const base: Record<string, Record<string, unknown>> = {
      campaigns: { name: 'Recorded' }, channels: { name: 'Recorded' }, pixels: { name: 'Recorded', type: 'gtmpixel', tag: 'GTM-1234' }, qr: { name: 'Recorded', type: 'text', data: 'Recorded' },
      links: { alias: 'recorded', url: 'https://dest.invalid/recorded' },
    };
    return { ...base[kind], [field]: value };
  };

  const pairs = recordedRewrites();
  type Pair = RecordedRewrite;

  it('a campaign the file seems to rename without its slug gets a note naming the slug that makes it a rename in place', () => {
    const state = empty();
    state.campaigns = [{ id: 1, record: { name: 'Autumn deals', slug: 'autumn-deals' } }];
    const file = { version: 1 as const, campaigns: [{ name: 'Harvest deals' }] };
    expect(makePlan(file, state, false).notes).toEqual(['campaign "Harvest deals" is new to the server while campaign "Autumn deals" is not in the file: if the file renames it, give it `slug: autumn-deals`, and apply renames it in place, keeping its links']);
    expect(makePlan(file, state, true).notes[0]).toContain('(apply deletes it; its links keep its id)');
    // With the slug, it is a rename; with two campaigns gone, no guess.
    expect(makePlan({ version: 1, campaigns: [{ name: 'Harvest deals', slug: 'autumn-deals' }] }, state, false).changes).toMatchObject([{ action: 'update', fields: [{ field: 'name', from: 'Autumn deals', to: 'Harvest deals' }] }]);
    state.campaigns.push({ id: 2, record: { name: 'Winter', slug: 'winter' } });
    expect(makePlan(file, state, false).notes.filter((n) => n.includes('renames'))).toEqual([]);
  });

  it('a link naming its campaign in another letter case, or as written before the product rewrote it, plans clean (issue 55, item 2)', () => {
    const state = empty();
    state.campaigns = [{ id: 4, record: { name: 'Spring Sale 2027', slug: 'spring' } }];
    state.channels = [{ id: 5, record: { name: 'Say &quot;hi&quot;' } }];
    state.links = [{ id: 9, record: { alias: 'sale', url: 'https://dest.invalid/sale', campaign: 'Spring Sale 2027', channels: ['Say &quot;hi&quot;'] }, item: { id: 9 } }];
    for (const campaign of ['SPRING SALE 2027', 'spring sale 2027', 'Spring Sale 2027']) {
      const plan = makePlan({ version: 1, links: [{ alias: 'sale', url: 'https://dest.invalid/sale', campaign, channels: ['SAY "hi"'] }] }, state, false);
      expect(plan.changes, campaign).toEqual([]);
    }
    // Another campaign is a change.
    expect(makePlan({ version: 1, links: [{ alias: 'sale', url: 'https://dest.invalid/sale', campaign: 'Autumn' }] }, state, false).changes).toMatchObject([{ action: 'update', fields: [{ field: 'campaign', from: 'Spring Sale 2027', to: 'Autumn' }] }]);
  });

  it('finds the rewrites in the recording', () => {
    expect(pairs.length).toBeGreaterThan(100);
    const rewritten = pairs.filter((p) => p.sent !== p.stored).map((p) => `${p.kind}.${p.field}`);
    // names capitalised, slugs lowercased, text cleaned, a colour cut, a scheme added, an alias rewritten
    for (const field of ['campaigns.name', 'campaigns.slug', 'channels.name', 'channels.color', 'links.title', 'links.metaDescription', 'links.url', 'links.alias']) expect(rewritten).toContain(field);
  });

  it.each(pairs.map((p) => [`${p.kind}.${p.field} ${JSON.stringify(p.sent)} → ${JSON.stringify(p.stored)}`, p] as const))('apply then plan, and export then plan, are clean: %s', (_name, p) => {
    const state = empty();
    state[p.kind] = [{ id: 1, record: recordWith(p.kind, p.field, p.stored), item: { id: 1 } }];
    for (const text of [p.sent, p.stored]) {
      const plan = makePlan({ version: 1, [p.kind]: [recordWith(p.kind, p.field, text)] }, state, true);
      expect(plan.changes, `file ${JSON.stringify(text)}`).toEqual([]);
      expect(plan.notes).toEqual([]);
    }
  });

  it.each(pairs.filter((p) => p.write === 'create').map((p) => [`${p.kind}.${p.field} ${JSON.stringify(p.sent)}`, p] as const))('a create says once what will be stored: %s', (_name, p) => {
    const [change] = makePlan({ version: 1, [p.kind]: [recordWith(p.kind, p.field, p.sent)] }, empty(), false).changes;
    expect(change!.action).toBe('create');
    expect(change!.storedAs?.find((s) => s.field === p.field)).toEqual(p.sent === p.stored ? undefined : { field: p.field, as: p.stored });
  });
});
