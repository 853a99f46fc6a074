/**
 * The live tail on a terminal (and in a pipe without --json): one line per event, cut to the
 * width, every field from the product made safe first (control characters shown as escapes).
 *
 *   15:03:20  click    hooked         Canada, Toronto · news.invalid · Firefox, Windows 10/11
 *   15:03:20  created  hooked         → http://127.0.0.1:8091/index.html
 */
import { safeText } from '../output/safe-text.js';
import type { ListenEvent } from './payload.js';

const host = (url: string | null): string | null => {
  if (!url) return null;
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
};

const cut = (text: string, width: number) => ([...text].length <= width ? text : `${[...text].slice(0, Math.max(0, width - 1)).join('')}…`);

export function tailLine(e: ListenEvent, width: number, color: boolean): string {
  const time = e.at.slice(11, 19);
  const what = e.type === 'link.clicked' ? 'click  ' : 'created';
  const alias = cut(safeText(e.alias ?? e.shortUrl), 14).padEnd(14);
  const rest = e.type === 'link.clicked'
    ? [[e.country, e.city].filter(Boolean).join(', ') || 'unknown place', host(e.referrer) ?? 'direct', [e.browser, e.os].filter(Boolean).join(', ') || 'unknown browser'].join(' · ')
    : `→ ${e.longUrl ?? ''}`;
  const line = cut(`${time}  ${what}  ${alias} ${safeText(rest)}`, Math.max(40, width - 1));
  return color && e.type === 'link.created' ? `\x1b[1m${line}\x1b[22m` : line;
}
