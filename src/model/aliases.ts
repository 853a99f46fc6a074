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

/**
 * Aliases the product 7.7 keeps for its own pages: an alias equal to one of these, in any letter
 * case, is "That alias is reserved. Please choose another one." (real-servers.md, 9: the first path
 * segment of its pages, as observed). `login`, `bio`, `stats` and the like are free.
 */
export const RESERVED_ALIASES: ReadonlySet<string> = new Set([
  'admin', 'affiliate', 'api', 'bio-profiles', 'blog', 'bookmark', 'callback', 'captcha', 'checkout', 'consent', 'contact', 'crons',
  'developers', 'faq', 'fullpage', 'help', 'ipn', 'oauth', 'page', 'pricing', 'qr-codes', 'report', 'script.js', 'server', 'shorten',
  'sitemap', 'sitemap.xml', 'update', 'user', 'verify',
]);

/**
 * The product's default word filter for aliases (its adult filter, on by default): an alias that
 * holds one of these anywhere, in any letter case, is "Inappropriate aliases are not allowed."
 * (real-servers.md, 9; the list as the product ships it, recordings/product-7.7/alias-words.txt:
 * `dickens-books` is refused for "dick"). An installation may edit the list or turn it off.
 */
export const ALIAS_WORDS: readonly string[] = [
  'porn', 'porno', 'redtube', '4tube', 'spankwire', 'xshare', 'ziporn', 'naked', 'pornstar', 'pussy', 'fuck', 'suck', 'porntube',
  'scriptmaster', 'warez', 'scriptmafia', 'nulled', 'jigshare', 'gaaks', 'newone', 'scriptease', 'xtragfx', 'vivaprogram', 'kickassgfx',
  'gfxdl', 'fulltemplatedownload', 'dlscript', 'nigger', 'dick', 'faggot', 'cunt', 'gay', 'internbiokis', 'asshole', 'penis', 'vagina',
  'motherfucker', 'fucker', 'shit', 'fucked', 'boobs',
];

/** The word of the product's filter that `alias` holds (as sent), if any. */
export const filteredWord = (alias: string): string | undefined => {
  const lower = alias.toLowerCase();
  return ALIAS_WORDS.find((word) => lower.includes(word));
};

/** Whether the product keeps `alias` for a page of its own: as sent or as it would store it, in any letter case. */
export const isReserved = (alias: string): boolean => RESERVED_ALIASES.has(alias.toLowerCase()) || RESERVED_ALIASES.has(serverAlias(alias).toLowerCase());

/** Whether the server refuses `alias` as sent: shorter than 3 bytes (the product counts bytes). */
export const refusedAsShort = (alias: string): boolean => Buffer.byteLength(alias) < MIN_ALIAS_LENGTH;

/**
 * The refusal of an alias that would be sent while servers refuse it, in the order the product
 * checks (real-servers.md, 9): shorter than 3 characters ("Custom alias must be at least 3
 * characters."), holding a word of its filter ("Inappropriate aliases are not allowed."), or
 * reserved for its own pages ("That alias is reserved."). As `--alias` names it (`flag`: how a file
 * or a row names it instead); undefined when servers take it. An alias that only names an existing
 * link is never refused.
 */
export function aliasRefusal(alias: string, flag = '--alias'): { message: string; hint: string } | undefined {
  if (alias.trim().length < MIN_ALIAS_LENGTH) {
    return { message: `${flag} must have at least ${MIN_ALIAS_LENGTH} characters, got "${alias}"`, hint: 'servers refuse shorter aliases; leave --alias out to get a generated one (with --if-exists skip or update, a shorter one may name a link that exists)' };
  }
  const word = filteredWord(alias);
  if (word !== undefined) {
    return { message: `${flag} "${alias}" holds "${word}", a word of the product's alias filter: servers refuse it ("Inappropriate aliases are not allowed.")`, hint: 'choose another alias; the product matches its words anywhere in an alias, in any letter case (its adult filter, on by default)' };
  }
  if (isReserved(alias)) {
    return { message: `${flag} "${alias}" is reserved: the product keeps it for a page of its own ("That alias is reserved. Please choose another one.")`, hint: 'choose another alias; the product keeps admin, api, contact, faq, help, page, pricing, user and others for its pages, in any letter case (docs/real-servers.md lists them)' };
  }
  return undefined;
}
