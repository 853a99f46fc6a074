/** `log`: the ledger of every write linkctl sent (src/history/ledger.ts). Flags and help only; the work is in ./actions.ts. */
import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { dbOption, withExamples, type Bind } from '../shared/define.js';
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
  withExamples(
    dbOption(log.command('verify'))
      .description('Check the ledger\'s hash chain: whole, or the first entry edited, inserted or removed')
      .action(bind(() => import('./actions.js'), 'verify')),
    ['linkctl log verify', 'linkctl log verify --json'],
  );
}
