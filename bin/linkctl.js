#!/usr/bin/env node
// linkctl entry point. CommonJS (see bin/package.json): Node 20 takes ~6 ms longer to start
// from an ES module than from a CommonJS file, a quarter of its bare start, and the fast
// paths below load nothing else. `--version` answers from package.json, and `--help` prints
// dist/help.txt (rendered by the CLI at build time) when stdout is not a terminal (commander
// then wraps at 80 columns, as the file is); both write with writeSync, since creating
// process.stdout for a pipe costs ~3 ms. `__complete` (asked by the shell completion scripts
// at each TAB) is answered by dist/complete.js, a small entry that reads the config file and
// loads nothing else; a build without that entry falls back to the CLI's hidden `__complete`
// command, which gives the same answer. Everything else loads the CLI (dist/linkctl.js, ESM).
'use strict';
const { fstatSync, readFileSync, writeSync } = require('node:fs');
const { join } = require('node:path');

const argv = process.argv.slice(2);
const only = argv.length === 1 ? argv[0] : undefined;
const help = only === '--help' || only === '-h' ? prerenderedHelp() : undefined;
if (only === '--version' || only === '-V') print(`${require('../package.json').version}\n`);
else if (help !== undefined) print(help);
else start();

async function start() {
  const completer = argv[0] === '__complete' ? await import('../dist/complete.js').catch(() => undefined) : undefined;
  if (completer) return completer.complete(argv.slice(1), process.stdout, process.env);
  const { run } = await import('../dist/linkctl.js');
  await run(argv);
}

function print(text) {
  const bytes = Buffer.from(text);
  let done = 0;
  try {
    while (done < bytes.length) done += writeSync(1, bytes, done);
  } catch (error) {
    // A full non-blocking pipe gets the stream, which waits; a closed one (`| head -1`) is not our failure.
    if (error.code === 'EAGAIN') process.stdout.write(bytes.subarray(done));
    else if (error.code !== 'EPIPE') {
      process.stderr.write(`linkctl: cannot write to stdout (${error.code ?? error.message})\n`);
      process.exitCode = 1;
    }
  }
}

function prerenderedHelp() {
  try {
    return fstatSync(1).isCharacterDevice() ? undefined : readFileSync(join(__dirname, '../dist/help.txt'), 'utf8');
  } catch {
    return undefined;
  }
}
