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
