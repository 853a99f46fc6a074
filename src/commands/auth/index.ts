/** `auth`: profiles and their keys. The key itself is never a flag (argv is visible to other users). */
import type { Command } from 'commander';
import { withExamples, type Bind } from '../shared/define.js';

export function register(program: Command, bind: Bind): void {
  const load = () => import('./actions.js');
  const auth = program.command('auth').description('Log in, see which key is in use, switch profiles');

  withExamples(
    auth
      .command('login')
      .description('Save an API key in a profile (in the system keychain when there is one), after checking it by reading the account')
      .option('--with-token', 'read the key from stdin instead of a hidden prompt')
      .option('--no-verify', 'save without checking the key against the server')
      .option('--insecure-storage', 'keep the key in the config file (mode 0600) instead of the system keychain')
      .action(bind(load, 'login')),
    [
      'linkctl auth login --base-url https://links.example.com',
      'echo "$LINK_API_KEY" | linkctl auth login --with-token --base-url https://links.example.com --profile ci',
    ],
  );

  withExamples(
    auth
      .command('status')
      .description('Show every profile, the active one, and where each setting comes from (exit 3 without a valid key)')
      .option('--no-verify', 'do not check the active key against the server')
      .action(bind(load, 'status')),
    ['linkctl auth status', 'linkctl auth status --json'],
  );

  withExamples(
    auth
      .command('token')
      .description('Print the active profile\'s API key (LINKCTL_API_KEY first), and nothing else (exit 3 without one)')
      .action(bind(load, 'token')),
    ['export LINK_API_KEY="$(linkctl auth token)"', 'linkctl auth token --profile ci'],
  );

  withExamples(auth.command('logout').description('Remove a profile and its key (the active profile by default)').action(bind(load, 'logout')), [
    'linkctl auth logout --profile work',
  ]);

  withExamples(
    auth.command('switch').description('Make a profile the default').argument('<name>', 'profile name').action(bind(load, 'switchProfile')),
    ['linkctl auth switch work'],
  );
}
