/**
 * Every example in every `--help` runs against the embedded sandbox in real-server mode, with a
 * throwaway config folder (so the seed data), `--sandbox` and `--yes`. An example that is one
 * `linkctl` command with plain words runs in-process through the built CLI (runCli), its words split
 * as a shell splits them; one that needs a shell (a pipe, a redirection, a variable, a glob, a
 * comment) is run by a shell, with linkctl a process of its own.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import { BIN, cleanEnv, runCli, tempDir } from '../helpers.js';
import { browser, noBrowser } from '../browser.js';

function all(command: Command): Command[] {
  return [command, ...command.commands.filter((c) => c.name() !== 'help').flatMap(all)];
}

/**
 * The examples of a command's help as printed at 80 columns, after `$ `: a long one wraps, its
 * lines but the last ending in ` \`, and runs as printed (the shell joins the lines).
 */
function examples(command: Command): string[] {
  let help = '';
  command.configureOutput({ writeOut: (s) => (help += s), writeErr: () => undefined });
  command.outputHelp();
  const at = help.indexOf('\nExamples:\n');
  if (at < 0) return [];
  return [...help.slice(at).matchAll(/^ {2}\$ ((?:.* \\\n)*.*)$/gm)].map((m) => m[1]!);
}

/** An example on one line, for the NOT_RUN patterns. */
const oneLine = (example: string) => example.replace(/ \\\n */g, ' ');

/** One `linkctl` command of plain words and quotes: nothing a shell would expand, redirect or run besides. */
const plainCommand = (line: string) => /^linkctl [^|;&<>$`()*?[\]~#{}!\\]*$/.test(line);

/** The words of a plain command as a shell splits them: spaces apart, quotes taken off. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === ' ') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      if (end < 0) throw new Error(`an unclosed quote in: ${line}`);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else word = (word ?? '') + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** Examples that cannot run to an end here, and why. */
const NOT_RUN: Array<[RegExp, string]> = [
  [/^linkctl sandbox serve\b/, 'serves until stopped'],
  [/^linkctl (--sandbox )?listen\b/, 'receives webhooks until stopped (test/e2e/listen.test.ts runs it)'],
  [/\blinkctl auth /, 'logs in to a real server or changes saved profiles (test/e2e/auth.test.ts covers them)'],
  [/^linkctl account update --password$/, 'asks on a terminal'],
  [/^linkctl admin users add --username jane --email jane@example\.com$/, 'asks for the password on a terminal (test/e2e/admin.test.ts answers the prompt)'],
  [/\blinkctl completion /, 'installs into a shell (test/unit/completion tests the scripts)'],
  [/^LINKCTL_API_KEY=<printed key>/, 'needs the key a running `sandbox serve` prints'],
  [/--short https:\/\/go\.example\.com|--short go\.example\.com/, 'a branded short URL the seed lacks (test/e2e/link.test.ts covers --short)'],
  [/--db postgres:\/\//, 'a PostgreSQL server elsewhere (test/e2e/stats-postgres.test.ts starts one)'],
  // printed through headless Chromium: run where it is installed
  ...(browser ? [] : [[/^linkctl stats report .*--pdf /, `prints through headless Chromium (${noBrowser})`] as [RegExp, string]]),
  [/^linkctl mcp --profile work\b/, 'names a profile the user logged in as (test/e2e/mcp.test.ts runs the server with the sandbox key)'],
];

/**
 * A click history of the seed (two snapshots), for the `stats` examples, and a ledger of one write
 * (`log verify` refuses an empty ledger): copied for each example.
 */
const history = tempDir();
afterAll(() => rmSync(history, { recursive: true, force: true }));
beforeAll(async () => {
  for (const args of [['stats', 'snapshot', '-q'], ['stats', 'snapshot', '-q'], ['link', 'add', 'https://example.com/ledger-entry', '-q']]) {
    const r = await runCli(['--sandbox', ...args], { env: { LINKCTL_CONFIG_DIR: history } });
    if (r.code !== 0) throw new Error(`${args.join(' ')} for the examples: ${r.stderr}`);
  }
});

const program = buildProgram({ stdout: { write: () => true }, stderr: { write: () => true }, stdin: (async function* () {})(), env: {} }, () => async () => undefined);
const lines = [...new Set(all(program).flatMap(examples))];

describe('help examples', () => {
  it('finds examples in the help', () => {
    expect(lines.length).toBeGreaterThan(60);
  });

  it('runs wrapped examples as printed: some are wrapped at 80 columns', () => {
    expect(lines.filter((l) => l.includes(' \\\n')).length).toBeGreaterThan(3);
  });

  it('splits a plain command into words as a shell does, and sends the rest to a shell', () => {
    expect(shellWords(`linkctl qr add --type text --data 'Hello "world"' --name "Menu card"  -q`)).toEqual(['linkctl', 'qr', 'add', '--type', 'text', '--data', 'Hello "world"', '--name', 'Menu card', '-q']);
    expect(plainCommand('linkctl link list --search docs')).toBe(true);
    for (const shell of ['linkctl export > a.yaml', 'linkctl qr list -q | linkctl qr download --from -', 'linkctl link add "$URL"', 'linkctl domain add --from d.csv   # url', 'linkctl link list --search doc*']) expect(plainCommand(shell)).toBe(false);
  });

  it.each(lines.filter((l) => !NOT_RUN.some(([re]) => re.test(oneLine(l)))).map((l) => [l]))('%s', async (line) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'email.json'), '{"email":"someone@example.com","subject":"Hi","body":"Hello"}');
    writeFileSync(join(dir, 'message.txt'), 'Hello');
    writeFileSync(join(dir, 'policy.yaml'), 'version: 1\nrules:\n  forbid-insecure: true\n');
    // An account file that matches the seed: plan and apply examples have nothing to change (export and import write their own: they replace none without --force).
    if (!/^linkctl (export|import)/.test(line)) writeFileSync(join(dir, 'account.yaml'), 'version: 1\ncampaigns:\n  - name: Spring launch\n    public: true\n');
    // Exports for the import examples, under the names they give.
    for (const [name, fixture] of [['bitly-links.csv', 'bitly.csv'], ['short_urls.csv', 'shlink.csv'], ['links.csv', 'links.csv'], ['links.json', 'kutt.json'], ['yourls-links.csv', 'yourls-1252.csv']]) {
      copyFileSync(new URL(`../fixtures/import/${fixture}`, import.meta.url), join(dir, name));
    }
    mkdirSync(join(dir, 'state'));
    copyFileSync(join(history, 'state', 'history.db'), join(dir, 'state', 'history.db'));
    const env = { LINKCTL_CONFIG_DIR: dir, LINKCTL_SANDBOX_QUIRKS: '1', PASS: 'example password', NEW_PASSWORD: 'a new password', LINKCTL_API_KEY: undefined };
    try {
      const joined = oneLine(line);
      if (plainCommand(joined)) {
        const r = await runCli(['--sandbox', '--yes', ...shellWords(joined).slice(1)], { env, cwd: dir });
        expect(r.stderr).not.toMatch(/^linkctl: /m);
        // The sandbox people try has something for lint and check to find (spring-sale expires soon,
        // issue 53): their documented exit 1 for findings is what the example shows.
        expect(r.code).toBe(/^linkctl (lint(?! -f)\b|check .*--fail-on \S*expiring)/.test(joined) ? 1 : 0);
        return;
      }
      const script = `linkctl() { "${process.execPath}" "${BIN}" --sandbox --yes "$@"; }\n${line}`;
      const r = spawnSync('sh', ['-c', script], { env: cleanEnv(env), cwd: dir, encoding: 'utf8', timeout: 20_000, input: '' });
      expect(r.stderr).not.toMatch(/^linkctl: /m);
      expect(r.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
