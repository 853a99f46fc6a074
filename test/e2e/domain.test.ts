/** Branded domains end to end: the built CLI against the sandbox, in both of its modes. */
import { describe, expect, it } from 'vitest';
import { runCli, runMain, sent, useSandbox } from '../helpers.js';

for (const quirks of [false, true]) {
  describe(`domain against the sandbox (${quirks ? 'real-server quirks' : 'documented shapes'})`, () => {
    // real servers that offer several domains list the site's own after the account's (7.7 with them off does not: fact 3)
    const fx = useSandbox({ quirks, systemDomains: quirks });

    it('lists domains as JSON; real servers append system domains with id null', async () => {
      const r = await runCli(['domain', 'list', '--json'], { env: fx.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const mine = { id: 1, domain: 'https://go.sandbox.localhost', redirectroot: 'https://sandbox.localhost/home', redirect404: 'https://sandbox.localhost/not-found' };
      const system = { id: null, domain: fx.sandbox.url.replace(/\/$/, ''), redirectroot: '', redirect404: '' };
      expect(JSON.parse(r.stdout)).toEqual(quirks ? [mine, system] : [mine]);
      expect(sent(fx.sandbox)).toEqual([{ method: 'GET', path: '/api/domains', query: {}, body: undefined }]);
    });

    it('marks system domains in plain rows: no id, kind "system"', async () => {
      const r = await runCli(['domain', 'list', '--limit', '5'], { env: fx.env });
      expect(r.code).toBe(0);
      const rows = r.stdout.trim().split('\n').map((line) => line.split('\t'));
      expect(rows[0]).toEqual(['1', 'https://go.sandbox.localhost', 'https://sandbox.localhost/home', 'https://sandbox.localhost/not-found', 'branded']);
      if (quirks) expect(rows[1]).toEqual(['', fx.sandbox.url.replace(/\/$/, ''), '', '', 'system']);
      expect(rows).toHaveLength(quirks ? 2 : 1);
      expect(sent(fx.sandbox)[0]!.query).toEqual({ limit: '5' });
    });

    it('adds a domain with its redirects; --json is the answer, the id a number whatever the server sends', async () => {
      const r = await runCli(['domain', 'add', 'https://links.example.org', '--redirect-root', 'https://example.org', '--redirect-404', 'https://example.org/missing', '--json'], { env: fx.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(sent(fx.sandbox)).toEqual([
        { method: 'POST', path: '/api/domain/add', query: {}, body: { domain: 'https://links.example.org', redirectroot: 'https://example.org', redirect404: 'https://example.org/missing' } },
      ]);
      expect(JSON.parse(r.stdout)).toEqual({ id: 2 }); // one shape: real servers send "2"
      const list = JSON.parse((await runCli(['domain', 'list', '--json'], { env: fx.env })).stdout);
      expect(list.find((d: { id: number }) => d.id === 2)).toMatchObject({ domain: 'https://links.example.org' });
    });

    it('shows a new domain as a record in a pipe, and sends only the flags given', async () => {
      const r = await runCli(['domain', 'add', 'http://short.example.net/'], { env: fx.env });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('id\t2\ndomain\thttp://short.example.net\nredirectroot\t\nredirect404\t\n');
      expect(sent(fx.sandbox)).toEqual([{ method: 'POST', path: '/api/domain/add', query: {}, body: { domain: 'http://short.example.net' } }]);
    });

    it('reports the server message when the domain exists already, and that domains are unique across a server\'s accounts', async () => {
      const r = await runCli(['domain', 'add', 'https://go.sandbox.localhost'], { env: fx.env });
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('linkctl: The domain has been already used.\nhint: branded domains are unique across all the accounts of a server: this account (`linkctl domain list`) or another one holds it; after a move between two accounts, delete it in the old one first\n');
    });

    it('updates the redirects of a domain', async () => {
      const r = await runCli(['domain', 'update', '1', '--redirect-404', 'https://example.com/gone'], { env: fx.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('Domain has been updated successfully.\n');
      expect(sent(fx.sandbox)).toEqual([{ method: 'PUT', path: '/api/domain/1/update', query: {}, body: { redirect404: 'https://example.com/gone' } }]);
      const list = JSON.parse((await runCli(['domain', 'list', '--json'], { env: fx.env })).stdout);
      expect(list[0]).toMatchObject({ id: 1, redirectroot: 'https://sandbox.localhost/home', redirect404: 'https://example.com/gone' });
    });

    it('an unknown id on update: exit 4 with the message, or (real servers: empty answer) exit 6 naming the likely cause', async () => {
      const r = await runCli(['domain', 'update', '99', '--redirect-root', 'https://example.com'], { env: fx.env });
      expect(r.stdout).toBe('');
      if (quirks) {
        expect(r.code).toBe(6);
        expect(r.stderr).toMatch(/^linkctl: HTTP 200: the server sent an empty answer to PUT .*\/api\/domain\/99\/update\n/);
        expect(r.stderr).toMatch(/hint: domain 99 may not exist \(see `linkctl domain list`\), or the server did not accept a redirect URL\n$/);
      } else {
        expect(r.code).toBe(4);
        expect(r.stderr).toBe('linkctl: branded domain 99: Domain not found. Please try again.\n');
      }
      expect(sent(fx.sandbox)).toHaveLength(1);
    });

    it('deletes with --yes; the list is then [] (real servers: only the system domain)', async () => {
      const r = await runCli(['domain', 'delete', '1', '--yes'], { env: fx.env });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('Domain has been deleted successfully.\n');
      expect(sent(fx.sandbox)).toEqual([{ method: 'DELETE', path: '/api/domain/1/delete', query: {}, body: undefined }]);
      const after = await runCli(['domain', 'list', '--json'], { env: fx.env });
      expect(after.code).toBe(0);
      const list = JSON.parse(after.stdout);
      if (quirks) expect(list).toEqual([expect.objectContaining({ id: null })]);
      else expect(after.stdout).toBe('[]\n');
    });
  });
}

describe('domain delete on a terminal (in-process, fake prompt)', () => {
  const fx = useSandbox();
  it.each([
    [true, 0, 1],
    [false, 2, 0],
  ])('asks first; answer %s exits %i and sends %i request', async (answer, code, requests) => {
    const r = await runMain(['domain', 'delete', '1'], { env: fx.env, tty: true, confirm: answer });
    expect(r.prompts).toEqual(['Delete branded domain 1?']);
    expect(r.code).toBe(code);
    expect(fx.sandbox.requests).toHaveLength(requests);
    if (answer) expect(r.stdout).toBe('Domain has been deleted successfully.\n');
    else expect(r.stderr).toMatch(/cancelled; nothing was changed/);
  });
});

describe('domain: an empty answer to add (a redirect the server rejects)', () => {
  const fx = useSandbox({ quirks: true });
  it('exits 6 and says what the server probably refused', async () => {
    fx.sandbox.injectFault({ kind: 'empty' });
    const r = await runCli(['domain', 'add', 'https://links.example.org', '--redirect-root', 'https://example.org/a'], { env: fx.env });
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/empty answer to POST .*\/api\/domain\/add\nhint: the server rejected the request without a reason; a redirect URL may be one it does not accept\n$/);
    expect(sent(fx.sandbox)).toHaveLength(1);
  });
});

describe('domain input validation (nothing is sent)', () => {
  const fx = useSandbox();
  const FIXED = /the domain itself cannot change: delete it and add the new one/;
  it.each([
    [['domain', 'add', 'go.sandbox.localhost'], /the domain must be a URL starting with http:\/\/ or https:\/\/, got "go.sandbox.localhost"/],
    [['domain', 'add', 'ftp://go.sandbox.localhost'], /the domain must start with http:\/\/ or https:\/\//],
    [['domain', 'add', 'https://go.sandbox.localhost/path'], /the domain must be a scheme and a host only/],
    [['domain', 'add', 'https://go.sandbox.localhost', '--redirect-root', 'example.com'], /--redirect-root must be a URL starting with http/],
    [['domain', 'add', 'https://go.sandbox.localhost', '--redirect-404', 'mailto:me@example.com'], /--redirect-404 must start with http:\/\/ or https:\/\//],
    [['domain', 'update', '1', '--redirect-root', 'not a url'], /--redirect-root must be a URL starting with http/],
    [['domain', 'update', '1'], /nothing to change: give --redirect-root and\/or --redirect-404/],
    [['domain', 'update', '1', '--domain', 'https://new.example.com'], FIXED],
    [['domain', 'update', '1', 'https://new.example.com'], FIXED],
    [['domain', 'update', 'https://go.sandbox.localhost', '--redirect-root', 'https://example.com'], FIXED],
    [['domain', 'update', 'abc', '--redirect-root', 'https://example.com'], /ID must be a positive integer, got "abc"/],
    [['domain', 'delete', 'x1', '--yes'], /ID must be a positive integer/],
    [['domain', 'list', '--page', '0'], /--page must be a positive integer/],
  ])('%j exits 2', async (args, message) => {
    const r = await runCli(args, { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(fx.sandbox.requests).toHaveLength(0);
  });

  it('every domain command shows examples in its help', async () => {
    for (const sub of ['list', 'add', 'update', 'delete']) {
      const r = await runCli(['domain', sub, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`Examples:\\n  \\$ linkctl domain ${sub}\\b`));
    }
  });
});
