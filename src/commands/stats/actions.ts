/**
 * `stats snapshot|show|top|report`: reading the account into the history database, and the
 * differences between snapshots as tables, series and a page. The rules of series are in
 * src/history/series.ts; the database is src/history/store.ts's alone.
 */
import type { Context } from '../../context.js';
import type { ActionInput } from '../shared/define.js';
import type { Column, Rec, Result } from '../../output/types.js';
import { NoHistoryError, NotFoundError, UsageError } from '../../errors.js';
import { CLOCK_SKEW_MS, openHistory, type History, type Item, type Source } from '../../history/store.js';
import { readAccount, readCollections, readDetails, serverKey, sourceBaseUrl, toRecords } from '../../history/read.js';
import { computeBreakdown, computeSeries, DeltaCache, itemTotals, sparkline, type Point, type Series, type SeriesSpec, type Window } from '../../history/series.js';
import { rank, when, type Ranking } from '../../history/rank.js';
import { DEFAULT_SINCE, iso, now, parseSince, type Period } from '../../history/time.js';
import { type Dimension } from '../../history/kinds.js';
import { liveNote, liveTimeline, sourcesWithEvents } from '../../history/events.js';
import { isPostgres } from '../../history/db.js';
import { thousands } from '../../numbers.js';

export const plural = (n: number, one: string, many = `${one}s`) => `${thousands(n)} ${n === 1 ? one : many}`;

// ---------------------------------------------------------------- snapshot

export async function snapshot(ctx: Context, { opts }: ActionInput): Promise<Result> {
  // The database first: a wrong --db or a damaged file fails before any request is sent.
  const history = await openHistory(ctx, { db: opts.db, create: true });
  try {
    ctx.status('Reading the account');
    const source = await readAccount(ctx);
    const lists = await readCollections(ctx, ['links', 'qr', 'campaigns']);
    const { unknownScans, unknownScansNote } = await import('../../qr/scans.js');
    const unknown = await unknownScans(ctx, lists.qr);
    const { records, skipped } = toRecords(lists, new Set([...unknown.none, ...unknown.unread]));
    // Said only when a code's kind could not be read: codes that count no scans are no news to a cron job.
    if (unknown.unread.size) ctx.warn(unknownScansNote({ none: 0, unread: unknown.unread.size, why: unknown.why })!.replace(/^Note/, 'note'));
    const detailed = await readDetails(ctx, records, opts.details ?? 0, opts.concurrency);
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

export interface Chosen {
  history: History;
  source: Source;
  window: Window;
  items: Item[];
}

export function windowOf(ctx: Context, opts: Record<string, any>, by: Period, defaultSince: string): Window {
  const nowMs = now(ctx.env);
  const until = opts.until === undefined ? nowMs : parseSince('--until', opts.until, nowMs);
  const since = parseSince('--since', opts.since ?? defaultSince, nowMs);
  if (since >= until) throw new UsageError(`--since (${iso(since)}) must come before --until (${iso(until)})`, 'e.g. --since 30d (thirty days before now), with --until left out for now');
  return { by, since, until };
}

/** Closes a reader's database, saying first what it left out (values an older linkctl stored raw). */
export async function closeReader(ctx: Context, history: History): Promise<void> {
  if (history.bad.values) ctx.warn(`note: the history holds ${plural(history.bad.values, 'stored value')} that ${history.bad.values === 1 ? 'is' : 'are'} not a count (negative or fractional, stored by an older linkctl): left out, as if that snapshot had not read ${history.bad.values === 1 ? 'it' : 'them'}`);
  await history.close();
}

export const serverName = (baseUrl: string) => (baseUrl === 'sandbox' ? 'the sandbox' : baseUrl);

/**
 * The line that takes a snapshot a day with cron, as this run would: the same profile, the
 * sandbox or the same --db (a PostgreSQL URL is left to LINKCTL_DB: its password belongs in
 * PGPASSWORD, not in a crontab).
 */
function cronLine(ctx: Context, opts: Record<string, any>): string {
  const settings = ctx.settings();
  const env = settings.profile.source === 'flag' || settings.profile.source === 'environment' ? `LINKCTL_PROFILE=${settings.profile.value} ` : '';
  const db = typeof opts.db === 'string' && !isPostgres(opts.db) ? ` --db ${JSON.stringify(opts.db).slice(1, -1).includes(' ') ? JSON.stringify(opts.db) : opts.db}` : '';
  return `15 6 * * *  ${env}linkctl ${ctx.sandboxMode ? '--sandbox ' : ''}stats snapshot -q${db}`;
}

/** No snapshot of this account yet: exit 8 (not a configuration error), with the commands that start one. */
function noHistory(ctx: Context, opts: Record<string, any>, what: string): NoHistoryError {
  return new NoHistoryError(what, `take a snapshot now with \`linkctl ${ctx.sandboxMode ? '--sandbox ' : ''}stats snapshot\`, and one a day from cron (crontab -e): ${cronLine(ctx, opts)}`);
}

/** The account whose history is shown: this profile's server, and among its accounts the one asked for or the only one. */
async function chooseSource(ctx: Context, opts: Record<string, any>, history: History, account: string | undefined): Promise<Source> {
  const all = await history.sources();
  const base = sourceBaseUrl(ctx);
  let candidates = base ? all.filter((s) => s.baseUrl === base || serverKey(s.baseUrl) === base) : all;
  const where = base ? serverName(base) : 'any server';
  if (account !== undefined) candidates = candidates.filter((s) => s.account === account || s.name === account);
  const live = await sourcesWithEvents(history); // a source listen stored events for is read like one with snapshots
  candidates = candidates.filter((s) => s.snapshots > 0 || live.has(s.id));
  if (candidates.length === 0) {
    const known = all.filter((s) => s.snapshots > 0).map((s) => `${serverName(s.baseUrl)} (account ${s.name ?? s.account})`);
    const error = noHistory(ctx, opts, `no snapshots of ${where}${account !== undefined ? ` for account ${account}` : ''} in ${history.db.where} yet${known.length ? `; it holds ${known.join(', ')}` : ''}`);
    if (!known.length) return Promise.reject(error);
    throw new NoHistoryError(error.message, `choose the profile (--profile, --base-url, --sandbox) or --account of the history you want, or ${error.hint}`);
  }
  if (candidates.length === 1) return candidates[0]!;
  const profile = ctx.settings().profile.value;
  const mine = candidates.filter((s) => s.profiles.includes(profile));
  if (mine.length === 1) return mine[0]!;
  throw new UsageError(`${history.db.where} holds several accounts of ${where}: ${candidates.map((s) => `${s.account}${s.name ? ` (${s.name})` : ''}`).join(', ')}`, 'choose one with --account');
}

export async function choose(ctx: Context, opts: Record<string, any>, by: Period, defaultSince: string): Promise<Chosen> {
  const window = windowOf(ctx, opts, by, defaultSince); // bad flags fail before the database is opened
  let history: History;
  try {
    history = await openHistory(ctx, { db: opts.db });
  } catch (error) {
    if (error instanceof NoHistoryError) throw noHistory(ctx, opts, error.message);
    throw error;
  }
  try {
    const source = await chooseSource(ctx, opts, history, opts.account);
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
  return new NotFoundError(`no ${NOUN[kind]} "${given}" in the history of ${serverName(source.baseUrl)}`, `a ${NOUN[kind]} is in the history from the first snapshot that saw it: run \`linkctl stats snapshot\``);
}

const linkSpec = (items: Item[], label: string): SeriesSpec => ({
  key: items.length === 1 ? `link:${items[0]!.remoteId ?? `alias:${label}`}` : `link:alias:${label}`,
  label, kind: 'link', link: items.length === 1 ? items[0]!.remoteId : null, qr: null, campaign: null, items: new Set(items.map((i) => i.id)),
});

/** The links with the most clicks in the window, by their spread clicks (as the series count them). */
async function topLinks(chosen: Chosen, n: number, cache?: DeltaCache): Promise<Item[]> {
  const { history, source, window, items } = chosen;
  const t = await liveTimeline(history, source.id, window);
  const totals = await itemTotals(history, source.id, 'link', t, new Int32Array(t.starts.length).fill(0), 1, cache);
  const byId = new Map(items.map((i) => [i.id, i]));
  return [...totals.entries()].filter(([, row]) => row.clicks[0]! > 0).sort((a, b) => b[1].clicks[0]! - a[1].clicks[0]! || a[0] - b[0]).slice(0, n).map(([id]) => byId.get(id)!).filter(Boolean);
}

/** The series the flags ask for: links, campaigns, QR codes, the top N links; by default every link (and every QR code). */
export async function specsOf(chosen: Chosen, opts: Record<string, any>, cache?: DeltaCache): Promise<SeriesSpec[]> {
  const { items, source } = chosen;
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
    if (items.some((i) => i.kind === 'qr') && (opts.top === undefined || opts.qrs)) specs.push({ key: 'qrs', label: 'All QR codes', kind: 'qr', link: null, qr: null, campaign: null });
  }
  if (opts.top !== undefined) {
    const already = new Set(specs.map((s) => s.key));
    for (const item of await topLinks(chosen, opts.top, cache)) {
      const spec = linkSpec([item], item.alias ?? String(item.remoteId));
      if (!already.has(spec.key)) specs.push(spec);
    }
  }
  return specs;
}

/** The account's snapshots from the server up to the window's end: one means a first run (totals, no trends yet). */
export async function serverSnapshots(chosen: Chosen): Promise<number[]> {
  return (await chosen.history.snapshots(chosen.source.id)).filter((s) => s.origin === 'api' && s.at <= chosen.window.until).map((s) => s.at);
}

/** After the first snapshot: what it holds, and when trends will appear. */
export function firstRunNote(ctx: Context, opts: Record<string, any>, at: number): string {
  return `one snapshot so far (${when(at)}): these are the totals then. Trends appear after the next snapshot; take one a day with cron (crontab -e):\n  ${cronLine(ctx, opts)}`;
}

// ---------------------------------------------------------------- show

const POINT_COLUMNS: Column[] = ['series', 'label', 'link', 'qr', 'campaign', 'period', 'start', 'clicks', 'uniqueClicks', 'gap', 'reset', 'estimated', 'from', 'to'].map((key) => ({ key }));
const BREAKDOWN_COLUMNS: Column[] = ['series', 'link', 'dimension', 'name', 'period', 'start', 'clicks', 'gap', 'reset', 'estimated', 'from', 'to'].map((key) => ({ key }));
/**
 * A series' total is what the newest snapshot read, not a count of now (linkctl reads the server
 * only in a snapshot): the header says "latest", and a note under the table says when that was.
 */
const TOTAL_HEADER = 'LATEST TOTAL';
const totalNote = (newest: string | null) => (newest ? `${TOTAL_HEADER}: the total the newest snapshot read (${when(Date.parse(newest))}), not a count of now: \`linkctl stats snapshot\` reads one` : '');
const TOTAL_COLUMNS: Column[] = [
  { key: 'label', header: 'SERIES' },
  { key: 'total', header: TOTAL_HEADER, show: (r) => (r.total === null ? '-' : thousands(r.total as number)) },
  { key: 'series', optional: true },
];

function pointRecord(series: Series, point: Point): Rec {
  const { spec } = series;
  return { series: spec.key, label: spec.label, link: spec.link, qr: spec.qr, campaign: spec.campaign, ...point };
}

export const UNIQUE_NOTE = 'visitors first counted in the period (the growth of the server\'s unique count); they do not add up across periods or links';
const ESTIMATE_NOTE = 'spread evenly over the periods a missed snapshot left between two others: estimates, not counts';

function seriesColumns(by: Period, periods: number, width: number, breakdown?: Dimension): { columns: Column[]; shown: number } {
  // the sparkline gets what the other columns leave of the terminal; the latest periods when it is narrow
  const shown = Math.max(8, Math.min(periods, width - 60));
  const columns: Column[] = [
    { key: 'label', header: breakdown ? breakdown.replace(/^os$/, 'systems').toUpperCase() : 'SERIES' },
    { key: 'clicks', header: 'CLICKS', show: (r) => thousands(r.clicks as number) },
    ...(breakdown ? [] : [{ key: 'uniqueClicks', header: 'NEW UNIQUES*', show: (r: Rec) => (r.uniqueClicks === null ? '-' : thousands(r.uniqueClicks as number)) }]),
    { key: 'trend', header: `PER ${by.toUpperCase()}${shown < periods ? ` (last ${shown})` : ''}` },
    { key: 'last', header: 'LAST', show: (r) => (r.last === null ? 'gap' : thousands(r.last as number)) },
    ...(breakdown ? [] : [{ key: 'total', header: TOTAL_HEADER, show: (r: Rec) => (r.total === null ? '-' : thousands(r.total as number)) }]),
    { key: 'notes', header: 'NOTES' },
  ];
  return { columns, shown };
}

function seriesRow(series: Series, shown: number): Rec {
  const values = series.points.map((p) => p.clicks);
  const notes = [
    series.gaps ? plural(series.gaps, 'gap') : '',
    series.estimated ? `${series.estimated} estimated` : '',
    series.resets ? `${plural(series.resets, 'reset')} (a total went down)` : '',
  ].filter(Boolean).join('; ');
  return {
    series: series.spec.key,
    label: series.spec.label,
    clicks: series.clicks,
    uniqueClicks: series.uniqueClicks,
    trend: sparkline(values.slice(-shown), series.points.slice(-shown).map((p) => p.estimated)),
    last: values.at(-1) ?? null,
    total: series.total,
    notes,
  };
}

function windowNote(chosen: Chosen, newest: string | null, count: number): string {
  const { window } = chosen;
  return `${count} snapshot${count === 1 ? '' : 's'} of ${serverName(chosen.source.baseUrl)} (account ${chosen.source.name ?? chosen.source.account}) up to ${iso(window.until)}; newest snapshot ${newest ?? 'none'}; periods in UTC`;
}

function seriesJson(s: Series): Rec {
  return { series: s.spec.key, label: s.spec.label, link: s.spec.link, qr: s.spec.qr, campaign: s.spec.campaign, clicks: s.clicks, uniqueClicks: s.uniqueClicks, gaps: s.gaps, resets: s.resets, estimated: s.estimated, total: s.total };
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
    const { series: computed, snapshots, timeline: t } = await computeSeries(history, source.id, specs, window);
    let series = computed;
    if (breakdown) {
      series = [];
      for (const spec of specs.filter((s) => s.kind === 'link' && s.items)) {
        for (const s of await computeBreakdown(history, t, spec, breakdown)) series.push(s);
      }
      if (series.length === 0) ctx.warn(`note: no ${breakdown} changes: they need two snapshots that both read the link's details (stats snapshot --details N)`);
    }
    const all = await history.snapshots(source.id);
    const newest = all.length ? iso(all[all.length - 1]!.at) : null;
    const fromServer = await serverSnapshots(chosen);
    const first = !breakdown && fromServer.length === 1 && !t.live ? firstRunNote(ctx, opts, fromServer[0]!) : undefined;
    const live = liveNote(t);
    const where = `${windowNote(chosen, newest, snapshots.length)}${live ? `\n${live}` : ''}`;
    const estimates = series.some((s) => s.estimated) ? `\n${format === 'table' ? 'estimated (░▒▓ in the sparkline)' : 'estimated'}: ${ESTIMATE_NOTE}` : '';
    const note = first ? `${where}\n${first}` : breakdown ? `${where}${estimates}` : `${where}\n${format === 'table' ? '* NEW UNIQUES' : 'uniqueClicks'}: ${UNIQUE_NOTE}${estimates}`;
    if (format === 'json') {
      const points = series.flatMap((s) => s.points.map((p) => (breakdown ? breakdownRecord(s, p, breakdown) : pointRecord(s, p))));
      if (first) ctx.warn(first);
      return {
        kind: 'raw',
        json: {
          account: { baseUrl: source.baseUrl, account: source.account, name: source.name },
          by, since: iso(window.since), until: iso(window.until), newestSnapshot: newest, snapshots: snapshots.length,
          ...(breakdown ? { breakdown } : { uniqueClicks: UNIQUE_NOTE }),
          ...(first ? { next: first } : {}),
          counted: live ?? 'snapshot differences',
          series: series.map(seriesJson),
          points,
        },
      };
    }
    if (format !== 'table') {
      const records = series.flatMap((s) => s.points.map((p) => (breakdown ? breakdownRecord(s, p, breakdown) : pointRecord(s, p))));
      return { kind: 'list', pages: one(records), columns: columns!, note };
    }
    if (first) return { kind: 'list', pages: one(series.map((s) => ({ series: s.spec.key, label: s.spec.label, total: s.total }))), columns: TOTAL_COLUMNS, note: `${where}\n${totalNote(newest)}\n${first}` };
    const periods = series[0]?.points.length ?? 0;
    const { columns: tableColumns, shown } = seriesColumns(by, periods, ctx.outputOptions().width, breakdown);
    ctx.checkOutput(tableColumns);
    return { kind: 'list', pages: one(series.map((s) => seriesRow(s, shown))), columns: tableColumns, note: breakdown ? note : `${note}\n${totalNote(newest)}` };
  } finally {
    await closeReader(ctx, history);
  }
}

function breakdownRecord(series: Series, point: Point, dimension: Dimension): Rec {
  const { spec } = series;
  return { series: spec.key.replace(/:[^:]+:[^:]*$/, ''), link: spec.link, dimension, name: spec.label, period: point.period, start: point.start, clicks: point.clicks, gap: point.gap, reset: point.reset, estimated: point.estimated, from: point.from, to: point.to };
}

export async function* one(records: Rec[]): AsyncGenerator<Rec[]> {
  yield records;
}

// ---------------------------------------------------------------- top

const RANK_COLUMNS: Column[] = [
  { key: 'rank', header: '#' },
  { key: 'kind', optional: true },
  { key: 'id', header: 'ID' },
  { key: 'alias', header: 'NAME' },
  { key: 'label', optional: true },
  { key: 'clicks', header: 'CLICKS', show: (r) => `${thousands(r.clicks as number)}${r.estimated ? '~' : ''}` },
  { key: 'previous', header: 'BEFORE', show: (r) => (r.previous === null ? '-' : thousands(r.previous as number)) },
  { key: 'change', header: 'CHANGE', show: (r) => (r.change === null ? '-' : `${(r.change as number) > 0 ? '+' : ''}${thousands(r.change as number)}`) },
  { key: 'changePercent', header: '%', show: (r) => (r.changePercent === null ? '-' : `${(r.changePercent as number) > 0 ? '+' : ''}${r.changePercent}%`) },
  { key: 'direction', optional: true },
  { key: 'reset', optional: true },
  { key: 'estimated', optional: true },
];

/** The JSON of a ranking: the same for `stats top --json`, the MCP tool and the report's data. */
function rankingJson(chosen: Chosen, ranking: Ranking, kind: 'link' | 'qr'): Rec {
  const { source } = chosen;
  return {
    account: { baseUrl: source.baseUrl, account: source.account, name: source.name },
    kind, by: ranking.by, window: ranking.window, covered: ranking.covered, comparison: ranking.comparison,
    clicks: ranking.clicks, previous: ranking.previous, note: ranking.note, snapshots: ranking.snapshots,
    ...(kind === 'qr' ? { qrs: ranking.rows } : { links: ranking.rows }),
  };
}

export async function top(ctx: Context, { opts }: ActionInput): Promise<Result> {
  if (ctx.format !== 'json') ctx.checkOutput(RANK_COLUMNS);
  const chosen = await choose(ctx, opts, 'day', '7d');
  try {
    const kind = opts.qr ? 'qr' : 'link';
    const ranking = await rank(chosen.history, chosen.source.id, chosen.items, kind, chosen.window.since, chosen.window.until, opts.top ?? 10);
    const fromServer = await serverSnapshots(chosen);
    const note = fromServer.length === 1 ? `${ranking.note}\n${firstRunNote(ctx, opts, fromServer[0]!)}` : ranking.note;
    if (ctx.format === 'json') {
      ctx.warn(note);
      return { kind: 'raw', json: rankingJson(chosen, ranking, kind) };
    }
    return { kind: 'list', pages: one(ranking.rows as unknown as Rec[]), columns: RANK_COLUMNS, note };
  } finally {
    await closeReader(ctx, chosen.history);
  }
}
