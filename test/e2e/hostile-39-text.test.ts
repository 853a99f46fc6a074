/**
 * Issue 39: text a server or a file gave, on every path to a terminal or a generated file
 * (import previews, YAML exports, plan), and what an export holds: no wifi password in the clear,
 * no schema under a package name the project does not own.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { runCli, runMain, tempDir, useSandbox } from '../helpers.js';

const fx = useSandbox();
/** What a terminal acts on, or what reorders text: never raw on any output. */
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

describe('text made safe at every output (finding 9)', () => {
  it('import csv: a url cell holding ESC ] 0 ; … BEL and ESC [ 2 J is refused, named with its escapes shown; a U+202E title is escaped in the file on stdout and read back as it was', async () => {
    const dir = tempDir();
    const file = join(dir, 'in.csv');
    writeFileSync(file, 'url,alias,title\n"https://example.com/\u001b]0;pwned\u0007x\u001b[2J",aaa1,plain\nhttps://example.com/ok,aaa2,"evil\u202egpj.exe"\n');
    const refused = await runCli(['import', 'csv', file, '--map', 'url=url,alias=alias,title=title'], { env: fx.env });
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('in.csv:2: destination holds a control character, got "https://example.com/\\u001b]0;pwned\\u0007x\\u001b[2J"');
    expect(refused.stderr).not.toMatch(RAW);
    const r = await runCli(['import', 'csv', file, '--map', 'url=url,alias=alias,title=title', '--skip-invalid'], { env: fx.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(RAW);
    expect(r.stderr).not.toMatch(RAW);
    const links = (parse(r.stdout) as { links: Array<{ alias: string; url: string; title?: string }> }).links;
    expect(links.map((l) => l.alias)).toEqual(['aaa2']);
    expect(links[0]!.title).toBe('evil\u202egpj.exe');
  });

  it('plan: a url holding a NUL is refused, naming the file and the field; nothing is sent but the reads', async () => {
    const file = join(tempDir(), 'account.yaml');
    writeFileSync(file, 'version: 1\nlinks:\n  - alias: nul-link\n    url: "https://example.com/a\\0b"\n');
    const r = await runMain(['plan', '-f', file], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/account\.yaml.*url.*holds a control character/);
    expect(fx.sandbox.requests.filter((q) => q.method !== 'GET')).toEqual([]);
  });

  it('export: a title holding U+202E and an escape is written as \\u escapes in YAML and JSON, and read back the same', async () => {
    const add = await runMain(['api', 'POST', '/api/url/add', '-f', 'url=https://example.com/rtl', '-f', 'custom=rtl-link', '-f', 'metatitle=evil\u202egpj.exe \u001b[31mred\u009b'], { env: fx.env });
    expect(add.code, add.stderr).toBe(0);
    for (const format of ['yaml', 'json']) {
      const r = await runCli(['export', '--no-qr-content', '--format', format], { env: fx.env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout, format).not.toMatch(RAW);
      const link = (parse(r.stdout) as { links: Array<{ alias: string; title?: string }> }).links.find((l) => l.alias === 'rtl-link')!;
      expect(link.title, format).toBe('evil\u202egpj.exe \u001b[31mred\u009b');
    }
  });
});

describe('exports hold no secret and name no package (finding 14)', () => {
  it('a wifi code\'s password read from its image is not written: a reference to the environment in its place (issue 53, 3), said; --include-secrets writes it', async () => {
    const r = await runCli(['export'], { env: fx.env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('welcome123');
    expect(r.stdout).toMatch(/- name: Office wifi\n {4}type: wifi\n {4}data:\n {6}ssid: Guest\n {6}pass: "\$\{env:WIFI_PASSWORD_OFFICE_WIFI\}"\n/);
    expect(r.stderr).toContain('note: 1 wifi QR code\'s password is written as a reference to the environment (--include-secrets writes it); apply reads it from: WIFI_PASSWORD_OFFICE_WIFI ("Office wifi").');
    const file = join(tempDir(), 'account.yaml');
    const included = await runCli(['export', '--include-secrets', '--file', file], { env: fx.env });
    expect(included.code, included.stderr).toBe(0);
    const wifi = (parse(readFileSync(file, 'utf8')) as { qr: Array<{ name: string; data?: { pass?: string } }> }).qr.find((q) => q.name === 'Office wifi')!;
    expect(wifi.data?.pass).toBe('welcome123');
  });

  it('the schema is referenced as a file beside the export (which export --schema writes), never under a package name on a CDN', async () => {
    const yaml = await runCli(['export', '--no-qr-content'], { env: fx.env });
    expect(yaml.stdout.split('\n').slice(0, 2)).toEqual(['# yaml-language-server: $schema=./linkctl.schema.json', '# (the schema, for an editor\'s hints: linkctl export --schema > linkctl.schema.json)']);
    const json = await runCli(['export', '--no-qr-content', '--json'], { env: fx.env });
    expect(JSON.parse(json.stdout).$schema).toBe('./linkctl.schema.json');
    for (const out of [yaml.stdout, json.stdout]) expect(out).not.toMatch(/unpkg|jsdelivr|https:\/\/[^\s"]*linkctl@/);
  });
});
