/** Campaigns end to end: the built CLI against the sandbox, in both of its modes. */
import { describe, expect, it } from 'vitest';
import { runCli, sent, useSandbox } from '../helpers.js';

for (const quirks of [false, true]) {
  describe(`campaign against the sandbox (${quirks ? 'real-server quirks' : 'documented shapes'})`, () => {
    const fx = useSandbox({ quirks });
    const base = () => fx.sandbox.url.replace(/\/$/, '');

    it('lists campaigns as JSON records, as the API returned them', async () => {
      const r = await runCli(['campaign', 'list', '--json', '--limit', '10'], { env: fx.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const spring = { id: 1, name: 'Spring launch', public: true, rotator: `${base()}/r/spring-launch`, list: `${base()}/u/demo/spring-launch-1` };
      expect(JSON.parse(r.stdout)).toEqual([quirks ? { ...spring, views: 42 } : spring]);
      expect(sent(fx.sandbox)).toEqual([{ method: 'GET', path: '/api/campaigns', query: { limit: '10' }, body: undefined }]);
    });

    it('creates a campaign: --json is the answer, whichever key carries the name', async () => {
      const r = await runCli(['campaign', 'add', '--name', 'Autumn', '--slug', 'autumn', '--public', '--json'], { env: fx.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(sent(fx.sandbox)).toEqual([{ method: 'POST', path: '/api/campaign/add', query: {}, body: { name: 'Autumn', slug: 'autumn', public: true } }]);
      expect(JSON.parse(r.stdout)).toEqual({
        id: 2, [quirks ? 'campaign' : 'domain']: 'Autumn', public: true, rotator: `${base()}/r/autumn`, list: `${base()}/u/demo/autumn-2`,
      });
      const table = await runCli(['campaign', 'add', '--name', 'Winter'], { env: fx.env });
      expect(table.stdout).toMatch(/^name\tWinter$/m);
    });

    it('a campaign added without a slug gets a random one from the server (mixed case, as 7.7 makes them), shown in plain output', async () => {
      const r = await runCli(['campaign', 'add', '--name', 'No slug'], { env: fx.env });
      expect(r.code).toBe(0);
      expect(sent(fx.sandbox)).toEqual([{ method: 'POST', path: '/api/campaign/add', query: {}, body: { name: 'No slug' } }]);
      const slug = /^rotator\t.*\/r\/([A-Za-z0-9]+)$/m.exec(r.stdout)?.[1];
      expect(slug, r.stdout).toBeDefined();
      expect(r.stdout).toBe(`id\t2\nname\tNo slug\npublic\tfalse\nrotator\t${base()}/r/${slug}\nlist\t${base()}/u/demo/${slug}-2\n`);
    });

    it('updates a campaign: name, slug and access', async () => {
      const r = await runCli(['campaign', 'update', '1', '--name', 'Summer launch', '--slug', 'summer', '--private'], { env: fx.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      // The campaign's slug is read first: the product refuses a slug any campaign holds, its own included.
      expect(sent(fx.sandbox)).toEqual([
        { method: 'GET', path: '/api/campaigns', query: { limit: '1000', page: '1' }, body: undefined },
        { method: 'PUT', path: '/api/campaign/1/update', query: {}, body: { name: 'Summer launch', slug: 'summer', public: false } },
      ]);
      expect(r.stdout).toBe(`id\t1\nname\tSummer launch\npublic\tfalse\nrotator\t${base()}/r/summer\nlist\t${base()}/u/demo/summer-1\n`);
    });

    it('update leaves out a slug the campaign holds already (the product refuses its own slug), and sends nothing when that was all', async () => {
      const same = await runCli(['campaign', 'update', '1', '--slug', 'Spring_Launch'], { env: fx.env });
      expect(same.stderr).toBe('');
      expect(same.code).toBe(0);
      expect(same.stdout).toBe('Campaign 1 has the slug "spring-launch" already: nothing was sent.\n');
      expect(sent(fx.sandbox)).toEqual([{ method: 'GET', path: '/api/campaigns', query: { limit: '1000', page: '1' }, body: undefined }]);
      fx.sandbox.requests.length = 0;
      const renamed = await runCli(['campaign', 'update', '1', '--slug', 'spring-launch', '--name', 'Spring 2027'], { env: fx.env });
      expect(renamed.code, renamed.stderr).toBe(0);
      expect(renamed.stderr).toBe('note: campaign 1 has the slug "spring-launch" already: it is not sent again (the product refuses a slug that any campaign holds, its own included).\n');
      expect(sent(fx.sandbox).filter((r) => r.method !== 'GET')).toEqual([{ method: 'PUT', path: '/api/campaign/1/update', query: {}, body: { name: 'Spring 2027' } }]);
    });

    it('update sends only the flags given besides the name', async () => {
      const r = await runCli(['campaign', 'update', '1', '--name', 'Renamed', '--json'], { env: fx.env });
      expect(r.code).toBe(0);
      expect(sent(fx.sandbox)).toEqual([{ method: 'PUT', path: '/api/campaign/1/update', query: {}, body: { name: 'Renamed' } }]);
      expect(JSON.parse(r.stdout)).toMatchObject({ id: 1, [quirks ? 'campaign' : 'domain']: 'Renamed', public: true });
    });

    it('an unknown id on update exits 4 with the server message', async () => {
      const r = await runCli(['campaign', 'update', '99', '--name', 'Nope'], { env: fx.env });
      expect(r.code).toBe(4);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('linkctl: campaign 99: Campaign not found. Please try again.\n');
    });

    it('a slug taken by another campaign: exit 1 with the server message', async () => {
      const r = await runCli(['campaign', 'add', '--name', 'Copy', '--slug', 'spring-launch'], { env: fx.env });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe('linkctl: This slug is currently not available. Please choose another one.\n');
    });

    it('assigns a short link to a campaign, with no body', async () => {
      const r = await runCli(['campaign', 'assign', '1', '2'], { env: fx.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('Link successfully added to the campaign.\n');
      expect(sent(fx.sandbox)).toEqual([{ method: 'POST', path: '/api/campaign/1/assign/2', query: {}, body: undefined }]);
      expect(fx.sandbox.requests[0]!.rawBody).toBe('');
    });

    it.each([
      [['99', '1'], 'Campaign not found. Please try again.'],
      [['1', '99'], 'Link not found. Please try again.'],
    ])('assign %j with an unknown id exits 4', async (ids, message) => {
      const r = await runCli(['campaign', 'assign', ...ids], { env: fx.env });
      expect(r.code).toBe(4);
      expect(r.stderr).toBe(`linkctl: campaign ${ids[0]}, link ${ids[1]}: ${message}\n`);
    });

    it('deletes with --yes; the list is then an empty JSON array', async () => {
      const r = await runCli(['campaign', 'delete', '1', '--yes'], { env: fx.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('Campaign has been deleted successfully.\n');
      expect(sent(fx.sandbox)).toEqual([{ method: 'DELETE', path: '/api/campaign/1/delete', query: {}, body: undefined }]);
      const after = await runCli(['campaign', 'list', '--json'], { env: fx.env });
      expect(after.code).toBe(0);
      expect(after.stdout).toBe('[]\n');
    });
  });
}

describe('campaign input validation (nothing is sent)', () => {
  const fx = useSandbox();
  it.each([
    [['campaign', 'add', '--name', 'x'], /--name must have at least 2 characters/],
    [['campaign', 'add', '--name', '  '], /--name must have at least 2 characters/],
    [['campaign', 'add'], /required option '--name <name>' not specified/],
    [['campaign', 'add', '--name', 'Promo', '--public', '--private'], /option '--public' cannot be used with option '--private'/],
    [['campaign', 'add', '--name', 'Promo', '--slug', 'my slug!'], /--slug may contain only letters, digits, - and _/],
    [['campaign', 'update', '1', '--name', 'a'], /--name must have at least 2 characters/],
    // The product ignores a name of 2 bytes or less on update, answering success: refused, not a silent no-op.
    [['campaign', 'update', '1', '--name', 'ab'], /--name: real servers ignore a campaign name of 2 bytes or less on update, and answer success with the old name \(got "ab"\)\nhint: give a name of 3 characters or more/],
    [['campaign', 'update', '1'], /nothing to change: give --name, --slug, --public or --private/],
    [['campaign', 'update', '1', '--name', 'Promo', '--private', '--public'], /option '--p(ublic|rivate)' cannot be used with option '--p(rivate|ublic)'/],
    [['campaign', 'update', 'one', '--name', 'Promo'], /ID must be a positive integer, got "one"/],
    [['campaign', 'assign', 'x', '2'], /CAMPAIGN_ID must be a positive integer, got "x"/],
    [['campaign', 'assign', '1', '2.5'], /LINK_ID must be a positive integer, got "2.5"/],
    [['campaign', 'assign', '1'], /missing required argument 'link-id'/],
    [['campaign', 'delete', '-3', '--yes'], /ID must be a positive integer, got "-3"/],
  ])('%j exits 2', async (args, message) => {
    const r = await runCli(args, { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(fx.sandbox.requests).toHaveLength(0);
  });

  it('every campaign command shows examples in its help', async () => {
    for (const sub of ['list', 'add', 'update', 'delete', 'assign']) {
      const r = await runCli(['campaign', sub, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`Examples:\\n  \\$ linkctl campaign ${sub}\\b`));
    }
  });
});
