/**
 * Prose on a terminal wraps at word boundaries (issue 42): at 80 columns notes broke mid-word
 * (`embedde|d`, `short li|nk`) where the terminal wrapped them. One function, src/output/wrap.ts,
 * used by warnings, the notes under tables and records, errors and hints, and the check view.
 */
import { describe, expect, it } from 'vitest';
import { wrapMessage, wrapProse } from '../../src/output/wrap.js';
import { runMain, useSandbox } from '../helpers.js';

const fx = useSandbox();

describe('wrapping prose', () => {
  it('breaks between words, continuation lines indented, no line wider than the terminal, the words kept', () => {
    const note = 'one snapshot so far (2026-11-28 16:51 UTC): these are the totals then. Trends appear after the next snapshot; take one a day with cron';
    const wrapped = wrapMessage(note, 40);
    const lines = wrapped.split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(40);
    for (const line of lines.slice(1)) expect(line).toMatch(/^ {2}\S/);
    expect(wrapped.replace(/\n +/g, ' ')).toBe(note);
    // Not a terminal, or one too narrow to say: as it is.
    expect(wrapMessage(note, undefined)).toBe(note);
  });

  it('leaves indented lines whole (a command to copy), and cuts a long URL after a separator', () => {
    expect(wrapMessage('  15 6 * * *  linkctl --sandbox stats snapshot -q --db /a/rather/long/path/to/the/history.db', 40)).toBe('  15 6 * * *  linkctl --sandbox stats snapshot -q --db /a/rather/long/path/to/the/history.db');
    expect(wrapProse('https://example.com/a/very/long/path/that/goes/on/and/on', 30)).toEqual(['https://example.com/a/very/', 'long/path/that/goes/on/and/on']);
  });

  it('an error and its hint on a terminal (100 columns here) wrap at words; in a pipe they stay one line each', async () => {
    const args = ['link', 'add', 'https://sandbox.localhost/docs', '--alias', 'docs', '--if-exists', 'fail', '--meta-title', 'Docs'];
    const piped = await runMain(args, { env: fx.env });
    expect(piped.code).toBe(1);
    const [error, hint] = piped.stderr.trimEnd().split('\n');
    expect(error!.length).toBeGreaterThan(100);
    const terminal = await runMain(args, { env: fx.env, tty: true });
    const lines = terminal.stderr.trimEnd().split('\n');
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(100);
    expect(terminal.stderr.trimEnd().replace(/\n {2}/g, ' ')).toBe(`${error}\n${hint}`);
  });
});
