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

/**
 * A scalar as PHP turns it into text (what the product stores for a field sent with another JSON
 * type, fact 11): a number as written, `true` as `1`, `false` and null as empty, and a list or an
 * object as the word `Array` (`"metatitle": ["a"]` is stored as the title `Array`).
 */
export function phpString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (value === true) return '1';
  if (value === false || value === null || value === undefined) return '';
  return 'Array';
}

/**
 * Whether the product takes `value` as a destination (fact 8), once a bare one got its scheme
 * (destinationAsStored): the scheme is one the installation allows (http, https, ftp) and what
 * follows `//` names a host (user info and a port of digits aside). A value sent without a scheme
 * needs a host with a dot (`dest.invalid/x`; `mailto:a@b.invalid` reads as user info before the
 * host `b.invalid`). A space is accepted and kept (`https://a.b/c d`); `javascript:alert(1)` (its
 * "port" is not digits), `not a url` (no dot) and `""` are refused.
 */
export function acceptedDestination(value: string): boolean {
  const bare = !/^[a-z][a-z0-9+.-]*:\/\//i.test(value);
  const m = /^(https?|ftp):\/\/([^/?#]*)/i.exec(destinationAsStored(value));
  if (!m) return false;
  const authority = m[2]!.slice(m[2]!.lastIndexOf('@') + 1);
  const hp = /^(\[[0-9a-f:.]+\]|[^:]*)(?::(\d*))?$/i.exec(authority);
  const host = hp?.[1] ?? '';
  if (host === '') return false;
  return !bare || (host.includes('.') && !host.startsWith('.') && !host.endsWith('.'));
}

const pad2 = (n: number) => String(n).padStart(2, '0');
/** `YYYY-MM-DD HH:MM:SS` of `ms`, in UTC (the server's time zone, as the recording shows). */
const stamp = (ms: number) => {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`;
};
const UNITS: Record<string, [ms: number, months: number]> = {
  sec: [1000, 0], second: [1000, 0], min: [60_000, 0], minute: [60_000, 0], hour: [3_600_000, 0], day: [86_400_000, 0],
  week: [604_800_000, 0], fortnight: [1_209_600_000, 0], month: [0, 1], year: [0, 12],
};
function shifted(ms: number, n: number, unit: string): number {
  const [step, months] = UNITS[unit]!;
  if (!months) return ms + n * step;
  const d = new Date(ms);
  d.setUTCMonth(d.getUTCMonth() + n * months); // overflows as PHP does: Jan 31 + 1 month is Mar 3
  return d.getTime();
}
const midnight = (ms: number) => ms - (((ms % 86_400_000) + 86_400_000) % 86_400_000);

/**
 * An expiry as the product stores it (fact 13): what PHP's date parser reads, written
 * `YYYY-MM-DD HH:MM:SS` in the server's time zone (UTC): `2031-01-02` is `2031-01-02 00:00:00`,
 * `2031-01-02T03:04:05Z` is `2031-01-02 03:04:05`, `next year` one year from `now`. undefined when it
 * cannot be read (`31/12/2031`: PHP reads `a/b/c` as month/day/year). Whether it lies in the future
 * is the caller's question. The forms linkctl and the sandbox know: dates with an optional time,
 * `T`, seconds, fraction and zone (`Z`, `+02:00`); `m/d/Y` and `d.m.Y`; `now`, `today`, `tomorrow`,
 * `yesterday`, `midnight`; `next`/`last` and `+N`/`-N` (or `N … ago`) of sec, min, hour, day, week,
 * fortnight, month, year.
 */
export function expiryAsStored(value: string, now: number): string | undefined {
  const v = value.trim().toLowerCase();
  const dmy = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) =>
    (mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h <= 24 && mi <= 59 && s <= 60 ? Date.UTC(y, mo - 1, d, h, mi, s) : NaN);
  let ms = NaN;
  let m: RegExpExecArray | null;
  if ((m = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[ t](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?)?\s*(z|utc|[+-]\d{2}:?\d{2})?$/.exec(v))) {
    ms = dmy(+m[1]!, +m[2]!, +m[3]!, +(m[4] ?? 0), +(m[5] ?? 0), +(m[6] ?? 0));
    const zone = m[7];
    if (zone && zone !== 'z' && zone !== 'utc') {
      const z = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!;
      ms -= (z[1] === '-' ? -1 : 1) * (+z[2]! * 60 + +z[3]!) * 60_000;
    }
  } else if ((m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(v))) {
    ms = dmy(+m[3]!, +m[1]!, +m[2]!);
  } else if ((m = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(v))) {
    ms = dmy(+m[3]!, +m[2]!, +m[1]!);
  } else {
    const words: Record<string, number> = { now, today: midnight(now), midnight: midnight(now), tomorrow: midnight(now) + 86_400_000, yesterday: midnight(now) - 86_400_000 };
    if (v in words) return stamp(words[v]!);
    const rel = /^(?:(next|last)\s+([a-z]+?)s?|(?:([+-]?\s*\d+)\s*([a-z]+?)s?(?:\s+(ago))?(?:\s+|$))+)$/.exec(v);
    if (!rel) return undefined;
    if (rel[1]) {
      if (!(rel[2]! in UNITS)) return undefined;
      return stamp(shifted(now, rel[1] === 'next' ? 1 : -1, rel[2]!));
    }
    ms = now;
    for (const part of v.matchAll(/([+-]?\s*\d+)\s*([a-z]+?)s?(?:\s+(ago))?(?=\s|$)/g)) {
      if (!(part[2]! in UNITS)) return undefined;
      const n = Number(part[1]!.replace(/\s+/g, '')) * (part[3] ? -1 : 1);
      ms = shifted(ms, n, part[2]!);
    }
  }
  return Number.isNaN(ms) ? undefined : stamp(ms);
}
