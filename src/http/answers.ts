/**
 * What came back from a request, apart from the request itself (./client.ts): bodies read within
 * a size cap, transport failures classified (never sent, outcome unknown, TLS, a proxy's
 * authentication), and answers that are not the API's JSON (HTML, a redirect) said in words.
 */
import { NetworkError } from '../errors.js';
import type { Body } from './envelope.js';

/** Errors that prove the request never reached a server, so even a POST may be sent again. */
export const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);
export const RETRY_STATUSES = new Set([502, 503, 504]);
// Not written as a URL with credentials: redaction would hide exactly the part that explains.
export const PROXY_AUTH_HINT = 'put the proxy user name and password in HTTPS_PROXY / HTTP_PROXY, as user:password@ before the host';
export type Failure = 'aborted' | 'timeout' | 'never-sent' | 'unknown-outcome' | 'too-large' | 'proxy-auth' | 'tls' | 'bad-port';

/** `promise`, or a rejection as soon as `signal` aborts, whatever the promise does. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(new Error('aborted'));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => (signal.removeEventListener('abort', onAbort), resolve(value)),
      (error: unknown) => (signal.removeEventListener('abort', onAbort), reject(error)),
    );
  });
}

/** The body as text, or undefined when it is larger than `cap`: see `readCappedBytes`. */
export async function readCapped(response: Response, cap: number, signal: AbortSignal): Promise<string | undefined> {
  return (await readCappedBytes(response, cap, signal))?.toString('utf8');
}

/**
 * The body as bytes, or undefined when it is larger than `cap` (reading stops there). Our own
 * reader: when `signal` aborts (the --timeout timer or Ctrl-C) the read in progress is given up
 * and the stream cancelled at once, however slowly the server drips the body.
 */
export async function readCappedBytes(response: Response, cap: number, signal: AbortSignal): Promise<Buffer | undefined> {
  if (!response.body) return Buffer.alloc(0);
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > cap) {
    void response.body.cancel().catch(() => undefined);
    return undefined;
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await untilAborted(reader.read(), signal);
      if (done) break;
      size += value.byteLength;
      if (size > cap) return undefined;
      chunks.push(value);
    }
  } finally {
    // Done, too large, or aborted: stop reading and let the connection go.
    void reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks);
}

export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** undici reports a proxy's 407 as an error, in forward mode and for CONNECT tunnels alike. */
export function isProxyAuth(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth++) {
    const message = String((current as Error).message);
    if (/\b407\b/.test(message) && /proxy/i.test(message)) return true;
  }
  return false;
}

/** TLS handshake failures: nothing was sent, and sending again would fail the same way. */
export const isTls = (code: string | undefined) =>
  Boolean(code && (/^ERR_(SSL|TLS)_/.test(code) || /CERT|SELF_SIGNED|UNABLE_TO_(VERIFY|GET)/.test(code)));

export function tlsHint(detail: string): string {
  if (/WRONG_VERSION_NUMBER/.test(detail)) return 'the server does not speak https on this port: is the base URL right (http:// or https://, and the port)?';
  return 'if the server uses a private certificate authority, point NODE_EXTRA_CA_CERTS at its certificate file';
}

/** fetch refuses some ports outright (the Fetch standard's "bad ports": 6000, 6667, ...), sending nothing. */
export const isBadPort = (error: unknown) => (error as { cause?: { message?: string } })?.cause?.message === 'bad port';

export function classify(error: unknown): Failure {
  if (isProxyAuth(error)) return 'proxy-auth'; // the server was never reached, and sending again would not help
  if (isBadPort(error)) return 'bad-port'; // fetch itself refuses the port: sending again changes nothing
  const code = errorCode(error);
  if (isTls(code)) return 'tls';
  return code && NEVER_SENT.has(code) ? 'never-sent' : 'unknown-outcome';
}

export function describe(error: unknown): string {
  const code = errorCode(error);
  const cause = (error as { cause?: { message?: string } })?.cause?.message;
  const message = cause || (error as Error)?.message || String(error);
  if (isProxyAuth(error)) return 'the proxy refused the request: it wants credentials (HTTP 407)';
  if (isBadPort(error)) return 'fetch refuses to connect to this port (a "bad port" of the Fetch standard, as browsers do)';
  if (isTls(code)) return `the TLS connection failed (${code})`;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'the host name does not resolve';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || /other side closed|terminated|socket hang up/i.test(message)) {
    return 'the connection was closed before a complete answer';
  }
  const line = message.replace(/\s+/g, ' ').trim().slice(0, 300); // one line, whatever the library wrote
  return code ? `${line} (${code})` : line;
}

export function isRecord(value: unknown): value is Body {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The deepest nesting of arrays and objects in JSON text (brackets inside strings do not count). */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}

export function looksJson(text: string): boolean {
  return /^\s*[{[]/.test(text);
}

export function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function statusText(status: number): string {
  const names: Record<number, string> = { 401: ' Unauthorized', 403: ' Forbidden', 502: ' Bad Gateway', 503: ' Service Unavailable', 504: ' Gateway Timeout' };
  return names[status] ?? '';
}

export function tryUrl(raw: string, base: string): URL | undefined {
  try {
    return new URL(raw, base);
  } catch {
    return undefined;
  }
}

export function redirectError(url: string, path: string, status: number, location: string | null): NetworkError {
  const from = new URL(url);
  const to = location === null ? undefined : tryUrl(location, url);
  const target = to ? to.href : location === null ? '(no Location header)' : `"${location.slice(0, 200)}" (not a URL)`;
  let hint = 'linkctl does not follow redirects on API calls; set --base-url to the site root the API really answers on';
  if (to) {
    // The site root the redirect implies: the target with the API path taken off its end.
    const apiPath = `/${path.replace(/^\/+/, '').replace(/\/+$/, '')}`;
    const rest = to.pathname.replace(/\/+$/, '');
    const root = rest.endsWith(apiPath) ? `${to.origin}${rest.slice(0, -apiPath.length)}` : undefined;
    const fromPath = from.pathname.replace(/\/+$/, '');
    if (from.protocol === 'http:' && to.protocol === 'https:') hint = `the server wants https: use --base-url ${root ?? `https://${from.host}`}`;
    else if (to.host === from.host && fromPath === rest && to.pathname !== from.pathname) {
      hint = 'the server redirects to add or remove a trailing slash, which API calls must not need; check --base-url (the site root, without /api)';
    } else if (root) hint = `the API seems to have moved: try --base-url ${root}`;
  }
  return Object.assign(new NetworkError(`HTTP ${status}: the server redirects ${url} to ${target}`, hint), { status });
}

export function nonJsonError(where: string, path: string, status: number, text: string): NetworkError {
  const json = looksJson(text);
  const kind = json ? 'an incomplete JSON answer' : /<html|<!doctype/i.test(text) ? 'an HTML page' : 'an answer that is not JSON';
  // An id in the path: a segment after the resource name (the QR code `abc`, or its `abc/update`).
  const hasId = /^\/?api\/[^/]+\/[^/?]+/.test(path);
  let hint: string | undefined;
  if (status === 404) hint = 'is the base URL right? it should be the site root, e.g. https://example.com';
  else if (status === 405) hint = 'the server does not accept this method here; is the base URL right?';
  else if (status === 407) hint = PROXY_AUTH_HINT;
  else if (RETRY_STATUSES.has(status)) hint = 'the server, or a gateway in front of it, is unavailable; try again later';
  else if (status >= 500 && hasId) hint = 'the server failed on this request (non-numeric id, or data the server rejects)';
  else if (status >= 500) hint = 'the server failed on this request; try again later, or check the values you gave';
  else if (json) hint = 'the answer was cut short; try again';
  else if (status === 200) hint = 'is the base URL the main site rather than a branded domain? it should be the site root, e.g. https://example.com';
  return Object.assign(new NetworkError(`HTTP ${status}${statusText(status)}: the server sent ${kind} for ${where}`, hint), { status });
}
