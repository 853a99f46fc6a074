/** The process side of linkctl: real streams, Ctrl-C, and the exit code. `main()` does the rest. */
import { writeSync } from 'node:fs';
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
  // Output that cannot be written (`> /dev/full`, a closed stderr) is a failure: one line, exit 1
  // (or the command's own failure code), never a stack trace, never exit 0 with the output lost.
  let changed = false;
  let lost = false;
  const fail = (stream: 'stdout' | 'stderr', error: NodeJS.ErrnoException) => {
    if (lost) return;
    lost = true;
    process.exitCode = Number(process.exitCode) || 1;
    if (stream === 'stderr') return; // nowhere left to say it
    const line = `linkctl: cannot write to stdout (${error.code ?? error.message}): the output is lost${changed ? '; the change was made on the server all the same' : ''}\n`;
    try {
      writeSync(2, line);
    } catch {
      // stderr is gone too: the exit code says it.
    }
  };
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    // `linkctl qr list | head -1` closes the pipe early: that is not a failure of ours.
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    fail('stdout', error);
  });
  process.stderr.on('error', (error: NodeJS.ErrnoException) => fail('stderr', error));
  const code = await main(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    signal: controller.signal,
    onChange: () => (changed = true),
  });
  // Never process.exit() after writing to stdout: a pipe would lose what is still buffered.
  process.exitCode = lost ? code || 1 : code;
}
