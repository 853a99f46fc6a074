/** Enumerations of short links, shared by the definitions (help, validation) and the completions. */
import { UsageError } from '../errors.js';
export const LINK_ORDERS = ['date', 'clicks'] as const;
export type LinkOrder = (typeof LINK_ORDERS)[number];
/** `--redirect`: the plain redirect types; a splash page or an overlay has its own flag. */
export const REDIRECT_TYPES = ['direct', 'frame', 'splash'] as const;
/**
 * `link update --clear`: an option to clear on purpose, from the table of a link's fields. Those
 * linkctl reads back it would otherwise send again; the rest it cannot read back, and naming them
 * says "clearing is what I want", so the update needs no confirmation for them.
 */
export { CLEARABLE, type Clearable } from './link-fields.js';

/**
 * `link add --if-exists`: what to do when the server answers a create with a link that already
 * existed (real servers do so for a long URL already shortened). The one list of these values
 * and their meaning; bulk commands add their own on top.
 */
export const IF_EXISTS = {
  fail: 'exit 1 naming the existing link (the default when options beyond the URL are given)',
  return: 'print the existing link and exit 0, with a note (the default for a bare URL)',
  update: 'apply the options to the existing link with the same safe update as `link update`',
  skip: 'send nothing when the URL is already shortened: report the existing link as skipped (for re-runnable --from files)',
} as const;
export type IfExists = keyof typeof IF_EXISTS;
export const IF_EXISTS_VALUES = Object.keys(IF_EXISTS) as IfExists[];

/** `link get` and `link qr` take a link id or --short, one of them: what was given, and how it is done. */
export function oneLink(id: number | string | undefined, short: string | undefined, command: 'get' | 'qr'): void {
  const hint = `e.g. linkctl link ${command} 42, linkctl link ${command} spring-sale, or linkctl link ${command} --short go.example.com/abc`;
  if (id !== undefined && short !== undefined) throw new UsageError(`give a link (id, alias or short URL) or --short, not both: got ${id} and --short ${short}`, hint);
  if (id === undefined && short === undefined) throw new UsageError('give a link (id, alias or short URL) or --short URL: got neither', hint);
}
