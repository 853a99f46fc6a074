// Runs linkctl in this process exactly as bin/linkctl.js does, and at exit writes the process's
// peak resident set size (KiB, process.resourceUsage().maxRSS) to the file $BENCH_MAXRSS_FILE:
// Node 20 cannot read a child's rusage, so the child reports its own.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  const usage = process.resourceUsage();
  writeFileSync(process.env.BENCH_MAXRSS_FILE, String(usage.maxRSS));
  // CPU time (ms), when asked: less sensitive than wall time to other work on a shared machine.
  if (process.env.BENCH_CPU_FILE) writeFileSync(process.env.BENCH_CPU_FILE, String((usage.userCPUTime + usage.systemCPUTime) / 1000));
});
const { run } = await import('../../dist/linkctl.js');
await run(process.argv.slice(2));
