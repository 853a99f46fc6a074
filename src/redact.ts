/**
 * The one redaction function. `--debug` traces, error messages and crash output all pass
 * through it, so a key can only leak by bypassing this file.
 */
export const REDACTED = '[REDACTED]';

/** JSON fields named like a secret: password, wifi `pass`, newPassword, api_key, access_token, client_secret... */
const SECRET_NAME = String.raw`[\w-]*?(?:pass(?:word|wd|phrase)?|secret|token|api[_-]?key|authorization)`;
const SECRET_FIELD = new RegExp(
  String.raw`("${SECRET_NAME}"\s*:\s*)(?:"(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*|true|false)`,
  'gi',
);
/** The same field inside JSON that is itself a string (escaped quotes), as in a quoted body. */
const ESCAPED_SECRET_FIELD = new RegExp(String.raw`(\\"${SECRET_NAME}\\"\s*:\s*)\\"(?:[^"\\]|\\[^"])*\\"`, 'gi');
/** `Authorization: Bearer x`, `Proxy-Authorization: Basic x`, and bare `Bearer x` / `Basic x` tokens. */
const AUTH_HEADER = /\b((?:proxy-)?authorization\s*:\s*(?:(?:bearer|basic|token)\s+)?)[^\s"',;]+/gi;
const BEARER = /\b((?:Bearer|Basic)\s+)(?!\[REDACTED\])[A-Za-z0-9._~+/=:-]{6,}/g;
/** Credentials in URLs: `http://user:password@proxy:3128`. */
const URL_CREDENTIALS = /(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s:@"']+(?::[^/\s@"']*)?@/gi;
/** Shorter "secrets" would redact ordinary words; keys are never that short. */
const MIN_SECRET_LENGTH = 4;

/**
 * Every secret, in any letter case (a server may echo a key upper-cased), also with white space
 * between its characters: spaced out (`s e c r e t`), or split across lines (a wrapped hex or
 * base64 dump). The white space is taken as it comes, or as the escapes (`\n`, `\t`) that
 * safe-text shows a line break as.
 */
const GAP = String.raw`(?:\s|\\[nrt])*`;
/**
 * The patterns made for the latest sets of secrets: a run redacts every `--debug` line with the
 * same key, and making (and compiling) the pattern of a key's dozen forms each time was two thirds
 * of a call (a 2 KB line: 0.18 ms, 0.06 ms with the pattern kept). A few sets, not one:
 * `--as-user` redacts with the admin's key and the user's.
 */
const patterns = new Map<string, RegExp>();
const PATTERNS_KEPT = 4;
function removeLiterals(text: string, secrets: readonly string[]): string {
  if (!secrets.length) return text;
  const key = secrets.join('\0');
  let pattern = patterns.get(key);
  if (!pattern) {
    const escape = (c: string) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    pattern = new RegExp(secrets.map((s) => [...s].map(escape).join(GAP)).join('|'), 'gi');
    if (patterns.size >= PATTERNS_KEPT) patterns.delete(patterns.keys().next().value!);
    patterns.set(key, pattern);
  }
  return text.replace(pattern, REDACTED); // replace starts a global pattern from 0 each time
}

/** Hex (as a hex dump shows the bytes) and reversed: forms a hostile server has echoed a key in. */
function otherForms(secret: string): string[] {
  return [Buffer.from(secret, 'utf8').toString('hex'), [...secret].reverse().join('')];
}

/** The base64 forms of a secret (standard and URL-safe, with and without padding), as in a Basic header or a token. */
function base64Forms(secret: string): string[] {
  const standard = Buffer.from(secret, 'utf8').toString('base64');
  const url = Buffer.from(secret, 'utf8').toString('base64url');
  return [standard, standard.replace(/=+$/, ''), url];
}

/**
 * `text` with secrets replaced by [REDACTED]: the literal values in `secrets` (as written,
 * URL-encoded, JSON-escaped, base64-encoded, hex-encoded and reversed, in any letter case, also
 * spaced out or split across lines), authorization headers and bearer tokens, credentials in URLs,
 * and JSON fields named like passwords.
 */
export function redact(text: string, secrets: ReadonlyArray<string | undefined> = []): string {
  const ordered = literalForms(secrets);
  const out = removeLiterals(text, ordered)
    .replace(AUTH_HEADER, `$1${REDACTED}`)
    .replace(BEARER, `$1${REDACTED}`)
    .replace(URL_CREDENTIALS, `$1${REDACTED}@`)
    .replace(SECRET_FIELD, `$1"${REDACTED}"`)
    .replace(ESCAPED_SECRET_FIELD, `$1\\"${REDACTED}\\"`);
  // Again: the patterns above only shorten the text around markers, but a last pass costs nothing.
  return removeLiterals(out, ordered);
}

/** Every form a secret is removed in (as written, URL- and JSON-escaped, base64, hex, reversed), longest first. */
function literalForms(secrets: ReadonlyArray<string | undefined>): string[] {
  const literals = new Set<string>();
  for (const secret of secrets) {
    if (!secret || secret.length < MIN_SECRET_LENGTH) continue;
    literals.add(secret);
    literals.add(encodeURIComponent(secret));
    literals.add(JSON.stringify(secret).slice(1, -1));
    for (const form of [...base64Forms(secret), ...otherForms(secret)]) if (form.length >= MIN_SECRET_LENGTH) literals.add(form);
  }
  // Longest first, so a variant that contains another is removed whole.
  return [...literals].sort((a, b) => b.length - a.length);
}

/**
 * Data with the user's secrets (the API key, values taken from the environment) removed, in
 * every form `redact` knows, and nothing else changed: what linkctl prints or writes of what a
 * server sent (a server that echoes the key into a link's title, a plan comment). Unlike
 * `redact`, no pattern (a URL's credentials, a field named like a password) is touched: those
 * are the user's data. The pattern is built once per set of secrets.
 */
export function redactSecrets(text: string, secrets: ReadonlyArray<string | undefined>): string {
  const key = secrets.join('\u0000');
  if (key !== cachedKey) {
    cachedKey = key;
    const ordered = literalForms(secrets);
    const escape = (c: string) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    cachedPattern = ordered.length ? new RegExp(ordered.map((s) => [...s].map(escape).join(GAP)).join('|'), 'gi') : undefined;
  }
  return cachedPattern ? text.replace(cachedPattern, REDACTED) : text;
}
let cachedKey: string | undefined;
let cachedPattern: RegExp | undefined;

/**
 * The field of the product's user records (the admin API's list of users and its single read) that
 * holds each user's API key. The model drops it when it reads a user (src/model/users.ts); what
 * prints a server's answer as it is (the raw `api` command and its MCP tool) passes it through
 * `withoutUserKeys`.
 */
export const USER_KEY_FIELD = 'apikey';

/** `value` with the value of every `apikey` field, at any depth, replaced by [REDACTED]: it says one exists, never what it is. */
export function withoutUserKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUserKeys);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k.toLowerCase() === USER_KEY_FIELD && v !== null && v !== '' ? REDACTED : withoutUserKeys(v)]));
  }
  return value;
}

/** Shows only the last 4 characters of a key: `****abcd`. */
export function maskKey(key: string | undefined): string {
  if (!key) return '(none)';
  return key.length <= 8 ? '****' : `****${key.slice(-4)}`;
}
