/**
 * What a script relies on when things are slightly off: output flags checked before a change is
 * sent, secrets kept out of --dry-run, data types kept under --fields, the config file left alone
 * by failed commands, and one rule for the profile in use.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir, useSandbox } from '../helpers.js';

const fx = useSandbox({ quirks: false }); // documented shapes: numbers stay numbers

describe('output flags are checked before anything changes', () => {
  it.each([
    [['qr', 'add', '--type', 'text', '--data', 'hi']],
    [['pixel', 'add', '--type', 'gapixel', '--name', 'GA', '--tag', 'G-12345']],
    [['domain', 'add', 'https://go.example.net']],
    [['campaign', 'add', '--name', 'Autumn']],
    [['channel', 'add', '--name', 'News']],
    [['link', 'add', 'https://example.com/new']],
    [['link', 'update', '1', '--description', 'x']],
  ])('%j with an unknown --fields name exits 2 and sends nothing', async (args) => {
    const r = await runCli([...args, '--fields', 'nope'], { env: fx.env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--fields: unknown field "nope"; known fields: id/);
    expect(fx.sandbox.requests).toHaveLength(0);
  });

  it('rejects --json with another --output before deleting', async () => {
    const r = await runCli(['qr', 'delete', '1', '--yes', '--json', '-o', 'csv'], { env: fx.env });
    expect(r.code).toBe(2);
    expect(fx.sandbox.requests).toHaveLength(0);
  });
});

describe('--dry-run', () => {
  it('redacts passwords in the request it prints', async () => {
    for (const [args, stdin] of [
      [['account', 'update', '--password-stdin'], 'hunter2-secret'],
      [['link', 'add', 'https://example.com/p', '--password-stdin'], 'hunter2-secret'],
      [['qr', 'add', '--type', 'wifi', '--ssid', 'Office', '--wifi-password', 'hunter2-secret'], ''],
    ] as const) {
      const r = await runCli([...args, '--dry-run', '--json'], { env: fx.env, stdin });
      expect(r.code).toBe(0);
      expect(r.stdout + r.stderr).not.toContain('hunter2-secret');
      expect(JSON.stringify(JSON.parse(r.stdout).body)).toContain('[REDACTED]');
    }
    // nothing changing is sent (link add looks the long URL up first: a read)
    expect(fx.sandbox.requests.filter((q) => q.method !== 'GET')).toHaveLength(0);
  });

  it('prints one compact line with -o ndjson', async () => {
    const r = await runCli(['qr', 'delete', '1', '--dry-run', '-o', 'ndjson'], { env: fx.env });
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ dryRun: true, method: 'DELETE' });
  });
});

describe('--fields in JSON keeps the data', () => {
  it('keeps null, numbers and arrays as the API sent them', async () => {
    const qr = JSON.parse((await runCli(['qr', 'get', '3', '--json', '--fields', 'id,clicks'], { env: fx.env })).stdout);
    expect(qr).toEqual({ id: 3, clicks: 0 });
    const links = JSON.parse((await runCli(['link', 'list', '--json', '--fields', 'id,channel'], { env: fx.env })).stdout);
    for (const link of links) expect(Array.isArray(link.channel)).toBe(true);
  });
});

describe('the config file and the profile in use', () => {
  it('is not created by a failed logout or switch', async () => {
    const dir = tempDir();
    expect((await runCli(['auth', 'logout', '-p', 'nope'], { env: { LINKCTL_CONFIG_DIR: dir } })).code).toBe(7);
    expect((await runCli(['auth', 'switch', 'nope'], { env: { LINKCTL_CONFIG_DIR: dir } })).code).toBe(7);
    expect(existsSync(join(dir, 'config.json'))).toBe(false);
  });

  it('keeps keys it does not know, and refuses a file whose profiles it cannot read', async () => {
    const dir = tempDir();
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ telemetry: false, profiles: {} }), { mode: 0o600 });
    await runCli(['auth', 'login', '--with-token', '--no-verify', '--base-url', 'https://x.example'], { env: { LINKCTL_CONFIG_DIR: dir }, stdin: 'key-123456789' });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ telemetry: false, defaultProfile: 'default' });

    writeFileSync(file, JSON.stringify({ profiles: 'x' }));
    const r = await runCli(['auth', 'login', '--with-token', '--no-verify', '--base-url', 'https://x.example'], { env: { LINKCTL_CONFIG_DIR: dir }, stdin: 'key-123456789' });
    expect(r.code).toBe(7);
    expect(readFileSync(file, 'utf8')).toBe(JSON.stringify({ profiles: 'x' }));
  });

  it('renews the key of the profile in use when login is given no --profile', async () => {
    const dir = tempDir();
    const env = { LINKCTL_CONFIG_DIR: dir };
    await runCli(['auth', 'login', '--with-token', '--no-verify', '-p', 'work', '--base-url', 'https://x.example'], { env, stdin: 'old-key-123456' });
    const r = await runCli(['auth', 'login', '--with-token', '--no-verify'], { env, stdin: 'new-key-654321' });
    expect(r.code).toBe(0);
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(config).toEqual({ defaultProfile: 'work', profiles: { work: { baseUrl: 'https://x.example', apiKey: 'new-key-654321' } } });
  });

  it('auth status works from the environment even when the config file is corrupt', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'config.json'), '{');
    const r = await runCli(['auth', 'status', '--no-verify'], { env: { ...fx.env, LINKCTL_CONFIG_DIR: dir } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^key\t\S+, from LINKCTL_API_KEY$/m);
    expect(r.stderr).toMatch(/not valid JSON/);
  });

  it('rejects a key with a line break in it with exit 3, not a crash', async () => {
    const r = await runCli(['qr', 'list'], { env: { ...fx.env, LINKCTL_API_KEY: `${fx.sandbox.key}\nextra` } });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/LINKCTL_API_KEY contains white space or control characters/);
    expect(r.stderr).not.toContain(fx.sandbox.key);
    expect(fx.sandbox.requests).toHaveLength(0);
  });
});
