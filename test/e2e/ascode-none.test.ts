/**
 * Links as code that runs unattended (issue 44), the built CLI against the sandbox: `none` in the
 * file, plans that name what linkctl set (from its ledger), `export --state-unreadable`, and the
 * guard that still refuses to clear what no one can know. Each test has its own ledger (a fresh
 * LINKCTL_DB): the sandbox is reset between tests, and its ids begin again.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir, useSandbox } from '../helpers.js';

describe('none, and plans that name what linkctl set', () => {
  const fx = useSandbox();
  const writes = () => fx.sandbox.requests.filter((r) => r.method !== 'GET');

  /** A pixel, a plain link and a link made with the pixel and a utm_source parameter; the CLI bound to a fresh ledger. */
  async function account(extra: string[] = []) {
    const dir = tempDir('linkctl-none-');
    // (an export writes the seeded wifi code's password as ${env:WIFI_PASSWORD_OFFICE_WIFI}: issue 53, 3)
    const env = { ...fx.env, LINKCTL_DB: join(dir, 'history.db'), WIFI_PASSWORD_OFFICE_WIFI: 'welcome123' };
    const cli = (args: string[]) => runCli(args, { env });
    const pixel = await cli(['pixel', 'add', '--type', 'gapixel', '--name', 'Analytics', '--tag', 'G-TEST1234', '-q']);
    expect(pixel.code, pixel.stderr).toBe(0);
    const pixelId = Number(pixel.stdout.trim());
    expect((await cli(['link', 'add', 'https://example.com/plain', '--alias', 'plain', ...extra, '-q'])).code).toBe(0);
    const tracked = await cli(['link', 'add', 'https://example.com/tracked', '--alias', 'tracked', '--pixel', String(pixelId), '--param', 'utm_source=qr', ...extra, '-q']);
    expect(tracked.code, tracked.stderr).toBe(0);
    fx.sandbox.requests.length = 0;
    const file = (name: string, text: string) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    };
    return { cli, file, pixelId, dir };
  }

  const TITLES = `version: 1
links:
  - alias: plain
    url: https://example.com/plain
    title: Plain edited
  - alias: tracked
    url: https://example.com/tracked
    title: Tracked edited
`;

  it('the plan of an edited title names the pixel and the parameter linkctl set, in text, --json and markdown; apply --yes still refuses', async () => {
    const { cli, file } = await account();
    const f = file('titles.yaml', TITLES);
    const text = await cli(['plan', '-f', f]);
    expect(text.code, text.stderr).toBe(0);
    const flat = text.stdout.replace(/\s+/g, ' ');
    expect(flat).toContain('of which linkctl set (its ledger): pixels: Analytics; params: utm_source=qr');
    expect(flat).toMatch(/~ link plain: [^~]* of which linkctl set none \(its ledger\), which another writer may have set since: [^~]*pixels; params/);
    // Off a terminal, 80 columns: the notes under each change wrapped, each continuation under its note.
    const lines = text.stdout.split('\n');
    expect(lines.filter((l) => l.length > 80)).toEqual([]);
    expect(lines.find((l) => l.startsWith('    clears what the file does not state'))).toBeDefined();
    expect(lines[lines.findIndex((l) => l.startsWith('    clears what the file does not state')) + 1]).toMatch(/^ {6}\S/);
    const json = JSON.parse((await cli(['plan', '-f', f, '--json'])).stdout) as { changes: Array<{ key: string; clearsKnown: string[]; clearsUnknowable: string[] }> };
    expect(json.changes.find((c) => c.key === 'tracked')).toMatchObject({ clearsKnown: ['pixels: Analytics', 'params: utm_source=qr'], clearsUnknowable: [] });
    expect(json.changes.find((c) => c.key === 'plain')).toMatchObject({ clearsKnown: [], clearsUnknowable: [] });
    const markdown = await cli(['plan', '-f', f, '-o', 'markdown']);
    expect(markdown.stdout).toContain('of which linkctl set: `pixels: Analytics`, `params: utm_source=qr`');
    // What the file does not state is still not cleared on a --yes nobody read.
    const refused = await cli(['apply', '-f', f, '--yes']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--allow-clear');
    expect(writes()).toEqual([]);
  });

  it('a file stating every option, a value or none, applies with --yes alone: exactly the two updates, the pixel kept, and plans clean', async () => {
    const { cli, file, pixelId } = await account();
    const nones = (except: string[]) => ['password', 'metaImage', 'pixels', 'params', 'deeplink', 'redirect', 'splash', 'overlay', 'language', 'device'].filter((n) => !except.includes(n)).map((n) => `    ${n}: none`).join('\n');
    const f = file('all.yaml', `version: 1
pixels:
  - name: Analytics
    type: gapixel
    tag: G-TEST1234
links:
  - alias: plain
    url: https://example.com/plain
    title: Plain edited
    public: false
${nones([])}
  - alias: tracked
    url: https://example.com/tracked
    title: Tracked edited
    public: false
    pixels: [Analytics]
    params: { utm_source: qr }
${nones(['pixels', 'params'])}
`);
    const plan = await cli(['plan', '-f', f]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).not.toContain('clears');
    const applied = await cli(['apply', '-f', f, '--yes']);
    expect(applied.code, applied.stderr).toBe(0);
    const sent = writes();
    expect(sent.map((r) => r.method)).toEqual(['PUT', 'PUT']);
    const bodies = Object.fromEntries(sent.map((r) => [String((r.body as { metatitle?: string }).metatitle), r.body as Record<string, unknown>]));
    expect(bodies['Tracked edited']).toMatchObject({ pixels: [pixelId], parameters: [{ name: 'utm_source', value: 'qr' }] });
    expect(bodies['Plain edited']).not.toHaveProperty('pixels');
    expect(bodies['Plain edited']).not.toHaveProperty('password');
    const again = await cli(['plan', '-f', f]);
    expect(again.stdout).toContain('No changes: the account matches the file.');
  });

  it('pixels a file adds to a link are sent, though nothing readable changed: plan says so (cannot be compared), and is clean once the ledger shows them set (issue 55, item 5)', async () => {
    const { cli, file, pixelId } = await account();
    const f = file('pixels.yaml', 'version: 1\nlinks:\n  - alias: plain\n    url: https://example.com/plain\n    pixels: [Analytics]\n  - alias: tracked\n    url: https://example.com/tracked\n    pixels: [Analytics]\n    params: { utm_source: qr }\n');
    const plan = await cli(['plan', '-f', f]);
    expect(plan.code, plan.stderr).toBe(0);
    // `tracked` has them already, as linkctl's ledger shows; `plain` was made without.
    expect(plan.stdout).toMatch(/^~ link plain: sends pixels \(cannot be compared: linkctl's ledger shows it last set them otherwise\)\n/);
    expect(plan.stdout).not.toContain('link tracked');
    expect(plan.stdout).toContain('Plan: 0 to add, 1 to change, 0 to delete.');
    const applied = await cli(['apply', '-f', f, '--yes', '--allow-clear']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(writes().map((r) => ({ method: r.method, pixels: (r.body as Record<string, unknown>).pixels }))).toEqual([{ method: 'PUT', pixels: [pixelId] }]);
    const again = await cli(['plan', '-f', f]);
    expect(again.stdout).toBe('No changes: the account matches the file.\n');
  });

  it('none is refused where it means nothing (a link\'s url), naming the file and line', async () => {
    const { cli, file } = await account();
    const f = file('bad.yaml', 'version: 1\nlinks:\n  - alias: plain\n    url: none\n');
    const r = await cli(['plan', '-f', f]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.yaml:4/);
    expect(writes()).toEqual([]);
  });

  it('export --state-unreadable writes what linkctl set under each link, commented out; uncommented, the round trip applies unattended', async () => {
    // --private: linkctl then knows each link's public status (an update leaves links private).
    const { cli, dir } = await account(['--private']);
    const out = join(dir, 'state.yaml');
    const exported = await cli(['export', '--state-unreadable', '--file', out]);
    expect(exported.code, exported.stderr).toBe(0);
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(out, 'utf8');
    const tracked = text.slice(text.indexOf('- alias: tracked'));
    expect(tracked).toMatch(/\n    # As linkctl last set them \(its ledger\)\. Not stated: another writer may have changed\n/);
    expect(tracked).toContain('\n    # pixels: [Analytics]\n');
    expect(tracked).toContain('\n    # params: {utm_source: qr}\n');
    expect(tracked).toContain('\n    # password: none\n');
    expect(tracked).toContain('\n    # public: false\n');
    // The seeded links were not made by linkctl: said in a comment.
    expect(text).toMatch(/# linkctl cannot know \(not set by it, or set in the web interface\): redirect type, splash or overlay, password, [^\n]*\n\s+- alias: docs/);
    const unchanged = await cli(['apply', '-f', out, '--yes']);
    expect(unchanged.code, unchanged.stderr).toBe(0);
    expect(writes()).toEqual([]);
    // Only the links linkctl made, their titles edited and what linkctl set uncommented: applied unattended, the pixel and the parameter kept.
    const links = text.slice(text.indexOf('links:'), text.indexOf('\nqr:'));
    const own = links.split(/\n(?=  # |  - alias: )/).filter((part) => /- alias: (plain|tracked)\n/.test(part) && !part.startsWith('  #'));
    const vouched = own.map((p) => p.replace(/^links:\n/, '').replace(/(url: [^\n]+)/, '$1\n    title: Edited').replace(/^ {4}# (As linkctl|them since)[^\n]*\n/gm, '').replace(/^ {4}# /gm, '    '));
    const edited = `version: 1\npixels:\n  - name: Analytics\n    type: gapixel\n    tag: G-TEST1234\nlinks:\n${vouched.join('\n')}\n`;
    const f = join(dir, 'edited.yaml');
    writeFileSync(f, edited);
    const applied = await cli(['apply', '-f', f, '--yes']);
    expect(applied.code, `${applied.stderr}\n${edited}`).toBe(0);
    expect(writes().map((r) => r.method)).toEqual(['PUT', 'PUT']);
    expect(writes().map((r) => r.body)).toContainEqual(expect.objectContaining({ pixels: [expect.any(Number)], parameters: [{ name: 'utm_source', value: 'qr' }] }));
  });

  it('a pixel a teammate added through another ledger: export --state-unreadable then apply --yes refuses, the plan says what it would clear, --allow-clear alone passes', async () => {
    const { cli, dir, pixelId } = await account(['--private']);
    const teammate = (args: string[]) => runCli(args, { env: { ...fx.env, LINKCTL_DB: join(dir, 'teammate.db') } });
    const plainId = JSON.parse((await cli(['link', 'list', '--all', '--json'])).stdout).find((l: { alias: string }) => l.alias === 'plain').id as number;
    const added = await teammate(['link', 'update', String(plainId), '--pixel', String(pixelId), '--yes', '-q']);
    expect(added.code, added.stderr).toBe(0);
    fx.sandbox.requests.length = 0;
    const out = join(dir, 'state.yaml');
    expect((await cli(['export', '--state-unreadable', '--file', out])).code).toBe(0);
    const { readFileSync } = await import('node:fs');
    const edited = readFileSync(out, 'utf8').replace('url: https://example.com/plain', 'url: https://example.com/plain\n    title: Plain edited');
    writeFileSync(out, edited);
    const plan = await cli(['plan', '-f', out]);
    const flat = plan.stdout.replace(/\s+/g, ' ');
    expect(flat).toMatch(/~ link plain: [^~]*clears what the file does not state \(cannot be read back\): [^~]*pixels/);
    expect(flat).toMatch(/~ link plain: [^~]*of which linkctl set none \(its ledger\), which another writer may have set since: [^~]*pixels/);
    const refused = await cli(['apply', '-f', out, '--yes']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--allow-clear');
    expect(writes()).toEqual([]);
    const allowed = await cli(['apply', '-f', out, '--yes', '--allow-clear']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(writes().map((r) => r.method)).toEqual(['PUT']);
  });

  it('apply --yes refused for what the file does not state: the hint names each statement that works (none), and with them the file applies', async () => {
    const { cli, file } = await account();
    const f = file('one.yaml', 'version: 1\nlinks:\n  - alias: plain\n    url: https://example.com/plain\n    title: Plain edited\n    pixels: []\n    params: {}\n    public: false\n');
    const refused = await cli(['apply', '-f', f, '--yes']);
    expect(refused.code).toBe(2);
    const hint = refused.stderr.slice(refused.stderr.indexOf('hint: '));
    expect(hint).toContain('as none when the link has none');
    const statements = /for link plain: ([^.]*)\./.exec(hint.replace(/\s+/g, ' '))![1]!.split(', ');
    expect(statements).toEqual(expect.arrayContaining(['password: none', 'device: none', 'deeplink: none', 'redirect: none', 'language: none', 'metaImage: none']));
    expect(hint).toContain('linkctl export --state-unreadable');
    const stated = file('stated.yaml', `version: 1\nlinks:\n  - alias: plain\n    url: https://example.com/plain\n    title: Plain edited\n    pixels: []\n    params: {}\n    public: false\n${statements.map((st) => `    ${st}`).join('\n')}\n`);
    const applied = await cli(['apply', '-f', stated, '--yes']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(writes().map((r) => r.method)).toEqual(['PUT']);
    const help = await cli(['apply', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toMatch(/as a value or as `none` \(the link has none; e\.g\. `pixels: none`\)/);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('`linkctl export --state-unreadable` writes under each link what linkctl last set');
  });

  it('a link whose options were set outside linkctl: the plan says no one can know, and apply --yes refuses without --allow-clear', async () => {
    const { cli, file } = await account();
    const f = file('docs.yaml', 'version: 1\nlinks:\n  - alias: docs\n    url: https://sandbox.localhost/docs\n    title: Docs edited\n');
    const plan = await cli(['plan', '-f', f]);
    expect(plan.stdout.replace(/\s+/g, ' ')).toContain('of which no one can know (set elsewhere or before the ledger): device targeting; password; pixels; parameters');
    const refused = await cli(['apply', '-f', f, '--yes']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--allow-clear');
    expect(writes()).toEqual([]);
    const allowed = await cli(['apply', '-f', f, '--yes', '--allow-clear']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(writes().map((r) => r.method)).toEqual(['PUT']);
  });
});
