/**
 * The one place that decides which local files linkctl may read and write for a command, and how
 * it writes them. Files named by a person on the command line: anywhere they can reach. Files
 * named by a `--from` row: none (cells are data, never file names). Files named by an agent
 * through `linkctl mcp`: only inside the folder the person starting the server gave (`--root DIR`,
 * default none), and never inside the config folder (keys) or the state folder (history, ledger,
 * journals).
 *
 * Writes are complete or absent: a temporary file beside the target, created exclusively (`wx`)
 * with an unpredictable name, renamed into place. `--dry-run` writes nothing. An existing file is
 * replaced only with `--force`, or when the person at the terminal says so.
 */
import { redactSecrets } from '../redact.js';
import { randomBytes } from 'node:crypto';
import { linkSync, lstatSync, mkdirSync, readFileSync, realpathSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Context } from '../context.js';
import { CliError, ExitCode, UsageError } from '../errors.js';
import { configDir, stateDir } from '../config/paths.js';
import { safeText } from '../output/safe-text.js';

const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? 'error';

function inside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** The real path of `path`, or of its nearest existing parent joined with the rest (for a file still to be made). */
function realish(path: string): string {
  const rest: string[] = [];
  let at = path;
  for (;;) {
    try {
      return join(realpathSync(at), ...rest.reverse());
    } catch {
      const parent = dirname(at);
      if (parent === at) return path;
      rest.push(basename(at));
      at = parent;
    }
  }
}

/** `path` as the policy allows it for `flag`, made absolute; throws UsageError naming the flag. */
function allowed(ctx: Context, path: string, flag: string, what: 'read' | 'write'): string {
  const { root } = ctx.files;
  if (root === undefined) return path;
  if (root === null) {
    throw new UsageError(`${flag} ${path}: this MCP server ${what}s no local files`, 'the person running it can start it with `linkctl mcp --root DIR` to allow files inside DIR');
  }
  const real = realish(resolve(root, path));
  const realRoot = realish(root);
  if (!inside(realRoot, real)) throw new UsageError(`${flag} ${path}: outside the folder this MCP server may ${what} (${root})`, 'give a path inside that folder');
  if (inside(realish(configDir(ctx.env)), real)) throw new UsageError(`${flag} ${path}: inside linkctl's config folder, which holds keys; no tool ${what}s there`);
  // The state folder (the history database, the ledger, journals) may live apart from the config folder.
  if (inside(realish(stateDir(ctx.env)), real)) throw new UsageError(`${flag} ${path}: inside linkctl's state folder, which holds the history, the ledger and journals; no tool ${what}s there`);
  return real;
}

/** A file's text, as the flag names it (`--data-json @FILE`, `-F key=@FILE`, `-f FILE`). */
export function readUserFile(ctx: Context, path: string, flag: string): string {
  if (ctx.files.noReads) throw new UsageError(`${flag} @${path}: ${ctx.files.noReads}`);
  const checked = allowed(ctx, path, flag, 'read');
  try {
    return readFileSync(checked, 'utf8');
  } catch (error) {
    throw new UsageError(`${flag}: cannot read ${path} (${codeOf(error)})`);
  }
}

/** A folder to write into (`--dir`), created if missing (not on a dry run); its path as the policy allows it. */
export function userFolder(ctx: Context, dir: string, flag: string): string {
  const checked = allowed(ctx, dir, flag, 'write');
  if (ctx.globals.dryRun) return checked;
  try {
    mkdirSync(checked, { recursive: true });
  } catch (error) {
    throw new UsageError(`${flag} ${dir}: cannot create the folder (${codeOf(error)})`);
  }
  return checked;
}

export interface WriteOptions {
  /** The flag that named the file, for messages. */
  flag: string;
  /** --force: an existing file is replaced. */
  force: boolean;
  mode?: number;
}

export interface PreparedWrite {
  /** The path as the policy allows it (absolute inside an MCP server's root). */
  path: string;
  /** Writes the file; false on a dry run, which writes nothing. */
  write(data: string | Buffer): boolean;
}

/**
 * The checks of a write, for a command that writes the file itself (streaming it, as `import`
 * does): the policy's path, and whether an existing file may be replaced (--force, or a yes at the
 * terminal; refused on a dry run and off a terminal).
 */
export async function checkWrite(ctx: Context, path: string, options: WriteOptions): Promise<{ target: string; replace: boolean }> {
  const target = allowed(ctx, path, options.flag, 'write');
  let replace = options.force;
  if (!replace && exists(target)) {
    const refusal = new UsageError(`${options.flag} ${path} exists; linkctl does not replace a file unless told to`, 'add --force to replace it, or give another name');
    if (ctx.globals.dryRun || !ctx.interactive) throw refusal;
    const ask = ctx.io.confirm ?? (await import('../prompt.js')).confirm(ctx.io);
    if (!(await ask(`${safeText(path)} exists. Replace it?`))) throw new UsageError('cancelled; nothing was written');
    replace = true;
  }
  return { target, replace };
}

/** A file or folder a flag names, as the policy allows it to be written (absolute inside an MCP server's root), for a command that writes it itself. */
export function writablePath(ctx: Context, path: string, flag: string): string {
  return allowed(ctx, path, flag, 'write');
}

/** A file a flag names, as the policy allows it to be read (absolute inside an MCP server's root). */
export function readablePath(ctx: Context, path: string, flag: string): string {
  if (ctx.files.noReads) throw new UsageError(`${flag} ${path}: ${ctx.files.noReads}`);
  return allowed(ctx, path, flag, 'read');
}

/**
 * Every check of a write, made before the work that produces the data (reading an account,
 * drawing a code): the policy, and an existing file (replaced only with --force, or a yes at the
 * terminal; refused on a dry run and off a terminal). Then `write` puts the file in place.
 */
export async function prepareWrite(ctx: Context, path: string, options: WriteOptions): Promise<PreparedWrite> {
  const { target, replace } = await checkWrite(ctx, path, options);
  const shown = ctx.files.root ? target : path;
  return {
    path: shown,
    write: (data) => {
      if (ctx.globals.dryRun) return false;
      // A file of what a server sent (an export, a map) holds no secret of the user's, the key included.
      writeAtomic(target, typeof data === 'string' ? redactSecrets(data, ctx.secrets) : data, options.flag, replace, options.mode ?? 0o644);
      return true;
    },
  };
}

function exists(path: string): boolean {
  try {
    lstatSync(path); // a symlink counts, dangling or not
    return true;
  } catch {
    return false;
  }
}

/**
 * A temporary file beside `file` (created exclusively, a name nobody can guess), then moved into
 * place: renamed over an existing file when `replace`, else linked, which fails if a file
 * appeared there meanwhile (no check-then-write race).
 */
function writeAtomic(file: string, data: string | Buffer, flag: string, replace: boolean, mode: number): void {
  const tmp = join(dirname(file), `.${basename(file)}.${randomBytes(16).toString('hex')}.tmp`);
  try {
    writeFileSync(tmp, data, { flag: 'wx', mode });
    moveIntoPlace(tmp, file, flag, replace);
  } catch (error) {
    throw writeError(error, flag, file);
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // renamed into place, or never created
    }
  }
}

/**
 * A finished temporary file moved to `file`: renamed over an existing file when `replace`, else
 * linked, which fails if a file appeared there meanwhile (no check-then-write race). The caller
 * removes `tmp` afterwards (a link leaves it).
 */
export function moveIntoPlace(tmp: string, file: string, flag: string, replace: boolean): void {
  if (replace) return renameSync(tmp, file);
  try {
    linkSync(tmp, file);
  } catch (error) {
    const code = codeOf(error);
    if (code === 'EEXIST') throw new UsageError(`${flag} ${file} exists; linkctl does not replace a file unless told to`, 'add --force to replace it, or give another name');
    // A filesystem without hard links: the check made before stands.
    if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV'].includes(code) || exists(file)) throw error; // a dangling symlink counts
    renameSync(tmp, file);
  }
}

/** A failed write as the user's error: a full disk or a folder that cannot be written names the flag. */
export function writeError(error: unknown, flag: string, file: string): unknown {
  if (error instanceof UsageError) return error;
  const code = codeOf(error);
  if (code === 'ENOSPC') return new CliError(`${flag} ${file}: cannot write there (ENOSPC: the disk is full); nothing was written`, ExitCode.api, 'free some space and run again');
  if (['ENOENT', 'EACCES', 'EISDIR', 'ENOTDIR', 'EPERM', 'EROFS', 'EEXIST'].includes(code)) {
    return new UsageError(`${flag} ${file}: cannot write there (${code})`, 'give a path in an existing folder you can write to');
  }
  return error;
}
