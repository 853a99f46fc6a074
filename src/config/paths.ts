import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where the config lives: $LINKCTL_CONFIG_DIR, else the platform's config folder. No conf import here. */
export function configDir(env: Record<string, string | undefined>): string {
  if (env.LINKCTL_CONFIG_DIR) return env.LINKCTL_CONFIG_DIR;
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'linkctl');
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'linkctl');
}

export const CONFIG_FILE_NAME = 'config.json';

/** State linkctl keeps between runs (bulk journals), inside the config folder. */
export function stateDir(env: Record<string, string | undefined>): string {
  return join(configDir(env), 'state');
}
