/**
 * `stats snapshot|show|top|report`: reading the account into the history database, and the
 * differences between snapshots as tables, series and a page. The rules of series are in
 * src/history/series.ts; the database is src/history/store.ts's alone.
 */
import type { Context } from '../../context.js';
import type { ActionInput } from '../shared/define.js';
import type { Column, Rec, Result } from '../../output/types.js';
import { ConfigError, NotFoundError, UsageError } from '../../errors.js';
import { CLOCK_SKEW_MS, openHistory, type History, type Item, type Source } from '../../history/store.js';
import { readAccount, readCollections, readDetails, sourceBaseUrl, toRecords } from '../../history/read.js';
import { bucketTotals, computeBreakdown, computeSeries, covered, sparkline, type Point, type Series, type SeriesSpec, type Window } from '../../history/series.js';
import { DEFAULT_SINCE, iso, now, parseSince, periodStart, type Period } from '../../history/time.js';
import type { Dimension } from '../../history/kinds.js';

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

// ---------------------------------------------------------------- snapshot

export async function snapshot(ctx: Context, { opts }: ActionInput): Promise<Result> {
  // The database first: a wrong --db or a damaged file fails before any request is sent.
  const history = await openHistory(ctx, { db: opts.db, create: true });
  try {
    ctx.status('Reading the account');
    const source = await readAccount(ctx);
    const lists = await readCollections(ctx, ['links', 'qr', 'campaigns']);
    const { records, skipped } = toRecords(lists);
    const detailed = await readDetails(ctx, records, opts.details ?? 0);
    // The totals are the server's as of now, when the reads finished: the snapshot's time,
    // whenever it gets the writers' lock. Checked against the server's own clock.
    const at = now(ctx.env);
    const serverTime = (await ctx.client()).serverTime;
    ctx.status('Writing the snapshot');
    const dryRun = Boolean(ctx.globals.dryRun); // the server is only read; a dry run writes no snapshot either
    const result = await history.snapshot({
      source, records, at, profile: ctx.settings().profile.value, dryRun,
      ...(serverTime !== undefined ? { notAfter: serverTime + CLOCK_SKEW_MS, notAfterClock: `the server's clock (its answers are dated ${iso(serverTime)})` } : {}),
    });
    if (skipped) ctx.warn(`note: ${plural(skipped, 'record')} without an id in the server's lists were left out`);
    if (result.refused || result.refusedDetails) {
      const what = [result.refused ? `the totals of ${plural(result.refused, 'record')} (kept as they were)` : '', result.refusedDetails ? `${plural(result.refusedDetails, 'name')} of --details lists` : ''].filter(Boolean).join(' and ');
      ctx.warn(`warning: the server sent values that are not counts (negative, fractional, huge or not a number): ${what} not stored, e.g. ${result.refusedExamples.join('; ')}`);
    }
    if (result.cleanedTexts) ctx.warn(`note: ${plural(result.cleanedTexts, 'text')} from the server held NUL or broken characters, stored with \ufffd in their place`);
    const changes = result.first ? 'the first snapshot of this account' : `${plural(result.changed, 'record')} changed since the previous snapshot${result.gone ? `, ${result.gone} of them gone` : ''}`;
    const refused = result.refused ? `; ${plural(result.refused, 'record')} refused (totals not counts)` : '';
    const message = `Snapshot ${result.snapshot} at ${result.takenAt}: ${plural(result.links, 'link')}, ${plural(result.qrs, 'QR code')}, ${plural(result.campaigns, 'campaign')}` +
      `${detailed ? ` (details of ${plural(detailed, 'link')})` : ''}; ${changes}${refused} (${history.db.where})`;
    if (dryRun) ctx.warn('dry run: no snapshot was written');
    return {
      kind: 'message',
      message: dryRun ? message.replace(/^Snapshot \d+ at/, 'Dry run: a snapshot at').replace(/changed since/, 'would change since') : message,
      json: { ...result, skipped, account: source, db: history.db.where, ...(dryRun ? { dryRun: true } : {}) },
    };
  } finally {
    await history.close();
  }
}

// ---------------------------------------------------------------- forget, migrate

export async function forget(ctx: Context, { opts }: ActionInput): Promise<Result> {
  const id = opts.snapshot as number;
  const history = await openHistory(ctx, { db: opts.db, write: true });
  try {
    const info = await history.snapshotInfo(id);
    if (!info) throw new NotFoundError(`no snapshot ${id} in ${history.db.where}`, 'each snapshot prints its number (`Snapshot 12 at ...`); `linkctl stats snapshot --json` gives it as "snapshot"');
    const server = info.baseUrl === 'sandbox' ? 'the sandbox' : info.baseUrl;
    const what = `snapshot ${id} of ${server} (account ${info.name ?? info.account}), dated ${info.takenAt}${info.origin === 'api' ? '' : ` (${info.origin})`}`;
    await ctx.confirm(`Forget ${what}?`, 'a snapshot forgotten is gone from the history; the next snapshot measures from the one before it');
    const dryRun = Boolean(ctx.globals.dryRun);
    const done = await history.forget(id, dryRun);
    const message = `${dryRun ? 'Dry run: would forget' : 'Forgot'} ${what}: ${plural(done.deleted + done.moved, 'stored total')} (${done.moved} of them kept for the next snapshot, which had not stored them again)${done.details ? `, ${plural(done.details, 'details read', 'details reads')}` : ''}.`;
    if (dryRun) ctx.warn('dry run: nothing was changed');
    return { kind: 'message', message, json: { snapshot: id, takenAt: info.takenAt, account: { baseUrl: info.baseUrl, account: info.account, name: info.name }, ...done, db: history.db.where, ...(dryRun ? { dryRun: true } : {}) } };
  } finally {
    await history.close();
  }
}

/** `stats migrate`: brings an older database to this linkctl's schema (readers never do). */
export async function migrateDb(ctx: Context, { opts }: ActionInput): Promise<Result> {
  const dryRun = Boolean(ctx.globals.dryRun);
  const history = await openHistory(ctx, { db: opts.db, write: !dryRun, inspect: dryRun });
  try {
    const applied = dryRun ? (await history.pendingMigrations()).map((m) => m.version) : history.appliedNow;
    if (dryRun) ctx.warn('dry run: nothing was changed');
    const message = applied.length ? `${dryRun ? 'Dry run: would apply' : `Migrated ${history.db.where}: applied`} schema version${applied.length === 1 ? '' : 's'} ${applied.join(', ')}${dryRun ? ` to ${history.db.where}` : ''}.` : `${history.db.where} is up to date.`;
    return { kind: 'message', message, json: { applied, db: history.db.where, ...(dryRun ? { dryRun: true } : {}) } };
  } finally {
    await history.close();
  }
}

// ---------------------------------------------------------------- choosing what to show

interface Chosen {
  history: History;
  source: Source;
  window: Window;
  items: Item[];
}

function windowOf(ctx: Context, opts: Record<string, any>, by: Period, defaultSince: string): Window {
  const nowMs = now(ctx.env);
  const until = opts.until === undefined ? nowMs : parseSince('--until', opts.until, nowMs);
  const since = parseSince('--since', opts.since ?? defaultSince, nowMs);
  if (since >= until) throw new UsageError(`--since (${iso(since)}) must come before --until (${iso(until)})`, 'e.g. --since 30d (thirty days before now), with --until left out for now');
  return { by, since, until };
}

/** Closes a reader's database, saying first what it left out (values an older linkctl stored raw). */
async function closeReader(ctx: Context, history: History): Promise<void> {
  if (history.bad.values) ctx.warn(`note: the history holds ${plural(history.bad.values, 'stored value')} that ${history.bad.values === 1 ? 'is' : 'are'} not a count (negative or fractional, stored by an older linkctl): left out, as if that snapshot had not read ${history.bad.values === 1 ? 'it' : 'them'}`);
  await history.close();
}

/** The account whose history is shown: this profile's server, and among its accounts the one asked for or the only one. */
async function chooseSource(ctx: Context, history: History, account: string | undefined): Promise<Source> {
  const all = await history.sources();
  const base = sourceBaseUrl(ctx);
  let candidates = base ? all.filter((s) => s.baseUrl === base) : all;
  const where = base === 'sandbox' ? 'the sandbox' : base ?? 'any server';
  if (account !== undefined) candidates = candidates.filter((s) => s.account === account || s.name === account);
  if (candidates.length === 0) {
    const known = all.map((s) => `${s.baseUrl === 'sandbox' ? 'the sandbox' : s.baseUrl} (account ${s.name ?? s.account})`);
    throw new ConfigError(
      `no snapshots of ${where}${account !== undefined ? ` for account ${account}` : ''} in ${history.db.where}${known.length ? `; it holds ${known.join(', ')}` : ''}`,
      known.length ? 'choose the profile (--profile, --base-url, --sandbox) or --account of the history you want' : 'run `linkctl stats snapshot` first',
    );
  }
  if (candidates.length === 1) return candidates[0]!;
  const profile = ctx.settings().profile.value;
  const mine = candidates.filter((s) => s.profiles.includes(profile));
  if (mine.length === 1) return mine[0]!;
  throw new UsageError(`${history.db.where} holds several accounts of ${where}: ${candidates.map((s) => `${s.account}${s.name ? ` (${s.name})` : ''}`).join(', ')}`, 'choose one with --account');
}

async function choose(ctx: Context, opts: Record<string, any>, by: Period, defaultSince: string): Promise<Chosen> {
  const window = windowOf(ctx, opts, by, defaultSince); // bad flags fail before the database is opened
  const history = await openHistory(ctx, { db: opts.db });
  try {
    const source = await chooseSource(ctx, history, opts.account);
    return { history, source, window, items: await history.items(source.id) };
  } catch (error) {
    await history.close();
    throw error;
  }
}

/** Items of `kind` matching an id (the server's) or a name/alias, exactly, then ignoring case. */
function find(items: Item[], kind: Item['kind'], given: string): Item[] {
  const mine = items.filter((i) => i.kind === kind);
  if (/^\d+$/.test(given)) {
    const byId = mine.filter((i) => i.remoteId === Number(given));
    if (byId.length) return byId;
  }
  const exact = mine.filter((i) => i.alias === given || i.label === given);
  return exact.length ? exact : mine.filter((i) => i.alias?.toLowerCase() === given.toLowerCase() || i.label?.toLowerCase() === given.toLowerCase());
}

const NOUN = { link: 'link', qr: 'QR code', campaign: 'campaign' } as const;

function notFound(kind: Item['kind'], given: string, source: Source): NotFoundError {
  return new NotFoundError(`no ${NOUN[kind]} "${given}" in the history of ${source.baseUrl === 'sandbox' ? 'the sandbox' : source.baseUrl}`, `a ${NOUN[kind]} is in the history from the first snapshot that saw it: run \`linkctl stats snapshot\``);
}

const linkSpec = (items: Item[], label: string): SeriesSpec => ({
  key: items.length === 1 ? `link:${items[0]!.remoteId ?? `alias:${label}`}` : `link:alias:${label}`,
  label, kind: 'link', link: items.length === 1 ? items[0]!.remoteId : null, qr: null, campaign: null, items: new Set(items.map((i) => i.id)),
});

/** The series the flags ask for: links, campaigns, QR codes, the top N links; by default every link (and every QR code). */
async function specsOf(chosen: Chosen, opts: Record<string, any>): Promise<SeriesSpec[]> {
  const { items, source, history, window } = chosen;
  const specs: SeriesSpec[] = [];
  for (const given of (opts.link ?? []) as string[]) {
    const found = find(items, 'link', given);
    if (!found.length) throw notFound('link', given, source);
    specs.push(linkSpec(found, found[0]!.alias ?? given));
  }
  for (const given of (opts.campaign ?? []) as string[]) {
    const campaign = find(items, 'campaign', given)[0];
    const id = campaign?.remoteId ?? (/^\d+$/.test(given) ? Number(given) : undefined);
    const links = items.filter((i) => i.kind === 'link' && id !== undefined && i.campaign === id);
    if (id === undefined || (!campaign && !links.length)) throw notFound('campaign', given, source);
    specs.push({ key: `campaign:${id}`, label: campaign?.label ?? given, kind: 'link', link: null, qr: null, campaign: id, items: new Set(links.map((i) => i.id)) });
  }
  for (const given of (opts.qr ?? []) as string[]) {
    const found = find(items, 'qr', given);
    if (!found.length) throw notFound('qr', given, source);
    for (const qr of found) specs.push({ key: `qr:${qr.remoteId}`, label: qr.label ?? given, kind: 'qr', link: null, qr: qr.remoteId, campaign: null, items: new Set([qr.id]) });
  }
  const filtered = specs.length > 0;
  if (!filtered) {
    specs.push({ key: 'links', label: 'All links', kind: 'link', link: null, qr: null, campaign: null });
    if (items.some((i) => i.kind === 'qr') && opts.top === undefined) specs.push({ key: 'qrs', label: 'All QR codes', kind: 'qr', link: null, qr: null, campaign: null });
  }
  if (opts.top !== undefined) {
    const totals = await bucketTotals(history, source.id, 'link', [[periodStart(window.by, window.since), window.until + 1]], window.until);
    const byId = new Map(items.map((i) => [i.id, i]));
    const ranked = [...totals.entries()].filter(([, [t]]) => t!.clicks > 0).sort((a, b) => b[1][0]!.clicks - a[1][0]!.clicks || a[0] - b[0]);
    const already = new Set(specs.map((s) => s.key));
    for (const [id] of ranked.slice(0, opts.top)) {
      const item = byId.get(id)!;
      const spec = linkSpec([item], item.alias ?? String(item.remoteId));
      if (!already.has(spec.key)) specs.push(spec);
    }
  }
  return specs;
}

// ---------------------------------------------------------------- show

const POINT_COLUMNS: Column[] = ['series', 'label', 'link', 'qr', 'campaign', 'period', 'start', 'clicks', 'uniqueClicks', 'gap', 'reset', 'from', 'to'].map((key) => ({ key }));
const BREAKDOWN_COLUMNS: Column[] = ['series', 'link', 'dimension', 'name', 'period', 'start', 'clicks', 'gap', 'reset', 'from', 'to'].map((key) => ({ key }));

function pointRecord(series: Series, point: Point): Rec {
  const { spec } = series;
  return { series: spec.key, label: spec.label, link: spec.link, qr: spec.qr, campaign: spec.campaign, ...point };
}

const UNIQUE_NOTE = 'visitors first counted in the period (the growth of the server\'s unique count); they do not add up across periods or links';

function seriesColumns(by: Period, periods: number, width: number, breakdown?: Dimension): { columns: Column[]; shown: number } {
  // the sparkline gets what the other columns leave of the terminal; the latest periods when it is narrow
  const shown = Math.max(8, Math.min(periods, width - 60));
  const columns: Column[] = [
    { key: 'label', header: breakdown ? breakdown.replace(/^os$/, 'systems').toUpperCase() : 'SERIES' },
    { key: 'clicks', header: 'CLICKS', show: (r) => (r.clicks as number).toLocaleString('en') },
    ...(breakdown ? [] : [{ key: 'uniqueClicks', header: 'NEW UNIQUES*', show: (r: Rec) => (r.uniqueClicks === null ? '-' : (r.uniqueClicks as number).toLocaleString('en')) }]),
    { key: 'trend', header: `PER ${by.toUpperCase()}${shown < periods ? ` (last ${shown})` : ''}` },
    { key: 'last', header: 'LAST', show: (r) => (r.last === null ? 'gap' : (r.last as number).toLocaleString('en')) },
    { key: 'notes', header: 'NOTES' },
  ];
  return { columns, shown };
}

function seriesRow(series: Series, shown: number): Rec {
  const values = series.points.map((p) => p.clicks);
  const notes = [series.gaps ? plural(series.gaps, 'gap') : '', series.resets ? `${plural(series.resets, 'reset')} (a total went down)` : ''].filter(Boolean).join('; ');
  return {
    series: series.spec.key,
    label: series.spec.label,
    clicks: series.clicks,
    uniqueClicks: series.uniqueClicks,
    trend: sparkline(values.slice(-shown)),
    last: values.at(-1) ?? null,
    notes,
  };
}

function windowNote(chosen: Chosen, newest: string | null, count: number): string {
  const { window } = chosen;
  return `${count} snapshot${count === 1 ? '' : 's'} of ${chosen.source.baseUrl === 'sandbox' ? 'the sandbox' : chosen.source.baseUrl} (account ${chosen.source.name ?? chosen.source.account}) up to ${iso(window.until)}; newest snapshot ${newest ?? 'none'}; periods in UTC`;
}

export async function show(ctx: Context, { opts }: ActionInput): Promise<Result> {
  const by: Period = opts.by ?? 'day';
  const breakdown = opts.breakdown as Dimension | undefined;
  if (breakdown && !opts.link && opts.top === undefined) throw new UsageError('--breakdown needs the links to break down: --link ID|ALIAS or --top N', 'details are read for the most clicked links only (stats snapshot --details N)');
  const format = ctx.format;
  const columns = format === 'table' ? undefined : breakdown ? BREAKDOWN_COLUMNS : POINT_COLUMNS;
  if (columns) ctx.checkOutput(columns);
  const chosen = await choose(ctx, opts, by, opts.since === undefined ? DEFAULT_SINCE[by] : opts.since);
  const { history, source, window } = chosen;
  try {
    const specs = await specsOf(chosen, opts);
    const { series: computed, snapshots } = await computeSeries(history, source.id, breakdown ? [] : specs, window);
    let series = computed;
    if (breakdown) {
      series = [];
      for (const spec of specs.filter((s) => s.kind === 'link' && s.items)) {
        for (const s of await computeBreakdown(history, snapshots, spec, breakdown, window)) series.push(s);
      }
      if (series.length === 0) ctx.warn(`note: no ${breakdown} changes: they need two snapshots in a period that both read the link's details (stats snapshot --details N)`);
    }
    const all = await history.snapshots(source.id);
    const newest = all.length ? iso(all[all.length - 1]!.at) : null;
    const where = windowNote(chosen, newest, snapshots.length);
    const note = breakdown ? where : `${where}\n${format === 'table' ? '* NEW UNIQUES' : 'uniqueClicks'}: ${UNIQUE_NOTE}`;
    if (format === 'json') {
      const points = series.flatMap((s) => s.points.map((p) => (breakdown ? breakdownRecord(s, p, breakdown) : pointRecord(s, p))));
      return {
        kind: 'raw',
        json: {
          account: { baseUrl: source.baseUrl, account: source.account, name: source.name },
          by, since: iso(window.since), until: iso(window.until), newestSnapshot: newest, snapshots: snapshots.length,
          ...(breakdown ? { breakdown } : { uniqueClicks: UNIQUE_NOTE }),
          series: series.map((s) => ({ series: s.spec.key, label: s.spec.label, link: s.spec.link, qr: s.spec.qr, campaign: s.spec.campaign, clicks: s.clicks, uniqueClicks: s.uniqueClicks, gaps: s.gaps, resets: s.resets })),
          points,
        },
      };
    }
    if (format !== 'table') {
      const records = series.flatMap((s) => s.points.map((p) => (breakdown ? breakdownRecord(s, p, breakdown) : pointRecord(s, p))));
      return { kind: 'list', pages: one(records), columns: columns!, note };
    }
    const periods = series[0]?.points.length ?? 0;
    const { columns: tableColumns, shown } = seriesColumns(by, periods, ctx.outputOptions().width, breakdown);
    ctx.checkOutput(tableColumns);
    return { kind: 'list', pages: one(series.map((s) => seriesRow(s, shown))), columns: tableColumns, note };
  } finally {
    await closeReader(ctx, history);
  }
}

function breakdownRecord(series: Series, point: Point, dimension: Dimension): Rec {
  const { spec } = series;
  return { series: spec.key.replace(/:[^:]+:[^:]*$/, ''), link: spec.link, dimension, name: spec.label, period: point.period, start: point.start, clicks: point.clicks, gap: point.gap, reset: point.reset, from: point.from, to: point.to };
}

async function* one(records: Rec[]): AsyncGenerator<Rec[]> {
  yield records;
}

// ---------------------------------------------------------------- top

export interface Mover extends Rec {
  direction: 'up' | 'down';
  rank: number;
  kind: 'link' | 'qr';
  id: number | null;
  alias: string | null;
  label: string | null;
  clicks: number;
  previous: number | null;
  change: number | null;
  changePercent: number | null;
  reset: boolean;
}

const MOVER_COLUMNS: Column[] = [
  { key: 'direction', header: 'MOVED' },
  { key: 'rank', header: '#' },
  { key: 'kind', optional: true },
  { key: 'id', header: 'ID' },
  { key: 'alias', header: 'NAME' },
  { key: 'label', optional: true },
  { key: 'clicks', header: 'CLICKS' },
  { key: 'previous', header: 'BEFORE', show: (r) => r.previous ?? '-' },
  { key: 'change', header: 'CHANGE', show: (r) => (r.change === null ? '-' : `${(r.change as number) > 0 ? '+' : ''}${r.change}`) },
  { key: 'changePercent', header: '%', show: (r) => (r.changePercent === null ? '-' : `${(r.changePercent as number) > 0 ? '+' : ''}${r.changePercent}%`) },
  { key: 'reset', optional: true },
];

/** The movers of a window against the one before it: up to `n` each way. */
export async function movers(chosen: Chosen, kind: 'link' | 'qr', n: number): Promise<{ movers: Mover[]; note: string }> {
  const { history, source, window, items } = chosen;
  const length = window.until - window.since;
  const previous: [number, number] = [window.since - length, window.since];
  const current: [number, number] = [window.since, window.until + 1];
  const snapshots = (await history.snapshots(source.id)).filter((s) => s.at <= window.until);
  const noun = kind === 'link' ? 'clicks' : 'scans';
  if (!covered(snapshots, ...current)) {
    return { movers: [], note: `no movers: the window ${iso(window.since)} to ${iso(window.until)} needs a snapshot before it and one in it (${snapshots.length} snapshot${snapshots.length === 1 ? '' : 's'} so far)` };
  }
  const comparable = covered(snapshots, ...previous);
  const totals = await bucketTotals(history, source.id, kind, [previous, current], window.until);
  const byId = new Map(items.map((i) => [i.id, i]));
  const rows = [...totals.entries()].map(([id, [before, now]]) => {
    const item = byId.get(id)!;
    const change = comparable ? now!.clicks - before!.clicks : null;
    return {
      kind, id: item.remoteId, alias: item.alias, label: item.label, clicks: now!.clicks, previous: comparable ? before!.clicks : null, change,
      changePercent: change === null || !before!.clicks ? null : Math.round((change / before!.clicks) * 1000) / 10,
      reset: now!.reset || before!.reset, item: id,
    };
  });
  const pick = (direction: 'up' | 'down', list: typeof rows): Mover[] => list.slice(0, n).map(({ item, ...r }, i) => ({ direction, rank: i + 1, ...r }));
  const up = comparable
    ? rows.filter((r) => r.change! > 0).sort((a, b) => b.change! - a.change! || a.item - b.item)
    : rows.filter((r) => r.clicks > 0).sort((a, b) => b.clicks - a.clicks || a.item - b.item);
  const down = comparable ? rows.filter((r) => r.change! < 0).sort((a, b) => a.change! - b.change! || a.item - b.item) : [];
  const note = comparable
    ? `${noun} from ${iso(window.since)} to ${iso(window.until)} against the ${Math.round(length / 3_600_000)} hours before`
    : `the window before ${iso(window.since)} has no snapshots to compare with: ranked by ${noun} in the window only`;
  return { movers: [...pick('up', up), ...pick('down', down)], note };
}

export async function top(ctx: Context, { opts }: ActionInput): Promise<Result> {
  ctx.checkOutput(MOVER_COLUMNS);
  const chosen = await choose(ctx, opts, 'day', '7d');
  try {
    const { movers: list, note } = await movers(chosen, opts.qr ? 'qr' : 'link', opts.top ?? 5);
    return { kind: 'list', pages: one(list), columns: MOVER_COLUMNS, note };
  } finally {
    await closeReader(ctx, chosen.history);
  }
}

// ---------------------------------------------------------------- report

export async function report(ctx: Context, { opts }: ActionInput): Promise<Result> {
  const by: Period = opts.by ?? 'day';
  // Checked before any work: an existing page is replaced only with --force (or a yes at a terminal).
  const out = opts.html === '-' ? undefined : await (await import('../../files/access.js')).prepareWrite(ctx, String(opts.html), { flag: '--html', force: Boolean(opts.force) });
  const chosen = await choose(ctx, opts, by, opts.since ?? '90d');
  const { history, source, window } = chosen;
  try {
    const specs = await specsOf(chosen, { ...opts, top: opts.top ?? (opts.link || opts.campaign || opts.qr ? undefined : 5) });
    const { series, snapshots } = await computeSeries(history, source.id, specs, window);
    // movers: the second half of the window against the first half
    const moverWindow: Chosen = { ...chosen, window: { by, since: window.until - (window.until - window.since) / 2, until: window.until } };
    const { movers: moved, note } = await movers(moverWindow, 'link', 10);
    const { renderReport } = await import('../../history/report.js');
    const all = await history.snapshots(source.id);
    const html = renderReport({
      title: `Click history: ${source.baseUrl === 'sandbox' ? 'the sandbox' : source.baseUrl}`,
      account: source.name ?? source.account,
      window,
      series,
      movers: moved,
      moversNote: note,
      snapshots: snapshots.length,
      newest: all.length ? iso(all[all.length - 1]!.at) : null,
      generated: iso(now(ctx.env)),
      uniqueNote: UNIQUE_NOTE,
    });
    if (!out) return { kind: 'text', text: html };
    if (!out.write(html)) {
      ctx.warn('dry run: nothing was written');
      return { kind: 'message', message: `Would write ${out.path}: ${plural(series.length, 'chart')}, ${plural(snapshots.length, 'snapshot')}.`, json: { dryRun: true, file: out.path, charts: series.length } };
    }
    return { kind: 'message', message: `Wrote ${out.path}: ${plural(series.length, 'chart')}, ${plural(moved.length, 'mover')}, ${plural(snapshots.length, 'snapshot')}.`, json: { file: out.path, charts: series.length, movers: moved.length, snapshots: snapshots.length } };
  } finally {
    await closeReader(ctx, history);
  }
}
