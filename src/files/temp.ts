/** Temporary files of linkctl's own, made where nobody can guess or plant them (below every layer: no context, no output). */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, openSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** A spool file of linkctl's own (stdin of `--from -`): exclusive, unguessable, private. */
export function privateTempPath(dir: string, prefix: string): string {
  return join(dir, `${prefix}-${randomBytes(16).toString('hex')}.tmp`);
}

/**
 * A temporary file made now in `dir`, to be written and then renamed into place: a name nobody can
 * guess (`privateTempPath`), created exclusively and through no symlink (O_EXCL, O_NOFOLLOW), so a
 * link planted in the folder is never written through. Its path and a descriptor open for writing.
 */
export function openTempFile(dir: string, prefix: string, mode = 0o600): { path: string; fd: number } {
  const path = privateTempPath(dir, prefix);
  return { path, fd: openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), mode) };
}

/**
 * `file` replaced whole: `write` fills a temporary file beside it (made as `openTempFile` makes
 * it), which is closed and renamed over `file`, so a reader sees the old file or the new one and a
 * crash leaves one of them. On a failure the temporary file goes and the error is thrown.
 */
export function replaceFile(file: string, write: (fd: number) => void, mode = 0o600): void {
  const tmp = openTempFile(dirname(file), `.${basename(file)}`, mode);
  try {
    try {
      write(tmp.fd);
    } finally {
      closeSync(tmp.fd);
    }
    renameSync(tmp.path, file);
  } catch (error) {
    rmSync(tmp.path, { force: true });
    throw error;
  }
}
