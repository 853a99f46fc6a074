/**
 * The user's allowance of private networks, read once for every path that leaves the machine
 * (check, QR images, MCP's check tool): the `--allow-private` flag, else LINKCTL_CHECK_ALLOW_PRIVATE,
 * else the profile's `checkAllowPrivate`. Only the person who runs linkctl gives it: `linkctl mcp`
 * reads it when it starts, and no tool argument can.
 */
import type { Settings } from './settings.js';
import { ConfigError, UsageError, type CliError } from '../errors.js';
import { ALLOW_PRIVATE_ENV, ALLOW_PRIVATE_HINT, parseAllowPrivate, type Allowance, type AllowPrivate } from '../http/networks.js';

export type { Allowance };

/** A setting's value as `--allow-private` takes it; `refuse` makes the error that names where it came from. */
function networksSetting(raw: string, refuse: (message: string) => CliError): AllowPrivate {
  try {
    return parseAllowPrivate(raw);
  } catch (error) {
    throw refuse((error as Error).message);
  }
}

/**
 * `--allow-private` (all, or the networks it names), else LINKCTL_CHECK_ALLOW_PRIVATE, else the
 * profile's `checkAllowPrivate`; undefined: none. `via` names the command it was given to.
 */
/** What the allowance is read from: a run's context (no import of it: the context reads allowances too). */
interface SettingsSource {
  env: Record<string, string | undefined>;
  settings(): Pick<Settings, 'checkAllowPrivate' | 'profile'>;
}

export function allowanceOf(flag: AllowPrivate | true | undefined, ctx: SettingsSource, via = ''): Allowance | undefined {
  if (flag !== undefined) return { allow: flag === true ? 'all' : flag, from: `--allow-private${via}` };
  const fromEnv = ctx.env[ALLOW_PRIVATE_ENV];
  if (fromEnv) return { allow: networksSetting(fromEnv, (m) => new UsageError(`${ALLOW_PRIVATE_ENV}: ${m}`, ALLOW_PRIVATE_HINT)), from: `${ALLOW_PRIVATE_ENV}${via}` };
  const setting = ctx.settings().checkAllowPrivate;
  if (!setting) return undefined;
  const where = `checkAllowPrivate of profile "${ctx.settings().profile.value}"`;
  return { allow: networksSetting(setting.value, (m) => new ConfigError(`${where}: ${m}`, ALLOW_PRIVATE_HINT)), from: where };
}

/** What an agent is told of blocked destinations: the user can allow them when starting the server. */
export const AGENT_ALLOW_HINT = `the user can allow private networks when starting the server (linkctl mcp --allow-private [networks], ${ALLOW_PRIVATE_ENV}, or the profile's checkAllowPrivate); no tool argument can`;
