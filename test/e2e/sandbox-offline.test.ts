/**
 * Issue 38, item 8: the sandbox is self-contained. Its seeded links and QR codes lead to pages it
 * serves itself, so `linkctl --sandbox check` (and `check --qr`) find every one ok with no
 * network; check allows the sandbox's own origin, says so, and still blocks any other loopback one.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { rmSync } from 'node:fs';
import { runCli, tempDir } from '../helpers.js';

interface CheckRecord { link: number | null; qr: number | null; destination: string; status: string }

const dir = tempDir('linkctl-offline-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const env = { LINKCTL_CONFIG_DIR: dir };
const records = (stdout: string) => JSON.parse(stdout) as CheckRecord[];
const ALLOWED_LINE = /^the sandbox's own address 127\.0\.0\.1:(\d+) is allowed/m;

describe('--sandbox check with no network', () => {
  it('finds every seeded link ok, on pages of the sandbox itself, and says its own address is allowed', async () => {
    const r = await runCli(['--sandbox', 'check', '--json'], { env });
    expect(r.stderr).toMatch(ALLOWED_LINE);
    expect(r.code).toBe(0);
    const port = ALLOWED_LINE.exec(r.stderr)![1];
    const found = records(r.stdout);
    expect(found.length).toBe(2);
    for (const record of found) {
      expect(record.status).toBe('ok');
      expect(record.destination).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/pages/`));
    }
  });

  it('check --qr reads the seeded QR codes and finds their destinations ok too', async () => {
    const r = await runCli(['--sandbox', 'check', '--qr', '--json'], { env });
    expect(r.stderr).toMatch(ALLOWED_LINE);
    expect(r.code).toBe(0);
    const found = records(r.stdout);
    expect(found.some((f) => f.qr !== null)).toBe(true);
    for (const record of found) expect(record.status).toBe('ok');
  });

  it('still blocks another loopback destination', async () => {
    const added = await runCli(['--sandbox', 'link', 'add', 'http://127.0.0.2:8080/elsewhere', '--alias', 'elsewhere'], { env });
    expect(added.code, added.stderr).toBe(0);
    const r = await runCli(['--sandbox', 'check', '--json'], { env });
    const found = records(r.stdout);
    expect(found.find((f) => f.destination === 'http://127.0.0.2:8080/elsewhere')?.status).toBe('blocked');
    expect(found.filter((f) => f.destination.includes('/pages/')).every((f) => f.status === 'ok')).toBe(true);
  });
});
