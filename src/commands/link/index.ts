/** `link`: short links. Flags and help only; the work is in ./actions.ts, loaded when a command runs. */
import type { Command } from 'commander';
import { UsageError } from '../../errors.js'; // already loaded by validate.js: no start-up cost
import { bulkOptions, deleteCommand, enumOption, forAgents, forceOption, listCommand, many, optionsForAgents, pathOption, withExamples, type Bind } from '../shared/define.js';
import { wrapped } from '../shared/help-text.js';
import { httpUrl, idOrName, oneOf, positiveInt, rgbColor } from '../../validate.js';
import { CLEARABLE, IF_EXISTS, IF_EXISTS_VALUES, LINK_ORDERS } from '../../model/link-types.js';
import { linkOptions } from '../../model/link-options.js';

/** `--verify` of the commands that write links: single commands always check; rows and files only when asked. */
const VERIFY_HELP = 'with --from: read each link back after writing it and report options the server dropped (the account\'s plan may lack them): one more request a row; a single command always checks';

/** A link as a command names it: its id (digits), else its alias or short URL, looked up when the command runs. */
const linkRef = (v: string): number | string => idOrName('ID', v);

/** A short URL, with or without its scheme (real servers accept both). */
const shortArg = (raw: string): string => (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? httpUrl('--short', raw) : httpUrl('--short', `https://${raw}`) && raw);

/** A quiet zone in modules, 0-99. */
function margin(raw: string): number {
  if (!/^\d{1,2}$/.test(raw.trim())) throw new UsageError(`--margin must be a whole number of modules from 0 to 99, got "${raw}"`, 'e.g. --margin 4');
  return Number(raw);
}

export function register(program: Command, bind: Bind): void {
  const load = () => import('./actions.js');
  const link = program.command('link').description('Manage short links');

  listCommand(link, bind, load, 'short links, newest first', [
    'linkctl link list --search docs',
    'linkctl link list --order clicks --limit 10',
  ])
    .option('--search <text>', 'only links whose alias, destination or title contains this (servers search parts of words)')
    .addOption(enumOption('--order <order>', 'sort order, newest or most clicked first', LINK_ORDERS));

  withExamples(
    link
      .command('get')
      .description('Show a short link and its click statistics, by id or by short URL')
      .argument('[id]', 'link id, alias or short URL', linkRef)
      .option('--short <url>', 'find the link by its short URL (scheme optional: go.example.com/abc) instead of its id (on 6.x servers, one more request)', shortArg)
      .action(bind(load, 'get')),
    ['linkctl link get 1', 'linkctl link get --short https://go.example.com/docs', 'linkctl link get --short go.example.com/docs', 'linkctl link get 1 --json'],
  );

  withExamples(
    bulkOptions(linkOptions(link.command('add').description('Shorten a URL').argument('<url>', 'the long URL, with http:// or https://', (v) => httpUrl('URL', v)))
      .addOption(enumOption('--if-exists <what>', 'when the link exists: a link with the alias, or without --alias one with the destination', IF_EXISTS_VALUES))
      .option('--verify', VERIFY_HELP)
      .addHelpText(
        'after',
        wrapped([
          '',
          'A link with --alias is known by its alias (and domain), as in `linkctl apply`; without',
          'one, by its destination. Servers answer a create with the existing link when the URL',
          'was already shortened, and refuse an alias in use; linkctl tells these apart (reading the',
          'newest link\'s id first: one request) and then follows --if-exists:',
          ...IF_EXISTS_VALUES.map((v) => `  ${v.padEnd(6)}  ${IF_EXISTS[v]}`),
        ].join('\n')),
      )
      .action(bind(load, 'add')), ['linkctl link add --from links.csv -o csv > results.csv', 'linkctl link add --from links.ndjson --if-exists skip']),
    [
      'linkctl link add https://example.com/spring-sale --alias spring',
      "linkctl link add https://example.com --geo Canada=https://example.ca --device iPhone=https://apps.apple.com/app/x --expiry '2035-12-31 23:59:59'",
      'linkctl link add https://example.com --redirect frame --pixel 1 --param utm_source=newsletter --public',
      'printf %s "$PASS" | linkctl link add https://example.com/private --password-stdin',
    ],
  );

  withExamples(
    bulkOptions(linkOptions(
      link
        .command('update')
        .description('Change a short link; what is not given keeps its value where linkctl can read it back')
        .argument('<id>', 'link id, alias or short URL', linkRef)
        .option('--url <url>', 'new destination', (v) => httpUrl('--url', v))
        .addOption(enumOption('--clear <option>', 'clear an option on purpose (repeatable); naming one linkctl cannot read back also spares the confirmation', CLEARABLE).argParser(many((v) => oneOf('--clear', v, CLEARABLE)))),
    )
      .addHelpText(
        'after',
        wrapped([
          '',
          'Real servers replace every option of a link on update. linkctl reads the link',
          'first (its details, and its list item by a search for its alias: two requests;',
          'with --from the list is read once for all rows) and sends again its destination,',
          'domain, campaign, channel, geo and device targeting, expiry, meta title and',
          'meta description. What it cannot read back (password, pixels, parameters, deep',
          'links, redirect type, splash or overlay, language targeting, meta image, device',
          'targeting on 7.x servers) would be cleared, and every update makes the link',
          'private, so the update is confirmed like a delete: a terminal asks [y/N] naming',
          'it; a script needs --yes. Give those options again, or --clear each, and',
          '--private, and no confirmation is needed. The note (--description) is stored on',
          'create only and --public cannot survive an update: both are refused here.',
        ].join('\n')),
      )
      .option('--verify', VERIFY_HELP)
      .action(bind(load, 'update')), ['linkctl link update --from changes.csv --yes']),
    [
      "linkctl link update 1 --meta-description 'Spring campaign' --yes",
      'linkctl link update 1 --url https://example.com/new --private --yes',
      'linkctl link update 2 --geo Germany=https://example.de --clear expiry --yes',
      'linkctl link update 1 --meta-title Docs --dry-run',
    ],
  );

  deleteCommand(link, bind, load, 'link', '', ['linkctl link delete 1 2 --yes', 'linkctl link delete spring-sale --yes'], { parse: linkRef, describe: 'ids, aliases or short URLs of the links' });

  withExamples(
    optionsForAgents(forAgents(link
      .command('qr'), 'The code holds the short URL: its scans count as visits of the link.')
      .description('Draw a link\'s short URL as a QR code made locally: on the terminal, or as a PNG or SVG file')
      .argument('[id]', 'link id, alias or short URL', linkRef)
      .option('--short <url>', 'encode this short URL instead of looking up a link (no request sent)', (v) => httpUrl('--short', v))
      .addOption(pathOption('--file <path>', 'write a print-ready image instead; the format follows the extension, .png or .svg'))
      .addOption(forceOption())
      .option('--size <pixels>', 'image width and height (PNG: rounded down to whole pixels per module; default 1024)', (v) => positiveInt('--size', v))
      .option('--margin <modules>', 'quiet zone around the code, in modules (default 2 on the terminal, 4 in files)', margin)
      .addOption(enumOption('--ecc <level>', 'error correction: L 7%, M 15%, Q 25%, H 30% of the code can be damaged', ['L', 'M', 'Q', 'H']))
      .option('--foreground <color>', 'colour of the modules in the file, #RRGGBB or rgb(r,g,b)', (v) => rgbColor('--foreground', v))
      .option('--background <color>', 'colour of the background in the file, #RRGGBB or rgb(r,g,b)', (v) => rgbColor('--background', v))
      .addHelpText('after', wrapped('\nThe code encodes the short URL, so scans count as visits of the link. A server-side QR code\n(`linkctl qr add`) counts scans of its own; `linkctl qr download` saves its image.'))
      .action(bind(() => import('./qr.js'), 'qr')), { '--margin': 'quiet zone, in modules (default 4 in files)', '--ecc': 'error correction level' }),
    [
      'linkctl link qr 1',
      'linkctl link qr --short https://go.example.com/menu',
      "linkctl link qr 1 --file menu.svg --ecc H --foreground '#112233'",
      'linkctl link qr 1 --file poster.png --size 2048 --margin 4',
    ],
  );
}
