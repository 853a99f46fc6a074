/** The process side of linkctl: real streams, Ctrl-C, and the exit code. `main()` does the rest. */
import { closeSync, fstatSync, openSync, writeSync } from 'node:fs';
import { isatty } from 'node:tty';
import { main } from './cli.js';

// The built entry's main(), for the tests that run the CLI in-process through the bundle bin/linkctl.js loads.
export { main };

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
  // a command that streams (listen) stops and says why when its reader goes away
  const closedListeners: Array<(code: string) => void> = [];
  let toldClosed = false;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' && closedListeners.length) {
      if (!toldClosed) for (const stopped of closedListeners) stopped(error.code);
      toldClosed = true;
      return;
    }
    // `linkctl qr list | head -1` closes the pipe early: that is not a failure of ours.
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    fail('stdout', error);
  });
  process.stderr.on('error', (error: NodeJS.ErrnoException) => fail('stderr', error));
  const code = await main(argv, {
    stdout: Object.assign(process.stdout, { isFile: regularFile(1) }),
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    signal: controller.signal,
    onChange: () => (changed = true),
    releaseTerminal,
    onStdoutClosed: (stopped) => closedListeners.push(stopped),
  });
  // Never process.exit() after writing to stdout: a pipe would lose what is still buffered.
  process.exitCode = lost ? code || 1 : code;
}

/**
 * When it exits, Node puts back the terminal modes it found at start-up on each of fds 0-2 that
 * is a terminal (ResetStdio, nodejs/node#35536), even from the background. A `sandbox serve &`
 * starts while the shell's line editor has echo off, and on `kill %1` restores that after the
 * shell has restored its own: the terminal is left without echo. Node skips an fd that was
 * reopened on another file, and the streams do not need fds 0-2 on a terminal: libuv opens the
 * terminal again for each stream and writes through that descriptor (`_handle.fd`). So each fd
 * whose stream has its own descriptor is pointed at /dev/null; the output still shows.
 */
function releaseTerminal(): void {
  const streams = [process.stdin, process.stdout, process.stderr] as Array<{ _handle?: { fd?: number } }>;
  for (const [fd, stream] of streams.entries()) {
    const own = stream._handle?.fd;
    if (!isatty(fd) || typeof own !== 'number' || own <= 2) continue; // the stream writes through fd itself: leave it
    closeSync(fd);
    // The lowest free descriptor, so fd again: fds below it are open (or were reopened just now).
    const reopened = openSync('/dev/null', fd === 0 ? 'r' : 'w');
    if (reopened !== fd) closeSync(reopened); // fd stays closed, which Node skips as well
  }
}

/** Whether file descriptor `fd` is a regular file (not a terminal, a pipe or a socket). */
function regularFile(fd: number): boolean {
  try {
    return fstatSync(fd).isFile();
  } catch {
    return false;
  }
}
