/**
 * The one wrapping of prose for a terminal: notes, hints, caveats and error messages on stderr,
 * and the check view's text. Lines break between words; a word longer than the line (a URL) is
 * cut after one of its separators (`/`, `?`, `&`, `=`, `-`, `.`, `_`) when one is in its second
 * half, else where the line ends. Nothing else is changed: the text is measured as it is given
 * (made safe for the terminal before, by safe-text.ts).
 */

/** `text` as lines of at most `width` columns: the first starts with `firstIndent`, the others with `indent`. */
export function wrapProse(text: string, width: number, indent = '', firstIndent = ''): string[] {
  const lines: string[] = [];
  let rest = text;
  let prefix = firstIndent;
  while (prefix.length + rest.length > width && width - prefix.length > 1) {
    const room = width - prefix.length;
    let cut = room;
    const window = rest.slice(0, room + 1);
    const space = window.lastIndexOf(' ');
    if (space > room / 2) cut = space;
    else {
      const separator = Math.max(...['/', '?', '&', '=', '-', '.', '_'].map((s) => window.lastIndexOf(s, room - 1)));
      if (separator > room / 2) cut = separator + 1;
    }
    lines.push(`${prefix}${rest.slice(0, cut).trimEnd()}`);
    rest = rest.slice(cut).replace(/^ +/, '');
    prefix = indent;
  }
  lines.push(`${prefix}${rest}`);
  return lines;
}

/** Continuation lines of a message start here, under its first word's text. */
const HANGING = '  ';

/**
 * A message for stderr on a terminal `columns` wide (undefined: not a terminal, or it does not
 * say): each line of prose wrapped at word boundaries, its continuation lines indented by two
 * spaces. Lines that start indented (a command to copy, a list) are left whole: a command cut in
 * two would not run when pasted.
 */
export function wrapMessage(message: string, columns: number | undefined): string {
  if (!columns || columns < 20) return message;
  return message
    .split('\n')
    .map((line) => (/^\s/.test(line) || line.length <= columns ? line : wrapProse(line, columns, HANGING).join('\n')))
    .join('\n');
}
