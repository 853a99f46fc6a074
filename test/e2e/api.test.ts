/** `linkctl api`: raw requests end to end, the built CLI against the sandbox in both of its modes. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, sent, useSandbox } from '../helpers.js';

const files = mkdtempSync(join(tmpdir(), 'linkctl-api-test-'));
afterAll(() => rmSync(files, { recursive: true, force: true }));

for (const quirks of [false, true]) {
  describe(`api against the sandbox (${quirks ? 'real-server quirks' : 'documented shapes'})`, () => {
    // 2 seeded links + 5 generated: 7 links, 3 pages of 3.
    const fx = useSandbox({ quirks, seed: { links: 5 } });

    it('prints the whole answer, error flag included, for every spelling of PATH and METHOD', async () => {
      for (const [method, path] of [['GET', '/api/account'], ['get', 'api/account'], ['Get', 'account']]) {
        const r = await runCli(['api', method!, path!], { env: fx.env });
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        const body = JSON.parse(r.stdout);
        expect(body).toMatchObject({ error: 0, data: { email: 'demo@sandbox.localhost', username: 'demo' } });
        expect(r.stdout).toBe(`${JSON.stringify(body, null, 2)}\n`);
      }
      expect(sent(fx.sandbox)).toEqual(Array(3).fill({ method: 'GET', path: '/api/account', query: {}, body: undefined }));
    });

    it('keeps the query string of PATH, and sends GET fields as query parameters', async () => {
      const r = await runCli(['api', 'GET', '/api/urls?limit=2', '-f', 'q=localhost', '--field', 'page=1'], { env: fx.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const body = JSON.parse(r.stdout);
      expect(body.data.urls).toHaveLength(2);
      expect(Number(body.data.result)).toBe(7);
      expect(sent(fx.sandbox)).toEqual([{ method: 'GET', path: '/api/urls', query: { limit: '2', q: 'localhost', page: '1' }, body: undefined }]);
    });

    it('--paginate follows every page and prints every record once, in one array', async () => {
      const r = await runCli(['api', 'GET', 'urls?limit=3', '--paginate'], { env: fx.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const records = JSON.parse(r.stdout);
      expect(Array.isArray(records)).toBe(true);
      // Newest first, as the API lists them; ids are strings on real servers.
      expect(records.map((l: { id: unknown }) => Number(l.id))).toEqual([7, 6, 5, 4, 3, 2, 1]);
      expect(records[6]).toMatchObject({ alias: 'docs', longurl: 'https://sandbox.localhost/docs' });
      expect(sent(fx.sandbox)).toEqual([1, 2, 3].map((page) => ({ method: 'GET', path: '/api/urls', query: { limit: '3', page: String(page) }, body: undefined })));
    });

    it('--paginate starts at the page given in PATH and keeps the other parameters', async () => {
      const r = await runCli(['api', 'GET', '/api/urls?page=2&limit=3&order=click', '--paginate'], { env: fx.env });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toHaveLength(4);
      expect(sent(fx.sandbox)).toEqual([2, 3].map((page) => ({ method: 'GET', path: '/api/urls', query: { order: 'click', limit: '3', page: String(page) }, body: undefined })));
    });

    it('--paginate on something that is not a list exits 6 and says why', async () => {
      const r = await runCli(['api', 'GET', 'account', '--paginate'], { env: fx.env });
      expect(r.code).toBe(6);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/no array of records to page through/);
    });

    it('POST with -F sends a JSON body with typed values, -f with strings as given (as gh api)', async () => {
      const args = ['api', 'POST', '/api/pixel/add', '-f', 'type=gapixel', '-f', 'name=GA', '-F', 'tag=G-12345'];
      const extra = ['-F', 'count=42', '-F', 'ratio=-1.5', '-F', 'on=true', '-F', 'off=false', '-F', 'none=null', '-F', 'zip=02134', '-F', 'big=12345678901234567890', '--field', 'empty='];
      extra.push('-f', 'rawCount=42', '-f', 'rawOn=true', '--raw-field', 'rawNull=null', '-f', 'at=@handle');
      const r = await runCli([...args, ...extra], { env: fx.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(sent(fx.sandbox)).toEqual([
        {
          method: 'POST',
          path: '/api/pixel/add',
          query: {},
          body: {
            tag: 'G-12345', count: 42, ratio: -1.5, on: true, off: false, none: null, zip: '02134', big: '12345678901234567890', empty: '',
            type: 'gapixel', name: 'GA', rawCount: '42', rawOn: 'true', rawNull: 'null', at: '@handle',
          },
        },
      ]);
      const created = JSON.parse(r.stdout);
      expect(created).toMatchObject({ error: 0 });
      expect(Number(created.id)).toBe(2);
      const pixels = JSON.parse((await runCli(['api', 'GET', 'pixels', '--paginate'], { env: fx.env })).stdout);
      expect(pixels.map((p: { name: string }) => p.name)).toContain('GA');
    });

    it('-F key=@file sends the text of the file, -F key=@- the text of stdin (not typed)', async () => {
      const file = join(files, 'note.txt');
      writeFileSync(file, 'line one\nline "two"\n');
      const r = await runCli(['api', 'POST', 'qr/add', '-f', 'type=text', '-F', `data=@${file}`, '-F', 'name=@-'], { env: fx.env, stdin: '42' });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(sent(fx.sandbox)).toEqual([{ method: 'POST', path: '/api/qr/add', query: {}, body: { data: 'line one\nline "two"\n', name: '42', type: 'text' } }]);
    });

    it('PUT with --input - sends the JSON read from stdin', async () => {
      const r = await runCli(['api', 'PUT', '/api/channel/1/update', '--input', '-'], { env: fx.env, stdin: '{"name":"Sales","starred":false,"color":"#00ff00"}\n' });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ error: 0 });
      expect(sent(fx.sandbox)).toEqual([{ method: 'PUT', path: '/api/channel/1/update', query: {}, body: { name: 'Sales', starred: false, color: '#00ff00' } }]);
      const channels = JSON.parse((await runCli(['api', 'GET', 'channels', '--paginate'], { env: fx.env })).stdout);
      expect(channels.find((c: { id: unknown }) => Number(c.id) === 1)).toMatchObject({ name: 'Sales', color: '#00ff00' });
    });

    it('--input FILE sends the file as the body', async () => {
      const file = join(files, 'channel.json');
      writeFileSync(file, JSON.stringify({ name: 'Support', description: 'Help links' }));
      const r = await runCli(['api', 'POST', 'channel/add', '--input', file], { env: fx.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(sent(fx.sandbox)).toEqual([{ method: 'POST', path: '/api/channel/add', query: {}, body: { name: 'Support', description: 'Help links' } }]);
    });

    it('exits 4 with the server message for an unknown id', async () => {
      const r = await runCli(['api', 'GET', '/api/qr/999'], { env: fx.env });
      expect(r.code).toBe(4);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/QR does not exist/);
      expect(sent(fx.sandbox)).toEqual([{ method: 'GET', path: '/api/qr/999', query: {}, body: undefined }]);
    });

    it('exits 1 with the server message when the API refuses', async () => {
      const r = await runCli(['api', 'POST', 'pixel/add', '-f', 'type=nope', '-f', 'name=X', '-f', 'tag=abc'], { env: fx.env });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^linkctl: Pixel provider is currently not supported\./);
    });

    it('exits 3 when the key is rejected (HTTP 403), without printing the key', async () => {
      const r = await runCli(['api', 'GET', 'account'], { env: { ...fx.env, LINKCTL_API_KEY: 'wrong-key-123' } });
      expect(r.code).toBe(3);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/A valid API key is required/);
      expect(r.stderr).not.toMatch(/wrong-key-123/);
      expect(fx.sandbox.requests).toHaveLength(1);
      expect(fx.sandbox.requests[0]!.headers.authorization).toBe('Bearer wrong-key-123');
    });

    it('--dry-run prints the POST with its body and sends nothing', async () => {
      const r = await runCli(['--dry-run', 'api', 'post', '/api/pixel/add', '-f', 'type=gapixel', '-f', 'name=GA', '-f', 'tag=G-12345', '-F', 'n=3'], { env: fx.env });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`POST ${fx.sandbox.url}/api/pixel/add\n${JSON.stringify({ n: 3, type: 'gapixel', name: 'GA', tag: 'G-12345' }, null, 2)}\n`);
      expect(r.stderr).toBe('dry run: nothing was sent\n');
      expect(fx.sandbox.requests).toHaveLength(0);
    });

    it('--dry-run keeps the query string of a DELETE in the URL it prints', async () => {
      const r = await runCli(['api', 'DELETE', 'pixel/1/delete?force=1', '--dry-run', '--json'], { env: fx.env });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ dryRun: true, method: 'DELETE', url: `${fx.sandbox.url}/api/pixel/1/delete?force=1` });
      expect(fx.sandbox.requests).toHaveLength(0);
    });
  });
}

describe('api input validation (nothing is sent)', () => {
  const fx = useSandbox();
  it.each([
    [['api', 'PATCH', 'urls'], '', /METHOD must be one of GET, POST, PUT, DELETE; got "PATCH"/],
    [['api', 'GET'], '', /missing required argument 'path'/],
    [['api', 'POST', 'pixel/add', '-F', 'novalue'], '', /--field must be KEY=VALUE, got "novalue"/],
    [['api', 'POST', 'pixel/add', '-F', '=x'], '', /--field must be KEY=VALUE/],
    [['api', 'POST', 'pixel/add', '-F', 'a=1', '-F', 'a=2'], '', /--field a is given twice/],
    [['api', 'POST', 'pixel/add', '-F', 'tag=@/nonexistent/tag.txt'], '', /--field tag: cannot read \/nonexistent\/tag.txt \(ENOENT\)/],
    [['api', 'POST', 'pixel/add', '-F', 'a=@-', '-F', 'b=@-'], 'x', /only one field can read stdin \(@-\); got a, b/],
    [['api', 'POST', 'pixel/add', '-f', 'a=1', '-F', 'a=2'], '', /--raw-field a is given twice/],
    [['api', 'POST', 'pixel/add', '-f', 'novalue'], '', /--raw-field must be KEY=VALUE, got "novalue"/],
    [['api', 'PUT', 'channel/1/update', '--input', '-'], '{"name": ', /--input \(stdin\) is not valid JSON/],
    [['api', 'PUT', 'channel/1/update', '--input', '-'], '', /--input \(stdin\) is not valid JSON/],
    [['api', 'PUT', 'channel/1/update', '--input', '/nonexistent/body.json'], '', /--input: cannot read \/nonexistent\/body.json/],
    [['api', 'PUT', 'channel/1/update', '--input', '-', '-f', 'name=x'], '{}', /--raw-field or with --input, not both/],
    [['api', 'GET', 'urls', '--input', '-'], '{}', /GET sends no body: drop --input/],
    [['api', 'POST', 'urls', '--paginate'], '', /--paginate follows the pages of a GET list; it does not apply to POST/],
    [['api', 'GET', 'urls?page=0', '--paginate'], '', /page \(in PATH\) must be a positive integer/],
    [['api', 'GET', 'urls?limit=2', '-F', 'limit=3'], '', /limit is given both in PATH and with --field/],
    [['api', 'GET', 'https://example.com/api/urls'], '', /PATH is a path such as \/api\/urls, not a URL/],
    [['api', 'GET', '/?x=1'], '', /PATH must name an endpoint/],
  ])('%j exits 2', async (args, stdin, message) => {
    const r = await runCli(args, { env: fx.env, stdin });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(fx.sandbox.requests).toHaveLength(0);
  });
});
