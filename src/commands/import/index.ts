/** `import`: another shortener's export as an account file. Flags and help only; the work is in src/import/, loaded when the command runs. */
import type { Command } from 'commander';
import { dbOptionOf, enumArgument, forAgents, enumOption, forceOption, pathArgument, pathOption, optionsForAgents, withExamples, type Bind } from '../shared/define.js';
import { wrapped } from '../shared/help-text.js';
import { DELIMITERS, delimiterOption, FORMATS, FORMAT_NAMES, MAP_TARGETS, ON_COLLISION, TAGS_TO } from '../../import/formats.js';

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
    'clicks, domain and tags of each in a comment. The target account is read first (its domains and',
    'links) and each row is new, already there (same alias and destination: nothing to do), or cannot',
    'keep its alias: a collision (the account has the alias for another destination), a conflict with',
    'an earlier row, or an alias the server refuses (under 3 characters, or empty once the server',
    'rewrites it). Those are listed with their line and nothing is written, unless --on-collision says',
    'what to do; only replace points a live link elsewhere. Aliases the server rewrites (with space:',
    'with-space) are listed; exact duplicate rows are collapsed into one.',
    '',
    'The encoding is read from the byte-order mark (UTF-8, UTF-16); a file without one must be UTF-8',
    'or be named with --encoding. The CSV delimiter (comma, semicolon or tab) is found in the header.',
  ].join('\n');
}

/** The import tool's notes for an agent (src/mcp/tools.ts): the help's column tables are a person's reference. */
const AGENT_NOTES = [
  'Only reads the account. A row that cannot keep its alias (taken, a conflict with an earlier row, or refused by servers) refuses the import unless onCollision says what to do.',
].join('\n\n');

export function register(program: Command, bind: Bind): void {
  const load = () => import('../../import/actions.js');
  withExamples(
    optionsForAgents(forAgents(program.command('import'), AGENT_NOTES)
      .description("Turn another shortener's export into an account file that `plan` and `apply` bring into this account")
      .addArgument(enumArgument('<format>', 'where the export comes from', FORMAT_NAMES))
      .addArgument(pathArgument('<input>', 'the export file to read'))
      .addOption(pathOption('--file <path>', 'write to this file (atomically, mode 0600) instead of stdout'))
      .option('--map <part=column,...>', `csv: which column holds each part of a link (${MAP_TARGETS.join(', ')}); url and alias (or short) are needed`)
      .addOption(enumOption('--tags-to <kind>', "what the source's tags become: each link's first tag its campaign, every tag a channel, or comments only", TAGS_TO).default('none'))
      .addOption(enumOption('--on-collision <action>', 'a link that cannot keep its alias: fail (exit 2, nothing written), suffix (alias-2, ...), skip (left out), replace (the file\'s destination replaces the live link\'s)', ON_COLLISION).default('fail'))
      .option('--keep-domains', "keep each link's domain where the target account has it (else every link goes to its default domain)")
      .option('--encoding <name>', 'the encoding of a file without a byte-order mark that is not UTF-8: windows-1252, latin1, iso-8859-15, utf-16le, ...')
      .addOption(enumOption('--delimiter <delimiter>', 'the CSV delimiter, when the header does not show it', Object.values(DELIMITERS)).argParser((v: string) => delimiterOption(v)))
      .option('--skip-invalid', 'import the valid rows and set the others aside (listed, or written to --rejects), instead of refusing the file')
      .addOption(pathOption('--rejects <path>', 'with --skip-invalid: write the rows set aside to this CSV file (line, column, reason, row)'))
      .option('--with-clicks', "record the export's click totals as the first snapshot of this account's click history (one more request: the account; see `linkctl stats`)")
      .addOption(dbOptionOf())
      .addOption(forceOption())
      .addHelpText('after', wrapped(formatsHelp))
      .action(bind(load, 'importLinks')), {
      '--map': 'csv: part=column pairs; url and alias (or short) are needed',
      '--tags-to': 'tags become: the first a campaign, each a channel, or comments',
      '--on-collision': 'for a row that cannot keep its alias',
      '--keep-domains': 'keep domains the account has (else its default domain)',
      '--encoding': 'of a file without a byte-order mark that is not UTF-8, e.g. windows-1252',
      '--skip-invalid': 'set invalid rows aside instead of refusing the file',
      '--delimiter': 'CSV delimiter, if the header does not show it',
    }),
    [
      'linkctl import bitly bitly-links.csv > account.yaml',
      'linkctl import shlink short_urls.csv --tags-to campaign --file account.yaml',
      'linkctl import csv links.csv --map "url=Destination,alias=Back-half,title=Name"',
      'linkctl import kutt links.json --keep-domains --on-collision suffix --file account.yaml',
      'linkctl import bitly bitly-links.csv --with-clicks --file account.yaml',
      'linkctl import yourls yourls-links.csv --encoding windows-1252 > account.yaml',
      'linkctl import csv links.csv --map "url=Destination,alias=Back-half" --skip-invalid --rejects rejects.csv',
    ],
  );
}
