/** Tracking pixels end to end: the built CLI against the sandbox, in both of its modes. */
import { describe, expect, it } from 'vitest';
import { runCli, sent, useSandbox } from '../helpers.js';
import { PIXEL_TYPES } from '../../src/model/pixel-types.js';

const MAIN = { id: 1, type: 'gapixel', name: 'Main analytics', tag: 'G-ABC123XYZ', date: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/) };

for (const quirks of [false, true]) {
  describe(`pixel against the sandbox (${quirks ? 'real-server quirks' : 'documented shapes'})`, () => {
    const fx = useSandbox({ quirks });

    it('lists pixels as JSON records', async () => {
      const r = await runCli(['pixel', 'list', '--json'], { env: fx.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([MAIN]);
      expect(sent(fx.sandbox)).toEqual([{ method: 'GET', path: '/api/pixels', query: {}, body: undefined }]);
    });

    it('lists pixels as plain rows in a pipe', async () => {
      const r = await runCli(['pixel', 'list', '--page', '1'], { env: fx.env });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^1\tgapixel\tMain analytics\tG-ABC123XYZ\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\n$/);
      expect(sent(fx.sandbox)).toEqual([{ method: 'GET', path: '/api/pixels', query: { page: '1' }, body: undefined }]);
    });

    it('adds a pixel; --json is the answer, the id a number whatever the server sends', async () => {
      const r = await runCli(['pixel', 'add', '--type', 'fbpixel', '--name', 'Facebook', '--tag', '1234567', '--json'], { env: fx.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ id: 2 }); // one shape: real servers send "2"
      expect(sent(fx.sandbox)).toEqual([{ method: 'POST', path: '/api/pixel/add', query: {}, body: { type: 'fbpixel', name: 'Facebook', tag: '1234567' } }]);
      const list = JSON.parse((await runCli(['pixel', 'list', '--json'], { env: fx.env })).stdout);
      expect(list).toContainEqual({ id: 2, type: 'fbpixel', name: 'Facebook', tag: '1234567', date: expect.any(String) });
      expect((await runCli(['pixel', 'add', '--type', 'bing', '--name', 'Bing', '--tag', 'B-12345'], { env: fx.env })).stdout).toBe('id\t3\n');
    });

    it('adds a pixel with a type in any case, and prints its id in a pipe', async () => {
      const r = await runCli(['pixel', 'add', '--type', 'TikTok', '--name', 'TT', '--tag', 'C4ABCDEF'], { env: fx.env });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('id\t2\n');
      expect(fx.sandbox.requests[0]!.body).toEqual({ type: 'tiktok', name: 'TT', tag: 'C4ABCDEF' });
    });

    it('updates the tag and name of a pixel', async () => {
      const r = await runCli(['pixel', 'update', '1', '--tag', 'G-NEW456', '--name', 'Renamed'], { env: fx.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('Pixel has been updated successfully.\n');
      expect(sent(fx.sandbox)).toEqual([{ method: 'PUT', path: '/api/pixel/1/update', query: {}, body: { tag: 'G-NEW456', name: 'Renamed' } }]);
      const list = JSON.parse((await runCli(['pixel', 'list', '--json'], { env: fx.env })).stdout);
      expect(list).toEqual([{ ...MAIN, tag: 'G-NEW456', name: 'Renamed' }]);
    });

    it('updates the tag alone, sending only the tag', async () => {
      const r = await runCli(['pixel', 'update', '1', '--tag', 'G-ONLY', '--json'], { env: fx.env });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ message: 'Pixel has been updated successfully.' });
      expect(sent(fx.sandbox)).toEqual([{ method: 'PUT', path: '/api/pixel/1/update', query: {}, body: { tag: 'G-ONLY' } }]);
    });

    it(quirks ? 'reports the empty answer to an update of an unknown id (exit 6, with a hint)' : 'exits 4 on an update of an unknown id', async () => {
      const r = await runCli(['pixel', 'update', '999', '--tag', 'G-NEW456'], { env: fx.env });
      expect(r.stdout).toBe('');
      if (quirks) {
        expect(r.code).toBe(6);
        expect(r.stderr).toMatch(/^linkctl: HTTP 200: the server sent an empty answer to PUT http:\/\/127\.0\.0\.1:\d+\/api\/pixel\/999\/update\nhint: pixel 999 may not exist \(see `linkctl pixel list`\)\n$/);
      } else {
        expect(r.code).toBe(4);
        expect(r.stderr).toBe('linkctl: pixel 999: Pixel not found. Please try again.\n');
      }
      expect(sent(fx.sandbox)).toEqual([{ method: 'PUT', path: '/api/pixel/999/update', query: {}, body: { tag: 'G-NEW456' } }]);
    });

    it('deletes with --yes and prints the server message; the list is then an empty array', async () => {
      const r = await runCli(['pixel', 'delete', '1', '--yes'], { env: fx.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('Pixel has been deleted successfully.\n');
      expect(sent(fx.sandbox)).toEqual([{ method: 'DELETE', path: '/api/pixel/1/delete', query: {}, body: undefined }]);
      expect((await runCli(['pixel', 'list', '--json'], { env: fx.env })).stdout).toBe('[]\n');
    });
  });
}

describe('pixel input validation (nothing is sent)', () => {
  const fx = useSandbox({ quirks: true });
  it.each([
    [['pixel', 'add', '--type', 'gpixel', '--name', 'GA', '--tag', 'G-ABC'], new RegExp(`--type must be one of ${PIXEL_TYPES.join(', ')}; got "gpixel"`)],
    [['pixel', 'add', '--type', 'gapixel', '--name', 'GA', '--tag', 'G1'], /--tag must have at least 3 characters/],
    [['pixel', 'add', '--type', 'gapixel', '--name', '', '--tag', 'G-ABC'], /--name must not be empty/],
    [['pixel', 'add', '--type', 'gapixel', '--tag', 'G-ABC'], /required option '--name <name>'/],
    [['pixel', 'add', '--name', 'GA', '--tag', 'G-ABC'], /required option '--type <type>'/],
    // nothing to change: the API needs the tag on every update
    [['pixel', 'update', '1'], /nothing to change: give --tag or --name/],
    [['pixel', 'update', '1', '--tag', '  ab '], /--tag must have at least 3 characters/],
    [['pixel', 'update', 'abc', '--tag', 'G-ABC'], /ID must be a positive integer, got "abc"/],
    [['pixel', 'delete', '1.5', '--yes'], /ID must be a positive integer/],
    [['pixel', 'list', '--limit', '0'], /--limit must be a positive integer/],
  ])('%j exits 2', async (args, message) => {
    const r = await runCli(args, { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(fx.sandbox.requests).toHaveLength(0);
  });

  it('lists the 13 types in help, and shows examples on every command', async () => {
    const add = await runCli(['pixel', 'add', '--help']);
    expect(PIXEL_TYPES).toHaveLength(13);
    for (const type of PIXEL_TYPES) expect(add.stdout).toContain(`"${type}"`);
    for (const command of ['list', 'add', 'update', 'delete']) {
      const r = await runCli(['pixel', command, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`Examples:\\n\\s+\\$ linkctl pixel ${command}[ \\n]`));
    }
  });
});
