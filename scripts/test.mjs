// `npm test`: the typecheck, the build and every test, in that order, each timed. Prints on stderr
// how long each part took, in seconds of the clock and of CPU (this process's children, read from
// /proc where there is one), so that a slow suite says where its minutes go. Arguments go to vitest
// (`npm test -- test/e2e/link.test.ts`). Exits with the first failing part's code.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const local = (path) => fileURLToPath(new URL(`../${path}`, import.meta.url));
const parts = [
  ['typecheck', [local('node_modules/typescript/bin/tsc'), '--noEmit']],
  ['build', [local('scripts/build.mjs')]],
  ['tests', [local('node_modules/vitest/vitest.mjs'), 'run', ...process.argv.slice(2)]],
];

/** CPU seconds of the children this process has waited for (user + system), or undefined off Linux. */
function childrenCpu() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields 16 and 17 of proc(5), cutime and cstime, counted from field 3 here; clock ticks of 1/100 s
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return undefined;
  }
}

const timings = [];
let failed = 0;
const started = Date.now();
for (const [name, args] of parts) {
  const wall = Date.now();
  const cpu = childrenCpu();
  const run = spawnSync(process.execPath, args, { stdio: 'inherit' });
  const cpuAfter = childrenCpu();
  timings.push(`${name} ${((Date.now() - wall) / 1000).toFixed(1)} s${cpu === undefined ? '' : ` (CPU ${(cpuAfter - cpu).toFixed(1)} s)`}`);
  if (run.status !== 0) {
    failed = run.status ?? 1;
    break;
  }
}
const cpu = childrenCpu();
process.stderr.write(`npm test: ${timings.join(', ')}; ${((Date.now() - started) / 1000).toFixed(1)} s in all${cpu === undefined ? '' : `, CPU ${cpu.toFixed(1)} s`}${failed ? ' (stopped at the first failure)' : ''}\n`);
process.exitCode = failed;
