/**
 * What the product does to a value before it stores it (real-servers.md, "What the product does
 * with what it is sent"), as pure functions: Terraform's `StateFunc`. Each turns what a user wrote
 * into what the product will keep, so that plan compares a prediction with what was read (never
 * the file's text with the server's), and the sandbox stores what it is sent through the very same
 * function, so the twin and linkctl's prediction cannot drift apart.
 *
 * The fields of each resource name the rewrite that applies to them beside their kind, in the
 * resource's own model file; this file only knows the rules. No imports: the sandbox, the model,
 * links as code and the command definitions may all stand on it.
 */

/**
 * Names, titles and descriptions as the product's input cleaning leaves them (fact 15): scripts,
 * styles and comments go with their content; anything from a `<` to the next `>` goes; the text
 * `document.cookie` and event attributes (`onclick=`) go; then `"`, `'` and a `<` or `>` left over
 * become entities. `&` stays, and so do entities the user typed (`&amp;` is not encoded again).
 * Not trimmed: `"  "` stays `"  "`.
 */
export function cleanedText(value: string): string {
  return value
    .replace(/<script\b[^>]*>[\s\S]*?<\/script\s*>/gi, '')
    .replace(/<style\b[^>]*>[\s\S]*?<\/style\s*>/gi, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<[^>]*>/g, '')
    .replace(/document\.cookie/gi, '')
    .replace(/\bon[a-z]+\s*=/gi, '')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#039;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/** Whether cleaning changes `value` (a name with quotes, a tag, `<`): what plan announces once as "stored as". */
export const cleaningChanges = (value: string): boolean => cleanedText(value) !== value;

/**
 * A campaign's name (create and update) and a channel's name on update (fact 29): cleaned, then
 * its first byte upper-cased when that byte is an ASCII letter (`autumn deals` → `Autumn deals`,
 * `élan` unchanged).
 */
export function capitalisedName(value: string): string {
  const clean = cleanedText(value);
  return /^[a-z]/.test(clean) ? clean[0]!.toUpperCase() + clean.slice(1) : clean;
}

/** Letters the product spells out before it drops accents (fact 30: `ä` → `ae`, but `ö` → `o`). */
const SPELLED: Record<string, string> = { ä: 'ae', Ä: 'ae', ü: 'ue', Ü: 'ue', ß: 'ss', ẞ: 'ss', æ: 'ae', Æ: 'ae', œ: 'oe', Œ: 'oe', ø: 'o', Ø: 'o', đ: 'd', Đ: 'd', ł: 'l', Ł: 'l', þ: 'th', Þ: 'th', ð: 'd', Ð: 'd' };

/**
 * A campaign slug as the product stores it (fact 30): transliterated to ASCII, lower case, every
 * run of other characters one `-`, no `-` at either end (`Autumn_Deals` → `autumn-deals`,
 * `Straße Ärger Öl` → `strasse-aerger-ol`). An empty result means the campaign has no slug.
 *
 * undefined when the slug holds letters of a script the product romanises by rules linkctl does not
 * carry (`日本語` → `ri-ben-yu` there): the stored slug cannot be predicted, only read back.
 */
export function campaignSlug(value: string): string | undefined {
  const latin = [...value].map((c) => SPELLED[c] ?? c).join('').normalize('NFD').replace(/\p{M}+/gu, '');
  if (/[^\x00-\x7f]/.test(latin.replace(/[^\p{L}\p{N}]/gu, ''))) return undefined;
  return latin.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
}

/**
 * Text cut to `bytes` bytes the product's way (facts 25 and 33): kept whole when it fits; else cut at
 * the last space at or before that byte when what is left holds at least 5 characters, else at the
 * byte itself. `ellipsis` is added to a cut text (a channel item's title gets `...`, a colour nothing).
 */
export function cutAtBytes(value: string, bytes: number, ellipsis = ''): string {
  const raw = Buffer.from(value);
  if (raw.length <= bytes) return value;
  const head = raw.subarray(0, bytes + 1);
  const space = head.lastIndexOf(0x20, bytes);
  const cut = space >= 5 ? raw.subarray(0, space) : raw.subarray(0, bytes);
  return cut.toString('utf8').replace(/\uFFFD$/, '') + ellipsis;
}

/** A channel's colour (fact 33): any text, cleaned and cut to 7 bytes (`light blue` → `light`, `#ABCDEF12` → `#ABCDEF`). */
export const channelColor = (value: string): string => cutAtBytes(cleanedText(value), 7);

/** A channel item's title in `GET api/channel/:id` (fact 25): 30 bytes, then `...`. */
export const channelItemTitle = (value: string): string => cutAtBytes(value, 30, '...');

/**
 * A destination as the product stores it (fact 8): a URL with a scheme as sent; without one, the
 * product puts `https://` in front (`dest.invalid/x` → `https://dest.invalid/x`, and
 * `mailto:a@b.invalid` → `https://mailto:a@b.invalid`, read as user info before a host). Whether
 * the product accepts it at all is another question (`javascript:` and `""` are refused).
 */
export function destinationAsStored(value: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`;
}

/**
 * A boolean field the way PHP reads it (fact 32): `false`, `0`, `"0"`, `""` and `null` are false,
 * any other string is true (`"false"` and `"no"` too). What a request that sends a string would store.
 */
export const phpTruthy = (value: unknown): boolean =>
  !(value === false || value === 0 || value === '0' || value === '' || value === null || value === undefined || (Array.isArray(value) && value.length === 0));

/** A geo target's location as the product keys it (fact 12): its English name in lower case. */
export const geoLocation = (country: string): string => country.toLowerCase();
