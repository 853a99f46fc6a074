/**
 * Build time only (scripts/build.mjs runs it from dist/): every command's help as commander
 * prints it, with each wrapped paragraph left unwrapped between markers, so bin/linkctl.js can
 * wrap it at the terminal's width without loading commander (see `renderHelp` there, which
 * mirrors commander's Help.boxWrap). A marker is \uE000<width offset>,<min width>[,<suffix>]\uE001<text>\uE002:
 * the text is wrapped at (help width + offset), unless that is under the min width (commander's
 * minWidthToWrap), each line but the last ending in the suffix (an example's ` \`), continuation
 * lines indented to the marker's column. \uE003 in the text is a space that does not break
 * (src/commands/shared/help-text.ts), turned back into a space once wrapped.
 */
import type { Command } from 'commander';
import { buildProgram } from './cli.js';

export { EXIT_CODE_HELP } from './errors.js';

const WIDE = 10_000;

/** Help templates by command path ('' for the program, 'qr add' ...), aliases included. */
export function helpTemplates(): Record<string, string> {
  let out = '';
  const io = { stdout: { write: (s: string) => ((out += s), true), isTTY: false }, stderr: { write: () => true }, stdin: [] as never, env: {} };
  const program = buildProgram(io, () => async () => undefined);
  const templates: Record<string, string> = {};
  const visit = (command: Command, names: string[][]) => {
    command.configureHelp({
      ...command.configureHelp(),
      helpWidth: WIDE,
      boxWrap(this: { minWidthToWrap: number }, text: string, width: number, suffix?: string) {
        // A line break inside a paragraph would be indented by commander before we wrap it: no template then.
        if (/[\n\uE000-\uE002]/.test(text) || /[\n\uE000-\uE002]/.test(suffix ?? '')) throw new Error(`help text with a line break: ${JSON.stringify(text.slice(0, 40))}`);
        return `\uE000${width - WIDE},${this.minWidthToWrap}${suffix ? `,${suffix}` : ''}\uE001${text}\uE002`;
      },
    });
    out = '';
    command.outputHelp();
    for (const path of names) templates[path.join(' ')] = out;
    for (const sub of command.commands) {
      if ((sub as unknown as { _hidden?: boolean })._hidden || sub.name() === 'help') continue;
      visit(sub, names.flatMap((path) => [sub.name(), ...sub.aliases()].map((name) => [...path, name])));
    }
  };
  visit(program, [[]]);
  return templates;
}

/** A command as the generated reference (docs/commands/, man/) describes it: scripts/docs.mjs. */
export interface CommandPage {
  /** ['link', 'add']; [] for the program. */
  path: string[];
  aliases: string[];
  description: string;
  /** `[options] <url>`, as the help's usage line has it. */
  usage: string;
  arguments: Array<{ name: string; description: string; required: boolean; variadic: boolean }>;
  options: Array<{ flags: string; description: string }>;
  /** Its subcommands: name and description. */
  commands: Array<{ name: string; description: string }>;
  /** The help text after the options and commands (bulk columns, notes, examples), at 80 columns. */
  more: string;
  /** The same at 73 columns: a man page indents its sections by 7, so that they fit MANWIDTH=80. */
  moreForMan: string;
  /** `$ linkctl ...` lines of the help, each whole (continuation lines joined). */
  examples: string[];
}

/**
 * Every visible command's reference, from the command tree itself: what `--help` prints at 80
 * columns, with its parts apart. The global options are the program's own options.
 */
/** A man page's text width at MANWIDTH=80: its sections are indented by 7 columns. */
const MAN_TEXT_WIDTH = 73;

export function commandPages(): CommandPage[] {
  let out = '';
  const io = { stdout: { write: (s: string) => ((out += s), true), isTTY: false }, stderr: { write: () => true }, stdin: [] as never, env: {} };
  const program = buildProgram(io, () => async () => undefined);
  const pages: CommandPage[] = [];
  const visible = (command: Command) => command.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden && c.name() !== 'help');
  /** The help text after the last of the help's own sections (what addHelpText('after') added), at `width` columns (80: the default off a terminal). */
  const moreOf = (command: Command, width?: number): string => {
    const configured = command.configureHelp();
    if (width) command.configureHelp({ ...configured, helpWidth: width });
    out = '';
    command.outputHelp();
    if (width) command.configureHelp(configured);
    const help = out;
    const lastSection = help.lastIndexOf('\nCommands:\n') > 0 ? help.lastIndexOf('\nCommands:\n') : help.lastIndexOf('\nOptions:\n');
    const end = help.indexOf('\n\n', lastSection + 1);
    // The line naming the global options (src/cli.ts) is left out: the reference links to them.
    return end < 0 ? '' : help.slice(end).split(/\n+Global options, anywhere on the line: /)[0]!.replace(/^\n+/, '').replace(/\n+$/, '').replace(/\n{3,}/g, '\n\n');
  };
  const visit = (command: Command, path: string[]) => {
    const helper = command.createHelp();
    const options = helper.visibleOptions(command).filter((o) => o.long !== '--help');
    const more = moreOf(command);
    const examples: string[] = [];
    for (const line of more.split('\n')) {
      const previous = examples.at(-1);
      if (previous?.endsWith(' \\')) examples[examples.length - 1] = `${previous.slice(0, -2)} ${line.trim()}`;
      else if (/^ +\$ linkctl /.test(line)) examples.push(line.trim().slice(2));
    }
    pages.push({
      path,
      aliases: command.aliases(),
      description: command.description(),
      usage: command.usage(),
      arguments: helper.visibleArguments(command).map((a) => ({ name: a.name(), description: a.description, required: a.required, variadic: a.variadic })),
      options: options.map((o) => ({ flags: o.flags, description: helper.optionDescription(o) })),
      commands: visible(command).map((c) => ({ name: c.name(), description: c.summary() || c.description() })),
      more,
      moreForMan: moreOf(command, MAN_TEXT_WIDTH),
      examples,
    });
    for (const sub of visible(command)) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  return pages;
}
