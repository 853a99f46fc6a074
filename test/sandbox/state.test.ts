// State file: created 0600 on first start, saved atomically after mutations, survives restarts.
import { mkdtempSync, readdirSync, rmSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resetStateFile } from '../../src/sandbox/server.js';
import { call, get, useSandbox } from './helpers.js';

const start = useSandbox();
const dirs: string[] = [];
const made = (dir: string) => (dirs.push(dir), dir);
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
const tempFile = () => join(made(mkdtempSync(join(tmpdir(), 'linkctl-sandbox-'))), 'state.json');

describe('state file', () => {
  it('is created with mode 0600, keeps changes across a restart and leaves no temp files', async () => {
    const file = tempFile();
    const first = await start({ stateFile: file });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await call(first, 'POST', '/api/channel/add', { name: 'Persisted' })).json.id).toBe(2);
    expect((await call(first, 'DELETE', '/api/qr/3/delete')).json.error).toBe(0);
    await first.close();

    expect(JSON.parse(readFileSync(file, 'utf8')).channels[1].name).toBe('Persisted');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(file, '..'))).toEqual(['state.json']);

    const second = await start({ stateFile: file });
    expect((await get(second, '/api/channels')).json.data.channels.map((c: { name: string }) => c.name)).toEqual(['Marketing', 'Persisted']); // oldest first, as 7.7 lists them
    expect((await get(second, '/api/qr')).json.data.result).toBe(2);
    // ids keep counting after a restart
    expect((await call(second, 'POST', '/api/channel/add', { name: 'Third' })).json.id).toBe(3);
  });

  it('keeps edits of generated (big-seed) records', async () => {
    const file = tempFile();
    const first = await start({ stateFile: file, seed: { links: 50 } });
    await call(first, 'PUT', '/api/url/10/update', { custom: 'renamed', metatitle: 'Edited' });
    await first.close();
    const second = await start({ stateFile: file });
    expect((await get(second, '/api/url/10')).json.details).toMatchObject({ alias: 'renamed', title: 'Edited', longurl: 'https://sandbox.localhost/bulk/10' });
    expect((await get(second, '/api/urls')).json.data.result).toBe(52);
  });

  it('reset() and resetStateFile() go back to the seed', async () => {
    const file = tempFile();
    const sb = await start({ stateFile: file });
    await call(sb, 'POST', '/api/pixel/add', { type: 'bing', name: 'Bing', tag: 'bing-1' });
    sb.reset();
    expect(sb.requests).toHaveLength(0);
    expect((await get(sb, '/api/pixels')).json.data.result).toBe(1);
    expect(JSON.parse(readFileSync(file, 'utf8')).pixels).toHaveLength(1);
    await sb.close();

    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), pixels: [] }));
    await resetStateFile(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const again = await start({ stateFile: file });
    expect((await get(again, '/api/pixels')).json.data.pixels).toHaveLength(1);
  });

  it('reads a file written before the sandbox had two users: the demo account (`account`) becomes user 1, the plain user is added', async () => {
    const file = tempFile();
    const first = await start({ stateFile: file });
    await call(first, 'PUT', '/api/account/update', { email: 'kept@example.com' });
    await first.close();
    const { users, ...rest } = JSON.parse(readFileSync(file, 'utf8')) as { users: Array<{ email: string; username: string }> };
    writeFileSync(file, JSON.stringify({ ...rest, account: { id: 1, email: users[0]!.email, username: users[0]!.username } }));
    const again = await start({ stateFile: file });
    expect((await get(again, '/api/account')).json.data).toMatchObject({ id: 1, email: 'kept@example.com', username: 'demo' });
    expect((await call(again, 'GET', '/api/account', undefined, `Bearer ${again.userKey}`)).json.data).toMatchObject({ id: 2, username: 'user' });
    expect((await get(again, '/api/urls')).json.data.result).toBe(2);
  });

  it('refuses a file that is not a sandbox state', async () => {
    const file = tempFile();
    writeFileSync(file, '{"hello": 1}');
    await expect(start({ stateFile: file })).rejects.toThrow(/not a sandbox state file/);
  });
});
