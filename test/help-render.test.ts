/**
 * Help without the CLI: bin/linkctl.js serves every command's help from templates rendered at
 * build time (dist/help/), wrapped at the terminal's width by its own copy of commander's
 * wrapping. Here that copy is held to commander itself: for every command (aliases included)
 * and several terminal widths, the served text equals what the CLI prints on a terminal that
 * wide. Run after a build (`npm test` builds first).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli.js';
import type { IO } from '../src/io.js';
import { BIN, cleanEnv, runCli } from './helpers.js';

const HELP_DIR = fileURLToPath(new URL('../dist/help', import.meta.url));
const bin = createRequire(import.meta.url)(BIN) as {
  renderHelp: (template: string, width: number | undefined) => string;
  helpTopic: (argv: string[]) => string[] | undefined;
};
const topics = readdirSync(HELP_DIR)
  .filter((f) => f.endsWith('.txt'))
  .map((f) => f.slice(0, -4).split('.').slice(1));

/** What the CLI prints for `argv` with stdout a terminal `columns` wide (undefined: not a terminal). */
async function cliHelp(argv: string[], columns: number | undefined): Promise<string> {
  let out = '';
  const io: IO = {
    stdout: { write: (s: string) => ((out += s), true), isTTY: columns !== undefined, columns },
    stderr: { write: () => true },
    stdin: (async function* () {})(),
    env: {},
  };
  expect(await main(argv, io)).toBe(0);
  return out;
}

describe('help served by bin/linkctl.js from build-time templates', () => {
  it('has a template for the program and every command, aliases included', () => {
    const names = topics.map((t) => t.join(' '));
    for (const name of ['', 'qr', 'qr add', 'qr list', 'qr ls', 'link rm', 'auth token', 'api', 'sandbox serve']) expect(names).toContain(name);
  });

  it.each([undefined, 0, 10, 20, 30, 40, 60, 80, 100, 120, 132, 250])('equals the CLI\'s help for every command, at width %s', async (columns) => {
    for (const topic of topics) {
      const served = bin.renderHelp(readFileSync(join(HELP_DIR, `${['linkctl', ...topic].join('.')}.txt`), 'utf8'), columns);
      expect(served, `linkctl ${topic.join(' ')} --help at ${columns}`).toBe(await cliHelp([...topic, '--help'], columns));
    }
  });

  it.each([60, 80, 120])('fits a terminal %s columns wide: no line of any command\'s help is longer', async (columns) => {
    const long: string[] = [];
    for (const topic of topics) {
      for (const line of (await cliHelp([...topic, '--help'], columns)).split('\n')) {
        if (line.length > columns) long.push(`linkctl ${topic.join(' ')} --help: ${line}`);
      }
    }
    expect(long).toEqual([]);
  });

  it('wraps on word boundaries: the words at 60 columns are those of unwrapped help, and examples rejoin', async () => {
    const words = (text: string) => text.replace(/ \\\n/g, ' ').split(/\s+/).filter(Boolean);
    const examples = (text: string) => [...text.matchAll(/^ {2}\$ ((?:.* \\\n)*.*)$/gm)].map((m) => m[1]!.replace(/ \\\n */g, ' ').replace(/ {2,}/g, ' '));
    let wrappedExamples = 0;
    for (const topic of topics) {
      const narrow = await cliHelp([...topic, '--help'], 60);
      const wide = await cliHelp([...topic, '--help'], 10_000);
      expect(words(narrow), `linkctl ${topic.join(' ')} --help`).toEqual(words(wide));
      expect(examples(narrow), `linkctl ${topic.join(' ')} --help`).toEqual(examples(wide));
      wrappedExamples += (narrow.match(/ \\\n/g) ?? []).length;
    }
    expect(wrappedExamples).toBeGreaterThan(20);
  });

  it('answers --help, -h and help <command> only; anything else is the CLI\'s', () => {
    expect(bin.helpTopic(['qr', 'add', '--help'])).toEqual(['qr', 'add']);
    expect(bin.helpTopic(['help', 'qr', 'add'])).toEqual(['qr', 'add']);
    expect(bin.helpTopic(['-h'])).toEqual([]);
    expect(bin.helpTopic(['--json', 'qr', '--help'])).toBeUndefined();
    expect(bin.helpTopic(['../../etc', '--help'])).toBeUndefined();
    expect(bin.helpTopic(['qr', 'list'])).toBeUndefined();
  });

  it('the built CLI prints the same as commander for a command in a pipe, and help <command>', async () => {
    const expected = await cliHelp(['link', 'add', '--help'], undefined);
    expect(await runCli(['link', 'add', '--help'])).toEqual({ code: 0, stdout: expected, stderr: '' });
    expect(await runCli(['help', 'link', 'add'])).toEqual({ code: 0, stdout: expected, stderr: '' });
    const unknown = await runCli(['help', 'nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^linkctl: unknown command "nope"/);
  });

  const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
  it.skipIf(!hasScript)('on a terminal (script(1), 72 columns) wraps at the terminal\'s width, as the CLI does (skipped without script(1))', async () => {
    for (const args of [['qr', 'add', '--help'], ['--help']]) {
      const r = spawnSync('script', ['-qec', `stty cols 72 rows 30; exec '${process.execPath}' '${BIN}' ${args.join(' ')}`, '/dev/null'], { env: cleanEnv(), encoding: 'utf8', timeout: 20_000 });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout.replace(/\r\n/g, '\n')).toBe(await cliHelp(args, 72));
    }
  });
});
