/** `linkctl import FORMAT FILE`: another shortener's export as an account file. The conversion is in ./convert.ts. */
import { closeSync, createReadStream, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { parseDocument } from 'yaml';
import { basename, dirname } from 'node:path';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { checkWrite, moveIntoPlace, privateTempPath, readablePath, writeError } from '../files/access.js';
import { toInt } from '../http/envelope.js';
import type { ActionInput } from '../commands/shared/define.js';
import type { Result } from '../output/types.js';
import { schemaUrl } from '../ascode/actions.js';
import type { HistoryRecord } from '../history/store.js';
import { FORMATS, mappedFormat, type FormatName } from './formats.js';
import { survey, write, type ImportOptions } from './convert.js';

export async function importLinks(ctx: Context, { args, opts }: ActionInput): Promise<Result> {
  const [name, given] = args as [FormatName, string];
  const input = readablePath(ctx, given, 'INPUT');
  if (name !== 'csv' && opts.map !== undefined) throw new UsageError(`--map is for \`linkctl import csv\`; a ${FORMATS[name].label} export has known columns`, `drop --map, or read the file as any CSV: linkctl import csv ${given} --map "url=...,alias=..."`);
  const format = name === 'csv' ? mappedFormat(opts.map as string | undefined) : FORMATS[name];
  try {
    if (!statSync(input).isFile()) throw Object.assign(new Error(), { code: 'not a file' });
  } catch (error) {
    throw new UsageError(`INPUT: cannot read ${input} (${(error as NodeJS.ErrnoException).code ?? 'error'})`, 'give the export file as it is on disk, after the format: linkctl import bitly bitly-links.csv');
  }
  const options: ImportOptions = { format, path: input, label: input, tagsTo: opts.tagsTo, onCollision: opts.onCollision };
  if (opts.keepDomains) {
    // The input is checked before the account is read: bad input sends no request.
    ctx.status('checking the export');
    await survey({ ...options, onCollision: 'suffix' });
    options.domains = await accountDomains(ctx);
  }
  ctx.status('checking the export');
  const surveyed = await survey(options);
  for (const note of surveyed.skipped) ctx.warn(`note: ${note}`);

  // The file is written beside its target (or in the temp folder for stdout) and appears whole or not at all.
  const written = opts.file !== undefined && opts.file !== '-' ? await checkWrite(ctx, String(opts.file), { flag: '--file', force: Boolean(opts.force) }) : undefined;
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
  const summary: Record<string, unknown> = { links: done.links, renamed: done.renamed, skipped: done.skipped };
  if (clicks) summary.clicks = await clicks.store(format.name);
  if (target && ctx.globals.dryRun) {
    return { kind: 'message', message: `dry run: would import ${done.links} link${done.links === 1 ? '' : 's'} from ${given} to ${opts.file}; nothing was written`, json: { dryRun: true, file: opts.file, ...summary } };
  }
  if (target) {
    return {
      kind: 'message',
      message: `Imported ${done.links} link${done.links === 1 ? '' : 's'} from ${given} to ${opts.file}${summary.renamed || summary.skipped ? ` (${summary.renamed} renamed, ${summary.skipped} left out)` : ''}; next: linkctl plan -f ${opts.file}`,
      json: { file: opts.file, ...summary },
    };
  }
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

/** The account's branded domains by host, through the run's reader (one request); system domains, with no id, cannot carry links of the file. */
async function accountDomains(ctx: Context): Promise<Map<string, string>> {
  const domains = new Map<string, string>();
  ctx.status("reading the account's domains");
  for (const record of await (await ctx.reader()).all('domains')) {
    if (toInt(record.id) === undefined || typeof record.domain !== 'string') continue;
    const domain = record.domain.replace(/\/+$/, '');
    try {
      domains.set(new URL(/^[a-z]+:\/\//i.test(domain) ? domain : `https://${domain}`).hostname.toLowerCase(), domain);
    } catch {
      // a domain that is no URL cannot match a short URL's host
    }
  }
  return domains;
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
