/**
 * The commander program and `main(argv, io)`: the one place that maps errors to exit codes.
 * Start-up loads commander and the command definitions only; every action, the API layer,
 * conf, chalk, ora, cli-table3 and the sandbox are imported when a command runs.
 */
import { Command, CommanderError, Help } from 'commander';
import { CliError, EXIT_CODE_HELP, ExitCode, UsageError } from './errors.js';
import type { IO } from './io.js';
import { redact } from './redact.js';
import { VERSION } from './version.js';
import { overrideReason, seconds } from './validate.js';
import { editDistance } from './distance.js';
import { DOCUMENT_FORMATS, FORMATS, type Format } from './output/types.js';
import { documentFormats, enumOption, isBulk, type Action, type Bind } from './commands/shared/define.js';
import { wrapped, wrapText } from './commands/shared/help-text.js';
import type { Context, GlobalOptions } from './context.js';
import { registerCommands } from './commands/index.js';


/** `error: unknown command 'x'\n(Did you mean y?)\n` becomes `linkctl: unknown command 'x' (did you mean y?)\n`. */
function usageError(text: string): string {
  const lines = text.trim().replace(/^error: /, '').split('\n');
  const [first = '', ...rest] = lines;
  const more = rest.map((l) => l.trim().replace(/^\((.*)\)$/, '$1').replace(/^Did/, 'did')).filter(Boolean);
  return `linkctl: ${first}${more.length ? ` (${more.join('; ')})` : ''}\n`;
}

/**
 * `linkctl help qr add` is `linkctl qr add --help`, as in gh; an unknown command is a usage
 * error with a suggestion. Returns the argv to run.
 */
function helpArgv(program: Command, topics: string[]): string[] {
  let command = program;
  for (const [i, name] of topics.entries()) {
    if (name.startsWith('-')) break;
    const sub = command.commands.find((c) => c.name() === name || c.aliases().includes(name));
    if (!sub) {
      const path = topics.slice(0, i + 1).join(' ');
      const names = command.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden && c.name() !== 'help').map((c) => c.name());
      const close = names.filter((n) => n.startsWith(name.slice(0, 2)) || editDistance(n, name) <= 2);
      const parent = topics.slice(0, i).join(' ');
      throw new UsageError(
        `unknown command "${path}"${close.length ? ` (did you mean ${close.map((n) => [parent, n].filter(Boolean).join(' ')).join(', ')}?)` : ''}`,
        `run \`linkctl ${parent ? `${parent} ` : ''}--help\` to see the commands`,
      );
    }
    command = sub;
  }
  return [...topics, '--help'];
}

/** `linkctl qr list` for `-p work qr list --nope`: the commands named in argv, for a hint. */
/** The names of a command and its parents below the program: `link add`. */
function* ancestry(command: Command): Generator<string> {
  if (command.parent?.parent) yield* ancestry(command.parent);
  if (command.parent) yield command.name();
}

function commandPath(program: Command, argv: string[]): string {
  const path = ['linkctl'];
  let command = program;
  for (const token of argv) {
    const sub = command.commands.find((c) => c.name() === token || c.aliases().includes(token));
    if (!sub) continue;
    path.push(sub.name());
    command = sub;
  }
  return path.join(' ');
}

/** The widest term column: at 60 columns its descriptions get 28 (commander wraps nothing under 20, minWidthToWrap). */
const TERM_COLUMN = 28;

/**
 * Help that fits 60 columns. The term column is at most TERM_COLUMN wide: a longer term (`assign
 * <channel-id> <type> <item-id...>`) gets a line of its own, its description under the column.
 * The usage line wraps under itself. Neither depends on the width, so the build-time templates
 * (src/help-templates.ts) hold them as they are, with markers for the wrapping.
 */
const NARROW_HELP: Partial<Help> = {
  padWidth(command: Command, helper: Help): number {
    return Math.min(Help.prototype.padWidth.call(this, command, helper), TERM_COLUMN);
  },
  formatItem(term: string, termWidth: number, description: string, helper: Help): string {
    if (term.length <= termWidth || !description) return Help.prototype.formatItem.call(this, term, termWidth, description, helper);
    return `  ${term}\n${Help.prototype.formatItem.call(this, '', termWidth, description, helper)}`;
  },
  styleUsage(this: Help, usage: string): string {
    const prefix = 'Usage: '.length;
    return this.boxWrap(usage, (this.helpWidth ?? 80) - prefix).replace(/\n/g, `\n${' '.repeat(prefix)}`);
  },
};

export function buildProgram(io: IO, bind: Bind): Command {
  const program = new Command('linkctl');
  program
    .description('Manage QR codes, branded domains, campaigns, channels, pixels and short links from the command line.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // Help wraps to the terminal it is printed on (80 columns elsewhere, as commander does).
      // bin/linkctl.js applies the same rule to the pre-rendered help: keep them together.
      getOutHelpWidth: () => (io.stdout.isTTY && io.stdout.columns) || 80,
      getErrHelpWidth: () => (io.stderr.isTTY && io.stderr.columns) || 80,
      // commander's usage errors in linkctl's style: `linkctl: message`, then the hint.
      outputError: (s, write) => write(usageError(s)),
    })
    .exitOverride()
    // A command's help shows its own options; the global ones are named once at its end (GLOBALS_FOOTER)
    // and described by `--help-all` (helpAll below), not repeated in every command's help.
    .configureHelp({ showGlobalOptions: false, sortSubcommands: false, minWidthToWrap: 20, ...NARROW_HELP })
    .option('-p, --profile <name>', 'profile to use (env LINKCTL_PROFILE)')
    .option('--base-url <url>', 'API base URL, the site root (env LINKCTL_BASE_URL)')
    .option('--api-path <path>', "where the installation serves its API under the base URL (env LINKCTL_API_PATH; default /api, or the profile's)")
    .option('--as-user <id|email>', "run the command as another user of the installation, with their key read through the admin API (an admin's key only; never stored or shown)")
    .option('--json', 'print JSON (same as -o json)')
    .addOption(enumOption('-o, --output <format>', 'output format (markdown: plan only)', [...FORMATS, ...DOCUMENT_FORMATS]))
    .option('--fields <list>', 'columns to show, comma-separated, in order', (v) => v.split(',').map((f) => f.trim()).filter(Boolean))
    .option('--no-header', 'leave out the header line of table, csv and tsv output')
    .option('--csv-raw', "csv and tsv cells exactly as they are: no ' before a cell a spreadsheet would run as a formula (=, +, -, @)")
    .option('-q, --quiet', 'print only ids, one per line')
    .option('--no-color', 'no colour (also NO_COLOR)')
    .option('--debug', 'trace HTTP requests to stderr (the key is redacted)')
    .option('--timeout <seconds>', 'give up on one attempt after this long', (v) => seconds('--timeout', v), 30)
    .option('--max-wait <seconds>', 'longest wait for the rate limit before exit 5', (v) => seconds('--max-wait', v), 120)
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--dry-run', 'print the request that would change something, and send nothing')
    .option('--sandbox', 'run against the built-in local sandbox (env LINKCTL_SANDBOX=1)')
    .option('--insecure-http', 'allow sending the key over plain http to a non-loopback host')
    .option('--policy <file>', "policy file every write keeps (env LINKCTL_POLICY, or the profile's policy)")
    .option('--override <reason>', 'let a write through that breaks the policy, saying why (recorded)', (v) => overrideReason('--override', v))
    .addHelpText(
      'after',
      wrapped(`\nEnvironment:\n  LINKCTL_API_KEY, LINKCTL_BASE_URL, LINKCTL_API_PATH, LINKCTL_PROFILE, LINKCTL_CONFIG_DIR, LINKCTL_SANDBOX, NO_COLOR, HTTPS_PROXY, HTTP_PROXY, NO_PROXY\n\n${EXIT_CODE_HELP}\n`),
    );
  registerCommands(program, bind);
  program.addHelpText('afterAll', ({ error, command }) => (command === program || globalsShown.has(command) ? '' : wrapText(command, error, globalsFooter(program, command))));
  for (const group of groups(program)) bareGroupShowsHelp(group);
  return program;
}

/** Commands whose help, this run, describes the global options (`--help-all`). */
const globalsShown = new WeakSet<Command>();

/** The line at the end of a command's help that names the global options, from their definitions. */
function globalsFooter(program: Command, command: Command): string {
  const names = program.options.filter((o) => o.long !== '--version' && o.long !== '--help').map((o) => (o.short ? `${o.short}/${o.long}` : o.long));
  const path = [];
  for (let c: Command | null = command; c && c !== program; c = c.parent) path.unshift(c.name());
  return `\nGlobal options, anywhere on the line: ${names.join(', ')}. \`linkctl ${path.join(' ')} --help-all\` describes them.\n`;
}

/** Every command with subcommands (the program included). */
function groups(command: Command): Command[] {
  return command.commands.length ? [command, ...command.commands.flatMap(groups)] : [];
}

/**
 * `linkctl account`, a group run without one of its commands, lists them on stdout and exits 0,
 * as gh does: it is a question, not a mistake. commander answers it with its help on stderr and
 * an error, through `help({ error: true })`; only a group's own help is changed.
 */
function bareGroupShowsHelp(group: Command): void {
  const help = group.help.bind(group) as (context?: unknown) => never;
  group.help = ((context?: unknown) => help(context && typeof context === 'object' && (context as { error?: boolean }).error ? { error: false } : context)) as Command['help'];
}

/**
 * `--help-all`: the help of the command before it, with the global options described after its
 * own (commander's "Global Options" section). The rest of the argv is `--help`'s.
 */
function helpAll(program: Command, argv: string[]): string[] {
  if (!argv.includes('--help-all')) return argv;
  const all = (command: Command): Command[] => [command, ...command.commands.flatMap(all)];
  for (const command of all(program)) {
    command.configureHelp({ ...command.configureHelp(), showGlobalOptions: true });
    globalsShown.add(command);
  }
  return argv.map((arg) => (arg === '--help-all' ? '--help' : arg));
}

/**
 * A terminal that does not say how wide it is (0 columns: some pseudo-terminals and CI runners) is
 * as wide as COLUMNS says, as curses and coreutils take it; every width below reads `columns`.
 */
function sizeUnsizedTerminals(io: IO): void {
  const columns = Number(io.env.COLUMNS);
  if (!Number.isInteger(columns) || columns < 1 || columns > 10_000) return;
  for (const stream of [io.stdout, io.stderr]) if (stream.isTTY && !((stream.columns ?? 0) > 0)) stream.columns = columns;
}

/** Runs linkctl with `argv` (without node and script) and returns the exit code. Never calls process.exit. */
export async function main(argv: string[], io: IO): Promise<number> {
  sizeUnsizedTerminals(io);
  let context: Context | undefined;
  let exitCode: number = ExitCode.ok;
  const bind: Bind = (load, name) => async (...args) => {
    const command = args[args.length - 1] as Command;
    const globals = command.optsWithGlobals() as GlobalOptions;
    const [{ Context }, module] = await Promise.all([import('./context.js'), load()]);
    context = new Context(io, globals, documentFormats(command));
    context.cli = { main, buildProgram };
    // The ledger records which command sent each write.
    context.command = [...ancestry(command)].join(' ');
    context.checkOutput();
    let action = module[name];
    if (typeof action !== 'function') throw new Error(`internal: no action ${name}`);
    // --from FILE: the same action, once per row of the file (src/bulk/).
    if (command.opts().from !== undefined && isBulk(command)) {
      action = (await import('./bulk/engine.js')).bulkAction(command, name, module);
      context.command += ' --from';
    }
    const result = await (action as Action)(context, { args: command.processedArgs, opts: command.opts() });
    const { render } = await import('./output/render.js');
    await render(result, context.outputOptions(), context.outputStreams());
    if (result.kind === 'list') io.listed?.(result.summary?.());
    exitCode = result.exitCode ?? ExitCode.ok;
  };
  const program = buildProgram(io, bind);
  try {
    // `linkctl` alone is the program run bare, as `linkctl account` is a group run bare: its help, exit 0.
    if (argv.length === 0) {
      program.outputHelp();
      return ExitCode.ok;
    }
    const args = helpAll(program, argv);
    await program.parseAsync(args[0] === 'help' ? helpArgv(program, args.slice(1)) : args, { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError && error.exitCode !== 0 && !['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(error.code)) {
      io.stderr.write(`hint: run \`${commandPath(program, argv)} --help\` for usage\n`);
    }
    return report(error, io, context, argv);
  } finally {
    await context?.close().catch(() => undefined);
  }
}

async function report(error: unknown, io: IO, context: Context | undefined, argv: string[]): Promise<number> {
  const { DryRun } = context ? await import('./http/client.js') : { DryRun: undefined };
  // Messages may quote a server or a file: control characters and bidi overrides are shown as escapes.
  const { safeStringify, safeText } = await import('./output/safe-text.js');
  if (DryRun && error instanceof DryRun) {
    const format = safeFormat(context);
    // Passwords in the body (account, link, wifi codes) are redacted like a --debug trace.
    const body = error.request.body === undefined ? undefined : (JSON.parse(redact(JSON.stringify(error.request.body), secretsOf(context, io))) as unknown);
    const request = { ...error.request, body };
    if (format === 'json' || format === 'ndjson') io.stdout.write(`${safeStringify({ dryRun: true, ...request }, format === 'json' ? 2 : 0)}\n`);
    else io.stdout.write(`${request.method} ${safeText(request.url)}\n${request.body === undefined ? '' : `${safeStringify(request.body, 2)}\n`}`);
    io.stderr.write('dry run: nothing was sent\n');
    return ExitCode.ok;
  }
  const secrets = secretsOf(context, io);
  if (error instanceof CommanderError) {
    // commander has already printed its message (usage errors) or the help/version text.
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.exitCode === 0) return ExitCode.ok;
    return ExitCode.usage;
  }
  if (error instanceof CliError) {
    // Wrapped at word boundaries on a terminal (src/output/wrap.ts), as every note is.
    const { wrapMessage } = await import('./output/wrap.js');
    const columns = io.stderr.isTTY ? io.stderr.columns : undefined;
    io.stderr.write(`${wrapMessage(safeText(redact(`linkctl: ${error.message}`, secrets), true), columns)}\n`);
    if (error.hint) io.stderr.write(`${wrapMessage(safeText(redact(`hint: ${error.hint}`, secrets), true), columns)}\n`);
    return error.exitCode;
  }
  const debug = argv.includes('--debug');
  const err = error as Error;
  io.stderr.write(`${safeText(redact(`linkctl: unexpected error: ${err?.message ?? String(error)}`, secrets), true)}\n`);
  io.stderr.write(debug && err?.stack ? `${safeText(redact(err.stack, secrets), true)}\n` : 'hint: run again with --debug for details, and report it if it persists\n');
  return ExitCode.api;
}

function safeFormat(context: Context | undefined): Format | undefined {
  try {
    return context?.format;
  } catch {
    return undefined;
  }
}

function secretsOf(context: Context | undefined, io: IO): string[] {
  const secrets = [io.env.LINKCTL_API_KEY ?? '', ...(context?.secrets ?? [])];
  try {
    const key = context?.settings().apiKey?.value;
    if (key) secrets.push(key);
  } catch {
    // Settings may be what failed; the environment key is still redacted.
  }
  return secrets;
}

