#!/usr/bin/env node
// linkctl entry point. `--version` answers from package.json without loading the CLI.
import { readFileSync } from 'node:fs';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else {
  const { run } = await import('../dist/linkctl.js');
  await run(argv);
}
