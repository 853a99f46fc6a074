/**
 * Click statistics, shared by `qr get` and `link get`: both answer `{details, data}` where
 * `data` holds `clicks`, `uniqueClicks` and `top*` objects (`{name: "12"}`, or `[]` when
 * empty on real servers, counts possibly strings; missing entirely for some QR codes).
 */
import type { Body } from '../../http/envelope.js';
import type { BarSection, Column, Rec, Result } from '../../output/types.js';
import { firstOf, withoutError } from './resource.js';

export const STAT_SECTIONS: Array<[key: string, title: string]> = [
  ['topCountries', 'Top countries'],
  ['topReferrers', 'Top referrers'],
  ['topBrowsers', 'Top browsers'],
  ['topOs', 'Top systems'],
];

/** The entries of a `top*` value, largest first, as [label, count] (a chart shows the first ten). */
export function entries(value: unknown): Array<[string, number]> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [];
  return Object.entries(value as Rec)
    .map(([label, n]): [string, number] => [label, Number(n)])
    .filter(([, n]) => Number.isFinite(n))
    .sort((a, b) => b[1] - a[1]);
}

/** The row of visits a country breakdown does not place (servers count only visits with a known country in it). */
export const UNKNOWN_COUNTRY = '(unknown)';

export function statBars(stats: Rec): BarSection[] {
  return STAT_SECTIONS.map(([key, title]) => {
    const rows = entries(firstOf(stats, key));
    // Countries: what the rows leave of the clicks is shown as a row of its own, so the bars add up to the total.
    const clicks = Number(stats.clicks);
    const placed = rows.reduce((sum, [, n]) => sum + n, 0);
    if (key === 'topCountries' && Number.isFinite(clicks) && clicks > placed) rows.push([UNKNOWN_COUNTRY, clicks - placed]);
    return { key, title, entries: rows.sort((a, b) => b[1] - a[1]) };
  });
}

/**
 * The record result of a `{details, data}` answer: the details plus click counts, with bars
 * for people and the whole answer (without `error`) for --json. `noStats` is shown when the
 * answer has no statistics object.
 */
export function statsResult(body: Body, columns: Column[], noStats: string): Result {
  const details = body.details as Rec;
  const stats = body.data && typeof body.data === 'object' && !Array.isArray(body.data) ? (body.data as Rec) : undefined;
  const record: Rec = { ...details, clicks: stats?.clicks, uniqueClicks: stats?.uniqueClicks };
  const all: Column[] = [
    ...columns,
    { key: 'clicks', header: 'Clicks', show: (r) => r.clicks ?? '-' },
    { key: 'uniqueClicks', header: 'Unique clicks', show: (r) => r.uniqueClicks ?? '-' },
  ];
  const json = withoutError(body);
  return stats ? { kind: 'record', record, columns: all, json, bars: statBars(stats) } : { kind: 'record', record, columns: all, json, note: noStats };
}
