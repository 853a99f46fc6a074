/**
 * Issue 39: redirect maps of short URLs whose host or path a server made hostile. Every format's
 * keys are literals: an nginx key never starts with `~` (a regular expression), a Caddy host is
 * quoted and never a placeholder or a directive, Cloudflare's CSV is not disarmed as a
 * spreadsheet, and no control, C1 or bidi character reaches a map (or the terminal it is
 * printed on). Checked with each real tool where this machine has it (`nginx -t`, `caddy adapt`,
 * `apache2 -t`); a check whose tool is absent is skipped, saying so.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvRecords, runCli, tempDir } from '../helpers.js';

/** Short URLs a hostile server gives its links, and where each goes. */
const LINKS: Array<[shorturl: string, longurl: string]> = [
  ['http://~./*', 'https://attacker.invalid/all'],
  ['http://~(./x', 'https://attacker.invalid/paren'],
  ['https://a"b.invalid/q', 'https://attacker.invalid/quote'],
  ['https://a}b.invalid/q', 'https://attacker.invalid/brace'],
  ['https://{$home}.invalid/q', 'https://attacker.invalid/env'],
  ['https://a,b.invalid/q', 'https://attacker.invalid/comma'],
  ['https://import/q', 'https://attacker.invalid/import'],
  ['https://-x.localhost/x', 'https://example.invalid/dash'],
  ['https://s.localhost/csi%C2%9B2J', 'https://example.invalid/c1'],
  ['https://s.localhost/rtl%E2%80%AEgpj', 'https://example.invalid/bidi'],
  ['https://s.localhost/ok', 'https://example.invalid/ok'],
];

let server: Server;
let env: Record<string, string>;
beforeAll(async () => {
  server = createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    if (!req.url?.startsWith('/api/urls')) return res.end(JSON.stringify({ error: 1, message: 'not here' }));
    const urls = LINKS.map(([shorturl, longurl], i) => ({ id: i + 1, alias: `a${i}`, shorturl, longurl, title: '', description: '', clicks: 0, date: '2026-01-01 00:00:00' }));
    res.end(JSON.stringify({ error: 0, data: { result: urls.length, perpage: 1000, currentpage: 1, nextpage: null, maxpage: 1, urls } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  env = { LINKCTL_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, LINKCTL_API_KEY: 'key-123456789', LINKCTL_CONFIG_DIR: tempDir() };
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const LEFT_OUT_HOSTS = ['~.', '~(.', 'a"b.invalid', 'a}b.invalid', '{$home}.invalid', 'a,b.invalid'];
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

async function map(format: string): Promise<{ stdout: string; stderr: string }> {
  const r = await runCli(['export', '--redirects', format], { env });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout, 'a raw control, C1 or bidi character on stdout').not.toMatch(RAW);
  expect(r.stderr).not.toMatch(RAW);
  return r;
}

const tool = (paths: string[]) => paths.find((p) => existsSync(p));

describe('redirect maps from hostile short URLs (findings 7, 8, 9 and the Cloudflare low)', () => {
  it('every format: hosts that are not plain names are left out and named; control, C1 and bidi paths are left out; nothing raw on stdout', async () => {
    for (const format of ['nginx', 'apache', 'caddy', 'netlify', 'cloudflare', 'csv']) {
      const { stdout, stderr } = await map(format);
      for (const host of LEFT_OUT_HOSTS) expect(stderr, `${format} ${host}`).toContain(`: left out: its host is not a plain host name or IP address`);
      expect(stderr.match(/left out: its host is not a plain host name/g), format).toHaveLength(LEFT_OUT_HOSTS.length);
      expect(stderr.match(/left out: its path holds a control, C1 or bidi character/g), format).toHaveLength(2);
      expect(stdout, format).toContain('https://example.invalid/ok');
      expect(stdout, format).not.toContain('attacker.invalid/all');
    }
  });

  it('nginx: no key starts with ~, and nginx -t accepts the map', async () => {
    const { stdout } = await map('nginx');
    const keys = [...stdout.matchAll(/^ {4}"((?:[^"\\]|\\.)*)" /gm)].map((m) => m[1]!);
    expect(keys).toEqual(['-x.localhost/x', 'import/q', 's.localhost/ok']);
    for (const key of keys) expect(key.startsWith('~')).toBe(false);
    const nginx = tool(['/usr/sbin/nginx', '/usr/bin/nginx']);
    if (!nginx) return void console.warn('nginx is not installed: the nginx -t check is skipped');
    const prefix = tempDir();
    mkdirSync(join(prefix, 'logs'));
    writeFileSync(join(prefix, 'redirects.conf'), stdout);
    writeFileSync(join(prefix, 'nginx.conf'), `error_log ${join(prefix, 'logs', 'error.log')};\npid ${join(prefix, 'nginx.pid')};\nevents {}\nhttp {\n  include ${join(prefix, 'redirects.conf')};\n  server { listen unix:${join(prefix, 's.sock')}; location / { if ($linkctl_redirect) { return 302 $linkctl_redirect; } return 404; } }\n}\n`);
    const check = spawnSync(nginx, ['-t', '-q', '-e', join(prefix, 'logs', 'error.log'), '-p', prefix, '-c', join(prefix, 'nginx.conf')], { encoding: 'utf8' });
    expect(check.status, check.stderr).toBe(0);
  });

  it('caddy: hosts quoted, `import` left out, no placeholder anywhere, and caddy adapt gives the redirects as written', async () => {
    const { stdout, stderr } = await map('caddy');
    expect(stderr).toContain('https://import/q: left out: Caddy reads the host "import" as its import directive');
    expect(stdout).not.toMatch(/\{\$/);
    expect(stdout.split('\n').filter((l) => l && !l.startsWith('#'))).toEqual(['"-x.localhost" {', '\tredir /x "https://example.invalid/dash" 302', '}', '"s.localhost" {', '\tredir /ok "https://example.invalid/ok" 302', '}']);
    const caddy = tool(['/usr/bin/caddy', '/usr/local/bin/caddy']);
    if (!caddy) return void console.warn('caddy is not installed: the caddy adapt check is skipped');
    const dir = tempDir();
    writeFileSync(join(dir, 'Caddyfile'), stdout);
    const adapted = spawnSync(caddy, ['adapt', '--config', join(dir, 'Caddyfile'), '--adapter', 'caddyfile'], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir, home: 'EXPANDED' } });
    expect(adapted.status, adapted.stderr).toBe(0);
    expect(adapted.stdout).not.toContain('EXPANDED');
    const config = JSON.stringify(JSON.parse(adapted.stdout));
    expect(config).toContain('"host":["-x.localhost"]');
    expect(config).toContain('"Location":["https://example.invalid/ok"]');
  });

  it('apache: apache2 -t accepts the configuration the map\'s comments give, with the map', async () => {
    const { stdout } = await map('apache');
    expect(stdout.split('\n').filter((l) => l && !l.startsWith('#'))).toEqual(['-x.localhost/x https://example.invalid/dash', 'import/q https://attacker.invalid/import', 's.localhost/ok https://example.invalid/ok']);
    const apache = tool(['/usr/sbin/apache2']);
    if (!apache || !existsSync('/usr/lib/apache2/modules/mod_rewrite.so')) return void console.warn('apache2 (with mod_rewrite) is not installed: the apache2 -t check is skipped');
    const dir = tempDir();
    writeFileSync(join(dir, 'map.txt'), stdout);
    const directives = stdout.split('\n').filter((l) => /^# {3}Rewrite/.test(l)).map((l) => l.slice(4).replace('/etc/apache2/linkctl-redirects.txt', join(dir, 'map.txt')));
    expect(directives).toHaveLength(5);
    writeFileSync(join(dir, 'httpd.conf'), `ServerRoot ${dir}\nLoadModule mpm_event_module /usr/lib/apache2/modules/mod_mpm_event.so\nLoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so\nLoadModule rewrite_module /usr/lib/apache2/modules/mod_rewrite.so\nListen 127.0.0.1:65080\nPidFile ${join(dir, 'pid')}\nErrorLog ${join(dir, 'error.log')}\nServerName s.localhost\n${directives.join('\n')}\n`);
    const check = spawnSync(apache, ['-t', '-f', join(dir, 'httpd.conf')], { encoding: 'utf8', env: { PATH: process.env.PATH, APACHE_RUN_DIR: dir } });
    expect(check.status, check.stderr).toBe(0);
  });

  it('cloudflare: a plain CSV, no formula guard (-x.localhost/x stays as it is)', async () => {
    const cloudflare = csvRecords((await map('cloudflare')).stdout);
    expect(cloudflare.map((r) => r[0])).toEqual(['-x.localhost/x', 'import/q', 's.localhost/ok']);
    const csv = csvRecords((await map('csv')).stdout);
    expect(csv.map((r) => r[0])).toEqual(['short_url', 'https://-x.localhost/x', 'https://import/q', 'https://s.localhost/ok']);
  });
});
