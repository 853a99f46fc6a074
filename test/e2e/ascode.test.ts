/**
 * Links as code: export an account, apply it to another (empty) server, plan shows nothing,
 * and one edit is one change. Two sandboxes with their own state files, the CLI run as a user
 * would (a subprocess) for the main paths and in-process for breadth.
 */
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../src/sandbox/server.js';
import { saveState, seedState } from '../../src/sandbox/state.js';
import { runCli, runMain, tempDir, useSandbox } from '../helpers.js';
import { recordedRewrites } from '../recording.js';
import { specs } from '../../src/ascode/model.js';
import { campaignSlug } from '../../src/model/rewrites.js';

/** The version the built CLI reports (from package.json). */

const dir = tempDir('linkctl-ascode-');
let a: Sandbox;
let b: Sandbox;
const envOf = (sb: Sandbox) => ({ LINKCTL_BASE_URL: sb.url, LINKCTL_API_KEY: sb.key, LINKCTL_CONFIG_DIR: dir });
const changes = (sb: Sandbox) => sb.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path}`);

/** A state with only what the web interface makes (overlays, splash pages): the target of a migration. */
function emptyState() {
  const state = seedState();
  for (const c of ['qrs', 'domains', 'campaigns', 'channels', 'pixels', 'links'] as const) (state[c] as unknown[]) = [];
  return state;
}

beforeAll(async () => {
  saveState(join(dir, 'b.json'), emptyState());
  // A: the seeded account (every kind, links referencing a campaign, a channel and a domain), in real-server shapes.
  a = await startSandbox({ port: 0, rateLimit: null, stateFile: join(dir, 'a.json'), quirks: true });
  b = await startSandbox({ port: 0, rateLimit: null, stateFile: join(dir, 'b.json'), quirks: true });
  // More references: a link on the branded domain, in a campaign and a channel, with a pixel; a QR code with data.
  const link = await runCli(['link', 'add', 'https://example.com/branded', '--alias', 'branded', '--domain', 'https://go.sandbox.localhost', '--campaign', '1', '--channel', '1', '--pixel', '1', '--geo', 'Canada=https://example.ca', '--expiry', '2035-12-31 23:59:59'], { env: envOf(a) });
  expect(link.code, link.stderr).toBe(0);
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  a.requests.length = 0;
  b.requests.length = 0;
});

/** The export without what the server generates (none is written) and the schema line. */
const comparable = (text: string) => text.replace(/^# yaml-language-server.*\n/, '');

describe('export, plan, apply', () => {
  let exported = '';

  it('exports every kind by name, with no id, and writes the file 0600 (with --include-secrets: a migration keeps the wifi code)', async () => {
    const file = join(dir, 'account.yaml');
    const r = await runCli(['export', '--details', '--include-secrets', '--file', file], { env: envOf(a) });
    expect(r.code, r.stderr).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    exported = readFileSync(file, 'utf8');
    // The schema as a file beside the export (`export --schema` writes it), never a URL under a package name.
    expect(exported.split('\n')[0]).toBe(`# yaml-language-server: $schema=./linkctl.schema.json`);
    expect(exported).not.toMatch(/file:\/\/|\/work\/|node_modules/);
    expect(exported).toMatch(/^version: 1$/m);
    for (const kind of ['domains', 'pixels', 'campaigns', 'channels', 'links', 'qr', 'overlays', 'splash']) expect(exported).toMatch(new RegExp(`^${kind}:`, 'm'));
    expect(exported).toContain('domain: https://go.sandbox.localhost');
    expect(exported).toMatch(/- alias: branded\n\s+domain: https:\/\/go.sandbox.localhost\n\s+url: https:\/\/example.com\/branded/);
    expect(exported).toMatch(/campaign: Spring launch\n\s+channels:\n\s+- Marketing\n\s+expiry: "2035-12-31 23:59:59"\n\s+geo:\n\s+canada: https:\/\/example.ca\n/);
    // What is not read back is said once per kind, under it, not on every record. Real-server
    // shapes: 7.x servers answer `device: null` for every link, so device targeting is named there too.
    expect(exported).toMatch(/^links:\n {2}# Not read back from the server \(give them here, and apply sends them\): [^\n]*pixels[^\n]*, device\.\n {2}- alias: /m);
    // A QR code's type, data and colours are read from its image (the API gives none of them back).
    expect(exported).toMatch(/^qr:\n {2}# The API does not give back a QR code's type, data or colours: they were read from each code's image \(a logo cannot be: give it here, and apply sends it\)\.\n {2}(# [^\n]*\n {2})?- name: /m);
    // The seeded wifi code was made without colours: the product (and the sandbox by default) draws
    // it on a transparent canvas, and a migration creates it without colours too.
    expect(exported).toMatch(/- name: Office wifi\n {4}type: wifi\n {4}data:\n {6}ssid: Guest\n {6}pass: welcome123\n {6}encryption: WPA\n {2}(# [^\n]*\n {2})?- name: /);
    expect(exported.match(/# Not read back/g)).toHaveLength(1); // the other kinds are read back whole
    // what a record lacks is said on it only for the colours of the codes made without them (Greeting, Office wifi)
    expect(exported.match(/# not read back for this one: .*/g)).toEqual(Array(2).fill('# not read back for this one: foreground, background'));
    expect(exported).not.toMatch(/# Not read: /);
    expect(r.stderr).not.toMatch(/were not read/);
    expect(exported).not.toMatch(/\bid:|shorturl|clicks|sandbox-0123/);
    expect(changes(a)).toEqual([]);
  });

  it('without --details says once that targeting and expiry were not read, and on stderr what --details would cost', async () => {
    // 32 links, ten requests a minute: the export reads in a few; --details would take 32, three windows' waits.
    saveState(join(dir, 'many.json'), seedState({ links: 30 }));
    const limited = await startSandbox({ port: 0, rateLimit: { limit: 10, windowSeconds: 60 }, stateFile: join(dir, 'many.json'), quirks: true });
    try {
      const r = await runMain(['export'], { env: envOf(limited) });
      expect(r.code, r.stderr).toBe(0);
      // One page of each list, links last: 8 requests of the 10 the window allows, no wait (QR images are not API requests).
      expect(limited.requests.filter((q) => q.path.startsWith('/api/')).map((q) => `${q.method} ${q.path}`)).toEqual(['domains', 'pixels', 'campaigns', 'channels', 'qr', 'overlay', 'splash', 'urls'].map((p) => `GET /api/${p}`));
      expect(r.stdout).toMatch(/^links:\n {2}# Not read back from the server [^\n]*\n {2}# Not read: expiry, geo, device \(`linkctl export --details` reads them, one request per link\)\.\n {2}- alias: /m);
      expect(r.stdout.match(/# Not read: /g)).toHaveLength(1);
      expect(r.stdout.match(/^ {2}- alias: /gm)).toHaveLength(32);
      const wifiNote = 'note: 1 wifi QR code\'s password is written as a reference to the environment (--include-secrets writes it); apply reads it from: WIFI_PASSWORD_OFFICE_WIFI ("Office wifi").\n';
      expect(r.stderr).toBe(`Targeting and expiry of the 32 links were not read: \`export --details\` reads them (32 requests, about 3 min 0 s at this server's limit of 10 a minute).\n${wifiNote}`);
      const unlimited = await runMain(['export'], { env: envOf(a) });
      expect(unlimited.stderr).toMatch(/^Targeting and expiry of the \d+ links were not read: `export --details` reads them \(\d+ requests; this server announces no rate limit\)\.\n/);
      expect(unlimited.stderr).toContain(wifiNote);
    } finally {
      await limited.close();
    }
  });

  it('exports JSON with --json, which plan reads as it reads YAML', async () => {
    const r = await runCli(['export', '--json'], { env: envOf(a) });
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json).toMatchObject({ $schema: `./linkctl.schema.json`, version: 1, campaigns: [{ name: 'Spring launch', public: true }] });
    const plan = await runMain(['plan', '-f', '-'], { env: envOf(a), stdin: r.stdout });
    expect(plan.stdout).toBe('No changes: the account matches the file.\n');
  });

  it('leaves QR codes without type and data out of apply, and says so', async () => {
    const references = await runCli(['export', '--no-qr-content'], { env: envOf(a) });
    expect(references.stdout).toMatch(/^qr:\n {2}# The type, data and colours of QR codes were not read \(`export` reads them from their images unless --no-qr-content\): each is a reference only, until they are added\.\n {2}- name: Greeting\n {2}- name: /m);
    const r = await runMain(['plan', '-f', '-'], { env: envOf(b), stdin: references.stdout });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('note: QR code "Greeting" is a reference only (no type and data) and does not exist on the server; apply leaves it out.');
    expect(r.stdout).not.toMatch(/QR code/);
  });

  it('migrates to an empty server through a pipe; plan then shows no change and export matches', async () => {
    // QR codes travel too: their type, data and colours were read from their images.
    const apply = await runCli(['apply', '-f', '-', '--yes'], { env: envOf(b), stdin: exported });
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toMatch(/Applied: \d+ added, 0 changed, 0 deleted\./);
    // Dependencies first: the campaign and the channel exist before the links that use them; a link's
    // one channel is set in its add request, so nothing is assigned afterwards.
    const sentB = changes(b);
    expect(sentB.indexOf('POST /api/campaign/add')).toBeLessThan(sentB.indexOf('POST /api/url/add'));
    expect(sentB.indexOf('POST /api/channel/add')).toBeLessThan(sentB.indexOf('POST /api/url/add'));
    expect(sentB.filter((x) => /\/assign\//.test(x))).toEqual([]);

    b.requests.length = 0;
    const plan = await runCli(['plan', '-f', '-', '--detailed-exitcode'], { env: envOf(b), stdin: exported });
    expect(plan.stdout).toBe('No changes: the account matches the file.\n');
    expect(plan.code).toBe(0);
    const again = await runCli(['apply', '-f', '-', '--yes'], { env: envOf(b), stdin: exported });
    expect(again.code).toBe(0);
    expect(changes(b)).toEqual([]);

    const fromA = await runCli(['export', '--details'], { env: envOf(a) });
    const fromB = await runCli(['export', '--details'], { env: envOf(b) });
    expect(fromB.stdout).toContain('canada: https://example.ca');
    expect(comparable(fromB.stdout)).toBe(comparable(fromA.stdout));
  });

  it('targeting read one link at a time: an edit of it is one update, sent with what else the server has', async () => {
    const file = join(dir, 'geo.yaml');
    writeFileSync(file, exported.replace('canada: https://example.ca\n', 'canada: https://example.ca/new\n'));
    const plan = await runMain(['plan', '-f', file], { env: envOf(b) });
    expect(plan.stdout).toMatch(/^~ link https:\/\/go.sandbox.localhost\/branded: geo \{"canada":"https:\/\/example.ca"\} → \{"canada":"https:\/\/example.ca\/new"\}\n {4}clears what the file does not state/);
    expect(plan.stdout).toMatch(/Plan: 0 to add, 1 to change, 0 to delete\.\n$/);
    const apply = await runMain(['apply', '-f', file, '--yes', '--allow-clear'], { env: envOf(b) });
    expect(apply.code, apply.stderr).toBe(0);
    const put = b.requests.find((r) => r.method === 'PUT');
    expect(changes(b)).toEqual([expect.stringMatching(/^PUT \/api\/url\/\d+\/update$/)]);
    expect(put?.body).toMatchObject({ url: 'https://example.com/branded', domain: 'https://go.sandbox.localhost', expiry: '2035-12-31 23:59:59', geotarget: [{ location: 'canada', link: 'https://example.ca/new' }], campaign: expect.any(Number) });
    // Not its own alias again: the link was matched by it, and servers check a sent alias as a new one.
    expect(put?.body).not.toHaveProperty('custom');
    expect((await runMain(['plan', '-f', file], { env: envOf(b) })).stdout).toMatch(/^No changes/);
    // Back as it was, for the tests after this one.
    expect((await runMain(['apply', '-f', '-', '--yes', '--allow-clear'], { env: envOf(b), stdin: exported })).code).toBe(0);
  });

  it('one edit is exactly one update; plan shows it like terraform, with what the update would clear, and sends nothing', async () => {
    const edited = exported.replace('metaDescription: Product documentation', 'metaDescription: Product documentation, edited');
    const file = join(dir, 'edited.yaml');
    writeFileSync(file, edited);
    const plan = await runMain(['plan', '-f', file, '--detailed-exitcode'], { env: envOf(b) });
    // The notes under the change wrapped at 80 columns (stdout is no terminal), each continuation under its note.
    expect(plan.stdout).toBe([
      '~ link docs: metaDescription "Product documentation" → "Product documentation, edited"',
      '    clears what the file does not state (cannot be read back): device targeting',
      '      (7.x servers never answer it); password; pixels; parameters; deep links;',
      '      redirect type, splash or overlay; language targeting; meta image; public',
      '      status (real servers make every updated link private)',
      '      of which linkctl set none (its ledger), which another writer may have set',
      '        since: device; password; pixels; params; deeplinks; redirect; language;',
      '        meta-image',
      'Plan: 0 to add, 1 to change, 0 to delete.',
      '',
    ].join('\n'));
    expect(plan.code).toBe(2);
    expect(changes(b)).toEqual([]);
    const json = await runMain(['plan', '-f', file, '--json'], { env: envOf(b) });
    expect(JSON.parse(json.stdout).changes).toMatchObject([{ action: 'update', kind: 'links', key: 'docs', fields: [{ field: 'metaDescription', from: 'Product documentation', to: 'Product documentation, edited' }], clears: expect.arrayContaining(['pixels', 'parameters']) }]);

    // --yes alone is not enough for an update that clears what nobody stated: refused, nothing sent.
    const refused = await runMain(['apply', '-f', file, '--yes'], { env: envOf(b) });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^linkctl: the plan updates 1 link \(docs\) and each update would clear what the file does not state: .*pixels; parameters;.*; nothing was changed\nhint: .*--allow-clear/m);
    expect(changes(b)).toEqual([]);
    const apply = await runMain(['apply', '-f', file, '--yes', '--allow-clear'], { env: envOf(b) });
    expect(apply.code, apply.stderr).toBe(0);
    expect(changes(b)).toEqual([expect.stringMatching(/^PUT \/api\/url\/\d+\/update$/)]);
    expect((await runMain(['plan', '-f', file], { env: envOf(b) })).stdout).toMatch(/^No changes/);
  });

  it('a removed record is deleted only with --prune, deletes listed first and confirmed', async () => {
    const file = join(dir, 'removed.yaml');
    writeFileSync(file, exported.replace(/ {2}- alias: spring-sale\n(?: {4}[^\n]*\n)+/, '').replace('url: https://sandbox.localhost/docs', 'url: https://sandbox.localhost/docs2'));
    expect(readFileSync(file, 'utf8')).not.toContain('spring-sale');
    const plain = await runMain(['plan', '-f', file], { env: envOf(b) });
    expect(plain.stdout).not.toMatch(/^- /m);
    const pruned = await runMain(['plan', '-f', file, '--prune'], { env: envOf(b) });
    expect(pruned.stdout).toMatch(/^- link spring-sale\n~ link docs: url/);
    const refused = await runMain(['apply', '-f', file, '--prune', '--allow-clear'], { env: envOf(b) });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/refusing without a terminal to confirm; pass --yes/);
    expect(changes(b)).toEqual([]);
    const asked = await runMain(['apply', '-f', file, '--prune'], { env: envOf(b), tty: true, confirm: true });
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.prompts).toEqual(['Apply these changes, deleting 1 record, clearing in 1 link what the file does not state?']);
    expect(changes(b)[0]).toMatch(/^DELETE \/api\/url\/\d+\/delete$/);
  });

  it('a password comes from the environment and is sent, never printed', async () => {
    const file = join(dir, 'secret.yaml');
    writeFileSync(file, 'version: 1\nlinks:\n  - alias: vault\n    url: https://example.com/vault\n    password: ${env:VAULT_PASSWORD}\n');
    const missing = await runMain(['apply', '-f', file, '--yes'], { env: envOf(b) });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`${file}:5:15: links[0].password: the environment variable VAULT_PASSWORD is not set`);
    const r = await runMain(['apply', '-f', file, '--yes', '--json'], { env: { ...envOf(b), VAULT_PASSWORD: 'pa55-w0rd-xyz' } });
    expect(r.code, r.stderr).toBe(0);
    expect(b.requests.find((q) => q.method === 'POST')?.body).toMatchObject({ url: 'https://example.com/vault', custom: 'vault', password: 'pa55-w0rd-xyz' });
    expect(r.stdout + r.stderr).not.toContain('pa55-w0rd-xyz');
    expect(JSON.parse(r.stdout).changes[0]).toMatchObject({ action: 'create', unreadable: ['password'] });
  });
});

describe('apply after a lost answer', () => {
  it('finds the link the server made before the connection dropped, and does not create it again', async () => {
    // A proxy in front of sandbox B that passes every request on, but drops the connection after the first link create reached the server.
    let dropped = 0;
    const proxy = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const answer = await fetch(`${b.url}${req.url}`, { method: req.method, headers: { authorization: String(req.headers.authorization), 'content-type': 'application/json' }, body: chunks.length ? Buffer.concat(chunks) : undefined });
      const text = await answer.text();
      if (req.method === 'POST' && req.url?.startsWith('/api/url/add') && dropped++ === 0) return req.socket.destroy();
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const file = join(dir, 'lost.yaml');
      writeFileSync(file, 'version: 1\nlinks:\n  - alias: lost-answer\n    url: https://example.com/lost\n    description: Made once\n');
      const env = { ...envOf(b), LINKCTL_BASE_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` };
      const r = await runMain(['apply', '-f', file, '--yes'], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(dropped).toBe(1);
      expect(changes(b).filter((c) => c === 'POST /api/url/add')).toHaveLength(1);
      expect((await runMain(['plan', '-f', file], { env: envOf(b) })).stdout).toMatch(/^No changes/);
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});

describe('a file is data: ${env:NAME} only in secret fields', () => {
  it('a meta description reading ${env:SECRET_TOKEN} exported from one server arrives literally on another; the secret is never sent or printed', async () => {
    const token = 'tok-9f3a-very-secret-value';
    const made = await runMain(['link', 'add', 'https://example.com/env-literal', '--alias', 'env-literal', '--meta-description', '${env:SECRET_TOKEN}'], { env: envOf(a) });
    expect(made.code, made.stderr).toBe(0);
    const file = join(dir, 'literal.yaml');
    const exported = await runMain(['export', '--file', file], { env: envOf(a) });
    expect(exported.code, exported.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('metaDescription: "$${env:SECRET_TOKEN}"'); // escaped: a literal, not a reference

    // (the wifi code's password travels as ${env:WIFI_PASSWORD_OFFICE_WIFI}: apply reads it)
    const env = { ...envOf(b), SECRET_TOKEN: token, WIFI_PASSWORD_OFFICE_WIFI: 'wifi-pw-1' };
    const plan = await runMain(['plan', '-f', file], { env });
    expect(plan.code, plan.stderr).toBe(0);
    const r = await runMain(['apply', '-f', file, '--yes', '--allow-clear', '--debug'], { env });
    expect(r.code, r.stderr).toBe(0);
    const post = b.requests.find((q) => q.method === 'POST' && (q.body as { custom?: string }).custom === 'env-literal');
    expect((post!.body as { metadescription: string }).metadescription).toBe('${env:SECRET_TOKEN}');
    expect(b.requests.some((q) => q.rawBody.includes(token))).toBe(false);
    expect(plan.stdout + plan.stderr + r.stdout + r.stderr).not.toContain(token);
    // Read back from the server, the description is the literal text, and the file still matches (a round trip).
    expect((await runMain(['plan', '-f', file], { env })).stdout).toMatch(/^No changes/);
  });

  it('a reference outside a secret field is text, checked as such (a url); a secret is checked after substitution and never printed, --debug included', async () => {
    const url = join(dir, 'env-url.yaml');
    writeFileSync(url, 'version: 1\nlinks:\n  - alias: env-url\n    url: ${env:TARGET}\n');
    const refused = await runMain(['apply', '-f', url, '--yes'], { env: { ...envOf(b), TARGET: 'https://example.com/from-env' } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/env-url\.yaml:4:10: links\[0\]\.url: url must be a URL starting with http:\/\/ or https:\/\/, got "\$\{env:TARGET\}"/);
    expect(refused.stderr).not.toContain('https://example.com/from-env');
    expect(changes(b)).toEqual([]);

    const secret = join(dir, 'env-secret.yaml');
    writeFileSync(secret, 'version: 1\nlinks:\n  - alias: env-secret\n    url: https://example.com/env-secret\n    password: ${env:LINK_PASSWORD}\n    description: "$${env:LINK_PASSWORD} is not a reference"\n');
    const password = 'pw-7781-do-not-print';
    const r = await runMain(['apply', '-f', secret, '--yes', '--debug', '--json'], { env: { ...envOf(b), LINK_PASSWORD: password } });
    expect(r.code, r.stderr).toBe(0);
    const post = b.requests.find((q) => q.method === 'POST' && (q.body as { custom?: string }).custom === 'env-secret');
    expect(post!.body).toMatchObject({ password, description: '${env:LINK_PASSWORD} is not a reference' });
    expect(r.stderr).toContain('[debug]');
    expect(r.stdout + r.stderr).not.toContain(password);
  });
});

describe('aliases the product refuses (issue 55, 6)', () => {
  const fx = useSandbox();

  it('plan names every reserved or filtered alias the file would create, any letter case, and sends nothing', async () => {
    const file = join(dir, 'reserved.yaml');
    writeFileSync(file, 'version: 1\nlinks:\n  - alias: FAQ\n    url: https://example.com/faq\n  - alias: pricing\n    url: https://example.com/pricing\n  - alias: dickens-books\n    url: https://example.com/books\n  - alias: fine-one\n    url: https://example.com/fine\n');
    for (const command of ['plan', 'apply']) {
      const r = await runCli([command, '-f', file, ...(command === 'apply' ? ['--yes'] : [])], { env: fx.env });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('reserved.yaml:3:12: links[0].alias "FAQ" is reserved: the product keeps it for a page of its own ("That alias is reserved. Please choose another one."); choose another alias for a link to be created\n');
      expect(r.stderr).toContain('reserved.yaml:5:12: links[1].alias "pricing" is reserved');
      expect(r.stderr).toContain('reserved.yaml:7:12: links[2].alias "dickens-books" holds "dick", a word of the product\'s alias filter: servers refuse it ("Inappropriate aliases are not allowed.")');
      expect(r.stderr).not.toContain('fine-one');
      expect(fx.sandbox.requests.filter((q) => q.method !== 'GET')).toEqual([]);
    }
  });

  it('an apply step the server refuses names its record: an alias another user holds', async () => {
    const file = join(dir, 'taken.yaml');
    writeFileSync(file, 'version: 1\nlinks:\n  - alias: held-elsewhere\n    url: https://example.com/held\n');
    fx.sandbox.injectFault({ kind: 'error', method: 'POST', message: 'That alias is taken. Please choose another one.' });
    const r = await runCli(['apply', '-f', file, '--yes'], { env: fx.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^linkctl: link "held-elsewhere": That alias is taken\. Please choose another one\.\nhint: aliases are unique across all the accounts of a server/m);
  });
});

describe('a wifi code exported without its password (issue 53, 3)', () => {
  const fx = useSandbox();

  it('travels whole with its password as ${env:NAME}: plan is clean, apply reads the variable, a missing one is named', async () => {
    const exported = await runCli(['export'], { env: fx.env });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(/- name: Office wifi\n {4}type: wifi\n {4}data:\n {6}ssid: Guest\n {6}pass: "\$\{env:WIFI_PASSWORD_OFFICE_WIFI\}"\n {6}encryption: WPA\n/);
    expect(exported.stdout + exported.stderr).not.toContain('welcome123');
    expect((await runCli(['plan', '-f', '-'], { env: fx.env, stdin: exported.stdout })).stdout).toBe('No changes: the account matches the file.\n');

    const target = await startSandbox({ port: 0, rateLimit: null, seed: { empty: true } });
    try {
      const env = { LINKCTL_BASE_URL: target.url, LINKCTL_API_KEY: target.key, LINKCTL_CONFIG_DIR: fx.configDir };
      const missing = await runCli(['apply', '-f', '-', '--yes'], { env, stdin: exported.stdout });
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/^  <stdin>:\d+:\d+: qr\[\d\]\.data\.pass: the environment variable WIFI_PASSWORD_OFFICE_WIFI is not set \(the wifi password is given as \$\{env:WIFI_PASSWORD_OFFICE_WIFI\}\)/m);
      expect(target.requests.filter((q) => q.method !== 'GET')).toEqual([]);
      const applied = await runCli(['apply', '-f', '-', '--yes', '--json'], { env: { ...env, WIFI_PASSWORD_OFFICE_WIFI: 'from-the-env-1' }, stdin: exported.stdout });
      expect(applied.code, applied.stderr).toBe(0);
      expect(target.requests.find((q) => q.path === '/api/qr/add' && (q.body as { name: string }).name === 'Office wifi')!.body).toMatchObject({ type: 'wifi', data: { ssid: 'Guest', pass: 'from-the-env-1', encryption: 'WPA' } });
      expect(applied.stdout + applied.stderr).not.toContain('from-the-env-1');
      // A change of the network shows the reference, never a password (neither the file's nor the code's).
      const edited = exported.stdout.replace('ssid: Guest', 'ssid: Guest-2');
      const plan = await runCli(['plan', '-f', '-'], { env: { ...env, WIFI_PASSWORD_OFFICE_WIFI: 'from-the-env-1' }, stdin: edited });
      expect(plan.stdout).toContain('~ QR code Office wifi: data {"ssid":"Guest","pass":"(not shown)","encryption":"WPA"} → {"ssid":"Guest-2","pass":"${env:WIFI_PASSWORD_OFFICE_WIFI}","encryption":"WPA"}');
      expect(plan.stdout + plan.stderr).not.toContain('from-the-env-1');
    } finally {
      await target.close();
    }
  });

  it('a code that holds what the product made of its data (made elsewhere) is said on stderr and beside it, not carried on in silence (issue 55, 1)', async () => {
    // Made by another client: the product writes the password unescaped and HTML-cleaned.
    await fetch(`${fx.sandbox.url}/api/qr/add`, { method: 'POST', headers: { Authorization: `Bearer ${fx.sandbox.key}` }, body: JSON.stringify({ type: 'wifi', name: 'Cafe', data: { ssid: 'Cafe Guest', pass: 's3cr;t,pw"', encryption: 'WPA' } }) });
    const r = await runCli(['export', '--include-secrets'], { env: fx.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('warning: 1 QR code holds what the product made of its data, not what was given (the file says how beside it; apply would make it again as it is): "Cafe".');
    expect(r.stdout).toContain('# read from its image: the code\'s text has parts that are no field ("t,pw&quot"): the product writes wifi fields without escaping');
  });
});

describe('what the product rewrites, plan predicts (issue 54; issue 55, item 2)', () => {
  const campaignsOf = async () => ((await (await fetch(`${b.url}/api/campaigns?limit=100`, { headers: { authorization: `Bearer ${b.key}` } })).json()) as { data: { campaigns: Array<{ id: number; name: string; rotator: string | false; public: boolean }> } }).data.campaigns;
  const linkNamed = async (alias: string) => ((await (await fetch(`${b.url}/api/urls?limit=100`, { headers: { authorization: `Bearer ${b.key}` } })).json()) as { data: { urls: Array<{ id: number; alias: string; campaign: unknown }> } }).data.urls.find((l) => l.alias === alias)!;

  it('a file with names the product rewrites says once what will be stored, applies once, then plans clean; its export plans clean too', async () => {
    const file = join(dir, 'rewritten.yaml');
    writeFileSync(file, 'version: 1\ncampaigns:\n  - name: autumn deals\n    slug: Autumn_Deals\nlinks:\n  - alias: fish-and-chips\n    url: https://example.com/fish\n    title: \'Fish & "Chips" <i>fried</i>\'\n    campaign: autumn deals\n');
    const plan = await runMain(['plan', '-f', file], { env: envOf(b) });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('+ campaign autumn deals\n    stored as: name "Autumn deals", slug "autumn-deals"\n');
    expect(plan.stdout).toContain('+ link fish-and-chips\n    stored as: title "Fish & &quot;Chips&quot; fried"\n');
    const apply = await runMain(['apply', '-f', file, '--yes'], { env: envOf(b) });
    expect(apply.code, apply.stderr).toBe(0);
    expect((await campaignsOf()).find((c) => c.name === 'Autumn deals')?.rotator).toMatch(/\/r\/autumn-deals$/);
    b.requests.length = 0;
    const again = await runMain(['plan', '-f', file, '--detailed-exitcode'], { env: envOf(b) });
    expect(again.stdout).toBe('No changes: the account matches the file.\n');
    expect(again.code).toBe(0);
    // A second apply --yes sends nothing (it was refused before: an update that would clear what the file does not state).
    const twice = await runMain(['apply', '-f', file, '--yes'], { env: envOf(b) });
    expect(twice.code, twice.stderr).toBe(0);
    expect(changes(b)).toEqual([]);
    const exported = await runMain(['export'], { env: envOf(b) });
    expect(exported.stdout).toMatch(/- name: Autumn deals\n {4}slug: autumn-deals\n/);
    expect(exported.stdout).toContain('title: "Fish & &quot;Chips&quot; fried"');
    const planExport = await runMain(['plan', '-f', '-', '--detailed-exitcode'], { env: envOf(b), stdin: exported.stdout });
    expect(planExport.stdout).toBe('No changes: the account matches the file.\n');
  });

  it('a campaign renamed in the file with its slug is the same campaign: plan shows a rename, apply updates it in place (no slug sent), its links stay; a name in another letter case plans clean', async () => {
    const file = join(dir, 'renamed.yaml');
    writeFileSync(file, 'version: 1\ncampaigns:\n  - name: Harvest deals\n    slug: autumn-deals\n    public: true\nlinks:\n  - alias: fish-and-chips\n    url: https://example.com/fish\n    campaign: HARVEST DEALS\n');
    const before = (await campaignsOf()).find((c) => c.name === 'Autumn deals')!;
    const plan = await runMain(['plan', '-f', file], { env: envOf(b) });
    expect(plan.stdout).toBe(`~ campaign Harvest deals: name "Autumn deals" → "Harvest deals", public false → true\nPlan: 0 to add, 1 to change, 0 to delete.\n`);
    expect(plan.stderr.replace(/\n/g, ' ')).toContain('note: campaign "Harvest deals" is campaign "Autumn deals" renamed (its slug, autumn-deals, is the same): apply renames it in place, and its links stay in it.');
    b.requests.length = 0;
    const apply = await runMain(['apply', '-f', file, '--yes'], { env: envOf(b) });
    expect(apply.code, apply.stderr).toBe(0);
    // The product refuses a slug any campaign holds, its own included: it is not sent again.
    expect(b.requests.filter((r) => r.method !== 'GET').map((r) => ({ method: r.method, path: r.path, body: r.body }))).toEqual([{ method: 'PUT', path: `/api/campaign/${before.id}/update`, body: { name: 'Harvest deals', public: true } }]);
    const after = await campaignsOf();
    expect(after.filter((c) => c.id === before.id)).toMatchObject([{ name: 'Harvest deals', public: true }]);
    expect(after.some((c) => c.name === 'Autumn deals')).toBe(false);
    expect(Number((await linkNamed('fish-and-chips')).campaign)).toBe(before.id);
    const again = await runMain(['plan', '-f', file], { env: envOf(b) });
    expect(again.stdout).toBe('No changes: the account matches the file.\n');
    // A new name the product would ignore in silence (2 bytes or less on update) is refused, naming the file's line.
    const short = join(dir, 'renamed-short.yaml');
    writeFileSync(short, 'version: 1\ncampaigns:\n  - name: Hd\n    slug: autumn-deals\n');
    const refused = await runMain(['plan', '-f', short], { env: envOf(b) });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${short}:3:5: campaign "Hd": name: real servers ignore a campaign name of 2 bytes or less on update`);
  });
});

describe('the values of the recording, on the sandbox that stores them as the product does (issue 54, 1)', () => {
  it('a file of every name, slug, title and colour the scenarios wrote applies once; then plan, and the export\'s plan, are clean', async () => {
    const valid = (kind: 'campaigns' | 'channels' | 'links' | 'pixels' | 'qr', field: string, value: string) => {
      try {
        specs()[kind].fields[field]!.check?.(value);
        return true;
      } catch {
        return false; // the file refuses it before anything is sent (a bare destination, a named colour)
      }
    };
    const sent = (kind: string, field: string) => [...new Set(recordedRewrites().filter((p) => p.kind === kind && p.field === field && p.write === 'create').map((p) => p.sent))];
    const once = <T>(values: T[], key: (v: T) => string) => values.filter((v, i) => values.findIndex((w) => key(w) === key(v)) === i);
    const q = (v: string) => JSON.stringify(v);
    const lines = ['version: 1', 'campaigns:'];
    const names = once(sent('campaigns', 'name').filter((v) => valid('campaigns', 'name', v)), (v) => v.toLowerCase());
    for (const name of names) lines.push(`  - name: ${q(name)}`);
    const slugs = once(sent('campaigns', 'slug').filter((v) => campaignSlug(v)), (v) => campaignSlug(v)!);
    slugs.forEach((slug, i) => lines.push(`  - name: "Recorded slug ${i}"`, `    slug: ${q(slug)}`));
    lines.push('channels:');
    const channelNames = once(sent('channels', 'name').filter((v) => valid('channels', 'name', v)), (v) => v.toLowerCase());
    for (const name of channelNames) lines.push(`  - name: ${q(name)}`);
    for (const field of ['description', 'color']) sent('channels', field).filter((v) => valid('channels', field, v)).forEach((v, i) => lines.push(`  - name: "Recorded ${field} ${i}"`, `    ${field}: ${q(v)}`));
    lines.push('pixels:');
    once(sent('pixels', 'name'), (v) => v.toLowerCase()).forEach((name, i) => lines.push(`  - name: ${q(name)}`, '    type: gtmpixel', `    tag: GTM-REC${i}`));
    lines.push('qr:');
    once(sent('qr', 'name'), (v) => v.toLowerCase()).forEach((name, i) => lines.push(`  - name: ${q(name)}`, '    type: text', `    data: "recorded ${i}"`));
    lines.push('links:');
    let n = 0;
    const link = (extra: string[], alias = `recorded-${n}`) => lines.push(`  - alias: ${q(alias)}`, `    url: https://dest.invalid/recorded/${n++}`, ...extra);
    for (const alias of once(sent('links', 'alias').filter((v) => valid('links', 'alias', v) && v.trim().length >= 3), (v) => v.toLowerCase())) link([], alias);
    for (const field of ['title', 'metaDescription'] as const) for (const v of sent('links', field).filter((x) => valid('links', field, x))) link([`    ${field}: ${q(v)}`]);
    for (const url of sent('links', 'url').filter((v) => valid('links', 'url', v))) link([`    title: ${q(`for ${url}`)}`]);
    const file = join(dir, 'recorded.yaml');
    writeFileSync(file, `${lines.join('\n')}\n`);
    // What the product rewrites is said once, before it is sent.
    const plan = await runMain(['plan', '-f', file], { env: envOf(b) });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('stored as: name "Spring drive"');
    expect(plan.stdout).toContain('stored as: slug "uenicode-slug"');
    expect(plan.stdout).toContain('stored as: title "Bold & &quot;quotes&quot;"');
    const apply = await runMain(['apply', '-f', file, '--yes'], { env: envOf(b) });
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout).toMatch(/^Applied: \d+ added, 0 changed, 0 deleted\.$/m);
    const again = await runMain(['plan', '-f', file, '--detailed-exitcode'], { env: envOf(b) });
    expect(again.stdout).toBe('No changes: the account matches the file.\n');
    expect(again.code).toBe(0);
    const exported = await runMain(['export'], { env: envOf(b) });
    expect(exported.stdout).toContain('- name: Spring drive');
    const planExport = await runMain(['plan', '-f', '-', '--detailed-exitcode'], { env: envOf(b), stdin: exported.stdout });
    expect(planExport.stdout).toBe('No changes: the account matches the file.\n');
    expect(planExport.code).toBe(0);
  });
});

describe('what linkctl cannot predict, it reads back from the answer (issue 54, 2)', () => {
  it('a slug in another script: plan says it cannot predict it, apply says what the server stored, later plans do not compare it', async () => {
    const file = join(dir, 'romanised.yaml');
    writeFileSync(file, 'version: 1\ncampaigns:\n  - name: Japanese launch\n    slug: 日本語\n');
    const plan = await runMain(['plan', '-f', file], { env: envOf(b) });
    expect(plan.stdout).toContain('+ campaign Japanese launch\n    stored as: slug (as the server romanises it, which linkctl cannot predict)\n');
    const apply = await runMain(['apply', '-f', file, '--yes'], { env: envOf(b) });
    expect(apply.code, apply.stderr).toBe(0);
    // The product romanises it (`ri-ben-yu`); the sandbox keeps only the Latin part of a slug, here none.
    const slug = /note: campaign "Japanese launch": the server stored slug "日本語" as ("[^"]+"|none)\./.exec(apply.stderr)?.[1];
    expect(slug, apply.stderr).toBeDefined();
    const again = await runMain(['plan', '-f', file], { env: envOf(b) });
    expect(again.stdout).toBe('No changes: the account matches the file.\n');
    expect(again.stderr.replace(/\n/g, ' ')).toContain(`note: campaign "Japanese launch": the product rewrites slug "日本語" in a way linkctl cannot predict, so it is not compared (the server holds ${slug}).`);
  });
});

describe('an alias renamed in the file (issue 55, low)', () => {
  it('plan says the old short URL stops working and its clicks go, and points at link update --alias, which renames in place', async () => {
    const made = await runMain(['link', 'add', 'https://example.com/flyer', '--alias', 'Print-QR', '--json'], { env: envOf(b) });
    expect(made.code, made.stderr).toBe(0);
    const { id, shorturl } = JSON.parse(made.stdout) as { id: number; shorturl: string };
    const file = join(dir, 'renamed-alias.yaml');
    writeFileSync(file, 'version: 1\nlinks:\n  - alias: print-landing\n    url: https://example.com/flyer\n');
    const pruned = await runMain(['plan', '-f', file, '--prune'], { env: envOf(b) });
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stdout).toMatch(/^- link Print-QR$/m);
    expect(pruned.stderr.replace(/\n/g, ' ')).toContain(`note: link "Print-QR" → "print-landing": the file renames the alias of a link to the same destination, which apply does as a delete and a create: ${shorturl} stops working (a short URL already printed or shared) and its clicks go with it; \`linkctl link update ${id} --alias print-landing\` renames it in place and keeps its clicks, then plan again.`);
    const kept = await runMain(['plan', '-f', file], { env: envOf(b) });
    expect(kept.stderr.replace(/\n/g, ' ')).toContain(`note: link "print-landing" goes where link "Print-QR" (${shorturl}) goes: if the file renames its alias, apply creates a second link instead; \`linkctl link update ${id} --alias print-landing\` renames it in place and keeps its clicks.`);
    const renamed = await runMain(['link', 'update', String(id), '--alias', 'print-landing', '--yes'], { env: envOf(b) });
    expect(renamed.code, renamed.stderr).toBe(0);
    const after = await runMain(['plan', '-f', file], { env: envOf(b) });
    expect(after.stdout).toBe('No changes: the account matches the file.\n');
    expect(after.stderr).not.toContain('renames');
  });
});
