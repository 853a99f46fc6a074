/**
 * Issue 39, hostile input on the surfaces around the API: the network guard on every request
 * that is not an API call (QR images a server names, `check` behind a proxy with NO_PROXY).
 * Every server here is on 127.0.0.1, port 0; the addresses refused are never connected to.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { BIN, cleanEnv, runCli, runMain, tempDir, useSandbox } from '../helpers.js';
import { parseOutputs } from './github-actions.js';

const fx = useSandbox();
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; port: number; seen: string[] }> {
  const seen: string[] = [];
  const s = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    handler(req, res);
  });
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  servers.push(s);
  const port = (s.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, port, seen };
}

/** Sets every `link` field in a JSON value to `link`. */
function relink(value: unknown, link: string): unknown {
  if (Array.isArray(value)) return value.map((v) => relink(v, link));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'link' && typeof v === 'string' ? link : relink(v, link)]));
  return value;
}

/** A server in front of the sandbox that answers as it does, but names `link` as every QR code's image. */
async function hostileFront(link: string): Promise<string> {
  const front = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => {
      const upstream = request(`${fx.sandbox.url}${req.url}`, { method: req.method, headers: { ...req.headers, host: new URL(fx.sandbox.url).host }, agent: false }, (answer) => {
        const body: Buffer[] = [];
        answer.on('data', (c: Buffer) => body.push(c)).on('end', () => {
          let text = Buffer.concat(body);
          if (req.url?.startsWith('/api/qr') && /json/.test(String(answer.headers['content-type']))) text = Buffer.from(JSON.stringify(relink(JSON.parse(text.toString('utf8')), link)));
          const headers = { ...answer.headers };
          delete headers['content-length'];
          delete headers['transfer-encoding'];
          res.writeHead(answer.statusCode ?? 502, headers).end(text);
        });
      });
      upstream.end(Buffer.concat(chunks));
    });
  });
  return front.url;
}

describe('QR images on private addresses are never requested (finding 1)', () => {
  it('qr get, qr update, qr download, export and check --qr refuse a code whose image is on loopback, 10/8, link-local metadata or a translated IPv6 form', async () => {
    const image = await listen((_req, res) => res.writeHead(200, { 'Content-Type': 'image/png' }).end('not reached'));
    const links = [
      `${image.url}/qr.png`,
      `http://localhost.:${image.port}/qr.png`,
      `http://x.localhost.:${image.port}/qr.png`,
      `http://[::ffff:0:7f00:1]:${image.port}/qr.png`,
      'http://10.255.255.1/qr.png',
      'http://169.254.169.254/latest/meta-data/',
    ];
    for (const link of links) {
      const env = { ...fx.env, LINKCTL_BASE_URL: await hostileFront(link), LINKCTL_CONFIG_DIR: tempDir() };
      const started = Date.now();
      const get = await runMain(['qr', 'get', '1', '--json'], { env });
      expect(get.code, link).toBe(0);
      expect(JSON.parse(get.stdout).content.unreadable, link).toMatch(/is a (loopback|private|cloud metadata) address.*; not requested|resolves to 127\.0\.0\.1, a loopback address; not requested/);
      const update = await runMain(['qr', 'update', '1', '--data', 'https://example.com/new'], { env });
      expect(update.stderr, link).toMatch(/not requested/);
      const download = await runMain(['qr', 'download', '1', '--file', join(tempDir(), 'x.png')], { env });
      expect(download.code, link).toBe(6);
      expect(download.stderr, link).toMatch(/not requested\nhint: linkctl requests no private, loopback or link-local address a server names/);
      const exported = await runMain(['export'], { env });
      expect(exported.code, link).toBe(0);
      expect(exported.stderr, link).toMatch(/could not be read from (its|their) image/);
      const check = await runMain(['check', '--qr', '--json'], { env });
      const qrRecord = (JSON.parse(check.stdout) as Array<{ qr: number | null; findings: Array<{ kind: string; detail: string }> }>).find((r) => r.qr === 1)!;
      expect(qrRecord.findings, link).toEqual([{ kind: 'qr-unreadable', detail: expect.stringMatching(/; not requested$/) }]);
      // Refused at once: 10.255.255.1 is never tried (it would hang until --timeout).
      expect(Date.now() - started, link).toBeLessThan(30_000);
    }
    expect(image.seen).toEqual([]);
  }, 120_000);

  it('the API\'s own origin is the user\'s choice: the sandbox\'s images on 127.0.0.1 are read; another origin is allowed by LINKCTL_CHECK_ALLOW_PRIVATE', async () => {
    const own = await runMain(['qr', 'get', '1', '--json'], { env: fx.env });
    expect(JSON.parse(own.stdout).content).toMatchObject({ type: 'link', unreadable: null });
    const image = await listen((_req, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('hello'));
    const env = { ...fx.env, LINKCTL_BASE_URL: await hostileFront(`${image.url}/qr.png`), LINKCTL_CHECK_ALLOW_PRIVATE: '127.0.0.1' };
    const allowed = await runMain(['qr', 'get', '1', '--json'], { env });
    expect(JSON.parse(allowed.stdout).content.unreadable).toMatch(/serves text\/plain that is not an image/);
    expect(image.seen).toEqual(['GET /qr.png']);
  });

  it('an SVG that takes long to draw is refused within --timeout, not the drawer\'s own 10 s', async () => {
    // Ten thousand translucent circles through five levels of <use>: resvg takes over 20 s.
    const levels = ['<g id="a0"><circle cx="50" cy="50" r="40" fill="#000" fill-opacity="0.01"/></g>'];
    for (let l = 1; l <= 5; l++) levels.push(`<g id="a${l}">${`<use href="#a${l - 1}"/>`.repeat(10)}</g>`);
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" viewBox="0 0 100 100"><defs>${levels.join('')}</defs><use href="#a5"/></svg>`;
    const image = await listen((_req, res) => res.writeHead(200, { 'Content-Type': 'image/svg+xml' }).end(svg));
    const env = { ...fx.env, LINKCTL_BASE_URL: await hostileFront(`${image.url}/qr.svg`), LINKCTL_CHECK_ALLOW_PRIVATE: '127.0.0.1' };
    const started = Date.now();
    const r = await runCli(['qr', 'get', '1', '--json', '--timeout', '1'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).content.unreadable).toMatch(/the SVG took more than 1 s to draw; refused/);
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(image.seen).toEqual(['GET /qr.svg']);
  }, 30_000);

  it('MCP check {qr: true} (an agent: never a private address, whatever the environment allows)', async () => {
    const image = await listen((_req, res) => res.writeHead(200, { 'Content-Type': 'image/png' }).end('not reached'));
    const base = await hostileFront(`${image.url}/qr.png`);
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: cleanEnv({ LINKCTL_BASE_URL: base, LINKCTL_API_KEY: fx.sandbox.key, LINKCTL_CONFIG_DIR: tempDir(), LINKCTL_CHECK_ALLOW_PRIVATE: 'all' }), stderr: 'pipe' });
    const client = new Client({ name: 'linkctl-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const r = (await client.callTool({ name: 'check', arguments: { qr: true } })) as { content: Array<{ text?: string }> };
      const { records } = JSON.parse(r.content[0]!.text!) as { records: Array<{ qr: number | null; findings: Array<{ detail: string }> }> };
      expect(records.find((x) => x.qr === 1)!.findings[0]!.detail).toMatch(/127\.0\.0\.1 is a loopback address; not requested$/);
    } finally {
      await client.close();
    }
    expect(image.seen).toEqual([]);
  });
});

describe('check behind a proxy: NO_PROXY names are resolved and checked (finding 4)', () => {
  it.each([['*'], ['localhost.'], ['.localhost.,localhost.']])('NO_PROXY=%s: localhost. and x.localhost. are blocked, neither the destination nor the proxy asked', async (noProxy) => {
    const destination = await listen((_req, res) => res.writeHead(200).end('ok'));
    const proxy = await listen((_req, res) => res.writeHead(200).end('proxied'));
    for (const id of [1, 2]) await runCli(['link', 'delete', String(id), '--yes'], { env: fx.env });
    for (const [alias, host] of [['bare', 'localhost.'], ['sub', 'x.localhost.']]) {
      const add = await runCli(['link', 'add', `http://${host}:${destination.port}/`, '--alias', alias], { env: fx.env });
      expect(add.code).toBe(0);
    }
    const r = await runMain(['check', '--json'], { env: { ...fx.env, LINKCTL_CONFIG_DIR: tempDir(), HTTP_PROXY: proxy.url, NO_PROXY: noProxy } });
    const records = (JSON.parse(r.stdout) as Array<{ alias: string; status: string; error: string }>).filter((x) => x.alias === 'bare' || x.alias === 'sub');
    expect(records.map((x) => [x.alias, x.status]).sort()).toEqual([['bare', 'blocked'], ['sub', 'blocked']]);
    expect(records.find((x) => x.alias === 'bare')!.error).toMatch(/^localhost\. resolves to 127\.0\.0\.1, a loopback address; not requested$/);
    expect(destination.seen).toEqual([]);
    expect(proxy.seen).toEqual([]);
  });
});

/** `linkctl mcp` with its flags and environment; closed after the test. */
async function mcp(flags: string[], env: Record<string, string>) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...flags], env: cleanEnv({ LINKCTL_CONFIG_DIR: tempDir(), ...env }), stderr: 'pipe' });
  const client = new Client({ name: 'linkctl-test', version: '1.0.0' });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ text?: string }> };
  return { call, close: () => client.close() };
}

describe('MCP: api writes need confirm (finding 5), answers are bounded (finding 10)', () => {
  it('api PUT, POST and DELETE without confirm: refused, nothing sent; with confirm: true, sent', async () => {
    const s = await mcp(['--allow-writes', '--allow-deletes'], { LINKCTL_BASE_URL: fx.sandbox.url, LINKCTL_API_KEY: fx.sandbox.key });
    try {
      for (const [method, path] of [['PUT', 'api/url/1/update'], ['POST', 'api/url/add'], ['DELETE', 'api/url/1/delete']]) {
        const before = fx.sandbox.requests.length;
        const r = await s.call('api', { method, path, input: undefined });
        expect(r.isError, method).toBe(true);
        expect(r.content[0]!.text, method).toMatch(new RegExp(`^linkctl: ${method} /?api/url.* may change or delete data on the server \\(not done: it needs \`confirm: true\`\\)[\\s\\S]*call api again with the same arguments and \`confirm: true\``));
        expect(fx.sandbox.requests.length - before, method).toBe(0);
      }
      const before = fx.sandbox.requests.length;
      const done = await s.call('api', { method: 'DELETE', path: 'api/url/1/delete', confirm: true });
      expect(done.isError).toBeFalsy();
      expect(fx.sandbox.requests.slice(before).map((x) => `${x.method} ${x.path}`)).toEqual(['DELETE /api/url/1/delete']);
      const read = await s.call('api', { method: 'GET', path: 'api/account' });
      expect(read.isError).toBeFalsy();
    } finally {
      await s.close();
    }
  });

  it('link_get and account_get on a 30 MB record: under 100 KB, saying which field was cut and how to get it whole', async () => {
    const huge = 'A'.repeat(30 * 1024 * 1024);
    const server = await listen((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      if (req.url?.startsWith('/api/account')) return res.end(JSON.stringify({ error: 0, data: { id: 1, email: 'a@b.invalid', username: 'big', bio: huge } }));
      if (req.url?.startsWith('/api/url/1')) return res.end(JSON.stringify({ error: 0, id: 1, details: { id: 1, shorturl: 'http://s.invalid/a', longurl: 'https://a.invalid/', title: 'big', description: huge }, data: { clicks: 0 } }));
      res.end(JSON.stringify({ error: 1, message: 'not here' }));
    });
    const s = await mcp([], { LINKCTL_BASE_URL: server.url, LINKCTL_API_KEY: 'key-123456789' });
    try {
      for (const [tool, field] of [['link_get', 'description'], ['account_get', 'bio']] as const) {
        const r = await s.call(tool, tool === 'link_get' ? { id: 1 } : {});
        const size = Buffer.byteLength(r.content.map((c) => c.text ?? '').join(''));
        expect(size, tool).toBeLessThan(110_000);
        const record = JSON.parse(r.content[0]!.text!);
        expect(JSON.stringify(record), tool).toMatch(/AAAA… \[cut by linkctl mcp: 31,456,280 more characters\]/);
        expect(r.content.map((c) => c.text).join('\n'), tool).toMatch(new RegExp(`Cut: the answer \\([\\d,]+ bytes\\) is over 100,000 bytes: this field was cut to its first 1,000 characters: [\\w.]*${field}\\. To get it whole, ask the user to run \`linkctl ${tool.replace('_', ' ')} \\.\\.\\. --json\``));
      }
    } finally {
      await s.close();
    }
  }, 60_000);
});

describe('lows', () => {
  it('the Action\'s `report` input holding a line break is one output value: it writes no output of its own to GITHUB_OUTPUT', () => {
    const dir = tempDir();
    // A linkctl that prints an empty report: the step's outputs are what is looked at.
    writeFileSync(join(dir, 'linkctl'), '#!/bin/sh\necho "[]"\n');
    chmodSync(join(dir, 'linkctl'), 0o755);
    const outputFile = join(dir, 'output');
    writeFileSync(outputFile, '');
    const report = join(dir, 'health.json\nchanges=true\nextra=evil');
    const r = spawnSync('bash', [join(import.meta.dirname, '../../action/job.sh')], { encoding: 'utf8', env: { PATH: `${dir}:${process.env.PATH}`, LINKCTL_JOB: 'check', LINKCTL_REPORT: report, GITHUB_OUTPUT: outputFile, RUNNER_TEMP: dir } });
    expect(r.status, r.stderr).toBe(0);
    expect(parseOutputs(readFileSync(outputFile, 'utf8'))).toEqual({ report });
    expect(readFileSync(report, 'utf8')).toBe('[]\n');
  });

  it('a server answering success with the id of an existing link that goes elsewhere: said as such, no alias "undefined"', async () => {
    const server = await listen((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const old = { id: 1, alias: 'old', shorturl: `http://127.0.0.1:${(req.socket.localPort)}/old`, longurl: 'https://example.com/old', title: '', description: '', clicks: 0, date: '2026-01-01 00:00:00' };
      if (req.url?.startsWith('/api/urls')) return res.end(JSON.stringify({ error: 0, data: { result: 1, perpage: 1000, currentpage: 1, nextpage: null, maxpage: 1, urls: [old] } }));
      if (req.url?.startsWith('/api/url/add')) return res.end(JSON.stringify({ error: 0, id: 1, shorturl: old.shorturl }));
      if (req.url?.startsWith('/api/url/1')) return res.end(JSON.stringify({ error: 0, id: 1, details: old, data: { clicks: 0 } }));
      res.end(JSON.stringify({ error: 1, message: 'not here' }));
    });
    const r = await runMain(['link', 'add', 'https://example.com/new'], { env: { LINKCTL_BASE_URL: server.url, LINKCTL_API_KEY: 'key-123456789', LINKCTL_CONFIG_DIR: tempDir() } });
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('undefined');
    expect(r.stderr).toMatch(/^linkctl: the server answered success with link 1 \(http:\/\/127\.0\.0\.1:\d+\/old\), an existing link that goes to https:\/\/example\.com\/old, not a new link to https:\/\/example\.com\/new$/m);
    expect(server.seen.filter((s) => s.startsWith('POST'))).toEqual(['POST /api/url/add']);
  });
});

describe('the key in data a server sends (the last low)', () => {
  it('a server that echoes the API key into link data: link list, check and plan -o markdown print [REDACTED], and export writes no key', async () => {
    const key = fx.sandbox.key;
    // The seeded links point at example.com: gone, so that check asks DNS about no real name.
    for (const id of [1, 2]) await runCli(['link', 'delete', String(id), '--yes'], { env: fx.env });
    const add = await runMain(['api', 'POST', '/api/url/add', '-f', `url=https://example.invalid/?k=${key}`, '-f', 'custom=echoed', '-f', `metatitle=the key is ${key}`], { env: fx.env });
    expect(add.code, add.stderr).toBe(0);
    const outputs: string[] = [];
    for (const args of [['link', 'list'], ['link', 'list', '--json'], ['link', 'list', '-o', 'csv'], ['check', '--json']]) {
      const r = await runCli(args, { env: { ...fx.env, LINKCTL_CONFIG_DIR: tempDir() } });
      expect(r.stdout, args.join(' ')).toContain('[REDACTED]');
      outputs.push(r.stdout, r.stderr);
    }
    const file = join(tempDir(), 'account.yaml');
    writeFileSync(file, 'version: 1\nlinks:\n  - alias: echoed\n    url: https://example.invalid/new\n    title: a new title\n');
    const plan = await runCli(['plan', '-f', file, '-o', 'markdown'], { env: fx.env });
    expect(plan.stdout).toContain('[REDACTED]');
    outputs.push(plan.stdout, plan.stderr);
    const exported = join(tempDir(), 'export.yaml');
    expect((await runCli(['export', '--no-qr-content', '--file', exported], { env: fx.env })).code).toBe(0);
    outputs.push(readFileSync(exported, 'utf8'));
    for (const out of outputs) expect(out).not.toContain(key);
  });
});
