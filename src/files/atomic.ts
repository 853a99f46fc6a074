// Files linkctl writes for the user: complete or absent, never half-written.
import { randomBytes } from 'node:crypto';
import { renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UsageError } from '../errors.js';

/** Writes `data` to a temporary file beside `file`, then renames it into place. */
export function writeFileAtomic(file: string, data: string | Buffer, flag = '--file'): void {
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    writeFileSync(tmp, data, { flag: 'wx', mode: 0o644 });
    renameSync(tmp, file);
  } catch (err) {
    try { unlinkSync(tmp); } catch { /* not created */ }
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR' || code === 'ENOTDIR' || code === 'EPERM') {
      throw new UsageError(`${flag} ${file}: cannot write there (${code})`, 'give a path in an existing folder you can write to');
    }
    throw err;
  }
}
