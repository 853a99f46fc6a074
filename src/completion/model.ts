/**
 * The completion model: what a shell needs to know, read from the commander program tree.
 * Commands, aliases, flags and enum values all come from the tree (options and arguments
 * built with `enumOption`/`enumArgument` carry `argChoices`), so a new command or flag shows
 * up in every shell's script at the next `linkctl completion <shell>`.
 */
import type { Argument, Command, Help, Option } from 'commander';
import { pathKind } from '../flags.js';

/** Where the values of a flag or argument come from. */
export type Values =
  | { kind: 'choices'; choices: readonly string[] }
  /** Profile names from the config file, at TAB time (`linkctl __complete profiles`). */
  | { kind: 'profiles' }
  /** File names, for an option made with `pathOption` (src/flags.ts). */
  | { kind: 'files' }
  /** Folder names, for a `pathOption(..., 'dir')`. */
  | { kind: 'dirs' };

export interface Flag {
  /** `-o`, `--output`: short first. */
  names: string[];
  description: string;
  /** True when the next word is the flag's value. */
  takesValue: boolean;
  values?: Values;
}

export interface Arg {
  name: string;
  variadic: boolean;
  values?: Values;
}

export interface Cmd {
  /** `['linkctl', 'qr', 'add']`. */
  path: string[];
  name: string;
  aliases: string[];
  description: string;
  flags: Flag[];
  args: Arg[];
  subcommands: Cmd[];
}

export interface Model {
  /** The program, with its own flags (the globals and --help). */
  root: Cmd;
  /** The program's flags, which commander accepts after sub-commands too (all but --help, which each command has). */
  globals: Flag[];
}

/**
 * Profile names are the one dynamic value. The global `--profile` is found by its long flag;
 * these positional arguments (command path, argument name) take a profile name too
 * (test/completion.test.ts checks that `auth switch <TAB>` still offers them).
 */
const PROFILE_FLAG = '--profile';
const PROFILE_ARGUMENTS = [{ path: 'linkctl auth switch', argument: 'name' }];

function firstLine(text: string): string {
  return text.split('\n')[0]!.trim();
}

function flagOf(option: Option): Flag {
  const names = [option.short, option.long].filter((n): n is string => Boolean(n));
  const takesValue = option.required || option.optional;
  let values: Values | undefined;
  if (option.argChoices?.length) values = { kind: 'choices', choices: option.argChoices };
  else if (option.long === PROFILE_FLAG) values = { kind: 'profiles' };
  else if (takesValue && pathKind(option)) values = { kind: pathKind(option) === 'dir' ? 'dirs' : 'files' };
  return { names, description: firstLine(option.description ?? ''), takesValue, values };
}

function argOf(argument: Argument, path: string): Arg {
  const name = argument.name();
  let values: Values | undefined;
  if (argument.argChoices?.length) values = { kind: 'choices', choices: argument.argChoices };
  else if (PROFILE_ARGUMENTS.some((p) => p.path === path && p.argument === name)) values = { kind: 'profiles' };
  else if (pathKind(argument)) values = { kind: pathKind(argument) === 'dir' ? 'dirs' : 'files' };
  return { name, variadic: argument.variadic, values };
}

function walk(command: Command, parentPath: string[], help: Help): Cmd {
  const path = [...parentPath, command.name()];
  const key = path.join(' ');
  return {
    path,
    name: command.name(),
    aliases: command.aliases(),
    description: firstLine(command.summary() || command.description()),
    flags: help.visibleOptions(command).map(flagOf),
    args: command.registeredArguments.map((a) => argOf(a, key)),
    subcommands: help.visibleCommands(command).map((sub) => walk(sub, path, help)),
  };
}

/** Reads the model from a built program (the root `Command`). Hidden commands are left out. */
export function describe(program: Command): Model {
  const help = program.createHelp();
  const root = walk(program, [], help);
  const globals = root.flags.filter((f) => !f.names.includes('--help'));
  for (const cmd of all(root)) {
    for (const word of [cmd.name, ...cmd.aliases, ...cmd.flags.flatMap((f) => [...f.names, ...choicesOf(f.values)]), ...cmd.args.flatMap((a) => choicesOf(a.values))]) {
      // The scripts keep words unquoted in lists; a word that needs quoting would break them.
      if (!/^[\w%+,./:-][\w@%+,./:-]*$/.test(word)) throw new Error(`internal: completion cannot carry the word ${JSON.stringify(word)}`);
    }
  }
  return { root, globals };
}

/** Every command of the tree, parents before children. */
export function all(cmd: Cmd): Cmd[] {
  return [cmd, ...cmd.subcommands.flatMap(all)];
}

export function choicesOf(values: Values | undefined): readonly string[] {
  return values?.kind === 'choices' ? values.choices : [];
}

/** The flags a command adds to the globals (for the program: --help). */
export function ownFlags(model: Model, cmd: Cmd): Flag[] {
  return cmd === model.root ? cmd.flags.filter((f) => !model.globals.includes(f)) : cmd.flags;
}

/**
 * Where the values of a flag or positional argument come from, as first-match rules on a
 * key: `linkctl qr add --type` for a flag, `linkctl channel assign #1` for the second
 * positional argument. In a pattern `*` stands for any text (the global flags' rules end
 * the list and match under any command). Every shell's script is a translation of this list.
 */
export interface ValueRule {
  pattern: string;
  /** Nothing to offer (a command's own flag that shadows a global one). */
  values?: Values;
}

export function valueRules(model: Model): ValueRule[] {
  const rules: ValueRule[] = [];
  const globalValues = new Map(model.globals.flatMap((f) => f.names.map((n) => [n, f.values] as const)));
  for (const cmd of all(model.root)) {
    const key = cmd.path.join(' ');
    for (const flag of ownFlags(model, cmd)) {
      if (!flag.takesValue) continue;
      // A command's own flag with the name of a global one hides the global's values.
      if (flag.values || flag.names.some((n) => globalValues.get(n))) for (const name of flag.names) rules.push({ pattern: `${key} ${name}`, values: flag.values });
    }
    const variadic = cmd.args.findIndex((a) => a.variadic && a.values);
    cmd.args.forEach((arg, i) => {
      if (arg.variadic && arg.values) rules.push({ pattern: `${key} #*`, values: arg.values });
      else if (arg.values || i < variadic) rules.push({ pattern: `${key} #${i}`, values: arg.values });
    });
  }
  for (const flag of model.globals) if (flag.values) for (const name of flag.names) rules.push({ pattern: `* ${name}`, values: flag.values });
  return rules;
}
