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
    expect(r.stdout).toMatch(/Global Options:/);
  });

  it('documents the exit codes in the top-level help', async () => {
    const r = await runMain(['--help']);
    expect(r.stdout).toMatch(/Exit codes:\n {2}0 +success/);
    expect(r.stdout).toMatch(/130 +interrupted/);
  });

  it('shows help and exits 2 without a command, or with an unknown one', async () => {
    expect((await runMain([])).code).toBe(2);
    const unknown = await runMain(['qrr', 'list']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command 'qrr'/);
    expect((await runMain(['qr'])).code).toBe(2);
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
