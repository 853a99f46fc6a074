/** Terminal prompts on stderr: a hidden one for secrets and a yes/no one. Loaded only when asking. */
import { createInterface } from 'node:readline';
import type { IO } from './io.js';
import { InterruptedError } from './errors.js';

export function promptSecret(io: IO): (question: string) => Promise<string> {
  return (question) =>
    new Promise((resolve, reject) => {
      const input = io.stdin as NodeJS.ReadableStream;
      const rl = createInterface({ input, output: io.stderr as NodeJS.WritableStream, terminal: true });
      // Echo nothing the user types: only the question is written.
      const write = (rl as unknown as { _writeToOutput: (s: string) => void });
      write._writeToOutput = (s: string) => {
        if (s.startsWith(question)) io.stderr.write(question);
      };
      rl.on('SIGINT', () => {
        rl.close();
        reject(new InterruptedError());
      });
      rl.question(question, (answer) => {
        rl.close();
        io.stderr.write('\n');
        resolve(answer);
      });
    });
}

export function confirm(io: IO): (question: string) => Promise<boolean> {
  return (question) =>
    new Promise((resolve, reject) => {
      const rl = createInterface({ input: io.stdin as NodeJS.ReadableStream, output: io.stderr as NodeJS.WritableStream, terminal: true });
      rl.on('SIGINT', () => {
        rl.close();
        reject(new InterruptedError());
      });
      rl.question(`${question} [y/N] `, (answer) => {
        rl.close();
        resolve(/^y(es)?$/i.test(answer.trim()));
      });
    });
}
