/**
 * What real servers do with a custom alias. real-servers.md says invalid characters are rewritten
 * (`bad alias!` becomes `bad-alias`); the product's link trait (its `slug()`, read, not run) says
 * which: every run of `/`, `_`, `|`, `+` and the characters from space to `.` (space ! " # $ % & '
 * ( ) * + , - .) becomes one `-`, `'`, `"` and `?` are removed, and `-` is trimmed from both ends.
 * Everything else is kept as it is: letters with accents and other scripts (`café`, `日本語`),
 * `@`, `:`, `~` and the like. The length check ("Custom alias must be at least 3 characters.")
 * counts the bytes of the alias as sent, before the rewrite; an alias that the rewrite empties
 * (`???`) is stored empty, so its short URL would be the bare domain.
 *
 * The sandbox (src/sandbox/routes.ts) answers by the same rule, and linkctl asks for 3 characters
 * after the rewrite (an alias of 1 or 2 could not be sent again). A fact of links: src/model/links.ts
 * may take it in.
 */
export const MIN_ALIAS_LENGTH = 3;

/** The alias a server keeps when it is asked for `alias`. */
export function serverAlias(alias: string): string {
  return alias
    .replace(/[/_|+\x20-\x2e]+/g, '-')
    .replace(/['"?]/g, '')
    .replace(/^-+|-+$/g, '');
}

/** Whether the server refuses `alias` as sent: shorter than 3 bytes (the product counts bytes). */
export const refusedAsShort = (alias: string): boolean => Buffer.byteLength(alias) < MIN_ALIAS_LENGTH;

/**
 * The refusal of an alias that would be sent while servers refuse it as short ("Custom alias must
 * be at least 3 characters."), as `--alias` (or a row's alias column) names it; undefined when it
 * is long enough. An alias that only names an existing link is never refused.
 */
export function shortAliasRefusal(alias: string): { message: string; hint: string } | undefined {
  if (alias.trim().length >= MIN_ALIAS_LENGTH) return undefined;
  return { message: `--alias must have at least ${MIN_ALIAS_LENGTH} characters, got "${alias}"`, hint: 'servers refuse shorter aliases; leave --alias out to get a generated one (with --if-exists skip or update, a shorter one may name a link that exists)' };
}
