/**
 * Marks on commander's options and arguments that other faces of a command read: a path (the
 * shell completions offer files), a repeatable flag (bulk input and MCP take a list), a choice
 * from a list (help, completion and validation). Below the command layer, so that links as code,
 * completions and the model can derive from a definition without importing the commands.
 */
import { Argument, Option } from 'commander';
import { oneOf } from './validate.js';

/** Marks an option whose value is a path on this machine; completion offers files (or folders) there. */
const PATH_VALUE = Symbol('path value');
export type PathKind = 'file' | 'dir';

/**
 * An option whose value is a file (or, with 'dir', a folder) on this machine: the one mark the
 * shell completions read (src/completion/model.ts), whatever the placeholder says.
 */
export function pathOption(flags: string, description: string, kind: PathKind = 'file'): Option {
  return Object.assign(new Option(flags, description), { [PATH_VALUE]: kind });
}

/** A positional argument that is a file (or a folder) on this machine: marked as `pathOption` marks options. */
export function pathArgument(name: string, description: string, kind: PathKind = 'file'): Argument {
  return Object.assign(new Argument(name, description), { [PATH_VALUE]: kind });
}

/** What kind of path an option or argument takes, if it was made with `pathOption` or `pathArgument`. */
export function pathKind(item: Option | Argument): PathKind | undefined {
  return (item as (Option | Argument) & { [PATH_VALUE]?: PathKind })[PATH_VALUE];
}

/** Marks a repeatable option's parser, so that bulk input and the MCP tools know the option takes a list. */
const REPEATABLE = Symbol('repeatable');

/** A repeatable flag: each occurrence is parsed and appended. */
export function many<T>(parse: (raw: string) => T): (raw: string, previous?: T[]) => T[] {
  const parser = (raw: string, previous: T[] = []): T[] => [...previous, parse(raw)];
  return Object.assign(parser, { [REPEATABLE]: true });
}

/** Whether an option may be given several times (its values collected in a list). */
export function isRepeatable(option: Option): boolean {
  return option.variadic || Boolean((option.parseArg as { [REPEATABLE]?: boolean } | undefined)?.[REPEATABLE]);
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
