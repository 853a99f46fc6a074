/** `export`, `plan`, `apply`: links as code. Flags and help only; the work is in src/ascode/, loaded when a command runs. */
import type { Command } from 'commander';
import { concurrencyOption, enumOption, forceOption, pathOption, printsDocuments, optionsForAgents, withExamples, type Bind } from '../shared/define.js';
import { wrapped } from '../shared/help-text.js';
import { positiveInt } from '../../validate.js';
import { REDIRECT_FORMATS } from '../../ascode/redirect-formats.js';


/** `-f, --file` of `plan` and `apply`: the account file they read. */
const accountFile = () => pathOption('-f, --file <path>', 'the account file (- for stdin)').makeOptionMandatory();

export function register(program: Command, bind: Bind): void {
  const load = () => import('../../ascode/actions.js');

  withExamples(
    optionsForAgents(program
      .command('export')
      .description('Write every domain, pixel, campaign, channel, link and QR code (its content read from its image) to one YAML file, referenced by name (no secrets)')
      .addOption(pathOption('--file <path>', 'write to this file (atomically, mode 0600) instead of stdout'))
      .addOption(forceOption())
      .addOption(enumOption('--format <format>', 'file format (JSON is valid YAML too)', ['yaml', 'json']))
      .option('--details', "also read each link's geo and device targeting and expiry (one request per link, paced)")
      .option('--state-unreadable', "write under each link its options that cannot be read back (pixels, params, ...) as linkctl last set them (its ledger; none where it set none), commented out: uncomment what you know to be so")
      .addOption(concurrencyOption('with --details: links read'))
      .option('--no-qr-content', "skip reading QR codes' type, data and colours from their images (one image download a code, not an API request): codes are then written by name only")
      .option('--include-secrets', "write secrets read from QR images (a wifi code's password) in the clear; without it such a code is written by name only")
      .option('--schema', 'print the JSON Schema of the file instead, and read nothing')
      .addOption(enumOption('--redirects <format>', 'write every link as a static redirect map for another web server instead (for an outage: printed links and QR codes keep working)', REDIRECT_FORMATS))
      .action(bind(load, 'exportAccount')), {
      '--details': 'also read each link\'s targeting and expiry (a request a link)',
      '--state-unreadable': 'add, as comments, what linkctl last set of options not read back',
      '--concurrency': 'with details: links read at a time, 1 to 32, or auto',
      '--no-qr-content': 'write QR codes by name only, without reading their images',
      '--include-secrets': 'write secrets read from QR images in the clear',
      '--schema': 'print the file\'s JSON Schema instead',
      '--redirects': 'write a redirect map for this web server instead',
    }),
    ['linkctl export --file account.yaml', 'linkctl export --details --file account.yaml', 'linkctl export --no-qr-content --file account.yaml', 'linkctl export --format json > account.json', 'linkctl export -p old --include-secrets | linkctl apply -p new -f - --yes', 'linkctl export --redirects nginx --file linkctl-redirects.conf'],
  );

  withExamples(
    printsDocuments(
      program
        .command('plan')
        .description('Show what `apply` would change to make the account match a file; sends no change')
        .addOption(accountFile())
        .option('--prune', 'also list records the file no longer has, for deletion')
        .option('--detailed-exitcode', 'exit 0 when nothing would change, 2 when changes are pending, 1 on error')
        .addHelpText('after', wrapped('\n-o markdown prints the plan as a pull-request comment: a summary line and the changes in a <details> list.'))
        .action(bind(load, 'plan')),
      ['markdown'],
    ),
    ['linkctl plan -f account.yaml', 'linkctl plan -f account.yaml --detailed-exitcode', 'linkctl plan -f account.yaml --prune --json', 'linkctl plan -f account.yaml --prune -o markdown > plan.md'],
  );

  withExamples(
    program
      .command('apply')
      .description('Make the account match a file: create and change records (and delete with --prune), in dependency order')
      .addOption(accountFile())
      .option('--prune', 'also delete records of the kinds in the file that the file no longer has')
      .option('--max-deletes <n>', 'refuse (exit 2, nothing sent) a plan that deletes more than this many records', (v) => (v.trim() === '0' ? 0 : positiveInt('--max-deletes', v)))
      .option('--verify', "read each link back after writing it and report options the server dropped (the account's plan may lack them): one more request a link, so off by default")
      .addOption(concurrencyOption('changes sent'))
      .option('--allow-clear', 'let link updates clear what the file does not state and cannot be read back (pixels, parameters, password, deep links, redirect type, language targeting, public status): with --yes or off a terminal, a plan that would do so is refused without it')
      .addHelpText('after', wrapped([
        '\nSecrets are given as ${env:NAME} (password: ${env:PROMO_PASSWORD}). Asks first on a terminal; --yes in scripts.',
        'Real servers replace every option of a link on update and make it private, and some options cannot be read back (password, pixels, params, deeplink, redirect, splash, overlay, language, device, metaImage): the plan names what each update would clear. To apply with --yes and no --allow-clear, state each of them in the link\'s record, as a value or as `none` (the link has none; e.g. `pixels: none`), and `public: false`.',
        '`linkctl export --state-unreadable` writes under each link what linkctl last set of these (its ledger), commented out: linkctl knows what it sent, not what another writer set since, so uncomment only what you know to be so.',
        'Changes are sent kind by kind, each kind once the kinds it names are done (domains, pixels, campaigns and channels before links; channel assignments last), up to --concurrency of one kind at a time.',
      ].join('\n')))
      .action(bind(load, 'apply')),
    ['linkctl apply -f account.yaml', 'linkctl apply -f account.yaml --prune --yes', 'linkctl apply -f account.yaml --prune --yes --max-deletes 10', 'linkctl export -p old --include-secrets | linkctl apply -p new -f - --yes'],
  );
}
