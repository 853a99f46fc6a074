/**
 * `--allow-private`, the flag of the user's allowance of private networks (of `linkctl check`, and
 * of `linkctl mcp` for the check tool). The allowance itself (this flag, else the environment, else
 * the profile) is read by src/config/allow-private.ts.
 */
import { Option } from 'commander';
import { UsageError } from '../../errors.js';
import { ALLOW_PRIVATE_ENV, ALLOW_PRIVATE_HINT, parseAllowPrivate, type AllowPrivate } from '../../http/networks.js';

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
