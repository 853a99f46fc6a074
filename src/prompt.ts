/** Terminal prompts on stderr: a hidden one for secrets and a yes/no one. Loaded only when asking. */
import { createInterface } from 'node:readline';
import type { IO } from './io.js';
import { InterruptedError } from './errors.js';

/**
 * One question on the terminal. Resolves with the answer, or undefined when readline closes
 * without one (Ctrl-D on an empty line, end of input): left unsettled, linkctl would exit 0
 * having done nothing, or hang while something else (a --sandbox server) keeps it alive.
 * Ctrl-C rejects with InterruptedError (exit 130). Either way the cursor moves to a new line,
 * so the message that follows does not land after the question.
 */
function ask(io: IO, question: string, hidden: boolean): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: io.stdin as NodeJS.ReadableStream, output: io.stderr as NodeJS.WritableStream, terminal: true });
    if (hidden) {
      // Echo nothing the user types: only the question is written.
      const write = rl as unknown as { _writeToOutput: (s: string) => void };
      write._writeToOutput = (s: string) => {
        if (s.startsWith(question)) io.stderr.write(question);
      };
    }
    let settled = false;
    const finish = (answer: string | undefined, error?: Error) => {
      if (settled) return;
      settled = true;
      rl.close(); // emits 'close' again: ignored, settled
      // readline ends a visible answer's line itself; nothing else does.
      if (hidden || answer === undefined) io.stderr.write('\n');
      if (error) reject(error);
      else resolve(answer);
    };
    rl.on('SIGINT', () => finish(undefined, new InterruptedError()));
    rl.on('close', () => finish(undefined));
    rl.question(question, (answer) => finish(answer));
  });
}

/** A hidden prompt; Ctrl-D gives an empty answer, which the caller refuses. */
export function promptSecret(io: IO): (question: string) => Promise<string> {
  return async (question) => (await ask(io, question, true)) ?? '';
}

/** A line of visible text; Ctrl-D gives an empty answer. */
export function promptText(io: IO): (question: string) => Promise<string> {
  return async (question) => (await ask(io, question, false))?.trim() ?? '';
}

/** A yes/no question, no by default; Ctrl-D is no. */
export function confirm(io: IO): (question: string) => Promise<boolean> {
  return async (question) => /^y(es)?$/i.test((await ask(io, `${question} [y/N] `, false))?.trim() ?? '');
}
