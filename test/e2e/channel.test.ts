/** Channels end to end: the built CLI against the sandbox, in both of its modes. */
import { describe, expect, it } from 'vitest';
import { runCli, sent, useSandbox } from '../helpers.js';

const MARKETING = { id: 1, name: 'Marketing', description: 'Links for the marketing team', color: '#1e88e5', starred: true };
const WARNING = 'Deleting a channel unassigns its items; the links, bio pages and QR codes themselves are kept.\n';

for (const quirks of [false, true]) {
  describe(`channel against the sandbox (${quirks ? 'real-server quirks' : 'documented shapes'})`, () => {
    const fx = useSandbox({ quirks });

    it('lists channels as JSON records', async () => {
      const r = await runCli(['channel', 'list', '--json'], { env: fx.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([MARKETING]);
      expect(sent(fx.sandbox)).toEqual([{ method: 'GET', path: '/api/channels', query: {}, body: undefined }]);
    });

    it('lists channels as plain rows in a pipe', async () => {
      const r = await runCli(['channel', 'ls', '--limit', '5'], { env: fx.env });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('1\tMarketing\tLinks for the marketing team\t#1e88e5\ttrue\n');
      expect(sent(fx.sandbox)).toEqual([{ method: 'GET', path: '/api/channels', query: { limit: '5' }, body: undefined }]);
    });

    it('lists the items of a channel, one page', async () => {
      const r = await runCli(['channel', 'items', '1', '--limit', '5', '--page', '1', '--json'], { env: fx.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const items = JSON.parse(r.stdout);
      expect(items).toHaveLength(1);
      expect(items[0]).toMatchObject({ type: 'links', id: 1, title: 'Example Docs', date: expect.stringMatching(/^\d{4}-\d\d-\d\d$/) });
      expect(sent(fx.sandbox)).toEqual([{ method: 'GET', path: '/api/channel/1', query: { limit: '5', page: '1' }, body: undefined }]);
    });

    it('assigns items by type (link sent as links), then lists every page with --all', async () => {
      const link = await runCli(['channel', 'assign', '1', 'link', '2'], { env: fx.env });
      expect(link.stderr).toBe('');
      expect(link.code).toBe(0);
      expect(link.stdout).toBe(quirks ? 'Link successfully added to the channel.\n' : 'Item successfully added to the channel.\n');
      const qr = await runCli(['channel', 'assign', '1', 'qr', '1', '--json'], { env: fx.env });
      expect(qr.code).toBe(0);
      expect(JSON.parse(qr.stdout)).toEqual({ message: expect.stringMatching(/successfully added to the channel/) });
      expect(sent(fx.sandbox)).toEqual([
        { method: 'POST', path: '/api/channel/1/assign/links/2', query: {}, body: undefined },
        { method: 'POST', path: '/api/channel/1/assign/qr/1', query: {}, body: undefined },
      ]);

      fx.sandbox.requests.length = 0;
      const all = await runCli(['channel', 'items', '1', '--all', '--limit', '2', '--json'], { env: fx.env });
      expect(all.stderr).toBe('');
      expect(all.code).toBe(0);
      expect(JSON.parse(all.stdout).map((i: { type: string; id: number }) => `${i.type}:${i.id}`).sort()).toEqual(['links:1', 'links:2', 'qr:1']);
      expect(sent(fx.sandbox)).toEqual([
        { method: 'GET', path: '/api/channel/1', query: { limit: '2', page: '1' }, body: undefined },
        { method: 'GET', path: '/api/channel/1', query: { limit: '2', page: '2' }, body: undefined },
      ]);
    });

    it('assigns a bio page', async () => {
      // the demo account's bio page (7.7 refuses one that is not the user's: "Bio Page does not exist. Please try again.")
      const r = await runCli(['channel', 'assign', '1', 'bio', '1'], { env: fx.env });
      expect(r.code).toBe(0);
      expect(sent(fx.sandbox)).toEqual([{ method: 'POST', path: '/api/channel/1/assign/bio/1', query: {}, body: undefined }]);
    });

    it('adds a channel with every field and shows what the server answered', async () => {
      const r = await runCli(['channel', 'add', '--name', 'Press', '--description', 'Press kit', '--color', '#FF8800', '--starred', '--json'], { env: fx.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ id: 2, name: 'Press', description: 'Press kit', color: '#FF8800', starred: true });
      expect(sent(fx.sandbox)).toEqual([
        { method: 'POST', path: '/api/channel/add', query: {}, body: { name: 'Press', description: 'Press kit', color: '#FF8800', starred: true } },
      ]);
      // a new channel has no items: --json prints an empty array
      const items = await runCli(['channel', 'items', '2', '--json'], { env: fx.env });
      expect(items.code).toBe(0);
      expect(items.stdout).toBe('[]\n');
    });

    it('adds a channel with only a name, sending only the name', async () => {
      const r = await runCli(['channel', 'add', '--name', 'Ops'], { env: fx.env });
      expect(r.code).toBe(0);
      // 7.7 gives a channel made without a colour a random one (fact 33)
      expect(r.stdout).toMatch(quirks ? /^id\t2\nname\tOps\ndescription\t\ncolor\t#[0-9a-f]{6}\nstarred\tfalse\n$/ : /^id\t2\nname\tOps\ndescription\t\ncolor\t#000000\nstarred\tfalse\n$/);
      expect(sent(fx.sandbox)).toEqual([{ method: 'POST', path: '/api/channel/add', query: {}, body: { name: 'Ops' } }]);
    });

    it('updates a channel: the message when documented, the channel itself on real servers', async () => {
      const r = await runCli(['channel', 'update', '1', '--name', 'Sales', '--color', '#00ff00', '--no-starred'], { env: fx.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(
        quirks ? 'id\t1\nname\tSales\ndescription\tLinks for the marketing team\ncolor\t#00ff00\nstarred\tfalse\n' : 'Channel has been updated successfully.\n',
      );
      expect(sent(fx.sandbox)).toEqual([{ method: 'PUT', path: '/api/channel/1/update', query: {}, body: { name: 'Sales', color: '#00ff00', starred: false } }]);
      const list = JSON.parse((await runCli(['channel', 'list', '--json'], { env: fx.env })).stdout);
      expect(list).toEqual([{ ...MARKETING, name: 'Sales', color: '#00ff00', starred: false }]);
    });

    it('updates with --json: the answer without its error flag', async () => {
      const r = await runCli(['channel', 'update', '1', '--starred', '--description', 'Team links', '--json'], { env: fx.env });
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(quirks ? { ...MARKETING, description: 'Team links' } : { message: 'Channel has been updated successfully.' });
      expect(fx.sandbox.requests[0]!.body).toEqual({ description: 'Team links', starred: true });
    });

    it('deletes with --yes, warning that the items are unassigned', async () => {
      const r = await runCli(['channel', 'delete', '1', '--yes'], { env: fx.env });
      expect(r.code).toBe(0);
      expect(r.stderr).toBe(WARNING);
      expect(r.stdout).toBe('Channel has been deleted successfully.\n');
      expect(sent(fx.sandbox)).toEqual([{ method: 'DELETE', path: '/api/channel/1/delete', query: {}, body: undefined }]);
      expect((await runCli(['channel', 'list', '--json'], { env: fx.env })).stdout).toBe('[]\n');
    });

    it.each([
      [['channel', 'items', '999'], /Channel not found\. Please try again\./],
      [['channel', 'update', '999', '--name', 'Ghost'], /Channel not found/],
      [['channel', 'delete', '999', '--yes'], /Channel not found/],
      [['channel', 'assign', '999', 'link', '1'], /Channel not found/],
      [['channel', 'assign', '1', 'links', '999'], /Link does not exist\. Please try again\./],
      [['channel', 'assign', '1', 'qr', '999'], /QR Code does not exist\. Please try again\./],
    ])('%j exits 4 for an unknown id', async (args, message) => {
      const r = await runCli(args, { env: fx.env });
      expect(r.code).toBe(4);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
      expect(fx.sandbox.requests).toHaveLength(1);
    });
  });
}

describe('channel assign of an item already in the channel (real servers answer an error; the wanted state holds)', () => {
  const fx = useSandbox();

  it('is success with status `exists`, for one id and for many', async () => {
    const one = await runCli(['channel', 'assign', '1', 'link', '1', '--json'], { env: fx.env });
    expect(one.stderr).toBe('');
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({ message: 'link 1 was already in channel 1.', status: 'exists' });
    const plain = await runCli(['channel', 'assign', '1', 'link', '1'], { env: fx.env });
    expect([plain.code, plain.stdout]).toEqual([0, 'link 1 was already in channel 1.\n']);

    const many = await runCli(['channel', 'assign', '1', 'link', '1', '2', '--json'], { env: fx.env });
    expect(many.stderr).toBe('');
    expect(many.code).toBe(0);
    expect(JSON.parse(many.stdout)).toEqual([
      { id: 1, assigned: true, status: 'exists', message: 'link 1 was already in channel 1.' },
      { id: 2, assigned: true, message: 'Link successfully added to the channel.' },
    ]);
    // one request per id, none repeated
    expect(sent(fx.sandbox).map((r) => r.path)).toEqual([
      '/api/channel/1/assign/links/1', '/api/channel/1/assign/links/1', '/api/channel/1/assign/links/1', '/api/channel/1/assign/links/2',
    ]);
  });
});

describe('channel input validation (nothing is sent)', () => {
  const fx = useSandbox({ quirks: true });
  it.each([
    // real servers would store the typo as a link: only the client can catch it
    [['channel', 'assign', '1', 'lnk', '2'], /TYPE must be one of link, links, bio, qr; got "lnk"/],
    [['channel', 'assign', '0', 'link', '2'], /CHANNEL must be a positive integer, got "0"/],
    [['channel', 'assign', '1', 'link', '2x'], /ITEM_ID must be a positive integer, got "2x"/],
    [['channel', 'add', '--name', 'Press', '--color', ''], /--color must not be empty/],
    [['channel', 'add', '--name', 'P'], /--name must have at least 2 characters/],
    [['channel', 'add', '--description', 'no name'], /required option '--name <name>'/],
    [['channel', 'update', '1', '--name', ' '], /--name must have at least 3 characters on update: real servers ignore a channel name shorter than 3 characters/],
    [['channel', 'update', '1', '--description', ''], /--description must have at least 3 characters on update: a channel description cannot be cleared through the API/],
    [['channel', 'update', '1'], /nothing to change: give --name, --description, --color, --starred or --no-starred/],
    [['channel', 'update', 'abc', '--name', 'Sales'], /ID must be a positive integer, got "abc"/],
    [['channel', 'items', '0'], /ID must be a positive integer/],
    [['channel', 'items', '1', '--limit', 'many'], /--limit must be a positive integer/],
    [['channel', 'delete', 'x1', '--yes'], /ID must be a positive integer/],
  ])('%j exits 2', async (args, message) => {
    const r = await runCli(args, { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(fx.sandbox.requests).toHaveLength(0);
  });

  it('a channel by name, as link add --channel takes it: one read of the channels, then the assign (issue 55, low)', async () => {
    const r = await runCli(['channel', 'assign', 'marketing', 'link', '2'], { env: fx.env });
    expect(r.code, r.stderr).toBe(0);
    expect(fx.sandbox.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /api/channels', 'POST /api/channel/1/assign/links/2']);
    fx.sandbox.requests.length = 0;
    const unknown = await runCli(['channel', 'assign', 'Social', 'link', '2'], { env: fx.env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^linkctl: CHANNEL "Social": no channel has this name \("Marketing"\)\n/);
    expect(fx.sandbox.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /api/channels']);
  });

  it('any colour text, as the product keeps it, saying what it will store (issue 55, low)', async () => {
    const red = await runCli(['channel', 'add', '--name', 'Urgent', '--color', 'red', '--json'], { env: fx.env });
    expect(red.code, red.stderr).toBe(0);
    expect(red.stderr).toBe('');
    expect(JSON.parse(red.stdout)).toMatchObject({ name: 'Urgent', color: 'red' });
    const long = await runCli(['channel', 'update', '1', '--color', 'light blue', '--json'], { env: fx.env });
    expect(long.code, long.stderr).toBe(0);
    expect(long.stderr).toBe('note: --color "light blue" is stored as "light" (servers keep any colour text, HTML-cleaned and cut to 7 bytes).\n');
    expect(JSON.parse(long.stdout)).toMatchObject({ color: 'light' });
  });

  it('shows examples in the help of every command', async () => {
    for (const command of ['list', 'items', 'add', 'update', 'delete', 'assign']) {
      const r = await runCli(['channel', command, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`Examples:\\n\\s+\\$ linkctl channel ${command}[ \\n]`));
    }
    expect((await runCli(['channel', 'assign', '--help'])).stdout).toMatch(/"link",\s+"links",\s+"bio",\s+"qr"/);
  });
});
