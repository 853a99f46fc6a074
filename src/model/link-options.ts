/**
 * The options of a link's create and update as flags (`link add`, `link update`, and every face
 * derived from them: `--from` columns, the apply file's fields and its schema, MCP tools). What a
 * link is, beside its model: links as code derives its fields from these without importing the
 * commands. The body they make is the model's `bodyFromOptions` (links.ts).
 */
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { many, enumOption } from '../flags.js';
import { futureDateTime, httpUrl, idOrName, keyValue, nonEmpty, positiveInt } from '../validate.js';
import { REDIRECT_TYPES } from './link-types.js';
import { serverAlias } from './aliases.js';

/**
 * A custom alias: servers store one their rewrite empties (`???`) as no alias at all, the domain's
 * root. One shorter than MIN_ALIAS_LENGTH is refused where it would be sent (./actions.ts,
 * `aliasRefusal`): a row of `link add --from --if-exists skip|update` may name an existing
 * link by a short alias, which older installations have.
 */
export function alias(raw: string): string {
  if (!serverAlias(raw)) throw new UsageError(`--alias "${raw}" is nothing once servers rewrite it (they turn spaces and most punctuation into - and trim them): the link would have no alias`, 'give letters or digits, or leave --alias out to get a generated one');
  return raw;
}

/** `KEY=URL` targeting pairs (`--geo Canada=https://example.ca`). */
const target = (flag: string, sample: string, keyOf: (key: string) => string = (k) => k) => (raw: string) => {
  const { key, value } = keyValue(flag, raw, sample);
  return { key: keyOf(nonEmpty(flag, key.trim())), value: httpUrl(flag, value) };
};

/**
 * A country as the product matches it: its English name (real-servers.md: geo targets are country
 * names, `Canada`, `United States`; the product compares a visitor's country name in lower case, so
 * a code stored as `fr` never fires). A two-letter code is sent as its English name (`FR` → France).
 */
export function geoCountry(key: string): string {
  if (!/^[a-z]{2}$/i.test(key)) return key;
  let name: string | undefined;
  try {
    name = new Intl.DisplayNames(['en'], { type: 'region' }).of(key.toUpperCase());
  } catch {
    name = undefined;
  }
  if (!name || name.toUpperCase() === key.toUpperCase() || /unknown/i.test(name)) {
    throw new UsageError(`--geo ${key}: not a country code, and the product matches countries by their English name`, 'give the country\'s name as the product lists it, e.g. --geo Canada=https://example.ca or --geo "United States=https://example.com/us", or its two-letter code (FR for France)');
  }
  return name;
}

/** A link's expiry: `futureDateTime` (src/validate.ts), as servers keep it. */
export function expiry(raw: string): string {
  return futureDateTime('--expiry', raw, 'or leave the link without --expiry');
}

/** The options of a link's create (the model's `bodyFromOptions`), shared by `link add` and `link update`. */
export function linkOptions(command: Command): Command {
  const id = (flag: string) => (v: string) => positiveInt(flag, v);
  const named = (flag: string) => (v: string) => idOrName(flag, v);
  return command
    .option('--alias <alias>', 'custom alias, at least 3 characters (servers rewrite invalid characters: "a b!" becomes "a-b")', alias)
    .option('--domain <url>', 'branded domain to use, e.g. https://go.example.com', (v) => httpUrl('--domain', v))
    .addOption(enumOption('--redirect <type>', 'redirect type', REDIRECT_TYPES))
    .option('--splash <id>', 'show this custom splash page before redirecting', id('--splash'))
    .option('--overlay <id>', 'show this CTA overlay on the page', id('--overlay'))
    .option('--password', 'protect the link with a password, asked for on the terminal')
    .option('--password-stdin', 'read the password from stdin')
    .option('--expiry <datetime>', 'expiry, "YYYY-MM-DD HH:MM:SS" in the future', expiry)
    .option('--geo <country=url>', 'send visitors from a country elsewhere: its English name, or its two-letter code, sent as the name (repeatable)', many(target('--geo', 'Canada=https://example.ca', geoCountry)))
    .option('--device <device=url>', 'send visitors on a device elsewhere, e.g. iPhone=https://... (repeatable)', many(target('--device', 'iPhone=https://apps.apple.com/app/x')))
    .option('--language <code=url>', 'send visitors by browser language, e.g. fr=https://... (repeatable)', many(target('--language', 'fr=https://example.com/fr')))
    .option('--meta-title <text>', 'title shown in link previews')
    .option('--meta-description <text>', 'description shown in link previews')
    .option('--meta-image <url>', 'image shown in link previews', (v) => httpUrl('--meta-image', v))
    .option('--description <text>', 'a private note about the link, stored on create only (no answer returns it; updates ignore it)')
    .option('--pixel <id|name>', 'tracking pixel, by id or name (repeatable)', many(named('--pixel')))
    .option('--channel <id|name>', 'add the link to this channel, by id or name', named('--channel'))
    .option('--campaign <id|name>', 'add the link to this campaign, by id or name', named('--campaign'))
    .option('--public', 'show the link on public pages (a create only: real servers make a link private on every update)')
    .option('--private', 'keep the link private')
    .option('--param <name=value>', 'query parameter added on redirect (repeatable)', many((v) => keyValue('--param', v, 'utm_source=newsletter')))
    .option('--deeplink-apple <url>', 'App Store deep link', (v) => httpUrl('--deeplink-apple', v))
    .option('--deeplink-google <url>', 'Google Play deep link', (v) => httpUrl('--deeplink-google', v))
    .option('--deeplink-auto', 'open the app automatically when it is installed; the product 7.7 on Linux fails on it with HTTP 500 and creates nothing');
}
