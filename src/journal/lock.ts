/**
 * One run per bulk journal (./journal.ts): a lock file beside it, made atomically, naming the
 * process that holds it; a lock whose holder is gone (a crash, a reboot, a reused pid) is taken
 * over, one whose holder lives refuses the second run.
 */
import { closeSync, constants, linkSync, openSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { ConfigError, UsageError } from '../errors.js';
import { NOFOLLOW, codeOf, readAll, isObject, unwritable } from './journal-io.js';
import { privateTempPath } from '../files/temp.js';

/** Locks this process holds, by path: a lock naming our own pid is ours only if it is in here. */
const HELD = new Map<string, string>();

interface LockInfo {
  pid: number;
  host: string;
  started: string;
  /** When the holder process started, by the kernel's clock (Linux): a live pid that started at another time is a reused pid. */
  procStart?: string;
  what: string;
  /** Which lock this is: released only by the process that holds this token. */
  token: string;
}

/** A lock whose content is unreadable and older than this was left by a process that died while writing it. */
const HALF_WRITTEN_STALE_MS = 2000;

/**
 * One run per journal. The lock is a file beside it, created with O_EXCL (`wx`): creation is
 * atomic on every local filesystem and on NFSv3+, needs no native module (Node has no flock),
 * and the file says who holds it (pid, host, start time, command) so that a refusal names the
 * other process. A lock is stale when its process is gone: the pid is dead, or alive but running
 * something else (a pid reused after a reboot). Stale locks are taken over at once, never
 * waited on. A lock from another host cannot be checked and is respected; the message says how
 * to remove it.
 */
/**
 * Creates the lock file whole or not at all (EEXIST when held): written under a private name,
 * then hard-linked into place, so no run ever sees it empty. Where the filesystem has no hard
 * links, created exclusively and written (a run that finds it empty waits HALF_WRITTEN_STALE_MS).
 */
function createLock(lockPath: string, text: string): void {
  const write = (path: string) => {
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o600);
    try {
      writeSync(fd, text);
    } finally {
      closeSync(fd);
    }
  };
  const temp = privateTempPath(dirname(lockPath), 'lock');
  try {
    write(temp);
    try {
      linkSync(temp, lockPath);
    } catch (error) {
      if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'].includes(codeOf(error))) throw error;
      write(lockPath);
    }
  } finally {
    rmSync(temp, { force: true });
  }
}

export function acquireLock(lockPath: string, what: string, subject: string): void {
  const info: LockInfo = { pid: process.pid, host: hostname(), started: new Date().toISOString(), procStart: processStart(process.pid), what, token: randomBytes(12).toString('hex') };
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      createLock(lockPath, JSON.stringify(info));
      HELD.set(lockPath, info.token);
      return;
    } catch (error) {
      if (codeOf(error) !== 'EEXIST') throw unwritable(lockPath, error);
    }
    const text = readLock(lockPath);
    if (text === undefined) continue; // released in the meantime
    const holder = parseLock(text);
    if (holder ? holderAlive(holder, lockPath) : Date.now() - mtime(lockPath) < HALF_WRITTEN_STALE_MS) {
      const who = holder ? `pid ${holder.pid}${holder.host !== info.host ? ` on ${holder.host}` : ''}, started ${holder.started}${holder.what ? `: ${holder.what}` : ''}` : 'a process that is just starting';
      throw new UsageError(
        `another linkctl is running ${subject} (${who}); nothing was sent`,
        `wait for it to finish, then run again: it goes on from where that run stops. If that process is gone${holder && holder.host !== info.host ? ` (it ran on ${holder.host})` : ''}, remove ${lockPath}`,
      );
    }
    // Stale: moved aside (atomic) and removed only if it is still the lock judged stale, not one a racing run just took.
    const aside = `${lockPath}.${randomBytes(6).toString('hex')}.stale`;
    try {
      renameSync(lockPath, aside);
    } catch {
      continue; // another run took it over first
    }
    if (readLock(aside) !== text) {
      try {
        linkSync(aside, lockPath); // a racing run's fresh lock: put back, unless a third run holds the lock by now
      } catch {
        // that run will find its lock gone at release, and the third holds it: harmless
      }
      try {
        unlinkSync(aside);
      } catch {
        // gone already
      }
      continue;
    }
    try {
      unlinkSync(aside);
    } catch {
      // gone already
    }
  }
  throw new UsageError(`could not take the lock ${lockPath}: other runs of the same file keep taking it`, 'run one at a time');
}

function readLock(path: string): string | undefined {
  try {
    const fd = openSync(path, constants.O_RDONLY | NOFOLLOW);
    try {
      return readAll(fd).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return undefined;
    if (codeOf(error) === 'ELOOP') throw new ConfigError(`the lock ${path} is a symbolic link; linkctl does not follow links where it keeps its state`, 'remove the link, then run again');
    throw unwritable(path, error);
  }
}

function parseLock(text: string): LockInfo | undefined {
  try {
    const value = JSON.parse(text) as LockInfo;
    return isObject(value) && Number.isInteger(value.pid) && typeof value.host === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

function mtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

function holderAlive(holder: LockInfo, lockPath: string): boolean {
  if (holder.host !== hostname()) return true; // cannot be checked from here
  if (holder.pid === process.pid) return HELD.get(lockPath) === holder.token;
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if (codeOf(error) !== 'EPERM') return false; // ESRCH: no such process
  }
  // Alive: the holder, or a pid reused since (after a reboot, say), which Linux tells by its start time.
  const started = holder.procStart === undefined ? undefined : processStart(holder.pid);
  return started === undefined || started === holder.procStart;
}

/** A process's start time in clock ticks since boot (field 22 of /proc/PID/stat); undefined without /proc. */
function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

export function releaseLock(lockPath: string): void {
  const token = HELD.get(lockPath);
  HELD.delete(lockPath);
  if (!token) return;
  const text = readLockQuietly(lockPath);
  if (text !== undefined && parseLock(text)?.token !== token) return; // not ours any more
  try {
    unlinkSync(lockPath);
  } catch {
    // gone already
  }
}

function readLockQuietly(path: string): string | undefined {
  try {
    return readLock(path);
  } catch {
    return undefined;
  }
}
