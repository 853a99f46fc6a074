/**
 * `export --redirects FORMAT`: every link as a static redirect map that another web server can
 * serve when the product is down or gone, so that printed links and QR codes (which hold the
 * short URL) keep working once the branded domain points at that server.
 *
 * The map is built from the link list (its short URL gives the host and path, its destination
 * where to go). Everything in it comes from a server and lands in another program's configuration,
 * so nothing is written as it came: a destination must parse as an http(s) URL and is written in
 * its serialized form with every character outside a small safe set percent-encoded (so it holds
 * no space, line break, quote, backslash, `$`, `{` or `}`), a short URL's host must be a plain
 * host name or IP address (letters, digits, `-`, `_`, dots: never a `~` that nginx reads as a
 * regular expression, a quote, a brace or a comma that ends a Caddy address), and its path is
 * written in each format's own quoting, or left out (with a note) where the format has none for it.
 * A path holding a control, C1 or bidi character is left out everywhere: no format can show it
 * safely, and the map may be printed on a terminal.
 */
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { readTargets } from '../model/links.js';
import { text, type Rec } from '../model/values.js';
import { csvLine } from '../output/render.js';
import { safeText } from '../output/safe-text.js';
import type { Result } from '../output/types.js';
import { prepareWrite } from '../files/access.js';

import type { RedirectFormat } from './redirect-formats.js';

export type { RedirectFormat } from './redirect-formats.js';

/** Temporary (302): browsers do not remember a fallback once the product serves the links again. */
const STATUS = 302;

/** One redirect: the short URL's host (lower case, no port), its path decoded and as sent, and where it goes. */
interface Entry {
  /** `https:` or `http:`, as the short URL has it. */
  scheme: string;
  host: string;
  /** `/café`, as web servers match it once decoded. */
  path: string;
  /** `/caf%C3%A9`, as a browser sends it. */
  sentPath: string;
  to: string;
}

/** Characters a URL may hold as they are in every format here; anything else is percent-encoded. */
const URL_SAFE = /[^A-Za-z0-9\-._~:/?#[\]@!&'()*+,;=%]/gu;

/** A destination as every format can hold it: an http(s) URL, serialized, with nothing a configuration could read as syntax. */
export function safeDestination(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  // `%` stays (the serialized URL's own escapes); a `%` not followed by two hex digits is encoded too.
  return url.href.replace(URL_SAFE, (ch) => encodeURIComponent(ch)).replace(/%(?![0-9A-Fa-f]{2})/g, '%25');
}

/** What a static map cannot keep, said in every file and on stderr. */
const CANNOT_KEEP =
  'A static map sends every visitor to the destination: geo, device and language targeting, passwords (the API does not say which links have one: a protected link opens without asking), expiry, splash and overlay pages, pixels, parameters, deep links and click counting are not kept.';

interface Built {
  entries: Entry[];
  /** Links left out or changed, one line each, for the file's comments and stderr. */
  notes: string[];
}

/** The account's links as redirects: one read of the list (and one read a link with --details). */
async function build(ctx: Context, details: boolean): Promise<Built> {
  const reader = await ctx.reader();
  const notes: string[] = [];
  const links: Rec[] = [];
  await reader.each('links', (r) => links.push({ id: r.id, alias: r.alias, shorturl: r.shorturl, longurl: r.longurl }));
  const entries: Entry[] = [];
  const seen = new Map<string, string>();
  let done = 0;
  for (const link of links) {
    const name = typeof link.shorturl === 'string' ? safeText(link.shorturl) : `link ${String(link.id)}`;
    let short: URL | undefined;
    try {
      short = typeof link.shorturl === 'string' ? new URL(link.shorturl) : undefined;
    } catch {
      short = undefined;
    }
    if (!short || (short.protocol !== 'http:' && short.protocol !== 'https:')) {
      notes.push(`${name}: left out: its short URL is not an http(s) URL`);
      continue;
    }
    const sentPath = short.pathname;
    let path: string;
    try {
      path = decodeURIComponent(sentPath);
    } catch {
      path = sentPath;
    }
    if (path === '/' || path === '') {
      notes.push(`${name}: left out: a link without an alias is the domain's root`);
      continue;
    }
    const to = typeof link.longurl === 'string' ? safeDestination(link.longurl) : undefined;
    if (!to) {
      notes.push(`${name}: left out: its destination is not an http(s) URL`);
      continue;
    }
    const host = short.hostname.toLowerCase();
    if (!PLAIN_HOST.test(host)) {
      notes.push(`${name}: left out: its host is not a plain host name or IP address, and cannot be written safely in a server's configuration`);
      continue;
    }
    if (UNSAFE_IN_PATH.test(path)) {
      notes.push(`${name}: left out: its path holds a control, C1 or bidi character`);
      continue;
    }
    const key = `${host}${path}`.toLowerCase();
    const first = seen.get(key);
    if (first !== undefined) {
      notes.push(`${name}: left out: ${first} has the same short URL (servers match aliases without regard to case)`);
      continue;
    }
    seen.set(key, name);
    if (details && typeof link.id === 'number') {
      const read = (await reader.readOne('links', link.id)).details as Rec | undefined;
      ctx.status(`reading: details of ${++done} of ${links.length} links`);
      const lost: string[] = [];
      if (readTargets(read?.location).targets.length || readTargets(read?.location).regions.length) lost.push('geo targeting');
      if (readTargets(read?.device).targets.length) lost.push('device targeting');
      const expiry = text(read?.expiry);
      if (expiry && Date.parse(`${expiry.replace(' ', 'T')}Z`) <= Date.now()) {
        notes.push(`${name}: left out: it expired ${expiry} (the product no longer redirects it)`);
        continue;
      }
      if (expiry) lost.push(`expiry ${expiry} (the map goes on redirecting after it)`);
      if (lost.length) notes.push(`${name}: ${lost.join(', ')} not kept: every visitor goes to ${to}`);
    }
    entries.push({ scheme: short.protocol, host, path, sentPath, to });
  }
  entries.sort((a, b) => (a.host + a.path < b.host + b.path ? -1 : a.host + a.path > b.host + b.path ? 1 : 0));
  if (!details && entries.length) notes.push(`which links have geo or device targeting or an expiry was not read: --details reads each link (${entries.length} request${entries.length === 1 ? '' : 's'}) and names them`);
  return { entries, notes };
}

/** A host name (labels of letters, digits, `-` and `_`, the root's dot allowed), an IPv4 address, or an IPv6 one in brackets. */
const PLAIN_HOST = /^(?:[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?|\[[0-9a-f:.]+\])$/;
/** Characters a terminal acts on, or that reorder what people read (src/output/safe-text.ts), and line separators. */
const UNSAFE_IN_PATH = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/u;

/** A string in nginx's double quotes: `\` and `"` escaped; a control character cannot be written at all. */
const nginxQuoted = (s: string) => `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
const CONTROL = /[\u0000-\u001f\u007f]/u;

/** Each format: its file, from the entries; entries it cannot hold go to `notes`. */
const WRITERS: Record<RedirectFormat, (entries: Entry[], notes: string[]) => string> = {
  // A `map` for the http block (map keys are matched as strings, without case, never as variables),
  // with the hash sizes its keys need; the server block returns the mapped URL.
  nginx: (entries, notes) => {
    const kept = entries.filter((e) => !CONTROL.test(e.host + e.path) || (notes.push(`${e.host}${e.sentPath}: left out: its path holds a control character`), false));
    const longest = Math.max(64, ...kept.map((e) => Buffer.byteLength(e.host + e.path)));
    let bucket = 64;
    while (bucket < longest + 32) bucket *= 2;
    let size = 2048;
    while (size < kept.length * 2) size *= 2;
    const lines = [
      '# Include in the http block; then, in the server block of each short domain:',
      '#   if ($linkctl_redirect) { return 302 $linkctl_redirect; }',
      `map_hash_bucket_size ${bucket};`,
      `map_hash_max_size ${size};`,
      'map $host$uri $linkctl_redirect {',
      '    default "";',
      ...kept.map((e) => `    ${nginxQuoted(e.host + e.path)} ${nginxQuoted(e.to)};`),
      '}',
    ];
    return lines.join('\n');
  },
  // A RewriteMap text file: `host/path destination` a line (the key and value are whitespace-separated words).
  apache: (entries, notes) => {
    const kept = entries.filter((e) => !/[\s\u0000-\u001f\u007f]/u.test(e.host + e.path) || (notes.push(`${e.host}${e.sentPath}: left out: a RewriteMap key cannot hold a space or a control character`), false));
    return [
      '# A RewriteMap text file (mod_rewrite). In the server config or the <VirtualHost> of the short domains:',
      '#   RewriteEngine On',
      '#   RewriteMap lower int:tolower',
      '#   RewriteMap linkctl "txt:/etc/apache2/linkctl-redirects.txt"',
      '#   RewriteCond ${linkctl:${lower:%{SERVER_NAME}$1}|-} !=-',
      '#   RewriteRule ^(/.*)$ ${linkctl:${lower:%{SERVER_NAME}$1}} [R=302,L,NE]',
      '# Keys are in lower case: servers match aliases without regard to case.',
      ...kept.map((e) => `${(e.host + e.path).toLowerCase()} ${e.to}`),
    ].join('\n');
  },
  // A Caddyfile: a site block per short domain, a `redir` per link. A path matcher reads `*` as a
  // wildcard and `{...}` as a placeholder, so such paths are left out.
  caddy: (entries, notes) => {
    const kept = entries.filter((e) => {
      // Caddy reads `import` as its directive wherever it stands, quoted or not: that host cannot be a site address.
      if (e.host === 'import') return notes.push(`${e.scheme}//${e.host}${e.sentPath}: left out: Caddy reads the host "import" as its import directive`), false;
      return /^\/[\p{L}\p{N}\-._~!&'()+,;=:@]+$/u.test(e.path) || (notes.push(`${e.host}${e.sentPath}: left out: a Caddy path matcher would read one of its characters as syntax`), false);
    });
    const lines = ['# A Caddyfile: serve it with `caddy run --config FILE --adapter caddyfile`, or import it into yours.'];
    let host: string | undefined;
    for (const e of kept) {
      if (e.host !== host) {
        if (host !== undefined) lines.push('}');
        host = e.host;
        // Quoted: a host is one address token, never a directive (`import`) nor a list (PLAIN_HOST keeps `{`, `}` and `"` out).
        lines.push(`"${e.host}" {`);
      }
      lines.push(`\tredir ${e.path} "${e.to}" ${STATUS}`);
    }
    if (host !== undefined) lines.push('}');
    return lines.join('\n');
  },
  // Netlify's `_redirects`: `from to status!` a line, whitespace-separated; `from` is the whole short
  // URL (a domain-level redirect), its path percent-encoded so that no `:name` or `*` reads as a placeholder.
  netlify: (entries) =>
    [
      '# Netlify _redirects: put it in the publish folder of a site that has the short domains.',
      ...entries.map((e) => `https://${e.host}${encodedPath(e.path)} ${e.to} ${STATUS}!`),
    ].join('\n'),
  // Cloudflare Bulk Redirects CSV: source (host and path, no scheme: http and https), target, status; no header row.
  // A file Cloudflare reads, never a spreadsheet: no formula guard (it would turn `-x.example/x` into `'-x.example/x`).
  cloudflare: (entries) => entries.map((e) => csvLine([`${e.host}${encodedPath(e.path)}`, e.to, STATUS], false).trimEnd()).join('\n'),
  csv: (entries) => [csvLine(['short_url', 'destination', 'status']).trimEnd(), ...entries.map((e) => csvLine([`${e.scheme}//${e.host}${e.sentPath}`, e.to, STATUS]).trimEnd())].join('\n'),
};

/** A path with each segment percent-encoded as a URL component (`:` and `*` included). */
const encodedPath = (path: string) => path.split('/').map((segment) => encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)).join('/');

/** `export --redirects FORMAT [--file F] [--details]`. */
export async function exportRedirects(ctx: Context, format: RedirectFormat, opts: Record<string, unknown>): Promise<Result> {
  if (opts.schema || opts.format !== undefined) throw new UsageError(`--redirects writes a redirect map (${format}), not an account file: drop ${opts.schema ? '--schema' : '--format'}`, 'run export twice for both');
  const out = opts.file && opts.file !== '-' ? await prepareWrite(ctx, String(opts.file), { flag: '--file', force: Boolean(opts.force) }) : undefined;
  const { entries, notes } = await build(ctx, Boolean(opts.details));
  const body = WRITERS[format](entries, notes);
  // In a Caddyfile, `{$NAME}` is replaced from the environment anywhere in the file, comments included: braces of a note are written encoded.
  const commentText = (line: string) => (format === 'caddy' ? line.replace(/[{}]/g, encodeURIComponent) : line);
  const comments = format === 'cloudflare' || format === 'csv' ? '' : `${[`# linkctl redirect map (${format}): ${entries.length} short link${entries.length === 1 ? '' : 's'}, ${STATUS} to the destination.`, `# ${CANNOT_KEEP}`, ...notes.map((n) => `# ${n}`)].map((l) => commentText(safeText(l.replace(/[\r\n\u2028\u2029]/gu, ' ')))).join('\n')}\n`;
  const textOut = `${comments}${body}${body ? '\n' : ''}`;
  ctx.warn(`note: ${CANNOT_KEEP}`);
  for (const note of notes) ctx.warn(`note: ${note}`);
  if (out) {
    if (!out.write(textOut)) return { kind: 'message', message: `dry run: would write ${entries.length} redirects to ${out.path}; nothing was written`, json: { dryRun: true, file: out.path, redirects: entries.length } };
    return { kind: 'message', message: `Wrote ${entries.length} redirects (${format}) to ${out.path}.`, json: { file: out.path, redirects: entries.length, format } };
  }
  // --json on stdout: the redirects as data (a map file is not JSON), the same whatever the format.
  if (ctx.format === 'json') return { kind: 'raw', json: entries.map((e) => ({ shortUrl: `${e.scheme}//${e.host}${e.sentPath}`, destination: e.to, status: STATUS })) };
  return { kind: 'text', text: textOut };
}
