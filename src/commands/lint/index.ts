/** `lint`: hygiene findings about the account's links. Flags and help only; the work is in src/policy/lint.ts, loaded when the command runs. */
import type { Command } from 'commander';
import { dbOptionOf, forAgents, optionsForAgents, pathOption, withExamples, type Bind } from '../shared/define.js';
import { wrapped } from '../shared/help-text.js';
import { positiveInt } from '../../validate.js';
import { LINT_RULES } from '../../policy/rules.js';

export function register(program: Command, bind: Bind): void {
  const rules = Object.entries(LINT_RULES).map(([name, r]) => `  ${name.padEnd(22)} ${r.severity.padEnd(8)} ${r.what}${'days' in r ? ` (${r.days} days)` : ''}`);
  withExamples(
    optionsForAgents(forAgents(program.command('lint'), `Findings, worst first: rule, record, fix. Rules: ${Object.keys(LINT_RULES).join(', ')}, and the user's policy's. An empty list: nothing found.`)
      .description("Report the account's hygiene problems (duplicates, http://, look-alike aliases, UTM spellings, expiring, unclicked, broken links); reads only")
      .addOption(pathOption('-f, --file <path>', 'lint an account file (as `export` writes and `apply` reads) instead of the account'))
      .option('--expiring-days <n>', 'the window of the expiring rule, in days (default: the policy, else 30)', (v) => positiveInt('--expiring-days', v))
      .option('--stale-days <n>', 'the window of the stale rule (no clicks), in days (default: the policy, else 90)', (v) => positiveInt('--stale-days', v))
      .addOption(dbOptionOf())
      .addHelpText(
        'after',
        wrapped([
          '',
          'Rules (name, default severity, what it finds); the policy file (--policy) turns them off or sets their severity and days:',
          ...rules,
          "With a policy, links that break its rules (require-params, forbid-insecure, alias-pattern, allowed-hosts) are errors too.",
          'stale and broken come from the history database (`linkctl stats snapshot`, `linkctl check`); the expiring rule reads each link (one request per link).',
          'Exit codes: 0 nothing found, 1 findings, 2 bad input.',
        ].join('\n')),
      )
      .action(bind(() => import('./actions.js'), 'lint')), {
      '--expiring-days': 'expiring rule\'s window, days (default: the policy, else 30)',
      '--stale-days': 'stale rule\'s window, days (default: the policy, else 90)',
    }),
    ['linkctl lint', 'linkctl lint --json', 'linkctl lint -f account.yaml --policy policy.yaml', 'linkctl lint --stale-days 180 --db postgres://ci@db.internal/linkctl'],
  );
}
