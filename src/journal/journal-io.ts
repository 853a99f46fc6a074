/**
 * The bulk journal's file handling, shared by the journal (./journal.ts) and its lock
 * (./lock.ts): reading a file whole by descriptor, and the errors of a folder that cannot take
 * a line (a full disk above all).
 */
import { constants, fstatSync, readSync } from 'node:fs';
import { CliError, ConfigError, ExitCode } from '../errors.js';

/** The journal's folder could not take a line: a full disk, above all. Exit 1; what was done stands. */
export class JournalWriteError extends CliError {
  constructor(
    message: string,
    hint: string,
    override readonly cause: NodeJS.ErrnoException,
  ) {
    super(message, ExitCode.api, hint);
  }
}
export const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
export const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? 'error';
export const causeOf = (error: unknown) => {
  const e = error as NodeJS.ErrnoException;
  return e.code ? `${e.code}: ${(e.message.match(/^\w+: ([^,]+)/) ?? [])[1] ?? e.message}` : String(error);
};
export function readAll(fd: number): Buffer {
  const size = fstatSync(fd).size;
  const buffer = Buffer.alloc(size);
  let at = 0;
  while (at < size) {
    const n = readSync(fd, buffer, at, size - at, at);
    if (n <= 0) break;
    at += n;
  }
  return buffer.subarray(0, at);
}
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export function unwritable(path: string, error: unknown): CliError {
  const code = codeOf(error);
  if (code === 'ENOSPC') {
    return new JournalWriteError(`cannot write the journal in ${path} (${causeOf(error)}); nothing was sent`, 'free some space there (or set LINKCTL_CONFIG_DIR), then run again', error as NodeJS.ErrnoException);
  }
  return new ConfigError(`cannot use the bulk journal ${path} (${causeOf(error)}); nothing was sent`, 'check the owner and permissions of the config folder, or set LINKCTL_CONFIG_DIR to a folder you can write');
}
