/** `linkctl import FORMAT FILE`: another shortener's export as an account file. The conversion is in ./convert.ts. */
import { closeSync, createReadStream, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { parseDocument } from 'yaml';
import { basename, dirname } from 'node:path';
import type { ActionInput, Context } from '../context.js';
import { UsageError } from '../errors.js';
import { checkWrite, moveIntoPlace, prepareWrite, readablePath, writeError } from '../files/access.js';
import { privateTempPath } from '../files/temp.js';
import { toInt } from '../http/envelope.js';
import type { Result } from '../output/types.js';
import { schemaUrl } from '../ascode/actions.js';
import type { HistoryRecord } from '../history/store.js';
import { FORMATS, MAP_TARGETS, mapOfHeader, mappedFormat, normalizeColumn, type Delimiter, type FormatName } from './formats.js';
import { check, keyFor, survey, write, type ImportOptions, type Reject, type Written } from './convert.js';
import { encodingOption } from './decode.js';
import type { ReadOptions } from './read.js';
import { keyMatch, noSlash, text } from '../model/values.js';
import { csvLine } from '../output/render.js';

export async function importLinks(ctx: Context, { args, opts }: ActionInput): Promise<Result> {
  const [name, given] = args as [FormatName, string];
  const input = readablePath(ctx, given, 'INPUT');
  if (name !== 'csv' && opts.map !== undefined) throw new UsageError(`--map is for \`linkctl import csv\`; a ${FORMATS[name].label} export has known columns`, `drop --map, or read the file as any CSV: linkctl import csv ${given} --map "url=...,alias=..."`);
  try {
    if (!statSync(input).isFile()) throw Object.assign(new Error(), { code: 'not a file' });
  } catch (error) {
    throw new UsageError(`INPUT: cannot read ${input} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, 'give the export file as it is on disk, after the format: linkctl import bitly bitly-links.csv');
  }
  const encoding = opts.encoding === undefined ? undefined : encodingOption(String(opts.encoding));
  // `csv` without --map: a header that names the parts itself (`url,alias,title`) is its own map.
  let map = opts.map as string | undefined;
  if (name === 'csv' && map === undefined) {
    const { headerCells } = await import('./read.js');
    map = mapOfHeader(await headerCells(input, { encoding, delimiter: opts.delimiter as Delimiter | undefined }));
  }
  const format = name === 'csv' ? mappedFormat(map) : FORMATS[name];
  if (format.input === 'json' && opts.delimiter !== undefined) throw new UsageError(`--delimiter is for CSV; a ${format.label} export is JSON`, 'drop --delimiter');
  if (opts.rejects !== undefined && !opts.skipInvalid) throw new UsageError('--rejects names the file for the rows --skip-invalid sets aside', 'add --skip-invalid, or drop --rejects');
  // Columns of a csv file that no part takes are said once, never dropped in silence (an `Expires` column).
  let unused: string[] | undefined;
  const onHeader = name === 'csv' ? (cells: string[]) => {
    const taken = new Set(format.columns.map(normalizeColumn));
    unused ??= cells.map((c) => c.trim()).filter((c) => c && !taken.has(normalizeColumn(c)));
  } : undefined;
  const read: ReadOptions = { encoding, delimiter: opts.delimiter as Delimiter | undefined, onHeader };
  const options: ImportOptions = { format, path: input, label: input, read, tagsTo: opts.tagsTo, onCollision: opts.onCollision, skipInvalid: Boolean(opts.skipInvalid), account: new Map() };
  // Checked before any request or write: a file that exists without --force, a path an MCP server may not write.
  // The file is written beside its target (or in the temp folder for stdout) and appears whole or not at all.
  const written = opts.file !== undefined && opts.file !== '-' ? await checkWrite(ctx, String(opts.file), { flag: '--file', force: Boolean(opts.force) }) : undefined;
  const rejectsFile = opts.rejects !== undefined ? await prepareWrite(ctx, String(opts.rejects), { flag: '--rejects', force: Boolean(opts.force), mode: 0o600 }) : undefined;

  // Three passes over a file of many rows, each making short-lived garbage: the young generation is kept at its size.
  (await import('../memory.js')).keepMemoryFlat();
  // The input is checked before the account is read: bad input sends no request.
  ctx.status('checking the export');
  const checked = await check(options);
  if (unused?.length) {
    ctx.warn(`note: ${input}: not imported, as no part of the map takes ${unused.length === 1 ? 'it' : 'them'}: ${unused.map((c) => JSON.stringify(c)).join(', ')}; the parts are ${MAP_TARGETS.join(', ')} (--map "url=...,alias=...,expiry=Expires").`);
  }
  const account = await accountLinks(ctx);
  options.account = account.links;
  if (opts.keepDomains) options.domains = account.domains;
  ctx.status('comparing the export with the account');
  const surveyed = await survey(options);
  const target = written?.target;
  // --with-clicks: the database and the account are known before anything is written; the totals
  // are kept as the links are written, and stored once the file is in place.
  const clicks = opts.withClicks ? await startClicks(ctx, opts.db as string | undefined) : undefined;
  if (clicks) options.onLink = (link) => link.clicks !== undefined && clicks.records.push({ kind: 'link', alias: link.alias, label: link.title, clicks: link.clicks });
  const temp = target ? privateTempPath(dirname(target), `.${basename(target)}`) : privateTempPath(tmpdir(), 'linkctl-import');
  let fd: number;
  try {
    fd = openSync(temp, 'wx', 0o600);
  } catch (error) {
    await clicks?.close();
    throw writeError(error, '--file', target ?? temp);
  }
  let done: Awaited<ReturnType<typeof write>>;
  try {
    ctx.status('writing the file');
    let buffer = '';
    done = await write(options, surveyed, (text) => {
      buffer += text;
      if (buffer.length > 1 << 14) {
        writeSync(fd, buffer);
        buffer = '';
      }
    }, (message) => ctx.warn(`note: ${message}`));
    writeSync(fd, buffer);
    closeSync(fd);
    if (target && ctx.globals.dryRun) unlinkSync(temp);
    else if (target) moveIntoPlace(temp, target, '--file', written!.replace);
  } catch (error) {
    try {
      closeSync(fd);
    } catch {
      // closed already
    }
    unlinkSync(temp);
    await clicks?.close();
    throw writeError(error, '--file', target ?? temp);
  }
  if (target) {
    try {
      unlinkSync(temp); // linked into place, or renamed
    } catch {
      // renamed
    }
  }
  const rejected = checked.rejects.length;
  // On a dry run the rejects file is not written either: the summary then names no file.
  const rejectsWritten = rejected && rejectsFile ? rejectsFile.write(rejectsCsv(checked.rejects)) : false;
  if (!rejectsFile) for (const r of checked.rejects.slice(0, 20)) ctx.warn(`note: ${input}:${r.line}${r.column ? `:${r.column}` : ''}: rejected: ${r.reason}`);
  if (rejected > 20 && !rejectsFile) ctx.warn(`note: ... and ${rejected - 20} more rows rejected (--rejects FILE keeps them all)`);
  const summary: Record<string, unknown> = { ...done, rejected, ...(rejectsWritten ? { rejects: rejectsFile!.path } : {}) };
  if (clicks) summary.clicks = await clicks.store(format.name);
  const counts = summaryWords(done, rejected, rejectsWritten ? rejectsFile!.path : undefined);
  if (target && ctx.globals.dryRun) {
    return { kind: 'message', message: `dry run: would import ${done.links} link${done.links === 1 ? '' : 's'} from ${given} to ${opts.file}${counts ? ` (${counts})` : ''}; nothing was written`, json: { dryRun: true, file: opts.file, ...summary } };
  }
  if (target) {
    return {
      kind: 'message',
      message: `Imported ${done.links} link${done.links === 1 ? '' : 's'} from ${given} to ${opts.file}${counts ? ` (${counts})` : ''}; next: linkctl plan -f ${opts.file}`,
      json: { file: opts.file, ...summary },
    };
  }
  // The file goes to stdout: what happened beyond new links is said on stderr.
  if (counts) ctx.warn(`imported ${done.links} link${done.links === 1 ? '' : 's'} from ${given} (${counts})`);
  if (ctx.format === 'json') {
    // --json: the same account file as JSON (plan and apply read both), so that stdout is JSON as promised.
    const text = readFileSync(temp, 'utf8');
    unlinkSync(temp);
    return { kind: 'raw', json: { $schema: schemaUrl(), ...(parseDocument(text).toJS() as Record<string, unknown>) } };
  }
  // stdout: the file itself, streamed from the temp file, which is
  // unlinked at once (the open stream still reads it), so nothing is left behind.
  const stream = createReadStream(temp, { encoding: 'utf8' });
  await new Promise<void>((resolve, reject) => stream.once('open', () => resolve()).once('error', reject));
  unlinkSync(temp);
  return { kind: 'text', text: stream as AsyncIterable<string> };
}

/**
 * The target account as import needs it, through the run's reader: its branded domains by host
 * (system domains, with no id, cannot carry links of the file) and its links' destinations by
 * key, keyed as plan keys them (src/ascode/engine.ts): a link on one of the account's branded
 * domains by that domain and its alias, any other by its alias. One request for the domains, and
 * the links in the reader's large pages.
 */
async function accountLinks(ctx: Context): Promise<{ domains: Map<string, string>; links: Map<string, string> }> {
  const reader = await ctx.reader();
  ctx.status("reading the account's domains and links");
  const domains = new Map<string, string>();
  const byName = new Map<string, string>();
  for (const record of await reader.all('domains')) {
    if (toInt(record.id) === undefined || typeof record.domain !== 'string') continue;
    const domain = noSlash(record.domain);
    byName.set(keyMatch(domain), domain);
    try {
      domains.set(new URL(/^[a-z]+:\/\//i.test(domain) ? domain : `https://${domain}`).hostname.toLowerCase(), domain);
    } catch {
      // a domain that is no URL cannot match a short URL's host
    }
  }
  const links = new Map<string, string>();
  await reader.each('links', (r) => {
    if (typeof r.alias !== 'string' || typeof r.longurl !== 'string') return;
    const domain = text(r.domain) ? byName.get(keyMatch(noSlash(String(r.domain)))) : undefined;
    links.set(keyFor(domain, r.alias), r.longurl);
  });
  return { domains, links };
}

/** What happened beyond new links, in words for the summary line ('' when nothing did). */
function summaryWords(done: Written, rejected: number, rejectsPath: string | undefined): string {
  const n = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;
  const parts = [
    done.existing && `${n(done.existing, 'link')} already there`,
    done.replaced && `${n(done.replaced, 'live link')} repointed (--on-collision replace)`,
    done.renamed && `${n(done.renamed, 'link')} renamed`,
    done.rewritten && `${n(done.rewritten, 'alias', 'aliases')} rewritten as the server stores ${done.rewritten === 1 ? 'it' : 'them'}`,
    done.duplicates && `${n(done.duplicates, 'duplicate row')} collapsed`,
    done.skipped && `${n(done.skipped, 'link')} left out`,
    rejected && `${n(rejected, 'row')} rejected${rejectsPath ? `, in ${rejectsPath}` : ''}`,
  ].filter(Boolean);
  return parts.length ? [`${done.new} new`, ...parts].join(', ') : '';
}

/** The rejects file: one row per row set aside, with its line (and column, for a fault of the CSV), why, and its text as the export has it. */
function rejectsCsv(rejects: Reject[]): string {
  return [csvLine(['line', 'column', 'reason', 'row']), ...rejects.map((r) => csvLine([r.line, r.column ?? '', r.reason, r.raw]))].join('');
}

/**
 * `--with-clicks`: the source's click totals as the first snapshot of the target account's click
 * history (origin `import:<format>`, records keyed by alias: `stats snapshot` later finds each
 * link by its alias once `apply` has made it), so the history starts from the old numbers. The
 * database is opened and the account read (one request) before the file is written.
 */
async function startClicks(ctx: Context, db: string | undefined) {
  const { openHistory } = await import('../history/store.js');
  const { readAccount } = await import('../history/read.js');
  const history = await openHistory(ctx, { db, create: true });
  let source: Awaited<ReturnType<typeof readAccount>>;
  try {
    source = await readAccount(ctx);
  } catch (error) {
    await history.close();
    throw error;
  }
  const records: HistoryRecord[] = [];
  let open = true;
  const close = async () => {
    if (open) await history.close();
    open = false;
  };
  return {
    records,
    /** Closes the database without storing anything (the file could not be written). */
    close,
    /** Stores the totals (not on a dry run); what was stored, for the summary. */
    async store(format: string): Promise<Record<string, unknown>> {
      try {
        if (!records.length) {
          ctx.warn(`note: --with-clicks: the export gives no click totals${format === 'bitly' ? ' (a Bitly CSV export has none)' : ''}; nothing was recorded`);
          return { links: 0, snapshot: null, db: history.db.where };
        }
        const result = await history.snapshot({ source, records, origin: `import:${format}`, complete: false, kinds: ['link'], profile: ctx.settings().profile.value, dryRun: Boolean(ctx.globals.dryRun) });
        // A link that already has a history of its own keeps it: the store leaves its imported total out (result.kept).
        const started = records.length - result.kept;
        ctx.warn(`${ctx.globals.dryRun ? 'dry run: would record' : 'recorded'} the click totals of ${started} link${started === 1 ? '' : 's'} as the starting point of ${result.first ? 'this account\'s click history' : 'their click history'} (${history.db.where}); \`linkctl stats snapshot\` after \`apply\` goes on from them${result.kept ? `; ${result.kept} link${result.kept === 1 ? '' : 's'} with a history of ${result.kept === 1 ? 'its' : 'their'} own kept ${result.kept === 1 ? 'it' : 'them'}: imported totals are never clicks` : ''}`);
        return { links: records.length, snapshot: ctx.globals.dryRun ? null : result.snapshot, db: history.db.where };
      } finally {
        await close();
      }
    },
  };
}
