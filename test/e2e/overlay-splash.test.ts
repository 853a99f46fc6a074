/** CTA overlays and splash pages (read only) end to end: the built CLI against the sandbox, in both of its modes. */
import { describe, expect, it } from 'vitest';
import { runCli, sent, useSandbox } from '../helpers.js';

/** Newest first, as the documented mode lists them; the product 7.7 lists them oldest first (real-servers.md, fact 2). */
const OVERLAYS = [
  { id: 3, type: 'message', name: 'Newsletter invite', date: '2025-01-14 12:00:00' },
  { id: 2, type: 'contact', name: 'Contact form', date: '2025-01-12 12:00:00' },
  { id: 1, type: 'message', name: 'Spring sale banner', date: '2025-01-11 12:00:00' },
];
const SPLASH = [
  { id: 2, name: 'Promo splash', date: '2025-01-17 12:00:00' },
  { id: 1, name: 'Welcome splash', date: '2025-01-12 12:00:00' },
];

for (const quirks of [false, true]) {
  describe(`overlay and splash against the sandbox (${quirks ? 'real-server quirks: collection `overlay`' : 'documented shapes: collection `cta`'})`, () => {
    const fx = useSandbox({ quirks });
    const ordered = <T>(newestFirst: T[]) => (quirks ? [...newestFirst].reverse() : newestFirst);

    it('lists CTA overlays as JSON', async () => {
      const r = await runCli(['overlay', 'list', '--json'], { env: fx.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(ordered(OVERLAYS));
      expect(sent(fx.sandbox)).toEqual([{ method: 'GET', path: '/api/overlay', query: {}, body: undefined }]);
    });

    it('lists CTA overlays as plain rows: id, name, type, date', async () => {
      const r = await runCli(['overlay', 'list', '--limit', '2', '--page', '2'], { env: fx.env });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(quirks ? '3\tNewsletter invite\tmessage\t2025-01-14 12:00:00\n' : '1\tSpring sale banner\tmessage\t2025-01-11 12:00:00\n');
      expect(sent(fx.sandbox)).toEqual([{ method: 'GET', path: '/api/overlay', query: { limit: '2', page: '2' }, body: undefined }]);
    });

    it('reads every page of overlays with --all, in order', async () => {
      const r = await runCli(['overlay', 'list', '--all', '--limit', '1', '--fields', 'id,name', '-o', 'csv'], { env: fx.env });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`id,name\n${ordered(['3,Newsletter invite', '2,Contact form', '1,Spring sale banner']).join('\n')}\n`);
      expect(sent(fx.sandbox).map((q) => q.query)).toEqual([{ limit: '1', page: '1' }, { limit: '1', page: '2' }, { limit: '1', page: '3' }]);
    });

    it('a page past the end is an empty JSON array', async () => {
      const r = await runCli(['overlay', 'list', '--page', '9', '--json'], { env: fx.env });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('[]\n');
    });

    it('lists splash pages as JSON', async () => {
      const r = await runCli(['splash', 'list', '--json'], { env: fx.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(ordered(SPLASH));
      expect(sent(fx.sandbox)).toEqual([{ method: 'GET', path: '/api/splash', query: {}, body: undefined }]);
    });

    it('lists splash pages as plain rows, and ids only with -q', async () => {
      const rows = await runCli(['splash', 'list'], { env: fx.env });
      expect(rows.code).toBe(0);
      expect(rows.stdout).toBe(`${ordered(['2\tPromo splash\t2025-01-17 12:00:00', '1\tWelcome splash\t2025-01-12 12:00:00']).join('\n')}\n`);
      const ids = await runCli(['splash', 'list', '-q', '--limit', '1'], { env: fx.env });
      expect(ids.stdout).toBe(quirks ? '1\n' : '2\n');
      expect(sent(fx.sandbox).map((q) => q.query)).toEqual([{}, { limit: '1' }]);
    });
  });
}

describe('overlay and splash: errors and help', () => {
  const fx = useSandbox();

  it.each([
    [['overlay', 'list', '--limit', 'ten'], /--limit must be a positive integer, got "ten"/],
    [['splash', 'list', '--page', '0'], /--page must be a positive integer, got "0"/],
    [['overlay', 'list', '--fields', 'id,colour'], /--fields: unknown field "colour"; known fields: id, name, type, date/],
    [['overlay', 'add'], /unknown command 'add'/],
  ])('%j exits 2, sending nothing', async (args, message) => {
    const r = await runCli(args, { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(fx.sandbox.requests).toHaveLength(0);
  });

  it('a list answer cut short is a protocol error (exit 6), not an empty list', async () => {
    fx.sandbox.injectFault({ kind: 'truncated' });
    const r = await runCli(['splash', 'list', '--json'], { env: fx.env });
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
  });

  it('both list commands show examples in their help', async () => {
    for (const resource of ['overlay', 'splash']) {
      const r = await runCli([resource, 'list', '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`Examples:\\n  \\$ linkctl ${resource} list\\n`));
    }
  });
});
