/**
 * `stats report`: the HTML page (and its PDF, through headless Chromium) of a window: series,
 * rankings, breakdowns and rollups, drawn by src/history/report.ts from what the other stats
 * commands compute (./actions.ts chooses the account and the window).
 */
import type { Context } from '../../context.js';
import type { ActionInput } from '../shared/define.js';
import type { Result } from '../../output/types.js';
import { CliError, ConfigError, NotFoundError, UsageError } from '../../errors.js';
import { computeBreakdowns, computeSeries, DeltaCache, type SeriesSpec, type Window } from '../../history/series.js';
import { rank, type Ranking } from '../../history/rank.js';
import { now, type Period } from '../../history/time.js';
import { DIMENSIONS, type Dimension } from '../../history/kinds.js';
import { liveTimeline } from '../../history/events.js';
import type { Breakdown, GroupSection } from '../../history/report.js';
import type { Group } from '../../history/rollup.js';
import { choose, closeReader, firstRunNote, plural, serverName, serverSnapshots, specsOf, UNIQUE_NOTE, windowOf, type Chosen } from './actions.js';

const DIMENSION_TITLES: Record<Dimension, string> = { countries: 'Countries', referrers: 'Referrers', browsers: 'Browsers', os: 'Systems' };

/**
 * The breakdowns `--details` kept, over the ranking's covered part and its comparison: each
 * name's change summed over the links, as `stats show --breakdown` counts it (same function).
 */
async function breakdowns(chosen: Chosen, ranking: Ranking, by: Period): Promise<Breakdown[]> {
  const { history, source } = chosen;
  if (!ranking.covered) return [];
  const items = await history.detailItems(source.id);
  if (!items.length) return [];
  const since = Date.parse(ranking.comparison?.from ?? ranking.covered.from);
  const t = await liveTimeline(history, source.id, { by, since, until: chosen.window.until });
  // each span as the timeline's period indices [first, end)
  const range = (span: { from: string; to: string }) => [t.starts.findIndex((start) => start >= Date.parse(span.from)), t.starts.findIndex((start) => start >= Date.parse(span.to))].map((i) => (i < 0 ? t.starts.length : i)) as [number, number];
  const coveredSpan = range(ranking.covered);
  const compared = ranking.comparison ? range(ranking.comparison) : undefined;
  const spec: SeriesSpec = { key: 'links', label: 'links with details', kind: 'link', link: null, qr: null, campaign: null, items: new Set(items) };
  const out: Breakdown[] = [];
  const all = await computeBreakdowns(history, t, spec, DIMENSIONS);
  // links whose details some snapshots of the window did not read: their changes count only between two reads (said, not hidden)
  const windowSnapshots = t.snapshots.filter((s) => s.origin === 'api' && s.at >= since).map((s) => s.id);
  const reads = await history.detailHistories(items, ['countries']);
  let partial = 0;
  for (const item of items) {
    const read = reads.get(item)?.get('countries');
    if (windowSnapshots.some((id) => !read?.has(id))) partial++;
  }
  for (const dimension of DIMENSIONS) {
    const series = all.get(dimension) ?? [];
    let covered = 0;
    const rows = series.map((s) => {
      const sum = ([first, end]: [number, number]) => {
        let clicks = 0;
        for (let w = first; w < end; w++) clicks += s.points[w]!.clicks ?? 0;
        return clicks;
      };
      const known = ([first, end]: [number, number]) => s.points.slice(first, end).some((p) => !p.gap);
      const clicks = sum(coveredSpan);
      covered += clicks;
      const previous = compared && known(compared) ? sum(compared) : null;
      const change = previous === null ? null : clicks - previous;
      return { name: s.spec.label, clicks, previous, change, changePercent: change === null || !previous ? null : Math.round((change / previous) * 1000) / 10 };
    }).filter((r) => r.clicks > 0).sort((a, b) => b.clicks - a.clicks || a.name.localeCompare(b.name)).slice(0, 10);
    out.push({ dimension, title: DIMENSION_TITLES[dimension], rows, links: items.length, covered, of: ranking.clicks, partial });
  }
  return out;
}

/**
 * The report's rollups: by campaign when a link is in one, by channel when the server's channels
 * hold a link (read now: the history keeps no channels; a server that cannot be reached leaves
 * the section out, said on stderr).
 */
async function reportGroups(ctx: Context, chosen: Chosen, asked: Window, by: Period, cache: DeltaCache): Promise<GroupSection[]> {
  const { membership, rollup } = await import('../../history/rollup.js');
  const out: GroupSection[] = [];
  const section = async (group: 'campaign' | 'channel', title: string, none: string, channels?: Map<number, Group[]>) => {
    const members = membership(chosen.items, group, channels);
    if (![...members.values()].some((g) => g.length)) return;
    const r = await rollup(chosen.history, chosen.source.id, chosen.items, group, members, asked.since, asked.until, 20, cache, by);
    out.push({ group, title, none, note: r.groupNote, rows: r.rows, ungrouped: r.ungrouped, clicks: r.clicks, shared: r.shared });
  };
  await section('campaign', 'By campaign', 'No campaign');
  let channels: Map<number, Group[]> | undefined;
  try {
    channels = await (await import('../../history/channels.js')).readChannels(ctx, chosen.items);
  } catch (error) {
    if (!(error instanceof CliError) || error instanceof UsageError) throw error;
    // a server without the channels endpoint has no channels: nothing to say
    if (!(error instanceof NotFoundError)) ctx.warn(`note: the page has no section by channel: the channels could not be read from the server (${error.message})`);
  }
  if (channels) await section('channel', 'By channel', 'No channel', channels);
  return out;
}

/** Chromium, to print the page: LINKCTL_BROWSER, else the usual names on PATH. */
async function findBrowser(env: Record<string, string | undefined>): Promise<string | undefined> {
  const { accessSync, constants } = await import('node:fs');
  const { delimiter, join } = await import('node:path');
  const runnable = (file: string) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (env.LINKCTL_BROWSER) return runnable(env.LINKCTL_BROWSER) ? env.LINKCTL_BROWSER : undefined;
  for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) {
    for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) if (runnable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/**
 * The page printed to PDF by headless Chromium: from a private copy of the page beside the PDF,
 * with no network (a proxy that does not exist) and a profile of its own, removed after.
 */
async function printPdf(ctx: Context, browser: string, html: string, pdf: string, paper: 'a4' | 'letter'): Promise<void> {
  const { mkdtempSync, rmSync, writeFileSync, existsSync, statSync } = await import('node:fs');
  const { dirname, join } = await import('node:path');
  const { spawn } = await import('node:child_process');
  const { pathToFileURL } = await import('node:url');
  const work = mkdtempSync(join(dirname(pdf), '.linkctl-pdf-'));
  try {
    const page = join(work, 'report.html');
    // the page leaves the paper to whoever prints it; this copy asks for the one --paper names
    writeFileSync(page, html.replace('</style>', `@page { size: ${paper === 'a4' ? 'A4' : 'letter'}; }\n</style>`), { mode: 0o600 });
    const out = join(work, 'report.pdf');
    const args = [
      '--headless', '--disable-gpu', '--no-first-run', '--no-default-browser-check', '--disable-extensions', '--disable-sync',
      '--disable-background-networking', '--disable-component-update', '--proxy-server=127.0.0.1:9', '--proxy-bypass-list=<-loopback>',
      `--user-data-dir=${join(work, 'profile')}`, '--no-pdf-header-footer', `--print-to-pdf=${out}`,
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), pathToFileURL(page).href,
    ];
    const status = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(browser, args, { stdio: ['ignore', 'ignore', 'pipe'], signal: ctx.io.signal });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d) => (stderr = (stderr + d).slice(-4000)));
      const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stderr });
      });
    });
    if (status.code !== 0 || !existsSync(out) || statSync(out).size === 0) {
      throw new ConfigError(`${browser} did not print the report (exit ${status.code})${status.stderr.trim() ? `: ${status.stderr.trim().split('\n').slice(-2).join(' ')}` : ''}`, 'write the page with --html FILE and print it from a browser');
    }
    const { readFileSync } = await import('node:fs');
    const target = await (await import('../../files/access.js')).prepareWrite(ctx, pdf, { flag: '--pdf', force: true });
    target.write(readFileSync(out));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export async function report(ctx: Context, { opts }: ActionInput): Promise<Result> {
  const by: Period = opts.by ?? 'day';
  if (opts.html === undefined && opts.pdf === undefined) throw new UsageError('stats report needs --html FILE or --pdf FILE (or both)', 'e.g. stats report --since 90d --html report.html, or --pdf report.pdf (printed by headless Chromium)');
  if (opts.pdf === '-') throw new UsageError('--pdf needs a file name (a PDF is not written to stdout)', 'e.g. --pdf report.pdf');
  // Checked before any work: an existing page is replaced only with --force (or a yes at a terminal).
  const { prepareWrite } = await import('../../files/access.js');
  const htmlOut = opts.html === undefined || opts.html === '-' ? undefined : await prepareWrite(ctx, String(opts.html), { flag: '--html', force: Boolean(opts.force) });
  const pdfOut = opts.pdf === undefined ? undefined : await prepareWrite(ctx, String(opts.pdf), { flag: '--pdf', force: Boolean(opts.force) });
  const asked = windowOf(ctx, opts, by, opts.since ?? '90d');
  const chosen = await choose(ctx, opts, by, opts.since ?? '90d');
  const { history, source } = chosen;
  try {
    // every view of the page reads the same history: each kind read and decoded once
    const cache = new DeltaCache(history, source.id, asked.until);
    const links = await rank(history, source.id, chosen.items, 'link', asked.since, asked.until, 10, by, cache);
    // the page's window is the ranking's: whole periods, so that its cards, charts and tables add up
    const window: Window = { by, since: Date.parse(links.window.from), until: asked.until };
    const pageChosen: Chosen = { ...chosen, window };
    const hasQrs = chosen.items.some((i) => i.kind === 'qr');
    const specs = await specsOf(pageChosen, { ...opts, top: opts.top ?? (opts.link || opts.campaign || opts.qr ? undefined : 5), qrs: hasQrs }, cache);
    const { series } = await computeSeries(history, source.id, specs, window, cache);
    const qrs = hasQrs ? await rank(history, source.id, chosen.items, 'qr', asked.since, asked.until, 10, by, cache) : null;
    const fromServer = await serverSnapshots(chosen);
    const { renderReport } = await import('../../history/report.js');
    const html = renderReport({
      title: `Click report: ${source.name ?? source.account}`,
      server: serverName(source.baseUrl),
      account: source.name ?? source.account,
      window,
      series,
      links,
      qrs,
      breakdowns: await breakdowns(chosen, links, by),
      groups: await reportGroups(ctx, chosen, asked, by, cache),
      snapshots: fromServer.length,
      newest: fromServer.at(-1) ?? null,
      generated: now(ctx.env),
      firstRun: fromServer.length === 1 ? firstRunNote(ctx, opts, fromServer[0]!) : undefined,
      uniqueNote: UNIQUE_NOTE,
    });
    const summary = `${plural(series.length, 'chart')}, ${plural(links.rows.length, 'ranked link')}, ${plural(fromServer.length, 'snapshot')}`;
    if (ctx.globals.dryRun) {
      ctx.warn('dry run: nothing was written');
      const files = [htmlOut?.path, pdfOut?.path].filter(Boolean).join(' and ');
      return { kind: 'message', message: `Would write ${files || 'the page to stdout'}: ${summary}.`, json: { dryRun: true, file: htmlOut?.path ?? null, pdf: pdfOut?.path ?? null, charts: series.length } };
    }
    const wrote: string[] = [];
    if (htmlOut) {
      htmlOut.write(html);
      wrote.push(htmlOut.path);
    }
    if (pdfOut) {
      const browser = await findBrowser(ctx.env);
      if (!browser) {
        let page = htmlOut?.path;
        if (!page) {
          const beside = String(opts.pdf).replace(/\.pdf$/i, '') + '.html';
          (await prepareWrite(ctx, beside, { flag: '--pdf', force: Boolean(opts.force) })).write(html);
          page = beside;
        }
        throw new ConfigError(`no Chromium to print the PDF with (looked for ${ctx.env.LINKCTL_BROWSER ? `LINKCTL_BROWSER=${ctx.env.LINKCTL_BROWSER}` : 'chromium, chromium-browser, google-chrome on PATH'}); the page is written: ${page}`, 'open it in a browser and print it to PDF, or install Chromium (Debian: apt-get install chromium) or set LINKCTL_BROWSER to one');
      }
      await printPdf(ctx, browser, html, pdfOut.path, opts.paper ?? 'a4');
      wrote.push(pdfOut.path);
    }
    if (!htmlOut && !pdfOut) return { kind: 'text', text: html };
    return { kind: 'message', message: `Wrote ${wrote.join(' and ')}: ${summary}.`, json: { file: htmlOut?.path ?? null, pdf: pdfOut?.path ?? null, charts: series.length, links: links.rows.length, snapshots: fromServer.length } };
  } finally {
    await closeReader(ctx, history);
  }
}
