/**
 * Helpers for command definitions. Definitions load at start-up (for --help and completion),
 * so this file imports nothing but commander and the validators.
 */
import { Argument, Option, type Command } from 'commander';
import type { Context } from '../../context.js';
import type { DocumentFormat, Result } from '../../output/types.js';
import { concurrencySetting, MAX_IN_FLIGHT, positiveInt } from '../../validate.js';
import { AUTO_MAX_IN_FLIGHT } from '../../http/concurrency.js';
import { wrapped } from './help-text.js';
import type { ActionInput } from '../../context.js';
export type { ActionInput } from '../../context.js';
export { enumArgument, enumOption, isRepeatable, many, pathArgument, pathKind, pathOption, type PathKind } from '../../flags.js';
import { enumOption, isRepeatable, pathOption } from '../../flags.js';
import type { AccountReader } from '../../model/reader.js';

export type Action = (ctx: Context, input: ActionInput) => Promise<Result>;
export type ActionModule = Record<string, Action | unknown>;

/**
 * Something a row names in the account (`<name>Names`: a link's domain), checked once for every
 * row that names it before any row is sent: the flag and value, and the check (a read).
 */
export interface AccountName {
  flag: string;
  value: string;
  check: (reader: AccountReader) => Promise<void>;
}

export type Loader = () => Promise<ActionModule>;
/** Turns a lazily imported action into a commander action handler; provided by main(). */
export type Bind = (load: Loader, name: string) => (...args: unknown[]) => Promise<void>;

export function withExamples(command: Command, lines: string[]): Command {
  return command.addHelpText('after', wrapped(`\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`));
}

/**
 * `--db`: every command that reads or writes the click-history database takes it (`stats`,
 * `check`, `import --with-clicks`). Not a tool parameter (src/mcp/tools.ts, NOT_FOR_TOOLS).
 */
export function dbOption(command: Command): Command {
  return command.addOption(dbOptionOf());
}

export function dbOptionOf(): Option {
  return pathOption('--db <file|url>', 'history database: an SQLite file, or postgres://user@host/db (env LINKCTL_DB; default history.db in the state folder)');
}

const LISTS = Symbol('lists records');

/**
 * Marks a command whose --json result is a list of records that can be long (every list command;
 * `check`): its MCP tool pages its answers (`limit`, `cursor`) and keeps each under a size cap.
 */
export function listsRecords(command: Command): Command {
  return Object.assign(command, { [LISTS]: true });
}

const AGENT_NOTES = Symbol('agentNotes');

/**
 * What an agent needs to know of a command whose help is written for a person at a shell (its
 * flags, exit codes, terminal view): the MCP tool's notes instead of the help's (src/mcp/tools.ts).
 */
export function forAgents(command: Command, notes: string): Command {
  (command as { [AGENT_NOTES]?: string })[AGENT_NOTES] = notes;
  return command;
}

/** A shorter description of an option for an MCP tool's schema, where the help's says what only a person needs. */
export function optionForAgents<T extends Option>(option: T, description: string): T {
  (option as { [AGENT_NOTES]?: string })[AGENT_NOTES] = description;
  return option;
}

/**
 * Shorter descriptions of a command's options for its MCP tool, by long flag (`--deadline`):
 * where the help's says what only a person needs, or more than an agent needs to choose. Given
 * once the options are defined; a flag the command does not have is a mistake, thrown at start.
 */
export function optionsForAgents(command: Command, texts: Record<string, string>): Command {
  for (const [flag, text] of Object.entries(texts)) {
    const option = command.options.find((o) => o.long === flag);
    if (!option) throw new Error(`internal: ${command.name()} has no option ${flag}`);
    optionForAgents(option, text);
  }
  return command;
}

/** The notes `forAgents` gave the command (or `optionForAgents` the option), if any. */
export function agentNotes(command: Command | Option): string | undefined {
  return (command as { [AGENT_NOTES]?: string })[AGENT_NOTES];
}

/** Whether `command` was marked with `listsRecords`. */
export function isList(command: Command): boolean {
  return Boolean((command as { [LISTS]?: boolean })[LISTS]);
}

export function paginationOptions(command: Command): Command {
  listsRecords(command);
  return command
    .option('--limit <n>', 'records per page (server default 15)', (v) => positiveInt('--limit', v))
    .option('--page <n>', 'page to show (default 1)', (v) => positiveInt('--page', v))
    .option('--all', 'fetch every page, in order, at the pace the rate limit allows: pages of 1,000 records, larger while the server answers quickly (--limit sets the page size)');
}

/** Adds `<parent> list` with the shared pagination options. */
export function listCommand(parent: Command, bind: Bind, load: Loader, what: string, examples: string[] = []): Command {
  const name = parent.name();
  const command = paginationOptions(parent.command('list').alias('ls').description(`List ${what}`)).action(bind(load, 'list'));
  return withExamples(command, [`linkctl ${name} list`, `linkctl ${name} list --limit 50 --page 2`, `linkctl ${name} list --all --json`, ...examples]);
}

/** Adds `<parent> delete ID...`, which asks first (once, naming every id) on a terminal and needs --yes elsewhere. */
export function deleteCommand(parent: Command, bind: Bind, load: Loader, what: string, note = '', examples: string[] = [], ref?: { parse: (v: string) => number | string; describe: string }): Command {
  const name = parent.name();
  const command = parent
    .command('delete')
    .alias('rm')
    .description(`Delete one or more ${what}s${note}`)
    .argument('<id...>', ref?.describe ?? `ids of the ${what}s`, (v, previous: Array<number | string> = []) => [...previous, ref ? ref.parse(v) : positiveInt('ID', v)])
    .action(bind(load, 'remove'));
  bulkOptions(command, [`linkctl ${name} list --all -q | linkctl ${name} delete --from - --yes`]);
  return withExamples(command, [`linkctl ${name} delete 1`, `linkctl ${name} delete 1 --yes`, ...examples]);
}

const DOCUMENTS = Symbol('document formats');

/** Lets `command` print `-o FORMAT` documents (plan: markdown); its action reads `ctx.document`. */
export function printsDocuments(command: Command, formats: readonly DocumentFormat[]): Command {
  return Object.assign(command, { [DOCUMENTS]: formats });
}

/** The `-o` documents a command prints (none unless it says so with `printsDocuments`). */
export function documentFormats(command: Command): readonly DocumentFormat[] {
  return (command as { [DOCUMENTS]?: readonly DocumentFormat[] })[DOCUMENTS] ?? [];
}

/** Options of the command itself that are not columns of a bulk input. */
const NOT_COLUMNS = new Set(['from', 'from-format', 'stop-on-error', 'restart', 'concurrency', 'verify', 'help', 'password', 'password-stdin']);

/** What `--concurrency auto` does, in help (the rule itself is src/http/concurrency.ts). */
export const AUTO_CONCURRENCY_HELP =
  `auto (the default): one at a time while the server shows a rate limit (X-RateLimit headers or an over-limit answer), else up to ${AUTO_MAX_IN_FLIGHT} at a time, fewer when answers slow down or the server fails (5xx, resets, timeouts), and one again at the first over-limit answer`;

/**
 * `--concurrency N|auto` of every command that sends many requests (`--from`, `apply`, `export
 * --details`, `stats snapshot --details`, `qr download --from`): the one definition, so help,
 * completion and the MCP tools derive it. `what` says what runs at a time (rows, steps, reads).
 */
export function concurrencyOption(what: string): Option {
  const option = new Option('--concurrency <n|auto>', `${what} at a time, 1 to ${MAX_IN_FLIGHT}, or ${AUTO_CONCURRENCY_HELP}; results are listed in their order whatever order they finish in`).argParser((v: string) => concurrencySetting('--concurrency', v));
  return optionForAgents(option, `${what} at a time, 1 to ${MAX_IN_FLIGHT}, or auto (the default: paced by the server's rate limit and answers)`);
}

export interface BulkColumn {
  name: string;
  /** The positional argument or the option the column stands for. */
  argument?: Argument;
  option?: Option;
  repeatable: boolean;
  /** A flag without a value (true or false in a file). */
  flag: boolean;
}

/** The columns of a bulk input, derived from the command's own arguments and options. */
export function bulkColumns(command: Command): BulkColumn[] {
  const columns: BulkColumn[] = command.registeredArguments.map((argument) => ({ name: argument.name(), argument, repeatable: argument.variadic, flag: false }));
  for (const option of command.options) {
    const name = option.long?.replace(/^--/, '');
    if (!name || option.negate || NOT_COLUMNS.has(name)) continue;
    columns.push({ name, option, repeatable: isRepeatable(option), flag: !option.required && !option.optional });
  }
  return columns;
}

/** The columns as help text: generated from the definition, so they cannot drift from the flags. */
function columnsHelp(command: Command): string {
  const lines = bulkColumns(command).map((c) => {
    const what = c.argument ? `${c.argument.description || c.name}${c.argument.required ? ' (required)' : ''}` : (c.option!.description ?? '').replace(/ \(repeatable\)$/, '');
    const kind = c.flag ? ' [true/false]' : c.repeatable ? ' [;-separated in CSV, an array in JSON]' : '';
    return `  ${c.name.padEnd(17)}  ${what}${kind}`;
  });
  // Wrapped at the terminal's width by `wrapped` (src/commands/shared/help-text.ts): prose joins, items hang.
  return [
    '',
    'Bulk input (--from FILE, or - for stdin): CSV with a header row, NDJSON, or a JSON array of objects;',
    'one record per row, every row checked before anything is sent. Flags given on the command line',
    'apply to every row. Columns:',
    ...lines,
  ].join('\n');
}

/**
 * `--from FILE|-` and its companions. With --from, the positional arguments and mandatory options
 * come from the file's columns, so commander must not ask for them on the command line.
 */
export function bulkOptions(command: Command, examples: string[] = []): Command {
  command
    .addOption(pathOption('--from <file>', 'run once per record of a CSV, NDJSON or JSON file (- for stdin); see the columns below'))
    .addOption(enumOption('--from-format <format>', 'format of --from when its extension does not say', BULK_FORMATS))
    .option('--stop-on-error', 'with --from: stop at the first row that fails')
    .option('--restart', 'with --from: ignore the journal of an earlier run on the same input and start over')
    .addOption(concurrencyOption('with --from: rows sent'))
    .on('option:from', () => {
      for (const argument of command.registeredArguments) (argument as { required: boolean }).required = false;
      for (const option of command.options) option.mandatory = false;
    });
  command.addHelpText('after', wrapped(() => `${columnsHelp(command)}${examples.length ? `\n\nBulk examples:\n${examples.map((l) => `  $ ${l}`).join('\n')}` : ''}\n`));
  return command;
}

/** Whether `command` runs through the bulk engine with --from (`qr download --from -` has a --from of its own). */
export function isBulk(command: Command): boolean {
  return command.options.some((option) => option.long === '--from-format');
}

export const BULK_FORMATS = ['csv', 'ndjson', 'json'] as const;
export type BulkFormat = (typeof BULK_FORMATS)[number];

/** `--force` of every command that writes a file: the one definition (the rule is in src/files/access.ts). */
export function forceOption(): Option {
  return new Option('--force', 'replace the file if it exists (without it: a question on a terminal, a refusal elsewhere)');
}

