/**
 * The exports `linkctl import` reads, one entry per source: the columns each vendor documents
 * (the README, "Moving from another shortener", cites where each list comes from) and how a row
 * of them becomes a link. Only facts were taken from the vendors' documentation and code; the
 * parsing is ours.
 *
 * Column names match without regard to case, spaces, `_` and `-` (`Long URL` is `long_url`), as
 * Shlink's own CSV importer matches them, so that a spreadsheet's renamed header still reads.
 */
import { UsageError } from '../errors.js';

export const FORMAT_NAMES = ['bitly', 'shlink', 'yourls', 'kutt', 'dub', 'shortio', 'rebrandly', 'csv'] as const;
export type FormatName = (typeof FORMAT_NAMES)[number];
/** What a source's tags become (`--tags-to`), and what becomes of a link that cannot keep its alias (`--on-collision`). */
export const TAGS_TO = ['campaign', 'channel', 'none'] as const;
export const ON_COLLISION = ['fail', 'suffix', 'skip', 'replace'] as const;

/** The CSV delimiters linkctl reads (the header shows which; `--delimiter` says so when it does not). */
export const DELIMITERS = { ',': 'comma', ';': 'semicolon', '\t': 'tab' } as const;
export type Delimiter = keyof typeof DELIMITERS;

/** `--delimiter`: a name (comma, semicolon, tab) or the character itself (`\t` for a tab). */
export function delimiterOption(value: string): Delimiter {
  const given = value === '\\t' ? '\t' : value;
  const found = (Object.entries(DELIMITERS) as Array<[Delimiter, string]>).find(([char, name]) => given === char || given.trim().toLowerCase() === name);
  if (!found) throw new UsageError(`--delimiter must be one of ${Object.values(DELIMITERS).join(', ')} (or the character itself), got "${value}"`, 'for example --delimiter semicolon');
  return found[0];
}

/** One link of a source export, as linkctl understands it. */
export interface SourceLink {
  /** Where it is in the input: a CSV row's first line, a JSON object's first line. */
  line: number;
  /** The destination. */
  url: string;
  /** The back-half / short code as the source has it ('' for a domain's root link). */
  alias: string;
  /** The short domain's host in the source (`go.example.com`), when the export says. */
  host?: string;
  title?: string;
  description?: string;
  tags: string[];
  /** The source's own id of the link. */
  id?: string;
  /** When the source created it, as the export writes it. */
  created?: string;
  /** The source's click total. */
  clicks?: number;
  /** When the link stops working, as the file's `expiry` takes it (`YYYY-MM-DD HH:MM:SS`). */
  expiry?: string;
  /** What the file cannot hold (archived, password-protected, other short URLs), for its comment. */
  notes: string[];
}

/** A row's cells by column name (any spelling `normalizeColumn` makes one). */
export type Cells = (column: string) => string | undefined;

export interface Format {
  name: FormatName;
  /** The vendor's name, for messages and comments. */
  label: string;
  input: 'csv' | 'json';
  /** The documented columns, for messages (`the columns are ...`). */
  columns: string[];
  /** Sets of columns of which the header must have one each (the destination; the short code). */
  required: string[][];
  /** A row as a link; throws a plain Error with what is wrong with the row. */
  row: (cell: Cells, line: number) => SourceLink;
}

const normalized = new Map<string, string>();
/** `Long URL`, `long_url` and `longurl` are one column. (Remembered: every row asks for the same few names.) */
export function normalizeColumn(name: string): string {
  let known = normalized.get(name);
  if (known === undefined) {
    known = name.trim().toLowerCase().replace(/[\s_-]+/g, '');
    if (normalized.size < 1_000) normalized.set(name, known);
  }
  return known;
}

/** A list cell: `a|b` (Shlink) or `a, b` (Dub); empty items dropped. */
export function splitList(value: string | undefined): string[] {
  if (!value?.trim()) return [];
  return value.split(value.includes('|') ? '|' : ',').map((t) => t.trim()).filter(Boolean);
}

/** Host and back-half of a short URL, with or without its scheme (`bit.ly/abc`, `https://dub.sh/x`). */
export function parseShortUrl(raw: string): { host: string; alias: string } {
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch {
    throw new Error(`the short URL "${text}" is not a URL`);
  }
  let alias = url.pathname.replace(/^\/+/, '');
  try {
    alias = decodeURIComponent(alias);
  } catch {
    // kept as written: a stray % is a character like any other
  }
  return { host: url.hostname.toLowerCase(), alias };
}

const count = (value: string | undefined): number | undefined => {
  const n = value === undefined ? NaN : Number(value.replace(/[\s,]/g, ''));
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
};
const text = (value: string | undefined): string | undefined => (value?.trim() ? value.trim() : undefined);
const yes = (value: string | undefined) => /^(true|yes|1)$/i.test(value?.trim() ?? '');

/** The destination, or the error every format gives for a row without one. */
function destination(cell: Cells, column: string): string {
  const url = text(cell(column));
  if (!url) throw new Error(`no destination (the ${column} column is empty)`);
  return url;
}

/** A link with every field present (one shape for all: rows are many), filled in by each format. */
function base(line: number, url: string, short: { host?: string; alias: string }): SourceLink {
  return { line, url, alias: short.alias, host: short.host, title: undefined, description: undefined, tags: [], id: undefined, created: undefined, clicks: undefined, expiry: undefined, notes: [] };
}

/** The short code from its own column when given, else from the short URL. */
function shortOf(cell: Cells, codeColumn: string | undefined, urlColumns: string[], domainColumn?: string): { host?: string; alias: string } {
  const code = codeColumn === undefined ? undefined : cell(codeColumn);
  const urlColumn = urlColumns.find((c) => text(cell(c)));
  const fromUrl = urlColumn ? parseShortUrl(cell(urlColumn)!) : undefined;
  const domain = domainColumn ? text(cell(domainColumn))?.toLowerCase().replace(/^https?:\/\//, '').replace(/\/+$/, '') : undefined;
  if (code !== undefined && code.trim() !== '') return { alias: code.trim(), host: domain ?? fromUrl?.host };
  if (fromUrl) return { alias: fromUrl.alias, host: domain ?? fromUrl.host };
  return { alias: '', host: domain };
}

/**
 * Dub writes a cell that starts with = + - @ (or a tab or line break) with a leading `'`, so that
 * a spreadsheet does not run it as a formula (apps/web/lib/analytics/utils/convert-to-csv.ts).
 */
const dubCell = (value: string | undefined) => (value !== undefined && /^'[=+\-@\t\r\n]/.test(value) ? value.slice(1) : value);

export const FORMATS: Record<Exclude<FormatName, 'csv'>, Format> = {
  // Bitly's link object (dev.bitly.com, Bitlink): its CSV export is not documented publicly, so the
  // columns are read by the link object's field names. A custom back-half is what people share:
  // it is the alias, the generated one a note (as Shlink's Bitly importer does).
  bitly: {
    name: 'bitly',
    label: 'Bitly',
    input: 'csv',
    columns: ['id', 'link', 'long_url', 'title', 'created_at', 'tags', 'custom_bitlinks', 'archived'],
    required: [['long_url'], ['link', 'id', 'custom_bitlinks']],
    row: (cell, line) => {
      const custom = splitList(cell('custom_bitlinks'));
      const generated = text(cell('link')) ?? text(cell('id'));
      const shortUrl = custom[0] ?? generated;
      const link = base(line, destination(cell, 'long_url'), shortUrl ? parseShortUrl(shortUrl) : { alias: '' });
      const others = [...custom.slice(1), ...(custom.length && generated ? [generated] : [])];
      if (others.length) link.notes.push(`also ${others.join(', ')} in Bitly`);
      if (yes(cell('archived'))) link.notes.push('archived in Bitly');
      link.title = text(cell('title'));
      link.tags = splitList(cell('tags'));
      link.id = text(cell('id')) ?? generated;
      link.created = text(cell('created_at'));
      return link;
    },
  },
  // shlink-web-component's "Export" of the short URL list (short_urls.csv).
  shlink: {
    name: 'shlink',
    label: 'Shlink',
    input: 'csv',
    columns: ['createdAt', 'domain', 'shortCode', 'shortUrl', 'longUrl', 'title', 'tags', 'visits'],
    required: [['longUrl'], ['shortCode', 'shortUrl']],
    row: (cell, line) => {
      const link = base(line, destination(cell, 'longUrl'), shortOf(cell, 'shortcode', ['shorturl'], 'domain'));
      link.title = text(cell('title'));
      link.tags = splitList(cell('tags'));
      link.id = text(cell('shorturl'));
      link.created = text(cell('created_at'));
      link.clicks = count(cell('visits'));
      return link;
    },
  },
  // The columns of YOURLS's URL table (keyword, url, title, timestamp, ip, clicks), which is what
  // its export plugins and a database export write. YOURLS has one domain, which the table does not name.
  yourls: {
    name: 'yourls',
    label: 'YOURLS',
    input: 'csv',
    columns: ['keyword', 'url', 'title', 'timestamp', 'ip', 'clicks'],
    required: [['url'], ['keyword']],
    row: (cell, line) => {
      const link = base(line, destination(cell, 'url'), { alias: text(cell('keyword')) ?? '' });
      link.title = text(cell('title'));
      link.id = text(cell('keyword'));
      link.created = text(cell('timestamp'));
      link.clicks = count(cell('clicks'));
      return link;
    },
  },
  // The answer of Kutt's links API, version 2 ({total, limit, skip, data: [...]}), or its `data` list.
  kutt: {
    name: 'kutt',
    label: 'Kutt',
    input: 'json',
    columns: ['id', 'address', 'target', 'description', 'domain', 'link', 'created_at', 'visit_count', 'expire_in', 'password', 'banned'],
    required: [['target'], ['address', 'link']],
    row: (cell, line) => {
      const link = base(line, destination(cell, 'target'), shortOf(cell, 'address', ['link'], 'domain'));
      if (yes(cell('password'))) link.notes.push('password-protected in Kutt (add `password: ${env:NAME}` to keep it)');
      if (text(cell('expirein'))) link.notes.push(`expires ${text(cell('expirein'))} in Kutt`);
      if (yes(cell('banned'))) link.notes.push('banned in Kutt');
      link.description = text(cell('description'));
      link.id = text(cell('id'));
      link.created = text(cell('created_at'));
      link.clicks = count(cell('visitcount'));
      return link;
    },
  },
  // Dub's "Export links" CSV: the labels of exportLinksColumns (apps/web/lib/zod/schemas/links.ts).
  dub: {
    name: 'dub',
    label: 'Dub',
    input: 'csv',
    columns: ['Short link', 'Destination URL', 'Clicks', 'Created at', 'Link ID', 'Updated at', 'Tags', 'Archived', 'Leads', 'Conversions', 'Revenue'],
    required: [['Destination URL'], ['Short link']],
    row: (cell, line) => {
      const link = base(line, destination(cell, 'Destination URL'), shortOf(cell, undefined, ['shortlink']));
      if (/^yes$/i.test(cell('archived')?.trim() ?? '')) link.notes.push('archived in Dub');
      link.tags = splitList(dubCell(cell('tags')));
      link.id = text(cell('linkid'));
      link.created = text(cell('created_at'));
      link.clicks = count(cell('clicks'));
      return link;
    },
  },
  // Short.io's link object (developers.short.io; the fields Dub's Short.io importer reads).
  shortio: {
    name: 'shortio',
    label: 'Short.io',
    input: 'csv',
    columns: ['idString', 'originalURL', 'path', 'shortURL', 'title', 'tags', 'createdAt', 'archived'],
    required: [['originalURL'], ['path', 'shortURL']],
    row: (cell, line) => {
      const link = base(line, destination(cell, 'originalURL'), shortOf(cell, 'path', ['shortURL']));
      if (yes(cell('archived'))) link.notes.push('archived in Short.io');
      link.title = text(cell('title'));
      link.tags = splitList(cell('tags'));
      link.id = text(cell('idstring'));
      link.created = text(cell('created_at'));
      return link;
    },
  },
  // Rebrandly's link entity (developers.rebrandly.com/docs/link-entity).
  rebrandly: {
    name: 'rebrandly',
    label: 'Rebrandly',
    input: 'csv',
    columns: ['id', 'title', 'slashtag', 'destination', 'shortUrl', 'domain', 'createdAt', 'updatedAt', 'clicks', 'lastClickAt', 'favourite', 'tags'],
    required: [['destination'], ['slashtag', 'shortUrl']],
    row: (cell, line) => {
      const link = base(line, destination(cell, 'destination'), shortOf(cell, 'slashtag', ['shorturl'], 'domain'));
      link.title = text(cell('title'));
      link.tags = splitList(cell('tags'));
      link.id = text(cell('id'));
      link.created = text(cell('created_at'));
      link.clicks = count(cell('clicks'));
      return link;
    },
  },
};

/** What `--map` may name: the parts of a link, each taken from one column of the file. */
export const MAP_TARGETS = ['url', 'alias', 'short', 'domain', 'title', 'description', 'tags', 'id', 'created', 'clicks', 'expiry'] as const;
type MapTarget = (typeof MAP_TARGETS)[number];

/**
 * An expiry cell as the file's `expiry` takes it: `YYYY-MM-DD HH:MM:SS`, or a date alone
 * (midnight, as the product reads it), or ISO 8601 (`2031-01-02T03:04:05Z`, the time as written).
 * Anything else is the row's error.
 */
function expiryOf(value: string | undefined): string | undefined {
  const raw = text(value);
  if (raw === undefined) return undefined;
  const m = /^(\d{4}-\d\d-\d\d)(?:[ T](\d\d:\d\d)(:\d\d)?(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?)?$/.exec(raw);
  if (!m) throw new Error(`the expiry "${raw}" is not a date: give YYYY-MM-DD HH:MM:SS (or YYYY-MM-DD)`);
  return `${m[1]} ${m[2] ?? '00:00'}${m[3] ?? ':00'}`;
}

/**
 * The parts a header names by themselves (`url,alias,title`): `csv` needs no --map then. A column
 * is a part when its name is the part's (any case, spaces, `_` and `-` aside). Undefined when the
 * header lacks the destination or the back-half.
 */
export function mapOfHeader(cells: readonly string[]): string | undefined {
  const parts = cells.map((c) => ({ column: c.trim(), part: MAP_TARGETS.find((t) => normalizeColumn(t) === normalizeColumn(c)) }));
  const found = parts.filter((p): p is { column: string; part: MapTarget } => p.part !== undefined);
  const has = (t: MapTarget) => found.some((p) => p.part === t);
  if (!has('url') || (!has('alias') && !has('short'))) return undefined;
  return [...new Map(found.map((p) => [p.part, `${p.part}=${p.column}`])).values()].join(',');
}

/**
 * `csv --map "url=Destination,alias=Back-half,title=Name"`: a format made from the user's own
 * column names. `url` and one of `alias` (the back-half) or `short` (the whole short URL) are needed.
 */
export function mappedFormat(map: string | undefined): Format {
  if (!map?.trim()) throw new UsageError('csv needs --map, which names the columns: --map "url=Destination,alias=Back-half" (a header that names the parts itself, such as url,alias,title, needs none)', `the parts are ${MAP_TARGETS.join(', ')}; url and alias (or short, a whole short URL) are needed`);
  const columns = new Map<MapTarget, string>();
  for (const pair of map.split(',')) {
    const at = pair.indexOf('=');
    const target = pair.slice(0, at).trim() as MapTarget;
    const column = pair.slice(at + 1).trim();
    if (at < 1 || !column) throw new UsageError(`--map: "${pair.trim()}" is not part=Column`, `for example --map "url=Destination,alias=Back-half,title=Name"`);
    if (!MAP_TARGETS.includes(target)) throw new UsageError(`--map: unknown part "${target}"; the parts are ${MAP_TARGETS.join(', ')}`, `for example --map "url=Destination,alias=Back-half,title=Name"`);
    if (columns.has(target)) throw new UsageError(`--map: ${target} is named twice`, 'name each part once: part=Column, comma-separated');
    columns.set(target, column);
  }
  if (!columns.has('url')) throw new UsageError('--map must name the destination column: url=COLUMN', 'for example --map "url=Destination,alias=Back-half"');
  if (!columns.has('alias') && !columns.has('short')) throw new UsageError('--map must name the back-half column (alias=COLUMN) or the short URL column (short=COLUMN)', 'for example --map "url=Destination,alias=Back-half"');
  const of = (target: MapTarget) => columns.get(target);
  const norm = (target: MapTarget) => (of(target) === undefined ? undefined : normalizeColumn(of(target)!));
  return {
    name: 'csv',
    label: 'CSV',
    input: 'csv',
    columns: [...columns.values()],
    required: [[of('url')!], [of('alias'), of('short')].filter((c): c is string => c !== undefined)],
    row: (cell, line) => {
      const get = (target: MapTarget) => (norm(target) === undefined ? undefined : cell(norm(target)!));
      const link = base(line, destination(cell, of('url')!), shortOf(cell, norm('alias'), norm('short') ? [norm('short')!] : [], norm('domain')));
      link.title = text(get('title'));
      link.description = text(get('description'));
      link.tags = splitList(get('tags'));
      link.id = text(get('id'));
      link.created = text(get('created'));
      link.clicks = count(get('clicks'));
      link.expiry = expiryOf(get('expiry'));
      return link;
    },
  };
}
