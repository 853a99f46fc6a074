/**
 * What real servers do with a custom alias (../shared/spec/real-servers.md): characters other
 * than letters, digits, `-` and `_` are rewritten (`bad alias!` becomes `bad-alias`), and an
 * alias shorter than 3 characters is refused ("Custom alias must be at least 3 characters.").
 * The sandbox (src/sandbox/routes.ts) emulates the same rule on its side of the API. (A fact of
 * links: src/model/links.ts may take it in.)
 */
export const MIN_ALIAS_LENGTH = 3;

/** The alias a server keeps when it is asked for `alias`. */
export function serverAlias(alias: string): string {
  return alias.trim().replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '');
}
