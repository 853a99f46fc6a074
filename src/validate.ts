/**
 * Argument validators. Each returns the parsed value or throws a UsageError naming the flag
 * and what is allowed; nothing is sent before they all pass. No dependencies: the command
 * definitions use them and load at start-up.
 */
import { UsageError } from './errors.js';
import { editDistance } from './distance.js';
import { withLikelyScheme } from './http/loopback.js';

const show = (value: string) => JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);

/** An example of a flag with a value (`--limit 10`), or of an argument (`10`): for hints. */
const example = (flag: string, value: string) => (flag.startsWith('-') ? `${flag} ${value}` : value);

/** Ids are the ID column of lists; other numbers are counts. */
function intHint(flag: string): string {
  return /ID$/.test(flag) ? 'ids are whole numbers from 1 up: the ID column of a `list` command shows them' : `a whole number from 1 up, e.g. ${example(flag, '10')}`;
}

export function positiveInt(flag: string, raw: string): number {
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1) throw new UsageError(`${flag} must be a positive integer, got ${show(raw)}`, intHint(flag));
  if (!Number.isSafeInteger(Number(raw))) throw new UsageError(`${flag} is too large (at most ${Number.MAX_SAFE_INTEGER}), got ${show(raw)}`, intHint(flag));
  return Number(raw);
}

/**
 * A record given by id or by name (`--campaign 3`, `--campaign "Spring launch"`): digits are an
 * id (a number), anything else a name (trimmed), which the action looks up in the account.
 */
export function idOrName(flag: string, raw: string): number | string {
  return /^\s*\d+\s*$/.test(raw) ? positiveInt(flag, raw) : nonEmpty(flag, raw).trim();
}

/** The allowed value closest to what was typed (a typo, a prefix), if any is close. */
function closest(raw: string, allowed: readonly string[]): string | undefined {
  const typed = raw.toLowerCase();
  const near = (a: string) => a.toLowerCase().startsWith(typed) || editDistance(a.toLowerCase(), typed) <= Math.min(2, Math.floor(a.length / 3));
  return typed && typed.length <= 40 ? allowed.find(near) : undefined; // a long input is no typo
}

export function oneOf<T extends string>(flag: string, raw: string, allowed: readonly T[]): T {
  const match = allowed.find((a) => a === raw) ?? allowed.find((a) => a.toLowerCase() === raw.toLowerCase());
  if (!match) {
    const near = closest(raw, allowed);
    throw new UsageError(`${flag} must be one of ${allowed.join(', ')}; got ${show(raw)}`, near ? `did you mean ${example(flag, near)}?` : `e.g. ${example(flag, allowed[0]!)} (any case)`);
  }
  return match;
}

export function httpUrl(flag: string, raw: string): string {
  let url: URL;
  // A host typed without its scheme: say what it would be with one.
  const withScheme = withLikelyScheme(raw);
  const hint = withScheme ? `did you mean ${example(flag, withScheme)}?` : `a full URL with its scheme, e.g. ${example(flag, 'https://example.com/page')}`;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${flag} must be a URL starting with http:// or https://, got ${show(raw)}`, hint);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${flag} must start with http:// or https://, got ${show(raw)}`, hint);
  if (!url.hostname) throw new UsageError(`${flag} must name a host, got ${show(raw)}`, hint);
  // A control character (a NUL, an escape) is no part of a link anyone can type or click: a file or a server put it there.
  if (/[\u0000-\u001f\u007f]/.test(raw.trim())) throw new UsageError(`${flag} holds a control character, got ${show(raw)}`, 'a URL has none; remove it (percent-encode it if it is really meant, e.g. %00)');
  return raw.trim(); // what was checked (URL parsing ignores white space around it) is what is sent
}

/** `#RRGGBB` or `rgb(r,g,b)`, always returned as `rgb(r,g,b)` (what the API wants). */
export function rgbColor(flag: string, raw: string): string {
  const value = raw.trim();
  const hex = /^#?([0-9a-f]{6})$/i.exec(value);
  if (hex) {
    const n = parseInt(hex[1]!, 16);
    return `rgb(${(n >> 16) & 255},${(n >> 8) & 255},${n & 255})`;
  }
  const rgb = /^rgb\(\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*\)$/i.exec(value);
  if (rgb) {
    const parts = rgb.slice(1, 4).map(Number);
    if (parts.every((p) => p <= 255)) return `rgb(${parts.join(',')})`;
  }
  throw new UsageError(`${flag} must be #RRGGBB or rgb(r,g,b) with each part 0-255, got ${show(raw)}`, `e.g. ${flag} '#112233' or ${flag} 'rgb(17,34,51)' (quoted: the shell reads # as the start of a comment)`);
}

/** `#RRGGBB` (channel badges). */
export function hexColor(flag: string, raw: string): string {
  if (!/^#[0-9a-f]{6}$/i.test(raw.trim())) throw new UsageError(`${flag} must be a colour #RRGGBB, got ${show(raw)}`, `e.g. ${flag} '#1e88e5' (quoted: the shell reads # as the start of a comment)`);
  return raw.trim();
}

export function nonEmpty(flag: string, raw: string, min = 1): string {
  if (raw.trim().length < min) {
    throw new UsageError(`${flag} must ${min > 1 ? `have at least ${min} characters` : 'not be empty'}, got ${show(raw)}`, `give the text after ${flag}, in quotes when it has spaces: ${flag} 'Spring sale'`);
  }
  return raw;
}

/** `KEY=VALUE` pairs such as `--geo US=https://...`; `sample` is one for the hint. */
export function keyValue(flag: string, raw: string, sample = 'name=value'): { key: string; value: string } {
  const at = raw.indexOf('=');
  if (at < 1) throw new UsageError(`${flag} must be KEY=VALUE, got ${show(raw)}`, `e.g. ${flag} ${sample}: the key, =, then the value, with no space around =`);
  return { key: raw.slice(0, at), value: raw.slice(at + 1) };
}

export function seconds(flag: string, raw: string): number {
  const n = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || !Number.isFinite(n) || n <= 0 || n > 86_400) {
    throw new UsageError(`${flag} must be a number of seconds between 0 and 86400, got ${show(raw)}`, `e.g. ${flag} 30 or ${flag} 0.5`);
  }
  return n;
}

/** `--override REASON`: a reason a person can read later (the ledger keeps it), one line, not empty. */
export function overrideReason(flag: string, raw: string): string {
  const reason = raw.trim();
  if (!reason || reason.length > 500 || /[\x00-\x1f\x7f]/.test(reason)) {
    throw new UsageError(`${flag} needs a reason of 1 to 500 characters on one line, got ${show(raw)}`, 'e.g. --override "legacy partner URL, approved by J. Doe"');
  }
  return reason;
}

/** An email address: something@domain.tld, without spaces. */
export function email(flag: string, raw: string): string {
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(raw.trim())) throw new UsageError(`${flag} must be an email address such as me@example.com, got ${show(raw)}`, 'an address has one @ and a domain with a dot after it');
  return raw.trim();
}

/** A phone number: digits with an optional leading +; spaces, dots, dashes and brackets are dropped. */
export function phone(flag: string, raw: string): string {
  const digits = raw.replace(/[\s().-]/g, '');
  if (!/^\+?\d{3,20}$/.test(digits)) throw new UsageError(`${flag} must be a phone number (digits, optional leading +), got ${show(raw)}`, `e.g. ${flag} +15551234567 (spaces, dots, dashes and brackets are dropped)`);
  return digits;
}

const DURATION_UNITS: Record<string, { ms: number; name: string }> = {
  s: { ms: 1000, name: 'seconds' },
  m: { ms: 60_000, name: 'minutes' },
  h: { ms: 3_600_000, name: 'hours' },
  d: { ms: 86_400_000, name: 'days' },
  w: { ms: 7 * 86_400_000, name: 'weeks' },
};

/** A length of time such as `90s`, `10m`, `2h`, `14d`, `2w`, in milliseconds; `units` are the letters allowed. */
export function duration(flag: string, raw: string, units = 'smhdw'): number {
  const m = /^(\d{1,6})([a-z])$/i.exec(raw.trim());
  const unit = m && units.includes(m[2]!.toLowerCase()) ? DURATION_UNITS[m[2]!.toLowerCase()] : undefined;
  const allowed = [...units].map((u) => `${u} (${DURATION_UNITS[u]?.name})`).join(', ');
  if (!m || !unit || Number(m[1]) < 1) throw new UsageError(`${flag} must be a positive whole number with a unit, one of ${allowed}, such as ${units.includes('d') ? '14d' : `10${units[units.length - 1]}`}; got ${show(raw)}`, `a number and a letter, no space: e.g. ${example(flag, units.includes('d') ? '14d' : `10${units[units.length - 1]}`)}`);
  return Number(m[1]) * unit.ms;
}

/** The longest `--latency` or `--jitter` a sandbox takes: a minute, far past any client's patience. */
const MAX_DELAY_MS = 60_000;

/** A short time such as `30ms`, `0.5s` or `0` (none), in milliseconds: the sandbox's `--latency` and `--jitter`. */
export function milliseconds(flag: string, raw: string): number {
  const m = /^(\d{1,6}(?:\.\d{1,3})?)\s*(ms|s)?$/i.exec(raw.trim());
  const ms = m ? Number(m[1]) * (m[2]?.toLowerCase() === 's' ? 1000 : 1) : NaN;
  if (!m || (m[2] === undefined && ms !== 0) || !Number.isFinite(ms) || ms > MAX_DELAY_MS) {
    throw new UsageError(`${flag} must be a time in ms or s from 0 to 60s, such as 30ms or 0.5s; got ${show(raw)}`, `a number and its unit, no space: e.g. ${example(flag, '30ms')} (0 for none)`);
  }
  return Math.round(ms);
}

/** The most requests `--concurrency N` may keep in flight: more would be a load test, not a job. */
export const MAX_IN_FLIGHT = 32;

/** `--concurrency`: `auto`, or how many requests at a time, from 1 to MAX_IN_FLIGHT. */
export function concurrencySetting(flag: string, raw: string): number | 'auto' {
  if (raw.trim().toLowerCase() === 'auto') return 'auto';
  const n = Number(raw.trim());
  if (!/^\d+$/.test(raw.trim()) || n < 1 || n > MAX_IN_FLIGHT) {
    throw new UsageError(`${flag} must be auto or a whole number from 1 to ${MAX_IN_FLIGHT}, got ${show(raw)}`, `e.g. ${example(flag, 'auto')} (the default: as many as the server allows), or ${example(flag, '1')} for one request at a time`);
  }
  return n;
}

/**
 * `YYYY-MM-DD HH:MM:SS`, a real calendar date, in the future (servers refuse anything else: a link's
 * expiry, a subscription's). Read as UTC: the server's zone is unknown.
 */
export function futureDateTime(flag: string, raw: string, otherwise = ''): string {
  const value = raw.trim();
  const m = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)$/.exec(value);
  const t = m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) : NaN;
  if (!m || Number.isNaN(t) || new Date(t).toISOString().slice(0, 19).replace('T', ' ') !== value) {
    throw new UsageError(`${flag} must be a date and time "YYYY-MM-DD HH:MM:SS", got "${raw}"`, `e.g. ${flag} "2027-06-30 23:59:59" (quoted: it has a space)`);
  }
  if (t <= Date.now()) throw new UsageError(`${flag} must be in the future, got "${raw}"`, `give a later date and time${otherwise ? `, ${otherwise}` : ''}`);
  return value;
}

/** A domain is a scheme and a host: `https://go.example.com`. `flag` names it in messages. */
export function domainUrl(flag: string, raw: string): string {
  const value = httpUrl(flag, raw.replace(/\/+$/, ''));
  const url = new URL(value);
  if (url.pathname !== '/' || url.search || url.hash) throw new UsageError(`${flag} must be a scheme and a host only, such as https://go.example.com; got "${raw}"`, 'e.g. linkctl domain add https://go.example.com');
  return value;
}
