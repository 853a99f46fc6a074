/**
 * The user's allowance of private networks for `check`, defined once: the `--allow-private` flag
 * (of `linkctl check`, and of `linkctl mcp` for the check tool), LINKCTL_CHECK_ALLOW_PRIVATE and
 * the profile's `checkAllowPrivate`. Only the person who runs linkctl gives it: `linkctl mcp`
 * reads it when it starts, and no tool argument can (whoever can edit a link or a redirect must
 * not reach the networks of the machine an agent runs on unless that person said so).
 */
import { Option } from 'commander';
import type { Settings } from '../../config/settings.js';
import { ConfigError, UsageError, type CliError } from '../../errors.js';
import { ALLOW_PRIVATE_ENV, ALLOW_PRIVATE_HINT, parseAllowPrivate, type Allowance, type AllowPrivate } from '../../check/networks.js';

export type { Allowance };


/** `--allow-private` (every private address) or `--allow-private 10.0.0.0/8,127.0.0.1` (those networks). */
function allowPrivateFlag(raw: string): AllowPrivate {
  try {
    return parseAllowPrivate(raw);
  } catch (error) {
    throw new UsageError(`--allow-private: ${(error as Error).message}`, ALLOW_PRIVATE_HINT);
  }
}

/** The flag; `forWhat` says whose requests it opens (`linkctl check`'s, or the MCP check tool's). */
export function allowPrivateOption(forWhat = ''): Option {
  return new Option('--allow-private [networks]',
    `${forWhat}also request private, loopback and link-local addresses: all of them, or those in these networks, comma-separated (e.g. 10.0.0.0/8,127.0.0.1); env ${ALLOW_PRIVATE_ENV}, profile setting checkAllowPrivate`)
    .argParser(allowPrivateFlag);
}

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
