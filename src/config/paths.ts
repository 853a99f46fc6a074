import { cpSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** Where the config lives: $LINKCTL_CONFIG_DIR, else the platform's config folder. No conf import here. */
export function configDir(env: Record<string, string | undefined>): string {
  if (env.LINKCTL_CONFIG_DIR) return env.LINKCTL_CONFIG_DIR;
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'linkctl');
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'linkctl');
}

export const CONFIG_FILE_NAME = 'config.json';

/** Folders already checked for a state folder to move, once a process. */
const moved = new Set<string>();

/**
 * State linkctl keeps between runs (bulk and apply journals, click history, listen's secrets):
 * `$XDG_STATE_HOME/linkctl` when XDG_STATE_HOME is set (the XDG base directories' place for state),
 * else the config folder's `state/`. LINKCTL_CONFIG_DIR keeps everything in the folder it names
 * (a test or a CI job that sets it wants nothing of it elsewhere).
 *
 * A state folder kept in the config folder before XDG_STATE_HOME was set is moved to the new place
 * the first time it is asked for, whole (a history's database with its journal files), so no
 * history is lost or split in two; when both exist the new one is used and the old left alone.
 */
export function stateDir(env: Record<string, string | undefined>): string {
  const old = join(configDir(env), 'state');
  if (env.LINKCTL_CONFIG_DIR || !env.XDG_STATE_HOME) return old;
  const dir = join(env.XDG_STATE_HOME, 'linkctl');
  if (!moved.has(dir)) {
    moved.add(dir);
    moveState(old, dir);
  }
  return dir;
}

function moveState(from: string, to: string): void {
  if (!existsSync(from) || existsSync(to)) return;
  mkdirSync(dirname(to), { recursive: true, mode: 0o700 });
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    // Another file system: copy whole, then remove the old folder only once the copy is complete.
    cpSync(from, `${to}.moving`, { recursive: true, preserveTimestamps: true });
    renameSync(`${to}.moving`, to);
    rmSync(from, { recursive: true, force: true });
  }
}
