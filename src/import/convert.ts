/**
 * An export turned into a links-as-code file (src/ascode/model.ts), in two passes over the input
 * so that neither the input nor the output is held in memory:
 *
 * 1. `survey`: every row read and checked; bad rows and collisions found, and the aliases and
 *    tags the file will hold collected. Nothing is written: a fault ends the import here.
 * 2. `write`: the same rows read again, each link written as YAML text with its comments.
 *
 * Both passes decide each row by the same code from the same facts, so they agree; the output
 * depends on nothing but the input and the options, and the same input gives the same bytes.
 */
import { MIN_ALIAS_LENGTH, serverAlias } from '../model/aliases.js';
import { CliError, UsageError } from '../errors.js';
import { keyMatch } from '../ascode/model.js';
import { schemaUrl, yamlScalar } from '../ascode/actions.js';
import { safeJsonText, safeText } from '../output/safe-text.js';
import { httpUrl } from '../validate.js';
import type { Format, ON_COLLISION, SourceLink, TAGS_TO } from './formats.js';
import { forEachRow, InputError } from './read.js';

export interface ImportOptions {
  format: Format;
  /** The input file, and its name as messages give it. */
  path: string;
  label: string;
  tagsTo: (typeof TAGS_TO)[number];
  onCollision: (typeof ON_COLLISION)[number];
  /** The target account's domains by host (`go.example.com` → `https://go.example.com`); undefined when not read. */
  domains?: Map<string, string>;
  /** `--with-clicks`: told each link written, under the alias it has in the file, with the source's click total. */
  onLink?: (link: { alias: string; title?: string; clicks?: number }) => void;
}

/** A link that cannot keep its alias on the target, and why. */
interface Collision {
  line: number;
  what: string;
}

/** What the first pass learned, which the second needs. */
export interface Survey {
  links: number;
  /** Every key (domain and server-spelled alias, without case) of the input, with the line that has it first. */
  keys: Map<string, number>;
  /** Tags that become campaigns or channels, by their key, in the spelling first met. */
  tags: Map<string, string>;
  collisions: Collision[];
  /** Things said about rows left out that are no collisions (a domain's root link). */
  skipped: string[];
}

const TAG_MIN = 2; // campaign and channel names need 2 characters (src/ascode/model.ts)
const MAX_ERRORS_SHOWN = 20;

/** A source link with what the file makes of it. */
interface Decided {
  link: SourceLink;
  /** The target's domain, when kept. */
  domain?: string;
  /** The alias the server keeps. */
  alias: string;
  key: string;
  /** Why it cannot keep its alias as it is (undefined: it can). */
  collision?: string;
  /** The first line with the same key, for a duplicate. */
  firstAt?: number;
}

const keyFor = (domain: string | undefined, alias: string) => keyMatch(`${domain ?? ''}/${alias}`);

function decide(link: SourceLink, options: ImportOptions, keys: Map<string, number>): Decided {
  const domain = link.host ? options.domains?.get(link.host) : undefined;
  const alias = serverAlias(link.alias);
  const key = keyFor(domain, alias);
  const shown = `"${link.alias}"`;
  // Only an earlier line counts: the first pass knows no later one yet, and both passes must agree.
  const first = keys.get(key);
  const firstAt = first !== undefined && first < link.line ? first : undefined;
  let collision: string | undefined;
  if (alias !== link.alias) collision = `alias ${shown} would be rewritten by the server to "${alias}"`;
  else if (alias.length < MIN_ALIAS_LENGTH) collision = `alias ${shown} is shorter than ${MIN_ALIAS_LENGTH} characters, which servers refuse`;
  else if (firstAt !== undefined) collision = `alias ${shown}${domain ? ` on ${domain}` : ''} is also at line ${firstAt}`;
  // A rewritten or short alias can also be a duplicate: the suffix then makes it unique.
  return { link, domain, alias, key, collision, firstAt };
}

/** The tags a link's record names, by --tags-to: the first usable tag (campaign), all (channels), none. */
function tagsUsed(link: SourceLink, options: ImportOptions): string[] {
  if (options.tagsTo === 'none') return [];
  const usable = link.tags.filter((t) => t.trim().length >= TAG_MIN);
  return options.tagsTo === 'campaign' ? usable.slice(0, 1) : usable;
}

/** Reads every row as a link, handing each to `visit`; a row's fault becomes `file:line: message` in `errors`. */
async function eachLink(options: ImportOptions, errors: string[], visit: (link: SourceLink) => void): Promise<void> {
  try {
    await forEachRow(options.path, options.format, (row) => {
      let link: SourceLink;
      try {
        if (row.error) throw new Error(row.error);
        link = options.format.row(row.cell, row.line);
        link.url = httpUrl('destination', link.url);
      } catch (error) {
        errors.push(`${options.label}:${row.line}: ${error instanceof CliError || error instanceof Error ? error.message : String(error)}`);
        return;
      }
      visit(link);
    });
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    errors.push(`${options.label}:${error.line}: ${error.message}`);
  }
}

function inputError(errors: string[], format: Format): UsageError {
  const shown = errors.slice(0, MAX_ERRORS_SHOWN);
  const more = errors.length - shown.length;
  return new UsageError(
    `the ${format.label} export cannot be imported:\n  ${shown.join('\n  ')}${more ? `\n  ... and ${more} more` : ''}`,
    `nothing was written; \`linkctl import --help\` lists each format's columns${format.name === 'csv' ? '' : ', and `linkctl import csv --map` reads any other CSV'}`,
  );
}

/** Pass 1: checks everything, writes nothing; throws a UsageError listing every fault. */
export async function survey(options: ImportOptions): Promise<Survey> {
  const errors: string[] = [];
  const result: Survey = { links: 0, keys: new Map(), tags: new Map(), collisions: [], skipped: [] };
  await eachLink(options, errors, (link) => {
    if (!link.alias) {
      result.skipped.push(`${options.label}:${link.line}: skipped: a domain's root link has no back-half to keep (give the domain a redirectRoot instead)`);
      return;
    }
    const decided = decide(link, options, result.keys);
    // A link claims its alias unless it is left out (skip): the rest must not take it (fail, suffix).
    if (!result.keys.has(decided.key) && (options.onCollision !== 'skip' || !decided.collision)) result.keys.set(decided.key, link.line);
    if (decided.collision) {
      result.collisions.push({ line: link.line, what: decided.collision });
      if (options.onCollision === 'skip' || (options.onCollision === 'suffix' && !decided.alias)) return;
    }
    result.links++;
    for (const tag of tagsUsed(link, options)) if (!result.tags.has(keyMatch(tag))) result.tags.set(keyMatch(tag), tag.trim());
  });
  if (errors.length) throw inputError(errors, options.format);
  if (result.collisions.length && options.onCollision === 'fail') {
    const lines = result.collisions.map((c) => `${options.label}:${c.line}: ${c.what}`);
    throw new UsageError(
      `${result.collisions.length} link${result.collisions.length === 1 ? '' : 's'} cannot keep ${result.collisions.length === 1 ? 'its' : 'their'} alias on the target:\n  ${lines.join('\n  ')}`,
      'nothing was written; --on-collision suffix renames them (alias-2, alias-3, ...), --on-collision skip leaves them out',
    );
  }
  return result;
}

/** A scalar of the file: YAML text a parser reads back as the same string, with no raw control character. */
const scalar = (value: string) => safeJsonText(yamlScalar(value));
/** A comment: one line, whatever the source put in it. */
const comment = (text: string) => `# ${safeText(text)}`;

/**
 * Pass 2: the file, handed to `out` in pieces. Reports each renamed or skipped link through
 * `report` (stderr). Throws if the input no longer reads as it did in pass 1 (it changed).
 */
export async function write(options: ImportOptions, surveyed: Survey, out: (text: string) => void, report: (message: string) => void): Promise<{ links: number; renamed: number; skipped: number }> {
  const { format } = options;
  const head: string[] = [];
  head.push(`# yaml-language-server: $schema=${schemaUrl()}`);
  head.push(
    `# linkctl account file, converted from a ${format.label} export by \`linkctl import ${format.name}\`.`,
    '# `linkctl plan -f FILE` shows what `linkctl apply -f FILE` would change. Each link\'s comment',
    `# gives where it was in the export, its ${format.label} id, creation date, clicks, domain and tags.`,
    options.domains
      ? '# A link whose domain the target account does not have goes to the account\'s default domain.'
      : '# The target account\'s domains were not read (import --keep-domains): every link goes to its default domain.',
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

  const errors: string[] = [];
  /** Keys that renames took (and server spellings kept in place of an alias): the input's own are in `surveyed.keys`. */
  const assigned = new Set<string>();
  const done = { links: 0, renamed: 0, skipped: 0 };
  await eachLink(options, errors, (link) => {
    if (!link.alias) {
      done.skipped++;
      return;
    }
    const decided = decide(link, options, surveyed.keys);
    let alias = decided.alias;
    let key = decided.key;
    const notes = [...link.notes];
    if (decided.collision) {
      const where = `${options.label}:${link.line}`;
      if (options.onCollision === 'skip' || !alias) {
        report(`${where}: skipped: ${decided.collision}${alias ? '' : ', and nothing is left of it to rename'}`);
        done.skipped++;
        return;
      }
      // suffix: the server's spelling, made unique among every alias of the input and every rename so far.
      if (decided.firstAt !== undefined || alias.length < MIN_ALIAS_LENGTH || assigned.has(key)) {
        let n = 2;
        while (surveyed.keys.has(keyFor(decided.domain, `${decided.alias}-${n}`)) || assigned.has(keyFor(decided.domain, `${decided.alias}-${n}`))) n++;
        alias = `${decided.alias}-${n}`;
        key = keyFor(decided.domain, alias);
      }
      report(`${where}: renamed to "${alias}": ${decided.collision}`);
      notes.push(`renamed from "${link.alias}": ${decided.collision}`);
      done.renamed++;
    }
    if (decided.collision) assigned.add(key);
    out(`${linkText(link, alias, decided.domain, notes, options, surveyed.tags)}\n`);
    options.onLink?.({ alias, title: link.title, clicks: link.clicks });
    done.links++;
  });
  if (errors.length || done.links !== surveyed.links) throw new UsageError(`${options.label} changed while it was read; nothing was written`, 'import it again once nothing is writing to it');
  return done;
}

/** One link: its comments, then its record as an item of `links:`. */
function linkText(link: SourceLink, alias: string, domain: string | undefined, notes: string[], options: ImportOptions, tags: Map<string, string>): string {
  const facts = [`${options.format.label} line ${link.line}`];
  if (link.id) facts.push(`id ${link.id}`);
  if (link.created) facts.push(`created ${link.created}`);
  if (link.clicks !== undefined) facts.push(`${link.clicks} click${link.clicks === 1 ? '' : 's'}`);
  if (link.host && !domain) facts.push(`on ${link.host}${options.domains ? ', which the target account does not have' : ''}`);
  if (link.tags.length) facts.push(`tags ${link.tags.join(', ')}`);
  const lines = [`  ${comment(facts.join(' · '))}`];
  for (const note of notes) lines.push(`  ${comment(note)}`);
  // Named as the file's campaigns/channels list spells them: tags differing only in case are one.
  const names = [...new Set(tagsUsed(link, options).map((t) => tags.get(keyMatch(t))!))];
  const record: Array<[string, string | string[] | undefined]> = [
    ['alias', alias],
    ['domain', domain],
    ['url', link.url],
    ['title', link.title],
    ['description', link.description],
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
