/**
 * Issue 38, item 8 (part): the sandbox serves pages of its own (GET /pages/NAME) under the
 * placeholder origin http://sandbox.localhost, which it answers as its current origin. A link to
 * them checks ok with no network: `check` allows the sandbox's own origin, says so, and still
 * blocks any other loopback destination. (The seeded links still name example.com; see the report.)
 */
import { afterAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { runCli, tempDir } from '../helpers.js';

interface CheckRecord { link: number | null; qr: number | null; alias: string | null; destination: string; status: string }

const dir = tempDir('linkctl-offline-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { LINKCTL_CONFIG_DIR: dir };
const records = (stdout: string) => JSON.parse(stdout) as CheckRecord[];
const ALLOWED_LINE = /^the sandbox's own address 127\.0\.0\.1:(\d+) is allowed/m;

describe('--sandbox check of links to the sandbox\'s own pages', () => {
  it('finds them ok at the current origin, and says the sandbox\'s own address is allowed', async () => {
    // empty the account first: the seeded links still lead to example.com
    expect((await runCli(['--sandbox', 'link', 'delete', '1', '2', '--yes'], { env })).code).toBe(0);
    for (const alias of ['guide', 'faq']) {
      const added = await runCli(['--sandbox', 'link', 'add', `http://sandbox.localhost/pages/${alias}`, '--alias', alias], { env });
      expect(added.code, added.stderr).toBe(0);
    }
    // a later command runs a new sandbox on another port: the stored placeholder follows it
    const r = await runCli(['--sandbox', 'check', '--json', '--all'], { env });
    expect(r.stderr).toMatch(ALLOWED_LINE);
    expect(r.code, r.stderr).toBe(0);
    const port = ALLOWED_LINE.exec(r.stderr)![1];
    const found = records(r.stdout);
    expect(found.map((f) => f.alias).sort()).toEqual(['faq', 'guide']);
    for (const record of found) {
      expect(record.status).toBe('ok');
      expect(record.destination).toBe(`http://127.0.0.1:${port}/pages/${record.alias}`);
    }
  });

  it('still blocks another loopback destination', async () => {
    const added = await runCli(['--sandbox', 'link', 'add', 'http://127.0.0.2:8080/elsewhere', '--alias', 'elsewhere'], { env });
    expect(added.code, added.stderr).toBe(0);
    const r = await runCli(['--sandbox', 'check', '--json', '--all'], { env });
    const found = records(r.stdout);
    expect(found.find((f) => f.alias === 'elsewhere')?.status).toBe('blocked');
    expect(found.filter((f) => f.alias !== 'elsewhere').map((f) => f.status)).toEqual(['ok', 'ok']);
  });
});
