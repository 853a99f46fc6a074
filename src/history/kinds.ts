/** Names shared by the history code and the `stats` command definitions (which load at start-up: nothing else here). */
export type ItemKind = 'link' | 'qr' | 'campaign';
export const ITEM_KINDS: readonly ItemKind[] = ['link', 'qr', 'campaign'];

/** The `top*` statistics of a link (`stats snapshot --details N`), by short names. */
export const DIMENSIONS = ['countries', 'referrers', 'browsers', 'os'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** What a series point covers (UTC; weeks are ISO weeks, from Monday). */
export const PERIODS = ['hour', 'day', 'week', 'month'] as const;
export type Period = (typeof PERIODS)[number];

/**
 * `stats top --group`: what links' clicks are summed by: what a link belongs to (campaign,
 * channel, domain), or what each visit was (country, referrer, browser, os: VISIT_GROUPS).
 */
export const GROUPS = ['campaign', 'channel', 'domain', 'country', 'referrer', 'browser', 'os'] as const;
export type GroupBy = (typeof GROUPS)[number];
/** The groups that are a visit's details, and the details' dimension each reads. */
export const VISIT_GROUPS = { country: 'countries', referrer: 'referrers', browser: 'browsers', os: 'os' } as const satisfies Partial<Record<GroupBy, Dimension>>;
export type VisitGroup = keyof typeof VISIT_GROUPS;
export const isVisitGroup = (g: GroupBy): g is VisitGroup => g in VISIT_GROUPS;

/** `stats export --format`. */
export const EXPORT_FORMATS = ['parquet', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
