/**
 * `stats top --group campaign|channel|domain|country|referrer|browser|os`: the rollups of src/history/rollup.ts as a table
 * (and JSON, the same as the MCP tool's). Without --group, `stats top` as before (./actions.ts).
 */
import type { Context } from '../../context.js';
import type { ActionInput } from '../shared/define.js';
import type { Column, Rec, Result } from '../../output/types.js';
import { choose, closeReader, firstRunNote, one, serverSnapshots, top as topLinks, type Chosen } from './actions.js';
import { rollup, membership, NONE, type GroupBy, type Rollup } from '../../history/rollup.js';
import { isVisitGroup } from '../../history/kinds.js';
import { DeltaCache } from '../../history/series.js';
import { UsageError } from '../../errors.js';
import { thousands } from '../../numbers.js';

const num = (v: unknown) => (v === null ? '-' : thousands(v as number));

export const GROUP_COLUMNS: Column[] = [
  { key: 'rank', header: '#' },
  { key: 'group', header: 'GROUP' },
  { key: 'id', optional: true },
  { key: 'links', header: 'LINKS', show: (r) => `${num(r.links)}${r.shared ? '*' : ''}` },
  { key: 'clicks', header: 'CLICKS', show: (r) => `${num(r.clicks)}${r.estimated ? '~' : ''}` },
  { key: 'previous', header: 'BEFORE', show: (r) => num(r.previous) },
  { key: 'change', header: 'CHANGE', show: (r) => (r.change === null ? '-' : `${(r.change as number) > 0 ? '+' : ''}${num(r.change)}`) },
  { key: 'changePercent', header: '%', show: (r) => (r.changePercent === null ? '-' : `${(r.changePercent as number) > 0 ? '+' : ''}${r.changePercent}%`) },
  { key: 'direction', optional: true },
  { key: 'estimated', optional: true },
  { key: 'shared', optional: true },
];

/** Each link's groups, reading the channels from the server when asked for channels (the history keeps none). */
export async function groupsOf(ctx: Context, chosen: Chosen, group: GroupBy) {
  const channels = group === 'channel' ? await (await import('../../history/channels.js')).readChannels(ctx, chosen.items) : undefined;
  return membership(chosen.items, group, channels);
}

export async function computeRollup(ctx: Context, chosen: Chosen, group: GroupBy, n: number, cache?: DeltaCache, by?: 'day' | 'hour' | 'week' | 'month'): Promise<Rollup> {
  const members = isVisitGroup(group) ? new Map() : await groupsOf(ctx, chosen, group); // a visit's details are in the history, not in what a link belongs to
  return rollup(chosen.history, chosen.source.id, chosen.items, group, members, chosen.window.since, chosen.window.until, n, cache, by);
}

/** The JSON of a rollup: `stats top --group --json` and the MCP tool. */
export function rollupJson(chosen: Chosen, r: Rollup): Rec {
  const { source } = chosen;
  return {
    account: { baseUrl: source.baseUrl, account: source.account, name: source.name },
    group: r.group, by: r.by, window: r.window, covered: r.covered, comparison: r.comparison,
    clicks: r.clicks, previous: r.previous, groups: r.rows, ungrouped: r.ungrouped, shared: r.shared, note: r.note,
  };
}

/** The table's rows: the groups, then the links in none as a row of their own (no rank). */
export function rollupRows(r: Rollup): Rec[] {
  const none = `(${NONE[r.group]})`;
  const rows: Rec[] = r.rows.map((row) => ({ ...row }));
  if (r.ungrouped.links) {
    const change = r.ungrouped.previous === null ? null : r.ungrouped.clicks - r.ungrouped.previous;
    rows.push({ rank: '-', group: none, id: null, links: r.ungrouped.links, clicks: r.ungrouped.clicks, previous: r.ungrouped.previous, change, changePercent: change === null || !r.ungrouped.previous ? null : Math.round((change / r.ungrouped.previous) * 1000) / 10, direction: null, estimated: false, shared: 0 });
  }
  return rows;
}

export async function top(ctx: Context, input: ActionInput): Promise<Result> {
  const { opts } = input;
  if (opts.group === undefined) return topLinks(ctx, input);
  if (opts.qr) throw new UsageError('--group sums links\' clicks by campaign, channel, domain, country, referrer, browser or os; it does not take --qr', 'leave out --qr for groups of links, or --group for QR codes\' scans');
  if (ctx.format !== 'json') ctx.checkOutput(GROUP_COLUMNS);
  const chosen = await choose(ctx, opts, 'day', '7d');
  try {
    const r = await computeRollup(ctx, chosen, opts.group as GroupBy, opts.top ?? 10);
    const fromServer = await serverSnapshots(chosen);
    const shared = r.shared ? `\n* links also in another ${r.group}: counted in each` : '';
    const note = `${r.note}${shared}${fromServer.length === 1 ? `\n${firstRunNote(ctx, opts, fromServer[0]!)}` : ''}`;
    if (ctx.format === 'json') {
      ctx.warn(note);
      return { kind: 'raw', json: rollupJson(chosen, r) };
    }
    return { kind: 'list', pages: one(rollupRows(r)), columns: GROUP_COLUMNS, note };
  } finally {
    await closeReader(ctx, chosen.history);
  }
}
