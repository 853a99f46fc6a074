#!/usr/bin/env node
// linkctl entry point. `--version` answers from package.json without loading the CLI, and
// `__complete` (asked by the shell completion scripts at each TAB) from dist/complete.js,
// a small entry that reads the config file and loads nothing else; a build without that
// entry falls back to the CLI's hidden `__complete` command, which gives the same answer.
// `--help` prints dist/help.txt, rendered by the CLI at build time, when stdout is not a
// terminal (commander then wraps at 80 columns, as the file is); a terminal, or a build
// without the file, gets the CLI.
import { fstatSync, readFileSync } from 'node:fs';

const argv = process.argv.slice(2);
const completer = argv[0] === '__complete' ? await import('../dist/complete.js').catch(() => undefined) : undefined;
const help = argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h') ? prerenderedHelp() : undefined;
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else if (help !== undefined) {
  process.stdout.write(help);
} else if (completer) {
  completer.complete(argv.slice(1), process.stdout, process.env);
} else {
  const { run } = await import('../dist/linkctl.js');
  await run(argv);
}

function prerenderedHelp() {
  try {
    return fstatSync(1).isCharacterDevice() ? undefined : readFileSync(new URL('../dist/help.txt', import.meta.url), 'utf8');
  } catch {
    return undefined;
  }
}
