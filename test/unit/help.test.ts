/** Every command explains itself: help with examples, and the exit codes at the top. */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import { runMain } from '../helpers.js';

function leaves(command: Command, path: string[] = []): string[][] {
  const visible = command.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden && c.name() !== 'help');
  if (visible.length === 0) return [path];
  return visible.flatMap((c) => leaves(c, [...path, c.name()]));
}

const program = buildProgram(
  { stdout: { write: () => true }, stderr: { write: () => true }, stdin: (async function* () {})(), env: {} },
  () => async () => undefined,
);
const commands = leaves(program);

describe('help', () => {
  it('covers every resource', () => {
    expect(commands.map((c) => c[0])).toEqual(expect.arrayContaining(['auth', 'account', 'qr', 'link', 'domain', 'campaign', 'channel', 'pixel', 'overlay', 'splash', 'api', 'completion', 'sandbox']));
    expect(commands.length).toBeGreaterThan(35);
  });

  it.each(commands.map((c) => [c.join(' ')]))('`linkctl %s --help` has examples, exit 0', async (path) => {
    const r = await runMain([...path.split(' '), '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Examples:\n {2}\$ .*linkctl /);
    // Its own options, and the global ones named once at the end, not described (issue 42).
    expect(r.stdout).not.toMatch(/Global Options:/);
    const words = r.stdout.replace(/\s+/g, ' ').trimEnd();
    expect(words.endsWith(`. \`linkctl ${path} --help-all\` describes them.`), words.slice(-200)).toBe(true);
    expect(words).toMatch(/ Global options, anywhere on the line: -p\/--profile, --base-url, --api-path, --as-user, --json, -o\/--output, [^.]*--insecure-http, --policy, --override\. `linkctl/);
    expect(r.stdout).not.toContain('longest wait for the rate limit'); // --max-wait's description
  });

  it.each([['campaign', 'add'], ['account', 'get'], ['link', 'list']])('`linkctl %s %s --help-all` describes the global options after its own', async (...path) => {
    const r = await runMain([...path, '--help-all']);
    expect(r.code).toBe(0);
    const own = r.stdout.indexOf('\nOptions:\n');
    const globals = r.stdout.indexOf('\nGlobal Options:\n');
    expect(own).toBeGreaterThan(0);
    expect(globals).toBeGreaterThan(own);
    expect(r.stdout.slice(globals)).toMatch(/--max-wait <seconds> +longest wait for the rate limit/);
    expect(r.stdout).not.toMatch(/describes them/);
  });

  it('documents the exit codes in the top-level help', async () => {
    const r = await runMain(['--help']);
    expect(r.stdout).toMatch(/Exit codes:\n {2}0 +success/);
    expect(r.stdout).toMatch(/130 +interrupted/);
  });

  it('a group run bare (linkctl, linkctl account) lists its commands on stdout, exit 0; an unknown command is exit 2', async () => {
    const bare = await runMain([]);
    expect([bare.code, bare.stderr]).toEqual([0, '']);
    expect(bare.stdout).toMatch(/^Usage: linkctl \[options\] \[command\]/);
    for (const group of [['account'], ['qr'], ['stats'], ['auth']]) {
      const r = await runMain(group);
      expect([r.code, r.stderr], group.join(' ')).toEqual([0, '']);
      expect(r.stdout).toMatch(new RegExp(`^Usage: linkctl ${group.join(' ')} \\[options\\] \\[command\\]\n[^]*\nCommands:\n  \\w`));
    }
    const unknown = await runMain(['qrr', 'list']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command 'qrr'/);
    const sub = await runMain(['account', 'nope']);
    expect(sub.code).toBe(2);
    expect(sub.stderr).toMatch(/unknown command 'nope'/);
  });

  it('`linkctl help qr add` shows the help of qr add, as gh does', async () => {
    const r = await runMain(['help', 'qr', 'add']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe((await runMain(['qr', 'add', '--help'])).stdout);
    expect(r.stdout).toMatch(/^Usage: linkctl qr add /);
    expect((await runMain(['help', 'qr', 'ls'])).stdout).toMatch(/^Usage: linkctl qr list\|ls /);
    expect((await runMain(['help'])).stdout).toMatch(/^Usage: linkctl \[options\] \[command\]/);
  });

  it('`linkctl help nope` is a usage error with a suggestion', async () => {
    const unknown = await runMain(['help', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toBe('linkctl: unknown command "nope"\nhint: run `linkctl --help` to see the commands\n');
    const close = await runMain(['help', 'qr', 'ad']);
    expect(close.code).toBe(2);
    expect(close.stderr).toBe('linkctl: unknown command "qr ad" (did you mean qr add?)\nhint: run `linkctl qr --help` to see the commands\n');
  });

  it.each([
    [['qr', 'lst'], "linkctl: unknown command 'lst' (did you mean one of list, ls?)\nhint: run `linkctl qr --help` for usage\n"],
    [['-p', 'x', 'qr', 'list', '--nope'], "linkctl: unknown option '--nope'\nhint: run `linkctl qr list --help` for usage\n"],
    [['api', 'GET'], "linkctl: missing required argument 'path'\nhint: run `linkctl api --help` for usage\n"],
  ])('commander\'s usage error %j is in linkctl\'s style: a linkctl: line, then the hint', async (args, stderr) => {
    const r = await runMain(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(stderr);
  });
});
