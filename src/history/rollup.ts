/**
 * Rollups (`stats top --group`, the report's sections, the MCP `stats_top` tool): links' clicks
 * summed by what a link belongs to (campaign, channel, domain) or by what each visit was
 * (country, referrer, browser, os), ranked by the window's clicks and compared with the span
 * before by the rules `stats top` has (rank.ts: the same window, covered part, comparison and
 * spread), so that the groups add up to the ranking's total.
 *
 * - A link in no group (no campaign, no channel) is counted apart, never dropped.
 * - A link in two channels counts in each: the groups then add up to more than the total, and
 *   the rollup says how many links that is.
 * - By visit, clicks are named where the history knows each visit's details: live events
 *   (`linkctl listen`) name every visit; snapshots that read a link's details (`--details`)
 *   name the change of each name the server lists in both reads. Clicks named by neither are
 *   counted apart ("not broken down"), with the part of the total that is named said.
 */
import { computeBreakdowns, itemTotals, type DeltaCache, type SeriesSpec } from './series.js';
import { liveTimeline } from './events.js';
import { rank, type Ranking } from './rank.js';
import type { History, Item } from './store.js';
import { hostOf } from './export.js';
import type { Period } from './time.js';
import type { Timeline } from './timeline.js';

import { GROUPS, VISIT_GROUPS, isVisitGroup, type GroupBy, type VisitGroup } from './kinds.js';
import { thousands } from '../numbers.js';
export { GROUPS, type GroupBy };

/** What a link belongs to: a group's key and name. */
export interface Group {
  key: string;
  id: number | null;
  name: string;
}

export interface GroupRow {
  rank: number;
  group: string;
  id: number | null;
  /** Links of the group that the history holds. */
  links: number;
  clicks: number;
  previous: number | null;
  change: number | null;
  changePercent: number | null;
  direction: 'up' | 'down' | 'same' | null;
  estimated: boolean;
  /** Of its links, those also in another group of this kind (their clicks count in each). */
  shared: number;
}

/** The ranking's window, covered part, comparison and totals (clicks: every link's in the covered part, each once), and the groups. */
export interface Rollup extends Pick<Ranking, 'by' | 'window' | 'covered' | 'comparison' | 'clicks' | 'previous'> {
  group: GroupBy;
  rows: GroupRow[];
  /** Links in no group, counted apart. */
  ungrouped: { links: number; clicks: number; previous: number | null };
  /** Links in more than one group. */
  shared: number;
  /** What the ranking covers and compares, then what is said of the groups. */
  note: string;
  /** Only what is said of the groups (links in none, links in several): the report's section says the rest once. */
  groupNote: string;
}

/** Where the links (or clicks) in no group are: said in the note, and the table's row of them. */
export const NONE: Record<GroupBy, string> = {
  campaign: 'no campaign', channel: 'no channel', domain: 'no short URL',
  country: 'no country read', referrer: 'no referrer read', browser: 'no browser read', os: 'no system read',
};

/** Each link's groups of a kind: campaigns from the history, domains from the short URL, channels as read from the server. */
export function membership(items: readonly Item[], group: GroupBy, channels?: ReadonlyMap<number, readonly Group[]>): Map<number, Group[]> {
  const campaigns = new Map(items.filter((i) => i.kind === 'campaign' && i.remoteId !== null).map((i) => [i.remoteId!, i.label ?? i.alias ?? `campaign ${i.remoteId}`]));
  const out = new Map<number, Group[]>();
  for (const link of items.filter((i) => i.kind === 'link')) {
    if (group === 'campaign') {
      out.set(link.id, link.campaign === null ? [] : [{ key: `campaign:${link.campaign}`, id: link.campaign, name: campaigns.get(link.campaign) ?? `campaign ${link.campaign}` }]);
    } else if (group === 'domain') {
      const host = hostOf(link.url);
      out.set(link.id, host ? [{ key: `domain:${host}`, id: null, name: host }] : []);
    } else {
      out.set(link.id, [...(channels?.get(link.id) ?? [])]);
    }
  }
  return out;
}

/** What a rollup takes from its ranking, unchanged. */
const baseOf = (group: GroupBy, { by, window, covered, comparison, clicks, previous }: Ranking) => ({ group, by, window, covered, comparison, clicks, previous });

/** The rollup of the links' clicks over [since, until] by `group`, the top `n` groups. */
export async function rollup(history: History, sourceId: number, items: readonly Item[], group: GroupBy, groupsOf: ReadonlyMap<number, readonly Group[]>, since: number, until: number, n: number, cache?: DeltaCache, by?: Period): Promise<Rollup> {
  // the ranking gives the window, the covered part, the comparison and their note: the same as `stats top`
  const ranking: Ranking = await rank(history, sourceId, items, 'link', since, until, 0, by, cache);
  if (isVisitGroup(group)) return visitRollup(history, sourceId, items, group, ranking, until, n, cache);
  const base = baseOf(group, ranking);
  const links = items.filter((i) => i.kind === 'link');
  const groups = new Map<string, { group: Group; links: number; clicks: number; previous: number; estimated: boolean; shared: number }>();
  const ungrouped = { links: 0, clicks: 0, previous: 0 };
  let shared = 0;
  for (const link of links) {
    const mine = groupsOf.get(link.id) ?? [];
    if (mine.length === 0) ungrouped.links++;
    if (mine.length > 1) shared++;
    for (const g of mine) {
      const row = groups.get(g.key) ?? { group: g, links: 0, clicks: 0, previous: 0, estimated: false, shared: 0 };
      row.links++;
      if (mine.length > 1) row.shared++;
      groups.set(g.key, row);
    }
  }
  if (ranking.covered) {
    const { t, bucketOf } = await bucketsOf(history, sourceId, ranking, until);
    const totals = await itemTotals(history, sourceId, 'link', t, bucketOf, 2, cache);
    for (const [item, row] of totals) {
      const mine = groupsOf.get(item) ?? [];
      if (mine.length === 0) {
        ungrouped.clicks += row.clicks[1]!;
        ungrouped.previous += row.clicks[0]!;
      }
      for (const g of mine) {
        const sum = groups.get(g.key)!;
        sum.clicks += row.clicks[1]!;
        sum.previous += row.clicks[0]!;
        sum.estimated ||= row.estimated;
      }
    }
  }
  const comparable = ranking.comparison !== null;
  const rows = [...groups.values()]
    .sort((a, b) => b.clicks - a.clicks || a.group.name.localeCompare(b.group.name))
    .slice(0, n)
    .map((g, i): GroupRow => {
      const previous = comparable ? g.previous : null;
      const change = previous === null ? null : g.clicks - previous;
      return {
        rank: i + 1, group: g.group.name, id: g.group.id, links: g.links, clicks: g.clicks, previous, change,
        changePercent: change === null || !previous ? null : Math.round((change / previous) * 1000) / 10,
        direction: change === null ? null : change > 0 ? 'up' : change < 0 ? 'down' : 'same',
        estimated: g.estimated, shared: g.shared,
      };
    });
  const count = (k: number, one: string, many = `${one}s`) => `${thousands(k)} ${k === 1 ? one : many}`;
  const parts: string[] = [];
  if (ungrouped.links) parts.push(`${count(ungrouped.links, 'link')} in ${NONE[group]}: ${thousands(ungrouped.clicks)} of the ${thousands(ranking.clicks)} clicks, counted apart`);
  if (shared) parts.push(`${count(shared, 'link is', 'links are')} in more than one ${group}: ${shared === 1 ? 'its' : 'their'} clicks count in each, so the ${group}s add up to more than the total`);
  if (group === 'channel') parts.push('channels as the server lists them now');
  return { ...base, rows, ungrouped: { ...ungrouped, previous: comparable ? ungrouped.previous : null }, shared, note: [ranking.note, ...parts].join('; '), groupNote: parts.join('; ') };
}

/**
 * The ranking's covered part (bucket 1) and comparison (bucket 0) laid on a timeline of their
 * periods, with listen's events (a period events cover counts them, as the ranking did).
 */
async function bucketsOf(history: History, sourceId: number, ranking: Ranking, until: number): Promise<{ t: Timeline; bucketOf: Int32Array }> {
  const covered = ranking.covered!;
  const t = await liveTimeline(history, sourceId, { by: ranking.by, since: Date.parse(ranking.comparison?.from ?? covered.from), until });
  const coveredFrom = Date.parse(covered.from);
  const coveredTo = Date.parse(covered.to);
  const bucketOf = new Int32Array(t.starts.length).fill(-1);
  t.starts.forEach((start, w) => {
    if (start >= coveredFrom && start < coveredTo) bucketOf[w] = 1;
    else if (ranking.comparison && start < coveredFrom) bucketOf[w] = 0;
  });
  return { t, bucketOf };
}

/** The rollup by what each visit was: the breakdowns of stats show (series.ts), summed over the ranking's buckets. */
async function visitRollup(history: History, sourceId: number, items: readonly Item[], group: VisitGroup, ranking: Ranking, until: number, n: number, cache?: DeltaCache): Promise<Rollup> {
  const base = baseOf(group, ranking);
  const names = new Map<string, { clicks: number; previous: number; estimated: boolean; links: Set<number> }>();
  /** Each link's clicks in the covered part that a name holds. */
  const named = new Map<number, number>();
  /** Links with clicks in the covered part that no name holds (all or some of them). */
  let unnamed = 0;
  let clicks = 0;
  let previous = 0;
  if (ranking.covered) {
    const { t, bucketOf } = await bucketsOf(history, sourceId, ranking, until);
    const links = new Set(items.filter((i) => i.kind === 'link').map((i) => i.id));
    const spec: SeriesSpec = { key: 'links', label: 'links', kind: 'link', link: null, qr: null, campaign: null, items: links };
    await computeBreakdowns(history, t, spec, [VISIT_GROUPS[group]], (_d, name, item, w, c) => {
      const b = bucketOf[w]!;
      if (b < 0) return;
      let row = names.get(name);
      if (!row) names.set(name, (row = { clicks: 0, previous: 0, estimated: false, links: new Set() }));
      if (b === 1) {
        row.clicks += c;
        clicks += c;
        row.links.add(item);
        row.estimated ||= t.estimated[w] === 1;
        named.set(item, (named.get(item) ?? 0) + c);
      } else {
        row.previous += c;
        previous += c;
      }
    });
    for (const [item, row] of await itemTotals(history, sourceId, 'link', t, bucketOf, 2, cache)) {
      if (row.clicks[1]! - (named.get(item) ?? 0) > 0) unnamed++;
    }
  }
  const comparable = ranking.comparison !== null;
  const rows = [...names.entries()]
    .filter(([, g]) => g.clicks > 0 || (comparable && g.previous > 0))
    .sort((a, b) => b[1].clicks - a[1].clicks || a[0].localeCompare(b[0]))
    .slice(0, n)
    .map(([name, g], i): GroupRow => {
      const before = comparable ? g.previous : null;
      const change = before === null ? null : g.clicks - before;
      return {
        rank: i + 1, group: name, id: null, links: g.links.size, clicks: g.clicks, previous: before, change,
        changePercent: change === null || !before ? null : Math.round((change / before) * 1000) / 10,
        direction: change === null ? null : change > 0 ? 'up' : change < 0 ? 'down' : 'same',
        estimated: g.estimated, shared: 0,
      };
    });
  // what no event and no read of details names: the ranking's clicks less the named ones
  const rest = { clicks: Math.max(0, ranking.clicks - clicks), previous: comparable && ranking.previous !== null ? Math.max(0, ranking.previous - previous) : null };
  const what = { country: 'country', referrer: 'referrer', browser: 'browser', os: 'system' }[group];
  const share = ranking.clicks ? Math.round((clicks / ranking.clicks) * 1000) / 10 : 0;
  const groupNote = ranking.clicks
    ? `${thousands(clicks)} of the ${thousands(ranking.clicks)} clicks (${share}%) have a ${what} read (listen's events name every visit; snapshots that read links' details name what the server lists)${rest.clicks ? `; the other ${thousands(rest.clicks)} are counted apart` : ''}`
    : '';
  return {
    ...base, rows, ungrouped: { links: unnamed, ...rest }, shared: 0,
    note: [ranking.note, groupNote].filter(Boolean).join('; '), groupNote,
  };
}
