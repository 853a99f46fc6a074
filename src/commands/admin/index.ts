/**
 * `admin`: the installation's users and plans, through the admin API (an admin's key only; a
 * plain key gets exit 3). `linkctl plan` stays the links-as-code command, hence the group. Flags
 * and help only; the work is in ./actions.ts, loaded when a command runs.
 */
import type { Command } from 'commander';
import { enumOption, listsRecords, withExamples, type Bind } from '../shared/define.js';
import { wrapped } from '../shared/help-text.js';
import { email, futureDateTime, positiveInt } from '../../validate.js';
import { users as USERS } from '../../model/users.js';
import { plans as PLANS } from '../../model/plans.js';

/** Every admin command's note (an agent's tool leaves the exit code out). */
const adminOnly = (command: Command): Command => command.addHelpText('after', wrapped("\nNeeds an admin's key: a plain key gets exit 3 (HTTP 403 from the server)."));

export function register(program: Command, bind: Bind): void {
  const load = () => import('./actions.js');
  const admin = program.command('admin').description("Manage the installation's users and plans (an admin's key only)");

  const users = admin.command('users').description('List, read, add and delete the users of the installation; sign in as one');
  withExamples(
    listsRecords(users
      .command('list')
      .alias('ls')
      .description(`List every user of the installation (no API key of any user is shown)`)
      .addOption(enumOption('--filter <group>', 'only this group of users', USERS.filters))
      .option('--email <address>', 'only the user with this email', (v) => email('--email', v))
      .action(bind(load, 'usersList'))),
    ['linkctl admin users list', 'linkctl admin users list --filter pro --json', 'linkctl admin users list --email jane@example.com -q'],
  );
  withExamples(
    users
      .command('get')
      .description(`Show one user (without their API key)`)
      .argument('<id>', 'user id', (v) => positiveInt('ID', v))
      .action(bind(load, 'usersGet')),
    ['linkctl admin users get 2', 'linkctl admin users get 2 --json'],
  );
  withExamples(
    users
      .command('add')
      .description(`Create a user; the password is asked for on a hidden prompt (twice) or read from stdin, never from argv`)
      .requiredOption('--username <name>', 'the new user\'s name: at least 3 letters, digits, "-" or "_"')
      .requiredOption('--email <address>', 'the new user\'s email (unique on the installation)', (v) => email('--email', v))
      .option('--password', 'ask for the password on a hidden prompt (the default on a terminal)')
      .option('--password-stdin', 'read the password from stdin (at least 5 characters)')
      .option('--plan <id>', 'subscribe the user to this plan (`linkctl admin plans list`)', (v) => positiveInt('--plan', v))
      .option('--expiration <datetime>', 'when the plan ends, "YYYY-MM-DD HH:MM:SS" in the future', (v) => futureDateTime('--expiration', v))
      .action(bind(load, 'usersAdd')),
    ['linkctl admin users add --username jane --email jane@example.com', 'printf %s "$PASS" | linkctl admin users add --username ci-bot --email ci@example.com --password-stdin --plan 2 --json'],
  );
  withExamples(
    users
      .command('delete')
      .alias('rm')
      .description(`Delete a user and everything they own, after a confirmation; the user whose key is in use cannot be deleted`)
      .argument('<id>', 'user id', (v) => positiveInt('ID', v))
      .action(bind(load, 'usersDelete')),
    ['linkctl admin users delete 2', 'linkctl admin users delete 2 --yes'],
  );
  withExamples(
    users
      .command('login')
      .description(`Print a one-time sign-in URL for a user: whoever opens it is signed in as them, until the end of the current clock hour. a secret`)
      .argument('<id>', 'user id', (v) => positiveInt('ID', v))
      .action(bind(load, 'usersLogin')),
    ['linkctl admin users login 2', 'linkctl admin users login 2 --json'],
  );

  const plans = admin.command('plans').description("List the installation's plans; subscribe a user to one");
  withExamples(
    listsRecords(plans
      .command('list')
      .alias('ls')
      .description(`List the plans with their prices and limits`)
      .action(bind(load, 'plansList'))),
    ['linkctl admin plans list', 'linkctl admin plans list --json'],
  );
  withExamples(
    plans
      .command('subscribe')
      .description(`Subscribe a user to a plan`)
      .argument('<plan-id>', 'plan id (`linkctl admin plans list`)', (v) => positiveInt('PLAN-ID', v))
      .argument('<user-id>', 'user id (`linkctl admin users list`)', (v) => positiveInt('USER-ID', v))
      .addOption(enumOption('--type <type>', 'how the subscription is paid for', PLANS.types).makeOptionMandatory())
      .option('--expiration <datetime>', 'when it ends, "YYYY-MM-DD HH:MM:SS" in the future (default: the server decides from --type)', (v) => futureDateTime('--expiration', v))
      .action(bind(load, 'plansSubscribe')),
    ['linkctl admin plans subscribe 2 2 --type monthly', 'linkctl admin plans subscribe 3 2 --type lifetime --json'],
  );
  for (const command of [...users.commands, ...plans.commands]) adminOnly(command);
}
