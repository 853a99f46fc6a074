/** Names shared by the history code and the `stats` command definitions (which load at start-up: nothing else here). */
export type ItemKind = 'link' | 'qr' | 'campaign';
export const ITEM_KINDS: readonly ItemKind[] = ['link', 'qr', 'campaign'];

/** The `top*` statistics of a link (`stats snapshot --details N`), by short names. */
export const DIMENSIONS = ['countries', 'referrers', 'browsers', 'os'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** What a series point covers (UTC; weeks are ISO weeks, from Monday). */
export const PERIODS = ['hour', 'day', 'week', 'month'] as const;
export type Period = (typeof PERIODS)[number];

/** `stats top --group`: what links' clicks are summed by. */
export const GROUPS = ['campaign', 'channel', 'domain'] as const;
export type GroupBy = (typeof GROUPS)[number];

/** `stats export --format`. */
export const EXPORT_FORMATS = ['parquet', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
