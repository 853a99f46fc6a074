// Runs linkctl in this process exactly as bin/linkctl.js does, and at exit writes the process's
// peak resident set size (KiB, process.resourceUsage().maxRSS) to the file $BENCH_MAXRSS_FILE:
// Node 20 cannot read a child's rusage, so the child reports its own.
import { writeFileSync } from 'node:fs';

process.on('exit', () => writeFileSync(process.env.BENCH_MAXRSS_FILE, String(process.resourceUsage().maxRSS)));
const { run } = await import('../../dist/linkctl.js');
await run(process.argv.slice(2));
