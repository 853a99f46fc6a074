/**
 * Issue 38, item 8: the sandbox's seeded links and QR codes lead to pages it serves itself
 * (GET /pages/NAME), named https://sandbox.localhost/NAME, which API answers keep
 * (stable across runs, whatever the port) and which its redirects and `check` resolve to its
 * current origin. `--sandbox check` and `check --qr` find every seed ok with no network, say
 * that the sandbox's own address is allowed, and still block any other loopback destination.
 * No seed names a real domain.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { runCli, tempDir } from '../helpers.js';

interface CheckRecord { link: number | null; qr: number | null; alias: string | null; destination: string; status: string; flags: string[]; chain: Array<{ url: string; code: number | null }> }

const dir = tempDir('linkctl-offline-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { LINKCTL_CONFIG_DIR: dir };
const records = (stdout: string) => JSON.parse(stdout) as CheckRecord[];
/** The page each link leads to: the seeds' (spring-sale leads to the page "sale"), and the test's own. */
const PAGE: Record<string, string> = { docs: 'docs', 'spring-sale': 'sale', guide: 'guide', questions: 'faq' };
/** Where each link leads, as stored: the seeds name https, questions is added with http (both schemes name the pages; `faq` is an alias the product reserves). */
const DESTINATION: Record<string, string> = {
  docs: 'https://sandbox.localhost/docs', 'spring-sale': 'https://sandbox.localhost/sale', guide: 'https://sandbox.localhost/guide', questions: 'http://sandbox.localhost/faq',
};
const ALLOWED_LINE = /^the sandbox's own address 127\.0\.0\.1:(\d+) is allowed/m;

describe('--sandbox check of links to the sandbox\'s own pages', () => {
  it('finds the seeded links and QR codes ok with no network, and says the sandbox\'s own address is allowed', async () => {
    const r = await runCli(['--sandbox', 'check', '--qr', '--json', '--all'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(ALLOWED_LINE);
    const port = ALLOWED_LINE.exec(r.stderr)![1];
    const found = records(r.stdout);
    expect(found.map((f) => f.alias ?? `qr ${f.qr}`).sort()).toEqual(['docs', 'qr 1', 'spring-sale']);
    for (const record of found.filter((f) => f.alias)) {
      expect(record.status, JSON.stringify(record)).toBe('ok');
      expect(record.destination).toBe(DESTINATION[record.alias!]);
      expect(record.chain).toEqual([{ url: `http://127.0.0.1:${port}/pages/${PAGE[record.alias!]}`, code: 200 }]);
      expect(record.flags).toEqual([]);
    }
    // the link code's image holds its short link, which leads to the sandbox's menu page (the text and wifi codes lead nowhere)
    const menu = found.find((f) => f.qr === 1)!;
    expect(menu.status, JSON.stringify(menu)).toBe('ok');
    expect(menu.destination).toBe('https://sandbox.localhost/menu');
    expect(menu.chain).toEqual([{ url: `http://127.0.0.1:${port}/pages/menu`, code: 200 }]);
  });

  it('no seed names a real domain: every address in the account is the sandbox\'s own', async () => {
    const texts: string[] = [];
    for (const args of [['link', 'list', '--all'], ['qr', 'list', '--all'], ['domain', 'list'], ['account', 'get']]) {
      const r = await runCli(['--sandbox', ...args, '--json'], { env });
      expect(r.code, r.stderr).toBe(0);
      texts.push(r.stdout);
    }
    const hosts = new Set([...texts.join('\n').matchAll(/(?:https?:\/\/|@)([a-z0-9.-]+)/gi)].map((m) => m[1]!.toLowerCase()));
    // the account's avatar is Gravatar's address for its email, computed as the product does (real-servers.md, fact 38); nothing requests it
    expect([...hosts].filter((h) => h !== '127.0.0.1' && !h.endsWith('.localhost') && h !== 'localhost' && h !== 'www.gravatar.com')).toEqual([]);
    expect(hosts).toContain('sandbox.localhost');
  });

  it('an export from one run plans clean in the next, on another port (the answers keep the placeholder)', async () => {
    const exported = await runCli(['--sandbox', 'export', '--json'], { env });
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('"https://sandbox.localhost/docs"');
    expect(exported.stdout).not.toMatch(/127\.0\.0\.1:\d+\/pages/);
    const plan = await runCli(['--sandbox', 'plan', '-f', '-'], { env, stdin: exported.stdout });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toBe('No changes: the account matches the file.\n');
  });

  it('finds links the user adds to the sandbox\'s pages ok, in a later run on another port', async () => {
    for (const alias of ['guide', 'questions']) {
      const added = await runCli(['--sandbox', 'link', 'add', DESTINATION[alias]!, '--alias', alias], { env });
      expect(added.code, added.stderr).toBe(0);
    }
    // a later command runs a new sandbox on another port: the stored placeholder follows it
    const r = await runCli(['--sandbox', 'check', '--json', '--all'], { env });
    expect(r.stderr).toMatch(ALLOWED_LINE);
    expect(r.code, r.stderr).toBe(0);
    const port = ALLOWED_LINE.exec(r.stderr)![1];
    const found = records(r.stdout);
    expect(found.map((f) => f.alias).sort()).toEqual(['docs', 'guide', 'questions', 'spring-sale']);
    for (const record of found) {
      expect(record.status).toBe('ok');
      // the stored placeholder, as the API answers it; requested at the current port
      expect(record.destination).toBe(DESTINATION[record.alias!]);
      expect(record.chain[0]!.url).toBe(`http://127.0.0.1:${port}/pages/${PAGE[record.alias!]}`);
    }
  });

  it('still blocks another loopback destination', async () => {
    const added = await runCli(['--sandbox', 'link', 'add', 'http://127.0.0.2:8080/elsewhere', '--alias', 'elsewhere'], { env });
    expect(added.code, added.stderr).toBe(0);
    const r = await runCli(['--sandbox', 'check', '--json', '--all'], { env });
    const found = records(r.stdout);
    expect(found.find((f) => f.alias === 'elsewhere')?.status).toBe('blocked');
    expect(found.filter((f) => f.alias !== 'elsewhere').map((f) => f.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
  });
});
