/**
 * `export --redirects FORMAT` (issue 32, item 5): every link as a static redirect map, checked by
 * parsing each written file, with destinations and aliases that try to escape their line (quotes,
 * spaces, `$`, line breaks, `#`, `;`, `{}`). For nginx, the map is also checked by `nginx -t` and
 * served by nginx on a private Unix socket (Debian's nginx; skipped, saying why, where it is absent).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { csvRecords, runCli, runMain, sent, testFiles, useSandbox } from '../helpers.js';

const fx = useSandbox({ seed: { empty: true } });
const files = testFiles('linkctl-redirects-');

/** Destinations that would end a line, a string or a block, or read a variable, if written as they are. */
const HOSTILE = [
  'https://example.com/a"; return 200 "pwned',
  "https://example.com/b' return 200 'x",
  'https://example.com/c d$host${uri}{x}',
  'https://example.com/nl\nreturn 200 "line";\n#',
  'https://example.com/page#section;x',
  'https://example.com/q?x=${y}&z=`id`&w=a;b|c\\d',
  'https://example.com/%zz',
];
/** Aliases the product keeps as they are (src/model/aliases.ts), some of which a format cannot hold. */
const ALIASES = ['quote-a', 'quote-b', 'dollar', 'newline', 'fragment', 'query', 'badpercent'];

async function seed(): Promise<void> {
  for (const [i, url] of HOSTILE.entries()) {
    const r = await runMain(['api', 'POST', '/api/url/add', '-f', `url=${url}`, '-f', `custom=${ALIASES[i]}`], { env: fx.env });
    expect(r.code, r.stderr).toBe(0);
  }
  for (const [custom, url] of [['café', 'https://example.com/cafe'], ['Mixed', 'https://example.com/mixed'], ['we{ir}d', 'https://example.com/weird']]) {
    expect((await runMain(['api', 'POST', '/api/url/add', '-f', `url=${url}`, '-f', `custom=${custom}`], { env: fx.env })).code).toBe(0);
  }
  fx.sandbox.requests.length = 0;
}

/** What a browser would go to for `url`, decoded: the map's destination must mean the same. */
const meaning = (url: string) => decodeURIComponent(new URL(url).href.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'));
const destinationsOk = (written: string[]) => {
  for (const d of written) expect(d, d).toMatch(/^(https:\/\/example\.com|https:\/\/sandbox\.localhost)\/[A-Za-z0-9\-._~:/?#[\]@!&'()*+,;=%]*$/);
};

async function exported(format: string, extra: string[] = []): Promise<{ text: string; stderr: string }> {
  const out = join(files.root, `${format}-${Math.random().toString(36).slice(2)}`);
  const r = await runCli(['export', '--redirects', format, '--file', out, ...extra], { env: fx.env });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(new RegExp(`^Wrote \\d+ redirects \\(${format}\\) to `));
  return { text: readFileSync(out, 'utf8'), stderr: r.stderr };
}

/** Each hostile link's expected meaning, by its alias; the host of every short URL is the sandbox's. */
const expectedByAlias = () => Object.fromEntries([...HOSTILE.map((u, i) => [ALIASES[i]!, meaning(u)]), ['café', 'https://example.com/cafe'], ['mixed', 'https://example.com/mixed']]);
const HOST = '127.0.0.1';

describe('export --redirects', () => {
  it('reads the link list once, says what a static map cannot keep, and writes nothing to stdout but the map', async () => {
    await seed();
    const r = await runCli(['export', '--redirects', 'csv'], { env: fx.env });
    expect(r.code, r.stderr).toBe(0);
    expect(sent(fx.sandbox).map((q) => `${q.method} ${q.path}`)).toEqual(['GET /api/urls']);
    expect(r.stderr).toContain('note: A static map sends every visitor to the destination: geo, device and language targeting, passwords (the API does not say which links have one: a protected link opens without asking), expiry');
    expect(r.stderr).toContain('--details reads each link (10 requests) and names them');
    expect(r.stdout.split('\n')[0]).toBe('short_url,destination,status');
    // --json: the redirects as data, whatever the format (a map file is not JSON).
    const json = await runCli(['export', '--redirects', 'nginx', '--json'], { env: fx.env });
    const data = JSON.parse(json.stdout) as Array<{ shortUrl: string; destination: string; status: number }>;
    expect(data).toHaveLength(10);
    expect(data.find((d) => d.shortUrl.endsWith('/quote-a'))).toEqual({ shortUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1\/quote-a$/), destination: 'https://example.com/a%22;%20return%20200%20%22pwned', status: 302 });
  });

  it('nginx: a map whose every entry is one quoted key and one quoted value, that nginx -t accepts and nginx serves as written', async () => {
    await seed();
    const { text } = await exported('nginx');
    const body = text.split('\n').filter((l) => l && !l.startsWith('#'));
    const entries = body.slice(body.indexOf('map $host$uri $linkctl_redirect {') + 2, -1);
    expect(body.at(-1)).toBe('}');
    const map = new Map<string, string>();
    for (const line of entries) {
      const m = /^ {4}"((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)";$/.exec(line);
      expect(m, line).not.toBeNull();
      map.set(m![1]!.replace(/\\(.)/g, '$1'), m![2]!);
    }
    destinationsOk([...map.values()]);
    const expected = expectedByAlias();
    for (const [alias, dest] of Object.entries(expected)) {
      const key = [...map.keys()].find((k) => k.toLowerCase() === `${HOST}/${alias}`.toLowerCase());
      expect(key, alias).toBeDefined();
      expect(meaning(map.get(key!)!)).toBe(dest);
    }
    expect(map.get(`${HOST}/we{ir}d`)).toBe('https://example.com/weird'); // quoted: braces are text in nginx strings
    await nginxCheck(text, map);
  });

  it('apache: a RewriteMap text file of two words a line', async () => {
    await seed();
    const { text } = await exported('apache');
    const lines = text.split('\n').filter((l) => l && !l.startsWith('#'));
    const map = new Map(lines.map((l) => {
      const words = l.split(/\s+/);
      expect(words, l).toHaveLength(2);
      return words as [string, string];
    }));
    destinationsOk([...map.values()]);
    for (const [alias, dest] of Object.entries(expectedByAlias())) expect(meaning(map.get(`${HOST}/${alias}`.toLowerCase())!), alias).toBe(dest);
    expect(text).toContain('#   RewriteRule ^(/.*)$ ${linkctl:${lower:%{SERVER_NAME}$1}} [R=302,L,NE]');
  });

  it('caddy: one site block, a redir line each; a path a matcher would read as syntax is left out and said', async () => {
    await seed();
    const { text, stderr } = await exported('caddy');
    const lines = text.split('\n').filter((l) => l && !l.startsWith('#'));
    expect(lines[0]).toBe(`"${HOST}" {`);
    expect(lines.at(-1)).toBe('}');
    const map = new Map(lines.slice(1, -1).map((l) => {
      const m = /^\tredir (\/[^\s"{}*]+) "([^"\\{}\s]+)" 302$/u.exec(l);
      expect(m, l).not.toBeNull();
      return [m![1]!, m![2]!] as [string, string];
    }));
    destinationsOk([...map.values()]);
    for (const [alias, dest] of Object.entries(expectedByAlias())) expect(meaning(map.get(`/${alias === 'mixed' ? 'Mixed' : alias}`)!), alias).toBe(dest);
    expect(stderr).toContain(`note: ${HOST}/we%7Bir%7Dd: left out: a Caddy path matcher would read one of its characters as syntax`);
    expect(text).toContain(`# ${HOST}/we%7Bir%7Dd: left out`);
  });

  it('netlify: from, to and status a line, whitespace-separated; no placeholder and no comment inside a line', async () => {
    await seed();
    const { text } = await exported('netlify');
    const lines = text.split('\n').filter((l) => l && !l.startsWith('#'));
    const map = new Map(lines.map((l) => {
      const words = l.split(/\s+/);
      expect(words, l).toHaveLength(3);
      expect(words[2]).toBe('302!');
      expect(words.some((w) => w.startsWith('#')), l).toBe(false);
      expect(new URL(words[0]!).pathname, l).toMatch(/^\/[^:*/]+$/);
      return [decodeURIComponent(new URL(words[0]!).pathname.slice(1)).toLowerCase(), words[1]!] as [string, string];
    }));
    destinationsOk([...map.values()]);
    for (const [alias, dest] of Object.entries(expectedByAlias())) expect(meaning(map.get(alias)!), alias).toBe(dest);
    expect(map.get('we{ir}d')).toBe('https://example.com/weird');
  });

  it('cloudflare: a bulk-redirects CSV without a header; source without a scheme; csv: with a header', async () => {
    await seed();
    for (const format of ['cloudflare', 'csv']) {
      const { text } = await exported(format);
      const rows = csvRecords(text);
      if (format === 'csv') expect(rows.shift()).toEqual(['short_url', 'destination', 'status']);
      const map = new Map(rows.map((row) => {
        expect(row, row.join('|')).toHaveLength(3);
        expect(row[2]).toBe('302');
        const source = format === 'csv' ? row[0]! : `https://${row[0]}`;
        if (format === 'cloudflare') expect(row[0]).toMatch(new RegExp(`^${HOST.replace(/\./g, '\\.')}/`));
        return [decodeURIComponent(new URL(source).pathname.slice(1)).toLowerCase(), row[1]!] as [string, string];
      }));
      destinationsOk([...map.values()]);
      for (const [alias, dest] of Object.entries(expectedByAlias())) expect(meaning(map.get(alias)!), `${format} ${alias}`).toBe(dest);
    }
  });

  it('--details names the links whose targeting or expiry the map cannot keep: one more request a link', async () => {
    const add = await runMain(['link', 'add', 'https://example.com/promo', '--alias', 'promo', '--geo', 'Canada=https://example.ca/promo', '--expiry', '2035-01-01 00:00:00'], { env: fx.env });
    expect(add.code, add.stderr).toBe(0);
    expect((await runMain(['link', 'add', 'https://example.com/plain', '--alias', 'plain'], { env: fx.env })).code).toBe(0);
    fx.sandbox.requests.length = 0;
    const { text, stderr } = await exported('nginx', ['--details']);
    const asked = sent(fx.sandbox).map((q) => `${q.method} ${q.path}`);
    expect(asked[0]).toBe('GET /api/urls');
    expect(asked.slice(1)).toHaveLength(2);
    for (const one of asked.slice(1)) expect(one).toMatch(/^GET \/api\/url\/\d+$/);
    const note = `${HOST}/promo: geo targeting, expiry 2035-01-01 00:00:00 (the map goes on redirecting after it) not kept: every visitor goes to https://example.com/promo`;
    expect(stderr).toContain(`note: http://${HOST}:`);
    expect(stderr).toContain('/promo: geo targeting, expiry 2035-01-01 00:00:00 (the map goes on redirecting after it) not kept');
    expect(text).toMatch(new RegExp(`# http://${HOST.replace(/\./g, '\\.')}:\\d+${note.slice(HOST.length).replace(/[()]/g, '\\$&')}`));
    expect(stderr).not.toContain('/plain:');
  });
});

/** Where Debian puts nginx (not on a user's PATH), or on the PATH. */
function nginxBinary(): string | undefined {
  for (const candidate of ['/usr/sbin/nginx', ...(process.env.PATH ?? '').split(':').map((d) => join(d, 'nginx'))]) if (candidate && existsSync(candidate)) return candidate;
  return undefined;
}

/**
 * `nginx -t` on a configuration of our own that includes the map (a private prefix, no root paths),
 * then nginx itself on a Unix socket: every entry answers 302 with its destination as written, and
 * a path no entry has answers 404 (no injected `return` took effect).
 */
async function nginxCheck(mapText: string, map: Map<string, string>): Promise<void> {
  const nginx = nginxBinary();
  if (!nginx) {
    console.warn('nginx is not installed (looked in /usr/sbin and on PATH): the nginx -t check is skipped');
    return;
  }
  const prefix = join(files.root, `nginx-${Math.random().toString(36).slice(2)}`);
  mkdirSync(join(prefix, 'logs'), { recursive: true });
  mkdirSync(join(prefix, 'tmp'));
  writeFileSync(join(prefix, 'redirects.conf'), mapText);
  const socket = join(prefix, 'nginx.sock');
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((k) => `${k}_temp_path ${join(prefix, 'tmp')};`).join(' ');
  writeFileSync(
    join(prefix, 'nginx.conf'),
    `error_log ${join(prefix, 'logs', 'error.log')};\npid ${join(prefix, 'logs', 'nginx.pid')};\ndaemon off;\nmaster_process off;\nevents {}\nhttp {\n  access_log off;\n  ${temp}\n  include ${join(prefix, 'redirects.conf')};\n  server {\n    listen unix:${socket};\n    location / {\n      if ($linkctl_redirect) { return 302 $linkctl_redirect; }\n      return 404;\n    }\n  }\n}\n`,
  );
  const check = spawnSync(nginx, ['-t', '-q', '-e', join(prefix, 'logs', 'error.log'), '-p', prefix, '-c', join(prefix, 'nginx.conf')], { encoding: 'utf8' });
  expect(check.status, `${check.stderr}${readIfThere(join(prefix, 'logs', 'error.log'))}`).toBe(0);

  const server = spawn(nginx, ['-e', join(prefix, 'logs', 'error.log'), '-p', prefix, '-c', join(prefix, 'nginx.conf')], { stdio: 'ignore' });
  try {
    for (let waited = 0; !existsSync(socket); waited += 50) {
      if (waited > 20_000 || server.exitCode !== null) throw new Error(`nginx did not start: ${readIfThere(join(prefix, 'logs', 'error.log'))}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    for (const [key, dest] of map) {
      const path = key.slice(HOST.length);
      const answer = await viaSocket(socket, encodeURI(path).replace(/[{}]/g, encodeURIComponent));
      expect(answer, key).toEqual({ status: 302, location: dest });
    }
    expect((await viaSocket(socket, '/Quote-A')).location).toBe(map.get(`${HOST}/quote-a`)); // without regard to case, as servers match aliases
    expect(await viaSocket(socket, '/no-such-link')).toEqual({ status: 404, location: undefined });
  } finally {
    server.kill();
  }
}

const readIfThere = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : '');

function viaSocket(socketPath: string, path: string): Promise<{ status?: number; location?: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path, headers: { Host: HOST } }, (res) => {
      res.resume();
      resolve({ status: res.statusCode, location: res.headers.location });
    });
    req.on('error', reject);
    req.end();
  });
}
