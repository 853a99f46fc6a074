/** `log`: the ledger of every write linkctl sent (src/history/ledger.ts). Flags and help only; the work is in ./actions.ts. */
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { dbOption, forAgents, optionsForAgents, withExamples, type Bind } from '../shared/define.js';
import { wrapped } from '../shared/help-text.js';

/** The resources the ledger names, as linkctl's commands do. */
export const LEDGER_RESOURCES = ['link', 'qr', 'domain', 'campaign', 'channel', 'pixel', 'account'] as const;

function resource(raw: string): string {
  const name = raw.trim().toLowerCase();
  if (!(LEDGER_RESOURCES as readonly string[]).includes(name)) throw new UsageError(`--resource must be one of ${LEDGER_RESOURCES.join(', ')}, got "${raw.slice(0, 40)}"`, 'e.g. --resource link');
  return name;
}

export function register(program: Command, bind: Bind): void {
  const log = withExamples(
    dbOption(program.command('log'))
      .description('List the ledger: every write linkctl sent, with the fields before and after')
      .option('--since <when>', 'only writes since then: a duration before now (48h, 30d, 12w) or a date')
      .option('--resource <name>', `only writes to this kind of record: ${LEDGER_RESOURCES.join(', ')}`, resource)
      .option('--link <alias|id>', "one link's destinations in order, even after its deletion")
      .addHelpText(
        'after',
        wrapped([
          '',
          'Every POST, PUT and DELETE linkctl sends (any command, --from, import, apply, the GitHub',
          'Action, linkctl mcp) is appended to the ledger in the history database (LINKCTL_DB, else',
          'history.db in the state folder; created at the first write). Each entry holds the time,',
          'profile and server, the command, the record, its fields before and after as linkctl knew',
          'them, the outcome (done, failed, unknown) and any --override reason. Passwords, keys and',
          'wifi passwords are never stored: an entry says only that one was set.',
          'Entries form a hash chain: `linkctl log verify` finds an edited or removed entry.',
        ].join('\n')),
      )
      .action(bind(() => import('./actions.js'), 'list')),
    ['linkctl log --since 7d', 'linkctl log --resource link --json', 'linkctl log --link spring-sale', 'linkctl log verify'],
  );
  const verify = withExamples(
    dbOption(log.command('verify'))
      .description('Check the ledger\'s hash chain: whole, or the first entry edited, inserted or removed')
      .option('--expect-head <hash>', 'the head hash an earlier `log verify` printed: fail unless the chain still holds that entry (finds entries removed from its end)', expectHead)
      .addHelpText(
        'after',
        wrapped([
          '',
          'Prints the head: the number and hash of the last entry. A chain whose last entries were',
          'removed is still whole; keep the head elsewhere (a CI log, a ticket) and pass it to',
          '--expect-head later: the chain must still hold it, however much it grew since.',
          'What verify cannot find without a kept head: entries removed from the end, or a chain',
          'rewritten from some entry onwards by someone who recomputes every hash after it.',
          'A database that does not exist, holds no ledger or an empty one is an error (exit 8).',
        ].join('\n')),
      )
      .action(bind(() => import('./actions.js'), 'verify')),
    ['linkctl log verify', 'linkctl log verify --json'],
  );
  optionsForAgents(forAgents(verify, 'Gives the head (last entry, hash) to keep.'), {
    '--expect-head': 'a head kept earlier: broken if gone',
  });
  // `log --db FILE verify`: the group takes --db too, and commander gives it the flag wherever it
  // stands on the line (`log verify --db FILE` included), so verify reads it from there.
  verify.hook('preAction', (command) => {
    const given = log.getOptionValue('db') as string | undefined;
    if (given !== undefined && command.getOptionValue('db') === undefined) command.setOptionValueWithSource('db', given, 'cli');
  });
}

function expectHead(raw: string): string {
  const hash = raw.trim().toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(hash)) throw new UsageError(`--expect-head must be the 64 hex digits of a head's hash, got "${raw.slice(0, 70)}"`, 'copy it from the "head: entry N, HASH" line of an earlier `linkctl log verify` (or its --json head.hash)');
  return hash;
}
