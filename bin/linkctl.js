#!/usr/bin/env node
// linkctl entry point. CommonJS (see bin/package.json): Node 20 takes ~6 ms longer to start
// from an ES module than from a CommonJS file, a quarter of its bare start, and the fast
// paths below load nothing else. `--version` answers from package.json. Help (`--help`,
// `<command> --help`, `help <command>`) is served from files rendered by the CLI at build
// time: dist/help.txt for `--help` in a pipe (as commander prints it there, 80 columns), and
// otherwise a template from dist/help/, wrapped here at the terminal's width exactly as
// commander would (renderHelp below mirrors its Help.boxWrap; a test compares the two for
// every command at several widths). Both write with writeSync, since creating
// process.stdout for a pipe costs ~3 ms. `__complete` (asked by the shell completion scripts
// at each TAB) is answered by dist/complete.cjs, a small CommonJS file that reads the config
// file and loads nothing else (require()d: an import() would start Node's ESM loader first);
// a build without it falls back to the CLI's hidden `__complete` command, which gives the
// same answer. Everything else loads the CLI (dist/linkctl.js, ESM).
'use strict';
const { fstatSync, readFileSync, writeSync } = require('node:fs');
const { join } = require('node:path');

if (require.main === module) {
  const argv = process.argv.slice(2);
  const only = argv.length === 1 ? argv[0] : undefined;
  const help = helpText(argv);
  if (only === '--version' || only === '-V') print(`${require('../package.json').version}\n`);
  else if (help !== undefined) print(help);
  else start(argv);
} else {
  module.exports = { renderHelp, helpTopic };
}

async function start(argv) {
  const completer = argv[0] === '__complete' ? fastCompleter() : undefined;
  if (completer) return completer.complete(argv.slice(1), process.stdout, process.env);
  let cli;
  try {
    cli = await import('../dist/linkctl.js');
  } catch (error) {
    // A clone before its build (installing runs no script, so nothing builds by itself).
    if (error.code !== 'ERR_MODULE_NOT_FOUND' || !String(error.url ?? error.message).includes('dist/linkctl.js')) throw error;
    process.stderr.write(`linkctl: ${join(__dirname, '..', 'dist')} is missing: build it with \`npm run build\` in ${join(__dirname, '..')}\n`);
    process.exitCode = 1;
    return;
  }
  await cli.run(argv);
}

/** dist/complete.cjs, or undefined when it cannot be loaded (a build without it): the CLI answers then. */
function fastCompleter() {
  try {
    return require('../dist/complete.cjs');
  } catch {
    return undefined;
  }
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

/** The command path whose help argv asks for (`[]` for the program), or undefined. */
function helpTopic(argv) {
  const last = argv[argv.length - 1];
  const topic = argv[0] === 'help' ? argv.slice(1) : last === '--help' || last === '-h' ? argv.slice(0, -1) : undefined;
  // Command names only: anything else (an option, a typo) is the CLI's to answer.
  return topic && topic.every((name) => /^[a-z][a-z0-9-]*$/.test(name)) ? topic : undefined;
}

/** The help text for argv from the build's files, or undefined (the CLI answers then). */
function helpText(argv) {
  const topic = helpTopic(argv);
  if (!topic) return undefined;
  try {
    const tty = fstatSync(1).isCharacterDevice();
    if (!tty && topic.length === 0) return readFileSync(join(__dirname, '../dist/help.txt'), 'utf8');
    const template = readFileSync(join(__dirname, '../dist/help', `${['linkctl', ...topic].join('.')}.txt`), 'utf8');
    // The CLI's width (src/cli.ts, getOutHelpWidth): the terminal's columns, else 80.
    return renderHelp(template, tty ? terminalColumns() : undefined);
  } catch {
    return undefined;
  }
}

/**
 * The terminal's width, as process.stdout.columns gives it, without creating process.stdout:
 * that loads the stream and net modules, ~15 ms, half of Node's start. The TTY handle alone
 * costs ~0.2 ms; should it be unavailable (a future Node), process.stdout answers.
 */
function terminalColumns() {
  try {
    const { TTY } = process.binding('tty_wrap');
    const size = [];
    const handle = new TTY(1, {});
    const failed = handle.getWindowSize(size);
    handle.close();
    if (!failed && typeof size[0] === 'number') return size[0];
  } catch {
    // Fall through.
  }
  return process.stdout.columns;
}

/**
 * A template (src/help-templates.ts) wrapped for a terminal `columns` wide (80 when not a
 * terminal or it does not say) as commander does: each marked paragraph is wrapped at the
 * width + its offset (not at all under its minimum width), each line but the last ending in
 * the marker's suffix, and its continuation lines are indented to the column where it starts.
 * Spaces kept from breaking (\uE003, in examples' quotes) become spaces again.
 */
function renderHelp(template, columns) {
  const width = columns || 80;
  return template.replace(/\uE000(-?\d+),(\d+)(?:,([^\uE001]*))?\uE001([^\uE002]*)\uE002/g, (_, offset, min, suffix, text, at, whole) => {
    const column = at - (whole.lastIndexOf('\n', at - 1) + 1);
    const lines = boxWrap(text, width + Number(offset), Number(min)).split('\n');
    const last = lines.length - 1;
    return lines.map((line, i) => (suffix && i < last ? line + suffix : line)).join(`\n${' '.repeat(column)}`).replace(/\uE003/g, ' ');
  });
}

/** commander's Help.boxWrap (lib/help.js), for text without colours. */
function boxWrap(str, width, minWidthToWrap) {
  if (width < minWidthToWrap) return str;
  const lines = [];
  for (const line of str.split(/\r\n|\n/)) {
    const chunks = line.match(/[\s]*[^\s]+/g);
    if (chunks === null) {
      lines.push('');
      continue;
    }
    let sum = [chunks.shift()];
    let sumWidth = sum[0].length;
    for (const chunk of chunks) {
      if (sumWidth + chunk.length <= width) {
        sum.push(chunk);
        sumWidth += chunk.length;
        continue;
      }
      lines.push(sum.join(''));
      const next = chunk.trimStart();
      sum = [next];
      sumWidth = next.length;
    }
    lines.push(sum.join(''));
  }
  return lines.join('\n');
}
