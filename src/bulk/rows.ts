/**
 * A row becomes the `opts` and positional arguments commander would produce for the same values
 * on the command line: each column goes through its option's own parser (validators, choices,
 * repeatable flags), so a file is checked exactly as flags are, with the same messages.
 */
import { CommanderError } from 'commander';
import { CliError, UsageError } from '../errors.js';
import type { ActionInput, BulkColumn } from '../commands/shared/define.js';

const TRUE = new Set(['true', '1', 'yes', 'y']);
const FALSE = new Set(['false', '0', 'no', 'n']);

/** The message of a parser's error; an argument's label (`URL`, `ID`) becomes the column's name as a flag. */
function messageOf(error: unknown, column: BulkColumn): string {
  if (!(error instanceof CliError) && !(error instanceof CommanderError)) throw error;
  const message = error.message.replace(/^error: /, '');
  if (column.argument) {
    const label = column.name.toUpperCase();
    if (message.startsWith(label)) return `--${column.name}${message.slice(label.length)}`;
  }
  return message;
}

/** The values of a cell: CSV text (`;`-separated for repeatable columns), or JSON values. */
function valuesOf(value: unknown, column: BulkColumn): string[] {
  if (Array.isArray(value)) {
    if (!column.repeatable) throw new UsageError(`--${column.name} takes one value, not a list`, 'this column takes a single value in each row');
    return value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  }
  if (typeof value === 'object' && value !== null) throw new UsageError(`--${column.name} takes text, not a JSON object`, 'give the value as a string');
  const text = String(value);
  return column.repeatable ? text.split(';').map((v) => v.trim()).filter(Boolean) : [text];
}

/**
 * Each option's key in `opts` (commander's camel case of its name), worked out once: a row asks
 * for every column's, and a 400-row file's check and run asked commander 30,000 times.
 */
const keys = new WeakMap<NonNullable<BulkColumn['option']>, string>();
function keyOf(option: NonNullable<BulkColumn['option']>): string {
  let key = keys.get(option);
  if (key === undefined) keys.set(option, (key = option.attributeName()));
  return key;
}

/**
 * The action input of one row. `base` holds the options given on the command line, which apply to
 * every row unless the row has its own value. Throws UsageError listing every bad column of the row.
 */
export function rowInput(columns: BulkColumn[], values: Record<string, unknown>, base: Record<string, unknown>): ActionInput {
  const opts: Record<string, unknown> = { ...base };
  const args: unknown[] = [];
  const problems: string[] = [];
  for (const column of columns) {
    let value = values[column.name];
    // Structured data (a QR code's) may be a JSON object: it goes to the matching `<name>-json` option.
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const json = columns.find((c) => c.name === `${column.name}-json`);
      if (json) {
        opts[keyOf(json.option!)] = JSON.stringify(value);
        continue;
      }
    }
    try {
      if (column.argument) {
        if (value === undefined) {
          if (column.argument.required) problems.push(`--${column.name} is required (a column "${column.name}")`);
          args.push(undefined);
          continue;
        }
        // As commander does: a variadic argument's values go through its parser one by one.
        const parse = column.argument.parseArg;
        const raws = valuesOf(value, column);
        if (column.argument.variadic) args.push(raws.reduce<unknown>((previous, raw) => (parse ? parse(raw, previous) : [...((previous as string[] | undefined) ?? []), raw]), undefined));
        else args.push(parse ? parse(raws[0]!, undefined) : raws[0]);
        continue;
      }
      const option = column.option!;
      const key = keyOf(option);
      if (value === undefined) {
        if (option.mandatory && opts[key] === undefined) problems.push(`--${column.name} is required (a column "${column.name}", or the flag for every row)`);
        continue;
      }
      if (column.flag) {
        const text = String(value).trim().toLowerCase();
        if (TRUE.has(text)) opts[key] = true;
        else if (FALSE.has(text)) delete opts[key];
        else throw new UsageError(`--${column.name} is true or false, got ${JSON.stringify(String(value))}`, 'write true or false (or leave the cell empty for false)');
        continue;
      }
      let parsed: unknown = undefined;
      for (const raw of valuesOf(value, column)) parsed = option.parseArg ? option.parseArg(raw, parsed) : raw;
      if (parsed !== undefined) opts[key] = parsed;
    } catch (error) {
      problems.push(messageOf(error, column));
    }
  }
  if (problems.length) throw new UsageError(problems.join('; '), 'each value is checked as the flag of the same name would be; see --help');
  return { args, opts };
}
