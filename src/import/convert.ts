/**
 * An export turned into a links-as-code file (src/ascode/model.ts), in three passes over the
 * input so that neither the input nor the output is held in memory:
 *
 * 1. `check`: every row read and checked (a destination, an http(s) URL, CSV that reads). Bad
 *    rows end the import here, before the account is read, unless `--skip-invalid` sets them aside.
 * 2. `survey`, once the target account's links are known: every row classified (new, already
 *    there, a collision with a live link, a conflict inside the file, an exact duplicate, an alias
 *    the server refuses), and the aliases and tags the file will hold collected. Collisions end the
 *    import here unless `--on-collision` says what to do.
 * 3. `write`: the same rows read again, each link written as YAML text with its comments.
 *
 * Passes 2 and 3 decide each row by the same code (a `Decider`, which only knows the rows before
 * it), so they agree; the output depends on nothing but the input, the account's links and the
 * options, and the same input gives the same bytes.
 */
import { createHash } from 'node:crypto';
import { filteredWord, isReserved, MIN_ALIAS_LENGTH, serverAlias } from '../model/aliases.js';
import { destinationKey } from '../model/links.js';
import { CliError, UsageError } from '../errors.js';
import { keyMatch } from '../ascode/model.js';
import { escapeLiteral } from '../ascode/file.js';
import { SCHEMA_FILE, schemaUrl, yamlScalar } from '../ascode/actions.js';
import { safeJsonText, safeText } from '../output/safe-text.js';
import { httpUrl } from '../validate.js';
import type { Format, ON_COLLISION, SourceLink, TAGS_TO } from './formats.js';
import { forEachRow, InputError, type ReadOptions, type Row } from './read.js';

export type OnCollision = (typeof ON_COLLISION)[number];

export interface ImportOptions {
  format: Format;
  /** The input file, and its name as messages give it. */
  path: string;
  label: string;
  read: ReadOptions;
  tagsTo: (typeof TAGS_TO)[number];
  onCollision: OnCollision;
  /** --skip-invalid: rows that cannot be read are set aside (and written to --rejects) instead of ending the import. */
  skipInvalid: boolean;
  /** --keep-domains: the target account's domains by host (`go.example.com` → `https://go.example.com`). */
  domains?: Map<string, string>;
  /** The target account's links: their destination, as the server gives it, by key (`keyFor`). */
  account: Map<string, string>;
  /** `--with-clicks`: told each link written, under the alias it has in the file, with the source's click total. */
  onLink?: (link: { alias: string; title?: string; clicks?: number }) => void;
}

/** A row set aside by --skip-invalid: where it is, why, and its text. */
export interface Reject {
  line: number;
  /** For a fault of the CSV itself: where on the line. */
  column?: number;
  reason: string;
  raw: string;
}

const TAG_MIN = 2; // campaign and channel names need 2 characters (src/ascode/model.ts)
const MAX_SHOWN = 20;
/** Rows between full garbage collections (see memory.ts). */
const GC_EVERY = 20_000;

/** The key of a link in the file and on the server: domain (when not the default) and alias, without case. */
export const keyFor = (domain: string | undefined, alias: string) => keyMatch(domain ? `${domain}/${alias}` : alias);

/** `file:line` (and `:column` for a fault of the CSV itself). */
const at = (options: ImportOptions, row: { line: number; column?: number }) => `${options.label}:${row.line}${row.column ? `:${row.column}` : ''}`;

/** A row as a link, or why it cannot be one. */
function linkOf(row: Row, format: Format): { link?: SourceLink; error?: string } {
  try {
    if (row.error) throw new Error(row.error);
    const link = format.row(row.cell, row.line);
    link.url = httpUrl('destination', link.url);
    return { link };
  } catch (error) {
    return { error: error instanceof CliError || error instanceof Error ? error.message : String(error) };
  }
}

/** Reads the valid rows as links, handing each to `visit`; the rest to `invalid`. A fault of the input as a whole is thrown as a refusal. */
async function eachLink(options: ImportOptions, visit: (link: SourceLink) => void, invalid: (row: Row, reason: string) => void): Promise<void> {
  const { collectGarbage } = await import('../memory.js');
  let rows = 0;
  try {
    await forEachRow(options.path, options.format, options.read, (row) => {
      // Each pass makes the garbage of every row; collected every so often, so it never piles up into the old generation.
      if (++rows % GC_EVERY === 0) collectGarbage();
      const { link, error } = linkOf(row, options.format);
      if (link) visit(link);
      else invalid(row, error!);
    });
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    throw new UsageError(`the ${options.format.label} export cannot be imported:\n  ${at(options, error)}: ${error.message}`, `${error.hint ? `${error.hint}; ` : ''}nothing was written`);
  }
}

/** A list for a refusal: the first MAX_SHOWN lines (only those are kept), then how many more of `count`. */
const listed = (lines: string[], count: number) => `${lines.slice(0, MAX_SHOWN).join('\n  ')}${count > MAX_SHOWN ? `\n  ... and ${count - MAX_SHOWN} more` : ''}`;

/**
 * Pass 1: every row checked, nothing sent. Throws a refusal listing the bad rows (the first 20,
 * then a count), unless `skipInvalid`: then they are returned, with their line, reason and text.
 */
export async function check(options: ImportOptions): Promise<{ valid: number; rejects: Reject[] }> {
  const rejects: Reject[] = [];
  let valid = 0;
  let invalid = 0;
  await eachLink(
    options,
    () => valid++,
    (row, reason) => {
      // Kept whole for --rejects; for a refusal, the ones it lists.
      invalid++;
      if (options.skipInvalid || invalid <= MAX_SHOWN) rejects.push({ line: row.line, column: row.column, reason, raw: row.raw });
    },
  );
  if (invalid && !options.skipInvalid) {
    const hints = rejects.some((r) => r.column) ? 'a cell that holds quotes, the delimiter or a line break is written in quotes, its quotes doubled; ' : '';
    throw new UsageError(
      `the ${options.format.label} export cannot be imported: ${invalid} row${invalid === 1 ? ' is' : 's are'} not valid:\n  ${listed(rejects.map((r) => `${at(options, r)}: ${r.reason}`), invalid)}`,
      `${hints}nothing was written; --skip-invalid imports the other rows and --rejects FILE keeps these; \`linkctl import --help\` lists each format's columns${options.format.name === 'csv' ? '' : ', and `linkctl import csv --map` reads any other CSV'}`,
    );
  }
  return { valid, rejects };
}

/** What a row is, as far as the rows before it and the account say. */
type Decision =
  | { kind: 'duplicate'; of: number }
  | {
      kind: 'new' | 'existing' | 'taken' | 'conflict' | 'unusable';
      alias: string;
      domain?: string;
      key: string;
      /** The alias as the source spells it, when the server would store another. */
      rewrittenFrom?: string;
      /** taken: the live link's destination (existing: the same one, as the server spells it); conflict: the line with the same alias before. */
      liveUrl?: string;
      other?: number;
      sameUrl?: boolean;
      /** A row of the file that this one takes the alias from (--on-collision replace). */
      replaces?: number;
    };

/**
 * The row that holds each key, kept small (a 100,000-row export keeps 100,000 of them): one string
 * of a digest of what the file would write of the row, a digest of its destination, and its line.
 */
const DIGEST = 11; // 66 bits of SHA-1, in base64
const digestOf = (text: string) => createHash('sha1').update(text).digest('base64').slice(0, DIGEST);
const holder = (line: number, digest: string, urlDigest: string) => `${digest}${urlDigest}${line}`;
const holderLine = (held: string) => Number(held.slice(2 * DIGEST));

/**
 * Decides each row in order. State grows only from the rows before: pass 2 and pass 3 each make
 * their own and come to the same decisions.
 */
class Decider {
  /** The row that holds each alias key (the first one, or the last that replaced it). */
  readonly holders = new Map<string, string>();

  constructor(private readonly options: ImportOptions) {}

  decide(link: SourceLink): Decision {
    const { options } = this;
    const domain = link.host ? options.domains?.get(link.host) : undefined;
    const alias = serverAlias(link.alias);
    const key = keyFor(domain, alias);
    const base = { alias, domain, key, rewrittenFrom: alias !== link.alias ? link.alias : undefined };
    const live = alias ? options.account.get(key) : undefined;
    // A short alias is a name where the account has it (older installations have such links):
    // matched, never sent; one the import would create is refused, as servers refuse it.
    if (alias.length < MIN_ALIAS_LENGTH && live === undefined) return { kind: 'unusable', ...base };
    // So is one the product refuses for a word of its filter or as one of its own pages.
    if (live === undefined && (filteredWord(link.alias) !== undefined || isReserved(link.alias))) return { kind: 'unusable', ...base };
    const destination = destinationKey(link.url);
    const urlDigest = digestOf(destination);
    const digest = digestOf(JSON.stringify([link.url, link.title ?? '', link.description ?? '', link.tags, link.host ?? '']));
    const liveUrl = live !== undefined && destinationKey(live) !== destination ? live : undefined;
    const held = this.holders.get(key);
    if (held !== undefined) {
      const other = holderLine(held);
      if (held.startsWith(digest)) return { kind: 'duplicate', of: other };
      const replaces = options.onCollision === 'replace' ? other : undefined;
      if (replaces !== undefined) this.holders.set(key, holder(link.line, digest, urlDigest));
      return { kind: 'conflict', ...base, other, sameUrl: held.slice(DIGEST, 2 * DIGEST) === urlDigest, liveUrl, replaces };
    }
    this.holders.set(key, holder(link.line, digest, urlDigest));
    if (liveUrl !== undefined) return { kind: 'taken', ...base, liveUrl };
    return live !== undefined ? { kind: 'existing', ...base, liveUrl: live } : { kind: 'new', ...base };
  }
}

/** Why a row cannot keep its alias, in words, or undefined when it can. */
function problem(d: Exclude<Decision, { kind: 'duplicate' }>, link: SourceLink): string | undefined {
  const shown = `"${link.alias}"`;
  const rewritten = d.rewrittenFrom !== undefined ? ` ("${d.alias}" once the server rewrites it)` : '';
  switch (d.kind) {
    case 'unusable': {
      if (!d.alias) return `alias ${shown} is empty once the server rewrites it (it turns spaces and punctuation into - and trims them)`;
      if (d.alias.length < MIN_ALIAS_LENGTH) return `alias ${shown}${rewritten} is shorter than ${MIN_ALIAS_LENGTH} characters, which servers refuse`;
      const word = filteredWord(link.alias);
      return word !== undefined
        ? `alias ${shown} holds "${word}", a word of the product's alias filter, which servers refuse ("Inappropriate aliases are not allowed.")`
        : `alias ${shown} is reserved for a page of the product's own, which servers refuse ("That alias is reserved.")`;
    }
    case 'taken':
      return `alias ${shown}${rewritten}${d.domain ? ` on ${d.domain}` : ''} is taken in the account by ${d.liveUrl} (this row: ${link.url})`;
    case 'conflict':
      return `alias ${shown}${rewritten}${d.domain ? ` on ${d.domain}` : ''} is also at line ${d.other}, ${d.sameUrl ? 'with the same destination but another title, description or tags' : 'with another destination'} (this row: ${link.url})`;
    default:
      return undefined;
  }
}

/** The tags a link's record names, by --tags-to: the first usable tag (campaign), all (channels), none. */
function tagsUsed(link: SourceLink, options: ImportOptions): string[] {
  if (options.tagsTo === 'none') return [];
  const usable = link.tags.filter((t) => t.trim().length >= TAG_MIN);
  return options.tagsTo === 'campaign' ? usable.slice(0, 1) : usable;
}

/** What the second pass learned, which the third needs. */
export interface Survey {
  /** Links the file will hold. */
  links: number;
  /** Every alias key of the input that rows claim, with its holder (renames must avoid them; kept for --on-collision suffix only). */
  keys: ReadonlyMap<string, string>;
  /** Rows another row of the file takes the alias from (--on-collision replace): line → that row's line. */
  superseded: Map<number, number>;
  /** Tags that become campaigns or channels, by their key, in the spelling first met. */
  tags: Map<string, string>;
  /** How many rows cannot keep their alias (what --on-collision decides about). */
  collisions: number;
}

/** Pass 2: every valid row classified; throws a refusal listing the collisions unless --on-collision says what to do. */
export async function survey(options: ImportOptions): Promise<Survey> {
  const decider = new Decider(options);
  const superseded = new Map<number, number>();
  /** The first of them, as `file:line: why`, for a refusal. */
  const collisions: string[] = [];
  let collided = 0;
  /** Tags by key: their first spelling, and how many rows written use them. */
  const tagCounts = new Map<string, { name: string; rows: number }>();
  const countTags = (tags: string[], by: number) => {
    for (const tag of tags) {
      const k = keyMatch(tag.trim());
      const have = tagCounts.get(k) ?? { name: tag.trim(), rows: 0 };
      have.rows += by;
      tagCounts.set(k, have);
    }
  };
  // Only replace takes a row out once counted (another row takes its alias): the tags it counted, by line.
  const counted = options.onCollision === 'replace' && options.tagsTo !== 'none' ? new Map<number, string[]>() : undefined;
  let links = 0;
  await eachLink(
    options,
    (link) => {
      if (!link.alias) return; // a domain's root link: said in pass 3
      const d = decider.decide(link);
      if (d.kind === 'duplicate') return;
      const why = problem(d, link);
      if (why && ++collided <= MAX_SHOWN) collisions.push(`${options.label}:${link.line}: ${why}`);
      if (d.kind === 'conflict' && d.replaces !== undefined) {
        // Every row that holds an alias under replace was counted (only unusable ones are left out, and they hold none).
        superseded.set(d.replaces, link.line);
        links--;
        countTags(counted?.get(d.replaces) ?? [], -1);
      }
      if (actionFor(d, options.onCollision) === 'skip') return;
      links++;
      if (d.kind === 'existing') return; // written with its key and destination only
      const tags = tagsUsed(link, options);
      countTags(tags, 1);
      counted?.set(link.line, tags);
    },
    () => undefined, // set aside in pass 1
  );
  if (collided && options.onCollision === 'fail') {
    throw new UsageError(
      `${collided} link${collided === 1 ? '' : 's'} cannot keep ${collided === 1 ? 'its' : 'their'} alias:\n  ${listed(collisions, collided)}`,
      'nothing was written; --on-collision suffix renames them (alias-2, alias-3, ...), skip leaves them out, replace gives a taken alias to this file\'s destination (the only way to repoint a live link)',
    );
  }
  const tags = new Map([...tagCounts].filter(([, t]) => t.rows > 0).map(([k, t]) => [k, t.name]));
  // Renames must avoid every alias of the input: only suffix needs them, and the other choices let them go.
  return { links, keys: options.onCollision === 'suffix' ? decider.holders : new Map(), superseded, tags, collisions: collided };
}

/** What becomes of a row, by its class and --on-collision. */
function actionFor(d: Exclude<Decision, { kind: 'duplicate' }>, onCollision: OnCollision): 'write' | 'skip' | 'rename' | 'replace' {
  if (d.kind === 'new' || d.kind === 'existing') return 'write';
  if (onCollision === 'skip') return 'skip';
  if (onCollision === 'suffix') return 'rename';
  if (onCollision === 'replace') return d.kind === 'unusable' ? 'skip' : 'replace';
  return 'skip'; // fail: refused in pass 2
}

/** A scalar of the file: YAML text a parser reads back as the same string (a literal `${` written `$${`), with no raw control character. */
const scalar = (value: string) => safeJsonText(yamlScalar(escapeLiteral(value)));
/** A comment: one line, whatever the source put in it. */
const comment = (text: string) => `# ${safeText(text)}`;

export interface Written {
  links: number;
  new: number;
  existing: number;
  replaced: number;
  renamed: number;
  rewritten: number;
  duplicates: number;
  skipped: number;
}

/**
 * Pass 3: the file, handed to `out` in pieces. Reports each rewritten, renamed, replaced, collapsed
 * or skipped link through `report` (stderr). Throws if the input no longer reads as it did (it changed).
 */
export async function write(options: ImportOptions, surveyed: Survey, out: (text: string) => void, report: (message: string) => void): Promise<Written> {
  const { format } = options;
  const head: string[] = [];
  head.push(`# yaml-language-server: $schema=${schemaUrl()}`, `# (the schema, for an editor's hints: linkctl export --schema > ${SCHEMA_FILE})`);
  head.push(
    `# linkctl account file, converted from a ${format.label} export by \`linkctl import ${format.name}\`.`,
    '# `linkctl plan -f FILE` shows what `linkctl apply -f FILE` would change. Each link\'s comment',
    `# gives where it was in the export, its ${format.label} id, creation date, clicks, domain and tags.`,
    '# Checked against the target account\'s links when imported: a link already there with the same',
    '# destination is written with its key and destination only (nothing to change).',
    options.domains
      ? '# A link whose domain the target account does not have goes to the account\'s default domain.'
      : '# Every link goes to the account\'s default domain (import --keep-domains keeps the domains the account has).',
    'version: 1',
  );
  const kind = options.tagsTo === 'campaign' ? 'campaigns' : 'channels';
  if (options.tagsTo !== 'none' && surveyed.tags.size) {
    head.push(`${kind}:`, `  # from the ${format.label} tags`);
    const names = [...surveyed.tags.values()].sort((a, b) => (keyMatch(a) < keyMatch(b) ? -1 : keyMatch(a) > keyMatch(b) ? 1 : 0));
    for (const name of names) head.push(`  - name: ${scalar(name)}`);
  }
  head.push(surveyed.links ? 'links:' : 'links: []');
  out(`${head.join('\n')}\n`);

  const decider = new Decider(options);
  /** Keys that renames took: the input's own are in `surveyed.keys`, the account's in `options.account`. */
  const assigned = new Set<string>();
  const done: Written = { links: 0, new: 0, existing: 0, replaced: 0, renamed: 0, rewritten: 0, duplicates: 0, skipped: 0 };
  let changed = false;
  await eachLink(
    options,
    (link) => {
      const where = `${options.label}:${link.line}`;
      if (!link.alias) {
        report(`${where}: skipped: a domain's root link has no back-half to keep (give the domain a redirectRoot instead)`);
        done.skipped++;
        return;
      }
      const d = decider.decide(link);
      if (d.kind === 'duplicate') {
        report(`${where}: the same link as line ${d.of}: collapsed into it`);
        done.duplicates++;
        return;
      }
      const by = surveyed.superseded.get(link.line);
      if (by !== undefined) {
        report(`${where}: skipped: line ${by} has the same alias, and replaces it (--on-collision replace)`);
        done.skipped++;
        return;
      }
      const why = problem(d, link);
      const action = actionFor(d, options.onCollision);
      const notes = [...link.notes];
      let alias = d.alias;
      if (action === 'skip') {
        report(`${where}: skipped: ${why}${d.kind === 'unusable' && options.onCollision === 'replace' ? ' (replace keeps aliases; there is nothing to replace here)' : ''}`);
        done.skipped++;
        return;
      }
      if (d.rewrittenFrom !== undefined && d.alias) {
        const said = `alias "${d.rewrittenFrom}" is stored as "${d.alias}" by the server (it turns spaces, most punctuation and _ into -)`;
        report(`${where}: ${said}`);
        notes.push(said);
        done.rewritten++;
      }
      if (action === 'rename') {
        const base = d.alias || 'link';
        const free = (candidate: string) => {
          const key = keyFor(d.domain, candidate);
          return !surveyed.keys.has(key) && !assigned.has(key) && !options.account.has(key);
        };
        let n = 2;
        while (!free(`${base}-${n}`)) n++;
        alias = `${base}-${n}`;
        assigned.add(keyFor(d.domain, alias));
        report(`${where}: renamed to "${alias}": ${why}`);
        notes.push(`renamed from "${link.alias}": ${why}`);
        done.renamed++;
      } else if (action === 'replace') {
        const said = [d.liveUrl !== undefined ? `replaces the destination of the live link "${d.alias}", ${d.liveUrl}` : '', d.kind === 'conflict' ? `takes the alias from line ${d.other}` : '']
          .filter(Boolean)
          .join(', and ');
        report(`${where}: ${said} (--on-collision replace)`);
        notes.push(`${said} (--on-collision replace)`);
        if (d.liveUrl !== undefined) done.replaced++;
      }
      const existing = d.kind === 'existing';
      if (existing) notes.push(`already in the account with this destination${d.liveUrl !== link.url ? ` (${link.url} in the export)` : ''}: nothing to do (its title, description, campaign and channels there stay as they are)`);
      out(`${linkText(existing ? { ...link, url: d.liveUrl! } : link, alias, d.domain, notes, options, surveyed.tags, existing)}\n`);
      options.onLink?.({ alias, title: link.title, clicks: link.clicks });
      done.links++;
      if (existing) done.existing++;
      else if (action === 'write' || (action === 'replace' && d.liveUrl === undefined)) done.new++;
    },
    () => {
      changed ||= !options.skipInvalid;
    },
  );
  if (changed || done.links !== surveyed.links) throw new UsageError(`${options.label} changed while it was read; nothing was written`, 'import it again once nothing is writing to it');
  return done;
}

/** One link: its comments, then its record as an item of `links:` (only its key and destination when it is in the account already). */
function linkText(link: SourceLink, alias: string, domain: string | undefined, notes: string[], options: ImportOptions, tags: Map<string, string>, keyOnly: boolean): string {
  const facts = [`${options.format.label} line ${link.line}`];
  if (link.id) facts.push(`id ${link.id}`);
  if (link.created) facts.push(`created ${link.created}`);
  if (link.clicks !== undefined) facts.push(`${link.clicks} click${link.clicks === 1 ? '' : 's'}`);
  if (link.host && !domain) facts.push(`on ${link.host}${options.domains ? ', which the target account does not have' : ''}`);
  if (link.tags.length) facts.push(`tags ${link.tags.join(', ')}`);
  if (keyOnly && link.title) facts.push(`title ${link.title}`);
  const lines = [`  ${comment(facts.join(' · '))}`];
  for (const note of notes) lines.push(`  ${comment(note)}`);
  // Named as the file's campaigns/channels list spells them: tags differing only in case are one.
  const names = keyOnly ? [] : [...new Set(tagsUsed(link, options).map((t) => tags.get(keyMatch(t.trim()))).filter((t): t is string => t !== undefined))];
  const record: Array<[string, string | string[] | undefined]> = [
    ['alias', alias],
    ['domain', domain],
    ['url', link.url],
    ['title', keyOnly ? undefined : link.title],
    ['description', keyOnly ? undefined : link.description],
    ['expiry', keyOnly ? undefined : link.expiry],
    ['campaign', options.tagsTo === 'campaign' ? names[0] : undefined],
    ['channels', options.tagsTo === 'channel' && names.length ? names : undefined],
  ];
  let first = true;
  for (const [name, value] of record) {
    if (value === undefined) continue;
    const prefix = first ? '  - ' : '    ';
    first = false;
    if (Array.isArray(value)) lines.push(`${prefix}${name}:`, ...value.map((v) => `      - ${scalar(v)}`));
    else lines.push(`${prefix}${name}: ${scalar(value)}`);
  }
  return lines.join('\n');
}
