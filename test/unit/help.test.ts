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
});
