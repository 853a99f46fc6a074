/** `auth`: profiles and their keys. The key itself is never a flag (argv is visible to other users). */
import type { Command } from 'commander';
import { withExamples, type Bind } from '../shared/define.js';
import { seconds } from '../../validate.js';

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
      .option('--oauth', 'sign in through an OAuth client an admin registered, in the browser, instead of pasting a key (the token is saved as the key)')
      .option('--client-id <id>', 'with --oauth: the id of the OAuth client')
      .option('--client-secret-stdin', 'with --oauth: read the client secret from stdin (else a hidden prompt)')
      .option('--redirect-uri <uri>', 'with --oauth: the loopback redirect URI registered with the client (http://127.0.0.1:PORT/PATH); linkctl listens there once')
      .option('--no-browser', 'with --oauth: print the URL to approve at, without opening a browser')
      .option('--approve-within <seconds>', 'with --oauth: how long to wait for the approval (default 300)', (v) => seconds('--approve-within', v))
      .action(bind(load, 'login')),
    [
      'linkctl auth login --base-url https://links.example.com',
      'echo "$LINK_API_KEY" | linkctl auth login --with-token --base-url https://links.example.com --profile ci',
      'linkctl auth login --base-url https://links.example.com --api-path /v2   # an installation whose API is not at /api',
      'linkctl auth login --oauth --base-url https://links.example.com --client-id linkctl --redirect-uri http://127.0.0.1:8765/linkctl-callback',
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
