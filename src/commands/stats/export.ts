/** `stats export`: the history as Parquet (or CSV) day partitions; the writing is src/history/export.ts's. */
import type { Context } from '../../context.js';
import type { ActionInput } from '../shared/define.js';
import type { Result } from '../../output/types.js';
import { CliError, NotFoundError, UsageError } from '../../errors.js';
import { choose, closeReader, serverName } from './actions.js';
import { exportHistory, type ExportFormat } from '../../history/export.js';
import { DeltaCache } from '../../history/series.js';
import { firstLiveMoment } from '../../history/events.js';
import { iso, parseSince, now } from '../../history/time.js';
import { resolve } from 'node:path';
import { writablePath } from '../../files/access.js';
import { checkExportFolder, markExportFolder } from '../../history/export-folder.js';
import { thousands } from '../../numbers.js';

export async function exportStats(ctx: Context, { opts }: ActionInput): Promise<Result> {
  const format = (opts.format ?? 'parquet') as ExportFormat;
  // The file policy of every command that writes (an MCP server's --root; never the config or state
  // folder), then a folder an export may take for its own: it removes day partitions there.
  const out = resolve(writablePath(ctx, String(opts.out), '--out'));
  checkExportFolder(out, '--out');
  // bad --since/--until fail before the database is opened (choose checks them again, against the same clock)
  const nowMs = now(ctx.env);
  if (opts.since !== undefined) parseSince('--since', opts.since, nowMs);
  const chosen = await choose(ctx, { ...opts, since: opts.since ?? '99999d' }, 'day', '99999d');
  const { history, source } = chosen;
  try {
    const snapshots = (await history.snapshots(source.id)).filter((s) => s.origin === 'api');
    // by default, from the history's first day: its first snapshot of the server, or listen's first run or event if earlier
    const live = opts.since === undefined ? await firstLiveMoment(history, source.id) : undefined;
    const firsts = [snapshots[0]?.at, live].filter((ms): ms is number => ms !== undefined);
    const since = opts.since === undefined ? (firsts.length ? Math.min(...firsts) : chosen.window.until) : chosen.window.since;
    // the history keeps no channels: read from the server now; without it, the column is left empty and the run says so
    let channels: Map<number, string[]> | undefined;
    if (opts.channels !== false) try {
      const read = await (await import('../../history/channels.js')).readChannels(ctx, chosen.items);
      channels = new Map([...read].map(([k, v]) => [k, v.map((g) => g.name)]));
    } catch (error) {
      if (!(error instanceof CliError) || error instanceof UsageError) throw error;
      // a server without the channels endpoint has no channels: nothing to say
      if (!(error instanceof NotFoundError)) ctx.warn(`note: the channel column is empty: the channels could not be read from the server (${error.message})`);
    }
    if (ctx.globals.dryRun) {
      ctx.warn('dry run: nothing was written');
      return { kind: 'message', message: `Would export ${serverName(source.baseUrl)}'s history from ${iso(since).slice(0, 10)} to ${iso(chosen.window.until).slice(0, 10)} as ${format} into ${out}.`, json: { dryRun: true, format, out } };
    }
    markExportFolder(out);
    // a year of days made and written one after the other: V8 would grow its young generation for
    // them, and the peak memory with it (a 365-day export peaked 118 or 145 MB from run to run)
    (await import('../../memory.js')).keepMemoryFlat();
    const summary = await exportHistory({
      history, sourceId: source.id, server: source.baseUrl, account: source.name ?? source.account, items: chosen.items, channels,
      cache: new DeltaCache(history, source.id, chosen.window.until), since, until: chosen.window.until, format, out, status: (t) => ctx.status(t),
    });
    const parts = summary.tables.map((t) => `${t.table} ${thousands(t.rows)} rows in ${thousands(t.partitions)} day${t.partitions === 1 ? '' : 's'}${t.removed ? ` (${t.removed} old partition${t.removed === 1 ? '' : 's'} of days now empty removed)` : ''}`);
    return {
      kind: 'message',
      message: `Exported ${summary.days} day${summary.days === 1 ? '' : 's'} (${summary.from.slice(0, 10)} to ${iso(Date.parse(summary.to) - 1).slice(0, 10)}) as ${format} into ${out}: ${parts.join('; ')}.`,
      json: summary as unknown as Record<string, unknown>,
    };
  } finally {
    await closeReader(ctx, history);
  }
}
