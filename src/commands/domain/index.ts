/** `domain`: branded domains. Flags and help only; the work is in ./actions.ts, loaded when a command runs. */
import { Option, type Command } from 'commander';
import { UsageError } from '../../errors.js';
import { bulkOptions, deleteCommand, listCommand, withExamples, type Bind } from '../shared/define.js';
import { domainUrl, httpUrl, positiveInt } from '../../validate.js';

const FIXED = 'the domain itself cannot change: delete it and add the new one (`linkctl domain delete ID`, `linkctl domain add URL`)';

/** Redirect flags, shared by `domain add` and `domain update`. */
function redirectOptions(command: Command): Command {
  return command
    .option('--redirect-root <url>', 'where a visit to the domain root goes (http or https URL)', (v) => httpUrl('--redirect-root', v))
    .option('--redirect-404 <url>', 'where a missing page goes (http or https URL)', (v) => httpUrl('--redirect-404', v));
}

export function register(program: Command, bind: Bind): void {
  const load = () => import('./actions.js');
  const domain = program.command('domain').description('Manage branded domains');

  listCommand(domain, bind, load, "branded domains (and the server's system domains, which have no id)");

  withExamples(
    bulkOptions(redirectOptions(
      domain
        .command('add')
        .description('Add a branded domain (its DNS must already point to the server)')
        .argument('<url>', 'the domain with its scheme, e.g. https://go.example.com', (v) => domainUrl('the domain', v)),
    ).action(bind(load, 'add')), ['linkctl domain add --from domains.csv   # url,redirect-root']),
    ['linkctl domain add https://links.example.org', 'linkctl domain add https://links.example.org --redirect-root https://example.com --redirect-404 https://example.com/404'],
  );

  withExamples(
    redirectOptions(
      domain
        .command('update')
        .description('Change where a branded domain redirects (the domain itself cannot change)')
        .argument('<id>', 'id of the domain (see `linkctl domain list`)', (v) => {
          if (/:\/\/|\.[a-z]{2,}\/?$/i.test(v)) throw new UsageError(`ID must be the domain's id, not its name; ${FIXED}`, 'the ID column of `linkctl domain list` shows it');
          return positiveInt('ID', v);
        })
        // Someone trying to change the domain is told why it cannot be done, not "unknown option".
        .addOption(new Option('--domain <url>').hideHelp().argParser(() => { throw new UsageError(FIXED, 'delete the domain and add the new one, if the name must change'); }))
        .allowExcessArguments()
        .hook('preAction', (command) => {
          if (command.args.length > 1) throw new UsageError(`unexpected argument "${command.args[1]}"; ${FIXED}`, 'delete the domain and add the new one, if the name must change');
        }),
    ).action(bind(load, 'update')),
    ['linkctl domain update 1 --redirect-root https://example.com', 'linkctl domain update 1 --redirect-404 https://example.com/not-found'],
  );

  deleteCommand(domain, bind, load, 'branded domain');
}
