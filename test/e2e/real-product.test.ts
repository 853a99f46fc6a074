/**
 * linkctl on the product 7.7 as it was run (issue 28; real-servers.md, "What the product 7.7 does
 * when run"), against the sandbox's default mode, which answers as that product: the built CLI, as
 * a user runs it. (The rate limit's edge is in rate-limit-edge.test.ts.)
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { saveState, seedState } from '../../src/sandbox/state.js';
import { runCli, tempDir } from '../helpers.js';

const dir = tempDir('linkctl-product77-');
const open: Sandbox[] = [];
afterAll(async () => {
  await Promise.all(open.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});
let n = 0;
/** A sandbox of its own, with a state file (an empty account with `empty`). */
async function server(options: { empty?: boolean; stringIds?: boolean; state?: ReturnType<typeof seedState> } = {}) {
  const stateFile = join(dir, `s${++n}.json`);
  if (options.empty || options.state) {
    const state = options.state ?? seedState();
    if (options.empty) for (const c of ['qrs', 'domains', 'campaigns', 'channels', 'pixels', 'links'] as const) (state[c] as unknown[]) = [];
    saveState(stateFile, state);
  }
  const sb = await startSandbox({ port: 0, rateLimit: null, stateFile, stringIds: options.stringIds });
  open.push(sb);
  // The seeded wifi code's password travels in an export as ${env:WIFI_PASSWORD_OFFICE_WIFI}: apply reads it (issue 53, 3).
  const env = { LINKCTL_BASE_URL: sb.url, LINKCTL_API_KEY: sb.key, LINKCTL_CONFIG_DIR: dir, WIFI_PASSWORD_OFFICE_WIFI: 'welcome123' };
  const stored = (alias: string) => (JSON.parse(readFileSync(stateFile, 'utf8')) as { links: Array<Record<string, unknown>> }).links.find((l) => l.alias === alias)!;
  return { sb, env, stored, stateFile };
}
const writes = (sb: Sandbox) => sb.requests.filter((r) => r.method !== 'GET');
let files = 0;
const file = (text: string) => {
  const path = join(dir, `f${++files}.yaml`);
  writeFileSync(path, text);
  return path;
};
beforeEach(() => {
  for (const sb of open) sb.requests.length = 0;
});

describe('the meta title and description, and the note', () => {
  it('export writes what answers give back under its name (title, metaDescription), never the note; plan of a link with a note converges', async () => {
    const { sb, env, stored } = await server();
    const add = await runCli(['link', 'add', 'https://example.com/noted', '--alias', 'noted', '--meta-title', 'Noted', '--meta-description', 'Shown in previews', '--description', 'internal note'], { env });
    expect(add.code, add.stderr).toBe(0);
    expect(stored('noted')).toMatchObject({ description: 'internal note', metadescription: 'Shown in previews' });
    const exported = await runCli(['export'], { env });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(/- alias: noted\n {4}url: https:\/\/example.com\/noted\n {4}title: Noted\n {4}metaDescription: Shown in previews\n/);
    expect(exported.stdout).not.toContain('internal note');
    // The file may give the note: it cannot be read back, so plan never plans it as a change.
    const withNote = file(exported.stdout.replace('    metaDescription: Shown in previews\n', '    metaDescription: Shown in previews\n    description: another note\n'));
    sb.requests.length = 0;
    const plan = await runCli(['plan', '-f', withNote, '--detailed-exitcode'], { env });
    expect(plan.stdout).toBe('No changes: the account matches the file.\n');
    expect(plan.code).toBe(0);
    expect(writes(sb)).toEqual([]);
  });

  it('a migration sends the meta description as metadescription, never as the note', async () => {
    const from = await server();
    const to = await server({ empty: true });
    expect((await runCli(['link', 'add', 'https://example.com/moved', '--alias', 'moved', '--meta-description', 'Preview text'], { env: from.env })).code).toBe(0);
    const exported = await runCli(['export', '--details'], { env: from.env });
    const apply = await runCli(['apply', '-f', '-', '--yes'], { env: to.env, stdin: exported.stdout });
    expect(apply.code, apply.stderr).toBe(0);
    const post = writes(to.sb).find((r) => r.path === '/api/url/add' && (r.body as { custom: string }).custom === 'moved')!;
    expect(post.body).toMatchObject({ metadescription: 'Preview text' });
    expect(post.body).not.toHaveProperty('description');
    const plan = await runCli(['plan', '-f', '-', '--detailed-exitcode'], { env: to.env, stdin: exported.stdout });
    expect(plan.stdout).toBe('No changes: the account matches the file.\n');
  });
});

describe('updates never clear in silence', () => {
  it('an exported link with pixels and parameters, one field edited: plan names what the update clears, apply --yes refuses without --allow-clear; stated in the file, nothing is cleared', async () => {
    const { sb, env, stored } = await server();
    const update = await runCli(['link', 'update', '2', '--pixel', '1', '--param', 'utm_source=qr', '--private', '--yes'], { env });
    expect(update.code, update.stderr + update.stdout).toBe(0);
    expect(stored('spring-sale')).toMatchObject({ pixels: [1], parameters: [{ name: 'utm_source', value: 'qr' }] });
    const exported = (await runCli(['export'], { env })).stdout;
    const edited = file(exported.replace('    title: Spring sale\n', '    title: Spring sale 2027\n'));

    const plan = await runCli(['plan', '-f', edited], { env });
    expect(plan.stdout).toMatch(/^~ link spring-sale: title "Spring sale" → "Spring sale 2027"\n {4}clears what the file does not state \(cannot be read back\): /m);
    expect(plan.stdout.replace(/\s+/g, ' ')).toMatch(/clears what the file does not state \(cannot be read back\): .*password; pixels; parameters;.*public status/);
    const json = JSON.parse((await runCli(['plan', '-f', edited, '--json'], { env })).stdout);
    expect(json.changes[0].clears).toEqual(expect.arrayContaining(['pixels', 'parameters', 'public status (real servers make every updated link private)']));
    const markdown = await runCli(['plan', '-f', edited, '-o', 'markdown'], { env });
    expect(markdown.stdout).toMatch(/\*\*clears\*\* what the file does not state: .*pixels; parameters/);

    sb.requests.length = 0;
    const refused = await runCli(['apply', '-f', edited, '--yes'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^linkctl: the plan updates 1 link \(spring-sale\) and each update would clear what the file does not state: .*pixels; parameters; .*nothing was changed$/m);
    expect(refused.stderr).toMatch(/^hint: .*pass --allow-clear/m);
    expect(writes(sb)).toEqual([]);
    expect(stored('spring-sale').pixels).toEqual([1]);

    // Stated in the file (pixels, parameters, public: false), the update clears nothing of them: no --allow-clear needed.
    const stated = file(exported.replace('    title: Spring sale\n', '    title: Spring sale 2027\n    pixels:\n      - Main analytics\n    params:\n      utm_source: qr\n    public: false\n'));
    const statedPlan = await runCli(['plan', '-f', stated, '--json'], { env });
    expect(JSON.parse(statedPlan.stdout).changes[0].clears).not.toEqual(expect.arrayContaining(['pixels']));
    const applied = await runCli(['apply', '-f', stated, '--yes', '--allow-clear'], { env });
    expect(applied.code, applied.stderr).toBe(0);
    expect(writes(sb).at(-1)!.body).toMatchObject({ metatitle: 'Spring sale 2027', pixels: [1], parameters: [{ name: 'utm_source', value: 'qr' }], status: 'private' });
    expect(stored('spring-sale')).toMatchObject({ pixels: [1], parameters: [{ name: 'utm_source', value: 'qr' }], title: 'Spring sale 2027' });
  });

  it('link update tells the truth about public status: every update makes the link private; --public and --description are refused before sending', async () => {
    const { sb, env } = await server();
    const refused = await runCli(['link', 'update', '1', '--meta-title', 'Docs'], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('public status (real servers make every updated link private, whatever --public says)');
    for (const [flag, message] of [['--public', /--public cannot be kept by an update/], ['--description', /--description \(the link's note\) cannot be set by an update/]] as const) {
      const r = await runCli(['link', 'update', '1', flag, ...(flag === '--public' ? [] : ['note']), '--yes'], { env });
      expect(r.code, flag).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect(sb.requests).toEqual([]);
  });
});

describe('what the server would ignore or break is caught before sending', () => {
  it('--deeplink-apple is sent without auto and the link is created; --deeplink-auto is its own flag, and the product fails on it', async () => {
    const { sb, env, stored } = await server();
    const r = await runCli(['link', 'add', 'https://example.com/app', '--alias', 'app-link', '--deeplink-apple', 'https://apps.apple.com/app/x'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(writes(sb)[0]!.body).toMatchObject({ deeplink: { apple: 'https://apps.apple.com/app/x' } });
    expect(stored('app-link').deeplink).toEqual({ apple: 'https://apps.apple.com/app/x' });
    const auto = await runCli(['link', 'add', 'https://example.com/app2', '--deeplink-auto'], { env });
    expect(auto.code).toBe(6);
    expect(writes(sb).at(-1)!.body).toMatchObject({ deeplink: { auto: true } });
    expect((await runCli(['link', 'add', '--help'], { env })).stdout.replace(/\s+/g, ' ')).toMatch(/--deeplink-auto open the app automatically when it is installed; the product 7\.7 on Linux fails on it/);
  });

  it('channel update: a name or description under 3 characters, or an empty description, is exit 2 naming the rule; nothing sent', async () => {
    const { sb, env } = await server();
    for (const [args, message] of [
      [['--name', 'AB'], /--name must have at least 3 characters on update: real servers ignore a channel name shorter than 3 characters on update/],
      [['--description', ''], /--description must have at least 3 characters on update: a channel description cannot be cleared through the API/],
      [['--description', 'ab'], /real servers ignore a channel description shorter than 3 characters/],
    ] as const) {
      const r = await runCli(['channel', 'update', '1', ...args], { env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect(sb.requests).toEqual([]);
    expect((await runCli(['channel', 'update', '1', '--name', 'ABC', '-q'], { env })).code).toBe(0);
  });

  it('a QR update whose data does not fit the code\'s own type is refused before sending: the type is read from the code\'s image', async () => {
    const { sb, env } = await server();
    const made = await runCli(['qr', 'add', '--type', 'phone', '--data', '+15551234567', '--name', 'Call', '-q'], { env });
    expect(made.code, made.stderr).toBe(0);
    sb.requests.length = 0;
    const r = await runCli(['qr', 'update', made.stdout.trim(), '--type', 'text', '--data', 'hello'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^linkctl: QR code \d+ is a phone code \(read from its image\), not text: the API cannot change a code's type, and nothing was sent/m);
    expect(writes(sb)).toEqual([]);
  });

  it('an alias the product\'s word list refuses is that command\'s or row\'s clear error, before anything is sent (issue 55, 6)', async () => {
    const { sb, env } = await server();
    const one = await runCli(['link', 'add', 'https://example.com/w', '--alias', 'newone'], { env });
    expect(one.code).toBe(2);
    expect(one.stderr).toMatch(/^linkctl: --alias "newone" holds "newone", a word of the product's alias filter: servers refuse it \("Inappropriate aliases are not allowed\."\)\n/);
    expect(writes(sb)).toHaveLength(0);
    const csv = join(dir, 'words.csv');
    writeFileSync(csv, 'url,alias\nhttps://example.com/a,newone\nhttps://example.com/b,good-one\n');
    const rows = await runCli(['link', 'add', '--from', csv, '--json'], { env });
    expect(rows.code).toBe(2);
    expect(rows.stderr).toContain(`${csv}:2: --alias "newone" holds "newone"`);
    expect(writes(sb)).toHaveLength(0);
  });
});

describe('plans converge on what the product stores', () => {
  it('a migration with a random mixed-case campaign slug plans clean afterwards (slugs compared lowercased, as stored)', async () => {
    const from = await server();
    const to = await server({ empty: true });
    // Three campaigns: a random slug is all lower case once in 64 (six letters of 52), three are so once in 262,144.
    for (const name of ['Autumn', 'Winter', 'Spring']) expect((await runCli(['campaign', 'add', '--name', name], { env: from.env })).code).toBe(0);
    const exported = (await runCli(['export'], { env: from.env })).stdout;
    const slugs = [...exported.matchAll(/- name: (?:Autumn|Winter|Spring)\n {4}slug: (\S+)/g)].map((m) => m[1]!);
    expect(slugs).toHaveLength(3);
    const slug = slugs.find((s) => /[A-Z]/.test(s));
    expect(slug, `no mixed-case slug among ${slugs.join(', ')}`).toBeDefined();
    expect((await runCli(['apply', '-f', '-', '--yes'], { env: to.env, stdin: exported })).code).toBe(0);
    expect((await runCli(['campaign', 'list', '--json'], { env: to.env })).stdout).toContain(`/r/${slug!.toLowerCase()}`);
    const plan = await runCli(['plan', '-f', '-', '--detailed-exitcode'], { env: to.env, stdin: exported });
    expect(plan.stdout).toBe('No changes: the account matches the file.\n');
    expect(plan.code).toBe(0);
  });

  it('linkctl\'s own export is always valid input: links with 1- and 2-character aliases plan clean', async () => {
    const state = seedState();
    state.links[0]!.alias = 'd';
    state.links[1]!.alias = 'ss';
    const { env } = await server({ state });
    const exported = await runCli(['export', '--details'], { env });
    expect(exported.stdout).toMatch(/- alias: d\n/);
    const plan = await runCli(['plan', '-f', '-', '--detailed-exitcode'], { env, stdin: exported.stdout });
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toBe('No changes: the account matches the file.\n');
    expect(plan.code).toBe(0);
  });

  it('a 2-character alias of an existing link is a name in rows (link add --from with --if-exists skip or update, import), never a refusal; one that would be created is refused, nothing written', async () => {
    const state = seedState();
    state.links[1]!.alias = 's3'; // older installations have such links (spring-sale's destination)
    const { sb, env } = await server({ state });
    const rows = join(dir, 'short-rows.csv');
    writeFileSync(rows, 'url,alias\nhttps://sandbox.localhost/sale,s3\nhttps://sandbox.localhost/docs,docs\n');
    const writes = () => sb.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);

    sb.requests.length = 0;
    const skip = await runCli(['link', 'add', '--from', rows, '--if-exists', 'skip', '--json'], { env });
    expect(skip.code, skip.stderr).toBe(0);
    expect(skip.stderr).not.toMatch(/at least 3 characters/);
    expect(writes()).toEqual([]);
    expect(JSON.parse(skip.stdout).map((r: { status: string }) => r.status)).toEqual(['skipped', 'skipped']);

    sb.requests.length = 0;
    writeFileSync(rows, 'url,alias,meta-title\nhttps://sandbox.localhost/sale,s3,Spring 2027\n');
    const update = await runCli(['link', 'add', '--from', rows, '--if-exists', 'update', '--yes', '--json'], { env });
    expect(update.code, update.stderr + update.stdout).toBe(0);
    expect(writes()).toEqual(['PUT /api/url/2/update']);
    expect(sb.requests.filter((r) => r.method === 'PUT')[0]!.body).toMatchObject({ url: 'https://sandbox.localhost/sale', metatitle: 'Spring 2027' });

    // a 2-character alias no link has would be created: refused, no write
    sb.requests.length = 0;
    writeFileSync(rows, 'url,alias\nhttps://example.com/new-page,n2\n');
    const create = await runCli(['link', 'add', '--from', rows, '--if-exists', 'skip'], { env });
    expect(create.code).not.toBe(0);
    expect(create.stdout + create.stderr).toMatch(/--alias must have at least 3 characters, got "n2" to create a link: no link has it; nothing was sent/);
    expect(writes()).toEqual([]);
    // typed on the command line without skip or update: refused before any request
    sb.requests.length = 0;
    const typed = await runCli(['link', 'add', 'https://example.com/x', '--alias', 's3'], { env });
    expect(typed.code).toBe(2);
    expect(sb.requests).toEqual([]);

    // import: the account's own short alias is matched; one the import would create is still refused
    const input = join(dir, 'short-import.csv');
    writeFileSync(input, 'Destination,Alias\nhttps://sandbox.localhost/sale,s3\nhttps://sandbox.localhost/docs,docs\n');
    const imported = await runCli(['import', 'csv', input, '--map', 'url=Destination,alias=Alias'], { env });
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).not.toMatch(/shorter than/);
    expect(imported.stdout).toMatch(/- alias: s3\n/);
    const planned = await runCli(['plan', '-f', '-'], { env, stdin: imported.stdout });
    expect(planned.stderr).not.toMatch(/at least 3 characters/);
    expect(planned.stdout).not.toMatch(/^\+ link s3/m);
    writeFileSync(input, 'Destination,Alias\nhttps://example.com/brand-new,n2\n');
    const refusedImport = await runCli(['import', 'csv', input, '--map', 'url=Destination,alias=Alias'], { env });
    expect(refusedImport.code).toBe(2);
    expect(refusedImport.stderr).toMatch(/alias "n2" is shorter than 3 characters, which servers refuse/);
    expect(sb.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('a link with a null in its channel list (each update sent without a channel adds one; deleting the channel leaves it: fact 5) is read, listed and exported', async () => {
    const { env } = await server();
    expect((await runCli(['api', 'PUT', 'api/url/1/update', '-f', 'url=https://sandbox.localhost/docs'], { env })).code).toBe(0);
    expect((await runCli(['channel', 'delete', '1', '--yes'], { env })).code).toBe(0);
    const list = await runCli(['link', 'list', '--json', '--search', 'docs'], { env });
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)[0].channel).toEqual([null]);
    const exported = await runCli(['export'], { env });
    expect(exported.code, exported.stderr).toBe(0);
    expect((await runCli(['plan', '-f', '-'], { env, stdin: exported.stdout })).stdout).toBe('No changes: the account matches the file.\n');
  });

  it('link list --json has the same types against integer (PHP 8) and string (older PHP) servers', async () => {
    const ints = await server();
    const strings = await server({ stringIds: true });
    const listed = async (env: Record<string, string>) => JSON.parse((await runCli(['link', 'list', '--json'], { env })).stdout) as Array<Record<string, unknown>>;
    const [a, b] = [await listed(ints.env), await listed(strings.env)];
    const shape = (rows: Array<Record<string, unknown>>) => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, Array.isArray(v) ? v.map((x) => typeof x) : typeof v])));
    expect(shape(b)).toEqual(shape(a));
    expect(a[0]).toMatchObject({ id: expect.any(Number), clicks: expect.any(Number) });
    const strip = (rows: Array<Record<string, unknown>>) => rows.map(({ shorturl: _s, domain: _d, ...rest }) => rest);
    expect(strip(b)).toEqual(strip(a));
  });
});

describe('aliases are unique across the accounts of a server', () => {
  it('an alias another account holds: the server\'s words, a hint that says why, and this account looked up (not sent again)', async ({ onTestFinished }) => {
    // A server of our own: its other account holds "promo"; this account has no link.
    const { createServer } = await import('node:http');
    const seen: string[] = [];
    const other = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.setHeader('Content-Type', 'application/json');
      if (req.method === 'POST' && req.url === '/api/url/add') return void res.end(JSON.stringify({ error: 1, message: 'That alias is taken. Please choose another one.' }));
      res.end(JSON.stringify({ error: 0, data: { result: 0, perpage: 100, currentpage: 1, nextpage: null, maxpage: 1, urls: [] } }));
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => other.close(() => resolve())));
    const env = { LINKCTL_BASE_URL: `http://127.0.0.1:${(other.address() as { port: number }).port}`, LINKCTL_API_KEY: 'k-0123456789', LINKCTL_CONFIG_DIR: dir };
    const r = await runCli(['link', 'add', 'https://example.com/spring', '--alias', 'promo'], { env });
    expect(r.code).toBe(1);
    // the alias named, and whose it is once this account was looked up (issue 55, 6)
    expect(r.stderr).toBe('linkctl: alias "promo": That alias is taken. Please choose another one. No link of this account has it: another account of this server holds it; nothing was created\nhint: aliases are unique across all the accounts of a server, not per account: a link of this account (`linkctl link list --search ALIAS` finds it) or of another one holds it; choose another alias, or, after a move between two accounts, delete the old link first\n');
    expect(seen.filter((s) => s.startsWith('POST'))).toEqual(['POST /api/url/add']);
    expect(seen.filter((s) => s.startsWith('GET /api/urls')).length).toBeGreaterThan(0); // the account read for the alias
  });
});
