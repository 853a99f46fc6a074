/**
 * The one place that makes text from a server or a file safe for a terminal. A server that puts
 * escape sequences in a name, a message or a URL could otherwise retitle the terminal, write to
 * the clipboard (OSC 52), plant hyperlinks (OSC 8), clear the screen, overwrite a field with CR,
 * or make the terminal type back its title; bidi overrides reorder what people read.
 *
 * - Human, csv and tsv text: C0 controls (tab, and newline where asked, excepted), DEL, C1
 *   controls and bidi overrides become visible escapes (`\x1b`, `\u202e`).
 * - JSON text: the same characters become `\uXXXX` escapes, so the document stays lossless
 *   (parsing it gives the original string) and a terminal never sees them raw.
 */

/** Everything that a terminal may act on, tab and newline aside (they are handled by the caller's flags). */
const UNSAFE = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_KEEP_NEWLINE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;
/** In JSON.stringify output C0 is already escaped; DEL, C1 and bidi overrides are not. */
const UNSAFE_IN_JSON = /[\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/** The visible form of one unsafe character: `\x1b` below U+0100, `\u202e` above. */
export function escapeChar(ch: string): string {
  const code = ch.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` with every control character and bidi override shown as an escape. Tabs are kept; a
 * newline is kept only with `keepNewlines` (messages of several lines), else shown as `\x0a`.
 */
export function safeText(text: string, keepNewlines = false): string {
  return text.replace(keepNewlines ? UNSAFE_KEEP_NEWLINE : UNSAFE, escapeChar);
}

/** JSON text (from JSON.stringify) with DEL, C1 and bidi overrides as `\uXXXX`: still valid JSON, same value. */
export function safeJsonText(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** JSON.stringify, made safe for a terminal. */
export function safeStringify(value: unknown, indent?: number): string {
  return safeJsonText(JSON.stringify(value, null, indent) ?? 'null');
}

/**
 * `raw` made safe and cut to `width` characters with an ellipsis, never inside an escape:
 * an escape is kept whole or left out whole.
 */
export function safeTruncate(raw: string, width: number): string {
  const safe = safeText(raw);
  if (safe.length <= width) return safe;
  let out = '';
  for (const ch of raw) {
    const shown = safeText(ch);
    if (out.length + shown.length > width - 1) break;
    out += shown;
  }
  return `${out}…`;
}
