/**
 * Help text of our own (paragraphs, lists, examples) wrapped on word boundaries at the help's
 * width, as commander wraps its part: through the command's `Help.boxWrap`, so that the
 * build-time templates (src/help-templates.ts) mark each piece for bin/linkctl.js to wrap at the
 * terminal's width. Loaded at start-up with the definitions: it imports nothing.
 *
 * The text is written as lines:
 * - unindented lines are prose, consecutive ones one paragraph (the source may break them anywhere);
 * - `  $ command` is an example: wrapped between words outside quotes and comments, each line but
 *   the last ending in ` \`, so that what is copied from a narrow terminal still runs as one
 *   command (a POSIX shell's: a PowerShell example must fit in 60 columns);
 * - `  term  description` (two or more spaces after the term) is an item: the description
 *   wraps under itself;
 * - any other indented line wraps under its own indent; an empty line stays.
 */
import type { Command, Help, OutputConfiguration } from 'commander';

/** Stands for a space that must not break (inside quotes); bin/linkctl.js turns it back too. */
export const KEEP_SPACE = '\uE003';
/** Ends each line of an example but the last. */
const CONTINUED = ' \\';

/** A boxWrap that may end each line but the last with `suffix` (the templates' marks it for bin/linkctl.js). */
type Wrapper = Help & { boxWrap(text: string, width: number, suffix?: string): string };

/**
 * `text` (the lines described above) for `command.addHelpText(position, wrapped(text))`: wrapped
 * for the command's help each time it is shown. A function is called then, not before.
 */
export function wrapped(text: string | (() => string)): (context: { error: boolean; command: Command }) => string {
  return ({ error, command }) => wrapText(command, error, typeof text === 'function' ? text() : text);
}

/** The Help object the command's own help is formatted with, ready for its width. */
function helperFor(command: Command, error: boolean): Wrapper {
  const help = command.createHelp() as Wrapper;
  const output = command.configureOutput() as OutputConfiguration;
  help.prepareContext({ error, helpWidth: (error ? output.getErrHelpWidth?.() : output.getOutHelpWidth?.()) ?? undefined });
  return help;
}

export function wrapText(command: Command, error: boolean, text: string): string {
  const help = helperFor(command, error);
  const width = help.helpWidth ?? 80;
  /** `body` wrapped to start at `column` (after `prefix`), continuation lines indented to it. */
  const piece = (prefix: string, body: string, suffix = '') => {
    const column = prefix.length;
    const lines = help.boxWrap(body, width - column - suffix.length, suffix || undefined).split('\n');
    const joined = lines.map((line, i) => (i < lines.length - 1 ? `${line}${suffix}` : line)).join(`\n${' '.repeat(column)}`);
    // A template keeps the kept spaces for bin/linkctl.js, which restores them after wrapping.
    return prefix + (joined.includes('\uE000') ? joined : joined.replaceAll(KEEP_SPACE, ' '));
  };
  const lines = text.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trimEnd();
    if (!line) {
      out.push('');
      continue;
    }
    const indent = /^ */.exec(line)![0];
    const body = line.slice(indent.length);
    if (!indent) {
      let paragraph = body;
      while (i + 1 < lines.length && /^\S/.test(lines[i + 1]!)) paragraph += ` ${lines[++i]!.trim()}`;
      out.push(piece('', paragraph));
      continue;
    }
    if (body.startsWith('$ ')) {
      out.push(piece(`${indent}$ `, keepQuotedSpaces(body.slice(2)), CONTINUED));
      continue;
    }
    const item = /^(\S.*?)( {2,})(\S.*)$/.exec(body);
    if (item) out.push(piece(`${indent}${item[1]}${item[2]}`, item[3]!));
    else out.push(piece(indent, body));
  }
  return out.join('\n');
}

/**
 * Spaces inside '…' and "…" of a shell command, and in a trailing `# comment`, become KEEP_SPACE:
 * a line must not break there (a ` \` inside a comment would not continue the command).
 */
function keepQuotedSpaces(command: string): string {
  let quote: string | undefined;
  let comment = false;
  let out = '';
  for (const [i, char] of [...command].entries()) {
    if (quote || comment) {
      if (char === quote) quote = undefined;
      out += char === ' ' ? KEEP_SPACE : char;
    } else {
      if (char === "'" || char === '"') quote = char;
      if (char === '#' && command[i - 1] === ' ') comment = true;
      out += char;
    }
  }
  return out;
}
