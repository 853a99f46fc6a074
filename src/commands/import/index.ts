/** `import`: another shortener's export as an account file. Flags and help only; the work is in src/import/, loaded when the command runs. */
import type { Command } from 'commander';
import { dbOptionOf, enumArgument, enumOption, forceOption, pathArgument, pathOption, withExamples, type Bind } from '../shared/define.js';
import { wrapped } from '../shared/help-text.js';
import { FORMATS, FORMAT_NAMES, MAP_TARGETS, ON_COLLISION, TAGS_TO } from '../../import/formats.js';

/**
 * Each format's columns, from the definitions the parser uses, so the help cannot drift from them;
 * wrapped at the terminal's width by `wrapped` (each format an item, its columns hanging).
 */
function formatsHelp(): string {
  const lines = Object.values(FORMATS).map((f) => `  ${f.name.padEnd(9)}  ${f.input === 'json' ? 'JSON: ' : ''}${f.columns.join(', ')}`);
  return [
    '',
    "Formats and their columns (the vendor's names; case, spaces, _ and - do not matter):",
    ...lines,
    `  ${'csv'.padEnd(9)}  any CSV with a header row, its columns named by --map: ${MAP_TARGETS.join(', ')}`,
    '',
    'The output is an account file of links keyed by alias, with the source line, id, creation date,',
    'clicks, domain and tags of each in a comment. A link whose alias the target cannot take (the same',
    'alias twice, one under 3 characters, one the server would rewrite) is a collision: listed with its',
    'line, and nothing written, unless --on-collision says what to do. Sends nothing without --keep-domains.',
  ].join('\n');
}

export function register(program: Command, bind: Bind): void {
  const load = () => import('../../import/actions.js');
  withExamples(
    program
      .command('import')
      .description("Turn another shortener's export into an account file that `plan` and `apply` bring into this account")
      .addArgument(enumArgument('<format>', 'where the export comes from', FORMAT_NAMES))
      .addArgument(pathArgument('<input>', 'the export file to read'))
      .addOption(pathOption('--file <path>', 'write to this file (atomically, mode 0600) instead of stdout'))
      .option('--map <part=column,...>', `csv: which column holds each part of a link (${MAP_TARGETS.join(', ')}); url and alias (or short) are needed`)
      .addOption(enumOption('--tags-to <kind>', "what the source's tags become: each link's first tag its campaign, every tag a channel, or comments only", TAGS_TO).default('none'))
      .addOption(enumOption('--on-collision <action>', 'a link that cannot keep its alias: fail (exit 2, nothing written), suffix (alias-2, ...), skip (left out)', ON_COLLISION).default('fail'))
      .option('--keep-domains', "read the account's branded domains (one request) and keep each link's domain where the account has it")
      .option('--with-clicks', "record the export's click totals as the first snapshot of this account's click history (one request: the account; see `linkctl stats`)")
      .addOption(dbOptionOf())
      .addOption(forceOption())
      .addHelpText('after', wrapped(formatsHelp))
      .action(bind(load, 'importLinks')),
    [
      'linkctl import bitly bitly-links.csv > account.yaml',
      'linkctl import shlink short_urls.csv --tags-to campaign --file account.yaml',
      'linkctl import csv links.csv --map "url=Destination,alias=Back-half,title=Name"',
      'linkctl import kutt links.json --keep-domains --on-collision suffix --file account.yaml',
      'linkctl import bitly bitly-links.csv --with-clicks --file account.yaml',
    ],
  );
}
