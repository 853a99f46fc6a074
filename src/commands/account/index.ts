/** `account`: read and update the account of the key in use. */
import type { Command } from 'commander';
import { withExamples, type Bind } from '../shared/define.js';

export function register(program: Command, bind: Bind): void {
  const load = () => import('./actions.js');
  const account = program.command('account').description('Show or update your account');
  withExamples(account.command('get').description('Show the account').action(bind(load, 'get')), ['linkctl account get', 'linkctl account get --json']);
  withExamples(
    account
      .command('update')
      .description('Change the email or the password (the password is never taken from argv)')
      .option('--email <address>', 'new email address')
      .option('--password', 'ask for a new password on a hidden prompt')
      .option('--password-stdin', 'read the new password from stdin')
      .action(bind(load, 'update')),
    ['linkctl account update --email me@example.com', 'linkctl account update --password', 'printf %s "$NEW_PASSWORD" | linkctl account update --password-stdin'],
  );
}
