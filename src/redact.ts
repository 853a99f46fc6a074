/**
 * The one redaction function. `--debug` traces, error messages and crash output all pass
 * through it, so a key can only leak by bypassing this file.
 */
export const REDACTED = '[REDACTED]';

const SECRET_FIELD = /("(?:[a-z_]*pass(?:word)?[a-z_]*|pass|api_?key|apikey|token|secret)"\s*:\s*)"(?:[^"\\]|\\.)*"/gi;
const BEARER = /(Bearer\s+)[^\s"',]+/gi;
const URL_CREDENTIALS = /(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s:@]+(?::[^/\s@]*)?@/gi;

export function redact(text: string, secrets: ReadonlyArray<string | undefined> = []): string {
  let out = text;
  for (const secret of secrets) {
    // Very short values would redact ordinary words; keys are never that short.
    if (secret && secret.length >= 4) out = out.split(secret).join(REDACTED);
  }
  return out
    .replace(BEARER, `$1${REDACTED}`)
    .replace(URL_CREDENTIALS, `$1${REDACTED}@`)
    .replace(SECRET_FIELD, `$1"${REDACTED}"`);
}

/** Shows only the last 4 characters of a key: `****abcd`. */
export function maskKey(key: string | undefined): string {
  if (!key) return '(none)';
  return key.length <= 8 ? '****' : `****${key.slice(-4)}`;
}
