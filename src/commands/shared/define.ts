/**
 * Helpers for command definitions. Definitions load at start-up (for --help and completion),
 * so this file imports nothing but commander and the validators.
 */
import { Argument, Option, type Command } from 'commander';
import type { Context } from '../../context.js';
import type { Result } from '../../output/types.js';
import { oneOf, positiveInt } from '../../validate.js';

export interface ActionInput {
  /** Positional arguments after commander's parsing (validators applied). */
  args: unknown[];
  /** The command's own options. */
  opts: Record<string, any>;
}

export type Action = (ctx: Context, input: ActionInput) => Promise<Result>;
export type ActionModule = Record<string, Action | unknown>;
export type Loader = () => Promise<ActionModule>;
/** Turns a lazily imported action into a commander action handler; provided by main(). */
export type Bind = (load: Loader, name: string) => (...args: unknown[]) => Promise<void>;

export function withExamples(command: Command, lines: string[]): Command {
  return command.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`);
}

export function paginationOptions(command: Command): Command {
  return command
    .option('--limit <n>', 'records per page (server default 15)', (v) => positiveInt('--limit', v))
    .option('--page <n>', 'page to show (default 1)', (v) => positiveInt('--page', v))
    .option('--all', 'fetch every page, in order, at the pace the rate limit allows (100 a page unless --limit)');
}

/** Adds `<parent> list` with the shared pagination options. */
export function listCommand(parent: Command, bind: Bind, load: Loader, what: string, examples: string[] = []): Command {
  const name = parent.name();
  const command = paginationOptions(parent.command('list').alias('ls').description(`List ${what}`)).action(bind(load, 'list'));
  return withExamples(command, [`linkctl ${name} list`, `linkctl ${name} list --limit 50 --page 2`, `linkctl ${name} list --all --json`, ...examples]);
}

/** Adds `<parent> delete ID...`, which asks first (once, naming every id) on a terminal and needs --yes elsewhere. */
export function deleteCommand(parent: Command, bind: Bind, load: Loader, what: string, note = '', examples: string[] = []): Command {
  const name = parent.name();
  const command = parent
    .command('delete')
    .alias('rm')
    .description(`Delete one or more ${what}s${note}`)
    .argument('<id...>', `ids of the ${what}s`, (v, previous: number[] = []) => [...previous, positiveInt('ID', v)])
    .action(bind(load, 'remove'));
  return withExamples(command, [`linkctl ${name} delete 1`, `linkctl ${name} delete 1 --yes`, ...examples]);
}

/**
 * An option whose value is one of a list. The list is validated by `oneOf` (exit 2 naming the
 * allowed values) and kept on the option as `argChoices`, where help and completion read it.
 */
export function enumOption(flags: string, description: string, values: readonly string[]): Option {
  const flag = flags.split(/[ ,]+/).find((f) => f.startsWith('--')) ?? flags;
  return new Option(flags, description).choices(values).argParser((v: string) => oneOf(flag, v, values));
}

/** A positional argument whose value is one of a list: validated like `enumOption`, choices kept for help and completion. */
export function enumArgument(name: string, description: string, values: readonly string[]): Argument {
  const label = name.replace(/[<>[\]]/g, '').toUpperCase();
  return new Argument(name, description).choices(values).argParser((v: string) => oneOf(label, v, values));
}
