// `sandbox serve` announces itself in the config folder so that `--sandbox` commands use it
// (and the URLs they print answer while it runs) instead of starting an embedded sandbox.
// Only a serve on the default state file with the default key announces itself; the file
// holds no key, and is removed when the serve stops.
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { replaceFile } from '../files/temp.js';

import type { Plan } from './routes.js';

export interface RunningSandbox { url: string; pid: number; stateFile: string; quirks: boolean; plan?: Plan; /** Where it serves its API, when not at /api (`sandbox serve --api-path`). */ apiPath?: string }

export const runningFile = (configDir: string) => join(configDir, 'sandbox-serve.json');
export const defaultStateFile = (configDir: string) => join(configDir, 'sandbox-state.json');

export function announce(configDir: string, info: RunningSandbox): () => void {
  const file = runningFile(configDir);
  // a name nobody can guess, created exclusively: a link planted in the config folder is never written through
  replaceFile(file, (fd) => writeFileSync(fd, `${JSON.stringify(info)}\n`));
  return () => {
    // only our own announcement: another serve may have replaced it
    try { if ((JSON.parse(readFileSync(file, 'utf8')) as RunningSandbox).pid === info.pid) unlinkSync(file); } catch { /* gone */ }
  };
}

const alive = (pid: number) => {
  try { process.kill(pid, 0); return true; } catch (err) { return (err as NodeJS.ErrnoException).code === 'EPERM'; }
};

/** The serve running on this config folder's state file, if any (a file left by a killed serve is ignored). */
export function findRunning(configDir: string): RunningSandbox | undefined {
  let info: RunningSandbox;
  try { info = JSON.parse(readFileSync(runningFile(configDir), 'utf8')) as RunningSandbox; } catch { return undefined; }
  if (typeof info?.url !== 'string' || !Number.isInteger(info.pid) || !alive(info.pid)) return undefined;
  return info.stateFile === defaultStateFile(configDir) ? info : undefined;
}
