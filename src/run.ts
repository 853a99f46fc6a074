/** The process side of linkctl: real streams, Ctrl-C, and the exit code. `main()` does the rest. */
import { main } from './cli.js';

export async function run(argv: string[]): Promise<void> {
  if (argv.includes('--debug')) process.setSourceMapsEnabled?.(true);
  const controller = new AbortController();
  let interrupts = 0;
  process.on('SIGINT', () => {
    // First Ctrl-C aborts what is in flight and lets main() report it; a second one leaves at once.
    if (++interrupts > 1) process.exit(130);
    controller.abort();
  });
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    // `linkctl qr list | head -1` closes the pipe early: that is not a failure of ours.
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  const code = await main(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    signal: controller.signal,
  });
  // Never process.exit() after writing to stdout: a pipe would lose what is still buffered.
  process.exitCode = code;
}
